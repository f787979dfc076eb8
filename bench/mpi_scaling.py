#!/usr/bin/python3
"""One simulation across MPI ranks (`mpirun -np K dlsim run`): memory per rank and wall time.

    /usr/bin/python3 bench/mpi_scaling.py [--dlsim build/bin/dlsim] [--runs 3] [--cases mem,time,machine]

Part 1, memory (cases mem-k1, mem-k2, mem-k4): CHOCO-SGD on a ring of 64 workers, a
784-128-10 relu MLP (101,770 parameters) on Fashion-MNIST, top-k keeping 1 %, 20
iterations, run as one process (K = 1, plain `dlsim run`) and with `mpirun -np K` for
K = 2 and 4 (K = 4 oversubscribes a 2-core machine: fine, only memory counts here). Each
rank's peak RSS comes from summary.json `totals.per_rank` (getrusage's maximum resident
set of that rank), median over --runs. Resident sets count the data set (Fashion-MNIST as
doubles; one copy per machine in shared memory, part 3) in every rank that touched its
pages: rank 0, which loads it, all of them. With the binary's own footprint this is the
"shared part", measured by running the
same scenario with 2 workers (the fewest CHOCO-SGD takes) and 64 workers as one process:
per-worker = (P64 − P2) / 62, shared = P2 − 2·per-worker. The table prints each rank's
peak, what a perfect split would give (shared + its workers × per-worker), and the peak as
a fraction of the single-process peak, raw and with the shared part taken off both.
Target (the issue): at K = 2 every rank's peak ≤ 60 % of the single-process peak, the
shared part excluded (rank 0 holds the data set).

Part 2, wall time (cases time-k1t1, time-k2t1, time-k1t2, time-k2t2): 16 workers, LeNet-5
on Fashion-MNIST, scenarios/experiments/choco-lenet5-fmnist-ring16.json with
`--set stop={"iterations":N} --set sweep=null --set metrics.every={"iterations":N}` (a
metrics row at the start and at the end: the ranks share the evaluation's chunks) at
K ranks × T threads = 1×1, 2×1, 1×2 and 2×2 (the last oversubscribes 2 cores).
Wall time is time.perf_counter around the whole `dlsim` / `mpirun` process (mpirun's
start-up included), median over --runs. Target: 2 ranks × 1 thread ≥ 1.7× faster than
1 rank × 1 thread. The table also gives each rank's `busy_wall_s` (its compute phases)
and rank 0's `wall_metrics_s` from summary.json, to show where the rest of the time goes.

Part 3, machine memory (cases machine-k1, machine-k2, machine-k2-per-rank, machine-k4,
machine-k4-per-rank, and machine-k1/k2/k4-float32): part 1's scenario, with the data set
held once per machine (the default: the machine's lowest rank loads it into POSIX shared
memory, the others map it) or once per rank (`--data-per-rank`), as doubles or, in the
float32 cases, as floats (`--set data.storage=float32`; their results are compared among
themselves). Peak RSS counts a shared page in every rank
that touched it, so this part samples each dlsim process's proportional set size (Pss in
/proc/PID/smaps_rollup: a shared page counts 1/N in each of the N processes mapping it)
every 20 ms and reports the peak of their sum (what the job costs the machine) and each
rank's own peak Pss, medians over --runs. Sampling may miss a peak shorter than 20 ms.

Results: metrics.csv (every column but wall_s) of every run, and in part 2 also model.npy
(output.save_model), must equal the single-process run's byte for byte; otherwise the
script prints which and exits 1 (also when a run fails). Targets missed are reported, not
an error.

mpirun runs as `mpirun --allow-run-as-root --oversubscribe --bind-to none -np K`
(--mpirun-args replaces the flags). The script itself imports only the standard library
and stays small: Linux carries a parent's peak RSS across fork+exec into the child's
getrusage maximum, which is what summary.json reports.
"""
import argparse
import csv
import io
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LENET = os.path.join(ROOT, "scenarios", "experiments", "choco-lenet5-fmnist-ring16.json")

