//! `hourglass._core`: the Rust core seen from Python (PyO3 + numpy).
//!
//! Two faces, both thin over the library (nothing here steps grains itself):
//! - [`Simulation`]: a scene as `hourglass run` builds it, stepped on the CPU
//!   or GPU backend, with the grains as numpy arrays in id order;
//! - [`Stages`]: the CPU reference's contact detection and NSCD solvers on
//!   arrays the caller owns (the course's `GrainProblem`, in
//!   python/hourglass/course.py).
//!
//! Errors become `hourglass.HourglassError` carrying the one line the CLI
//! prints after `hourglass: `.

use std::path::{Path, PathBuf};

use hourglass::backend::{self, Backend, Device};
use hourglass::error::Error;
use hourglass::model::{Grains, Grid, Region, StepParams, StepStats};
use hourglass::output::{ResultDir, read};
use hourglass::scene::{BackendChoice, Scene, Setup, build};
use hourglass::sim;
use numpy::ndarray::{Array1, Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

mod stages;
mod sweep;
mod writer;

create_exception!(
    _core,
    HourglassError,
    PyException,
    "An error of the simulator: a bad scene, field or file, or a run that cannot go on. Its message is the line the CLI prints."
);

/// The CLI's one line (src/main.rs prints it after `hourglass: `).
pub(crate) fn py_err(e: Error) -> PyErr {
    HourglassError::new_err(e.to_string().replace('\n', " "))
}

/// A field error from the Python side, worded as the library's.
pub(crate) fn field_err(field: &str, problem: impl Into<String>) -> PyErr {
    py_err(Error::InvalidField {
        origin: "python".into(),
        field: field.into(),
        problem: problem.into(),
    })
}

/// Short names for the keys users set most, as the CLI's flags name them.
const ALIASES: &[(&str, &str)] = &[
    ("grains", "grains.count"),
    ("seed", "grains.seed"),
    ("solver", "solver.kind"),
    ("dt", "solver.dt"),
    ("tol", "solver.tol"),
    ("itmax", "solver.itmax"),
    ("mu", "solver.mu"),
    ("duration", "run.duration"),
    ("steps", "run.steps"),
    ("settle", "run.settle"),
    ("every", "run.every"),
    ("neck", "walls.hourglass.neck"),
];

/// A Python value as a TOML value (bool before int: a Python bool is an int).
pub(crate) fn toml_value(key: &str, v: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        Ok(toml::Value::Boolean(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        Ok(toml::Value::Integer(v.extract()?))
    } else if v.is_instance_of::<PyFloat>() {
        Ok(toml::Value::Float(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(toml::Value::String(v.extract()?))
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.extract()?;
        Ok(toml::Value::Array(
            items.iter().map(|x| toml_value(key, x)).collect::<PyResult<_>>()?,
        ))
    } else if let Ok(d) = v.cast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, x) in d.iter() {
            let name: String = k
                .extract()
                .map_err(|_| field_err(key, "has a table whose keys are not all strings"))?;
            t.insert(name.clone(), toml_value(&format!("{key}.{name}"), &x)?);
        }
        Ok(toml::Value::Table(t))
    } else if let Ok(x) = v.extract::<f64>() {
        // numpy scalars and anything else with __float__.
        Ok(toml::Value::Float(x))
    } else {
        Err(field_err(
            key,
            format!("cannot be set from a Python {}", v.get_type().name()?),
        ))
    }
}

/// `scene` with `overrides` (dotted scene keys such as `solver.tol`, or the
/// short names of [`ALIASES`]) applied through its TOML
/// (`hourglass::scene::overrides`), so the scene's own parser checks them:
/// an unknown key or a bad value is the error a scene file with that line
/// would give, naming the key.
fn apply_overrides(scene: Scene, origin: &Path, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Scene> {
    let Some(overrides) = overrides.filter(|o| !o.is_empty()) else {
        return Ok(scene);
    };
    let mut list = Vec::with_capacity(overrides.len());
    // (dotted key, the name the caller gave), to name errors as they were written.
    let mut given: Vec<(String, String)> = Vec::new();
    for (k, v) in overrides.iter() {
        let key: String = k.extract()?;
        let dotted = match ALIASES.iter().find(|(short, _)| *short == key) {
            Some((_, long)) => long.to_string(),
            None if key.contains('.') => key.clone(),
            None => {
                let names: Vec<&str> = ALIASES.iter().map(|(s, _)| *s).collect();
                return Err(field_err(
                    &key,
                    format!(
                        "is not a setting: give a scene key as `section.key` (e.g. `solver.tol`) or one of {}",
                        names.join(", ")
                    ),
                ));
            }
        };
        let value = toml_value(&key, &v)?;
        given.push((dotted.clone(), key));
        list.push((dotted, value));
    }
    let mut scene = scene;
    scene.origin = origin.display().to_string();
    hourglass::scene::overrides::apply(&scene, &list, &format!("{} (override)", origin.display())).map_err(
        |e| match e {
            Error::InvalidField { origin, field, problem } => {
                let field = given
                    .iter()
                    .find(|(d, _)| *d == field)
                    .map_or(field, |(_, k)| k.clone());
                py_err(Error::InvalidField { origin, field, problem })
            }
            e => py_err(e),
        },
    )
}

fn backend_choice(name: &str) -> PyResult<BackendChoice> {
    match name {
        "cpu" => Ok(BackendChoice::Cpu),
        "gpu" => Ok(BackendChoice::Gpu),
        "auto" => Ok(BackendChoice::Auto),
        other => Err(field_err(
            "backend",
            format!("must be \"cpu\", \"gpu\" or \"auto\", got \"{other}\""),
        )),
    }
}

/// (N, 2) float64 from pairs of f32.
fn pairs<'py>(py: Python<'py>, v: &[[f32; 2]]) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = v.iter().flat_map(|p| [f64::from(p[0]), f64::from(p[1])]).collect();
    Array2::from_shape_vec((v.len(), 2), flat)
        .expect("two values per row")
        .into_pyarray(py)
}

fn column<'py>(py: Python<'py>, v: impl Iterator<Item = f64>) -> Bound<'py, PyArray1<f64>> {
    Array1::from_iter(v).into_pyarray(py)
}

