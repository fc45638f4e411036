//! A result directory written from Python (the course's run script), in
//! the format `hourglass run` writes, so `hourglass view`, `render` and
//! `plot` open it.

use std::path::PathBuf;

use hourglass::model::{Grains, Walls};
use hourglass::output::{ResultDir, Row, Summary};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use crate::{HourglassError, field_err, py_err, read_column, read_vecs};

/// Writes frames, diagnostics rows and, at `finish`, summary.json (the
/// mark of a complete run: a script that stops early leaves a directory
/// that does not look complete).
#[pyclass(unsendable, module = "hourglass._core")]
pub struct ResultWriter {
    out: Option<ResultDir>,
    gravity: [f64; 2],
    rows: u64,
    iterations: f64,
    steps: u64,
    max_overlap: f64,
    grains: u64,
}

impl ResultWriter {
    fn out(&mut self) -> PyResult<&mut ResultDir> {
        self.out
            .as_mut()
            .ok_or_else(|| HourglassError::new_err("the result directory is finished; open a new ResultWriter"))
    }
}

fn grains_of(
    positions: &PyReadonlyArray2<'_, f64>,
    velocities: &PyReadonlyArray2<'_, f64>,
    radii: &PyReadonlyArray1<'_, f64>,
    masses: Option<&PyReadonlyArray1<'_, f64>>,
) -> PyResult<Grains> {
    let pos = read_vecs::<hourglass::model::Dim2>("positions", positions, None)?;
    let n = pos.len();
    let vel = read_vecs::<hourglass::model::Dim2>("velocities", velocities, Some(n))?;
    let radius = read_column("radii", radii, n)?;
    let mut g = Grains::new(pos, vel, radius, 1.0);
    if let Some(m) = masses {
        let m = m.as_array();
        if m.len() != n {
            return Err(field_err(
                "masses",
                format!("must have shape ({n},), got {:?}", m.shape()),
            ));
        }
        g.inv_mass = m
            .iter()
            .map(|&m| {
                if m.is_finite() && m > 0.0 {
                    (1.0 / m) as f32
                } else {
                    0.0
                }
            })
            .collect();
    }
    Ok(g)
}

#[pymethods]
impl ResultWriter {
    /// Open `directory` for writing (refused if it holds files hourglass
    /// did not write, unless `force`), with the wall `segments` ((M, 4):
    /// x0, y0, x1, y1), the `gravity` the potential energy is measured
    /// in, and `scene_toml`, the text kept as scene.toml.
    #[new]
    #[pyo3(signature = (directory, segments, gravity=(0.0, -9.81), scene_toml=None, force=false))]
    fn new(
        directory: PathBuf,
        segments: PyReadonlyArray2<'_, f64>,
        gravity: (f64, f64),
        scene_toml: Option<String>,
        force: bool,
    ) -> PyResult<ResultWriter> {
        let seg = segments.as_array();
        if seg.nrows() > 0 && seg.ncols() != 4 {
            return Err(field_err(
                "segments",
                format!("must have shape (M, 4), got {:?}", seg.shape()),
            ));
        }
        let lines: Vec<[[f64; 2]; 2]> = seg.rows().into_iter().map(|r| [[r[0], r[1]], [r[2], r[3]]]).collect();
        let text = scene_toml.unwrap_or_else(|| "# written by hourglass.ResultWriter (Python)\n".to_string());
        let out = ResultDir::create_with(&directory, &text, force).map_err(py_err)?;
        out.walls(&Walls::new(&lines)).map_err(py_err)?;
        Ok(ResultWriter {
            out: Some(out),
            gravity: [gravity.0, gravity.1],
            rows: 0,
            iterations: 0.0,
            steps: 0,
            max_overlap: 0.0,
            grains: 0,
        })
    }

