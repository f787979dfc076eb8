#!/usr/bin/env bash
# tools/dlsim-profile (needs python3-torch, python3-torchvision: tools/setup.sh --torch;
# without them this test is skipped, exit 77): per-layer parameters add up to the
# published totals; ResNet-50's conv and linear FLOPs match the closed form computed
# here from the architecture; bad input is refused with one line and exit code 2.
# Usage: profile_torch.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"
tool="$src/tools/dlsim-profile"

# refused NAME EXPECTED-START args...: exit code 2 and one stderr line starting so.
refused() {
  local name=$1 start=$2
  shift 2
  "$@" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  check "$name: exit code 2 (got $rc)" test "$rc" -eq 2
  check "$name: one line on stderr" test "$(wc -l < "$tmp/stderr")" -eq 1
  check "$name: the line starts with '$start' ($(head -n 1 "$tmp/stderr"))" \
    grep -q "^$start" "$tmp/stderr"
  check "$name: nothing on stdout" test ! -s "$tmp/stdout"
}

# Without torch (a torch that fails to import stands in): the one-line hint.
mkdir -p "$tmp/no-torch/torch"
echo 'raise ImportError("no torch here")' > "$tmp/no-torch/torch/__init__.py"
hint="python3-torch and python3-torchvision are needed (tools/setup.sh --torch installs them)"
refused no_torch "dlsim-profile: error: $hint$" env PYTHONPATH="$tmp/no-torch" "$tool" resnet50
refused no_model "dlsim-profile: error: " "$tool"
refused bad_input_text "dlsim-profile: error: argument --input" "$tool" resnet50 --input 3,x,224
refused bad_input_zero "dlsim-profile: error: argument --input" "$tool" resnet50 --input 3,0,224
refused bad_speed "dlsim-profile: error: --speed" "$tool" resnet50 --scenario --speed fast
refused bad_time "dlsim-profile: error: --compute-time" "$tool" resnet50 --compute-time soon

if ! "$py" -c "import torch, torchvision" 2> /dev/null; then
  echo "SKIP: python3-torch and python3-torchvision are not installed (tools/setup.sh --torch)"
  exit 77
fi

refused unknown_model "dlsim-profile: error: unknown model 'resnet51'" "$tool" resnet51
refused detection_model "dlsim-profile: error: unknown model" "$tool" fasterrcnn_resnet50_fpn
refused wrong_rank "dlsim-profile: error: resnet50 does not take input 3,224" \
  "$tool" resnet50 --input 3,224
refused vit_size "dlsim-profile: error: vit_b_16 does not take input 3,64,64" \
  "$tool" vit_b_16 --input 3,64,64

check "--help explains the convention" bash -c '"$0" --help | grep -q "multiply-add"' "$tool"

"$tool" resnet50 > "$tmp/resnet50.json" 2> "$tmp/resnet50.err"
check "resnet50 profiled without warnings" test ! -s "$tmp/resnet50.err"
"$tool" resnet50 --out "$tmp/resnet50-out.json"
check "--out writes what stdout gets" cmp -s "$tmp/resnet50.json" "$tmp/resnet50-out.json"
"$tool" vgg16 > "$tmp/vgg16.json"
"$tool" vit_b_16 > "$tmp/vit_b_16.json"
"$tool" resnet50 --classes 10 > "$tmp/resnet50-10.json"
"$tool" resnet50 --scenario --workers 16 --out "$tmp/r50-scenario.json"

check "parameters, FLOPs and the closed form" "$py" - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]

def layers(name):
    model = json.load(open(f"{tmp}/{name}.json"))
    assert model["kind"] == "profile", model
    assert set(model) == {"kind", "layers", "compute_time"}, model.keys()
    ls = model["layers"]
    assert len({l["name"] for l in ls}) == len(ls), f"{name}: duplicate layer names"
    for l in ls:
        assert set(l) == {"name", "parameters", "flops"}, l
        assert isinstance(l["parameters"], int) and l["parameters"] >= 1, l
        assert isinstance(l["flops"], int) and l["flops"] >= 0, l
    return {l["name"]: l for l in ls}

