//! `hourglass bench`: steps per second of the bundled hourglass at several
//! grain counts, on each available backend, as one table.
//!
//! Each row builds the bundled scene with N grains (the parametric hourglass
//! grows to fit them), steps it `warmup` times, then times `steps` steps and
//! ends with a diagnostics reduction so GPU work is finished inside the timed
//! region. By default every step runs exactly `iterations` solver iterations
//! (tol = 0), the fixed-work figure the performance targets are stated in;
//! `converged` uses the scene's tol instead and reports the mean iterations.
//!
//! [`suite`]: every GPU solver at 10,000 to 10,000,000 grains within a time
//! budget, as the table BENCHMARKS.md holds.

pub mod suite;

use std::time::Instant;

use crate::backend::{self, Backend, Device};
use crate::error::Result;
use crate::model::SolverKind;
use crate::model::space::Dim3;
use crate::output::ResultDir;
use crate::scene::{BackendChoice, Scene, Setup, build};

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
    let region = setup.region();
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
    // A backend whose steps do not count contacts counts them here.
    contacts = backend.totals(&region)?.contacts.unwrap_or(contacts);
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

/// `hourglass bench --discharge`: the figure users wait on. Each row runs a
/// whole simulation, as `hourglass run` does (frames and rows every `every`
/// steps into a scratch directory), of the scene with N grains, settle off
/// (the DEM's relaxation too: the gate open from the start), for `duration` simulated seconds, and reports
/// wall seconds per simulated second next to the accuracy reached.
#[derive(Debug, Clone)]
pub struct DischargeConfig {
    /// The scene (default: the bundled hourglass); its grain count, settle
    /// and duration are replaced per row.
    pub scene: Scene,
    pub solvers: Vec<SolverKind>,
    /// Solver tolerances, m (empty: the scene's).
    pub tols: Vec<f64>,
    pub sizes: Vec<u64>,
    /// Simulated seconds per row.
    pub duration: f64,
}

/// One row of the discharge table.
#[derive(Debug, Clone, PartialEq)]
pub struct DischargeRow {
    pub backend: String,
    pub adapter: String,
    pub solver: String,
    /// The smallest and the largest tolerance the steps were solved to, m
    /// (the same twice for a fixed `--tol`).
    pub tol: [f64; 2],
    pub dt: f64,
    pub grains: u64,
    /// Wall seconds per simulated second.
    pub seconds_per_second: f64,
    pub mean_iterations: f64,
    /// Largest overlap of the run, % of the mean radius.
    pub max_overlap_pct: f64,
    /// 99th percentile of the touching pairs' overlaps, % of the mean radius.
    pub p99_overlap_pct: f64,
    pub passed: u64,
    /// Grains lost through the walls; a run that loses grains stops there
    /// (`diverged` says where).
    pub lost: u64,
    pub itmax_steps: u64,
    pub diverged: Option<String>,
}

/// Run one row of the discharge table.
pub fn discharge(
    choice: BackendChoice,
    solver: SolverKind,
    tol: Option<f64>,
    n: u64,
    cfg: &DischargeConfig,
) -> Result<DischargeRow> {
    let mut scene = cfg.scene.clone();
    scene.grains.count = n;
    scene.grains.list = None;
    // A 3D scene keeps its own solver where none is asked (`auto` is the
    // plane's choice between its solvers).
    if !(scene.dimension == 3 && solver == SolverKind::Auto) {
        scene.solver.kind = solver;
    }
    if let Some(tol) = tol {
        scene.solver.tol = Some(tol);
    }
    // Settle off: no settle phase under NSCD and the spring model, no
    // relaxation phase under the DEM; the gate opens at the first step.
    scene.run.settle = 0.0;
    scene.dem.relax_max_steps = 0;
    scene.run.steps = None;
    scene.run.duration = Some(cfg.duration);
    // The figure is the solver's: no per-step contact census (diagnostics.csv's collision columns).
    scene.run.collisions = Some(false);
    if scene.dimension == 3 {
        // What the GPU runs in 3D.
        let on_gpu = crate::scene::GPU_SOLVERS_3D.contains(&scene.solver.kind);
        if choice == BackendChoice::Gpu && !on_gpu {
            return Err(crate::Error::Gpu(format!(
                "--backend gpu: {}",
                crate::scene::SOLID_ON_GPU
            )));
        }
        let setup = crate::scene::build3d(&scene)?;
        let grid = <Dim3 as crate::sim::RunSpace>::grid(&setup)?;
        let mut notices = Vec::new();
        let backend = backend::select_solid(&setup, grid, choice, Device::Open, &mut notices)?;
        return row(&setup, backend, n);
    }
    let setup = build(&scene)?;
    let grid = backend::grid_for(&setup)?;
    let mut notices = Vec::new();
    let backend: Box<dyn Backend> = backend::select(&setup, grid, choice, Device::Open, &mut notices)?;
    row(&setup, backend, n)
}

