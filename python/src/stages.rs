//! The CPU reference's stages on the caller's arrays: the face of the
//! course's `GrainProblem` (python/hourglass/course.py), whose attributes
//! are numpy arrays the run script changes between calls.

use hourglass::cpu::CpuStepper;
use hourglass::model::{Body, ContactLists, Grains, Grid, SolverKind, Space, StepParams, Walls};
use hourglass::scene::{Scene, build};
use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{field_err, py_err, read_column, read_vecs};

/// Contacts as arrays, each grain-grain pair once (from the copy of its
/// lower index), indices mapped through `ids`; impulses NaN unless `known`.
/// In 3D `normal` and `impulse_t` have three columns (the plane's
/// `impulse_t` is one number a contact, (C,)).
pub(crate) fn contact_arrays<'py, S: Space>(
    py: Python<'py>,
    lists: &ContactLists<S>,
    ids: &[u32],
    known: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (mut grain, mut other, mut wall, mut kind) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut normal, mut gap, mut imp, mut imp_t) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..lists.grains() {
        for c in lists.of(i) {
            let (o, w, k) = match c.body() {
                Body::Grain(j) if (j as usize) < i => continue,
                Body::Grain(j) => (i64::from(ids[j as usize]), -1, 0u8),
                Body::Segment(s) => (-1, i64::from(s), 1),
                Body::Corner(k) => (-1, i64::from(k), 2),
            };
            grain.push(i64::from(ids[i]));
            other.push(o);
            wall.push(w);
            kind.push(k);
            normal.extend(
                bytemuck::cast_slice::<_, f32>(&[c.normal])
                    .iter()
                    .map(|&x| f64::from(x)),
            );
            gap.push(f64::from(c.gap));
            imp.push(if known { f64::from(c.impulse) } else { f64::NAN });
            let t = bytemuck::cast_slice::<_, f32>(std::slice::from_ref(&c.impulse_t));
            imp_t.extend(t.iter().map(|&x| if known { f64::from(x) } else { f64::NAN }));
        }
    }
    let d = PyDict::new(py);
    let n = grain.len();
    d.set_item("grain", Array1::from(grain).into_pyarray(py))?;
    d.set_item("other", Array1::from(other).into_pyarray(py))?;
    d.set_item("wall", Array1::from(wall).into_pyarray(py))?;
    d.set_item("kind", Array1::from(kind).into_pyarray(py))?;
    d.set_item(
        "normal",
        Array2::from_shape_vec((n, S::DIM), normal)
            .expect("DIM per contact")
            .into_pyarray(py),
    )?;
    d.set_item("gap", Array1::from(gap).into_pyarray(py))?;
    d.set_item("impulse", Array1::from(imp).into_pyarray(py))?;
    let width = std::mem::size_of::<S::Tangent>() / 4;
    if width == 1 {
        d.set_item("impulse_t", Array1::from(imp_t).into_pyarray(py))?;
    } else {
        let rows = Array2::from_shape_vec((n, width), imp_t).expect("a tangent per contact");
        d.set_item("impulse_t", rows.into_pyarray(py))?;
    }
    Ok(d)
}

/// Contact detection and the NSCD solve of the CPU reference over grains
/// and walls the caller gives at every call; the contact lists (with their
/// impulses, for the next detection's warm start) are kept in between.
#[pyclass(unsendable, module = "hourglass._core")]
pub struct Stages {
    /// The bundled scene's step parameters: the defaults of every key the
    /// course's methods do not take.
    base: StepParams,
    /// The grains of the last detection, the boundary disks last (fixed).
    grains: Grains,
    /// How many of `grains` move (the rest are the boundary disks).
    free: usize,
    walls: Walls,
    stepper: Option<CpuStepper>,
    /// Contacts per grain the lists hold.
    capacity: usize,
}

#[pymethods]
impl Stages {
    #[new]
    fn new() -> PyResult<Stages> {
        let mut scene = Scene::default();
        scene.grains.count = 1;
        let setup = build(&scene).map_err(py_err)?;
        Ok(Stages {
            base: setup.params,
            grains: Grains::default(),
            free: 0,
            walls: Walls::default(),
            stepper: None,
            capacity: scene.solver.contact_capacity as usize,
        })
    }