/// Rows of an (N, 2) array as f32 pairs, checking the shape.
pub(crate) fn read_pairs(name: &str, a: &PyReadonlyArray2<'_, f64>, n: Option<usize>) -> PyResult<Vec<[f32; 2]>> {
    let a = a.as_array();
    if a.ncols() != 2 || n.is_some_and(|n| a.nrows() != n) {
        let want = n.map_or("(N, 2)".to_string(), |n| format!("({n}, 2)"));
        return Err(field_err(name, format!("must have shape {want}, got {:?}", a.shape())));
    }
    let mut out = Vec::with_capacity(a.nrows());
    for (i, row) in a.rows().into_iter().enumerate() {
        if !(row[0].is_finite() && row[1].is_finite()) {
            return Err(field_err(&format!("{name}[{i}]"), "must be finite"));
        }
        out.push([row[0] as f32, row[1] as f32]);
    }
    Ok(out)
}

pub(crate) fn read_column(name: &str, a: &PyReadonlyArray1<'_, f64>, n: usize) -> PyResult<Vec<f32>> {
    let a = a.as_array();
    if a.len() != n {
        return Err(field_err(name, format!("must have shape ({n},), got {:?}", a.shape())));
    }
    a.iter()
        .enumerate()
        .map(|(i, &x)| {
            if x.is_finite() {
                Ok(x as f32)
            } else {
                Err(field_err(&format!("{name}[{i}]"), "must be finite"))
            }
        })
        .collect()
}

