#!/usr/bin/python3
"""dlsim and SimGrid 3.32 timed side by side on 1024-node ring gossip for 100 rounds.

The pattern is scenarios/bench/gossip-ring1024-profile.json; the target is dlsim at least
10x faster than SimGrid.

    /usr/bin/python3 bench/simgrid_side_by_side.py [--dlsim build/bin/dlsim] \
        [--simgrid-bin build/bin/simgrid_gossip_ring1024] [--runs 5]
    make bench-simgrid

The SimGrid side is bench/simgrid_gossip_ring1024.cpp (built when libsimgrid-dev is
installed), which runs the scenario's network pattern with the SimGrid code of the
conformance tests (tests/simgrid/: s4u actors, eager sends, CM02 with TCP-gamma 0, no
cross-traffic), here with SIMGRID_OPTIONS below. Each tool runs --runs times, the two
alternating so that a change in the machine's load hits both; wall time is
time.perf_counter() around the whole process (start to exit, like /usr/bin/time's
elapsed), CPU time (user + system) comes from os.wait4. The script fails unless every
run of both tools reports the same simulated end time (to 1e-9 relative) and the same
number of messages.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "scenarios", "bench", "gossip-ring1024-profile.json")
# SimGrid's logging off (only critical messages), so that printing costs nothing.
# network/optim:Full, as in the conformance tests: SimGrid's default, Lazy, can leave
# constraints out of a solve (docs/design.md §7). On this pattern both give dlsim's times
# for every node and round (simgrid_conformance gossip-ring1024 homogeneous cm02 short
# --cfg=network/optim:Lazy), and Lazy measured no faster here, so Full costs SimGrid nothing.
SIMGRID_OPTIONS = ["--log=root.thres:critical", "--cfg=network/optim:Full"]
TOLERANCE = 1e-9


def timed(cmd, out_path, err_path):
    """Runs cmd with stdout and stderr to files; returns (wall s, CPU s)."""
    with open(out_path, "w") as out, open(err_path, "w") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    if proc.returncode != 0:
        with open(err_path) as f:
            sys.exit(f"simgrid_side_by_side: {' '.join(cmd)} exited with {proc.returncode}:\n"
                     + f.read())
    return wall, usage.ru_utime + usage.ru_stime


def run_dlsim(dlsim, work, k):
    out_dir = os.path.join(work, f"dlsim-{k}")
    wall, cpu = timed([dlsim, "run", SCENARIO, "--out", out_dir, "--quiet"],
                      os.path.join(work, f"dlsim-{k}.out"), os.path.join(work, f"dlsim-{k}.err"))
    with open(os.path.join(out_dir, "summary.json")) as f:
        totals = json.load(f)["totals"]
    return {"wall": wall, "cpu": cpu, "sim_time": totals["sim_time_s"],
            "events": totals["events"], "messages": totals["messages"], "stderr": ""}


def run_simgrid(simgrid_bin, work, k):
    out_path = os.path.join(work, f"simgrid-{k}.out")
    err_path = os.path.join(work, f"simgrid-{k}.err")
    wall, cpu = timed([simgrid_bin] + SIMGRID_OPTIONS, out_path, err_path)
    with open(out_path) as f:
        values = dict(line.split() for line in f if line.strip())
    with open(err_path) as f:
        stderr = f.read()
    return {"wall": wall, "cpu": cpu, "sim_time": float(values["simulated_time_s"]),
            "events": None, "messages": int(values["messages"]), "stderr": stderr}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "bin", "dlsim"))
    ap.add_argument("--simgrid-bin",
                    default=os.path.join(ROOT, "build", "bin", "simgrid_gossip_ring1024"))
    ap.add_argument("--runs", type=int, default=5, help="runs per tool (median reported)")
    args = ap.parse_args()
    for path in (args.dlsim, args.simgrid_bin):
        if not os.access(path, os.X_OK):
            sys.exit(f"simgrid_side_by_side: {path} is not an executable (build it first)")

    work = tempfile.mkdtemp(prefix="dlsim-vs-simgrid-")
    runs = {"dlsim": [], "SimGrid 3.32": []}
    try:
        for k in range(args.runs):
            runs["dlsim"].append(run_dlsim(args.dlsim, work, k))
            runs["SimGrid 3.32"].append(run_simgrid(args.simgrid_bin, work, k))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    # Honesty checks: every run of both tools simulated the same thing.
    reference = runs["dlsim"][0]
    mismatches, largest = [], 0.0
    for tool, tool_runs in runs.items():
        for r in tool_runs:
            difference = abs(r["sim_time"] - reference["sim_time"]) / reference["sim_time"]
            largest = max(largest, difference)
            if difference > TOLERANCE:
                mismatches.append(f"{tool}: simulated time {r['sim_time']:.17g} s differs from "
                                  f"dlsim's {reference['sim_time']:.17g} s by {difference:.3g}")
            if r["messages"] != reference["messages"]:
                mismatches.append(f"{tool}: {r['messages']} messages, "
                                  f"dlsim {reference['messages']}")
    logged = [r["stderr"] for r in runs["SimGrid 3.32"] if r["stderr"]]

    medians = {tool: statistics.median(r["wall"] for r in tool_runs)
               for tool, tool_runs in runs.items()}
    header = ["tool", f"wall s (median of {args.runs})", "wall s (min)", "CPU s (median)",
              "simulated time s", "events", "messages", "SimGrid / tool"]
    rows = []
    for tool, tool_runs in runs.items():
        first = tool_runs[0]
        rows.append([tool, f"{medians[tool]:.3f}", f"{min(r['wall'] for r in tool_runs):.3f}",
                     f"{statistics.median(r['cpu'] for r in tool_runs):.3f}",
                     f"{first['sim_time']:.12g}",
                     "n/a" if first["events"] is None else f"{first['events']:,}",
                     f"{first['messages']:,}", f"{medians['SimGrid 3.32'] / medians[tool]:.1f}x"])
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    fmt = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"
    print(fmt(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(fmt(r))
    ratio = medians["SimGrid 3.32"] / medians["dlsim"]
    print(f"SimGrid options: {' '.join(SIMGRID_OPTIONS)}; SimGrid printed "
          + (f"to stderr in {len(logged)} runs:\n{logged[0]}" if logged else "nothing to stderr"))
    print(f"simulated end times and message counts agree (times to {TOLERANCE:g} relative): "
          + ("yes" if not mismatches else "NO") + f"; largest time difference {largest:.2g}")
    print(f"dlsim is {ratio:.1f}x faster than SimGrid (target >= 10x: "
          + ("met" if ratio >= 10 else "MISSED") + ")")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for m in mismatches:
        print(m, file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
