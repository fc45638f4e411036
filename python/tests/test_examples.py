"""Every example in examples/ runs (with small sizes) and says what it should."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def example(name, *args, cwd):
    r = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=900,
    )
    assert r.returncode == 0, f"{name}: {r.stderr}"
    return r.stdout


def test_discharge_plots_the_grains_passed(tmp_path):
    out = example("discharge.py", "--grains", 400, "--duration", 0.8, "--out", tmp_path / "d.png", cwd=tmp_path)
    assert (tmp_path / "d.png").stat().st_size > 1000
    passed = int(re.search(r"(\d+) of 400 passed", out).group(1))
    assert 100 < passed <= 400


def test_beverloo_sweep_fits_a_plausible_k(tmp_path):
    # Frictionless and three necks, to keep it short (the documented sweep,
    # docs/solvers.md, is the example's defaults: mu 0.4, four necks). Four
    # seeds: one seed's k is a fluctuation (seeds 1-6 alone gave -0.76,
    # -0.40, +0.41, -0.57, -0.90 and +0.06, standard deviation 0.50); the
    # means of seeds 1-4 and of seeds 3-6 fit -0.31 and -0.22.
    out = example(
        "beverloo.py", "--mu", 0, "--necks", "5,6.5,8", "--seeds", 4, "--grains", 1500, "--duration", 1.0,
        "--workers", 2, "--out", tmp_path / "bev", "--plot", tmp_path / "bev.png", cwd=tmp_path,
    )
    # A sweep: one result directory per neck and seed, the table the fit read.
    rows = (tmp_path / "bev" / "results.csv").read_text().splitlines()
    assert len(rows) == 13 and all(",done," in r for r in rows[1:]), rows
    assert all((tmp_path / "bev" / "runs" / f"{k:04d}" / "summary.json").is_file() for k in range(12))
    assert (tmp_path / "bev.png").stat().st_size > 1000
    rates = [float(x) for x in re.findall(r"([\d.]+) grains/s \(", out)]
    assert len(rates) == 3 and rates[0] < rates[1] < rates[2], out
    # The 3/2 law: W^(2/3) is a straight line in D (measured R^2 0.997) ...
    assert float(re.search(r"R\^2 = ([\d.]+)", out).group(1)) > 0.97, out
    # ... meeting zero within a few grain diameters of D = 0 (frictionless
    # grains: k = -0.31 measured; frictional ones more, docs/solvers.md).
    k = float(re.search(r"k = (-?[\d.]+)", out).group(1))
    assert -1.0 < k < 3.0, out
    # The flow grows with the neck in the exponent fit too (b = 1.10 measured
    # with k = 1.5); three necks are too few to free k as well.
    b = float(re.search(r"k = 1.5 fixed: b = (-?[\d.]+)", out).group(1))
    assert 0.5 < b < 2.5, out
    assert "k free: no fit" in out, out


def test_read_result_reads_a_cli_run(tmp_path, cli):
    cli("run", "--grains", 150, "--duration", 0.1, "--out", tmp_path / "r", "--quiet", "--backend", "cpu")
    out = example("read_result.py", tmp_path / "r", cwd=tmp_path)
    assert "150 grains" in out and "0 lost" in out


def test_course_run_writes_what_the_cli_opens(tmp_path, cli):
    out = example("course_run.py", "--grains", 200, "--duration", 0.2, "--out", tmp_path / "c", cwd=tmp_path)
    assert "200 grains, 200 steps" in out
    r = cli("render", tmp_path / "c")
    assert (tmp_path / "c" / "render.gif").is_file(), r.stderr
    cli("plot", tmp_path / "c")
    assert (tmp_path / "c" / "plot_energy.png").is_file()
