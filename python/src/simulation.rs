//! [`Simulation`]: a scene as `hourglass run` builds it, stepped on one
//! backend, in the plane or in 3D (`dimension = 3`). One generic [`Sim`]
//! holds the run in either space; the Python class holds one of the two
//! ([`Inner`]) and hands every call to it. The arrays have the space's
//! columns: (N, 2) for disks, (N, 3) for spheres.

use std::path::{Path, PathBuf};

use hourglass::backend::{self, Backend, Device};
use hourglass::error::{Error, Result};
use hourglass::model::{Body, Dim2, Dim3, Grains, Grid, Region, StepParams, StepStats};
use hourglass::output::ResultDir;
use hourglass::scene::{BackendChoice, Scene, Setup};
use hourglass::sim::{self, RunSpace};
use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{HourglassError, apply_overrides, backend_choice, field_err, py_err, read_column, read_vecs};

/// What a space brings to a [`Sim`]: its build, backend policy, first check
/// and the walls as Python sees them.
pub(crate) trait PySpace: RunSpace {
    /// The scene's setup in this space (`scene::build` or `build3d`).
    fn build(scene: &Scene) -> Result<Setup<Self>>;
    /// The backend policy (`backend::select` or `select_solid`).
    fn select(
        setup: &Setup<Self>,
        grid: Grid<Self>,
        choice: BackendChoice,
        notices: &mut Vec<String>,
    ) -> Result<Box<dyn Backend<Self>>>;
    /// The start's own check of the grains against the walls (the plane's;
    /// a 3D build checks its spheres itself).
    fn check_initial_state(_setup: &Setup<Self>, _grid: &Grid<Self>) -> Result<()> {
        Ok(())
    }
    /// The walls as Python gets them.
    fn walls_py(py: Python<'_>, walls: &Self::Walls) -> PyResult<Py<PyAny>>;
    /// The box an added grain must lie in.
    fn grain_box(setup: &Setup<Self>) -> Self::Bounds {
        setup.walls_box
    }
}

impl PySpace for Dim2 {
    fn build(scene: &Scene) -> Result<Setup> {
        hourglass::scene::build(scene)
    }
    fn select(setup: &Setup, grid: Grid, choice: BackendChoice, notices: &mut Vec<String>) -> Result<Box<dyn Backend>> {
        backend::select(setup, grid, choice, Device::Open, notices)
    }
    fn check_initial_state(setup: &Setup, grid: &Grid) -> Result<()> {
        backend::check_initial_state(setup, grid)
    }
    /// The walls' bounding box with the gate, where they stand at the start.
    fn grain_box(setup: &Setup) -> [f32; 4] {
        setup.walls(true).bounding_box()
    }
    /// (M, 2, 2) float64, [[x0, y0], [x1, y1]] per segment.
    fn walls_py(py: Python<'_>, walls: &hourglass::model::Walls) -> PyResult<Py<PyAny>> {
        Ok(crate::segments(py, walls).into_any().unbind())
    }
}

impl PySpace for Dim3 {
    fn build(scene: &Scene) -> Result<Setup<Dim3>> {
        hourglass::scene::build3d(scene)
    }
    fn select(
        setup: &Setup<Dim3>,
        grid: Grid<Dim3>,
        choice: BackendChoice,
        notices: &mut Vec<String>,
    ) -> Result<Box<dyn Backend<Dim3>>> {
        backend::select_solid(setup, grid, choice, Device::Open, notices)
    }
    /// A list of (k, 3) float64 polygons: the mesh's triangles, each plane's
    /// polygon clipped to the walls' box (as walls.vtp has them).
    fn walls_py(py: Python<'_>, walls: &hourglass::model::Walls3d) -> PyResult<Py<PyAny>> {
        let polygons = hourglass::output::vtk::wall_polygons(walls);
        let list: Vec<Bound<'_, PyArray2<f64>>> = polygons.iter().map(|p| crate::rows(py, p)).collect();
        Ok(list.into_pyobject(py)?.into_any().unbind())
    }
}

/// (N, K) float64 of values whose f32 coordinates come K a value (K = 1:
/// (N,)): positions, velocities, spins of either space.
fn columns<T: bytemuck::Pod>(py: Python<'_>, v: &[T]) -> Py<PyAny> {
    let k = std::mem::size_of::<T>() / 4;
    let flat: Vec<f64> = bytemuck::cast_slice::<T, f32>(v)
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    if k == 1 {
        return Array1::from(flat).into_pyarray(py).into_any().unbind();
    }
    let rows = Array2::from_shape_vec((v.len(), k), flat).expect("K coordinates a value");
    rows.into_pyarray(py).into_any().unbind()
}

/// A run in space `S`: the scene's setup, its grid and backend, and the
/// step count and state the Python methods read.
pub(crate) struct Sim<S: PySpace> {
    setup: Setup<S>,
    grid: Grid<S>,
    choice: BackendChoice,
    backend: Box<dyn Backend<S>>,
    gate_open: bool,
    steps: u64,
    /// Steps taken when the gate opened (0 without a gate): the clock of
    /// the walls' `[[motion]]` starts there.
    opened_at: u64,
    /// The fastest grain after the last step, m/s (the substep bound).
    speed: f32,
    last: StepStats,
    notices: Vec<String>,
}

impl<S: PySpace> Sim<S> {
    fn open(scene: &Scene, choice: BackendChoice) -> PyResult<Sim<S>> {
        let setup = S::build(scene).map_err(py_err)?;
        let grid = S::grid(&setup).map_err(py_err)?;
        S::check_initial_state(&setup, &grid).map_err(py_err)?;
        let mut notices = setup.notices.clone();
        let mut b = S::select(&setup, grid, choice, &mut notices).map_err(py_err)?;
        let gate_open = !setup.has_gate();
        if gate_open {
            b.set_walls(setup.walls(false));
        }
        Ok(Sim {
            setup,
            grid,
            choice,
            backend: b,
            gate_open,
            steps: 0,
            opened_at: 0,
            speed: 0.0,
            last: StepStats::default(),
            notices,
        })
    }

