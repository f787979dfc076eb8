#!/usr/bin/python3
"""Vectorized numpy reference of scenarios/bench/choco-ring9-fmnist-logistic-batch1.json.

CHOCO-SGD (Koloskova, Stich, Jaggi, ICML 2019, arXiv:1902.00340: Algorithm 2, CHOCO-SGD,
built on Algorithm 1, CHOCO-Gossip) written the way papers' code usually is: all workers in
one array. X (n x d) holds the models, X_hat (n x d) their public copies (init 0), W (n x n)
the ring's Metropolis weights; iteration t, every worker at once:

    X     <- X + gamma (W - I) X_hat       consensus step (a no-op at t = 0, X_hat = 0)
    X     <- X - eta grad F(X; xi_t)       one sample per worker, l2 term included
    Q     <- top_k(X - X_hat), row by row  k largest |.|, kept values rounded to binary32
    X_hat <- X_hat + Q

This is Algorithm 2 with its consensus step (x^(t+1) = x^(t+1/2) + gamma sum_j w_ij
(x_hat_j - x_hat_i), with the updated copies) moved to the start of the next iteration:
the order dlsim runs by default (`order: adagossip`, docs/algorithms.md §3), so the
gradient is taken at the iterate after the consensus step, and metrics see X after the
compression, before the next consensus step, as dlsim records it.

Everything else follows dlsim (the scenario file gives the numbers): Fashion-MNIST from
the Debian package dataset-fashion-mnist, pixels p/255 as float64 plus a bias column
(model.bias defaults to true: d = 784 + 1 = 785, one tensor, the bias in top-k like any
coordinate and not regularized); labels in positive_classes -> +1, others -> -1; logistic
loss log(1 + exp(-y a'w)) + (l2/2)||w without bias||^2; iid partition (a shuffle cut into
n contiguous shards, the first N mod n one sample larger); each worker draws its samples
without replacement from a fresh shuffle of its shard every pass; zero initial models;
ceil(epochs N / n) iterations; metrics at iteration 0, at the first iteration reaching each
multiple of metrics.every.epochs and at the last one, on the average model: train_loss on
the whole training set with the l2 term, test_loss without it, test_accuracy (z = 0 counts
as -1), consensus_distance = mean_i ||x_i - mean||^2. The random streams differ from
dlsim's, so the curves agree up to sampling noise, not bit for bit.

numpy's own threads (OpenBLAS / OpenMP) are limited to 1 before numpy is imported, so
that the comparison with single-threaded dlsim (--threads 1) is fair; --numpy-threads
lifts the limit.

    /usr/bin/python3 bench/choco_numpy.py
    /usr/bin/python3 bench/choco_numpy.py --dlsim-out /tmp/choco9   # side by side with dlsim

The last line of the output is `wall_s=... load_s=... run_s=... metrics_s=...` (bench/e2e.py
parses it): wall_s from the start of the script (numpy import and data loading included),
load_s the data loading and preparation, run_s the simulation with its metrics, metrics_s
the metrics' share of run_s.
"""
import argparse
import csv
import gzip
import json
import math
import os
import sys
import time

START = time.perf_counter()
if "--numpy-threads" not in sys.argv[1:]:  # before numpy loads its BLAS, which reads these
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ[var] = "1"
import numpy as np  # noqa: E402 (after the thread limits)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "scenarios", "bench", "choco-ring9-fmnist-logistic-batch1.json")
FMNIST_DIR = "/usr/share/datasets/fashion-mnist"  # dlsim's default data.path


def read_scenario(path):
    """The scenario's numbers, after checking it is the case this reference implements."""
    with open(path) as f:
        s = json.load(f)
    a, m, data = s["algorithm"], s["model"], s["data"]
    expected = [
        (data["source"], "fashion-mnist"), (data.get("partition", {}).get("kind", "iid"), "iid"),
        (data.get("normalize", "none"), "none"), (m["kind"], "logistic"),
        (m.get("l1", 0), 0), (m.get("init", {}).get("kind", "zeros"), "zeros"),
        (a["kind"], "choco-sgd"), (a.get("order", "adagossip"), "adagossip"),
        (a.get("batch_size", 1), 1), (a.get("momentum", 0), 0), (a.get("weight_decay", 0), 0),
        ("schedule" in a, False), (a["compressor"]["kind"], "top-k"),
        (a["compressor"].get("error_feedback", False), False), (s["topology"]["kind"], "ring"),
        (s["topology"].get("weights", "metropolis"), "metropolis"), (list(s["stop"]), ["epochs"]),
        (list(s["metrics"]["every"]), ["epochs"]),
    ]
    for got, want in expected:
        if got != want:
            raise SystemExit(f"choco_numpy: {path}: found {got!r} where this reference "
                             f"implements {want!r}")
    return {
        "seed": s["seed"], "workers": s["workers"], "data_dir": data.get("path", FMNIST_DIR),
        "positive": m["positive_classes"], "l2": m.get("l2", 0.0), "bias": m.get("bias", True),
        "eta": a["step_size"], "gamma": a["consensus_step"], "k": a["compressor"]["k"],
        "epochs": s["stop"]["epochs"], "every_epochs": s["metrics"]["every"]["epochs"],
    }


