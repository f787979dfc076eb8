#!/usr/bin/python3
"""Compare full-precision SGD, QSGD and LPC-SVRG on a small least-squares problem, two
seeds each, with the dlsim Python package: prints the bits (and simulated time) each needs
to reach a loss every run reaches, with the "x-fewer bits" ratio to SGD, and saves a
bits-vs-loss plot of the seed-averaged curves.

    /usr/bin/python3 examples/python/compare_compressors.py [OUT_DIR]

Needs the built binary (build/bin/dlsim, or $DLSIM_BIN). Takes a few seconds.
"""

import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))

import dlsim  # noqa: E402

# 4 workers exchange every message by allgather, so compression shows in every bit.
SCENARIO = {
    "name": "compare-compressors",
    "seed": 1,
    "workers": 4,
    "data": {"source": "synthetic-regression", "samples": 4000, "features": 40,
             "condition": 10, "noise": 0.1},
    "model": {"kind": "least-squares", "l2": 1e-4},
    "algorithm": {"kind": "sgd", "collective": "allgather", "step_size": 0.05,
                  "batch_size": 16},
    "network": {"latency": "10us", "bandwidth": "1Gbps"},
    "stop": {"epochs": 5},
    "metrics": {"every": {"epochs": 0.1}},
}
COMMON = {"collective": "allgather", "step_size": 0.05, "batch_size": 16}
ALGORITHMS = {
    "SGD fp32": dict(COMMON, kind="sgd"),
    "QSGD 7 levels": dict(COMMON, kind="qsgd", compressor={"kind": "qsgd", "levels": 7}),
    "LPC-SVRG 4 bits": dict(COMMON, kind="lpc-svrg", compressor={"kind": "lpc", "bits": 4}),
}


def main(out):
    runs = dlsim.sweep(SCENARIO, grid={"algorithm": list(ALGORITHMS.values())}, repeat=2,
                       jobs=2, out=os.path.join(out, "sweep"))
    results = dlsim.load_runs(runs.attrs["dir"])
    # runs.csv holds each point's grid value as JSON: map it back to our names.
    groups = {name: [] for name in ALGORITHMS}
    for run_id, cell in zip(runs["run_id"], runs["algorithm"]):
        name = next(n for n, a in ALGORITHMS.items() if a == json.loads(cell))
        groups[name].append(results[run_id])

    # The target: the highest final loss of all runs, so every run reaches it.
    target = max(r.metrics["train_loss"].iloc[-1] for r in results.values())
    base = mean([dlsim.bits_to_loss(r.metrics, target) for r in groups["SGD fp32"]])
    print(f"to first reach train_loss <= {target:.6g} (mean of 2 seeds):")
    print(f"{'algorithm':<18}{'bits':>12}{'time [s]':>12}{'x-fewer bits':>14}")
    for name, members in groups.items():
        bits = mean([dlsim.bits_to_loss(r.metrics, target) for r in members])
        time = mean([dlsim.time_to_loss(r.metrics, target) for r in members])
        if bits is None:
            print(f"{name:<18}{'not reached':>12}")
        else:
            print(f"{name:<18}{bits:>12.4g}{time:>12.4g}{base / bits:>13.3g}x")
    plot = os.path.join(out, "bits_vs_loss.png")
    save_plot(groups, plot)
    print(f"plot: {plot}")


def mean(values):
    """Mean of the runs' values, None when some run never reached the target."""
    return None if any(v is None for v in values) else statistics.mean(values)


def save_plot(groups, path):
    """Seed-averaged train_loss against bits, with the min..max band of the seeds."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, members in groups.items():
        agg = dlsim.aggregate([(r.metrics["bits_total"], r.metrics["train_loss"])
                               for r in members])
        (line,) = ax.plot(agg["x"] / 1e6, agg["y_mean"], label=name)
        ax.fill_between(agg["x"] / 1e6, agg["y_min"], agg["y_max"], alpha=0.2,
                        color=line.get_color(), linewidth=0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bits sent [Mb]")
    ax.set_ylabel("training loss")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="compare-compressors-"))
