"""tools/dlsim-plot and tools/dlsim-table: aggregated curves, --export, bits-to-loss
ratios, and refusals of bad input."""

import csv
import io
import json
import math
import os
import statistics

import pytest

from conftest import tool

KIND = "algorithm.compressor.kind"


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def sweep_runs(sweep):
    """[(compressor kind, [metrics rows])] of every run of the sweep, read with csv."""
    return [(row[KIND], read_csv(os.path.join(sweep, row["run_id"], "metrics.csv")))
            for row in read_csv(os.path.join(sweep, "runs.csv"))]


def first_reach(rows, loss):
    """Bits at which train_loss first reaches <= loss, by hand."""
    prev = None
    for row in rows:
        b, y = float(row["bits_total"]), float(row["train_loss"])
        if y <= loss:
            if prev is None:
                return b
            return prev[0] + (loss - prev[1]) * (b - prev[0]) / (y - prev[1])
        prev = (b, y)
    return None


def test_plot_repeats_make_one_curve_whose_export_is_the_mean(compressor_sweep, tmp_path):
    export, png = tmp_path / "c.csv", tmp_path / "c.png"
    p = tool("dlsim-plot", compressor_sweep, "--x", "iteration", "--export", export,
             "--out", png)
    assert p.returncode == 0, p.stderr
    assert png.stat().st_size > 10_000
    rows = read_csv(export)
    assert list(rows[0].keys()) == ["label", "x", "y_mean", "y_std", "y_min", "y_max", "runs"]
    by_label = {}
    for row in rows:
        by_label.setdefault(row["label"], []).append(row)
    assert set(by_label) == {"kind=none", "kind=fp16", "kind=qsgd"}  # 3 curves, not 6
    runs = sweep_runs(compressor_sweep)
    for kind in ("none", "fp16", "qsgd"):
        members = [m for k, m in runs if k == kind]
        assert len(members) == 2
        curve = by_label[f"kind={kind}"]
        # Every run has a row at the same iterations: the mean needs no interpolation.
        assert [float(r["x"]) for r in curve] == [float(r["iteration"]) for r in members[0]]
        for i, point in enumerate(curve):
            ys = [float(m[i]["train_loss"]) for m in members]
            assert float(point["y_mean"]) == pytest.approx(statistics.mean(ys), rel=1e-12)
            assert float(point["y_std"]) == pytest.approx(statistics.stdev(ys), rel=1e-9,
                                                          abs=1e-15)
            assert float(point["y_min"]) == min(ys) and float(point["y_max"]) == max(ys)
            assert point["runs"] == "2"
    # The two seeds really differ (otherwise the mean would prove little).
    a, b = [m for k, m in runs if k == "none"]
    assert a[-1]["train_loss"] != b[-1]["train_loss"]


def make_run(folder, seed, xs, ys):
    os.makedirs(folder)
    with open(os.path.join(folder, "metrics.csv"), "w") as f:
        f.write("time_s,iteration,epoch,bits_total,bytes_wire,messages,train_loss,"
                "test_loss,test_accuracy,consensus_distance,wall_s\n")
        for i, (x, y) in enumerate(zip(xs, ys)):
            f.write(f"{i},{i},,{x},{x},{i},{y},,,0,0\n")
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump({"scenario": {"name": "hand", "seed": seed, "workers": 2}}, f)


def test_plot_interpolates_repeats_on_a_hand_made_case(tmp_path):
    make_run(tmp_path / "runs" / "a", 1, [0, 200, 400], [4.0, 2.0, 0.0])     # y = 4 - x/100
    make_run(tmp_path / "runs" / "b", 2, [100, 300, 500], [10.0, 6.0, 2.0])  # y = 12 - x/50
    export = tmp_path / "e.csv"
    p = tool("dlsim-plot", tmp_path / "runs", "--x", "bits", "--export", export,
             "--stat", "median", "--band", "minmax", "--out", tmp_path / "e.svg")
    assert p.returncode == 0, p.stderr
    rows = read_csv(export)
    assert {r["label"] for r in rows} == {"hand"}  # one configuration: differs only in seed
    # Grid: x values of both runs inside the shared range [100, 400].
    assert [float(r["x"]) for r in rows] == [100, 200, 300, 400]
    a = [3.0, 2.0, 1.0, 0.0]
    b = [10.0, 8.0, 6.0, 4.0]
    for r, p_, q in zip(rows, a, b):
        assert float(r["y_mean"]) == pytest.approx((p_ + q) / 2)
        assert float(r["y_median"]) == pytest.approx((p_ + q) / 2)
        assert float(r["y_std"]) == pytest.approx(abs(p_ - q) / math.sqrt(2))
        assert (float(r["y_min"]), float(r["y_max"])) == (p_, q)