/// A scene built as `hourglass run` builds it, stepped on one backend.
///
/// The grain arrays are copies in id order (the backends reorder their
/// grains for locality); writing velocities or adding grains rebuilds the
/// backend from the changed grains, which forgets the warm-start impulses
/// (as opening the gate does).
#[pyclass(unsendable, module = "hourglass._core")]
pub struct Simulation {
    setup: Setup,
    grid: Grid,
    choice: BackendChoice,
    backend: Box<dyn Backend>,
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

impl Simulation {
    fn open(setup: Setup, choice: BackendChoice) -> PyResult<Simulation> {
        let grid = backend::grid_for(&setup).map_err(py_err)?;
        backend::check_initial_state(&setup, &grid).map_err(py_err)?;
        let mut notices = setup.notices.clone();
        let mut b = backend::select(&setup, grid, choice, Device::Open, &mut notices).map_err(py_err)?;
        let gate_open = !setup.has_gate();
        if gate_open {
            b.set_walls(setup.walls(false));
        }
        Ok(Simulation {
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

    fn grains_by_id(&mut self) -> PyResult<Grains> {
        Ok(self.backend.grains().map_err(py_err)?.clone().into_id_order())
    }

    /// Rebuild the backend from `grains` (id order), keeping the walls and
    /// step count. The grains from `new_from` on are new: each must lie
    /// inside the walls' box and overlap nothing (the others are the run's
    /// own state, whose overlaps within the solver's tolerance stay).
    fn rebuild(&mut self, grains: Grains, new_from: usize) -> PyResult<()> {
        if self.setup.params.solver == hourglass::model::SolverKind::Crowd {
            // The crowd backend counts who has left; a rebuilt one would start over.
            return Err(field_err(
                "velocities",
                "a crowd's people cannot be edited during a run (their wishes are the velocities)",
            ));
        }
        let mut setup = self.setup.clone();
        setup.grains = grains;
        let grid = backend::grid_for(&setup).map_err(py_err)?;
        if new_from < setup.grains.len() {
            let walls = setup.walls(!self.gate_open);
            let bb = setup.walls(true).bounding_box();
            let cap = setup.scene.solver.contact_capacity as usize;
            let mut stepper = hourglass::cpu::CpuStepper::new(grid, cap);
            let lists = stepper.detect(&setup.grains, walls, 0.0);
            for i in new_from..setup.grains.len() {
                let k = i - new_from;
                let p = setup.grains.pos[i];
                if !(p[0] >= bb[0] && p[0] <= bb[2] && p[1] >= bb[1] && p[1] <= bb[3]) {
                    return Err(field_err(
                        &format!("positions[{k}]"),
                        "lies outside the walls' bounding box",
                    ));
                }
                if let Some(c) = lists.of(i).iter().find(|c| c.gap < -1e-7) {
                    let what = match c.body() {
                        hourglass::model::Body::Grain(j) => format!("grain {}", setup.grains.id[j as usize]),
                        hourglass::model::Body::Segment(s) => format!("wall segment {s}"),
                        hourglass::model::Body::Corner(c) => format!("wall corner {c}"),
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
        let mut b = backend::select(&setup, grid, self.choice, Device::Open, &mut notices).map_err(py_err)?;
        b.set_walls(setup.walls(!self.gate_open));
        b.set_step_count(count);
        self.backend = b;
        self.grid = grid;
        self.setup = setup;
        Ok(())
    }

    fn region(&self) -> Region {
        Region {
            gravity: self.setup.params.gravity,
            neck_y: self.setup.neck_y as f32,
            // The walls' box, wherever they move in the run.
            bbox: self.setup.walls_box,
            period: self.setup.region().period,
        }
    }

    fn params(&self) -> StepParams {
        self.setup.params
    }
}

#[pymethods]
impl Simulation {
    /// Build a simulation from a scene file (None: the bundled hourglass).
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
        let mut scene = apply_overrides(scene, &origin, overrides)?;
        scene.run.backend = choice;
        if !scene.solver.kind.implemented() {
            return Err(py_err(Error::NotImplemented {
                what: format!("solver `{}`", scene.solver.kind.name()),
            }));
        }
        let setup = build(&scene).map_err(py_err)?;
        Simulation::open(setup, choice)
    }

    /// Take `n` steps (each split into substeps when grains are fast, as in
    /// `hourglass run`) with the walls as they are: the gate stays closed
    /// until `open_gate()` or `run()` opens it. Returns the mean solver
    /// iterations of these steps.
    #[pyo3(signature = (n=1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<f64> {
        let p = self.params();
        let mut iterations = 0u64;
        let dt = f64::from(p.dt);
        for k in 0..n {
            // Walls that move do so once the gate is open, on its clock.
            let moving = match &self.setup.motion {
                Some(motion) if self.gate_open => Some(backend::substep::Moving::<hourglass::model::Dim2> {
                    motion,
                    t0: (self.steps - self.opened_at) as f64 * dt,
                }),
                _ => None,
            };
            // The walls at the step's start with their velocities over it
            // (the gate's opening or a rebuilt backend set them still).
            if let Some(m) = moving {
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

    /// Take the gate out of the walls (the discharge starts).
    fn open_gate(&mut self) {
        if !self.gate_open {
            self.backend.set_walls(self.setup.walls(false));
            self.backend.set_phase(hourglass::model::Phase::Discharge);
            self.gate_open = true;
            self.opened_at = self.steps;
        }
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

    /// Steps taken so far (substeps counted once).
    #[getter]
    fn steps(&self) -> u64 {
        self.steps
    }

    /// Simulated time so far, s.
    #[getter]
    fn time(&self) -> f64 {
        self.steps as f64 * self.dt()
    }

    /// The time step, s.
    #[getter]
    fn dt(&self) -> f64 {
        self.setup.scene.solver.dt.unwrap_or(f64::from(self.setup.params.dt))
    }

    /// The alert distance, m (pairs closer than it are potential contacts).
    #[getter]
    fn alert(&self) -> f64 {
        f64::from(self.setup.params.alert)
    }

    /// Gravity, m/s^2.
    #[getter]
    fn gravity(&self) -> (f64, f64) {
        (self.setup.scene.gravity[0], self.setup.scene.gravity[1])
    }

    #[getter]
    fn gate_open(&self) -> bool {
        self.gate_open
    }

    /// The backend that runs the steps ("cpu" or "gpu") and its device.
    #[getter]
    fn backend(&self) -> (String, String) {
        (self.backend.kind().name().to_string(), self.backend.adapter())
    }

    /// The solver that runs (`auto` resolved).
    #[getter]
    fn solver(&self) -> &'static str {
        self.backend.solver(self.setup.params.solver).name()
    }

    /// What the scene's build and the backend choice had to say.
    #[getter]
    fn notices(&self) -> Vec<String> {
        self.notices.clone()
    }

    /// The resolved scene as TOML (every default written out).
    #[getter]
    fn scene_toml(&self) -> String {
        self.setup.scene.to_toml()
    }

    /// The walls as they are now (the gate in them until it opens; where
    /// their `[[motion]]` has taken them): (M, 2, 2) float64, [[x0, y0],
    /// [x1, y1]] per segment, m.
    #[getter]
    fn walls<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f64>> {
        match &self.setup.motion {
            Some(motion) if self.gate_open => {
                let dt = f64::from(self.setup.params.dt);
                let t = (self.steps - self.opened_at) as f64 * dt;
                segments(py, &motion.walls(t, t + dt))
            }
            _ => segments(py, self.setup.walls(!self.gate_open)),
        }
    }

    /// Centre positions, m: (N, 2) float64, in id order.
    #[getter]
    fn positions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        Ok(pairs(py, &self.grains_by_id()?.pos))
    }

    /// Velocities, m/s: (N, 2) float64, in id order.
    #[getter]
    fn velocities<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        Ok(pairs(py, &self.grains_by_id()?.vel))
    }

    /// Set every grain's velocity ((N, 2), id order); fixed grains keep theirs.
    #[setter]
    fn set_velocities(&mut self, v: PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        let mut g = self.grains_by_id()?;
        let vel = read_pairs("velocities", &v, Some(g.len()))?;
        for (i, v) in vel.into_iter().enumerate() {
            if g.inv_mass[i] > 0.0 {
                g.vel[i] = v;
            }
        }
        let n = g.len();
        self.rebuild(g, n)
    }

    /// Radii, m: (N,) float64, in id order.
    #[getter]
    fn radii<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.grains_by_id()?;
        Ok(column(py, g.radius.iter().map(|&r| f64::from(r))))
    }

    /// Masses, kg per metre of thickness: (N,) float64 (inf for a fixed grain).
    #[getter]
    fn masses<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.grains_by_id()?;
        Ok(column(py, (0..g.len()).map(|i| g.mass(i))))
    }

    /// Grain ids: (N,) int64 (0..N for a scene's own grains).
    #[getter]
    fn ids<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = self.grains_by_id()?;
        Ok(Array1::from_iter(g.id.iter().map(|&i| i64::from(i))).into_pyarray(py))
    }

    /// Angular velocities, rad/s: (N,) float64 (0 without friction).
    #[getter]
    fn angular_velocities<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.grains_by_id()?;
        Ok(column(
            py,
            (0..g.len()).map(|i| f64::from(g.ang_vel.get(i).copied().unwrap_or(0.0))),
        ))
    }

    /// Add grains at `positions` ((K, 2), m) with `radii` ((K,), m) and
    /// `velocities` ((K, 2), m/s; default at rest), of the scene's density.
    /// They must not overlap the walls or other grains.
    #[pyo3(signature = (positions, radii, velocities=None))]
    fn add_grains(
        &mut self,
        positions: PyReadonlyArray2<'_, f64>,
        radii: PyReadonlyArray1<'_, f64>,
        velocities: Option<PyReadonlyArray2<'_, f64>>,
    ) -> PyResult<()> {
        let pos = read_pairs("positions", &positions, None)?;
        let k = pos.len();
        let radius = read_column("radii", &radii, k)?;
        if let Some((i, _)) = radius.iter().enumerate().find(|(_, r)| **r <= 0.0) {
            return Err(field_err(&format!("radii[{i}]"), "must be > 0"));
        }
        let vel = match &velocities {
            Some(v) => read_pairs("velocities", v, Some(k))?,
            None => vec![[0.0; 2]; k],
        };
        let mut g = self.grains_by_id()?;
        let old = g.len();
        let g_spec = &self.setup.scene.grains;
        let density = g_spec.density.unwrap_or(hourglass::scene::DEFAULT_DENSITY);
        let mut new = Grains::new(pos, vel, radius, density);
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

    /// The contacts of the last step as arrays (each pair once): `grain`
    /// (id), `other` (a grain id, or -1 for a wall), `wall` (segment or
    /// corner index, -1 for a grain), `kind` (0 grain, 1 segment, 2
    /// corner), `normal` ((C, 2), from the other body towards the grain),
    /// `gap` (m, negative = overlap), `impulse` and `impulse_t` (N s per
    /// metre). The CPU NSCD backend keeps its impulses, of the contacts
    /// that took one or overlap (the others, open gaps within the alert
    /// distance, are not kept between steps); elsewhere the contacts are
    /// detected anew on the CPU and the impulses are NaN.
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
                let mut stepper =
                    hourglass::cpu::CpuStepper::new(self.grid, self.setup.scene.solver.contact_capacity as usize);
                let lists = stepper.detect(&grains, &walls, alert).clone();
                (lists, grains, false)
            }
        };
        stages::contact_arrays(py, &lists, &grains.id, known)
    }

