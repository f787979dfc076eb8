"""run, sweep, load, load_sweep, load_runs and errors against the real binary."""

import csv
import json
import os
import tempfile

import numpy as np
import pytest

import dlsim


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_run_dict_scenario(dlsim_bin, tiny, tmp_path):
    r = dlsim.run(tiny, out=tmp_path / "run")
    assert r.dir == str(tmp_path / "run")
    # A row at iteration 0 and every 5 up to 40.
    assert r.metrics["iteration"].tolist() == list(range(0, 41, 5))
    assert r.summary["final"]["iteration"] == 40
    assert r.summary["scenario"]["workers"] == 2 and r.flat["algorithm.kind"] == "sgd"
    # The DataFrame holds exactly the file's numbers.
    rows = read_rows(tmp_path / "run" / "metrics.csv")
    assert [float(row["train_loss"]) for row in rows] == r.metrics["train_loss"].tolist()
    assert r.metrics["train_loss"].iloc[-1] < r.metrics["train_loss"].iloc[0]
    assert r.model is None  # no output.save_model


def test_run_path_scenario_with_overrides(dlsim_bin, tiny, tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(tiny))
    r = dlsim.run(path, set={"workers": 3, "network.bandwidth": "100Mbps",
                             "stop": {"iterations": 10}}, out=tmp_path / "o", threads=2)
    s = r.summary["scenario"]
    assert s["workers"] == 3
    assert s["network"]["bandwidth"] in ("100Mbps", 1e8)
    assert r.metrics["iteration"].iloc[-1] == 10


def test_run_inline_metrics_gives_the_same_rows(dlsim_bin, tiny, tmp_path):
    beside = dlsim.run(tiny, out=tmp_path / "beside")
    inline = dlsim.run(tiny, out=tmp_path / "inline", inline_metrics=True)
    columns = [c for c in beside.metrics.columns if c != "wall_s"]
    assert beside.metrics[columns].equals(inline.metrics[columns])
    assert beside.summary["totals"]["metrics_thread_s"] > 0
    assert inline.summary["totals"]["metrics_thread_s"] == 0