/// The discharge row of `setup` (its scene's grain count `n`) run on `backend`.
fn row<S: crate::sim::RunSpace>(setup: &Setup<S>, mut backend: Box<dyn Backend<S>>, n: u64) -> Result<DischargeRow> {
    let scene = &setup.scene;
    let dir = scratch_dir()?;
    let result = (|| {
        let mut out = ResultDir::create(&dir, &scene.to_toml())?;
        crate::sim::run(setup, backend.as_mut(), &mut out, &mut crate::sim::Silent)
    })();
    // The scratch directory was created here, for this row only.
    let _ = std::fs::remove_dir_all(&dir);
    let mut row = DischargeRow {
        backend: backend.kind().name().to_string(),
        adapter: backend.adapter(),
        solver: backend.solver(scene.solver.kind).name().to_string(),
        tol: [scene.solver.tol.unwrap_or(0.0); 2],
        dt: f64::from(setup.params.dt),
        grains: n,
        seconds_per_second: 0.0,
        mean_iterations: 0.0,
        max_overlap_pct: 0.0,
        p99_overlap_pct: 0.0,
        passed: 0,
        lost: 0,
        itmax_steps: 0,
        diverged: None,
    };
    match result {
        Ok(s) => {
            let pct = 100.0 / s.radius_mean.max(f64::MIN_POSITIVE);
            row.seconds_per_second = s.wall_seconds / s.sim_time.max(1e-12);
            row.mean_iterations = s.mean_iterations;
            row.max_overlap_pct = s.max_overlap * pct;
            row.p99_overlap_pct = s.overlap_p99 * pct;
            row.passed = s.passed;
            row.lost = s.lost_grains;
            row.itmax_steps = s.itmax_steps;
            if scene.solver.tol.is_none() {
                row.tol = s.tol_range;
            }
        }
        Err(e @ crate::Error::Diverged { .. }) => row.diverged = Some(e.to_string()),
        Err(e) => return Err(e),
    }
    Ok(row)
}

/// A fresh directory under the system's temporary directory.
fn scratch_dir() -> Result<std::path::PathBuf> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "hourglass-bench-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir).map_err(|source| crate::Error::ResultIo {
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}

/// The discharge table's header.
pub const DISCHARGE_HEADER: &str = "| backend | adapter | solver | tol (m) | dt (s) | N | wall s / sim s | mean it. | max overlap % r | p99 overlap % r | passed | lost | itmax steps |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|";

/// A discharge row for the table.
pub fn format_discharge(r: &DischargeRow) -> String {
    let figures = match &r.diverged {
        Some(e) => format!("stopped: {e} | | | | | |"),
        None => format!(
            "{:.2} | {:.1} | {:.2} | {:.2} | {} | {} | {}",
            r.seconds_per_second,
            r.mean_iterations,
            r.max_overlap_pct,
            r.p99_overlap_pct,
            r.passed,
            r.lost,
            r.itmax_steps
        ),
    };
    // A fixed tolerance as given; an adapted one (solver.max_overlap) as its
    // range; none for the explicit models, which have no solve to stop.
    // The solver holds its tolerance in f32: printed as the shortest f32
    // that reads back to it, a scene's 2e-6 shows as 2e-6, not 1.9987e-6.
    let explicit = ["dem", "spring", "impulse"].contains(&r.solver.as_str());
    let tol = if explicit {
        "-".to_string()
    } else if r.tol[0] == r.tol[1] {
        format!("{:e}", r.tol[0] as f32)
    } else {
        format!("{:.1e}-{:.1e}", r.tol[0], r.tol[1])
    };
    format!(
        "| {} | {} | {} | {tol} | {:.1e} | {} | {} |",
        r.backend, r.adapter, r.solver, r.dt, r.grains, figures
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(solver: &str, tol: [f64; 2]) -> DischargeRow {
        DischargeRow {
            backend: "cpu".into(),
            adapter: "CPU (1 threads)".into(),
            solver: solver.into(),
            tol,
            dt: 5.8e-7,
            grains: 10_000,
            seconds_per_second: 1418.74,
            mean_iterations: 0.0,
            max_overlap_pct: 2.42,
            p99_overlap_pct: 1.45,
            passed: 0,
            lost: 0,
            itmax_steps: 0,
            diverged: None,
        }
    }

    #[test]
    fn discharge_rows_state_the_tolerance_only_where_a_solve_stops_on_it() {
        let tol = f64::from(2e-6f32);
        assert_eq!(
            format_discharge(&row("dem", [tol; 2])),
            "| cpu | CPU (1 threads) | dem | - | 5.8e-7 | 10000 | 1418.74 | 0.0 | 2.42 | 1.45 | 0 | 0 | 0 |"
        );
        assert!(format_discharge(&row("nlgs", [4.5e-6; 2])).contains("| nlgs | 4.5e-6 |"));
        assert!(format_discharge(&row("apgd", [tol; 2])).contains("| apgd | 2e-6 |"));
        assert!(format_discharge(&row("nlgs", [1e-6, tol])).contains("| nlgs | 1.0e-6-2.0e-6 |"));
    }
}