    /// One diagnostics row of the current state, as a dict: time, step,
    /// grains, passed, lost, kinetic/potential/rotational energy (J per
    /// metre), momentum_x/y, max_speed, and the last step's iterations,
    /// residual, contacts and max_overlap.
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

/// Frame times and files of a result directory: [(time, path)].
#[pyfunction]
fn frame_list(dir: PathBuf) -> PyResult<Vec<(f64, PathBuf)>> {
    read::frames(&dir).map_err(py_err)
}

/// One frame file (.vtp) as arrays: positions, velocities, radii, ids,
/// angular_velocities, angles; of a 3D run (`dimension` 3): positions,
/// velocities and angular_velocities (N, 3), orientations (N, 4) (unit
/// quaternions w, x, y, z), radii, ids.
#[pyfunction]
#[pyo3(signature = (path, dimension=2))]
fn read_frame<'py>(py: Python<'py>, path: PathBuf, dimension: u32) -> PyResult<Bound<'py, PyDict>> {
    if dimension == 3 {
        return read_sphere_frame(py, &path);
    }
    let g = read::grains(&path).map_err(py_err)?;
    let d = PyDict::new(py);
    let n = g.len();
    d.set_item("positions", pairs(py, &g.pos))?;
    d.set_item("velocities", pairs(py, &g.vel))?;
    d.set_item("radii", column(py, g.radius.iter().map(|&r| f64::from(r))))?;
    d.set_item(
        "ids",
        Array1::from_iter(g.id.iter().map(|&i| i64::from(i))).into_pyarray(py),
    )?;
    let get = |v: &[f32], i: usize| f64::from(v.get(i).copied().unwrap_or(0.0));
    d.set_item("angular_velocities", column(py, (0..n).map(|i| get(&g.ang_vel, i))))?;
    d.set_item("angles", column(py, (0..n).map(|i| get(&g.angle, i))))?;
    Ok(d)
}