def test_run_default_out_is_a_new_folder(dlsim_bin, tiny, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # keep /tmp clean
    a = dlsim.run(tiny, set={"stop.iterations": 5})
    b = dlsim.run(tiny, set={"stop.iterations": 5})
    assert a.dir != b.dir and os.path.isfile(os.path.join(a.dir, "summary.json"))
    assert os.path.dirname(a.dir) == str(tmp_path)


def test_failed_run_leaves_no_default_folder(dlsim_bin, tiny, tmp_path, monkeypatch):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    with pytest.raises(dlsim.DlsimError):
        dlsim.run(tiny, set={"workers": 0})
    with pytest.raises(dlsim.DlsimError):
        dlsim.run(tmp_path / "missing.json")
    assert [p.name for p in temp.iterdir() if p.name.startswith("dlsim-run-")] == []


def test_load_reads_a_saved_model(dlsim_bin, tiny, tmp_path):
    dlsim.run(tiny, set={"stop.iterations": 5}, out=tmp_path / "m")
    w = np.arange(11, dtype=float)
    np.save(tmp_path / "m" / "model.npy", w)
    os.makedirs(tmp_path / "m" / "workers")
    np.save(tmp_path / "m" / "workers" / "model_1.npy", 2 * w)
    r = dlsim.load(tmp_path / "m")
    assert np.array_equal(r.model, w)
    assert np.array_equal(r.worker_model(1), 2 * w) and r.worker_model(0) is None


def test_run_saves_the_model(dlsim_bin, tiny, tmp_path):
    # Decentralized, so every worker has its own model: model.npy is their average, and
    # the train_loss of the last row is the least-squares loss of that average.
    tiny.update({"workers": 3, "topology": {"kind": "ring"},
                 "data": {"source": "csv", "path": str(tmp_path / "d.csv")},
                 "model": {"kind": "least-squares", "l2": 0.0, "bias": False}})
    tiny["algorithm"] = {"kind": "dpsgd", "step_size": 0.05, "batch_size": 10}
    tiny["metrics"]["per_worker"] = True
    tiny["output"] = {"save_model": True}
    rng = np.random.default_rng(0)
    a = rng.normal(size=(60, 4))
    b = a @ np.array([1.0, -2.0, 0.5, 3.0])
    np.savetxt(tmp_path / "d.csv", np.column_stack([a, b]), delimiter=",",
               header="x1,x2,x3,x4,label", comments="")
    r = dlsim.run(tiny, out=tmp_path / "saved")
    workers = [r.worker_model(i) for i in range(3)]
    assert r.model.shape == (4,) and all(w.shape == (4,) for w in workers)
    assert np.allclose(np.mean(workers, axis=0), r.model, rtol=0, atol=1e-15)
    loss = 0.5 * np.mean((a @ r.model - b) ** 2)
    assert r.metrics["train_loss"].iloc[-1] == pytest.approx(loss, rel=1e-9)


def test_bits_to_loss_on_a_real_run(dlsim_bin, tiny, tmp_path):
    r = dlsim.run(tiny, out=tmp_path / "run")
    rows = read_rows(tmp_path / "run" / "metrics.csv")
    bits = [float(row["bits_total"]) for row in rows]
    loss = [float(row["train_loss"]) for row in rows]
    target = (loss[2] + loss[3]) / 2  # strictly between rows 2 and 3 if loss decreases there
    assert loss[0] > loss[1] > loss[2] > target > loss[3]
    expected = bits[2] + (target - loss[2]) * (bits[3] - bits[2]) / (loss[3] - loss[2])
    assert dlsim.bits_to_loss(r.metrics, target) == pytest.approx(expected, rel=1e-12)
    assert bits[2] < expected < bits[3]
    assert dlsim.bits_to_loss(r.metrics, min(loss) / 2) is None


def test_bad_input_raises_with_exit_code_2(dlsim_bin, tiny, tmp_path):
    with pytest.raises(dlsim.DlsimError) as e:
        dlsim.run(tiny, set={"workers": 0}, out=tmp_path / "bad")
    assert e.value.returncode == 2
    assert e.value.message.startswith("dlsim: error: workers")
    assert "\n" not in e.value.message
    assert not os.path.exists(tmp_path / "bad")
    with pytest.raises(dlsim.DlsimError) as e:
        dlsim.run(tmp_path / "missing.json")
    assert e.value.returncode == 2 and e.value.message.startswith("dlsim: error:")


def test_missing_binary(monkeypatch, tiny, tmp_path):
    monkeypatch.setenv("DLSIM_BIN", str(tmp_path / "no-such-dlsim"))
    with pytest.raises(dlsim.DlsimError) as e:
        dlsim.run(tiny)
    assert e.value.returncode is None and "DLSIM_BIN" in str(e.value)


def test_sweep_and_load_sweep(dlsim_bin, tiny, tmp_path):
    out = tmp_path / "sw"
    runs = dlsim.sweep(tiny, grid={"workers": [2, 3], "network.bandwidth": ["1Gbps", "10Mbps"]},
                       repeat=2, jobs=2, out=out)
    assert len(runs) == 8 and (runs["status"] == "done").all()
    assert runs.attrs["axes"] == ["workers", "network.bandwidth"]
    assert sorted(runs["seed"].unique()) == [1, 2]
    # The same table as the file, and as load_sweep gives it.
    rows = read_rows(out / "runs.csv")
    assert runs["run_id"].tolist() == [row["run_id"] for row in rows]
    assert dlsim.load_sweep(out)["run_id"].tolist() == runs["run_id"].tolist()
    results = dlsim.load_runs(out)
    assert list(results) == runs["run_id"].tolist()
    for row in rows:
        r = results[row["run_id"]]
        assert r.flat["workers"] == int(row["workers"]) and r.flat["seed"] == int(row["seed"])
        assert r.metrics["train_loss"].iloc[-1] == float(row["train_loss"])


def test_sweep_bad_grid_raises(dlsim_bin, tiny, tmp_path):
    with pytest.raises(dlsim.DlsimError) as e:
        dlsim.sweep(tiny, grid={"workers": [2, 0]}, out=tmp_path / "bad")
    assert e.value.returncode == 2 and e.value.message.startswith("dlsim: error: workers")
    assert not os.path.exists(tmp_path / "bad")


def test_load_errors(tmp_path):
    with pytest.raises(dlsim.OutputError):
        dlsim.load(tmp_path / "nothing")
    with pytest.raises(dlsim.OutputError):
        dlsim.load(tmp_path)  # a folder without metrics.csv
    with pytest.raises(dlsim.OutputError):
        dlsim.load_sweep(tmp_path)
