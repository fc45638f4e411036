//! Periodic boundaries along x on the GPU backend (`walls.periodic_x`,
//! docs/walls.md#periodic-boundaries), whole steps against the CPU: a grain
//! leaving one side re-enters the other with its velocity, grains touch
//! across the boundary with the same impulse or force as the same pair away
//! from it, nothing is lost through a periodic side, and every GPU model runs
//! a periodic scene. The stage twins (binning, detection across the seam,
//! the wrap, the census) are in tests/gpu_stages.rs.

mod common;
mod gpu_common;

use std::path::Path;

use gpu_common::context;
use hourglass::backend::{BackendKind, Device, check_initial_state, cpu_backend, gpu_backend, grid_for, select};
use hourglass::cpu::CpuStepper;
use hourglass::cpu::dem::DemStepper;
use hourglass::gpu::GpuBackend;
use hourglass::gpu::dem::GpuDemBackend;
use hourglass::model::{DemParams, Grains, Grid, Region, SolverKind, StepParams, Walls};
use hourglass::output::{ResultDir, Summary};
use hourglass::scene::build::dem_dt;
use hourglass::scene::{BackendChoice, Scene, Setup, build};
use hourglass::sim;

const XMIN: f32 = -0.05;
const XMAX: f32 = 0.05;
const PERIOD: &str = "[walls]\nsegments = [[-0.08, 0.0, 0.08, 0.0]]\nperiodic_x = [-0.05, 0.05]\n";

/// Every model the GPU runs.
const GPU_SOLVERS: [&str; 6] = ["jacobi", "colored", "uzawa", "apgd", "dem", "spring"];

fn setup(text: &str) -> Setup {
    build(&Scene::parse(&format!("version = 1\n{text}"), Path::new("periodic.toml")).unwrap()).unwrap()
}

/// Run `text` to its end on the GPU (`ctx`) or, without one, the CPU: the
/// summary and the grains at the end.
fn run(text: &str, ctx: Option<&hourglass::gpu::GpuContext>) -> (Summary, Grains) {
    let setup = setup(text);
    let grid = grid_for(&setup).unwrap();
    assert!(grid.is_periodic());
    check_initial_state(&setup, &grid).unwrap();
    let mut backend = match ctx {
        Some(ctx) => gpu_backend(&setup, grid, ctx.clone()).unwrap(),
        None => cpu_backend(&setup, grid),
    };
    let on_gpu = backend.kind() == BackendKind::Gpu;
    assert_eq!(on_gpu, ctx.is_some());
    let dir = tempfile::tempdir().unwrap();
    let mut out = ResultDir::create(&dir.path().join("out"), &setup.scene.to_toml()).unwrap();
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    (summary, backend.grains().unwrap().clone())
}

fn inside_period(g: &Grains, what: &str) {
    for (i, p) in g.pos.iter().enumerate() {
        assert!(
            p[0] >= XMIN && p[0] < XMAX,
            "{what}: grain {i} at x = {} outside the period",
            p[0]
        );
    }
}

#[test]
fn a_grain_crossing_xmax_re_enters_at_xmin_with_its_velocity_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in GPU_SOLVERS {
        // 1 m/s along x, no gravity, 8 mm above the floor: it crosses xmax
        // at t = 0.01 s and is 0.03 m on at 0.04 s.
        let text = format!(
            "gravity = [0.0, 0.0]\n{PERIOD}[solver]\nkind = \"{solver}\"\n\
             [grains]\nlist = [[0.04, 0.008, 1.0, 0.0, 0.003]]\n[run]\nduration = 0.04\nevery = 10\n"
        );
        let (summary, g) = run(&text, Some(&ctx));
        assert_eq!((summary.lost_grains, summary.grains), (0, 1), "{solver}");
        inside_period(&g, solver);
        let expected = 0.04 + summary.sim_time - 0.1;
        assert!(
            (f64::from(g.pos[0][0]) - expected).abs() < 1e-4,
            "{solver}: x = {}, expected {expected} after {} s",
            g.pos[0][0],
            summary.sim_time
        );
        assert!(
            (g.vel[0][0] - 1.0).abs() < 1e-6 && g.vel[0][1] == 0.0,
            "{solver}: v = {:?}",
            g.vel[0]
        );
        assert!((g.pos[0][1] - 0.008).abs() < 1e-6, "{solver}: y = {}", g.pos[0][1]);
        // The CPU moves and wraps it the same, bit for bit.
        let (_, cpu) = run(&text, None);
        assert_eq!(
            g.pos[0].map(f32::to_bits),
            cpu.pos[0].map(f32::to_bits),
            "{solver}: gpu {:?} cpu {:?}",
            g.pos,
            cpu.pos
        );
        assert_eq!(g.vel[0], cpu.vel[0], "{solver}");
    }
}