published = {"resnet50": 25_557_032, "vgg16": 138_357_544, "vit_b_16": 86_567_656,
             "resnet50-10": 25_557_032 - 2048 * 990 - 990}
for name, total in published.items():
    got = sum(l["parameters"] for l in layers(name).values())
    assert got == total, f"{name}: {got:,} parameters, published {total:,}"

# ResNet-50 (torchvision, v1.5: the stride of a stage's first block is on its 3x3 conv),
# multiply-adds of every conv and of fc, from the architecture by hand.
def conv(cin, cout, k, side):  # k x k kernel, side x side output
    return cin * cout * k * k * side * side
expected = {"conv1": conv(3, 64, 7, 112)}
cin, side = 64, 56
for stage, (width, blocks) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)], start=1):
    for b in range(blocks):
        out_side = side // 2 if (b == 0 and stage > 1) else side
        p = f"layer{stage}.{b}."
        expected[p + "conv1"] = conv(cin, width, 1, side)
        expected[p + "conv2"] = conv(width, width, 3, out_side)
        expected[p + "conv3"] = conv(width, 4 * width, 1, out_side)
        if b == 0:
            expected[p + "downsample.0"] = conv(cin, 4 * width, 1, out_side)
        cin, side = 4 * width, out_side
expected["fc"] = 2048 * 1000
total = sum(expected.values())
assert total == 4_089_184_256, total  # the well-known 4.09 G multiply-adds

# The convention: multiply-add = 2 FLOPs, backward = 2 x forward for layers with weights,
# so a conv layer (no bias; each is followed by a BN, which takes the ReLUs) has 6 x its
# multiply-adds, and fc 3 x (2 x its multiply-adds + 1000 bias adds).
r50 = layers("resnet50")
convs = [n for n in r50 if "conv" in n or n.endswith("downsample.0")]
assert sorted(convs + ["fc"]) == sorted(expected), set(expected) ^ set(convs + ["fc"])
for n in convs:
    assert r50[n]["flops"] == 6 * expected[n], (n, r50[n]["flops"], 6 * expected[n])
assert r50["fc"]["flops"] == 3 * (2 * expected["fc"] + 1000), r50["fc"]
forward_macs = sum(r50[n]["flops"] for n in convs) // 6 + (r50["fc"]["flops"] // 3 - 1000) // 2
assert forward_macs == total, forward_macs

# bn1: 7 FLOPs per element forward, x3; relu (1 per element) and the max pool (1 per
# input element) folded in, x2.
e = 64 * 112 * 112
assert r50["bn1"]["flops"] == 3 * 7 * e + 2 * (e + e), r50["bn1"]

# ViT-B/16, first block's attention (L = 197 tokens, E = 768, 12 heads): Q, K, V
# projections and the two L x L matmuls x3; scaling, softmax and the dropout after it x2.
vit = layers("vit_b_16")
L, E, H = 197, 768, 12
att = vit["encoder.layers.encoder_layer_0.self_attention"]["flops"]
weighted = 3 * L * (2 * E * E + E) + 2 * 2 * L * L * E
assert att == 3 * weighted + 2 * (L * E + H * L * L + L * E), att
out = vit["encoder.layers.encoder_layer_0.self_attention.out_proj"]["flops"]
assert out == 3 * L * (2 * E * E + E), out

s = json.load(open(f"{tmp}/r50-scenario.json"))
assert s["name"] == "r50-scenario" and s["workers"] == 16, s["name"]
assert s["model"]["layers"] == json.load(open(f"{tmp}/resnet50.json"))["layers"]
assert "tools/dlsim-profile resnet50" in s["description"]
for key in ["seed", "algorithm", "network", "compute", "stop", "metrics"]:
    assert key in s, key
PY

echo "$passed passed, 0 failed"
