//! The Rust half of `hourglass.sweep` (python/hourglass/sweep.py): the
//! sweep resolved and its directory kept here, each point run in whatever
//! process the executor chose ([`run_scene`]).

use std::path::{Path, PathBuf};

use hourglass::output::Summary;
use hourglass::scene::Scene;
use hourglass::sweep::{Outcome, Sweep, SweepDir};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::{HourglassError, py_err, toml_value};

/// A sweep and its directory: the points still to run, and the table
/// (`results.csv`) written as their outcomes come in.
#[pyclass(module = "hourglass._core")]
pub struct SweepPlan {
    sweep: Sweep,
    dir: SweepDir,
    outcomes: Vec<Outcome>,
}

#[pymethods]
impl SweepPlan {
    /// `spec`: a sweep file's path, or a dict of the same tables (a
    /// relative `scene` is then taken from the working directory). `out`:
    /// the sweep directory, claimed as `hourglass sweep --out` claims it.
    /// Every point is checked before this returns.
    #[new]
    fn new(spec: &Bound<'_, PyAny>, out: PathBuf) -> PyResult<SweepPlan> {
        let sweep = if let Ok(d) = spec.cast::<PyDict>() {
            let toml::Value::Table(table) = toml_value("sweep", d.as_any())? else {
                unreachable!("a dict is a table");
            };
            Sweep::from_table(table, "python sweep", Path::new(".")).map_err(py_err)?
        } else if spec.is_instance_of::<PyString>() || spec.hasattr("__fspath__")? {
            let path: PathBuf = spec.extract()?;
            Sweep::load(&path).map_err(py_err)?
        } else {
            return Err(crate::field_err(
                "spec",
                "must be a sweep file's path or a dict of its tables",
            ));
        };
        let dir = SweepDir::claim(&out, &sweep).map_err(py_err)?;
        let outcomes = dir.outcomes(&sweep).map_err(py_err)?;
        dir.write_table(&sweep, &outcomes).map_err(py_err)?;
        Ok(SweepPlan { sweep, dir, outcomes })
    }

    /// The points not finished yet, each `(id, scene TOML, origin)`: the
    /// scene's `run.out` is the point's absolute `runs/<id>/`, so a worker
    /// anywhere on a shared file system writes it in place.
    fn pending(&self) -> PyResult<Vec<(String, String, String)>> {
        let mut out = Vec::new();
        for (p, o) in self.sweep.points.iter().zip(&self.outcomes) {
            if !matches!(o, Outcome::Pending) {
                continue;
            }
            let mut scene = p.scene.clone();
            let run = self.dir.run_dir(&p.id);
            scene.run.out = std::path::absolute(&run).unwrap_or(run);
            if let Some(mesh) = &scene.walls.mesh {
                scene.walls.mesh = Some(std::path::absolute(mesh).unwrap_or_else(|_| mesh.clone()));
            }
            out.push((p.id.clone(), scene.to_toml(), p.scene.origin.clone()));
        }
        Ok(out)
    }

    /// Record point `id`'s outcome: `ok` with its summary.json text, or not
    /// with its one-line error; results.csv is rewritten.
    fn record(&mut self, id: &str, ok: bool, text: &str) -> PyResult<()> {
        let i = self
            .sweep
            .points
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| crate::field_err("id", format!("the sweep has no point {id}")))?;
        self.outcomes[i] = if ok {
            let s: Summary =
                serde_json::from_str(text).map_err(|e| HourglassError::new_err(format!("point {id}: summary: {e}")))?;
            Outcome::Done(Box::new(s))
        } else {
            Outcome::Failed(text.replace('\n', " "))
        };
        self.dir.write_table(&self.sweep, &self.outcomes).map_err(py_err)?;
        Ok(())
    }

    /// The number of points.
    fn __len__(&self) -> usize {
        self.sweep.points.len()
    }

    /// The table's path, `DIR/results.csv`.
    #[getter]
    fn table(&self) -> PathBuf {
        self.dir.path().join("results.csv")
    }
}

/// Run one scene (a sweep point's TOML, whose `run.out` says where) in this
/// process, as `hourglass run` would; returns its summary.json text.
/// `origin` names the point in errors.
#[pyfunction]
pub fn run_scene(py: Python<'_>, scene: &str, origin: &str) -> PyResult<String> {
    let mut s = Scene::parse(scene, Path::new(origin)).map_err(py_err)?;
    s.origin = origin.to_string();
    let summary = py.detach(|| hourglass::sweep::run_scene(&s)).map_err(py_err)?;
    serde_json::to_string(&summary).map_err(|e| HourglassError::new_err(e.to_string()))
}