/// Two grains of radius `r` overlapping by `d`: across the boundary (one at
/// xmin + r - d/2, the other at xmax - r + d/2) or, `seam` false, the same
/// pair in the middle of the period.
fn pair(r: f32, d: f32, seam: bool) -> Grains {
    if seam {
        common::grains(&[(XMIN + r - 0.5 * d, 0.0, r), (XMAX - r + 0.5 * d, 0.0, r)])
    } else {
        common::grains(&[(r - 0.5 * d, 0.0, r), (-r + 0.5 * d, 0.0, r)])
    }
}

fn periodic_grid(r: f32, alert: f32) -> Grid {
    Grid::periodic_x([XMIN, -0.01, XMAX, 0.01], 2.0 * r + alert, [XMIN, XMAX]).unwrap()
}

fn region() -> Region {
    Region {
        gravity: [0.0, 0.0],
        neck_y: 0.0,
        bbox: [XMIN, -1.0, XMAX, 1.0],
        period: XMAX - XMIN,
    }
}

/// Their gap through the boundary (the minimum image), m.
fn gap_across(g: &Grains) -> f32 {
    let dx = g.pos[0][0] - g.pos[1][0];
    let period = XMAX - XMIN;
    let dx = dx - period * (dx / period).round();
    dx.hypot(g.pos[0][1] - g.pos[1][1]) - g.radius[0] - g.radius[1]
}

/// The pair was pushed apart along x: the grain at the smaller x (of the
/// pair's image) towards +x, the other towards -x, momenta opposite.
fn check_pushed_apart(g: &Grains, start_gap: f32, what: &str) {
    inside_period(g, what);
    assert!(
        gap_across(g) > start_gap,
        "{what}: gap {} from {start_gap}",
        gap_across(g)
    );
    assert!(g.vel[0][0] > 0.0 && g.vel[1][0] < 0.0, "{what}: v = {:?}", g.vel);
    let p = g.vel[0][0] + g.vel[1][0];
    assert!(
        p.abs() <= 1e-6 * g.vel[0][0].abs(),
        "{what}: momentum {p} of {:?}",
        g.vel
    );
    assert!(g.vel[0][1] == 0.0 && g.vel[1][1] == 0.0, "{what}: v = {:?}", g.vel);
}

/// Velocities agree within `rel` of the largest.
fn same_velocities(a: &Grains, b: &Grains, rel: f32, what: &str) {
    let scale = a.vel.iter().flatten().fold(0.0f32, |m, v| m.max(v.abs()));
    assert!(scale > 0.0, "{what}: nothing moved");
    for (i, (u, v)) in a.vel.iter().zip(&b.vel).enumerate() {
        for k in 0..2 {
            assert!(
                (u[k] - v[k]).abs() <= rel * scale,
                "{what}: grain {i}: {:?} against {:?}",
                a.vel,
                b.vel
            );
        }
    }
}

/// The census of the pair `g` on the GPU (after a step: the lists of its
/// detection): the overlap at its positions through the boundary.
fn census_overlap(totals: hourglass::model::Totals, g: &Grains, what: &str) {
    let d = -gap_across(g);
    assert!(d > 0.0, "{what}: the pair no longer overlaps ({d})");
    assert!(
        (totals.max_overlap - f64::from(d)).abs() < 1e-7,
        "{what}: overlap {} of {d}",
        totals.max_overlap
    );
    assert_eq!(totals.lost, 0, "{what}");
}

#[test]
fn grains_overlapping_through_the_boundary_are_pushed_apart_under_nscd_on_the_gpu() {
    let Some(ctx) = context() else { return };
    let (r, d) = (0.003, 2e-4);
    for solver in [
        SolverKind::Jacobi,
        SolverKind::Colored,
        SolverKind::Uzawa,
        SolverKind::Apgd,
    ] {
        let mut p = common::params(solver);
        p.gravity = [0.0, 0.0];
        // A fixed number of iterations (a multiple of the GPU's check
        // interval), so the GPU and the CPU stop at the same one.
        (p.tol, p.itmax) = (0.0, 40);
        let what = solver.name();
        let mut after = Vec::new();
        for seam in [true, false] {
            let mut gpu = GpuBackend::new(
                ctx.clone(),
                pair(r, d, seam),
                Walls::default(),
                periodic_grid(r, p.alert),
                16,
            )
            .unwrap();
            let stats = gpu.step(&p).unwrap();
            assert_eq!(stats.contacts, 1, "{what}: the pair is found (seam {seam})");
            after.push(gpu.grains().unwrap().clone());
            census_overlap(gpu.totals(&region()).unwrap(), &after[after.len() - 1], what);
            for _ in 0..4 {
                gpu.step(&p).unwrap();
            }
            check_pushed_apart(gpu.grains().unwrap(), -d, &format!("{what} (seam {seam})"));
        }
        // One step: the same impulse across the seam as in the middle, and as on the CPU.
        same_velocities(&after[0], &after[1], 1e-4, &format!("{what}: seam against middle"));
        let mut g = pair(r, d, true);
        let mut cpu = CpuStepper::new(periodic_grid(r, p.alert), 16);
        cpu.step(&mut g, &Walls::default(), &p).unwrap();
        same_velocities(&after[0], &g, 1e-5, &format!("{what}: gpu against cpu"));
    }
}

