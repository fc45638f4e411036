//! Moving walls on the GPU (`Backend::move_walls`, `model::motion`): whole
//! steps on a floor that rises and slides, against the CPU, and the physics
//! of a grain carried up by it.
//!
//! The floor, one segment in wall group 1, translates at FLOOR_VEL = (0.1,
//! 0.05) m/s; every step both backends get the walls where they are at the
//! step's start with their velocities (`WallMotion::walls(t, t + dt)`).
//! Tolerances, as tests/gpu_step.rs argues them: both backends run the same
//! f32 stages on the same lists and check convergence every iteration, so
//! they differ by rounding; each grain here is alone on the floor, so its
//! frictional problem has one solution and rounding does not grow. A
//! converged velocity is known within tol/dt, which bounds the comparison.
//!
//! The DEM (Hertz-Mindlin with friction) and the spring model run the same
//! floor against `CpuDemBackend`: both evaluate the same f32 law on the same
//! contacts, the wall's velocity in each grain-wall contact and the walls a
//! step ahead after the drift, so they differ by rounding: positions are
//! held to the 1e-6 m of the still-wall DEM twins (tests/gpu_dem.rs),
//! velocities to `DV`.

mod common;
mod gpu_common;

use common::{grains, grid_around, params};
use gpu_common::context;
use hourglass::backend::{Backend, CpuBackend, CpuDemBackend};
use hourglass::gpu::GpuBackend;
use hourglass::gpu::dem::GpuDemBackend;
use hourglass::model::motion::{GroupMotion, Move, Phase, WallMotion};
use hourglass::model::{DemParams, Grains, Integrator, NormalLaw, SolverKind, StepParams, Walls};

const K: usize = 16;
/// The floor's velocity, m/s: sideways and up.
const FLOOR_VEL: [f64; 2] = [0.1, 0.05];

/// The floor from x = -0.05 to 0.05 m at y = 0 (group 1), translating at FLOOR_VEL from t = 0.
fn rising_floor() -> WallMotion {
    let outline = [[[-0.05, 0.0], [0.05, 0.0]]];
    let (base, segment_group, corner_group) = Walls::grouped(&outline, &[], &[], &[1]);
    let slide = Phase {
        what: Move::Translate { velocity: FLOOR_VEL },
        start: 0.0,
        end: f64::INFINITY,
    };
    WallMotion {
        base,
        segment_group,
        corner_group,
        groups: vec![GroupMotion::default(), GroupMotion { phases: vec![slide] }],
    }
}

/// Frictional parameters (mu = mu_wall = 0.5) of `solver`.
fn step_params(solver: SolverKind) -> StepParams {
    let mut p = params(solver);
    (p.mu, p.mu_wall, p.itmax) = (0.5, 0.5, 5000);
    p
}

/// Grains of radii 2-3 mm at rest on the floor, 1 cm apart (they never meet).
fn resting(n: usize) -> Grains {
    let list: Vec<(f32, f32, f32)> = (0..n)
        .map(|k| {
            let r = 0.002 + 0.001 * k as f32 / n as f32;
            (-0.03 + 0.01 * k as f32, r, r)
        })
        .collect();
    grains(&list)
}

/// Both backends over `grains` on the floor; the GPU checks convergence
/// every iteration and never reorders.
fn backends(grains: Grains, motion: &WallMotion, p: &StepParams) -> Option<(CpuBackend, GpuBackend)> {
    let ctx = context()?;
    // The grid covers where the grains and the floor go within the test.
    let mut around = grains.clone();
    around.pos.extend(grains.pos.iter().map(|x| [x[0] + 0.02, x[1] + 0.02]));
    let grid = grid_around(&around, &motion.base, p.alert);
    let cpu = CpuBackend::new(grains.clone(), motion.base.clone(), grid, K);
    let mut gpu = GpuBackend::new(ctx, grains, motion.base.clone(), grid, K).unwrap();
    gpu.check_every = 1;
    gpu.reorder_every = 0;
    Some((cpu, gpu))
}

/// The walls of step `k`: where they are at its start, with their velocities over it.
fn walls_of_step(motion: &WallMotion, k: usize, dt: f32) -> Walls {
    let (t0, t1) = (k as f64 * f64::from(dt), (k + 1) as f64 * f64::from(dt));
    let walls = motion.walls(t0, t1);
    assert!(walls.moving());
    walls
}

/// The floor's height at time `t`, m.
fn floor_y(t: f64) -> f32 {
    (FLOOR_VEL[1] * t) as f32
}

