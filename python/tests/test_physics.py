"""Physics through the Python API."""

import math

import numpy as np
import pytest

import hourglass

BOX = "[[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]"


def test_inelastic_collision_of_equal_grains_halves_the_kinetic_energy(scene):
    path = scene(
        f"""
version = 1
gravity = [0.0, 0.0]
[walls]
segments = {BOX}
[grains]
density = 1000.0
list = [[0.3, 0.5, 0.8, 0.0, 0.02], [0.6, 0.5, 0.0, 0.0, 0.02]]
[solver]
kind = "nlgs"
dt = 1e-4
tol = 1e-9
"""
    )
    sim = hourglass.Simulation.from_scene(str(path))
    m, v = sim.masses, sim.velocities
    ke0 = 0.5 * (m * (v**2).sum(axis=1)).sum()
    p0 = (m[:, None] * v).sum(axis=0)
    sim.step(4000)  # 0.4 s: they meet after 0.325 s
    v = sim.velocities
    ke = 0.5 * (m * (v**2).sum(axis=1)).sum()
    assert ke == pytest.approx(0.5 * ke0, rel=1e-4)
    assert (m[:, None] * v).sum(axis=0) == pytest.approx(p0, abs=1e-6 * abs(p0[0]))
    # They leave together (to the solver's tolerance: 2e-4 m/s measured).
    assert v[0] == pytest.approx(v[1], abs=1e-3 * 0.4)
    assert v[0][0] == pytest.approx(0.4, rel=1e-3)


def test_a_grain_on_a_frictionless_slope_accelerates_at_g_sin_a(scene):
    a = math.radians(30.0)
    r = 0.01
    # A slope through the origin, the grain resting on it near the top.
    top = (0.9 * math.cos(a), 0.9 * math.sin(a))
    n = (-math.sin(a), math.cos(a))
    x0 = (top[0] + 1.00001 * r * n[0], top[1] + 1.00001 * r * n[1])
    path = scene(
        f"""
version = 1
gravity = [0.0, -9.81]
[walls]
segments = [[0.0, 0.0, {math.cos(a):.12f}, {math.sin(a):.12f}]]
[grains]
density = 1000.0
list = [[{x0[0]:.12f}, {x0[1]:.12f}, 0.0, 0.0, {r}]]
[solver]
kind = "nlgs"
dt = 1e-3
tol = 1e-9
"""
    )
    sim = hourglass.Simulation.from_scene(str(path))
    t = 0.2
    sim.step(int(round(t / sim.dt)))
    v = sim.velocities[0]
    speed = float(np.hypot(*v))
    assert speed == pytest.approx(9.81 * math.sin(a) * t, rel=0.01)
    # Down the slope, not into it.
    assert v[0] < 0 and v[1] < 0
    assert abs(v[0] * n[0] + v[1] * n[1]) < 1e-3 * speed


def test_a_grain_rides_a_rising_floor_stepped_from_python(scene):
    path = scene(
        """
version = 1
[walls]
segments = [[-1.0, 0.0, 3.0, 0.0]]
[grains]
list = [[0.0, 0.003, 0.0, 0.0, 0.003]]
[[motion]]
translate = { velocity = [0.0, 0.05] }
end = 1.0
"""
    )
    sim = hourglass.Simulation.from_scene(str(path))
    sim.step(200)
    t = sim.time
    # The floor is at 0.05 t and the grain rests on it, rising at its speed.
    assert sim.positions[0][1] == pytest.approx(0.05 * t + 0.003, abs=2e-5)
    assert sim.velocities[0][1] == pytest.approx(0.05, abs=1e-4)
    # The walls Python sees are where they are now.
    assert sim.walls[0][0][1] == pytest.approx(0.05 * t, abs=1e-6)


def test_a_grain_crossing_the_periodic_boundary_comes_back_with_its_velocity(scene, tmp_path):
    path = scene(
        """
version = 1
gravity = [0.0, 0.0]
[walls]
segments = [[-0.1, -0.01, 0.2, -0.01]]
periodic_x = [0.0, 0.1]
[grains]
list = [[0.095, 0.0, 0.5, 0.0, 0.003]]
[solver]
dt = 1e-3
[run]
settle = 0.0
every = 10
"""
    )
    sim = hourglass.Simulation.from_scene(str(path))
    summary = sim.run(steps=40, out=tmp_path / "p")
    r = hourglass.read_result(tmp_path / "p")
    # 40 steps at 0.5 m/s carry it 0.095 -> past 0.1, wrapped into [0, 0.1).
    x = r["frames"][-1]["positions"][0][0]
    assert 0.0 <= x < 0.1 and x == pytest.approx(0.095 + 0.5 * summary["sim_time"] - 0.1, abs=1e-6)
    assert r["frames"][-1]["velocities"][0][0] == pytest.approx(0.5, abs=1e-9)
    assert r["period"] == pytest.approx((0.0, 0.1))
    plain = scene("version = 1\n[grains]\ncount = 50\n", name="plain.toml")
    hourglass.Simulation.from_scene(str(plain)).run(steps=2, out=tmp_path / "q")
    assert hourglass.read_result(tmp_path / "q", frames=False)["period"] is None