MEM_WORKERS = 64
MEM_ITERATIONS = 20
# Part 1's scenario: the MLP CHOCO-SGD experiments (scenarios/experiments/*mlp*.json) on a
# ring of 64, with the model of lpc-svrg-fmnist-mlp.json (784-128-10, the mlp default).
# No output.save_model here: the model saver keeps a copy of every worker's model on rank 0
# (+52 MB at 64 workers), which is not what part 1 measures; part 2 compares model.npy.
MLP_SCENARIO = {
    "name": "choco-ring64-fmnist-mlp128",
    "description": "bench/mpi_scaling.py part 1: memory per rank",
    "seed": 1,
    "workers": MEM_WORKERS,
    "data": {"source": "fashion-mnist", "partition": {"kind": "dirichlet", "alpha": 1.0}},
    "model": {"kind": "mlp", "hidden": [128], "activation": "relu"},
    "algorithm": {"kind": "choco-sgd", "step_size": 0.05, "batch_size": 16, "momentum": 0.9,
                  "consensus_step": 0.1, "compressor": {"kind": "top-k", "ratio": 0.99}},
    "topology": {"kind": "ring"},
    "network": {"latency": "10us", "bandwidth": "10Gbps"},
    "compute": {"speed": "50GFLOPS"},
    "stop": {"iterations": MEM_ITERATIONS},
    "metrics": {"every": {"iterations": 10}, "test": True},
}

# case -> (part, ranks, threads)
CASES = {
    "mem-k1": ("mem", 1, 1),
    "mem-k2": ("mem", 2, 1),
    "mem-k4": ("mem", 4, 1),
    "time-k1t1": ("time", 1, 1),
    "time-k2t1": ("time", 2, 1),
    "time-k1t2": ("time", 1, 2),
    "time-k2t2": ("time", 2, 2),
    "machine-k1": ("machine", 1, 1),
    "machine-k2": ("machine", 2, 1),
    "machine-k2-per-rank": ("machine", 2, 1),
    "machine-k4": ("machine", 4, 1),
    "machine-k4-per-rank": ("machine", 4, 1),
    # part 3 with data.storage float32 (the shared copy holds floats: half the bytes)
    "machine-k1-float32": ("machine", 1, 1),
    "machine-k2-float32": ("machine", 2, 1),
    "machine-k4-float32": ("machine", 4, 1),
}
PARTS = ("mem", "time", "machine")
MEM_TARGET = 0.60      # per-rank peak at K = 2 / single-process peak, shared part excluded
TIME_TARGET = 1.7      # speedup of 2 ranks x 1 thread over 1 rank x 1 thread
MB = 1e6


def ceil_div(a, b):
    return -(-a // b)


def uptime():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


class Runner:
    def __init__(self, args, tmp):
        self.dlsim = os.path.abspath(args.dlsim)
        self.mpirun = args.mpirun
        self.mpirun_args = shlex.split(args.mpirun_args)
        self.tmp = tmp
        self.count = 0
        self.failed = []
        self.env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    def run(self, label, scenario, sets, ranks, threads, flags=(), sample=False):
        """Runs once; returns (wall seconds, out dir, pss) or None when the run failed.
        pss (with sample=True): (peak of the sum of the dlsim processes' Pss, [each
        process's peak Pss] in start order), in bytes; else None."""
        self.count += 1
        out = os.path.join(self.tmp, f"{label}-{self.count}")
        cmd = [self.dlsim, "run", scenario, "--out", out, "--quiet", "--threads", str(threads),
               *flags]
        for s in sets:
            cmd += ["--set", s]
        if ranks > 1:
            cmd = [self.mpirun, *self.mpirun_args, "-np", str(ranks), *cmd]
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=self.env, cwd=ROOT)
        pss = sample_pss(p, out) if sample else None
        stdout, stderr = p.communicate()
        wall = time.perf_counter() - t0
        if p.returncode != 0 or not os.path.exists(os.path.join(out, "summary.json")):
            msg = (stderr.strip() or stdout.strip()).splitlines()[-5:]
            print(f"  FAILED {label} (exit {p.returncode}): {shlex.join(cmd)}", file=sys.stderr)
            for line in msg:
                print(f"    {line}", file=sys.stderr)
            self.failed.append(label)
            return None
        return wall, out, pss


