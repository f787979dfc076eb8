"""dlsim from Python: run the simulator, read its output folders, read numbers off curves.

    import dlsim
    r = dlsim.run("scenarios/quickstart.json", set={"stop.iterations": 50})
    r.metrics            # metrics.csv as a pandas DataFrame
    dlsim.bits_to_loss(r.metrics, 0.5)

The binary is $DLSIM_BIN, else <repo>/build/bin/dlsim.
"""

from .curves import aggregate, bits_to_loss, time_to_loss, x_at_loss
from .errors import DlsimError, OutputError
from .results import Result, find_runs, flatten, load, load_runs, load_sweep
from .runner import binary, run, sweep
from .scenario import read_scenario, strip_comments

__all__ = ["run", "sweep", "load", "load_sweep", "load_runs", "Result", "bits_to_loss",
           "time_to_loss", "x_at_loss", "aggregate", "DlsimError", "OutputError", "binary",
           "find_runs", "flatten", "read_scenario", "strip_comments"]