def table_csv(*args):
    p = tool("dlsim-table", *args, "--csv")
    assert p.returncode == 0, p.stderr
    return list(csv.DictReader(io.StringIO(p.stdout)))


def test_table_bits_to_loss_ratio_matches_an_independent_computation(compressor_sweep):
    runs = sweep_runs(compressor_sweep)
    # A loss every run reaches by its 5th row, none at its first.
    loss = max(float(m[4]["train_loss"]) for _, m in runs)
    assert all(float(m[0]["train_loss"]) > loss for _, m in runs)
    per_kind = {}
    for kind, m in runs:
        per_kind.setdefault(kind, []).append(first_reach(m, loss))
    means = {k: statistics.mean(v) for k, v in per_kind.items()}
    got = table_csv(compressor_sweep, "--group-by", KIND, "--bits-to-loss", repr(loss),
                    "--baseline", f"{KIND}=none")
    assert {r[KIND] for r in got} == set(means)
    for r in got:
        kind = r[KIND]
        assert r["runs"] == "2"
        assert float(r["bits_to_loss"]) == pytest.approx(means[kind], rel=1e-9)
        assert float(r["bits_to_loss_std"]) == pytest.approx(
            statistics.stdev(per_kind[kind]), rel=1e-6, abs=1e-9)
        assert float(r["bits_to_loss_ratio"]) == pytest.approx(means["none"] / means[kind],
                                                               rel=1e-9)
    # fp16 halves the workers' uplink bits (the server's broadcast stays fp32): ratio > 1.
    assert float(next(r for r in got if r[KIND] == "fp16")["bits_to_loss_ratio"]) > 1.2
    # Per run (no --group-by): one value per run, the baseline the mean of the none runs.
    got = table_csv(compressor_sweep, "--bits-to-loss", repr(loss), "--baseline",
                    f"{KIND}=none")
    assert [float(r["bits_to_loss"]) for r in got] == pytest.approx(
        [first_reach(m, loss) for _, m in runs], rel=1e-9)
    unreached = table_csv(compressor_sweep, "--time-to-loss", "1e-30")
    assert {r["time_to_loss"] for r in unreached} == {"not reached"}


def test_table_baseline_total_is_the_paper_ratio(compressor_sweep):
    # The LPC-SVRG paper's "x-fewer bits": the baseline's whole-run bits over the bits each
    # configuration needs to reach the baseline's final loss.
    runs = sweep_runs(compressor_sweep)
    base = [m for k, m in runs if k == "none"]
    loss = max(float(m[-1]["train_loss"]) for m in base)
    total = statistics.mean(float(m[-1]["bits_total"]) for m in base)
    got = table_csv(compressor_sweep, "--group-by", KIND, "--bits-to-loss", repr(loss),
                    "--baseline", f"{KIND}=none", "--baseline-total")
    for r in got:
        reached = [first_reach(m, loss) for k, m in runs if k == r[KIND]]
        if any(v is None for v in reached):
            assert r["bits_to_loss_ratio"] == "not reached"
            continue
        assert float(r["bits_to_loss_ratio"]) == pytest.approx(
            total / statistics.mean(reached), rel=1e-9)
    # The baseline itself reaches its final loss before its last row: a ratio >= 1.
    assert float(next(r for r in got if r[KIND] == "none")["bits_to_loss_ratio"]) >= 1


