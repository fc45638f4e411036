"""The Python API's contract: shapes, dtypes, writes, errors."""

import numpy as np
import pytest

import hourglass


def test_arrays_have_the_documented_shapes_and_dtypes():
    sim = hourglass.Simulation.from_scene(None, backend="cpu", grains=200)
    n = 200
    assert sim.positions.shape == (n, 2) and sim.positions.dtype == np.float64
    assert sim.velocities.shape == (n, 2) and sim.velocities.dtype == np.float64
    assert sim.radii.shape == (n,) and sim.radii.dtype == np.float64
    assert sim.masses.shape == (n,) and sim.masses.dtype == np.float64
    assert sim.ids.shape == (n,) and sim.ids.dtype == np.int64
    assert np.array_equal(sim.ids, np.arange(n))
    # Masses are the scene's density times the disk areas.
    assert np.allclose(sim.masses, 2500.0 * np.pi * sim.radii**2, rtol=1e-5)
    sim.open_gate()
    sim.step(20)
    c = sim.contacts()
    m = len(c["grain"])
    assert m > 0
    assert c["normal"].shape == (m, 2)
    for k in ("grain", "other", "wall", "kind", "gap", "impulse", "impulse_t"):
        assert c[k].shape == (m,), k
    assert np.allclose(np.linalg.norm(c["normal"], axis=1), 1.0, atol=1e-5)
    # The CPU NSCD backend keeps its impulses: non-negative, some acting.
    assert np.all(c["impulse"] >= 0.0) and np.any(c["impulse"] > 0.0)
    # A grain-grain pair is listed once, walls have no other grain.
    grain = c["kind"] == 0
    assert np.all(c["other"][~grain] == -1) and np.all(c["wall"][grain] == -1)
    pairs = set(zip(c["grain"][grain], c["other"][grain]))
    assert len(pairs) == grain.sum() and not any((b, a) in pairs for a, b in pairs)
    d = sim.diagnostics()
    assert d["step"] == 20 and d["grains"] == n and d["lost"] == 0
    assert d["time"] == pytest.approx(20 * sim.dt)


def test_positions_stay_in_id_order_across_reorders():
    sim = hourglass.Simulation.from_scene(None, backend="cpu", grains=300)
    r0 = sim.radii
    sim.open_gate()
    sim.step(250)  # the CPU backend reorders its grains every 100 steps
    assert np.array_equal(sim.radii, r0)
    assert np.array_equal(sim.ids, np.arange(300))


def test_setting_velocities_and_adding_grains(scene):
    path = scene(
        """
version = 1
gravity = [0.0, 0.0]
[walls]
segments = [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]
[grains]
density = 1000.0
list = [[0.3, 0.5, 0.0, 0.0, 0.02], [0.7, 0.5, 0.0, 0.0, 0.02]]
[solver]
kind = "nlgs"
dt = 1e-3
"""
    )
    sim = hourglass.Simulation.from_scene(str(path))
    v = np.array([[0.5, 0.0], [0.0, -0.25]])
    sim.velocities = v
    assert np.allclose(sim.velocities, v)
    sim.step(100)
    # No gravity, nothing touches: uniform motion.
    assert np.allclose(sim.positions, [[0.35, 0.5], [0.7, 0.475]], atol=1e-6)
    sim.add_grains(np.array([[0.5, 0.8]]), np.array([0.03]), np.array([[0.0, 0.1]]))
    assert sim.positions.shape == (3, 2) and sim.ids[-1] == 2
    assert sim.masses[-1] == pytest.approx(1000.0 * np.pi * 0.03**2, rel=1e-5)
    sim.step(10)
    assert sim.positions[2] == pytest.approx([0.5, 0.801], abs=1e-6)
    with pytest.raises(hourglass.HourglassError, match="velocities"):
        sim.velocities = np.zeros((2, 3))
    with pytest.raises(hourglass.HourglassError, match="overlap"):
        sim.add_grains(np.array([[0.35, 0.5]]), np.array([0.02]))


