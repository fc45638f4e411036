"""The course's run script, ported to hourglass.GrainProblem.

The course's script builds a grain problem, then at every step detects the
contacts, adds gravity to get the free velocities, solves the contacts and
moves the grains, writing a result directory that an animate script
replays. Here the problem is hourglass's `GrainProblem` (the same
attributes and methods, run by the Rust stages) and the result directory is
the one `hourglass run` writes, so `hourglass view DIR`, `hourglass render
DIR` and `hourglass plot DIR` open it.

    python examples/course_run.py [SCENE] [--grains 500] [--duration 1.0] [--out result_course]
"""

import argparse
import time

import numpy as np

import hourglass


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scene", nargs="?", default=None, help="scene file (default: the bundled hourglass)")
    ap.add_argument("--grains", type=int, default=None, help="grains of the fill (default: the scene's)")
    ap.add_argument("--duration", type=float, default=1.0, help="simulated time, s")
    ap.add_argument("--dt", type=float, default=None, help="time step, s (default: the scene's)")
    ap.add_argument("--tol", type=float, default=1e-6, help="solver tolerance, m")
    ap.add_argument("--alert", type=float, default=None, help="alert distance, m (default: the scene's)")
    ap.add_argument("--solver", choices=["nlgs", "jacobi"], default="nlgs")
    ap.add_argument("--every", type=int, default=20, help="steps between frames")
    ap.add_argument("--out", default="result_course")
    ap.add_argument("--force", action="store_true", help="reuse an output directory hourglass wrote")
    a = ap.parse_args(argv)

    overrides = {} if a.grains is None else {"grains": a.grains}
    problem = hourglass.GrainProblem.from_scene(a.scene, **overrides)
    dt = a.dt or problem.dt
    alert = a.alert or problem.alert
    gravity = np.asarray(problem.gravity)
    solve = problem.solve_contacts_nlgs if a.solver == "nlgs" else problem.solve_contacts_jacobi

    out = hourglass.ResultWriter(a.out, problem.segments.reshape(-1, 4), gravity=tuple(gravity), force=a.force)
    n_steps = int(round(a.duration / dt))
    start = time.perf_counter()
    iterations = 0
    for n in range(n_steps + 1):
        if n % a.every == 0 or n == n_steps:
            t = n * dt
            out.frame(t, problem.positions, problem.velocities, problem.radii)
            out.row(n, t, problem.positions, problem.velocities, problem.radii, problem.masses,
                    contacts=len(problem.contacts), iterations=iterations / max(n, 1))
        if n == n_steps:
            break
        problem.detect_contacts(alert)
        problem.velocities += dt * gravity  # free velocity
        iterations += solve(a.tol, dt)
        problem.positions += dt * problem.velocities
    wall = time.perf_counter() - start
    out.finish(n_steps, n_steps * dt, wall_seconds=wall, solver=a.solver)
    print(f"{problem.n_grains} grains, {n_steps} steps of {dt:g} s in {wall:.1f} s "
          f"({iterations / max(n_steps, 1):.1f} iterations per step); wrote {a.out}")


if __name__ == "__main__":
    main()
