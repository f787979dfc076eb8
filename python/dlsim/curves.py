"""Numbers read off metrics curves: where a curve first reaches a loss, and the
aggregate (mean, median, spread) of repeated runs on a common x grid."""

import math

import numpy as np
import pandas as pd

# Two-sided 95 % Student t quantiles for 1..30 degrees of freedom (1.96 beyond).
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def x_at_loss(metrics, loss, x="bits_total", y="train_loss", *, interpolate=True):
    """The x value at which y FIRST reaches <= loss, or None when it never does.

    Rows where x or y is empty are ignored. With interpolate (the default) the answer is
    linear between the last row above the loss and the first row at or below it (the x of
    the first row when that is already at or below); without, it is the x of that first
    row.
    """
    if x not in metrics.columns or y not in metrics.columns:
        raise KeyError(f"metrics have no column {x if x not in metrics.columns else y}")
    d = metrics[[x, y]].apply(pd.to_numeric, errors="coerce").dropna()
    xs, ys = d[x].to_numpy(float), d[y].to_numpy(float)
    hits = np.flatnonzero(ys <= loss)
    if hits.size == 0:
        return None
    i = int(hits[0])
    if i == 0 or not interpolate:
        return float(xs[i])
    x0, y0, x1, y1 = xs[i - 1], ys[i - 1], xs[i], ys[i]
    return float(x0 + (loss - y0) * (x1 - x0) / (y1 - y0))


def bits_to_loss(metrics, loss, x="bits_total", y="train_loss"):
    """Bits sent (bits_total) when train_loss first reaches <= loss, interpolated linearly
    between the two metrics rows that bracket it; None when it is never reached.
    ``metrics`` is a metrics.csv DataFrame (Result.metrics)."""
    return x_at_loss(metrics, loss, x, y)


def time_to_loss(metrics, loss, x="time_s", y="train_loss"):
    """Simulated seconds when train_loss first reaches <= loss (as bits_to_loss)."""
    return x_at_loss(metrics, loss, x, y)


def common_grid(curves):
    """The union of the curves' x values inside the range every curve covers, so that
    no curve is extrapolated; curves is a list of (xs, ys) with xs increasing."""
    lo = max(float(np.min(xs)) for xs, _ in curves)
    hi = min(float(np.max(xs)) for xs, _ in curves)
    grid = np.unique(np.concatenate([np.asarray(xs, float) for xs, _ in curves]))
    return grid[(grid >= lo) & (grid <= hi)]


def aggregate(curves, grid=None):
    """Interpolate each (xs, ys) curve linearly onto a common grid (default common_grid)
    and summarize across curves per grid point.

    Returns a DataFrame with columns x, y_mean, y_std (sample std, 0 for one curve),
    y_min, y_max, y_median, y_ci95 (half-width of the Student t 95 % interval of the
    mean, 0 for one curve) and runs (the number of curves).
    """
    curves = [(np.asarray(xs, float), np.asarray(ys, float)) for xs, ys in curves]
    if grid is None:
        grid = common_grid(curves)
    values = np.array([np.interp(grid, xs, ys) for xs, ys in curves]).reshape(len(curves), -1)
    n = len(curves)
    std = values.std(axis=0, ddof=1) if n > 1 else np.zeros(len(grid))
    t = _T95[n - 2] if 2 <= n <= len(_T95) + 1 else 1.96
    return pd.DataFrame({
        "x": grid,
        "y_mean": values.mean(axis=0),
        "y_std": std,
        "y_min": values.min(axis=0),
        "y_max": values.max(axis=0),
        "y_median": np.median(values, axis=0),
        "y_ci95": t * std / math.sqrt(n) if n > 1 else np.zeros(len(grid)),
        "runs": n,
    })