    fn grains_by_id(&mut self) -> PyResult<Grains<S>> {
        Ok(self.backend.grains().map_err(py_err)?.clone().into_id_order())
    }

    /// Rebuild the backend from `grains` (id order), keeping the walls and
    /// step count. The grains from `new_from` on are new: each must lie
    /// inside the walls' box and overlap nothing (the others are the run's
    /// own state, whose overlaps within the solver's tolerance stay).
    fn rebuild(&mut self, grains: Grains<S>, new_from: usize) -> PyResult<()> {
        if self.setup.params.solver == hourglass::model::SolverKind::Crowd {
            // The crowd backend counts who has left; a rebuilt one would start over.
            return Err(field_err(
                "velocities",
                "a crowd's people cannot be edited during a run (their wishes are the velocities)",
            ));
        }
        let mut setup = self.setup.clone();
        setup.grains = grains;
        let grid = S::grid(&setup).map_err(py_err)?;
        if new_from < setup.grains.len() {
            let walls = setup.walls(!self.gate_open);
            let (lo, hi) = S::box_corners(S::grain_box(&setup));
            let cap = setup.scene.solver.contact_capacity as usize;
            let mut stepper = hourglass::cpu::CpuStepper::<S>::new(grid, cap);
            let lists = stepper.detect(&setup.grains, walls, 0.0);
            for i in new_from..setup.grains.len() {
                let k = i - new_from;
                let p = setup.grains.pos[i];
                if !(0..S::DIM).all(|d| p[d] >= lo[d] && p[d] <= hi[d]) {
                    return Err(field_err(
                        &format!("positions[{k}]"),
                        "lies outside the walls' bounding box",
                    ));
                }
                if let Some(c) = lists.of(i).iter().find(|c| c.gap < -1e-7) {
                    let (segment, corner) = if S::DIM == 3 {
                        ("face", "edge or vertex")
                    } else {
                        ("segment", "corner")
                    };
                    let what = match c.body() {
                        Body::Grain(j) => format!("grain {}", setup.grains.id[j as usize]),
                        Body::Segment(s) => format!("wall {segment} {s}"),
                        Body::Corner(c) => format!("wall {corner} {c}"),
                    };
                    return Err(field_err(
                        &format!("positions[{k}]"),
                        format!("overlaps {what} by {:.3e} m", -c.gap),
                    ));
                }
            }
        }
        // The backend's own count (substeps included): the forcing's draws
        // and the CPU's reorder schedule go on from it.
        let count = self.backend.step_count();
        let mut notices = Vec::new();
        let mut b = S::select(&setup, grid, self.choice, &mut notices).map_err(py_err)?;
        b.set_walls(setup.walls(!self.gate_open));
        b.set_step_count(count);
        self.backend = b;
        self.grid = grid;
        self.setup = setup;
        Ok(())
    }

