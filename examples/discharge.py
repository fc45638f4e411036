"""The bundled hourglass discharging, stepped from Python, with a plot of
the grains that passed the neck over time.

    python examples/discharge.py [--grains 2000] [--duration 3] [--out discharge.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import hourglass  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grains", type=int, default=2000)
    ap.add_argument("--duration", type=float, default=3.0, help="discharge, s")
    ap.add_argument("--settle", type=float, default=0.3, help="settle behind the gate, s")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--out", default="discharge.png")
    a = ap.parse_args()

    sim = hourglass.Simulation.from_scene(None, backend=a.backend, grains=a.grains)
    every = 20
    sim.step(int(round(a.settle / sim.dt)))
    sim.open_gate()
    t0 = sim.time
    times, passed = [0.0], [sim.diagnostics()["passed"]]
    while sim.time - t0 < a.duration - 1e-9:
        sim.step(every)
        d = sim.diagnostics()
        times.append(sim.time - t0)
        passed.append(d["passed"])
        if d["lost"]:
            raise SystemExit(f"{d['lost']} grains lost")
    times, passed = np.array(times), np.array(passed)

    # The steady part (20-80 % of what passed): a straight line, Beverloo's constant rate.
    steady = (passed >= 0.2 * passed[-1]) & (passed <= 0.8 * passed[-1])
    rate = np.polyfit(times[steady], passed[steady], 1)[0] if steady.sum() >= 3 else float("nan")

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(times, passed, label="grains below the neck")
    ax.set_xlabel("time since the gate opened (s)")
    ax.set_ylabel("grains passed")
    ax.set_title(f"{a.grains} grains, {sim.solver} on {sim.backend[0]}: {rate:.0f} grains/s")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print(f"{passed[-1]} of {a.grains} passed in {a.duration} s, steady rate {rate:.1f} grains/s; plot: {a.out}")


if __name__ == "__main__":
    main()
