"""hourglass: a 2D granular-flow simulator (NSCD and DEM, GPU and CPU) from Python.

The Rust core does the work (``hourglass._core``); this package gives it a
Python face:

- :class:`Simulation`: a scene as ``hourglass run`` builds it, stepped on the
  CPU or GPU backend, with the grains as numpy arrays;
- :class:`GrainProblem`: the course's class (positions, velocities, radii,
  masses, boundary segments and disks, contacts) whose
  ``detect_contacts``, ``solve_contacts_nlgs`` and ``solve_contacts_jacobi``
  run the CPU reference's stages;
- :func:`read_result`: a result directory back as numpy arrays;
- :func:`sweep`: a parameter sweep run through any executor (local
  processes, Dask, Slurm), its table back (:func:`read_sweep` reads one).

Every error of the simulator is a :class:`HourglassError` whose message is
the line the CLI prints.
"""

import os as _os
import tempfile as _tempfile


def _private_runtime_dir():
    """Point XDG_RUNTIME_DIR at a private folder when it is unset or unusable,
    as the CLI does (src/main.rs): the graphics stack otherwise prints
    `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` on
    every GPU use. The folder is $TMPDIR/hourglass-runtime-<uid>, mode 0700,
    ours only; when it cannot be made safe the environment is left as it is."""
    d = _os.environ.get("XDG_RUNTIME_DIR")
    if d and _os.path.isabs(d) and _os.path.isdir(d):
        return
    uid = _os.getuid()
    path = _os.path.join(_tempfile.gettempdir(), f"hourglass-runtime-{uid}")
    try:
        _os.makedirs(path, exist_ok=True)
        st = _os.lstat(path)
        import stat as _stat

        if not _stat.S_ISDIR(st.st_mode) or st.st_uid != uid:
            return
        _os.chmod(path, 0o700)
    except OSError:
        return
    _os.environ["XDG_RUNTIME_DIR"] = path


_private_runtime_dir()

from . import _core  # noqa: E402
from ._core import HourglassError, ResultWriter, Simulation
from .course import GrainProblem  # noqa: E402
from .results import read_result  # noqa: E402
from ._sweep import read_table as read_sweep  # noqa: E402
from ._sweep import sweep  # noqa: E402

__all__ = ["Simulation", "GrainProblem", "HourglassError", "ResultWriter", "read_result", "read_sweep", "sweep"]
__version__ = _core.__version__