    fn region(&self) -> Region<S> {
        Region {
            gravity: S::in_plane(self.setup.params.gravity),
            neck_y: self.setup.neck_y as f32,
            // The walls' box, wherever they move in the run.
            bbox: self.setup.walls_box,
            period: self.setup.region().period,
        }
    }

    fn params(&self) -> StepParams {
        self.setup.params
    }

    fn dt(&self) -> f64 {
        self.setup.scene.solver.dt.unwrap_or(f64::from(self.setup.params.dt))
    }

    fn time(&self) -> f64 {
        self.steps as f64 * self.dt()
    }

    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<f64> {
        let p = self.params();
        let mut iterations = 0u64;
        let dt = f64::from(p.dt);
        for k in 0..n {
            // Walls that move do so once the gate is open, on its clock.
            let moving = match &self.setup.motion {
                Some(motion) if self.gate_open => Some(backend::substep::Moving::<S> {
                    motion,
                    t0: (self.steps - self.opened_at) as f64 * dt,
                }),
                _ => None,
            };
            // The walls at the step's start with their velocities over it
            // (the gate's opening or a rebuilt backend set them still).
            if let Some(m) = moving {
                use hourglass::model::motion::Moves;
                self.backend.move_walls(&m.motion.walls(m.t0, m.t0 + dt));
            }
            let s = backend::substep::step_moving(self.backend.as_mut(), &p, self.speed, moving).map_err(py_err)?;
            self.speed = s.next_speed(self.speed);
            self.last = s.stats;
            iterations += u64::from(s.stats.iterations);
            self.steps += 1;
            if k % 64 == 63 {
                py.check_signals()?;
            }
        }
        Ok(iterations as f64 / n.max(1) as f64)
    }

    fn open_gate(&mut self) {
        if !self.gate_open {
            self.backend.set_walls(self.setup.walls(false));
            self.backend.set_phase(hourglass::model::Phase::Discharge);
            self.gate_open = true;
            self.opened_at = self.steps;
        }
    }

