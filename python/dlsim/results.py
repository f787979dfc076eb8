"""Read what dlsim writes: run folders (metrics.csv, summary.json, model.npy) and sweep
folders (runs.csv plus one run folder per point). Every tool reads output through here."""

import json
import os

import pandas as pd

from .errors import OutputError

# The final-metrics columns of runs.csv, after run_id, status, the varied keys, repeat, seed.
METRIC_COLUMNS = ["time_s", "iteration", "epoch", "bits_total", "bytes_wire", "messages",
                  "train_loss", "test_loss", "test_accuracy", "consensus_distance", "wall_s"]


def flatten(obj, prefix=""):
    """Nested dicts -> {dotted.key: value}; lists, scalars and empty dicts are leaves."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, dict) and v:
                out.update(flatten(v, key))
            else:
                out[key] = v
    return out


class Result:
    """One run folder.

    dir: the folder. metrics: metrics.csv as a DataFrame (every column numeric, empty cells
    NaN). summary: summary.json as a dict ({} when the folder has none). scenario: the
    resolved scenario (summary["scenario"]), flat: the same flattened to dotted keys, name:
    the scenario name (else the folder name). model: model.npy as a numpy array, loaded on
    first use, or None when the run did not save it (``output.save_model``).
    """

    def __init__(self, folder, metrics, summary):
        self.dir = folder
        self.metrics = metrics
        self.summary = summary
        scenario = summary.get("scenario") if isinstance(summary, dict) else None
        self.scenario = scenario if isinstance(scenario, dict) else {}
        self.flat = flatten(self.scenario)
        name = self.scenario.get("name")
        self.name = str(name) if name else os.path.basename(os.path.normpath(folder))
        self._model = None

    @property
    def model(self):
        if self._model is None:
            self._model = _load_npy(os.path.join(self.dir, "model.npy"))
        return self._model

    def worker_model(self, i):
        """Worker i's model (workers/model_<i>.npy), or None when it was not saved (or worker
        i failed: network.faults.fail)."""
        return _load_npy(os.path.join(self.dir, "workers", f"model_{int(i)}.npy"))

    def __repr__(self):
        return f"Result({self.dir!r}, {len(self.metrics)} metrics rows)"


def _load_npy(path):
    if not os.path.isfile(path):
        return None
    import numpy as np
    return np.load(path)


def load(folder):
    """The Result of a run folder (it must hold metrics.csv; summary.json is optional).

    Raises OutputError when the folder or its metrics.csv is missing or unreadable.
    """
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise OutputError(f"no such folder: {folder}")
    metrics_path = os.path.join(folder, "metrics.csv")
    if not os.path.isfile(metrics_path):
        raise OutputError(f"{folder}: no metrics.csv (not a run folder)")
    try:
        metrics = pd.read_csv(metrics_path, float_precision="round_trip")
    except Exception as e:  # EmptyDataError, ParserError, OSError, ...
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise OutputError(f"cannot read {metrics_path}: {first}") from e
    metrics.columns = [str(c).strip() for c in metrics.columns]
    for c in metrics.columns:
        metrics[c] = pd.to_numeric(metrics[c], errors="coerce")
    summary = {}
    summary_path = os.path.join(folder, "summary.json")
    if os.path.isfile(summary_path):
        try:
            with open(summary_path, encoding="utf-8") as f:
                summary = json.load(f)
        except (OSError, ValueError) as e:
            raise OutputError(f"cannot read {summary_path}: {e}") from e
    return Result(folder, metrics, summary if isinstance(summary, dict) else {})


def load_sweep(folder):
    """runs.csv of a sweep folder as a DataFrame: one row per point with run_id, status
    (done | failed | running | pending), the varied keys, repeat, seed and the final
    metrics. ``df.attrs["dir"]`` is the folder and ``df.attrs["axes"]`` the varied keys.

    Raises OutputError when the folder has no readable runs.csv.
    """
    folder = os.fspath(folder)
    path = os.path.join(folder, "runs.csv")
    if not os.path.isfile(path):
        raise OutputError(f"{folder}: no runs.csv (not a sweep folder)")
    try:
        df = pd.read_csv(path, dtype={"run_id": str, "status": str},
                         float_precision="round_trip")
    except Exception as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise OutputError(f"cannot read {path}: {first}") from e
    if "run_id" not in df.columns or "status" not in df.columns:
        raise OutputError(f"{path}: not a dlsim runs.csv (no run_id and status columns)")
    df.attrs["dir"] = folder
    df.attrs["axes"] = sweep_axes(df)
    return df


def sweep_axes(runs):
    """The varied keys of a runs.csv DataFrame (the columns between status and repeat)."""
    cols = list(runs.columns)
    if "repeat" not in cols:
        return []
    return cols[cols.index("status") + 1:cols.index("repeat")]


def load_runs(folder, status="done"):
    """{run_id: Result} of a sweep folder's runs with the given status (None = all whose
    folder holds metrics.csv), in runs.csv order."""
    runs = load_sweep(folder)
    out = {}
    for _, row in runs.iterrows():
        if status is not None and row["status"] != status:
            continue
        run_dir = os.path.join(folder, row["run_id"])
        if status is None and not os.path.isfile(os.path.join(run_dir, "metrics.csv")):
            continue
        out[row["run_id"]] = load(run_dir)
    return out


class Found:
    """What find_runs found: run folders in order, the varied keys of the sweeps among
    them (in sweep order), the real paths of runs listed by a runs.csv, and per sweep the
    run ids skipped because they are not done."""

    def __init__(self):
        self.folders = []
        self.sweep_axes = []
        self.sweep_runs = set()
        self.skipped = []  # (sweep folder, ["run_id (status)", ...])


def find_runs(paths):
    """Expand folders into run folders.

    A run folder (with metrics.csv) is itself; a sweep folder written by ``dlsim sweep``
    gives its finished runs through runs.csv, in sweep order; any other folder gives its
    immediate subfolders holding metrics.csv, in name order. A metrics.csv, summary.json
    or runs.csv path stands for its folder. Duplicates are dropped.
    Raises OutputError for a missing path or a folder without runs.
    """
    found = Found()
    for path in map(os.fspath, paths):
        if not os.path.exists(path):
            raise OutputError(f"no such folder: {path}")
        if os.path.isfile(path):
            if os.path.basename(path) not in ("metrics.csv", "summary.json", "runs.csv"):
                raise OutputError(f"not a folder: {path}")
            path = os.path.dirname(path) or "."
        if os.path.isfile(os.path.join(path, "metrics.csv")):
            found.folders.append(path)
        elif not _add_sweep(found, path):
            subs = sorted(os.path.join(path, e) for e in os.listdir(path)
                          if os.path.isfile(os.path.join(path, e, "metrics.csv")))
            if not subs:
                raise OutputError(f"no metrics.csv found in {path} or its subfolders")
            found.folders.extend(subs)
    seen, unique = set(), []
    for f in found.folders:
        if os.path.realpath(f) not in seen:
            seen.add(os.path.realpath(f))
            unique.append(f)
    found.folders = unique
    return found


def _add_sweep(found, path):
    """Add the done runs of a dlsim sweep folder; False when path has no dlsim runs.csv."""
    try:
        runs = load_sweep(path)
    except OutputError:
        return False
    if runs.empty:
        return False
    for key in runs.attrs["axes"]:
        if key not in found.sweep_axes:
            found.sweep_axes.append(key)
    skipped = []
    before = len(found.folders)
    for run_id, status in zip(runs["run_id"], runs["status"]):
        folder = os.path.join(path, run_id)
        if status == "done" and os.path.isfile(os.path.join(folder, "metrics.csv")):
            found.folders.append(folder)
            found.sweep_runs.add(os.path.realpath(folder))
        else:
            skipped.append(f"{run_id} ({status})")
    if skipped:
        found.skipped.append((path, skipped))
    if len(found.folders) == before:
        raise OutputError(f"{path}: no finished run in runs.csv")
    return True