    /// Write one frame of the grains at `time` (s).
    fn frame(
        &mut self,
        time: f64,
        positions: PyReadonlyArray2<'_, f64>,
        velocities: PyReadonlyArray2<'_, f64>,
        radii: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<()> {
        let g = grains_of(&positions, &velocities, &radii, None)?;
        self.grains = g.len() as u64;
        self.out()?.frame(time, &g).map_err(py_err)
    }

    /// Append a diagnostics row: the energies, momentum and barycentre are
    /// computed from the arrays (masses in kg per metre; inf for fixed
    /// grains, which count for nothing), the rest is as given.
    #[pyo3(signature = (step, time, positions, velocities, radii, masses, contacts=0, iterations=0.0, max_overlap=0.0))]
    #[allow(clippy::too_many_arguments)]
    fn row(
        &mut self,
        step: u64,
        time: f64,
        positions: PyReadonlyArray2<'_, f64>,
        velocities: PyReadonlyArray2<'_, f64>,
        radii: PyReadonlyArray1<'_, f64>,
        masses: PyReadonlyArray1<'_, f64>,
        contacts: u64,
        iterations: f64,
        max_overlap: f64,
    ) -> PyResult<()> {
        let g = grains_of(&positions, &velocities, &radii, Some(&masses))?;
        let (mut ke, mut pe, mut p, mut m_sum, mut x_sum) = (0.0, 0.0, [0.0f64; 2], 0.0, [0.0f64; 2]);
        for i in 0..g.len() {
            if g.inv_mass[i] <= 0.0 {
                continue;
            }
            let m = 1.0 / f64::from(g.inv_mass[i]);
            let (x, v) = (g.pos[i].map(f64::from), g.vel[i].map(f64::from));
            ke += 0.5 * m * (v[0] * v[0] + v[1] * v[1]);
            pe -= m * (self.gravity[0] * x[0] + self.gravity[1] * x[1]);
            p = [p[0] + m * v[0], p[1] + m * v[1]];
            m_sum += m;
            x_sum = [x_sum[0] + m * x[0], x_sum[1] + m * x[1]];
        }
        let bary = if m_sum > 0.0 {
            [x_sum[0] / m_sum, x_sum[1] / m_sum]
        } else {
            [0.0; 2]
        };
        self.rows += 1;
        self.iterations += iterations;
        self.steps = self.steps.max(step);
        self.max_overlap = self.max_overlap.max(max_overlap);
        self.grains = g.len() as u64;
        let r = Row {
            step,
            time,
            grains: g.len() as u64,
            kinetic_energy: ke,
            potential_energy: pe,
            total_energy: ke + pe,
            momentum: [p[0], p[1], 0.0],
            barycentre: [bary[0], bary[1], 0.0],
            contacts,
            iterations,
            max_overlap,
            ..Row::default()
        };
        self.out()?.row(&r).map_err(py_err)
    }

    /// Write summary.json (steps and simulated time of the run; `solver`
    /// names what solved the contacts) and close the directory.
    #[pyo3(signature = (steps, sim_time, wall_seconds=0.0, solver="nlgs".to_string()))]
    fn finish(&mut self, steps: u64, sim_time: f64, wall_seconds: f64, solver: String) -> PyResult<()> {
        let out = self
            .out
            .take()
            .ok_or_else(|| HourglassError::new_err("the result directory is already finished"))?;
        let frames = out.frame_count() as u64;
        let per = |x: f64| if wall_seconds > 0.0 { x / wall_seconds } else { 0.0 };
        let summary = Summary {
            grains: self.grains,
            steps,
            settle_steps: 0,
            sim_time,
            discharge_start: 0.0,
            wall_seconds,
            steps_per_second: per(steps as f64),
            grain_steps_per_second: per(steps as f64 * self.grains as f64),
            backend: "python".into(),
            adapter: "GrainProblem (CPU reference stages)".into(),
            solver,
            mean_iterations: if self.rows > 0 {
                self.iterations / self.rows as f64
            } else {
                0.0
            },
            itmax_steps: 0,
            contact_overflow: 0,
            alert_exceeded_steps: 0,
            lost_grains: 0,
            passed: 0,
            flow_rate: None,
            flow_fit_window: None,
            flow_rates: Vec::new(),
            max_overlap: self.max_overlap,
            overlap_p50: 0.0,
            overlap_p99: 0.0,
            radius_mean: 0.0,
            max_overlap_target: None,
            tol_range: [0.0; 2],
            frames,
            colors: 0,
            completed: true,
            subdivided_steps: 0,
            max_substeps: 1,
            emitted: 0,
            emissions_waited: 0,
            evacuation_time: None,
        };
        out.finish(&summary).map_err(py_err)
    }
}