def test_table_group_by_gives_mean_and_std(compressor_sweep):
    got = table_csv(compressor_sweep, "--group-by", KIND, "--columns", "train_loss")
    runs = sweep_runs(compressor_sweep)
    for r in got:
        finals = [float(m[-1]["train_loss"]) for k, m in runs if k == r[KIND]]
        assert float(r["train_loss"]) == pytest.approx(statistics.mean(finals), rel=1e-12)
        assert float(r["train_loss_std"]) == pytest.approx(statistics.stdev(finals), rel=1e-9)


PLOT_BAD = [
    ("unknown --hue key", ["--hue", "nosuchkey"]),
    ("unknown --style key", ["--style", "nosuchkey"]),
    ("unknown --col key", ["--col", "nosuchkey"]),
    ("--col equals --row", ["--col", "seed", "--row", "seed"]),
    ("bad --stat", ["--stat", "mode"]),
    ("bad --band", ["--band", "wide"]),
    ("--export not .csv", ["--export", "{tmp}/e.txt"]),
    ("--export with --speedup", ["--speedup", "--target", "0.5"]),
    ("--group and --hue differ", ["--group", "workers", "--hue", "seed"]),
    ("bad --x", ["--x", "furlongs"]),
]


@pytest.mark.parametrize("what,args", PLOT_BAD, ids=[c[0] for c in PLOT_BAD])
def test_plot_refuses_bad_input(compressor_sweep, tmp_path, what, args):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    out, export = tmp_path / "p.png", tmp_path / "p.csv"
    extra = [] if "--export" in args else ["--export", export]
    p = tool("dlsim-plot", compressor_sweep, *args, *extra, "--out", out)
    assert_refused(p, "dlsim-plot")
    assert os.listdir(tmp_path) == []  # no plot, no export, no temporary file


def test_plot_refuses_a_missing_folder(tmp_path):
    p = tool("dlsim-plot", tmp_path / "nothing", "--export", tmp_path / "e.csv")
    assert_refused(p, "dlsim-plot")
    assert os.listdir(tmp_path) == []


TABLE_BAD = [
    ("unknown --group-by key", ["--group-by", "nosuchkey"]),
    ("L not a number", ["--bits-to-loss", "low"]),
    ("L not finite", ["--time-to-loss", "nan"]),
    ("--baseline without a loss", ["--baseline", f"{KIND}=none"]),
    ("--baseline not KEY=VALUE", ["--bits-to-loss", "1", "--baseline", "none"]),
    ("--baseline unknown key", ["--bits-to-loss", "1", "--baseline", "nosuchkey=1"]),
    ("--baseline group absent", ["--bits-to-loss", "1", "--baseline", f"{KIND}=top-k"]),
    ("--baseline over several groups",
     ["--group-by", "seed", "--bits-to-loss", "1", "--baseline", f"{KIND}=none"]),
    ("--baseline never reaches L", ["--bits-to-loss", "1e-30", "--baseline", f"{KIND}=none"]),
    ("--baseline-total without --baseline", ["--bits-to-loss", "1", "--baseline-total"]),
]


@pytest.mark.parametrize("what,args", TABLE_BAD, ids=[c[0] for c in TABLE_BAD])
def test_table_refuses_bad_input(compressor_sweep, what, args):
    assert_refused(tool("dlsim-table", compressor_sweep, *args), "dlsim-table")


def test_table_refuses_a_missing_folder(tmp_path):
    assert_refused(tool("dlsim-table", tmp_path / "nothing", "--bits-to-loss", "1"),
                   "dlsim-table")


def assert_refused(p, prog):
    lines = p.stderr.splitlines()
    assert p.returncode == 2, p.stderr
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), p.stderr
    assert p.stdout == ""


@pytest.mark.parametrize("ext,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"),
                                       (".pdf", b"%PDF")])
def test_plot_facets_in_every_format(compressor_sweep, tmp_path, ext, magic):
    out, export = tmp_path / f"f{ext}", tmp_path / "f.csv"
    p = tool("dlsim-plot", compressor_sweep, "--col", "kind", "--x", "bytes", "--band", "ci95",
             "--export", export, "--out", out)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes().startswith(magic)
    # One curve per subplot, told apart by the facet's key=value (not by seed).
    assert {r["label"] for r in read_csv(export)} == {"kind=none", "kind=fp16", "kind=qsgd"}
    assert {r["runs"] for r in read_csv(export)} == {"2"}