/// A 3D frame ([`read_frame`]).
fn read_sphere_frame<'py>(py: Python<'py>, path: &Path) -> PyResult<Bound<'py, PyDict>> {
    let g = read::spheres(path).map_err(py_err)?;
    let d = PyDict::new(py);
    d.set_item("positions", rows(py, &g.pos))?;
    d.set_item("velocities", rows(py, &g.vel))?;
    d.set_item("radii", column(py, g.radius.iter().map(|&r| f64::from(r))))?;
    d.set_item(
        "ids",
        Array1::from_iter(g.id.iter().map(|&i| i64::from(i))).into_pyarray(py),
    )?;
    d.set_item("angular_velocities", rows(py, &g.ang_vel))?;
    d.set_item("orientations", rows(py, &g.angle))?;
    Ok(d)
}

/// (N, K) float64 of N rows of K values.
fn rows<'py, const K: usize>(py: Python<'py>, v: &[[f32; K]]) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = v.iter().flatten().map(|&x| f64::from(x)).collect();
    Array2::from_shape_vec((v.len(), K), flat)
        .expect("K values per row")
        .into_pyarray(py)
}

/// The dimension of the run in a result directory: 2 or 3 (`dimension` of
/// its scene.toml; 2 without one).
#[pyfunction]
fn read_dimension(dir: PathBuf) -> PyResult<u32> {
    read::dimension(&dir).map_err(py_err)
}

