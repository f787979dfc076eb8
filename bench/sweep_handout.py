#!/usr/bin/python3
"""Dynamic point hand-out of `mpirun dlsim sweep` (issue 21) against the static stride of
`--shard i/K`, on a sweep whose first point is heavy: five points of a least-squares SGD
run (tests/cli/sweep_mpi.sh's tiny scenario) whose iteration counts make one point about
4x as long as each of the other four.

    /usr/bin/python3 bench/sweep_handout.py [--dlsim build/bin/dlsim] [--runs 3]

Two workers either way, one run at a time each (--jobs 1):
  static   two `dlsim sweep --shard i/2` processes at once (worker i takes points i, i+2,
           ...: worker 0 gets the heavy point and two light ones), then `--merge`;
  dynamic  `mpirun -np 2 dlsim sweep` (a free rank takes the next point: one rank runs the
           heavy point while the other runs the four light ones).
Prints the wall time of each (median of --runs, the two alternated) and checks that the
two runs.csv files agree but for wall_s. Ideal: static = heavy + 2 light, dynamic =
max(heavy, 4 light).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = """{"name": "handout", "workers": 2,
 "data": {"source": "synthetic-regression", "samples": 200, "features": 5},
 "model": {"kind": "least-squares"},
 "algorithm": {"kind": "sgd", "collective": "parameter-server", "step_size": 0.05,
               "batch_size": 10},
 "stop": {"iterations": 20},
 "metrics": {"every": {"iterations": 1000000}}}
"""
# The heavy point first; the light ones differ by a little so that their run ids differ.
GRID = ["--grid", "stop.iterations=1800000,440000,450000,460000,470000"]
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2"]


def without_wall(path):
    with open(path) as f:
        return [line.rsplit(",", 1)[0] for line in f.read().splitlines()]


def timed(commands):
    """Starts every command at once and waits for all: the wall seconds."""
    start = time.monotonic()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in commands]
    codes = [p.wait() for p in procs]
    if any(codes):
        sys.exit(f"failed: {commands} -> {codes}")
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dlsim", default=os.path.join(ROOT, "build", "bin", "dlsim"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    dlsim = os.path.abspath(args.dlsim)
    tmp = tempfile.mkdtemp(prefix="sweep-handout-")
    try:
        scenario = os.path.join(tmp, "handout.json")
        with open(scenario, "w") as f:
            f.write(SCENARIO)
        sweep = [dlsim, "sweep", scenario] + GRID + ["--jobs", "1", "--quiet"]
        static, dynamic = [], []
        for r in range(args.runs):
            out_s, out_d = os.path.join(tmp, f"static{r}"), os.path.join(tmp, f"dynamic{r}")
            static.append(timed([sweep + ["--shard", f"{i}/2", "--out", out_s] for i in (0, 1)]))
            subprocess.run([dlsim, "sweep", "--merge", out_s, "--quiet"], check=True)
            dynamic.append(timed([MPIRUN + sweep + ["--out", out_d]]))
            if without_wall(os.path.join(out_s, "runs.csv")) != without_wall(
                    os.path.join(out_d, "runs.csv")):
                sys.exit("the two sweeps' runs.csv differ (but wall_s)")
        # The points alone, one after the other, in sweep order, for the ideal figures.
        with open(os.path.join(tmp, "static0", "runs.csv")) as f:
            order = [line.split(",", 1)[0] for line in f.read().splitlines()[1:]]
        alone = []
        for p in order:
            start = time.monotonic()
            subprocess.run([dlsim, "run", os.path.join(tmp, "static0", p, "point.json"), "--out",
                            os.path.join(tmp, "alone", p), "--quiet"], check=True)
            alone.append(time.monotonic() - start)
        heavy, light = alone[0], alone[1:]
        print(f"| hand-out | wall s (median of {args.runs}) | ideal s |")
        print("|---|---|---|")
        print(f"| static (--shard i/2, two processes at once) | {statistics.median(static):.2f} | "
              f"{max(heavy + alone[2] + alone[4], alone[1] + alone[3]):.2f} "
              "(points 0, 2, 4 on one worker) |")
        print(f"| dynamic (mpirun -np 2) | {statistics.median(dynamic):.2f} | "
              f"{max(heavy, sum(light)):.2f} (max(heavy, 4 light)) |")
        print(f"points alone: heavy {heavy:.2f} s, light " +
              ", ".join(f"{v:.2f}" for v in light) +
              " s; runs.csv identical but wall_s: yes (mpirun's own start-up is in the "
              "dynamic figure)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
