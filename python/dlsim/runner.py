"""Drive the dlsim binary: ``run`` and ``sweep`` build its command line and read the folder
it writes back through ``results``."""

import json
import os
import shutil
import subprocess
import tempfile

from .errors import DlsimError
from .results import load, load_sweep

# <repo>/python/dlsim/runner.py -> <repo>/build/bin/dlsim
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def binary():
    """Path of the dlsim executable: ``$DLSIM_BIN`` if set, else ``<repo>/build/bin/dlsim``.

    Raises DlsimError (returncode None) when it does not exist.
    """
    path = os.environ.get("DLSIM_BIN") or os.path.join(_REPO, "build", "bin", "dlsim")
    if not os.path.isfile(path):
        raise DlsimError(f"dlsim binary not found at {path} (build it, or set DLSIM_BIN)")
    return path


def _encode(value):
    """A Python value as the JSON text dlsim parses (``--set``, ``--grid``)."""
    return json.dumps(value, separators=(",", ":"))


def _set_args(overrides):
    args = []
    for key, value in (overrides or {}).items():
        args += ["--set", f"{key}={_encode(value)}"]
    return args


def _execute(args):
    """Run dlsim with ``args``; raise DlsimError with its error line when it fails."""
    proc = subprocess.run([binary()] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("dlsim: error:")]
        message = (errors or lines or [f"dlsim exited with status {proc.returncode}"])[0]
        raise DlsimError(message, proc.returncode)
    return proc


class _ScenarioFile:
    """A context giving a scenario path: the path itself, or a temporary JSON file
    holding a dict scenario (removed afterwards)."""

    def __init__(self, scenario):
        self.scenario = scenario
        self.temp = None

    def __enter__(self):
        if isinstance(self.scenario, dict):
            fd, self.temp = tempfile.mkstemp(prefix="dlsim-scenario-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.scenario, f)
            return self.temp
        return os.fspath(self.scenario)

    def __exit__(self, *exc):
        if self.temp:
            os.unlink(self.temp)


def run(scenario, set=None, out=None, threads=1, inline_metrics=False):  # noqa: A002
    """Run one simulation and return its Result.

    scenario: a dict (written to a temporary JSON file; relative paths inside it, such as
        a csv data file, are then relative to the temporary folder, so give absolute ones)
        or the path of a scenario file.
    set: {dotted key: value} overrides, passed as ``--set KEY=VALUE`` with VALUE encoded
        as JSON (``{"network.bandwidth": "1Gbps", "workers": 4}``).
    out: the run folder; default a new temporary folder (kept, unless the run fails).
    threads: ``--threads`` (0 = all cores; results are identical for every value).
    inline_metrics: ``--inline-metrics``: evaluate the metrics on the simulation's thread
        (by default beside it: with one thread on a second thread, with more chunk by
        chunk on the pool's threads between phases; the same values).

    Raises DlsimError (returncode 2 on bad input) when dlsim fails.
    """
    made_here = out is None
    if made_here:
        out = tempfile.mkdtemp(prefix="dlsim-run-")
    try:
        with _ScenarioFile(scenario) as path:
            _execute(["run", path] + _set_args(set)
                     + ["--out", os.fspath(out), "--quiet", "--threads", str(int(threads))]
                     + (["--inline-metrics"] if inline_metrics else []))
    except BaseException:
        if made_here:  # a failed run leaves no empty temporary folder behind
            shutil.rmtree(out, ignore_errors=True)
        raise
    return load(out)


def sweep(scenario, grid=None, repeat=1, jobs=1, out=None, set=None):  # noqa: A002
    """Run ``dlsim sweep`` and return its runs.csv as a DataFrame (see load_sweep).

    grid: {dotted key: [values]}, passed as ``--grid KEY=V1,V2`` (each value JSON-encoded;
        axes in dict order, the last varying fastest). The scenario's own ``sweep`` block
        is used when grid is empty.
    repeat: runs per point, with seeds seed, seed+1, ...
    jobs: child processes at a time.
    out: the sweep folder (must not hold a sweep yet); default a new temporary folder.
    set: overrides for every point, as in run().

    Raises DlsimError when dlsim fails: returncode 2 on bad input (nothing written),
    1 when some runs failed (the folder holds the others; load_sweep(out) reads them).
    """
    if out is None:
        out = os.path.join(tempfile.mkdtemp(prefix="dlsim-sweep-"), "sweep")
    args = _set_args(set)
    for key, values in (grid or {}).items():
        if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
            raise ValueError(f"grid[{key!r}] must be a list of values")
        args += ["--grid", f"{key}=" + ",".join(_encode(v) for v in values)]
    with _ScenarioFile(scenario) as path:
        _execute(["sweep", path] + args + ["--repeat", str(int(repeat)), "--jobs",
                                           str(int(jobs)), "--out", os.fspath(out), "--quiet"])
    return load_sweep(out)
