#!/usr/bin/python3
"""Instructions per simulated worker and round, counted by valgrind's cachegrind: a
figure that, unlike wall time on a shared VM, is the same on every run.

Runs a scenario (default: the million-worker ring gossip of bench/scenarios, at 50,000
workers) twice under `valgrind --tool=cachegrind --cache-sim=no`, for R and for 2R
iterations, and reports the difference divided by workers × R: the cost of one worker's
round once the run is set up, with no setup or teardown in it. It also prints the
setup-and-teardown instructions per worker and the functions that take the most of a
round. With --old, the same for a second binary, side by side.

    /usr/bin/python3 bench/instructions_per_round.py [--dlsim build/bin/dlsim] [--old OTHER]
        [--workers 50000] [--rounds 10] [--top 20] [--scenario FILE]
    make bench-instructions

Needs valgrind (Debian package `valgrind`, which also has cg_annotate). A 50,000-worker
pair of runs takes about 30 s of CPU per binary.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SCENARIO = os.path.join(ROOT, "bench", "scenarios", "gossip-ring-1m-profile.json")


def count(dlsim, scenario, workers, iterations, folder):
    """Runs dlsim under cachegrind; returns {function: instructions} (cg_annotate's table)."""
    out = os.path.join(folder, f"cg.{iterations}")
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                    f"--cachegrind-out-file={out}", dlsim, "run", scenario,
                    "--set", f"workers={workers}", "--set", f"stop.iterations={iterations}",
                    "--set", f"metrics.every.iterations={iterations}",
                    "--out", os.path.join(folder, f"run.{iterations}"), "--quiet"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    table = subprocess.run(["cg_annotate", "--show-percs=no", out], check=True,
                           capture_output=True, text=True).stdout
    functions = {}
    in_table = False
    for line in table.splitlines():
        if "file:function" in line:
            in_table = True
            continue
        if not in_table:
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            continue
        try:
            functions[parts[1].strip()] = int(parts[0].replace(",", ""))
        except ValueError:
            continue
    return functions


def measure(dlsim, scenario, workers, rounds):
    """(per worker-round total, setup+teardown per worker, {function: per worker-round})."""
    with tempfile.TemporaryDirectory(prefix="dlsim-instructions-") as folder:
        short = count(dlsim, scenario, workers, rounds, folder)
        long = count(dlsim, scenario, workers, 2 * rounds, folder)
    per_round = {f: (long.get(f, 0) - short.get(f, 0)) / (workers * rounds)
                 for f in set(short) | set(long)}
    total = sum(per_round.values())
    setup = (sum(short.values()) - total * workers * rounds) / workers
    return total, setup, per_round


def short_name(function):
    name = function.split(":", 1)[-1] if function.startswith("???:") else function
    name = name.replace("dlsim::sim::", "").replace("(anonymous namespace)::", "")
    return name[:90]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "bin", "dlsim"))
    ap.add_argument("--old", help="a second dlsim binary, measured the same way")
    ap.add_argument("--scenario", default=DEFAULT_SCENARIO)
    ap.add_argument("--workers", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    for tool in ("valgrind", "cg_annotate"):
        if shutil.which(tool) is None:
            sys.exit(f"instructions_per_round: {tool} not found (apt-get install valgrind)")
    binaries = [("new", args.dlsim)] + ([("old", args.old)] if args.old else [])
    results = {label: measure(path, args.scenario, args.workers, args.rounds)
               for label, path in binaries}
    print(f"scenario {os.path.relpath(args.scenario, ROOT)}, {args.workers} workers, "
          f"rounds {args.rounds} and {2 * args.rounds}")
    print("| binary | instructions per worker-round | setup and teardown per worker |")
    print("|---|---|---|")
    for label, path in binaries:
        total, setup, _ = results[label]
        print(f"| {label}: {path} | {total:,.0f} | {setup:,.0f} |")
    print()
    new = results["new"][2]
    old = results["old"][2] if args.old else {}
    header = "| function | per worker-round |" + (" old |" if args.old else "")
    print(header)
    print("|---|---|" + ("---|" if args.old else ""))
    for function in sorted(new, key=lambda f: -new[f])[:args.top]:
        row = f"| {short_name(function)} | {new[function]:,.1f} |"
        if args.old:
            row += f" {old.get(function, 0):,.1f} |"
        print(row)


if __name__ == "__main__":
    main()
