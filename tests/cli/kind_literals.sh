#!/usr/bin/env bash
# One place per kind (issue 17): every registered kind's name appears as a string
# literal in at most 2 non-test source files (its own registration and at most one
# other, e.g. the process that runs it or the key table's default), never in the shared
# code that looks kinds up. The kinds are read from the registry itself (`dlsim schema`),
# so a new kind is covered without editing this test. Checked for: algorithm.kind,
# model.kind and data.source.
#
# A model or data-source name that is also some other value in the schema (data.source "none" is a compressor
# kind and a value of data.normalize and data.preset) would be counted in every file
# that uses the other meaning; for such a name only the lines that also say "source" or
# "data" (any case) are counted, so the check looks at the data-source meaning alone.
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

"$dlsim" schema > "$tmp/schema.json"
$py - "$tmp/schema.json" > "$tmp/kinds" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
sections = [("algorithm", "kind"), ("model", "kind"), ("data", "source")]

# Every string the schema allows somewhere as a const or enum value, with where.
values = []
def walk(node, path):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "const" and isinstance(value, str):
                values.append((value, path))
            elif key == "enum" and isinstance(value, list):
                values.extend((v, path) for v in value if isinstance(v, str))
            else:
                walk(value, path + (key,))
    elif isinstance(node, list):
        for item in node:
            walk(item, path)
walk(schema, ())

for section, key in sections:
    own = ("properties", section, "oneOf", "properties", key)
    for variant in schema["properties"][section]["oneOf"]:
        name = variant["properties"][key]["const"]
        # algorithm kinds are counted everywhere, as before (qsgd is also a compressor)
        collides = section != "algorithm" and any(v == name and p != own for v, p in values)
        print(section, name, "collides" if collides else "alone")
PY
for section in algorithm model data; do
  n=$(grep -c "^$section " "$tmp/kinds" || true)
  check "the registry lists the ${section} kinds (got $n)" test "$n" -ge 6
done

while read -r section kind collision; do
  files=$(grep -rlF "\"$kind\"" "$src/spec" "$src/sim" "$src/models" "$src/topologies" \
    "$src/tools/dlsim" --include='*.cpp' --include='*.hpp' | sort)
  if [ "$collision" = collides ]; then
    files=$(for f in $files; do
      grep -F "\"$kind\"" "$f" | grep -qiE 'source|data' && echo "$f"
    done)
  fi
  n=$(printf '%s' "$files" | grep -c . || true)
  if [ "$n" -gt 2 ]; then
    echo "$section kind \"$kind\" is named in $n source files:"
    printf '  %s\n' $files
  fi
  check "$section kind $kind is named in at most 2 source files (got $n)" test "$n" -le 2
done < "$tmp/kinds"
echo "$passed passed, 0 failed"