def test_a_bad_scene_raises_with_the_cli_line(scene, cli):
    bad = scene("version = 1\n[solver]\ntol = -1.0\n", name="bad.toml")
    with pytest.raises(hourglass.HourglassError) as e:
        hourglass.Simulation.from_scene(str(bad))
    r = cli("run", bad, "--out", bad.parent / "out", check=False)
    assert r.returncode != 0
    line = r.stderr.strip().splitlines()[-1]
    assert line == "hourglass: " + str(e.value)
    assert "solver.tol" in str(e.value) and "\n" not in str(e.value)


def test_overrides_are_checked_and_named():
    with pytest.raises(hourglass.HourglassError, match="`solver.tolx`"):
        hourglass.Simulation.from_scene(None, **{"solver.tolx": 1e-5})
    with pytest.raises(hourglass.HourglassError, match="`tol`"):
        hourglass.Simulation.from_scene(None, tol="fine")
    with pytest.raises(hourglass.HourglassError, match="not a setting"):
        hourglass.Simulation.from_scene(None, speed=3)
    with pytest.raises(hourglass.HourglassError, match="backend"):
        hourglass.Simulation.from_scene(None, backend="tpu")
    sim = hourglass.Simulation.from_scene(None, grains=150, **{"solver.tol": 5e-6}, solver="jacobi")
    assert sim.solver == "jacobi" and len(sim.radii) == 150
    import tomllib

    assert tomllib.loads(sim.scene_toml)["solver"]["tol"] == 5e-6


def test_run_writes_a_result_directory_read_result_reads_back(tmp_path):
    sim = hourglass.Simulation.from_scene(None, backend="cpu", grains=200, settle=0.05, every=25)
    s = sim.run(duration=0.1, out=tmp_path / "r")
    assert s["grains"] == 200 and s["lost_grains"] == 0 and s["completed"]
    r = hourglass.read_result(tmp_path / "r")
    assert r["summary"]["steps"] == s["steps"]
    assert len(r["frames"]) == len(r["times"]) >= 2
    f = r["frames"][-1]
    assert f["positions"].shape == (200, 2) and f["radii"].shape == (200,)
    assert np.array_equal(f["ids"], np.arange(200))
    # The last frame is the simulation's state.
    assert np.allclose(f["positions"], sim.positions, atol=1e-6)
    assert r["walls"].shape[1:] == (2, 2)
    d = r["diagnostics"]
    assert d["time"][-1] == pytest.approx(s["sim_time"], abs=1e-6)
    # A directory that is not ours is refused, and nothing in it is touched.
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(hourglass.HourglassError):
        sim.run(duration=0.01, out=other)
    assert (other / "notes.txt").read_text() == "keep me"


def test_a_velocity_write_keeps_the_noise_stream_across_substeps(scene):
    # Fast grains in a box: every step is split into substeps, each drawing
    # its own forcing kicks from the backend's step count. Writing the
    # velocities back unchanged rebuilds the backend; the run must go on as
    # if nothing happened (same draws, same motion).
    path = scene(
        """
version = 1
gravity = [0.0, 0.0]
[walls]
segments = [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]
[grains]
density = 1000.0
seed = 3
list = [[0.2, 0.5, 3.0, 0.5, 0.02], [0.5, 0.3, -2.0, 1.0, 0.02], [0.7, 0.7, 0.5, -3.0, 0.02]]
[solver]
kind = "nlgs"
dt = 1e-2
alert = 0.01
[forcing]
sigma = 0.5
"""
    )
    a = hourglass.Simulation.from_scene(str(path))
    b = hourglass.Simulation.from_scene(str(path))
    a.step(3)
    a.velocities = a.velocities
    a.step(3)
    b.step(6)
    assert np.array_equal(a.positions, b.positions)
    assert np.array_equal(a.velocities, b.velocities)
    # The noise acted: the speeds are no longer the initial ones.
    assert not np.allclose(np.linalg.norm(b.velocities, axis=1), np.linalg.norm([[3.0, 0.5], [-2.0, 1.0], [0.5, -3.0]], axis=1))


def test_added_grains_take_the_scene_mass(scene):
    path = scene(
        """
version = 1
gravity = [0.0, 0.0]
[walls]
segments = [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]
[grains]
mass = 0.25
list = [[0.3, 0.5, 0.0, 0.0, 0.02]]
[solver]
kind = "nlgs"
"""
    )
    sim = hourglass.Simulation.from_scene(str(path))
    sim.add_grains(np.array([[0.6, 0.5]]), np.array([0.05]))
    assert sim.masses == pytest.approx([0.25, 0.25], rel=1e-6)


