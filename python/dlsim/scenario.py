"""Read scenario files as dlsim does: JSON with ``// ...`` and ``/* ... */`` comments
(sim/scenario/read.cpp), so tools and notebooks can load the files they run."""

import json
import os


def strip_comments(text):
    """``text`` without its comments; strings are kept as written, and every newline
    inside a comment is kept so that json's line numbers still match the file."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueError("a /* comment that is never closed")
            out.append("\n" * text.count("\n", i, end))
            i = end + 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def read_scenario(path):
    """The scenario file at ``path`` as a dict (comments removed; not validated: use
    ``dlsim validate`` for the resolved form). Raises ValueError on invalid JSON."""
    with open(os.fspath(path), encoding="utf-8") as f:
        return json.loads(strip_comments(f.read()))
