"""Reading a result directory (``hourglass run --out DIR``) into numpy arrays."""

import csv
import json
from pathlib import Path

import numpy as np

from . import _core


def read_result(directory, frames=True):
    """Read a result directory.

    Returns a dict with
    - ``diagnostics``: one numpy array per diagnostics.csv column (``time``,
      ``passed``, ``kinetic_energy``, ...);
    - ``summary``: summary.json as a dict, or None for an interrupted run;
    - ``walls``: (M, 2, 2) wall segments as built (walls.vtp), m;
    - ``times``: (F,) frame times, s;
    - ``frames``: F dicts of arrays (``positions`` (N, 2), ``velocities``
      (N, 2), ``radii`` (N,), ``ids`` (N,), ``angular_velocities``,
      ``angles``), in grain-id order, and ``walls`` (M, 2, 2), where the
      walls stand at that frame (they differ from ``walls`` only when the
      walls move); an empty list when ``frames=False``;
    - ``period``: ``(xmin, xmax)`` of a periodic domain (``walls.periodic_x``),
      or None;
    - ``dimension``: 2, or 3 for a run of spheres (``dimension = 3``), whose
      frames hold ``positions``, ``velocities`` and ``angular_velocities``
      (N, 3) and ``orientations`` (N, 4) (unit quaternions w, x, y, z)
      instead of ``angles``, and whose ``walls`` are a list of (k, 3)
      polygons (walls.vtp's: the mesh triangles, each plane's polygon), the
      same at every frame.
    """
    directory = Path(directory)
    listed = _core.frame_list(str(directory))
    with open(directory / "diagnostics.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], [r for r in rows[1:] if r]
    table = np.array(body, dtype=np.float64).reshape(len(body), len(header))
    diagnostics = {name.strip(): table[:, k] for k, name in enumerate(header)}
    summary_path = directory / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else None
    dimension = _core.read_dimension(str(directory))
    if dimension == 3:
        walls = _core.read_walls3d(str(directory))
    else:
        walls = _core.read_walls(str(directory))
    out_frames = []
    if frames:
        for k, (_, path) in enumerate(listed):
            fr = _core.read_frame(str(path), dimension)
            order = np.argsort(fr["ids"], kind="stable")
            fr = {name: v[order] for name, v in fr.items()}
            fr["walls"] = walls if dimension == 3 else _core.read_walls(str(directory), frame=k)
            out_frames.append(fr)
    return {
        "diagnostics": diagnostics,
        "summary": summary,
        "walls": walls,
        "times": np.array([t for t, _ in listed], dtype=np.float64),
        "frames": out_frames,
        "period": _core.read_period(str(directory)),
        "dimension": dimension,
    }
