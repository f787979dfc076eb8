#!/usr/bin/env bash
# A data cache entry truncated by another program while a run reads it (the entry is
# mapped, models/data/mapped_file.hpp): the run ends with exit code 1 and one line naming
# the entry (models/data/mapped_file_fault.hpp), not a crash; its rows so far stay in
# metrics.csv.partial, and no metrics.csv claims to be complete. Needs the Debian package
# dataset-fashion-mnist (tools/setup.sh).
# Usage: mapped_truncated.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

export DLSIM_CACHE_DIR=$tmp/cache
scenario=$src/scenarios/bench/choco-ring9-fmnist-logistic-batch1.json
# A short run fills the cache: the decoded training and test images, one entry each.
"$dlsim" run "$scenario" --out "$tmp/fill" --quiet --set 'stop={"epochs":0.01}'
entries=("$tmp"/cache/*-images-idx3-ubyte-*)
check "the cache holds the two image entries" test "${#entries[@]}" -eq 2

# A long run from the cache; once it has written rows, it is reading the entries.
"$dlsim" run "$scenario" --out "$tmp/run" --quiet --set 'stop={"epochs":1000}' \
  2> "$tmp/stderr" &
pid=$!
for _ in $(seq 600); do
  rows=0
  [ -e "$tmp/run/metrics.csv.partial" ] && rows=$(wc -l < "$tmp/run/metrics.csv.partial")
  [ "$rows" -ge 3 ] && break
  sleep 0.1
done
check "the run writes rows before the entries are cut" test "$rows" -ge 3
for entry in "${entries[@]}"; do truncate -s 0 "$entry"; done
# It ends at its next read of an entry (microseconds); a run that went on would be
# killed after two minutes and fail below (exit code 137).
for _ in $(seq 1200); do
  kill -0 $pid 2> /dev/null || break
  sleep 0.1
done
kill -9 $pid 2> /dev/null || true
rc=0
wait $pid || rc=$?
check "exit code 1 (got $rc)" test $rc -eq 1
check "one line on stderr" test "$(wc -l < "$tmp/stderr")" -eq 1
line=$(cat "$tmp/stderr")
pattern="^dlsim: error: $tmp/cache/(train|t10k)-images-idx3-ubyte-[0-9a-f]+: the file could no longer be read during the run \(another program truncated it, or the disk failed\); the run cannot go on$"
check "the line names the entry: $line" grep -Eq "$pattern" <<< "$line"
check "the rows so far are in metrics.csv.partial" test "$(wc -l < "$tmp/run/metrics.csv.partial")" -ge 3
check "no metrics.csv" test ! -e "$tmp/run/metrics.csv"
echo "$passed passed"
