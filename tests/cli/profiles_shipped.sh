#!/usr/bin/env bash
# The shipped per-layer profiles (scenarios/profiles/*.json, tools/dlsim-profile) and
# the experiments built on them: every layer has a unique name, parameters >= 1 and
# flops >= 0, and the layers add up to the model's published parameter count; each
# profile runs. Needs no torch.
# Usage: profiles_shipped.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

check "the shipped profiles have published parameter counts" "$py" - "$src" <<'PY'
import glob, json, os, sys
src = sys.argv[1]
published = {"resnet50": 25_557_032, "vgg16": 138_357_544, "vit_b_16": 86_567_656}
profiles = sorted(glob.glob(f"{src}/scenarios/profiles/*.json"))
names = {os.path.basename(p).removesuffix(".json") for p in profiles}
assert names == set(published), f"scenarios/profiles/ holds {sorted(names)}"
files = {p: published[os.path.basename(p).removesuffix(".json")] for p in profiles}
experiment = f"{src}/scenarios/experiments/alpc-svrg-resnet50-layers-1024.json"
files[experiment] = published["resnet50"]
for path, total in files.items():
    where = os.path.relpath(path, src)
    model = json.load(open(path))["model"]
    assert model["kind"] == "profile" and "parameters" not in model, where
    layers = model["layers"]
    assert layers, f"{where}: no layers"
    for l in layers:
        assert set(l) == {"name", "parameters", "flops"}, f"{where}: {l}"
        assert isinstance(l["name"], str) and l["name"], f"{where}: {l}"
        assert isinstance(l["parameters"], int) and l["parameters"] >= 1, f"{where}: {l}"
        assert isinstance(l["flops"], int) and l["flops"] >= 0, f"{where}: {l}"
    names = [l["name"] for l in layers]
    assert len(set(names)) == len(names), f"{where}: duplicate layer names"
    got = sum(l["parameters"] for l in layers)
    assert got == total, f"{where}: {got:,} parameters, published {total:,}"
    assert sum(l["flops"] for l in layers) > 0, where
PY

for f in "$src"/scenarios/profiles/*.json; do
  check "scenarios/profiles/README.md names $(basename "$f")" \
    grep -qF "\`$(basename "$f")\`" "$src/scenarios/profiles/README.md"
done

# Each runs; on one worker with a free network an iteration is exactly the compute of a
# batch from its FLOPs: batch_size x sum(flops) / compute.speed.
for f in "$src"/scenarios/profiles/*.json; do
  name=$(basename "$f" .json)
  "$dlsim" run "$f" --set stop.iterations=1 --set workers=1 --set network.latency=0 \
    --set network.bandwidth=1000000Tbps --out "$tmp/$name" --quiet
  check "$name: one iteration takes batch x FLOPs / speed" "$py" - "$f" "$tmp/$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
time_s = json.load(open(f"{sys.argv[2]}/summary.json"))["final"]["time_s"]
assert s["compute"]["speed"] == "100TFLOPS", s["compute"]
compute = s["algorithm"]["batch_size"] * sum(l["flops"] for l in s["model"]["layers"]) / 1e14
assert abs(time_s - compute) <= 1e-6 * compute, (compute, time_s)
PY
done

echo "$passed passed, 0 failed"