def test_read_result_reads_a_3d_run_as_arrays_of_three(tmp_path, cli):
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "pile"
    cli("run", root / "scenes" / "3d" / "pile_box.toml", "--duration", "2", "--every", "500", "-q", "--out", out)
    r = hourglass.read_result(out)
    assert r["dimension"] == 3
    assert len(r["frames"]) == len(r["times"]) == 5
    f = r["frames"][-1]
    n = len(f["ids"])
    assert n > 0 and np.array_equal(f["ids"], np.arange(n))
    for key in ("positions", "velocities", "angular_velocities"):
        assert f[key].shape == (n, 3) and f[key].dtype == np.float64, key
    assert f["orientations"].shape == (n, 4)
    assert np.allclose(np.linalg.norm(f["orientations"], axis=1), 1.0, atol=1e-5)
    assert "angles" not in f
    # The last frame is the saved state, exactly (both hold f32 values).
    state = json.loads((out / "state.json").read_text())
    order = np.argsort(state["grains"]["id"], kind="stable")
    saved = np.array(state["grains"]["pos"], dtype=np.float32)[order]
    assert np.array_equal(f["positions"].astype(np.float32), saved)
    # The box's floor and four sides, each a polygon of four corners in 3D.
    assert len(r["walls"]) == 5 and all(w.shape == (4, 3) for w in r["walls"])
    assert r["diagnostics"]["momentum_z"].shape == r["diagnostics"]["time"].shape


def test_a_3d_scene_steps_with_arrays_of_three(tmp_path):
    """A scene of spheres (dimension = 3) runs through the same Simulation:
    (N, 3) positions, velocities and spins, masses of spheres, 3D walls and
    contacts, momentum_z; velocities and new spheres are set as (K, 3)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    silo = str(root / "scenes" / "3d" / "silo.toml")
    sim = hourglass.Simulation.from_scene(silo, grains=60, solver="jacobi", settle=0.0)
    assert sim.dimension == 3 and sim.solver == "jacobi"
    n = 60
    for key in ("positions", "velocities", "angular_velocities"):
        a = getattr(sim, key)
        assert a.shape == (n, 3) and a.dtype == np.float64, key
    # rho 4/3 pi r^3: a sphere's mass (kg), not a disk's per metre.
    r, m = sim.radii, sim.masses
    assert np.allclose(m, 2500.0 * 4.0 / 3.0 * np.pi * r**3, rtol=1e-5)
    walls = sim.walls
    assert isinstance(walls, list) and all(w.ndim == 2 and w.shape[1] == 3 for w in walls)
    y0 = sim.positions[:, 1].copy()
    sim.step(20)
    assert sim.steps == 20 and sim.time == pytest.approx(20 * sim.dt)
    # Gravity along -y: the spheres fall (behind the closed gate).
    assert sim.positions[:, 1].mean() < y0.mean()
    d = sim.diagnostics()
    assert d["grains"] == n and "momentum_z" in d and d["lost"] == 0
    c = sim.contacts()
    assert c["normal"].shape == (len(c["gap"]), 3)
    assert np.allclose(np.linalg.norm(c["normal"], axis=1), 1.0, atol=1e-5)
    # Velocities are set as (N, 3); a plane's (N, 2) is refused by shape.
    v = np.zeros((n, 3))
    v[:, 2] = 0.01
    sim.velocities = v
    assert np.allclose(sim.velocities[:, 2], 0.01)
    with pytest.raises(hourglass.HourglassError, match=r"velocities.*\(60, 3\)"):
        sim.velocities = np.zeros((n, 2))
    # A sphere added at the top of the silo, with its own id.
    top = sim.positions[:, 1].max() + 0.02
    sim.add_grains(np.array([[0.0, top, 0.0]]), np.array([0.003]), np.array([[0.0, -0.1, 0.0]]))
    assert sim.positions.shape == (n + 1, 3) and sim.ids[-1] == n
    assert sim.velocities[-1] == pytest.approx([0.0, -0.1, 0.0])
    sim.open_gate()
    summary = sim.run(steps=10, out=str(tmp_path / "silo"))
    assert summary["steps"] == 10
    assert hourglass.read_result(tmp_path / "silo")["dimension"] == 3