    fn run<'py>(
        &mut self,
        py: Python<'py>,
        duration: Option<f64>,
        steps: Option<u64>,
        out: PathBuf,
        force: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut setup = self.setup.clone();
        if let Some(d) = duration {
            if !(d.is_finite() && d >= 0.0) {
                return Err(field_err(
                    "duration",
                    format!("must be a finite number of seconds >= 0, got {d}"),
                ));
            }
            setup.scene.run.duration = Some(d);
            setup.scene.run.steps = None;
        }
        if let Some(s) = steps {
            setup.scene.run.steps = Some(s);
            setup.scene.run.duration = None;
        }
        if self.gate_open {
            setup.scene.run.settle = 0.0;
        }
        setup.scene.run.out = out.clone();
        // The run's grains are the backend's now (after steps or edits).
        setup.grains = self.grains_by_id()?;
        let mut dir = ResultDir::create_with(&out, &setup.scene.to_toml(), force).map_err(py_err)?;
        let summary = sim::run(&setup, self.backend.as_mut(), &mut dir, &mut sim::Silent).map_err(py_err)?;
        dir.finish(&summary).map_err(py_err)?;
        self.steps += summary.steps;
        self.gate_open = self.gate_open || !setup.has_gate() || summary.settle_steps < summary.steps;
        let text = serde_json::to_string(&summary).map_err(|e| HourglassError::new_err(e.to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    fn walls(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        use hourglass::model::motion::Moves;
        match &self.setup.motion {
            Some(motion) if self.gate_open => {
                let dt = f64::from(self.setup.params.dt);
                let t = (self.steps - self.opened_at) as f64 * dt;
                S::walls_py(py, &motion.walls(t, t + dt))
            }
            _ => S::walls_py(py, self.setup.walls(!self.gate_open)),
        }
    }

    fn set_velocities(&mut self, v: PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        let mut g = self.grains_by_id()?;
        let vel = read_vecs::<S>("velocities", &v, Some(g.len()))?;
        for (i, v) in vel.into_iter().enumerate() {
            if g.inv_mass[i] > 0.0 {
                g.vel[i] = v;
            }
        }
        let n = g.len();
        self.rebuild(g, n)
    }

    fn add_grains(
        &mut self,
        positions: PyReadonlyArray2<'_, f64>,
        radii: PyReadonlyArray1<'_, f64>,
        velocities: Option<PyReadonlyArray2<'_, f64>>,
    ) -> PyResult<()> {
        let pos = read_vecs::<S>("positions", &positions, None)?;
        let k = pos.len();
        let radius = read_column("radii", &radii, k)?;
        if let Some((i, _)) = radius.iter().enumerate().find(|(_, r)| **r <= 0.0) {
            return Err(field_err(&format!("radii[{i}]"), "must be > 0"));
        }
        let vel = match &velocities {
            Some(v) => read_vecs::<S>("velocities", v, Some(k))?,
            None => vec![S::Vec::default(); k],
        };
        let mut g = self.grains_by_id()?;
        let old = g.len();
        let g_spec = &self.setup.scene.grains;
        let density = g_spec.density.unwrap_or(hourglass::scene::DEFAULT_DENSITY);
        let mut new = Grains::<S>::of_density(pos, vel, radius, density);
        // A scene of given masses (`grains.mass`) gives its new grains that mass.
        new.inv_mass = new
            .radius
            .iter()
            .map(|&r| (1.0 / g_spec.mass_of(f64::from(r))) as f32)
            .collect();
        let next = g.id.iter().max().map_or(0, |&m| m + 1);
        for (j, id) in new.id.iter_mut().enumerate() {
            *id = next + j as u32;
        }
        g.extend(&new);
        self.rebuild(g, old)
    }

    fn contacts<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let alert = self.setup.params.alert;
        // The NSCD stepper's impulses; the DEM's saved lists hold springs.
        let nscd = !self.setup.params.solver.explicit();
        let saved = nscd
            .then(|| self.backend.saved_contacts().map(|(lists, _)| lists.clone()))
            .flatten();
        let (lists, grains, known) = match saved {
            Some(lists) if lists.grains() == self.backend.grains().map_err(py_err)?.len() => {
                (lists, self.backend.grains().map_err(py_err)?.clone(), true)
            }
            _ => {
                let grains = self.backend.grains().map_err(py_err)?.clone();
                let walls = self.setup.walls(!self.gate_open).clone();
                let cap = self.setup.scene.solver.contact_capacity as usize;
                let mut stepper = hourglass::cpu::CpuStepper::<S>::new(self.grid, cap);
                let lists = stepper.detect(&grains, &walls, alert).clone();
                (lists, grains, false)
            }
        };
        crate::stages::contact_arrays(py, &lists, &grains.id, known)
    }

    fn diagnostics<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let region = self.region();
        let time = self.time();
        let t = self.backend.totals(&region).map_err(py_err)?;
        let g = self.backend.grains().map_err(py_err)?;
        let rot = hourglass::model::rotational_kinetic_energy(g);
        let d = PyDict::new(py);
        d.set_item("time", time)?;
        d.set_item("step", self.steps)?;
        d.set_item("grains", g.len())?;
        d.set_item("passed", t.passed)?;
        d.set_item("lost", t.lost)?;
        d.set_item("kinetic_energy", t.kinetic_energy)?;
        d.set_item("potential_energy", t.potential_energy)?;
        d.set_item("rotational_kinetic_energy", rot)?;
        d.set_item("momentum_x", t.momentum[0])?;
        d.set_item("momentum_y", t.momentum[1])?;
        if S::DIM == 3 {
            d.set_item("momentum_z", t.momentum[2])?;
        }
        d.set_item("max_speed", t.max_speed)?;
        d.set_item("iterations", self.last.iterations)?;
        d.set_item("residual", f64::from(self.last.residual))?;
        d.set_item("converged", self.last.converged)?;
        // A backend whose steps do not count contacts (the CPU DEM) counts them here.
        d.set_item("contacts", t.contacts.unwrap_or(self.last.contacts))?;
        d.set_item("max_overlap", f64::from(self.last.max_overlap))?;
        Ok(d)
    }
}

/// The run of a [`Simulation`], in its space.
enum Inner {
    Plane(Sim<Dim2>),
    Solid(Sim<Dim3>),
}

/// `$e` with `$s` the run, in either space.
macro_rules! each {
    ($self:ident, $s:ident => $e:expr) => {
        match &mut $self.inner {
            Inner::Plane($s) => $e,
            Inner::Solid($s) => $e,
        }
    };
}

/// A scene built as `hourglass run` builds it, stepped on one backend: in
/// the plane, or in 3D for a scene of `dimension = 3` (the arrays then
/// have three columns).
///
/// The grain arrays are copies in id order (the backends reorder their
/// grains for locality); writing velocities or adding grains rebuilds the
/// backend from the changed grains, which forgets the warm-start impulses
/// (as opening the gate does).
#[pyclass(unsendable, module = "hourglass._core")]
pub struct Simulation {
    inner: Inner,
}

#[pymethods]
impl Simulation {
    /// Build a simulation from a scene file (None: the bundled hourglass),
    /// in the plane or in 3D as the scene's `dimension` says.
    ///
    /// `backend` is "cpu", "gpu" or "auto". Keyword arguments override the
    /// scene: dotted keys as the scene file has them (`**{"solver.tol":
    /// 1e-5}`) or the short names grains, seed, solver, dt, tol, itmax, mu,
    /// duration, steps, settle, every, neck.
    #[staticmethod]
    #[pyo3(signature = (path=None, backend="cpu", **overrides))]
    fn from_scene(path: Option<PathBuf>, backend: &str, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Simulation> {
        let choice = backend_choice(backend)?;
        let (scene, origin) = match &path {
            Some(p) => (Scene::load(p).map_err(py_err)?, p.clone()),
            None => (Scene::default(), PathBuf::from("the bundled hourglass")),
        };
        let mut scene = apply_overrides(scene, Path::new(&origin), overrides)?;
        scene.run.backend = choice;
        if !scene.solver.kind.implemented() {
            return Err(py_err(Error::NotImplemented {
                what: format!("solver `{}`", scene.solver.kind.name()),
            }));
        }
        let inner = if scene.dimension == 3 {
            Inner::Solid(Sim::open(&scene, choice)?)
        } else {
            Inner::Plane(Sim::open(&scene, choice)?)
        };
        Ok(Simulation { inner })
    }

    /// Take `n` steps (each split into substeps when grains are fast, as in
    /// `hourglass run`) with the walls as they are: the gate stays closed
    /// until `open_gate()` or `run()` opens it. Returns the mean solver
    /// iterations of these steps.
    #[pyo3(signature = (n=1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<f64> {
        each!(self, s => s.step(py, n))
    }

