"""Shared fixtures: the package on sys.path, the dlsim binary, small fast scenarios."""

import copy
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

import dlsim  # noqa: E402

# Least squares on 400 samples, 2 workers, 40 iterations, a row every 5: milliseconds.
TINY = {
    "name": "tiny",
    "seed": 1,
    "workers": 2,
    "data": {"source": "synthetic-regression", "samples": 400, "features": 10},
    "model": {"kind": "least-squares"},
    "algorithm": {"kind": "sgd", "collective": "parameter-server", "step_size": 0.05,
                  "batch_size": 10},
    "stop": {"iterations": 40},
    "metrics": {"every": {"iterations": 5}},
}


@pytest.fixture
def tiny():
    return copy.deepcopy(TINY)


@pytest.fixture(scope="session")
def dlsim_bin():
    """The binary the tests drive; a missing one fails the test (never a skip)."""
    try:
        return dlsim.binary()
    except dlsim.DlsimError as e:
        pytest.fail(str(e))


@pytest.fixture(scope="session")
def compressor_sweep(dlsim_bin, tmp_path_factory):
    """A real sweep: compressor none vs fp16 vs qsgd, 2 repeats each (6 runs)."""
    out = tmp_path_factory.mktemp("sweeps") / "compressors"
    dlsim.sweep(copy.deepcopy(TINY),
                grid={"algorithm.compressor.kind": ["none", "fp16", "qsgd"]},
                repeat=2, jobs=2, out=out)
    return str(out)


def tool(name, *args, cwd=None):
    """Run tools/<name> with this interpreter; returns the CompletedProcess."""
    env = dict(os.environ)
    env.setdefault("MPLCONFIGDIR", os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                "dlsim-pytest-mpl"))
    return subprocess.run([sys.executable, os.path.join(REPO, "tools", name)]
                          + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          cwd=cwd)
