"""read_scenario reads what the binary reads: JSON with // and /* */ comments."""

import json
import subprocess

import pytest

import dlsim

TRICKY = """// a line comment
{
  "name": "tricky",   /* markers inside strings stay */
  "description": "quote \\" // still a string /*c*/",
  /* a block
     over lines */ "workers": 3,
  "seed": 2 // the end
}
"""


def test_comments_go_strings_stay(tmp_path, dlsim_bin):
    path = tmp_path / "tricky.json"
    path.write_text(TRICKY)
    doc = dlsim.read_scenario(path)
    assert doc == {"name": "tricky", "description": 'quote " // still a string /*c*/',
                   "workers": 3, "seed": 2}
    # The binary reads the same values.
    resolved = json.loads(subprocess.run([dlsim_bin, "validate", str(path)], check=True,
                                         stdout=subprocess.PIPE, text=True).stdout)
    assert {k: resolved[k] for k in doc} == doc


def test_line_numbers_survive_block_comments():
    text = '{\n/* one\ntwo */ "a": ,\n}'
    with pytest.raises(json.JSONDecodeError) as e:
        json.loads(dlsim.strip_comments(text))
    assert e.value.lineno == 3


def test_unclosed_block_comment(tmp_path):
    path = tmp_path / "open.json"
    path.write_text('{"workers": 2 /* never closed\n}')
    with pytest.raises(ValueError, match="never closed"):
        dlsim.read_scenario(path)


def test_the_quickstart_has_comments_and_a_sweep():
    doc = dlsim.read_scenario(dlsim.runner._REPO + "/scenarios/quickstart.json")
    assert doc["sweep"]["grid"] == {"algorithm.kind": ["sgd", "qsgd", "lpc-svrg"]}
