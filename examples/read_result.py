"""Read a result directory (from `hourglass run --out DIR`) back into numpy arrays.

    python examples/read_result.py DIR
"""

import sys

import numpy as np

import hourglass


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "result"
    r = hourglass.read_result(directory)
    d = r["diagnostics"]
    print(f"{len(d['time'])} diagnostics rows, columns: {', '.join(d)}")
    print(f"{len(r['frames'])} frames from t = {r['times'][0]:.3f} to {r['times'][-1]:.3f} s, {len(r['walls'])} wall segments")
    first, last = r["frames"][0], r["frames"][-1]
    print(f"{len(first['radii'])} grains; mean height {first['positions'][:, 1].mean():.4f} m -> {last['positions'][:, 1].mean():.4f} m")
    speed = np.linalg.norm(last["velocities"], axis=1)
    print(f"last frame: fastest grain {speed.max():.3f} m/s, kinetic energy {d['kinetic_energy'][-1]:.3e} J/m")
    if r["summary"] is None:
        print("no summary.json: the run did not finish")
    else:
        s = r["summary"]
        print(f"summary: {s['passed']} passed, {s['lost_grains']} lost, {s['steps']} steps, solver {s['solver']}")


if __name__ == "__main__":
    main()