def dlsim_pids(out):
    """The dlsim processes whose command line has the output folder `out`."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == b"dlsim" and out.encode() in argv:
            pids.append(int(pid))
    return pids


def pss_of(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def sample_pss(p, out, every=0.02):
    """Samples the Pss of `out`'s dlsim processes until `p` ends (stdout and stderr are
    small: the runs are --quiet)."""
    peak_sum, peaks = 0, {}
    while p.poll() is None:
        total = 0
        for pid in dlsim_pids(out):
            v = pss_of(pid)
            total += v
            peaks[pid] = max(peaks.get(pid, 0), v)
        peak_sum = max(peak_sum, total)
        time.sleep(every)
    return peak_sum, [peaks[pid] for pid in sorted(peaks)]


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def results_of(out):
    """metrics.csv without its wall_s column (as text) and model.npy's bytes."""
    with open(os.path.join(out, "metrics.csv"), newline="") as f:
        rows = list(csv.reader(f))
    drop = rows[0].index("wall_s") if rows and "wall_s" in rows[0] else None
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for r in rows:
        w.writerow([c for i, c in enumerate(r) if i != drop])
    model = os.path.join(out, "model.npy")
    npy = open(model, "rb").read() if os.path.exists(model) else None
    return buf.getvalue(), npy, len(rows) - 1


def check_identical(part, outs):
    """outs: [(label, out dir)], the first one the single-process reference. Returns the
    labels whose results differ."""
    if not outs:
        return []
    ref_label, ref_out = outs[0]
    ref_csv, ref_npy, nrows = results_of(ref_out)
    bad = []
    for label, out in outs[1:]:
        csv_text, npy, _ = results_of(out)
        what = []
        if csv_text != ref_csv:
            what.append("metrics.csv")
        if npy != ref_npy:
            what.append("model.npy")
        if what:
            bad.append(label)
            print(f"  DIFFERENT: {label} vs {ref_label}: {', '.join(what)}")
    npy_note = "and model.npy " if ref_npy is not None else ""
    if not bad:
        print(f"  {part}: metrics.csv ({nrows} rows, all columns but wall_s) {npy_note}"
              f"identical in all {len(outs)} runs (reference {ref_label})")
    return bad


def write_mlp_scenario(tmp):
    """Parts 1 and 3's scenario, as a file in `tmp`; returns its path."""
    path = os.path.join(tmp, "mlp64.json")
    with open(path, "w") as f:
        json.dump(MLP_SCENARIO, f, indent=1)
    return path


def part_memory(r, cases, runs):
    print(f"\n## Part 1: memory per rank, {MEM_WORKERS} workers, CHOCO-SGD ring, MLP 784-128-10, "
          f"Fashion-MNIST, {MEM_ITERATIONS} iterations")
    scen = write_mlp_scenario(r.tmp)
    # The shared part: the same scenario with 2 workers, as one process.
    p2 = []
    for _ in range(runs):
        res = r.run("mem-w2", scen, ["workers=2"], 1, 1)
        if res:
            p2.append(summary(res[1])["totals"]["peak_rss_bytes"])
    per_case = {}   # case -> list of per-rank peaks (median over runs), summary of one run
    outs = []
    for case in cases:
        _, k, t = CASES[case]
        peaks, summ = [], None
        for i in range(runs):
            res = r.run(case, scen, [], k, t)
            if not res:
                continue
            s = summary(res[1])
            peaks.append([pr["peak_rss_bytes"] for pr in
                          sorted(s["totals"]["per_rank"], key=lambda x: x["rank"])])
            summ = s
            outs.append((f"{case}#{i + 1}", res[1]))
        if peaks:
            per_case[case] = ([statistics.median(col) for col in zip(*peaks)], summ)
    bad = check_identical("part 1", outs)
    if "mem-k1" not in per_case or not p2:
        print("  (no single-process or 2-worker run: no table)")
        return bad, None
    single = per_case["mem-k1"][0][0]
    w2 = statistics.median(p2)
    per_worker = (single - w2) / (MEM_WORKERS - 2)
    shared = w2 - 2 * per_worker
    parts = per_case["mem-k1"][1]["totals"].get("peak_rss_estimate_parts", {})
    data_est = parts.get("data")
    print(f"\nShared part (data set and binary; rank 0's RSS counts all of it): {shared / MB:.1f} MB = 2-worker run's peak "
          f"{w2 / MB:.1f} MB minus 2 × {per_worker / MB:.2f} MB per worker "
          f"(per worker = (single-process peak − 2-worker peak) / {MEM_WORKERS - 2}).")
    if data_est is not None:
        print(f"Of it, the data set (Fashion-MNIST train + test as doubles, summary.json "
              f"peak_rss_estimate_parts.data): {data_est / MB:.1f} MB; estimate of the "
              f"per-worker state (model_state / {MEM_WORKERS}): "
              f"{parts.get('model_state', 0) / MEM_WORKERS / MB:.2f} MB.")
    print()
    print("| K | rank | workers | peak RSS MB | perfect split MB | excess MB "
          "| % of K=1 peak | % of K=1, shared part excluded |")
    print("|---|---|---|---|---|---|---|---|")
    ratio_k2 = None
    for case in cases:
        if case not in per_case:
            continue
        _, k, _ = CASES[case]
        for rank, peak in enumerate(per_case[case][0]):
            n_local = ceil_div((rank + 1) * MEM_WORKERS, k) - ceil_div(rank * MEM_WORKERS, k)
            ideal = shared + n_local * per_worker
            frac = peak / single
            frac_x = (peak - shared) / (single - shared)
            if k == 2:
                ratio_k2 = max(ratio_k2 or 0.0, frac_x)
            print(f"| {k} | {rank} | {n_local} | {peak / MB:.1f} | {ideal / MB:.1f} "
                  f"| {(peak - ideal) / MB:+.1f} | {100 * frac:.1f} % | {100 * frac_x:.1f} % |")
    print(f"\n(median of {runs} runs per rank; K = 1 is a plain `dlsim run`, K > 1 "
          f"`mpirun -np K`; perfect split = shared part + the rank's workers × per worker)")
    if ratio_k2 is not None:
        ok = ratio_k2 <= MEM_TARGET
        print(f"Target K = 2: largest rank peak, shared part excluded = {100 * ratio_k2:.1f} % "
              f"of the single-process peak (target ≤ {100 * MEM_TARGET:.0f} %): "
              f"{'MET' if ok else 'NOT MET'}")
    return bad, ratio_k2


