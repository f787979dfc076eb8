#!/usr/bin/env bash
# The happy path of the command line: dlsim run writes metrics.csv and summary.json
# that pandas loads, --set overrides keys, two runs give the same bytes (all but
# wall_s), validate prints the resolved scenario, schema prints JSON Schema.
# Usage: run.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

"$dlsim" --help > "$tmp/help"
check "--help lists the subcommands" grep -q "validate" "$tmp/help"
"$dlsim" run --help > "$tmp/run-help"
check "run --help documents --set" grep -q -- "--set" "$tmp/run-help"

"$dlsim" run "$src/scenarios/quickstart.json" --out "$tmp/a" --quiet > "$tmp/quiet.out" 2> "$tmp/quiet.err"
"$dlsim" run "$src/scenarios/quickstart.json" --out "$tmp/b" > "$tmp/stdout"
check "--quiet prints nothing on stdout or stderr" test ! -s "$tmp/quiet.out" -a ! -s "$tmp/quiet.err"
check "the closing line names the output folder" grep -q "$tmp/b" "$tmp/stdout"
check "metrics.csv written" test -s "$tmp/a/metrics.csv"
check "no partial file left" test ! -e "$tmp/a/metrics.csv.partial"
check "summary.json written" test -s "$tmp/a/summary.json"
cut -d, -f1-10 "$tmp/a/metrics.csv" > "$tmp/a.cut"
cut -d, -f1-10 "$tmp/b/metrics.csv" > "$tmp/b.cut"
check "two runs give identical metrics (but wall_s)" cmp -s "$tmp/a.cut" "$tmp/b.cut"

check "pandas loads the results" "$py" - "$tmp/a" <<'PY'
import json, sys
import pandas as pd
run = sys.argv[1]
df = pd.read_csv(f"{run}/metrics.csv")
assert list(df.columns) == ["time_s", "iteration", "epoch", "bits_total", "bytes_wire", "messages",
                            "train_loss", "test_loss", "test_accuracy", "consensus_distance", "wall_s"], df.columns
assert df["iteration"].iloc[0] == 0 and df["time_s"].iloc[0] == 0
assert df["time_s"].is_monotonic_increasing and df["bits_total"].is_monotonic_increasing
assert df["train_loss"].iloc[-1] < df["train_loss"].iloc[0] / 10, df["train_loss"]
assert df["test_accuracy"].isna().all()          # regression: no accuracy
s = json.load(open(f"{run}/summary.json"))
for key in ["scenario", "final", "totals", "topology", "version"]:
    assert key in s, key
for key in ["events", "messages", "bits_total", "bytes_wire", "sim_time_s", "wall_s", "wall_math_s",
            "wall_compress_s", "wall_engine_s", "peak_rss_bytes"]:
    assert key in s["totals"], key
assert s["final"]["iteration"] == int(df["iteration"].iloc[-1])
assert s["final"]["bits_total"] == int(df["bits_total"].iloc[-1])
assert s["scenario"]["network"]["sharing"] == "fair"      # a default, filled in
assert s["scenario"]["workers"] == 8
assert s["totals"]["peak_rss_bytes"] > 0
PY

"$dlsim" run "$src/scenarios/quickstart.json" --out "$tmp/c" --quiet --set workers=4 \
  --set network.bandwidth=100Mbps --set 'stop={"iterations": 7}'
check "--set overrides keys" "$py" - "$tmp/c" <<'PY'
import json, sys
s = json.load(open(f"{sys.argv[1]}/summary.json"))
assert s["scenario"]["workers"] == 4
assert s["scenario"]["network"]["bandwidth"] == "100Mbps"
assert s["final"]["iteration"] == 7, s["final"]
PY

"$dlsim" validate "$src/scenarios/quickstart.json" > "$tmp/resolved.json"
check "validate prints the resolved scenario" "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['network']['sharing']=='fair' and d['output']['dir']=='results/quickstart'" "$tmp/resolved.json"

"$dlsim" schema > "$tmp/schema.json"
check "schema is JSON Schema" "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['type']=='object' and 'network' in d['properties']" "$tmp/schema.json"

"$dlsim" schema --markdown > "$tmp/reference.md"
check "docs/scenario-reference.md is up to date (make docs)" cmp -s "$tmp/reference.md" "$src/docs/scenario-reference.md"

# Every shipped scenario (every *.json under scenarios/, subfolders included; the
# README.md files are not scenarios) validates and says what it shows.
mapfile -t shipped < <(find "$src/scenarios" -name '*.json' | sort)
for dir in experiments examples bench; do
  check "the scenarios of scenarios/$dir/ are found" grep -q "/scenarios/$dir/[^/]*\.json$" <(printf '%s\n' "${shipped[@]}")
done
# CIFAR-10 is not shipped (nor packaged): a scenario on it whose folder is absent validates
# against a small generated one (32 3,073-byte records per file: a batch of 128 fits).
cifar_stub="$tmp/cifar-10-batches-bin"
"$py" - "$cifar_stub" <<'PY'
import os, sys
os.makedirs(sys.argv[1])
for name in [f"data_batch_{k}.bin" for k in range(1, 6)] + ["test_batch.bin"]:
    with open(os.path.join(sys.argv[1], name), "wb") as f:
        f.write((bytes([3]) + bytes(range(256)) * 12) * 32)
PY
cifar_path() {  # the folder a cifar10 scenario reads (data.path or its default), else nothing
  PYTHONPATH="$src/python" "$py" -c '
import dlsim, sys
data = dlsim.read_scenario(sys.argv[1]).get("data", {})
if data.get("source") == "cifar10":
    print(data.get("path", "/usr/share/datasets/cifar-10-batches-bin"))' "$1"
}
for s in "${shipped[@]}"; do
  name=${s#"$src/scenarios/"}
  stub=()
  folder=$(cifar_path "$s")
  if [ -n "$folder" ] && [ ! -f "$folder/data_batch_1.bin" ]; then
    stub=(--set "data.path=$cifar_stub")
  fi
  check "$name validates" bash -c '"$0" validate "$1" "${@:2}" > /dev/null' "$dlsim" "$s" "${stub[@]}"
  check "$name has a description" env PYTHONPATH="$src/python" "$py" -c 'import dlsim,sys; sys.exit(0 if dlsim.read_scenario(sys.argv[1]).get("description") else 1)' "$s"
done

# The index READMEs of scenarios/experiments/ and scenarios/examples/ name every file of
# their folder, and every file they name is there.
for dir in experiments examples; do
  index="$src/scenarios/$dir/README.md"
  check "scenarios/$dir/README.md exists" test -s "$index"
  for s in "$src/scenarios/$dir"/*.json; do
    check "scenarios/$dir/README.md lists $(basename "$s")" grep -qF "\`$(basename "$s")\`" "$index"
  done
  for named in $(grep -o '^| `[^`]*\.json`' "$index" | tr -d '|` '); do
    check "scenarios/$dir/$named (named in its README) exists" test -f "$src/scenarios/$dir/$named"
  done
done

echo "$passed passed, 0 failed"
