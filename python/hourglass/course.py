"""The course's ``grain_problem``, backed by the Rust stages.

The course hands students a class holding the grains (positions,
velocities, radii, masses), the boundary (segments and fixed disks) and a
list of contacts, and asks for three methods: ``detect_contacts(alert)``,
``solve_contacts_nlgs(tol, dt, itmax=1000)`` and
``solve_contacts_jacobi(tol, dt, itmax=1000)``. :class:`GrainProblem` has
the same attributes and methods, run by the CPU reference of hourglass
(``cpu::detect``, ``cpu::nlgs``, ``cpu::jacobi``), so a course run script
works with it in place of a hand-written class::

    for step in range(n_steps):
        problem.detect_contacts(alert)
        problem.velocities += dt * gravity          # free velocity
        problem.solve_contacts_nlgs(tol, dt)        # contacts act
        problem.positions += dt * problem.velocities
"""

from collections import namedtuple

import numpy as np

from . import _core

#: Contact kinds (``Contact.type``).
CONTACT_GRAIN = 0
CONTACT_SEGMENT = 1
CONTACT_DISK = 2
#: A segment's end point (a corner of the boundary).
CONTACT_CORNER = 3

#: One contact: grain ``i`` touches body ``j`` (a grain index, a segment
#: index, a boundary disk index or a corner index, as ``type`` says);
#: ``normal`` points from ``j`` towards ``i``; ``d`` is the gap (m, < 0 is
#: an overlap); ``impulse`` the normal impulse of the last solve (N s per m).
Contact = namedtuple("Contact", ["i", "j", "normal", "d", "type", "impulse"])


def _pairs(a, name):
    a = np.asarray(a, dtype=np.float64)
    if a.size == 0:
        return a.reshape(0, 2)
    if a.ndim != 2 or a.shape[1] != 2:
        raise _core.HourglassError(f"python: `{name}` must have shape (N, 2), got {a.shape}")
    return a


class GrainProblem:
    """Grains, boundary and contacts of the course's problem.

    Attributes (numpy arrays, float64, SI units, changed freely by the run
    script between calls):

    - ``positions`` (N, 2), ``velocities`` (N, 2), ``radii`` (N,),
      ``masses`` (N,) (kg per metre of thickness);
    - ``segments`` (M, 2, 2): boundary segments [[x0, y0], [x1, y1]];
    - ``disks`` (K, 3): fixed boundary disks (x, y, r);
    - ``contacts``: the list of :data:`Contact` of the last detection (with
      the impulses of the last solve).
    """

    def __init__(self, positions, velocities, radii, masses, segments=(), disks=()):
        self.positions = _pairs(positions, "positions").copy()
        self.velocities = _pairs(velocities, "velocities").copy()
        self.radii = np.asarray(radii, dtype=np.float64).copy()
        self.masses = np.asarray(masses, dtype=np.float64).copy()
        self.segments = np.asarray(segments, dtype=np.float64).reshape(-1, 2, 2).copy()
        self.disks = np.asarray(disks, dtype=np.float64).reshape(-1, 3).copy()
        self._contacts = []
        #: Set by :meth:`from_scene` (the scene's values); None otherwise.
        self.dt = self.alert = self.gravity = None
        self._stages = _core.Stages()
        self._arrays = None

    @classmethod
    def from_scene(cls, path=None, **overrides):
        """The grains and walls of a scene (None: the bundled hourglass),
        with the gate open; ``overrides`` as for ``Simulation.from_scene``."""
        from . import Simulation

        sim = Simulation.from_scene(path, backend="cpu", **overrides)
        sim.open_gate()
        problem = cls(sim.positions, sim.velocities, sim.radii, sim.masses, segments=sim.walls)
        # The scene's step, alert distance and gravity, for the run script.
        problem.dt, problem.alert, problem.gravity = sim.dt, sim.alert, sim.gravity
        return problem

    @property
    def contacts(self):
        """The :data:`Contact` list of the last detection, with the impulses
        of the last solve (built when read: a run script that never looks at
        it pays nothing for it)."""
        if self._contacts is None:
            self._contacts = self._build_contacts()
        return self._contacts

    @contacts.setter
    def contacts(self, value):
        self._contacts = list(value)

    @property
    def n_grains(self):
        return len(self.radii)

    def detect_contacts(self, alert):
        """Find every grain-grain, grain-segment and grain-disk pair closer
        than ``alert`` (m); fills ``self.contacts``."""
        a = self._stages.detect(
            np.ascontiguousarray(self.positions),
            np.ascontiguousarray(self.radii),
            np.ascontiguousarray(self.masses),
            np.ascontiguousarray(self.segments.reshape(-1, 4)),
            np.ascontiguousarray(self.disks),
            float(alert),
        )
        self._arrays = a
        self._contacts = None
        return int(np.count_nonzero(a["grain"] < self.n_grains))

    def contact_arrays(self):
        """The contacts of the last detection as arrays (``grain``, ``other``,
        ``wall``, ``kind``, ``normal``, ``gap``, ``impulse``, ``impulse_t``;
        boundary disks are grains ``N..N+K``), without building the list."""
        return self._arrays

    def _build_contacts(self):
        a, n = self._arrays, self.n_grains
        if a is None:
            return []
        contacts = []
        for k in range(len(a["grain"])):
            i, kind = int(a["grain"][k]), int(a["kind"][k])
            if kind == 0:
                j = int(a["other"][k])
                t = CONTACT_GRAIN if j < n else CONTACT_DISK
                j = j if j < n else j - n
            else:
                j = int(a["wall"][k])
                t = CONTACT_SEGMENT if kind == 1 else CONTACT_CORNER
            if i >= n:
                # A boundary disk's own copy of a pair with a grain: listed from the grain.
                continue
            contacts.append(Contact(i, j, a["normal"][k].copy(), float(a["gap"][k]), t, float(a["impulse"][k])))
        return contacts

    def _solve(self, tol, dt, itmax, solver):
        if self._arrays is None:
            raise _core.HourglassError("python: call detect_contacts(alert) before solving the contacts")
        v, iterations, converged = self._stages.solve(
            np.ascontiguousarray(self.velocities), float(tol), float(dt), int(itmax), solver
        )
        self.velocities[...] = v
        self.iterations, self.converged = iterations, converged
        self._arrays = self._stages.contacts()
        self._contacts = None
        return iterations

    def solve_contacts_nlgs(self, tol, dt, itmax=1000):
        """Projected Gauss-Seidel: ``self.velocities`` (the free velocities)
        become the velocities after the contacts, to ``tol`` (m) per step
        ``dt`` (s). Returns the iterations taken."""
        return self._solve(tol, dt, itmax, "nlgs")

    def solve_contacts_jacobi(self, tol, dt, itmax=1000):
        """Projected Jacobi (relaxed as hourglass's default), as
        :meth:`solve_contacts_nlgs`."""
        return self._solve(tol, dt, itmax, "jacobi")