def part_time(r, cases, runs, iterations):
    print(f"\n## Part 2: wall time, 16 workers, CHOCO-SGD ring, LeNet-5, Fashion-MNIST, "
          f"{iterations} iterations")
    sets = [f'stop={{"iterations":{iterations}}}', "sweep=null",
            f'metrics.every={{"iterations":{iterations}}}', "output.save_model=true"]
    rows, outs = {}, []
    for case in cases:
        _, k, t = CASES[case]
        walls, summs = [], []
        for i in range(runs):
            res = r.run(case, LENET, sets, k, t)
            if not res:
                continue
            walls.append(res[0])
            summs.append(summary(res[1]))
            outs.append((f"{case}#{i + 1}", res[1]))
            print(f"  {case} run {i + 1}: {res[0]:.2f} s (load {uptime()})", flush=True)
        if walls:
            rows[case] = (walls, summs)
    bad = check_identical("part 2", outs)
    base = statistics.median(rows["time-k1t1"][0]) if "time-k1t1" in rows else None
    print()
    print("| ranks × threads | wall s (median) | min–max s | speedup vs 1×1 "
          "| busy_wall_s per rank | rank 0 metrics s | rank 0 math s | dlsim wall_s |")
    print("|---|---|---|---|---|---|---|---|")
    speed = None
    for case in cases:
        if case not in rows:
            continue
        _, k, t = CASES[case]
        walls, summs = rows[case]
        med = statistics.median(walls)
        tot = [s["totals"] for s in summs]
        busy = [statistics.median(col) for col in
                zip(*[[pr["busy_wall_s"] for pr in sorted(x["per_rank"], key=lambda y: y["rank"])]
                      for x in tot])]
        metrics_s = statistics.median(x["wall_metrics_s"] for x in tot)
        math_s = statistics.median(x["wall_math_s"] for x in tot)
        inner = statistics.median(x["wall_s"] for x in tot)
        sp = base / med if base else None
        if (k, t) == (2, 1):
            speed = sp
        print(f"| {k} × {t} | {med:.2f} | {min(walls):.2f}–{max(walls):.2f} "
              f"| {f'{sp:.2f}×' if sp else '–'} | {' / '.join(f'{b:.2f}' for b in busy)} "
              f"| {metrics_s:.2f} | {math_s:.2f} | {inner:.2f} |")
    print(f"\n(median of {runs} runs; wall = the whole `dlsim` or `mpirun` process; "
          f"busy_wall_s = each rank's compute phases; metrics/math/wall_s: rank 0's "
          f"summary.json totals)")
    if speed is not None:
        print(f"Target: 2 ranks × 1 thread = {speed:.2f}× faster than 1 × 1 "
              f"(target ≥ {TIME_TARGET}×): {'MET' if speed >= TIME_TARGET else 'NOT MET'}")
    return bad, speed