    /// Take the gate out of the walls (the discharge starts).
    fn open_gate(&mut self) {
        each!(self, s => s.open_gate())
    }

    /// Run as `hourglass run` does from the current state (a settle phase
    /// first if the gate is still closed), writing the result directory
    /// `out` (refused if it holds files hourglass did not write, unless
    /// `force`). `duration` (s) or `steps` set the discharge's length (default:
    /// the scene's). Returns summary.json as a dict.
    #[pyo3(signature = (duration=None, steps=None, out="result".into(), force=false))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        duration: Option<f64>,
        steps: Option<u64>,
        out: PathBuf,
        force: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        each!(self, s => s.run(py, duration, steps, out, force))
    }

    /// The scene's dimension: 2 (disks in the plane) or 3 (spheres).
    #[getter]
    fn dimension(&self) -> u32 {
        match &self.inner {
            Inner::Plane(_) => 2,
            Inner::Solid(_) => 3,
        }
    }

    /// Steps taken so far (substeps counted once).
    #[getter]
    fn steps(&mut self) -> u64 {
        each!(self, s => s.steps)
    }

    /// Simulated time so far, s.
    #[getter]
    fn time(&mut self) -> f64 {
        each!(self, s => s.time())
    }

    /// The time step, s.
    #[getter]
    fn dt(&mut self) -> f64 {
        each!(self, s => s.dt())
    }

    /// The alert distance, m (pairs closer than it are potential contacts).
    #[getter]
    fn alert(&mut self) -> f64 {
        each!(self, s => f64::from(s.setup.params.alert))
    }

    /// Gravity, m/s^2 (in the x-y plane in 3D too).
    #[getter]
    fn gravity(&mut self) -> (f64, f64) {
        each!(self, s => (s.setup.scene.gravity[0], s.setup.scene.gravity[1]))
    }

    #[getter]
    fn gate_open(&mut self) -> bool {
        each!(self, s => s.gate_open)
    }

    /// The backend that runs the steps ("cpu" or "gpu") and its device.
    #[getter]
    fn backend(&mut self) -> (String, String) {
        each!(self, s => (s.backend.kind().name().to_string(), s.backend.adapter()))
    }