/// A few grains on the rising, sliding floor, 20 steps with `move_walls`
/// before each, frictional Jacobi and coloured NLGS: the GPU's velocities and
/// spins follow the CPU's within tol/dt (measured: rounding), each step from
/// the warm start the CPU keeps too (iteration counts within one of the
/// CPU's), and the grains go up and sideways with the floor.
#[test]
fn moving_floor_steps_match_cpu() {
    for solver in [SolverKind::Jacobi, SolverKind::Colored] {
        let p = step_params(solver);
        let motion = rising_floor();
        let Some((mut cpu, mut gpu)) = backends(resting(5), &motion, &p) else {
            return;
        };
        let (mut dv, mut dw) = (0.0f32, 0.0f32);
        for k in 0..20 {
            let walls = walls_of_step(&motion, k, p.dt);
            cpu.move_walls(&walls);
            gpu.move_walls(&walls);
            let (sc, sg) = (cpu.step(&p).unwrap(), gpu.step(&p).unwrap());
            assert!(
                sc.converged && sg.converged,
                "{}: step {k}: cpu {sc:?} gpu {sg:?}",
                solver.name()
            );
            assert_eq!(sg.contacts, sc.contacts, "{}: step {k}: contacts", solver.name());
            assert!(
                sg.iterations.abs_diff(sc.iterations) <= 1,
                "{}: step {k}: gpu {} iterations, cpu {}",
                solver.name(),
                sg.iterations,
                sc.iterations
            );
            let a = cpu.grains().unwrap().clone().into_id_order();
            let b = gpu.grains().unwrap().clone();
            for i in 0..a.len() {
                dv = dv.max((a.vel[i][0] - b.vel[i][0]).abs().max((a.vel[i][1] - b.vel[i][1]).abs()));
                dw = dw.max((a.ang_vel[i] - b.ang_vel[i]).abs());
            }
        }
        println!("{}: velocities within {dv:e} m/s, spins {dw:e} rad/s", solver.name());
        let tol_v = p.tol / p.dt;
        assert!(dv < tol_v, "{}: velocities differ by {dv:e} m/s", solver.name());
        assert!(dw < tol_v / 0.002, "{}: spins differ by {dw:e} rad/s", solver.name());
        // Carried by the floor: up at its speed, and dragged sideways.
        let b = gpu.grains().unwrap();
        for (i, v) in b.vel.iter().enumerate() {
            assert!(
                (v[1] - FLOOR_VEL[1] as f32).abs() < tol_v,
                "{}: grain {i} rises at {} m/s",
                solver.name(),
                v[1]
            );
            assert!(
                v[0] > 0.02,
                "{}: grain {i} moves sideways at {} m/s",
                solver.name(),
                v[0]
            );
        }
    }
}

/// One grain at rest on the rising, sliding floor (GPU, frictional Jacobi and
/// coloured NLGS): after a few steps it rises with the floor (vertical
/// velocity the floor's within tol/dt) and it never sinks into the floor by
/// more than the slop.
#[test]
fn grain_rises_with_the_floor_on_the_gpu() {
    for solver in [SolverKind::Jacobi, SolverKind::Colored] {
        let p = step_params(solver);
        let motion = rising_floor();
        let Some((_, mut gpu)) = backends(resting(1), &motion, &p) else {
            return;
        };
        let r = gpu.grains().unwrap().radius[0];
        let y0 = gpu.grains().unwrap().pos[0][1];
        let mut deepest = 0.0f32;
        let steps = 30;
        for k in 0..steps {
            gpu.move_walls(&walls_of_step(&motion, k, p.dt));
            let s = gpu.step(&p).unwrap();
            assert!(s.converged, "{}: step {k}: {s:?}", solver.name());
            let g = gpu.grains().unwrap();
            let gap = g.pos[0][1] - r - floor_y((k + 1) as f64 * f64::from(p.dt));
            deepest = deepest.max(-gap);
            if k >= 3 {
                let vy = g.vel[0][1];
                assert!(
                    (vy - FLOOR_VEL[1] as f32).abs() < p.tol / p.dt,
                    "{}: step {k}: the grain rises at {vy} m/s, the floor at {}",
                    solver.name(),
                    FLOOR_VEL[1]
                );
            }
        }
        let g = gpu.grains().unwrap();
        println!(
            "{}: deepest {deepest:e} m into the floor (slop {:e}), risen {:e} m",
            solver.name(),
            p.slop(),
            g.pos[0][1] - y0
        );
        assert!(
            deepest <= p.slop(),
            "{}: sank {deepest:e} m into the floor",
            solver.name()
        );
        let risen = g.pos[0][1] - y0;
        let want = floor_y(steps as f64 * f64::from(p.dt));
        assert!(
            (risen - want).abs() < p.slop() + steps as f32 * p.tol,
            "{}: risen {risen} m, floor {want} m",
            solver.name()
        );
    }
}

/// How far the DEM backends' velocities may part, m/s: a thousandth of the
/// floor's speed, far above rounding (each grain is alone on the floor, so
/// rounding does not grow) and far below what a wall velocity or wall
/// position missed in one step's force makes.
const DV: f32 = 1e-4;

