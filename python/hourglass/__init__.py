"""hourglass: a 2D granular-flow simulator (NSCD and DEM, GPU and CPU) from Python.

The Rust core does the work (``hourglass._core``); this package gives it a
Python face:

- :class:`Simulation`: a scene as ``hourglass run`` builds it, stepped on the
  CPU or GPU backend, with the grains as numpy arrays;
- :class:`GrainProblem`: the course's class (positions, velocities, radii,
  masses, boundary segments and disks, contacts) whose
  ``detect_contacts``, ``solve_contacts_nlgs`` and ``solve_contacts_jacobi``
  run the CPU reference's stages;
- :func:`read_result`: a result directory back as numpy arrays.

Every error of the simulator is a :class:`HourglassError` whose message is
the line the CLI prints.
"""

from . import _core
from ._core import HourglassError, ResultWriter, Simulation
from .course import GrainProblem
from .results import read_result

__all__ = ["Simulation", "GrainProblem", "HourglassError", "ResultWriter", "read_result"]
__version__ = _core.__version__
