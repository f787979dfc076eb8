#!/usr/bin/python3
"""End-to-end benchmarks of issue 9: runs the scenarios in scenarios/bench/ k times each
and prints one table (median wall time of the whole `dlsim run` process, events,
events per second, peak RSS, simulated time, target).

    /usr/bin/python3 bench/e2e.py [--dlsim build/bin/dlsim] [--runs 3] [--cases a,b,c,d]
    /usr/bin/python3 bench/e2e.py --cases e1,e2,f,f32,fi,f2 # issue 18: 1M and 2M workers, small model
    /usr/bin/python3 bench/e2e.py --cases f2,fn             # (f) with 31 metrics rows and with 2
    /usr/bin/python3 bench/e2e.py --cases fr,fri,fr2        # dense metrics rows
    /usr/bin/python3 bench/e2e.py --cases e1,e1h --runs 3 # 1M workers, without and with huge pages
    make bench-e2e

The runs go round robin over the cases (run 1 of every case, then run 2, ...), so that a
machine whose speed drifts slows every case alike; compare cases of one invocation.

Cases e1h and e2h are e1 and e2 with glibc's malloc asking for transparent huge pages
(environment GLIBC_TUNABLES=glibc.malloc.hugetlb=1; it has an effect when
/sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise").
Wall and CPU seconds come from /usr/bin/time -v (elapsed, user + system) and peak RSS
from its "Maximum resident set size"; events and simulated time from summary.json.
Case (b) runs CHOCO-SGD with --threads 1, --threads 2 and --threads 1 --inline-metrics
(one core: --threads 1 alone evaluates the metrics on a second thread) and checks that
metrics.csv is identical apart from wall_s; it prints --threads 2 against both, against one
core as the median of each round's ratio of summary wall_s; without a --threads option it
runs the single-thread case only and says so. Cases (f), (f2) and (fn) also run
bench/choco_numpy.py, the same CHOCO-SGD run written in vectorized numpy (its BLAS limited
to one thread), as many times in the same round robin, timed the same way, and print
numpy wall / dlsim wall (how many times faster dlsim is); (fn) against numpy with the same
two metrics rows. On a machine shared with other work, compare the CPU column too.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = os.path.join(ROOT, "scenarios", "bench")
CHOCO_NUMPY = os.path.join(ROOT, "bench", "choco_numpy.py")  # case (f)'s numpy reference

# case id -> (label, scenario file, extra flags, target wall seconds, target peak RSS bytes)
CASES = {
    "a": ("(a) gossip ring 1024, 100 rounds", "gossip-ring1024-profile.json", [], 0.35, None),
    "b1": ("(b) CHOCO fmnist 16w --threads 1", "choco-ring16-fmnist-softmax.json",
           ["--threads", "1"], None, None),
    "b2": ("(b) CHOCO fmnist 16w --threads 2", "choco-ring16-fmnist-softmax.json",
           ["--threads", "2"], None, None),
    # One core: --threads 1 evaluates the metrics on a second thread beside the simulation,
    # so the single-core run that --threads 2 is measured against keeps them inline.
    "b1i": ("(b) CHOCO fmnist 16w --threads 1 --inline-metrics (one core)",
            "choco-ring16-fmnist-softmax.json", ["--threads", "1", "--inline-metrics"], None,
            None),
    "c": ("(c) torus 4096 logistic, 10 rounds", "torus4096-logistic.json", [], None, 4e9),
    "d": ("(d) ring all-reduce 65536 ResNet-50 (fast path)", "ring-allreduce65536-resnet50.json", [], 10.0,
          None),
    # Issue 18's cases (not in the default set: e1 and e2 take a minute and 3-6 GB each).
    "e1": ("(e1) D-PSGD ring 1M workers, 10 rounds",
           os.path.join(ROOT, "bench", "scenarios", "gossip-ring-1m-profile.json"), [], 15.0, 4e9),
    "e2": ("(e2) D-PSGD ring 2M workers, 10 rounds",
           os.path.join(ROOT, "bench", "scenarios", "gossip-ring-2m-profile.json"), [], None, None),
    # The same two with malloc's transparent huge pages (CASE_ENV below): 700 times fewer page
    # faults and TLB misses, but a huge page costs more to find when memory is fragmented.
    "e1h": ("(e1h) the same as (e1), glibc.malloc.hugetlb=1",
            os.path.join(ROOT, "bench", "scenarios", "gossip-ring-1m-profile.json"), [], 15.0, 4e9),
    "e2h": ("(e2h) the same as (e2), glibc.malloc.hugetlb=1",
            os.path.join(ROOT, "bench", "scenarios", "gossip-ring-2m-profile.json"), [], None, None),
    "f": ("(f) CHOCO ring 9, logistic d=785, batch 1, 3 epochs",
          "choco-ring9-fmnist-logistic-batch1.json", [], 0.7, None),
    # (f) with the features stored as floats (data.storage float32: half the memory and
    # half the bytes per evaluation; the loss curve differs from (f) by the rounding).
    "f32": ("(f32) the same, data.storage float32",
            "choco-ring9-fmnist-logistic-batch1.json", ["--set", "data.storage=float32"], 0.7,
            None),
    # (f) with the metrics evaluated on the simulation's thread (by default they are
    # evaluated on a second thread beside it: docs/design.md §5).
    "fi": ("(fi) the same as (f), --inline-metrics",
           "choco-ring9-fmnist-logistic-batch1.json", ["--inline-metrics"], 0.7, None),
    # (f) on a pool of two: the rows are evaluated by the pool's threads between phases.
    "f2": ("(f2) the same as (f), --threads 2",
           "choco-ring9-fmnist-logistic-batch1.json", ["--threads", "2"], 0.7, None),
    # (f2) with a metrics row at the start and the end only (2 rows instead of 31), against
    # numpy with the same two rows: what the steps alone cost, the floor that faster metrics
    # could reach.
    "fn": ("(fn) the same as (f2), metrics at the start and the end only",
           "choco-ring9-fmnist-logistic-batch1.json",
           ["--threads", "2", "--set", 'metrics.every={"epochs":3}'], 0.7, None),
    # Rows faster than one thread evaluates them: 1 epoch, a row every 0.01 epoch (101 rows).
    # The simulation's thread joins a row it must wait for (docs/design.md §5); fr2 on a pool.
    "fr": ("(fr) (f) for 1 epoch, a row every 0.01 epoch",
           "choco-ring9-fmnist-logistic-batch1.json",
           ["--set", 'stop={"epochs":1}', "--set", 'metrics.every={"epochs":0.01}'], None, None),
    "fri": ("(fri) the same as (fr), --inline-metrics",
            "choco-ring9-fmnist-logistic-batch1.json",
            ["--set", 'stop={"epochs":1}', "--set", 'metrics.every={"epochs":0.01}',
             "--inline-metrics"], None, None),
    "fr2": ("(fr2) the same as (fr), --threads 2",
            "choco-ring9-fmnist-logistic-batch1.json",
            ["--set", 'stop={"epochs":1}', "--set", 'metrics.every={"epochs":0.01}',
             "--threads", "2"], None, None),
}

# The numpy reference a case is compared with (bench/choco_numpy.py): the scenario's own
# run, or the run with the metrics keys changed as in the case (fn: two rows).
NUMPY_OF = {"f": "f", "f2": "f", "fn": "fn"}
NUMPY_METRICS = {"f": None, "fn": {"every": {"epochs": 3}}}

# Environment added to a case's runs.
HUGE_PAGES = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
CASE_ENV = {"e1h": HUGE_PAGES, "e2h": HUGE_PAGES}


def run_options(dlsim):
    """The text of `dlsim run --help` (to see which options this binary has)."""
    out = subprocess.run([dlsim, "run", "--help"], capture_output=True, text=True)
    return out.stdout + out.stderr


def timed(cmd, env=None):
    """Runs cmd under /usr/bin/time -v (with env added to the environment): its stdout, wall
    and CPU seconds, peak RSS bytes."""
    cmd = ["/usr/bin/time", "-v"] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          env=dict(os.environ, **env) if env else None)
    if proc.returncode != 0:
        sys.exit(f"e2e: {' '.join(cmd)} failed:\n{proc.stderr}")
    err = proc.stderr

    def field(name):
        return re.search(re.escape(name) + r":\s*(\S+)", err).group(1)

    elapsed = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    seconds = 0.0
    for part in elapsed.split(":"):
        seconds = seconds * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    rss = int(field("Maximum resident set size (kbytes)")) * 1024
    return proc.stdout, seconds, cpu, rss


def run_once(dlsim, scenario, flags, out_dir, env=None):
    _, seconds, cpu, rss = timed([dlsim, "run", scenario, "--out", out_dir, "--quiet"] + flags,
                                 env)
    with open(os.path.join(out_dir, "summary.json")) as f:
        totals = json.load(f)["totals"]
    with open(os.path.join(out_dir, "metrics.csv")) as f:
        metrics = [line.rsplit(",", 1)[0] for line in f.read().splitlines()]
    return {"wall": seconds, "cpu": cpu, "rss": rss, "totals": totals, "metrics": metrics}


def numpy_scenario(variant, scratch):
    """The scenario file numpy variant `variant` runs (NUMPY_METRICS): case (f)'s, or a copy
    in `scratch` with its metrics keys replaced."""
    path = os.path.join(SCENARIOS, CASES["f"][1])
    if NUMPY_METRICS[variant] is None:
        return path
    with open(path) as f:
        doc = json.load(f)
    doc["metrics"].update(NUMPY_METRICS[variant])
    copy = os.path.join(scratch, f"numpy-{variant}.json")
    with open(copy, "w") as f:
        json.dump(doc, f)
    return copy


def run_numpy(scenario):
    """One run of bench/choco_numpy.py on `scenario`; "run" is its own time without numpy's
    import and the data loading (its last line: wall_s=... load_s=... run_s=...
    metrics_s=...)."""
    out, seconds, cpu, rss = timed(["/usr/bin/python3", CHOCO_NUMPY, "--scenario", scenario])
    parts = dict(item.split("=") for item in out.splitlines()[-1].split())
    return {"wall": seconds, "cpu": cpu, "rss": rss, "run": float(parts["run_s"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "bin", "dlsim"))
    ap.add_argument("--runs", type=int, default=3, help="runs per case (median reported)")
    ap.add_argument("--cases", default="a,b,c,d")
    args = ap.parse_args()
    wanted = args.cases.split(",")
    options = run_options(args.dlsim)
    threads = "--threads" in options
    ids = []
    for c in wanted:
        if c == "b":
            ids += (["b1", "b2"] + (["b1i"] if "--inline-metrics" in options else [])
                    if threads else ["b"])
        else:
            ids.append(c)
    scratch = tempfile.mkdtemp(prefix="dlsim-e2e-")
    rows, notes, results = [], [], {}
    try:
        def case(cid):
            label, file, flags, target_wall, target_rss = CASES["b1" if cid == "b" else cid]
            if cid == "b":
                label, flags = "(b) CHOCO fmnist 16w (no --threads)", []
            return label, os.path.join(SCENARIOS, file), flags, target_wall, target_rss

        for cid in ids:
            results[cid] = []
        # The numpy references the cases need, run in the same round robin.
        numpy_variants = sorted({NUMPY_OF[cid] for cid in ids if cid in NUMPY_OF})
        numpy_files = {v: numpy_scenario(v, scratch) for v in numpy_variants}
        numpy_runs = {v: [] for v in numpy_variants}
        for k in range(args.runs):  # round robin: a drifting machine slows every case alike
            for cid in ids:
                _, scenario, flags, _, _ = case(cid)
                results[cid].append(run_once(args.dlsim, scenario, flags,
                                             os.path.join(scratch, f"{cid}-{k}"),
                                             CASE_ENV.get(cid)))
            for v in numpy_variants:
                numpy_runs[v].append(run_numpy(numpy_files[v]))
        shown_numpy = set()
        for cid in ids:
            label, _, _, target_wall, target_rss = case(cid)
            runs = results[cid]
            wall = statistics.median(r["wall"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs)
            rss = max(r["rss"] for r in runs)
            t = runs[0]["totals"]
            verdict = []
            if target_wall is not None:
                verdict.append(f"wall<{target_wall:g}s " + ("ok" if wall < target_wall else "MISS"))
            if target_rss is not None:
                verdict.append(f"RSS<{target_rss / 1e9:g}GB " + ("ok" if rss < target_rss else "MISS"))
            if cid in ("b", "b1", "b2", "b1i") and t.get("wall_engine_s") is not None and t.get("wall_s"):
                verdict.append(f"engine {100 * t['wall_engine_s'] / t['wall_s']:.1f}% of wall")
            if cid in ("f", "f32", "fi", "f2", "fn", "fr", "fri", "fr2") and t.get("wall_metrics_s") is not None:
                beside = statistics.median(r["totals"].get("metrics_thread_s", 0) for r in runs)
                verdict.append(f"metrics {100 * t['wall_metrics_s'] / wall:.0f}% of process wall"
                               + (f" (+ {beside:.2f} s beside it)" if beside else ""))
            rows.append([label, f"{wall:.3f}", f"{cpu:.3f}", f"{t['events']:,}",
                         f"{t['events'] / wall:,.0f}", f"{rss / 2**20:,.0f} MiB",
                         f"{t['sim_time_s']:.6g} s", "; ".join(verdict)])
            if cid in NUMPY_OF:
                variant = NUMPY_OF[cid]
                ref = numpy_runs[variant]
                ref_wall = statistics.median(r["wall"] for r in ref)
                ref_cpu = statistics.median(r["cpu"] for r in ref)
                ref_run = statistics.median(r["run"] for r in ref)
                run = statistics.median(r["totals"]["wall_s"] for r in runs)  # after loading
                rows[-1][-1] += f"; {ref_wall / wall:.1f}x faster than numpy (target 20x)"
                if variant not in shown_numpy:  # one row per numpy variant
                    shown_numpy.add(variant)
                    rows.append([f"({variant}) in numpy, bench/choco_numpy.py",
                                 f"{ref_wall:.3f}", f"{ref_cpu:.3f}", "-", "-",
                                 f"{max(r['rss'] for r in ref) / 2**20:,.0f} MiB", "-", ""])
                notes.append(f"({cid}) numpy wall / dlsim wall: {ref_wall / wall:.2f}x (CPU: "
                             f"{ref_cpu / cpu:.2f}x); without data loading (numpy run_s, dlsim "
                             f"summary wall_s): {ref_run:.3f} s / {run:.3f} s = "
                             f"{ref_run / run:.2f}x")
        if "b1" in results and "b2" in results:
            same = results["b1"][0]["metrics"] == results["b2"][0]["metrics"]
            w1 = statistics.median(r["wall"] for r in results["b1"])
            w2 = statistics.median(r["wall"] for r in results["b2"])
            notes.append(f"(b) --threads 2 / --threads 1 wall: {w2 / w1:.2f}x; "
                         f"metrics.csv minus wall_s identical: {'yes' if same else 'NO'}")
            if "b1i" in results:
                # The target compares with one core; simulation only (after loading),
                # per run of one round, then the median of those ratios.
                pairs = [b2["totals"]["wall_s"] / b1i["totals"]["wall_s"]
                         for b1i, b2 in zip(results["b1i"], results["b2"])]
                same_inline = results["b1i"][0]["metrics"] == results["b2"][0]["metrics"]
                notes.append(f"(b) --threads 2 / one core (--threads 1 --inline-metrics), "
                             f"summary wall_s per round: median {statistics.median(pairs):.3f}x "
                             f"({', '.join(f'{r:.3f}' for r in pairs)}; target <= 0.52x); "
                             f"metrics.csv identical: {'yes' if same_inline else 'NO'}")
        elif "b" in results:
            notes.append("(b) this dlsim has no --threads option: single-thread run only")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    header = ["case", f"wall s (median of {args.runs})", "CPU s", "events", "events/s",
              "peak RSS", "simulated time", "target"]
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    fmt = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"
    print(fmt(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(fmt(r))
    for n in notes:
        print(n)
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