    /// The solver that runs (`auto` resolved).
    #[getter]
    fn solver(&mut self) -> &'static str {
        each!(self, s => s.backend.solver(s.setup.params.solver).name())
    }

    /// What the scene's build and the backend choice had to say.
    #[getter]
    fn notices(&mut self) -> Vec<String> {
        each!(self, s => s.notices.clone())
    }

    /// The resolved scene as TOML (every default written out).
    #[getter]
    fn scene_toml(&mut self) -> String {
        each!(self, s => s.setup.scene.to_toml())
    }

    /// The walls as they are now (the gate in them until it opens; where
    /// their `[[motion]]` has taken them): in the plane (M, 2, 2) float64,
    /// [[x0, y0], [x1, y1]] per segment, m; in 3D a list of (k, 3) float64
    /// polygons (the mesh's triangles, each plane's polygon).
    #[getter]
    fn walls(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        each!(self, s => s.walls(py))
    }

    /// Centre positions, m: (N, 2) float64 ((N, 3) in 3D), in id order.
    #[getter]
    fn positions(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        each!(self, s => Ok(columns(py, &s.grains_by_id()?.pos)))
    }

    /// Velocities, m/s: (N, 2) float64 ((N, 3) in 3D), in id order.
    #[getter]
    fn velocities(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        each!(self, s => Ok(columns(py, &s.grains_by_id()?.vel)))
    }

    /// Set every grain's velocity ((N, 2), (N, 3) in 3D, id order); fixed
    /// grains keep theirs.
    #[setter]
    fn set_velocities(&mut self, v: PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        each!(self, s => s.set_velocities(v))
    }

    /// Radii, m: (N,) float64, in id order.
    #[getter]
    fn radii<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        each!(self, s => {
            let g = s.grains_by_id()?;
            Ok(Array1::from_iter(g.radius.iter().map(|&r| f64::from(r))).into_pyarray(py))
        })
    }

    /// Masses: (N,) float64, kg per metre of thickness in the plane, kg in
    /// 3D (inf for a fixed grain).
    #[getter]
    fn masses<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        each!(self, s => {
            let g = s.grains_by_id()?;
            Ok(Array1::from_iter((0..g.len()).map(|i| g.mass(i))).into_pyarray(py))
        })
    }

    /// Grain ids: (N,) int64 (0..N for a scene's own grains).
    #[getter]
    fn ids<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        each!(self, s => {
            let g = s.grains_by_id()?;
            Ok(Array1::from_iter(g.id.iter().map(|&i| i64::from(i))).into_pyarray(py))
        })
    }

    /// Angular velocities, rad/s: (N,) float64 in the plane, (N, 3) in 3D
    /// (0 where the model does not turn its grains).
    #[getter]
    fn angular_velocities(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        each!(self, s => {
            let g = s.grains_by_id()?;
            let mut w = g.ang_vel.clone();
            w.resize(g.len(), Default::default());
            Ok(columns(py, &w))
        })
    }

    /// Add grains at `positions` ((K, 2), (K, 3) in 3D, m) with `radii`
    /// ((K,), m) and `velocities` (as `positions`, m/s; default at rest),
    /// of the scene's density. They must not overlap the walls or other
    /// grains.
    #[pyo3(signature = (positions, radii, velocities=None))]
    fn add_grains(
        &mut self,
        positions: PyReadonlyArray2<'_, f64>,
        radii: PyReadonlyArray1<'_, f64>,
        velocities: Option<PyReadonlyArray2<'_, f64>>,
    ) -> PyResult<()> {
        each!(self, s => s.add_grains(positions, radii, velocities))
    }

    /// The contacts of the last step as arrays (each pair once): `grain`
    /// (id), `other` (a grain id, or -1 for a wall), `wall` (segment or
    /// corner index, -1 for a grain; in 3D a face, or an edge or vertex),
    /// `kind` (0 grain, 1 segment or face, 2 corner, edge or vertex),
    /// `normal` ((C, 2), (C, 3) in 3D, from the other body towards the
    /// grain), `gap` (m, negative = overlap), `impulse` and `impulse_t` (N
    /// s, per metre in the plane; `impulse_t` (C, 3) in 3D). The CPU NSCD
    /// backend keeps its impulses, of the contacts that took one or overlap
    /// (the others, open gaps within the alert distance, are not kept
    /// between steps); elsewhere the contacts are detected anew on the CPU
    /// and the impulses are NaN.
    fn contacts<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        each!(self, s => s.contacts(py))
    }

    /// One diagnostics row of the current state, as a dict: time, step,
    /// grains, passed, lost, kinetic/potential/rotational energy (J, per
    /// metre in the plane), momentum_x/y (and momentum_z in 3D), max_speed,
    /// and the last step's iterations, residual, contacts and max_overlap.
    fn diagnostics<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        each!(self, s => s.diagnostics(py))
    }
}
