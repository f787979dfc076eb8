#!/usr/bin/env bash
# The shipped per-layer profiles (scenarios/profiles/*.json, tools/dlsim-profile) and
# the experiments built on them: every layer has a unique name, parameters >= 1 and
# flops >= 0, and the layers add up to the model's published parameter count.
# Needs no torch.
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

echo "$passed passed, 0 failed"
