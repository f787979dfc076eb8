#!/usr/bin/env bash
# One place per kind (issue 17): every registered kind's name appears as a string
# literal in at most 2 non-test source files (its own registration and at most one
# other, e.g. the process that runs it), never in the shared code that looks kinds up.
# The kinds are read from the registry itself (`dlsim schema`), so a new kind is covered
# without editing this test. Checked for: algorithm.kind.
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

"$dlsim" schema > "$tmp/schema.json"
$py - "$tmp/schema.json" > "$tmp/kinds" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
for variant in schema["properties"]["algorithm"]["oneOf"]:
    print("algorithm", variant["properties"]["kind"]["const"])
PY
check "the registry lists the algorithms" test "$(wc -l < "$tmp/kinds")" -ge 13

while read -r section kind; do
  files=$(grep -rlF "\"$kind\"" "$src/spec" "$src/sim" "$src/models" "$src/topologies" \
    "$src/tools/dlsim" --include='*.cpp' --include='*.hpp' | sort)
  n=$(printf '%s' "$files" | grep -c . || true)
  if [ "$n" -gt 2 ]; then
    echo "$section kind \"$kind\" is named in $n source files:"
    printf '  %s\n' $files
  fi
  check "$section kind $kind is named in at most 2 source files (got $n)" test "$n" -le 2
done < "$tmp/kinds"
echo "$passed passed, 0 failed"