/// Both DEM backends of `dem` over `grains` on the floor; the GPU reads its
/// counters every step.
fn dem_backends(grains: Grains, motion: &WallMotion, p: &StepParams, dem: DemParams) -> (CpuDemBackend, GpuDemBackend) {
    let ctx = context().expect("a GPU adapter");
    let mut around = grains.clone();
    around.pos.extend(grains.pos.iter().map(|x| [x[0] + 0.02, x[1] + 0.02]));
    let grid = grid_around(&around, &motion.base, p.alert);
    let cpu = CpuDemBackend::new(grains.clone(), motion.base.clone(), grid, K, dem);
    let mut gpu = GpuDemBackend::new(ctx, grains, motion.base.clone(), grid, K, dem).unwrap();
    gpu.check_every = 1;
    (cpu, gpu)
}

/// `steps` steps of `dem` with `move_walls` before each on both backends:
/// the largest position (m) and velocity (m/s) differences over the steps,
/// and the GPU's grains at the end.
fn dem_on_moving_floor(dem: DemParams, p: &StepParams, steps: usize) -> (f32, f32, Grains) {
    let motion = rising_floor();
    let (mut cpu, mut gpu) = dem_backends(resting(5), &motion, p, dem);
    let (mut dx, mut dv) = (0.0f32, 0.0f32);
    for k in 0..steps {
        let walls = walls_of_step(&motion, k, p.dt);
        cpu.move_walls(&walls);
        gpu.move_walls(&walls);
        let (sc, sg) = (cpu.step(p).unwrap(), gpu.step(p).unwrap());
        // The CPU step's lists (the listed step counts none: the detection
        // it redoes on demand, against the walls its force saw).
        let want = cpu.stepper.contact_lists(&cpu.grains, &cpu.walls).distinct();
        assert_eq!(sg.contacts, want, "step {k}: contacts");
        assert_eq!(sc.overflow, 0, "step {k}");
        let a = cpu.grains().unwrap().clone();
        let b = gpu.grains().unwrap();
        for i in 0..a.len() {
            dx = dx.max((a.pos[i][0] - b.pos[i][0]).hypot(a.pos[i][1] - b.pos[i][1]));
            dv = dv.max((a.vel[i][0] - b.vel[i][0]).hypot(a.vel[i][1] - b.vel[i][1]));
        }
    }
    (dx, dv, gpu.grains().unwrap().clone())
}

/// Grains on the floor after `steps` steps of `dt` ride it: each has risen
/// by at least half the floor's rise (the contact's spring lags it while it
/// compresses) and moves sideways, dragged by friction.
fn ride_the_floor(start: &Grains, end: &Grains, steps: usize, dt: f32) {
    let risen = floor_y(steps as f64 * f64::from(dt));
    for i in 0..start.len() {
        let dy = end.pos[i][1] - start.pos[i][1];
        assert!(dy > 0.5 * risen, "grain {i} rose {dy} m, the floor {risen} m");
        assert!(end.vel[i][0] > 0.0, "grain {i} moves sideways at {} m/s", end.vel[i][0]);
    }
}

/// A few grains on the rising, sliding floor, 200 Hertz-Mindlin steps with
/// friction and `move_walls` before each: the GPU's positions follow the
/// CPU's within the DEM twins' 1e-6 m every step and its velocities within
/// [`DV`], and the grains ride the floor.
#[test]
fn dem_steps_on_a_moving_floor_match_cpu() {
    let mut p = params(SolverKind::Dem);
    (p.dt, p.alert) = (4e-5, 0.001);
    let dem = DemParams {
        law: NormalLaw::HertzMindlin,
        mu: 0.5,
        ..DemParams::default()
    };
    let steps = 200;
    let (dx, dv, end) = dem_on_moving_floor(dem, &p, steps);
    println!("dem: positions within {dx:e} m, velocities {dv:e} m/s");
    assert!(dx < 1e-6, "positions differ by {dx:e} m");
    assert!(dv < DV, "velocities differ by {dv:e} m/s");
    ride_the_floor(&resting(5), &end, steps, p.dt);
}

/// The spring model (linear law, friction) on the rising, sliding floor with
/// each integrator, 200 steps with `move_walls` before each: positions
/// within 1e-6 m of the CPU's every step and velocities within [`DV`], and
/// the grains ride the floor.
#[test]
fn spring_steps_on_a_moving_floor_match_cpu() {
    for integrator in [Integrator::Leapfrog, Integrator::SemiImplicitEuler] {
        let mut p = params(SolverKind::Spring);
        (p.dt, p.alert) = (1e-4, 0.001);
        let dem = DemParams {
            kn: 1e4,
            kt: 20.0,
            gamma_n: 5.0,
            gamma_relax: 5.0,
            mu: 0.4,
            mu_roll: 0.0,
            law: NormalLaw::Linear,
            integrator,
            ..DemParams::default()
        };
        let steps = 200;
        let (dx, dv, end) = dem_on_moving_floor(dem, &p, steps);
        println!(
            "spring {}: positions within {dx:e} m, velocities {dv:e} m/s",
            integrator.name()
        );
        assert!(dx < 1e-6, "{}: positions differ by {dx:e} m", integrator.name());
        assert!(dv < DV, "{}: velocities differ by {dv:e} m/s", integrator.name());
        ride_the_floor(&resting(5), &end, steps, p.dt);
    }
}
