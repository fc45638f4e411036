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

use hourglass::error::Error;
use hourglass::output::read;
use hourglass::scene::{BackendChoice, Scene};
use numpy::ndarray::{Array1, Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

mod simulation;
mod stages;
mod sweep;
mod writer;

use simulation::Simulation;

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
pub(crate) fn apply_overrides(scene: Scene, origin: &Path, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Scene> {
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

pub(crate) fn backend_choice(name: &str) -> PyResult<BackendChoice> {
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

fn column<'py>(py: Python<'py>, v: impl Iterator<Item = f64>) -> Bound<'py, PyArray1<f64>> {
    Array1::from_iter(v).into_pyarray(py)
}

/// The rows of an (N, DIM) array as vectors of space `S`, checking the
/// shape (and N when given) and that every value is finite.
pub(crate) fn read_vecs<S: hourglass::model::Space>(
    name: &str,
    a: &PyReadonlyArray2<'_, f64>,
    n: Option<usize>,
) -> PyResult<Vec<S::Vec>> {
    let a = a.as_array();
    let d = S::DIM;
    if a.ncols() != d || n.is_some_and(|n| a.nrows() != n) {
        let want = n.map_or(format!("(N, {d})"), |n| format!("({n}, {d})"));
        return Err(field_err(name, format!("must have shape {want}, got {:?}", a.shape())));
    }
    let mut out = Vec::with_capacity(a.nrows());
    for (i, row) in a.rows().into_iter().enumerate() {
        if !row.iter().all(|x| x.is_finite()) {
            return Err(field_err(&format!("{name}[{i}]"), "must be finite"));
        }
        let mut v = S::Vec::default();
        for (k, x) in row.iter().enumerate() {
            v[k] = *x as f32;
        }
        out.push(v);
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
    d.set_item("positions", rows(py, &g.pos))?;
    d.set_item("velocities", rows(py, &g.vel))?;
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
pub(crate) fn rows<'py, const K: usize>(py: Python<'py>, v: &[[f32; K]]) -> Bound<'py, PyArray2<f64>> {
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

pub(crate) fn segments<'py>(py: Python<'py>, w: &hourglass::model::Walls) -> Bound<'py, PyArray3<f64>> {
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
