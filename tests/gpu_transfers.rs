//! What a step costs in host round trips on the GPU: the NSCD step reads
//! back once per convergence check (every `check_every` iterations) and
//! nothing else, the coloured step adds its colouring's reads, and the DEM
//! step reads back once per check window of steps. Counted by the device
//! context (`GpuContext::transfers`); lavapipe runs the same command stream
//! as a real GPU.

mod common;
mod gpu_common;

use common::{grid_around, hex_pile, params};
use gpu_common::{context, jostle};
use hourglass::backend::Backend;
use hourglass::gpu::GpuBackend;
use hourglass::gpu::dem::GpuDemBackend;
use hourglass::model::{DemParams, Grains, Grid, SolverKind, StepParams, Walls};

const K: usize = 16;

/// A hex pile of 325 grains, jostled so that every step iterates.
fn scene(solver: SolverKind) -> (Grains, Walls, Grid, StepParams) {
    let (mut grains, walls) = hex_pile(25, 0.003);
    jostle(&mut grains, 3);
    let mut p = params(solver);
    p.itmax = 200;
    let grid = grid_around(&grains, &walls, p.alert);
    (grains, walls, grid, p)
}

/// The convergence checks of a step of `iterations` iterations read every
/// `check_every`: coloured NLGS also ends a batch after the first
/// iteration and at every multiple of 10 (`colored_sor_span`), where it
/// decides its over-relaxation.
fn checks(solver: SolverKind, iterations: u32, check_every: u32) -> u64 {
    let (mut done, mut n) = (0u32, 0u64);
    while done < iterations {
        let most = if solver == SolverKind::Colored {
            hourglass::model::solver::colored_sor_span(done)
        } else {
            u32::MAX
        };
        done += check_every.min(iterations - done).min(most);
        n += 1;
    }
    n
}

/// Per NSCD step: read-backs = the convergence checks (+ the colouring's
/// batches and its bucket sizes for coloured NLGS), submissions = one per
/// check (two per colouring read) plus at most three of the step's own.
#[test]
fn an_nscd_step_reads_back_once_per_convergence_check() {
    let Some(ctx) = context() else { return };
    for solver in [
        SolverKind::Jacobi,
        SolverKind::Apgd,
        SolverKind::Uzawa,
        SolverKind::Colored,
    ] {
        let (grains, walls, grid, p) = scene(solver);
        let mut gpu = GpuBackend::new(ctx.clone(), grains, walls, grid, K).unwrap();
        for step in 0..12 {
            let before = gpu.transfers().unwrap();
            let stats = gpu.step(&p).unwrap();
            let after = gpu.transfers().unwrap();
            let (reads, submits) = (after.readbacks - before.readbacks, after.submits - before.submits);
            let checks = checks(solver, stats.iterations, gpu.check_every);
            assert!(stats.iterations > 0, "{solver:?} step {step}: no iteration");
            // A convergence check submits the iterations and reads the
            // counters back at once; a colouring read submits its rounds,
            // then its own copy into a staging buffer.
            let allowed = if solver == SolverKind::Colored {
                // At least one batch of colouring rounds, and the bucket sizes.
                assert!(
                    reads >= checks + 2,
                    "{solver:?} step {step}: {reads} read-backs, {checks} checks"
                );
                checks + 2 * (reads - checks) + 3
            } else {
                assert_eq!(
                    reads, checks,
                    "{solver:?} step {step}: {reads} read-backs for {checks} checks"
                );
                checks + 3
            };
            assert!(
                submits <= allowed,
                "{solver:?} step {step}: {submits} submissions for {reads} read-backs ({checks} checks)"
            );
        }
    }
}

/// Per DEM step: no read-back but once per check window (`check_every`
/// steps), and a fixed number of submissions.
#[test]
fn a_dem_step_reads_back_once_per_check_window() {
    let Some(ctx) = context() else { return };
    let (grains, walls, grid, mut p) = scene(SolverKind::Dem);
    p.dt = 4e-5;
    let mut gpu = GpuDemBackend::new(ctx, grains, walls, grid, K, DemParams::default()).unwrap();
    gpu.check_every = 5;
    let start = gpu.transfers().unwrap();
    let mut submits = Vec::new();
    for step in 1..=20u64 {
        let before = gpu.transfers().unwrap();
        gpu.step(&p).unwrap();
        let after = gpu.transfers().unwrap();
        let reads = after.readbacks - before.readbacks;
        // The first step also primes the force.
        if step > 1 {
            assert_eq!(reads, u64::from(step % 5 == 0), "step {step}: {reads} read-backs");
        }
        submits.push(after.submits - before.submits);
    }
    let end = gpu.transfers().unwrap();
    assert!(
        end.readbacks - start.readbacks <= 5,
        "{} read-backs in 20 steps",
        end.readbacks - start.readbacks
    );
    // Steps 2..20 outside the check windows submit alike.
    let plain: Vec<u64> = (2..=20).filter(|s| s % 5 != 0).map(|s| submits[s - 1]).collect();
    assert!(
        plain.windows(2).all(|w| w[0] == w[1]),
        "submissions per step: {submits:?}"
    );
    assert!(plain[0] <= 2, "submissions per plain DEM step: {submits:?}");
}

/// A whole DEM run on the GPU with the default `run.collisions` reads the
/// device back once per check window and per output row, not every step
/// (counting new contacts at every step would read every grain back every
/// step: it is off on the GPU unless asked for).
#[test]
fn a_gpu_dem_run_does_not_read_every_step_back_by_default() {
    use hourglass::output::ResultDir;
    use hourglass::scene::{Scene, build};
    use hourglass::sim;
    let Some(ctx) = context() else { return };
    let mut grains = String::new();
    for i in 0..8 {
        for j in 0..4 {
            let (x, y) = (0.1 + 0.1 * i as f64, 0.1 + 0.1 * j as f64);
            grains += &format!("[{x}, {y}, 0.0, 0.0, 0.04], ");
        }
    }
    let text = format!(
        "version = 1\n[walls]\nsegments = [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]\n\
         [grains]\nlist = [{grains}]\n[solver]\nkind = \"dem\"\ndt = 1e-4\n[run]\nsteps = 400\nevery = 100\nbackend = \"gpu\"\n"
    );
    let setup = build(&Scene::parse(&text, std::path::Path::new("box.toml")).unwrap()).unwrap();
    let grid = hourglass::backend::grid_for(&setup).unwrap();
    let mut backend = hourglass::backend::gpu_backend(&setup, grid, ctx.clone()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut out = ResultDir::create(dir.path(), &setup.scene.to_toml()).unwrap();
    let before = backend.transfers().unwrap();
    sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    let reads = backend.transfers().unwrap().readbacks - before.readbacks;
    // 400 steps, 5 rows (step 0 and every 100): far fewer read-backs than steps.
    assert!(reads < 100, "{reads} read-backs in 400 steps");
}
