"""A sweep over neck widths fitted with Beverloo's law (2D):

    W = C rho_2D sqrt(g) (D - k d)^(3/2)

W the mass flow rate (kg/s per metre of thickness), D the neck width, d the
mean grain diameter. W^(2/3) is linear in D, so numpy's straight-line fit
gives k (where the line meets zero) and C (its slope). The exponent is then
fitted too, W = C (D/d - k)^b: once with the usual k = 1.5 and once with k
free (3/2 in theory).

The rate is the least-squares slope of the grains passed against time over
the rows where 10-50 % of the grains have passed (past the start-up, while
the bulb is full), or up to the end of a run that stops short of 50 %.

    python examples/beverloo.py [--mu 0.4] [--necks 5,7,9,11] [--grains 2000] [--duration 2.0]

`--mu` sets the Coulomb friction between grains and against the walls
(scene keys solver.mu and solver.mu_wall); 0 runs frictionless grains.
"""

import argparse

import numpy as np

import hourglass


def flow_rate(neck, grains, duration, backend, mu):
    """Grains per second through a neck of `neck` mean diameters, and the scene's numbers."""
    sim = hourglass.Simulation.from_scene(
        None, backend=backend, grains=grains, neck=neck, settle=0.2, mu=mu, **{"solver.mu_wall": mu}
    )
    sim.step(int(round(0.2 / sim.dt)))
    sim.open_gate()
    t0, times, passed = sim.time, [], []
    while sim.time - t0 < duration - 1e-9:
        sim.step(10)
        times.append(sim.time - t0)
        passed.append(sim.diagnostics()["passed"])
    times, passed = np.array(times), np.array(passed, dtype=float)
    keep = (passed >= 0.1 * grains) & (passed <= 0.5 * grains)
    if keep.sum() < 2:
        raise SystemExit(f"neck {neck} d: {passed[-1]:.0f} of {grains} passed, too few to fit a rate")
    rate = np.polyfit(times[keep], passed[keep], 1)[0]
    d = 2.0 * sim.radii.mean()
    return rate, d, sim.masses.mean(), passed[-1]


def exponent(x, w, k):
    """b and C of the least-squares line log W = log C + b log(x - k)."""
    b, logc = np.polyfit(np.log(x - k), np.log(w), 1)
    return b, np.exp(logc)


def exponent_free_k(x, w):
    """(k, b) of W = C (x - k)^b with k free: the k (on a 0.01 grid from -10
    to just below the narrowest neck) whose log-log line leaves the least
    squared residual; None for k at an end of the grid (no minimum inside)."""
    best = None
    grid = np.arange(-10.0, x.min() - 0.05, 0.01)
    for k in grid:
        b, c = exponent(x, w, k)
        res = ((np.log(w) - np.log(c) - b * np.log(x - k)) ** 2).sum()
        if best is None or res < best[0]:
            best = (res, k, b)
    if best[1] in (grid[0], grid[-1]):
        return None
    return best[1], best[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--necks", default="5,7,9,11", help="neck widths in mean diameters")
    ap.add_argument("--grains", type=int, default=2000)
    ap.add_argument("--duration", type=float, default=2.0, help="seconds after the gate opens")
    ap.add_argument("--mu", type=float, default=0.4, help="Coulomb friction, grains and walls")
    ap.add_argument("--backend", default="cpu")
    a = ap.parse_args()
    try:
        necks = [float(x) for x in a.necks.split(",")]
    except ValueError:
        ap.error(f"--necks: {a.necks!r} is not a comma-separated list of numbers")
    if len(necks) < 3 or min(necks) <= 0:
        ap.error("--necks: give three positive neck widths or more")
    if a.grains < 10 or a.duration <= 0 or a.mu < 0:
        ap.error("--grains must be 10 or more, --duration positive and --mu not negative")

    rows = []
    for n in necks:
        rate, d, m, last = flow_rate(n, a.grains, a.duration, a.backend, a.mu)
        rows.append((n * d, rate * m, d, rate))
        print(
            f"neck {n:5.2f} d = {n * d * 1e3:6.2f} mm: {rate:7.1f} grains/s, {rate * m:.4f} kg/s per m"
            f" ({last:.0f} passed in {a.duration:g} s)"
        )
    D = np.array([r[0] for r in rows])
    W = np.array([r[1] for r in rows])
    d = rows[0][2]
    y = W ** (2.0 / 3.0)
    slope, intercept = np.polyfit(D, y, 1)
    k = -intercept / slope / d
    r2 = 1.0 - ((y - (slope * D + intercept)) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    # Areal density of the packing is folded into C: W = C' sqrt(g) (D - k d)^(3/2).
    c = slope ** 1.5 / np.sqrt(9.81)
    print(f"Beverloo fit: k = {k:.2f} diameters, C' = {c:.1f} kg/m^2 (W = C' sqrt(g) (D - k d)^1.5), R^2 = {r2:.4f}")
    x = np.array(necks)
    if x.min() > 1.5:
        b15, _ = exponent(x, W, 1.5)
        print(f"exponent fit W = C (D/d - k)^b: k = 1.5 fixed: b = {b15:.2f}")
    free = exponent_free_k(x, W) if len(x) > 3 else None
    if free is None:
        print("exponent fit W = C (D/d - k)^b: k free: no fit (it takes four necks or more and a minimum inside k in [-10, D/d])")
    else:
        print(f"exponent fit W = C (D/d - k)^b: k free: k = {free[0]:.2f}, b = {free[1]:.2f}")
    return k


if __name__ == "__main__":
    main()
