#!/usr/bin/env bash
# Golden results: every tests/golden/<name>.json is run, and its metrics.csv without the
# wall_s column must equal tests/golden/<name>.metrics.csv byte for byte. The scenarios
# draw from every random stream (data, test split, subsample, partitions, batches, init,
# compressors, compute jitter, drops, random graphs; tests/golden/README.md), so a
# change of any draw, of the distributions (rng/), or of the math shows here. One moved
# bit fails the test: tolerances have no place in it.
#
# To regenerate the files deliberately (after a change meant to move results; say so in
# the commit message, and why):
#   DLSIM_GOLDEN_UPDATE=1 bash tests/cli/golden.sh build/bin/dlsim .
# Usage: golden.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

golden=$src/tests/golden
# metrics.csv without its wall_s column (found by name in the header).
without_wall() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") w = i }
           { out = ""; sep = ""
             for (i = 1; i <= NF; i++) if (i != w) { out = out sep $i; sep = "," }
             print out }' "$1"
}

scenarios=("$golden"/*.json)
check "golden scenarios exist" test -e "${scenarios[0]}"
differ=0
for scenario in "${scenarios[@]}"; do
  name=$(basename "$scenario" .json)
  expected=$golden/$name.metrics.csv
  check "$name runs" "$dlsim" run "$scenario" --out "$tmp/$name" --quiet --threads 1
  without_wall "$tmp/$name/metrics.csv" > "$tmp/$name.csv"
  check "$name: wall_s was removed" bash -c "! head -n 1 '$tmp/$name.csv' | grep -q wall_s"
  if [ "${DLSIM_GOLDEN_UPDATE:-}" = 1 ]; then
    cp "$tmp/$name.csv" "$expected"
    echo "wrote $expected"
  elif cmp -s "$expected" "$tmp/$name.csv"; then
    echo "ok   $name"
  else  # every scenario is compared, so one run shows all that moved
    echo "FAIL $name: metrics.csv (but wall_s) differs from $expected:"
    diff "$expected" "$tmp/$name.csv" | head -n 6
    differ=$((differ + 1))
  fi
done
echo "${#scenarios[@]} scenarios, $differ differ"
[ "$differ" -eq 0 ]