def load_idx(path):
    """An IDX file of unsigned bytes (gzip) as a uint8 array of the header's shape."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]  # magic 0x000008<dims>
    shape = tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims))
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


def load_set(directory, prefix, positive, bias):
    """Features p/255 (float64, with a trailing column of ones for the bias) and +-1 labels."""
    images = load_idx(os.path.join(directory, f"{prefix}-images-idx3-ubyte.gz"))
    labels = load_idx(os.path.join(directory, f"{prefix}-labels-idx1-ubyte.gz"))
    pixels = images.shape[1] * images.shape[2]
    features = np.ones((images.shape[0], pixels + (1 if bias else 0)))
    np.divide(images.reshape(-1, pixels), 255.0, out=features[:, :pixels])
    return features, np.where(np.isin(labels, positive), 1.0, -1.0)


def ring_metropolis(n):
    """The ring's Metropolis weights: 1/(1 + max(deg_i, deg_j)) per edge, the rest on w_ii."""
    i = np.arange(n)
    edges = np.zeros((n, n), dtype=bool)
    edges[i, (i + 1) % n] = edges[(i + 1) % n, i] = True
    edges[i, i] = False  # n = 1: no edge
    degree = edges.sum(axis=1)
    W = np.where(edges, 1.0 / (1 + np.maximum.outer(degree, degree)), 0.0)
    W[i, i] = 1.0 - W.sum(axis=1)
    return W


def sample_table(shards, iterations, rng):
    """Row index drawn by every worker at every iteration, shape (iterations, n): each worker
    walks through fresh shuffles of its shard (batch 1: without replacement within a pass)."""
    columns = []
    for shard in shards:
        passes = math.ceil(iterations / len(shard))
        columns.append(np.concatenate([rng.permutation(shard) for _ in range(passes)])[:iterations])
    return np.stack(columns, axis=1)


def metric_iterations(iterations, samples_per_iteration, train_samples, every_epochs):
    """Iteration counts with a metrics row, as dlsim's Recorder::scheduled: 0, the first
    iteration reaching each multiple of `every_epochs`, and the last."""
    per = samples_per_iteration / (train_samples * every_epochs)
    k = np.arange(1, iterations + 1)
    reached = np.floor(k * per + 1e-9) > np.floor((k - 1) * per + 1e-9)
    return {0, iterations} | set(k[reached].tolist())


def evaluate(X, train, test, l2, bias):
    """dlsim's metrics of the average model (sim/metrics/evaluator.cpp)."""
    mean = X.mean(axis=0)
    weights = mean[:-1] if bias else mean
    row = {"train_loss": np.logaddexp(0.0, -train[1] * (train[0] @ mean)).mean()
           + 0.5 * l2 * (weights @ weights)}
    margins = test[0] @ mean
    row["test_loss"] = np.logaddexp(0.0, -test[1] * margins).mean()
    row["test_accuracy"] = (np.where(margins > 0, 1.0, -1.0) == test[1]).mean()
    row["consensus_distance"] = ((X - mean) ** 2).sum(axis=1).mean()
    return row


