"""Beverloo's law (2D) from a sweep over neck widths, several seeds each:

    W = C sqrt(g) (D - k d)^(3/2)

W the flow rate (grains per second here), D the neck width, d the mean grain
diameter. W^(2/3) is linear in D, so numpy's straight-line fit gives k (where
the line meets zero) and C (its slope). The exponent is then fitted too,
W = C (D/d - k)^b: once with the usual k = 1.5 and once with k free (3/2 in
theory).

The runs are one sweep (`hourglass.sweep`, docs/sweeps.md): the bundled
hourglass, the neck in mean diameters by seeds, on local worker processes
(`--workers`). Each run is a result directory under OUT/runs/; the fit and
the plot read OUT/results.csv, whose flow rate is each run's own (the
slope of grains passed over 20-80 % of what passed, summary.json). A run
without a rate jammed (an arch held over the neck, frequent at 5 d with
friction): it is counted, and left out of the neck's mean. Running the
same command again skips the finished runs.

    python examples/beverloo.py [--mu 0.4] [--necks 5,7,9,11] [--seeds 2]
        [--grains 2000] [--duration 2.0] [--workers N] [--out beverloo]
        [--plot beverloo.png]

`--mu` sets the Coulomb friction between grains and against the walls
(scene keys solver.mu and solver.mu_wall); 0 runs frictionless grains.
"""

import argparse
import sys

import numpy as np

import hourglass


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


def spec(a, necks):
    """The sweep: the bundled hourglass, necks by seeds."""
    return {
        "version": 1,
        "replicas": a.seeds,
        "set": {
            "grains.count": a.grains,
            "solver.mu": a.mu,
            "solver.mu_wall": a.mu,
            "run.settle": 0.2,
        },
        "run": {"duration": a.duration, "backend": a.backend},
        "grid": {"walls.hourglass.neck": necks},
    }


def plot(path, x, rate, necks, mean, std, k, c):
    """Every run (jammed ones at 0), the mean per neck and the 3/2 law fitted to it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4))
    ok = np.isfinite(rate)
    ax.plot(x[ok], rate[ok], "o", color="0.6", ms=4, label="each run")
    if (~ok).any():
        ax.plot(x[~ok], np.zeros((~ok).sum()), "x", color="C3", label="jammed (an arch)")
    ax.errorbar(necks, mean, yerr=std, fmt="s", color="C0", capsize=3, label="mean of the seeds")
    xs = np.linspace(max(k, 0.0), max(necks) * 1.05, 200)
    ax.plot(xs, c * np.clip(xs - k, 0, None) ** 1.5, "C1-", label=f"W = C (D/d - {k:.2f})^1.5")
    ax.set_xlabel("neck width D / d")
    ax.set_ylabel("flow rate W (grains/s)")
    ax.set_title("Beverloo's law, bundled hourglass")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--necks", default="5,7,9,11", help="neck widths in mean diameters")
    ap.add_argument("--seeds", type=int, default=2, help="runs per neck, grains.seed 1, 2, ...")
    ap.add_argument("--grains", type=int, default=2000)
    ap.add_argument("--duration", type=float, default=2.0, help="seconds after the gate opens")
    ap.add_argument("--mu", type=float, default=0.4, help="Coulomb friction, grains and walls")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--workers", type=int, default=None, help="runs at a time (default: the cores)")
    ap.add_argument("--out", default="beverloo", help="the sweep directory")
    ap.add_argument("--plot", default=None, help="write the figure to this PNG")
    a = ap.parse_args()
    try:
        necks = [float(x) for x in a.necks.split(",")]
    except ValueError:
        ap.error(f"--necks: {a.necks!r} is not a comma-separated list of numbers")
    if len(necks) < 3 or min(necks) <= 0:
        ap.error("--necks: give three positive neck widths or more")
    if a.grains < 10 or a.duration <= 0 or a.mu < 0 or a.seeds < 1:
        ap.error("--grains must be 10 or more, --duration positive, --mu not negative, --seeds 1 or more")

    try:
        hourglass.sweep(spec(a, necks), out=a.out, workers=a.workers)
    except hourglass.HourglassError as e:
        sys.exit(f"beverloo: {e}")
    # Everything below reads the table, as any later analysis of the sweep would.
    t = hourglass.read_sweep(f"{a.out}/results.csv")
    failed = [i for i, s in zip(t["id"], t["status"]) if s != "done"]
    if failed:
        sys.exit(f"beverloo: runs {', '.join(failed)} failed (see {a.out}/results.csv)")
    x, rate = np.asarray(t["walls.hourglass.neck"]), np.asarray(t["flow_rate"])
    # A run with no rate jammed: an arch held over the neck (too few grains passed to fit).
    flowing = np.isfinite(rate)
    d = 2.0 * np.asarray(t["radius_mean"]).mean()
    for n in necks:
        r = rate[(x == n) & flowing]
        jammed = int(((x == n) & ~flowing).sum())
        note = f", {jammed} jammed" if jammed else ""
        if len(r):
            print(f"neck {n:5.2f} d = {n * d * 1e3:6.2f} mm: {r.mean():7.1f} grains/s (+- {r.std():.1f} over {len(r)} runs{note})")
        else:
            print(f"neck {n:5.2f} d = {n * d * 1e3:6.2f} mm: every run jammed")
    necks = [n for n in necks if ((x == n) & flowing).any()]
    if len(necks) < 3:
        sys.exit("beverloo: fewer than three necks flowed, too few to fit (widen --necks or lengthen --duration)")
    mean = np.array([rate[(x == n) & flowing].mean() for n in necks])
    std = np.array([rate[(x == n) & flowing].std() for n in necks])
    D = np.array(necks) * d
    y = mean ** (2.0 / 3.0)
    slope, intercept = np.polyfit(D, y, 1)
    k = -intercept / slope / d
    r2 = 1.0 - ((y - (slope * D + intercept)) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    c = (slope * d) ** 1.5
    print(f"Beverloo fit: k = {k:.2f} diameters, C = {c:.1f} s^-1 (W = C (D/d - k)^1.5), R^2 = {r2:.4f}")
    xn = np.array(necks)
    if xn.min() > 1.5:
        b15, _ = exponent(xn, mean, 1.5)
        print(f"exponent fit W = C (D/d - k)^b: k = 1.5 fixed: b = {b15:.2f}")
    free = exponent_free_k(xn, mean) if len(xn) > 3 else None
    if free is None:
        print("exponent fit W = C (D/d - k)^b: k free: no fit (it takes four necks or more and a minimum inside k in [-10, D/d])")
    else:
        print(f"exponent fit W = C (D/d - k)^b: k free: k = {free[0]:.2f}, b = {free[1]:.2f}")
    if a.plot:
        plot(a.plot, x, rate, necks, mean, std, k, c)
        print(f"figure: {a.plot}")
    return k


if __name__ == "__main__":
    main()