def part_machine(r, cases, runs):
    print(f"\n## Part 3: machine memory, part 1's scenario ({MEM_WORKERS} workers, MLP, "
          f"Fashion-MNIST), the data set once per machine or once per rank")
    scen = write_mlp_scenario(r.tmp)
    rows, outs = {}, {"float64": [], "float32": []}
    for case in cases:
        _, k, t = CASES[case]
        flags = ["--data-per-rank"] if case.endswith("per-rank") else []
        storage = "float32" if case.endswith("float32") else "float64"
        sets = [f"data.storage={storage}"] if storage == "float32" else []
        sums, ranks = [], []
        for i in range(runs):
            res = r.run(case, scen, sets, k, t, flags, sample=True)
            if not res:
                continue
            sums.append(res[2][0])
            ranks.append(res[2][1])
            outs[storage].append((f"{case}#{i + 1}", res[1]))
        if sums and all(len(x) == k for x in ranks):
            rows[case] = (statistics.median(sums), [statistics.median(c) for c in zip(*ranks)])
        elif sums:
            print(f"  {case}: a run's processes were not all sampled; no row")
    bad = check_identical("part 3", outs["float64"]) + \
        check_identical("part 3, float32 storage", outs["float32"])
    print()
    print("| K | data set | peak Pss sum MB | each rank's peak Pss MB |")
    print("|---|---|---|---|")
    for case in cases:
        if case not in rows:
            continue
        _, k, _ = CASES[case]
        where = "per rank" if case.endswith("per-rank") or k == 1 else "per machine"
        if case.endswith("float32"):
            where += ", float32"
        total, each = rows[case]
        print(f"| {k} | {where} | {total / MB:.0f} | {' / '.join(f'{e / MB:.0f}' for e in each)} |")
    print(f"\n(median of {runs} runs; Pss sampled every 20 ms; rank 0 first, which loads the "
          f"data when it is per machine)")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "bin", "dlsim"))
    ap.add_argument("--runs", type=int, default=3, help="runs per case; the median is shown")
    ap.add_argument("--cases", default="mem,time,machine",
                    help="comma list of cases or parts: mem, time, machine, " +
                    ", ".join(CASES))
    ap.add_argument("--iterations", type=int, default=300,
                    help="part 2's iterations (default 300: a 1 × 1 run takes ~40 s)")
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--mpirun-args", default="--allow-run-as-root --oversubscribe --bind-to none")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()

    cases = []
    for c in [c.strip() for c in args.cases.split(",") if c.strip()]:
        if c in PARTS:
            cases += [k for k, v in CASES.items() if v[0] == c]
        elif c in CASES:
            cases.append(c)
        else:
            ap.error(f"unknown case {c!r}; known: {', '.join(PARTS)}, {', '.join(CASES)}")
    cases = [c for c in CASES if c in cases]  # table order; K = 1 first (the reference)
    if not os.access(args.dlsim, os.X_OK):
        ap.error(f"no dlsim binary at {args.dlsim}")
    if any(CASES[c][1] > 1 for c in cases) and shutil.which(args.mpirun) is None:
        ap.error(f"{args.mpirun} not found")
    for part in PARTS:
        sel = [c for c in cases if CASES[c][0] == part]
        if sel and CASES[sel[0]][1:] != (1, 1):
            print(f"note: part {part} has no 1-rank 1-thread case: results compared against "
                  f"{sel[0]}", file=sys.stderr)

    tmp = tempfile.mkdtemp(prefix="mpi_scaling-")
    r = Runner(args, tmp)
    print(f"dlsim: {args.dlsim}; runs per case: {args.runs}; cores: {os.cpu_count()}; "
          f"load average before: {uptime()}; temp dir: {tmp}")
    bad = []
    try:
        mem = [c for c in cases if CASES[c][0] == "mem"]
        tim = [c for c in cases if CASES[c][0] == "time"]
        if mem:
            bad += part_memory(r, mem, args.runs)[0]
        if tim:
            bad += part_time(r, tim, args.runs, args.iterations)[0]
        machine = [c for c in cases if CASES[c][0] == "machine"]
        if machine:
            bad += part_machine(r, machine, args.runs)
    finally:
        print(f"\nload average after: {uptime()}")
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if bad:
        print(f"FAIL: results differ from the single-process run: {', '.join(bad)}")
        return 1
    if r.failed:
        print(f"FAIL: runs failed: {', '.join(r.failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
