"""A sweep over neck widths fitted with Beverloo's law (2D):

    W = C rho_2D sqrt(g) (D - k d)^(3/2)

W the mass flow rate (kg/s per metre of thickness), D the neck width, d the
mean grain diameter. W^(2/3) is linear in D, so numpy's straight-line fit
gives k (where the line meets zero) and C (its slope).

    python examples/beverloo.py [--necks 5,6.5,8,10] [--grains 1500] [--duration 1.0]
"""

import argparse

import numpy as np

import hourglass


def flow_rate(neck, grains, duration, backend):
    """Grains per second through a neck of `neck` mean diameters, and the scene's numbers."""
    sim = hourglass.Simulation.from_scene(None, backend=backend, grains=grains, neck=neck, settle=0.2)
    sim.step(int(round(0.2 / sim.dt)))
    sim.open_gate()
    t0, times, passed = sim.time, [], []
    while sim.time - t0 < duration - 1e-9:
        sim.step(10)
        times.append(sim.time - t0)
        passed.append(sim.diagnostics()["passed"])
    times, passed = np.array(times), np.array(passed, dtype=float)
    # Past the start-up (the first 20 % of the window) and before the bulb runs dry.
    keep = (times > 0.2 * duration) & (passed < 0.9 * grains)
    rate = np.polyfit(times[keep], passed[keep], 1)[0]
    d = 2.0 * sim.radii.mean()
    return rate, d, sim.masses.mean()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--necks", default="5,6.5,8,10", help="neck widths in mean diameters")
    ap.add_argument("--grains", type=int, default=1500)
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--backend", default="cpu")
    a = ap.parse_args()
    necks = [float(x) for x in a.necks.split(",")]

    rows = []
    for n in necks:
        rate, d, m = flow_rate(n, a.grains, a.duration, a.backend)
        rows.append((n * d, rate * m, d))
        print(f"neck {n:5.2f} d = {n * d * 1e3:6.2f} mm: {rate:7.1f} grains/s, {rate * m:.4f} kg/s per m")
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
    return k


if __name__ == "__main__":
    main()