def simulate(p, train, test):
    """CHOCO-SGD on all workers at once: {iteration: metrics row}, and the metrics' seconds."""
    A, y = train
    N, d = A.shape
    n, k = p["workers"], p["k"]
    iterations = math.ceil(p["epochs"] * N / n - 1e-9)  # batch 1: n samples per iteration
    rng = np.random.default_rng(p["seed"])
    shards = np.array_split(rng.permutation(N), n)
    samples = sample_table(shards, iterations, rng)
    recorded = metric_iterations(iterations, n, N, p["every_epochs"])
    mixing = p["gamma"] * (ring_metropolis(n) - np.eye(n))  # gamma (W - I)
    l2_mask = np.full(d, p["l2"])
    if p["bias"]:
        l2_mask[-1] = 0.0  # the bias is not regularized
    X = np.zeros((n, d))
    X_hat = np.zeros((n, d))
    worker_rows = np.arange(n)[:, None]  # row index of X_hat for each kept coordinate

    metrics, metrics_s = {}, 0.0

    def record(iteration):
        nonlocal metrics_s
        t0 = time.perf_counter()
        metrics[iteration] = evaluate(X, train, test, p["l2"], p["bias"])
        metrics_s += time.perf_counter() - t0

    record(0)
    for t in range(iterations):
        X += mixing @ X_hat
        a, y_t = A[samples[t]], y[samples[t]]  # one example per worker
        margins = np.einsum("ij,ij->i", a, X)
        u = -y_t / (1.0 + np.exp(y_t * margins))  # d/dz log(1 + exp(-y z))
        X -= p["eta"] * (u[:, None] * a + l2_mask * X)
        diff = X - X_hat
        kept = np.argpartition(np.abs(diff), d - k, axis=1)[:, d - k:]
        # the k kept values travel as binary32; sender and receivers add the same numbers
        X_hat[worker_rows, kept] += np.take_along_axis(diff, kept, axis=1).astype(np.float32)
        if t + 1 in recorded:
            record(t + 1)
    return metrics, metrics_s


def read_dlsim_metrics(out_dir):
    """dlsim's metrics.csv as {iteration: row of floats (empty cells: None)}."""
    with open(os.path.join(out_dir, "metrics.csv")) as f:
        return {int(r["iteration"]): {key: float(v) if v else None for key, v in r.items()}
                for r in csv.DictReader(f)}


def print_curves(metrics, samples_per_iteration, train_samples, dlsim):
    """The numpy metrics per recorded iteration, next to dlsim's when given."""
    columns = [("train_loss", "train"), ("test_loss", "test"), ("test_accuracy", "acc"),
               ("consensus_distance", "consensus")]
    header = ["iteration", "epoch"]
    for _, short in columns:
        header += [f"{short} dlsim", f"{short} numpy"] if dlsim else [short]
    print(" ".join(f"{h:>15}" for h in header))
    for it, row in metrics.items():
        cells = [f"{it:>15}", f"{it * samples_per_iteration / train_samples:>15.2f}"]
        for key, _ in columns:
            if dlsim:
                theirs = dlsim.get(it, {}).get(key)
                cells.append(f"{theirs:>15.6g}" if theirs is not None else f"{'-':>15}")
            cells.append(f"{row[key]:>15.6g}")
        print(" ".join(cells))
    last = max(metrics)
    if dlsim and dlsim.get(last, {}).get("train_loss"):
        ours, theirs = metrics[last]["train_loss"], dlsim[last]["train_loss"]
        print(f"final train_loss: numpy / dlsim = {ours / theirs:.4f} "
              f"({100 * (ours - theirs) / theirs:+.2f} %)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=SCENARIO, help="the scenario file (default: %(default)s)")
    ap.add_argument("--dlsim-out", help="a dlsim output folder of the scenario: print both curves")
    ap.add_argument("--seed", type=int, help="seed of numpy's generator (default: the scenario's)")
    ap.add_argument("--numpy-threads", action="store_true",  # read from sys.argv at the top
                    help="let numpy's BLAS use its default thread count (default: 1 thread)")
    args = ap.parse_args()
    p = read_scenario(args.scenario)
    if args.seed is not None:
        p["seed"] = args.seed
    dlsim = read_dlsim_metrics(args.dlsim_out) if args.dlsim_out else None
    t0 = time.perf_counter()
    train = load_set(p["data_dir"], "train", p["positive"], p["bias"])
    test = load_set(p["data_dir"], "t10k", p["positive"], p["bias"])
    t1 = time.perf_counter()
    metrics, metrics_s = simulate(p, train, test)
    t2 = time.perf_counter()
    print_curves(metrics, p["workers"], len(train[1]), dlsim)
    print(f"wall_s={t2 - START:.3f} load_s={t1 - t0:.3f} run_s={t2 - t1:.3f} "
          f"metrics_s={metrics_s:.3f}")


if __name__ == "__main__":
    main()
