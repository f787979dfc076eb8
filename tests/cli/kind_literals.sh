#!/usr/bin/env bash
# One place per kind (issue 17): every registered kind's name appears as a string
# literal in at most 2 non-test source files (its own registration and at most one
# other, e.g. the process that runs it or the key table's default), never in the shared
# code that looks kinds up. The kinds are read from the registry itself (`dlsim schema`),
# so a new kind is covered without editing this test. Checked for: algorithm.kind,
# model.kind, data.source, topology.kind and algorithm.compressor.kind.
#
# Two topology names are also words the code uses in other meanings, outside the schema:
# "complete" (a run's status in summary.json, runs.csv) and "grid" (a sweep's grid); they
# count as collisions too.
#
# A topology or compressor kind is implemented inside its component (topologies/,
# models/compress/: e.g. topologies/generators.cpp builds the ring for kinds/ring.cpp), so
# for those the at-most-2 count is over the files outside that folder: the simulator and
# the tools may name such a kind in at most 2 files (e.g. the key table's default).
#
# A name that is also some other value in the schema (data.source "none" is a compressor
# kind and a value of data.normalize and data.preset) would be counted in every file that
# uses the other meaning; for such a name only the lines that also name its own meaning
# are counted ("source" or "data"; "topolog"; "compress"; any case).
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

"$dlsim" schema > "$tmp/schema.json"
$py - "$tmp/schema.json" > "$tmp/kinds" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
sections = [("algorithm", "kind"), ("model", "kind"), ("data", "source"), ("topology", "kind")]

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

def base(path):  # the keys of a path, without the schema's own words
    return tuple(k for k in path if k not in ("properties", "oneOf"))

for section, key in sections:
    for variant in schema["properties"][section]["oneOf"]:
        name = variant["properties"][key]["const"]
        # algorithm kinds are counted everywhere, as before (qsgd is also a compressor)
        collides = section != "algorithm" and any(v == name and base(p) != (section, key) for v, p in values)
        collides = collides or (section, name) in {("topology", "complete"), ("topology", "grid")}
        print(section, name, "collides" if collides else "alone")

# Compressor kinds: the compressor objects (algorithm.compressor, the SVRG family's
# downlink_compressor) are the same under every algorithm variant. A compressor name
# collides when it is also a value somewhere else than a compressor's kind (qsgd is an
# algorithm, none a data source).
compressor = schema["properties"]["algorithm"]["oneOf"][0]["properties"]["compressor"]
for variant in compressor["oneOf"]:
    name = variant["properties"]["kind"]["const"]
    collides = any(v == name and not (base(p)[-1:] == ("kind",) and base(p)[-2].endswith("compressor"))
                   for v, p in values)
    print("compressor", name, "collides" if collides else "alone")
PY
for section in algorithm model data topology compressor; do
  n=$(grep -c "^$section " "$tmp/kinds" || true)
  check "the registry lists the ${section} kinds (got $n)" test "$n" -ge 6
done

while read -r section kind collision; do
  files=$(grep -rlF "\"$kind\"" "$src/spec" "$src/sim" "$src/models" "$src/topologies" \
    "$src/tools/dlsim" --include='*.cpp' --include='*.hpp' | sort)
  # what a collision's lines must say to count, and the component folder not counted
  case $section in
    topology) meaning='topolog'; home="$src/topologies/" ;;
    compressor) meaning='compress'; home="$src/models/compress/" ;;
    *) meaning='source|data'; home="" ;;
  esac
  if [ -n "$home" ]; then
    files=$(for f in $files; do [[ "$f" == "$home"* ]] || echo "$f"; done)
  fi
  if [ "$collision" = collides ]; then
    files=$(for f in $files; do
      grep -F "\"$kind\"" "$f" | grep -qiE "$meaning" && echo "$f"
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