fn dem_params(g: &Grains, dem: &DemParams, alert: f32) -> StepParams {
    let mut p = common::params(SolverKind::Dem);
    p.gravity = [0.0, 0.0];
    p.alert = alert;
    p.dt = dem_dt(g, f64::from(dem.kn), 0.1) as f32;
    p
}

#[test]
fn grains_overlapping_through_the_boundary_are_pushed_apart_under_the_dem_on_the_gpu() {
    let Some(ctx) = context() else { return };
    let (r, d) = (0.003, 2e-4);
    let dem = DemParams::default();
    let alert = 0.001;
    let mut after = Vec::new();
    for seam in [true, false] {
        let g = pair(r, d, seam);
        let p = dem_params(&g, &dem, alert);
        let mut gpu = GpuDemBackend::new(
            ctx.clone(),
            g.clone(),
            Walls::default(),
            periodic_grid(r, alert),
            16,
            dem,
        )
        .unwrap();
        let mut cpu_g = g;
        let mut cpu = DemStepper::new(periodic_grid(r, alert), 16, dem);
        for step in 0..20 {
            if step == 1 {
                census_overlap(gpu.totals(&region()).unwrap(), &gpu.grains().unwrap().clone(), "dem");
            }
            gpu.step(&p).unwrap();
            cpu.step(&mut cpu_g, &Walls::default(), &p);
        }
        let got = gpu.grains().unwrap().clone();
        check_pushed_apart(&got, -d, &format!("dem (seam {seam})"));
        // The same force as the CPU's, step by step.
        same_velocities(&got, &cpu_g, 1e-5, &format!("dem (seam {seam}): gpu against cpu"));
        after.push(got);
    }
    same_velocities(&after[0], &after[1], 1e-4, "dem: seam against middle");
}

#[test]
fn a_pile_on_a_periodic_floor_settles_inside_the_period_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for (solver, duration) in [("apgd", 0.3), ("dem", 0.15)] {
        let text = format!(
            "{PERIOD}[solver]\nkind = \"{solver}\"\n[grains]\ncount = 40\nregion = [-0.05, 0.002, 0.05, 0.04]\n\
             [run]\nduration = {duration}\nevery = 50\n"
        );
        let start = setup(&text).grains;
        let (summary, g) = run(&text, Some(&ctx));
        // Nothing is lost through the periodic sides: the same grains, the same mass.
        assert_eq!((summary.lost_grains, summary.grains), (0, 40), "{solver}");
        let mass = |g: &Grains| g.inv_mass.iter().map(|&im| 1.0 / f64::from(im)).sum::<f64>();
        assert_eq!(mass(&g), mass(&start), "{solver}: mass");
        let mut ids = g.id.clone();
        ids.sort_unstable();
        assert_eq!(ids, (0..40).collect::<Vec<u32>>(), "{solver}: ids");
        inside_period(&g, solver);
        let period = XMAX - XMIN;
        let mut across = 0;
        for i in 0..g.len() {
            assert!(
                g.pos[i][1] > 0.0 && g.pos[i][1] < 0.04,
                "{solver}: grain {i} at {:?}",
                g.pos[i]
            );
            for j in 0..i {
                let dx = g.pos[i][0] - g.pos[j][0];
                let wrapped = dx - period * (dx / period).round();
                let gap = wrapped.hypot(g.pos[i][1] - g.pos[j][1]) - g.radius[i] - g.radius[j];
                assert!(
                    gap > -0.1 * g.radius[i],
                    "{solver}: grains {i}, {j} overlap by {}",
                    -gap
                );
                across += usize::from(wrapped != dx && gap < 1e-4);
            }
        }
        assert!(across > 0, "{solver}: no grains touch through the boundary");
    }
}

#[test]
fn every_gpu_model_runs_a_periodic_scene_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in GPU_SOLVERS {
        let s = setup(&format!(
            "{PERIOD}[solver]\nkind = \"{solver}\"\n[grains]\nlist = [[0.0, 0.01, 0.0, 0.0, 0.003]]\n"
        ));
        let grid = grid_for(&s).unwrap();
        let mut notices = Vec::new();
        let b = select(&s, grid, BackendChoice::Gpu, Device::Shared(&ctx), &mut notices).unwrap();
        assert_eq!(b.kind(), BackendKind::Gpu, "{solver}");
        assert!(notices.is_empty(), "{solver}: {notices:?}");
        // auto takes the GPU when the adapter is a real one, as for any scene.
        let mut notices = Vec::new();
        let b = select(&s, grid, BackendChoice::Auto, Device::Shared(&ctx), &mut notices).unwrap();
        let want = if ctx.is_hardware() {
            BackendKind::Gpu
        } else {
            BackendKind::Cpu
        };
        assert_eq!(b.kind(), want, "{solver}: {notices:?}");
        assert!(!notices.iter().any(|n| n.contains("periodic")), "{solver}: {notices:?}");
    }
}
