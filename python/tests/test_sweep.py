"""hourglass.sweep: a sweep through a real Dask cluster and through local
processes gives the table of the same runs made one by one with
`hourglass run`; a second sweep into the directory skips what finished; a
bad spec is refused before any run."""

import json

import numpy as np
import pytest

import hourglass

# 300 grains discharging for 0.3 s after 0.1 s of settling, on the CPU.
SPEC = {
    "version": 1,
    "set": {"grains.count": 300, "run.settle": 0.1, "run.every": 25},
    "run": {"duration": 0.3, "backend": "cpu"},
    "grid": {"walls.hourglass.neck": [6.0, 8.0], "grains.seed": [1, 2]},
}

ALONE = """version = 1
[walls.hourglass]
neck = {neck}
[grains]
count = 300
seed = {seed}
[run]
settle = 0.1
every = 25
duration = 0.3
backend = "cpu"
"""


def column(table, name):
    return np.asarray(table[name])


def alone(cli, tmp_path, neck, seed):
    """The summary of the same run made with `hourglass run`."""
    scene = tmp_path / f"alone_{neck}_{seed}.toml"
    scene.write_text(ALONE.format(neck=neck, seed=seed))
    out = tmp_path / f"alone_{neck}_{seed}"
    cli("run", scene, "--out", out, "--quiet")
    return json.loads((out / "summary.json").read_text())


def check_table(table, cli, tmp_path):
    assert list(column(table, "id")) == ["0000", "0001", "0002", "0003"]
    assert list(column(table, "status")) == ["done"] * 4
    necks, seeds = column(table, "walls.hourglass.neck"), column(table, "grains.seed")
    assert list(necks) == [6.0, 6.0, 8.0, 8.0] and list(seeds) == [1, 2, 1, 2]
    rates = column(table, "flow_rate")
    assert np.all(np.isfinite(rates)) and np.all(rates > 0)
    for k in range(4):
        s = alone(cli, tmp_path, necks[k], int(seeds[k]))
        # Bit for bit: the CPU backend's runs repeat whatever the threads.
        assert rates[k] == s["flow_rate"]
        assert column(table, "passed")[k] == s["passed"]
        assert column(table, "max_overlap")[k] == s["max_overlap"]
    # A wider neck passes grains faster.
    assert rates[2:].mean() > rates[:2].mean()


def test_a_sweep_on_a_dask_cluster_is_the_runs_made_one_by_one(tmp_path, cli):
    import distributed
    out = tmp_path / "dask"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            table = hourglass.sweep(SPEC, out=out, executor=client.get_executor())
    try:
        import pandas
    except ImportError:
        assert isinstance(table, dict)
    else:
        assert isinstance(table, pandas.DataFrame) and len(table) == 4
    check_table(table, cli, tmp_path)
    for k in range(4):
        assert (out / "runs" / f"{k:04d}" / ".hourglass-result").is_file()


def test_local_processes_rerun_skips_the_finished_and_bad_specs_are_refused(tmp_path, cli):
    out = tmp_path / "local"
    table = hourglass.sweep(SPEC, out=out, workers=2)
    check_table(table, cli, tmp_path)
    stamp = (out / "runs" / "0002" / "summary.json").stat().st_mtime_ns
    again = hourglass.sweep(SPEC, out=out, workers=2)
    assert (out / "runs" / "0002" / "summary.json").stat().st_mtime_ns == stamp
    assert list(column(again, "flow_rate")) == list(column(table, "flow_rate"))
    # The table reads back the same from the file.
    back = hourglass.read_sweep(out / "results.csv")
    assert list(column(back, "passed")) == list(column(table, "passed"))

    # One line, before any run: an unknown key with the nearest, another sweep in `out`.
    typo = dict(SPEC, grid={"walls.hourglass.nek": [6.0]})
    with pytest.raises(hourglass.HourglassError, match=r"did you mean `walls.hourglass.neck`") as e:
        hourglass.sweep(typo, out=tmp_path / "typo")
    assert "\n" not in str(e.value)
    assert not (tmp_path / "typo").exists()
    other = dict(SPEC, grid={"walls.hourglass.neck": [7.0]})
    with pytest.raises(hourglass.HourglassError, match="holds another sweep"):
        hourglass.sweep(other, out=out)
    with pytest.raises(hourglass.HourglassError, match="sweep file's path or a dict"):
        hourglass.sweep(42, out=tmp_path / "x")


def test_a_failing_point_is_a_row_and_the_sweep_goes_on(tmp_path):
    spec = {
        "version": 1,
        "set": {"grains.count": 100, "run.settle": 0.02},
        "run": {"steps": 10},
        "zip": {"solver.kind": ["nlgs", "nlgs"], "run.backend": ["cpu", "gpu"]},
    }

    class Inline:
        """The smallest executor: runs at submit, in this process."""

        def submit(self, fn, *args):
            from concurrent.futures import Future

            f = Future()
            f.set_result(fn(*args))
            return f

    table = hourglass.sweep(spec, out=tmp_path / "s", executor=Inline())
    assert list(column(table, "status")) == ["done", "failed"]
    assert "solver `nlgs` on the GPU backend" in column(table, "error")[1]
    assert np.isnan(column(table, "passed")[1]) and column(table, "passed")[0] >= 0