/// The walls of a 3D result directory (walls.vtp): one (k, 3) float64 array
/// of corners per polygon (the mesh's triangles, each plane's polygon).
#[pyfunction]
fn read_walls3d<'py>(py: Python<'py>, dir: PathBuf) -> PyResult<Vec<Bound<'py, PyArray2<f64>>>> {
    let polygons = read::wall_polygons3d(&dir.join("walls.vtp")).map_err(py_err)?;
    Ok(polygons.iter().map(|p| rows(py, p)).collect())
}

/// The walls of a result directory: (M, 2, 2) float64, [[x0, y0], [x1, y1]]
/// per segment. Without `frame`, walls.vtp (the walls as built); with it,
/// where they stand at that frame (from 0): its walls file of walls.pvd
/// when the walls move, else walls.vtp.
#[pyfunction]
#[pyo3(signature = (dir, frame=None))]
fn read_walls<'py>(py: Python<'py>, dir: PathBuf, frame: Option<usize>) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let walls = match frame {
        Some(k) => read::frame_walls(&dir, k),
        None => read::walls(&dir),
    };
    Ok(segments(py, &walls.map_err(py_err)?))
}

/// The period `(xmin, xmax)` of a result directory whose scene has
/// `walls.periodic_x`, else None (scene.toml missing, or not periodic).
#[pyfunction]
fn read_period(dir: PathBuf) -> PyResult<Option<(f64, f64)>> {
    Ok(read::period(&dir)
        .map_err(py_err)?
        .map(|[a, b]| (f64::from(a), f64::from(b))))
}

fn segments<'py>(py: Python<'py>, w: &hourglass::model::Walls) -> Bound<'py, PyArray3<f64>> {
    let flat: Vec<f64> = w
        .segments
        .iter()
        .flat_map(|s| [s.a[0], s.a[1], s.b[0], s.b[1]].map(f64::from))
        .collect();
    Array3::from_shape_vec((w.segments.len(), 2, 2), flat)
        .expect("four values per segment")
        .into_pyarray(py)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("HourglassError", m.py().get_type::<HourglassError>())?;
    m.add_class::<Simulation>()?;
    m.add_class::<stages::Stages>()?;
    m.add_class::<writer::ResultWriter>()?;
    m.add_class::<sweep::SweepPlan>()?;
    m.add_function(wrap_pyfunction!(sweep::run_scene, m)?)?;
    m.add_function(wrap_pyfunction!(frame_list, m)?)?;
    m.add_function(wrap_pyfunction!(read_frame, m)?)?;
    m.add_function(wrap_pyfunction!(read_walls, m)?)?;
    m.add_function(wrap_pyfunction!(read_period, m)?)?;
    m.add_function(wrap_pyfunction!(read_dimension, m)?)?;
    m.add_function(wrap_pyfunction!(read_walls3d, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
