"""bits_to_loss, time_to_loss and aggregate against hand-computed numbers."""

import math

import pandas as pd
import pytest

import dlsim


def frame(xs, ys, x="bits_total", y="train_loss"):
    return pd.DataFrame({x: xs, y: ys})


def test_bits_to_loss_interpolates_between_bracketing_rows():
    m = frame([0, 100, 200, 300], [1.0, 0.8, 0.4, 0.2])
    # Between (100, 0.8) and (200, 0.4): 100 + (0.6 - 0.8) * 100 / (0.4 - 0.8) = 150.
    assert dlsim.bits_to_loss(m, 0.6) == pytest.approx(150.0)
    # Between (200, 0.4) and (300, 0.2): 200 + (0.3 - 0.4) * 100 / (0.2 - 0.4) = 250.
    assert dlsim.bits_to_loss(m, 0.3) == pytest.approx(250.0)
    assert dlsim.bits_to_loss(m, 0.4) == pytest.approx(200.0)  # a row exactly at L
    assert dlsim.bits_to_loss(m, 1.5) == 0.0  # the first row already reaches it
    assert dlsim.bits_to_loss(m, 0.1) is None  # never reached


def test_bits_to_loss_takes_the_first_crossing_and_skips_empty_rows():
    # Down to 0.5, back up to 0.9, down to 0.3: the first crossing of 0.6 counts,
    # between (0, 1.0) and (100, 0.5): 100 * 0.4 / 0.5 = 80.
    m = frame([0, 100, 200, 300], [1.0, 0.5, 0.9, 0.3])
    assert dlsim.bits_to_loss(m, 0.6) == pytest.approx(80.0)
    # An empty loss cell between: the bracketing rows are (0, 1.0) and (200, 0.2).
    m = frame([0, 100, 200], [1.0, math.nan, 0.2])
    assert dlsim.bits_to_loss(m, 0.6) == pytest.approx(100.0)


def test_time_to_loss_uses_simulated_time():
    m = pd.DataFrame({"time_s": [0.0, 2.0, 4.0], "bits_total": [0, 10, 20],
                      "train_loss": [3.0, 2.0, 1.0]})
    assert dlsim.time_to_loss(m, 1.5) == pytest.approx(3.0)
    assert dlsim.bits_to_loss(m, 1.5) == pytest.approx(15.0)
    assert dlsim.x_at_loss(m, 1.5, "time_s", interpolate=False) == 4.0


def test_aggregate_interpolates_onto_the_shared_range():
    a = ([0, 2, 4], [4.0, 2.0, 0.0])        # y = 4 - x
    b = ([1, 3, 5], [10.0, 6.0, 2.0])       # y = 12 - 2x
    agg = dlsim.aggregate([a, b])
    # Grid: the union of x values inside [max start, min end] = [1, 4].
    assert agg["x"].tolist() == [1.0, 2.0, 3.0, 4.0]
    ya = [3.0, 2.0, 1.0, 0.0]
    yb = [10.0, 8.0, 6.0, 4.0]
    assert agg["y_mean"].tolist() == pytest.approx([(p + q) / 2 for p, q in zip(ya, yb)])
    # Sample std of two values p, q is |p - q| / sqrt(2).
    assert agg["y_std"].tolist() == pytest.approx([abs(p - q) / math.sqrt(2)
                                                   for p, q in zip(ya, yb)])
    assert agg["y_min"].tolist() == ya and agg["y_max"].tolist() == yb
    assert (agg["runs"] == 2).all()
    # Student t with 1 degree of freedom: 12.706 * std / sqrt(2).
    assert agg["y_ci95"].iloc[0] == pytest.approx(12.706 * 7 / math.sqrt(2) / math.sqrt(2))
