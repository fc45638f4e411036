//! `hourglass bench`: steps per second of the bundled hourglass at several
//! grain counts, on each available backend, as one table.
//!
//! Each row builds the bundled scene with N grains (the parametric hourglass
//! grows to fit them), steps it `warmup` times, then times `steps` steps and
//! ends with a diagnostics reduction so GPU work is finished inside the timed
//! region. By default every step runs exactly `iterations` solver iterations
//! (tol = 0), the fixed-work figure the performance targets are stated in;
//! `converged` uses the scene's tol instead and reports the mean iterations.

use std::time::Instant;

use crate::backend::{self, Backend, Device};
use crate::error::Result;
use crate::model::SolverKind;
use crate::scene::{BackendChoice, Scene, build};

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    pub backends: Vec<BackendChoice>,
    pub solver: SolverKind,
    pub sizes: Vec<u64>,
    /// Timed steps per row.
    pub steps: u64,
    /// Untimed steps before (pipeline warm-up, first contacts).
    pub warmup: u64,
    /// Solver iterations per step (fixed work), unless `converged`.
    pub iterations: u32,
    /// Stop at the scene's tol instead of running a fixed iteration count.
    pub converged: bool,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchRow {
    pub backend: String,
    pub adapter: String,
    pub solver: String,
    pub grains: u64,
    pub steps_per_second: f64,
    pub grain_steps_per_second: f64,
    pub mean_iterations: f64,
    pub contacts: u64,
}

/// Measure one (backend, N) pair.
pub fn measure(choice: BackendChoice, n: u64, cfg: &BenchConfig) -> Result<BenchRow> {
    let mut scene = Scene::default();
    scene.grains.count = n;
    scene.solver.kind = cfg.solver;
    let setup = build(&scene)?;
    let grid = backend::grid_for(&setup)?;
    let mut notices = Vec::new();
    // `gpu` with no adapter is an Error::Gpu: the caller ends that backend's rows.
    let mut backend: Box<dyn Backend> = backend::select(&setup, grid, choice, Device::Open, &mut notices)?;
    let mut p = setup.params;
    if !cfg.converged {
        p.itmax = cfg.iterations;
        p.tol = 0.0;
    }
    let region = crate::model::Region {
        gravity: p.gravity,
        neck_y: setup.neck_y as f32,
        bbox: setup.walls(true).bounding_box(),
    };
    for _ in 0..cfg.warmup {
        backend.step(&p)?;
    }
    backend.totals(&region)?;
    let (mut iterations, mut contacts) = (0u64, 0u64);
    let start = Instant::now();
    for _ in 0..cfg.steps {
        let s = backend.step(&p)?;
        iterations += u64::from(s.iterations);
        contacts = s.contacts;
    }
    backend.totals(&region)?;
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    Ok(BenchRow {
        backend: backend.kind().name().to_string(),
        adapter: backend.adapter(),
        solver: cfg.solver.name().to_string(),
        grains: n,
        steps_per_second: cfg.steps as f64 / secs,
        grain_steps_per_second: (cfg.steps * n) as f64 / secs,
        mean_iterations: iterations as f64 / cfg.steps.max(1) as f64,
        contacts,
    })
}

/// The table header.
pub const HEADER: &str = "| backend | adapter | solver | N | steps/s | grain-steps/s | mean iterations | contacts |";

/// A row formatted for the table (Markdown, so it pastes into BENCHMARKS.md).
pub fn format_row(r: &BenchRow) -> String {
    format!(
        "| {} | {} | {} | {} | {:.2} | {:.3e} | {:.1} | {} |",
        r.backend,
        r.adapter,
        r.solver,
        r.grains,
        r.steps_per_second,
        r.grain_steps_per_second,
        r.mean_iterations,
        r.contacts
    )
}
