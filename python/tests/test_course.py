"""The course's GrainProblem: its three methods, and agreement with the CLI."""

import numpy as np
import pytest

import hourglass

COLUMN = """
version = 1
gravity = [0.0, -9.81]
[walls]
segments = [[-1.0, 0.0, 1.0, 0.0], [-0.05, 0.0, -0.05, 2.0], [0.05, 0.0, 0.05, 2.0]]
[grains]
density = 1000.0
list = [
  [0.0, 0.031, 0.0, 0.0, 0.03],
  [0.0, 0.095, 0.0, 0.0, 0.03],
  [0.0, 0.160, 0.0, 0.0, 0.03],
  [0.0, 0.230, 0.0, 0.0, 0.03],
  [0.0, 0.300, 0.0, 0.0, 0.03],
  [0.0, 0.380, 0.0, 0.0, 0.03],
]
[solver]
kind = "nlgs"
dt = 1e-3
tol = 1e-7
alert = 0.01
[run]
duration = 0.6
every = 100
"""


def course_loop(problem, steps, dt, alert, tol, solve):
    g = np.asarray(problem.gravity)
    for _ in range(steps):
        problem.detect_contacts(alert)
        problem.velocities += dt * g
        solve(tol, dt)
        problem.positions += dt * problem.velocities


def test_grain_problem_and_the_cli_agree_on_a_settling_column(scene, cli, tmp_path):
    path = scene(COLUMN)
    cli("run", path, "--backend", "cpu", "--out", tmp_path / "cli", "--quiet")
    final = hourglass.read_result(tmp_path / "cli")["frames"][-1]
    problem = hourglass.GrainProblem.from_scene(str(path))
    assert problem.dt == pytest.approx(1e-3) and problem.alert == pytest.approx(0.01)
    course_loop(problem, 600, problem.dt, problem.alert, 1e-7, problem.solve_contacts_nlgs)
    # The column has come to rest stacked: centres 2 r apart from r up.
    want_y = 0.03 + 0.06 * np.arange(6)
    assert problem.positions[:, 1] == pytest.approx(want_y, abs=2e-5)
    assert final["positions"][:, 1] == pytest.approx(want_y, abs=2e-5)
    assert problem.positions == pytest.approx(final["positions"], abs=2e-5)
    assert np.abs(problem.velocities).max() < 1e-3
    # Each contact carries the weight above it: P = (grains above + 1) m g dt.
    m = problem.masses[0]
    floor = [c for c in problem.contacts if c.type == hourglass.course.CONTACT_SEGMENT and c.i == 0]
    assert len(floor) == 1
    assert floor[0].impulse == pytest.approx(6 * m * 9.81 * 1e-3, rel=1e-3)


def test_jacobi_and_nlgs_keep_grains_apart_and_fixed_disks_hold():
    # Two grains falling onto a fixed boundary disk, side by side.
    r = 0.01
    problem = hourglass.GrainProblem(
        positions=[[0.0, 0.05], [0.05, 0.05]],
        velocities=[[0.0, -0.5], [0.0, -0.5]],
        radii=[r, r],
        masses=[0.1, 0.1],
        segments=[[[-0.1, 0.0], [0.2, 0.0]]],
        disks=[[0.0, 0.01, 0.01]],
    )
    dt = 1e-3
    for step in range(300):
        problem.detect_contacts(0.005)
        problem.velocities[:, 1] -= 9.81 * dt
        if step % 2:
            problem.solve_contacts_jacobi(1e-7, dt)
        else:
            problem.solve_contacts_nlgs(1e-7, dt)
        problem.positions += dt * problem.velocities
    p = problem.positions
    # Grain 0 sits on the disk, grain 1 on the floor: no overlap beyond tol.
    assert np.hypot(*(p[0] - [0.0, 0.01])) >= 2 * r - 1e-5
    assert p[1][1] >= r - 1e-5
    assert p[1][1] == pytest.approx(r, abs=1e-5)
    kinds = {c.type for c in problem.contacts}
    assert hourglass.course.CONTACT_DISK in kinds and hourglass.course.CONTACT_SEGMENT in kinds


def test_methods_check_their_input():
    problem = hourglass.GrainProblem([[0.0, 0.0]], [[0.0, 0.0]], [0.01], [1.0])
    with pytest.raises(hourglass.HourglassError, match="detect_contacts"):
        problem.solve_contacts_nlgs(1e-6, 1e-3)
    problem.detect_contacts(0.01)
    with pytest.raises(hourglass.HourglassError, match="tol"):
        problem.solve_contacts_nlgs(-1.0, 1e-3)
    problem.radii[0] = -1.0
    with pytest.raises(hourglass.HourglassError, match=r"radii\[0\]"):
        problem.detect_contacts(0.01)