    /// Detect every pair closer than `alert` (m) among the grains
    /// (`positions` (N, 2), `radii` (N,), `masses` (N,)), the fixed
    /// boundary disks (`disks` (K, 3): x, y, r; ids N..N+K) and the wall
    /// `segments` ((M, 2, 2) flattened to (M, 4): x0, y0, x1, y1). A pair
    /// found by the last detection starts from its last impulse (warm
    /// start). Returns the contacts as arrays (see `Simulation.contacts`).
    // The course's call: each argument is one of the problem's arrays.
    #[allow(clippy::too_many_arguments)]
    fn detect<'py>(
        &mut self,
        py: Python<'py>,
        positions: PyReadonlyArray2<'py, f64>,
        radii: PyReadonlyArray1<'py, f64>,
        masses: PyReadonlyArray1<'py, f64>,
        segments: PyReadonlyArray2<'py, f64>,
        disks: PyReadonlyArray2<'py, f64>,
        alert: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        if !(alert.is_finite() && alert >= 0.0) {
            return Err(field_err(
                "alert",
                format!("must be a finite distance >= 0 m, got {alert}"),
            ));
        }
        let pos = read_vecs::<hourglass::model::Dim2>("positions", &positions, None)?;
        let n = pos.len();
        let radius = read_column("radii", &radii, n)?;
        let masses = masses.as_array();
        if masses.len() != n {
            return Err(field_err(
                "masses",
                format!("must have shape ({n},), got {:?}", masses.shape()),
            ));
        }
        let mass: Vec<f64> = masses.to_vec();
        for i in 0..n {
            if radius[i] <= 0.0 {
                return Err(field_err(&format!("radii[{i}]"), "must be > 0"));
            }
            if mass[i].is_nan() || mass[i] <= 0.0 {
                return Err(field_err(
                    &format!("masses[{i}]"),
                    "must be > 0 (inf for a fixed grain)",
                ));
            }
        }
        let seg = segments.as_array();
        if seg.nrows() > 0 && seg.ncols() != 4 {
            return Err(field_err(
                "segments",
                format!("must have shape (M, 4) or (M, 2, 2), got {:?}", seg.shape()),
            ));
        }
        let lines: Vec<[[f64; 2]; 2]> = seg.rows().into_iter().map(|r| [[r[0], r[1]], [r[2], r[3]]]).collect();
        if let Some(i) = lines.iter().position(|l| l.iter().flatten().any(|x| !x.is_finite())) {
            return Err(field_err(&format!("segments[{i}]"), "must be finite"));
        }
        let dk = disks.as_array();
        if dk.nrows() > 0 && dk.ncols() != 3 {
            return Err(field_err(
                "disks",
                format!("must have shape (K, 3): x, y, r; got {:?}", dk.shape()),
            ));
        }
        let mut all_pos = pos;
        let mut all_r = radius;
        let mut inv_mass: Vec<f32> = mass
            .iter()
            .map(|&m| if m.is_finite() { (1.0 / m) as f32 } else { 0.0 })
            .collect();
        for (k, d) in dk.rows().into_iter().enumerate() {
            if !(d[0].is_finite() && d[1].is_finite() && d[2].is_finite() && d[2] > 0.0) {
                return Err(field_err(&format!("disks[{k}]"), "must be finite with a radius > 0"));
            }
            all_pos.push([d[0] as f32, d[1] as f32]);
            all_r.push(d[2] as f32);
            inv_mass.push(0.0);
        }
        let total = all_pos.len();
        let mut grains = Grains::new(all_pos, vec![[0.0; 2]; total], all_r, 1.0);
        grains.inv_mass = inv_mass;
        let walls = Walls::new(&lines);
        // The grid covers grains and walls, with cells of one largest
        // diameter plus the alert distance (each pair is then within a cell's
        // neighbourhood); rebuilt when the grains leave it.
        let mut bb = [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY];
        for (p, r) in grains.pos.iter().zip(&grains.radius) {
            bb = [
                bb[0].min(p[0] - r),
                bb[1].min(p[1] - r),
                bb[2].max(p[0] + r),
                bb[3].max(p[1] + r),
            ];
        }
        if !walls.segments.is_empty() || !walls.corners.is_empty() {
            let w = walls.bounding_box();
            bb = [bb[0].min(w[0]), bb[1].min(w[1]), bb[2].max(w[2]), bb[3].max(w[3])];
        }
        if total == 0 {
            bb = [0.0, 0.0, 1.0, 1.0];
        }
        let cell = 2.0 * grains.max_radius() + alert as f32;
        // The last grid serves while it covers the grains with cells as large
        // (its stepper keeps the impulses for the warm start); a new one gets
        // a quarter of the extent as margin so that moving grains keep it.
        let covers = |g: &Grid| {
            g.cell >= cell
                && bb[0] >= g.origin[0]
                && bb[1] >= g.origin[1]
                && bb[2] <= g.origin[0] + g.nx as f32 * g.cell
                && bb[3] <= g.origin[1] + g.ny as f32 * g.cell
        };
        let same = self.grains.len() == grains.len();
        let mut stepper = match self.stepper.take().filter(|s| same && covers(&s.grid)) {
            Some(s) => s,
            None => {
                let margin = cell.max(0.25 * (bb[2] - bb[0]).max(bb[3] - bb[1]));
                let bb = [bb[0] - margin, bb[1] - margin, bb[2] + margin, bb[3] + margin];
                CpuStepper::new(Grid::covering(bb, cell).map_err(py_err)?, self.capacity)
            }
        };
        stepper.detect_keeping_impulses(&grains, &walls, alert as f32);
        let d = contact_arrays(py, stepper.detected(), &grains.id, true)?;
        self.grains = grains;
        self.free = n;
        self.walls = walls;
        self.stepper = Some(stepper);
        Ok(d)
    }

    /// The contacts of the last `detect`, with the impulses of the last solve.
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match &self.stepper {
            Some(s) => contact_arrays(py, s.detected(), &self.grains.id, true),
            None => contact_arrays(
                py,
                &ContactLists::<hourglass::model::Dim2>::new(0, self.capacity),
                &[],
                true,
            ),
        }
    }

    /// Solve the contacts of the last `detect` for the free velocities
    /// `velocities` ((N, 2), m/s) with `solver` ("nlgs" or "jacobi"):
    /// every contact ends with u_n + max(gap, 0)/dt >= 0 and a
    /// non-negative impulse that is zero where it is > 0, to `tol` (m) within
    /// `itmax` iterations. Returns (velocities after the contacts,
    /// iterations, converged).
    #[pyo3(signature = (velocities, tol, dt, itmax, solver))]
    fn solve<'py>(
        &mut self,
        py: Python<'py>,
        velocities: PyReadonlyArray2<'py, f64>,
        tol: f64,
        dt: f64,
        itmax: u32,
        solver: &str,
    ) -> PyResult<(Bound<'py, PyArray2<f64>>, u32, bool)> {
        let kind = match solver {
            "nlgs" => SolverKind::Nlgs,
            "jacobi" => SolverKind::Jacobi,
            other => {
                return Err(field_err(
                    "solver",
                    format!("must be \"nlgs\" or \"jacobi\", got \"{other}\""),
                ));
            }
        };
        if !(tol.is_finite() && tol > 0.0) {
            return Err(field_err("tol", format!("must be a finite distance > 0 m, got {tol}")));
        }
        if !(dt.is_finite() && dt > 0.0) {
            return Err(field_err("dt", format!("must be a finite time > 0 s, got {dt}")));
        }
        if itmax == 0 {
            return Err(field_err("itmax", "must be >= 1"));
        }
        let Some(stepper) = self.stepper.as_mut() else {
            return Err(field_err("contacts", "call detect_contacts(alert) before solving"));
        };
        let n = self.free;
        let vel = read_vecs::<hourglass::model::Dim2>("velocities", &velocities, Some(n))?;
        for (i, v) in vel.into_iter().enumerate() {
            self.grains.vel[i] = v;
        }
        let p = StepParams {
            solver: kind,
            dt: dt as f32,
            tol: tol as f32,
            itmax,
            gravity: [0.0, 0.0],
            // The course's target u_n >= -max(d, 0)/dt: overlaps are not pushed out.
            overlap_relax: 0.0,
            overlap_relax_default: false,
            overlap_iterations: 0,
            mu: 0.0,
            mu_wall: 0.0,
            ..self.base
        };
        let stats = stepper.solve_detected(&mut self.grains, &p).map_err(py_err)?;
        let flat: Vec<f64> = self.grains.vel[..n]
            .iter()
            .flat_map(|v| [f64::from(v[0]), f64::from(v[1])])
            .collect();
        let out = Array2::from_shape_vec((n, 2), flat)
            .expect("two per grain")
            .into_pyarray(py);
        Ok((out, stats.iterations, stats.converged))
    }
}
