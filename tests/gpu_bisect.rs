//! The bisect switch (`backend::bisect`): with the CPU running the plan
//! stages before each boundary and the GPU the rest, a step agrees with both
//! the pure CPU and the pure GPU step, at every stage of the NSCD plan and of
//! the DEM plan.
//!
//! Tolerances are tests/gpu_step.rs's for convergence checked every iteration
//! (`check_every = 1`, the CPU's stopping rule): the backends build the same
//! lists in the same order and differ only in the shader compiler's rounding
//! (a fused multiply-add, a last-ulp sqrt), so after 16 steps and a wall change positions agree
//! within 5e-6 m, contact and overflow counts exactly, and iterations within
//! one per step (the jostled pile makes some steps run to itmax on both).

mod common;
mod gpu_common;

use common::{grid_around, hex_pile, params};
use gpu_common::{context, jostle};
use hourglass::backend::bisect::{GPU_FROM, check_boundary};
use hourglass::backend::{Backend, BisectBackend, CpuBackend, CpuDemBackend, DemBisectBackend};
use hourglass::gpu::GpuBackend;
use hourglass::gpu::dem::GpuDemBackend;
use hourglass::model::plan::{DEM_STAGES, NSCD_STAGES, Stage, names};
use hourglass::model::{
    DemParams, Grains, Grid, Integrator, Region, SolverKind, StepParams, StepStats, Walls, dem_plan, nscd_plan,
};

const K: usize = 16;
const STEPS: usize = 16;

/// tests/gpu_step.rs's scene: a hex pile of 325 grains, jostled by random velocities.
fn scene() -> (Grains, Walls, Grid, StepParams) {
    let (mut grains, walls) = hex_pile(25, 0.003);
    jostle(&mut grains, 7);
    let mut p = params(SolverKind::Jacobi);
    p.itmax = 200;
    let grid = grid_around(&grains, &walls, p.alert);
    (grains, walls, grid, p)
}

fn max_distance(a: &Grains, b: &Grains) -> f32 {
    assert_eq!(a.id, b.id);
    a.pos
        .iter()
        .zip(&b.pos)
        .map(|(x, y)| ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2)).sqrt())
        .fold(0.0, f32::max)
}

/// `STEPS` steps with the walls set again halfway (warm start forgotten);
/// the stats of every step.
fn run(be: &mut dyn Backend, walls: &Walls, p: &StepParams) -> Vec<StepStats> {
    (0..STEPS)
        .map(|step| {
            if step == STEPS / 2 {
                be.set_walls(walls);
            }
            be.step(p).unwrap()
        })
        .collect()
}

fn agrees(from: Stage) {
    agrees_with(from, 0);
}

/// [`agrees`] with `overlap_iterations` (> 0: the split push-out, whose
/// correction runs on the GPU with integrate, on the pile pressed together as
/// in tests/gpu_step.rs's `pressed_pile`: every row 3e-5 m lower than the
/// one below leaves room for, overlaps of ~2e-5 m, four times the slop, so
/// that a correction left out shows).
fn agrees_with(from: Stage, overlap_iterations: u32) {
    agrees_in(from, overlap_iterations, |_| {});
}

/// [`agrees_with`] on the step parameters `tweak` leaves.
fn agrees_in(from: Stage, overlap_iterations: u32, tweak: impl Fn(&mut StepParams)) {
    let Some(ctx) = context() else { return };
    let (mut grains, walls, grid, mut p) = scene();
    p.overlap_iterations = overlap_iterations;
    tweak(&mut p);
    if overlap_iterations > 0 {
        let r = 0.003;
        for q in grains.pos.iter_mut() {
            let row = ((q[1] - r) / (3f32.sqrt() * r)).round();
            q[1] -= 3e-5 * (row + 1.0);
        }
    }
    let mut cpu = CpuBackend::new(grains.clone(), walls.clone(), grid, K);
    let mut gpu = GpuBackend::new(ctx.clone(), grains.clone(), walls.clone(), grid, K).unwrap();
    (gpu.check_every, gpu.reorder_every) = (1, 0);
    let mut split_gpu = GpuBackend::new(ctx, grains.clone(), walls.clone(), grid, K).unwrap();
    split_gpu.check_every = 1;
    let mut split = BisectBackend::new(grains.clone(), walls.clone(), grid, split_gpu, from);
    let name = from.name();
    let sc = run(&mut cpu, &walls, &p);
    let sg = run(&mut gpu, &walls, &p);
    let ss = run(&mut split, &walls, &p);
    for (step, (s, c)) in ss.iter().zip(&sc).enumerate() {
        assert_eq!(
            (s.contacts, s.overflow),
            (c.contacts, c.overflow),
            "{name}, step {step}"
        );
        assert!(
            s.iterations.abs_diff(c.iterations) <= 1,
            "{name}, step {step}: split {s:?} cpu {c:?}"
        );
    }
    assert_eq!(sg.last().map(|s| s.contacts), sc.last().map(|s| s.contacts));
    let split_grains = split.grains().unwrap().clone();
    assert!(
        max_distance(&split_grains, &grains) > 1e-4,
        "{name}: the grains did not move"
    );
    for (other, g) in [("cpu", cpu.grains().unwrap()), ("gpu", gpu.grains().unwrap())] {
        let d = max_distance(&split_grains, g);
        assert!(
            d < 5e-6,
            "gpu from {name}: positions differ from the {other} step by {d:e} m"
        );
    }
    let region = Region {
        gravity: p.gravity,
        neck_y: 0.03,
        bbox: walls.bounding_box(),
        period: 0.0,
    };
    let (ts, tc) = (split.totals(&region).unwrap(), cpu.totals(&region).unwrap());
    assert_eq!((ts.passed, ts.lost), (tc.passed, tc.lost), "{name}");
    assert!((ts.max_overlap - tc.max_overlap).abs() < 1e-6, "{name}: {ts:?} {tc:?}");
}

#[test]
fn gpu_from_free_velocity_agrees_with_cpu_and_gpu() {
    agrees(Stage::FreeVelocity);
}

#[test]
fn gpu_from_detect_agrees_with_cpu_and_gpu() {
    agrees(Stage::Detect);
}

#[test]
fn gpu_from_warm_start_agrees_with_cpu_and_gpu() {
    agrees(Stage::WarmStart);
}

#[test]
fn gpu_from_solve_agrees_with_cpu_and_gpu() {
    agrees(Stage::Solve);
}

#[test]
fn gpu_from_integrate_agrees_with_cpu_and_gpu() {
    agrees(Stage::Integrate);
}

/// The stages of the NSCD plan that the plain step runs.
const PLAIN: [Stage; 5] = [
    Stage::FreeVelocity,
    Stage::Detect,
    Stage::WarmStart,
    Stage::Solve,
    Stage::Integrate,
];

#[test]
fn split_push_out_agrees_with_cpu_and_gpu_at_every_boundary() {
    for from in PLAIN.into_iter().chain([Stage::PushOut]) {
        agrees_with(from, 4);
    }
}

/// Restitution (the bounce stage, on the CPU before `solve`) and stochastic
/// forcing (within `free_velocity`; the draws follow the backends' step
/// counts) at every boundary of their plan (docs/nscd.md).
#[test]
fn restitution_and_forcing_agree_with_cpu_and_gpu_at_every_boundary() {
    for from in PLAIN.into_iter().chain([Stage::Bounce]) {
        agrees_in(from, 0, |p| {
            p.restitution = 0.5;
            p.forcing = forcing();
        });
    }
}

fn forcing() -> hourglass::model::Forcing {
    hourglass::model::Forcing {
        sigma: 0.2,
        seed: 3,
        step: 0,
    }
}

/// Everything on (friction, capillary cohesion, restitution, forcing, the
/// split push-out): the step runs every stage of the NSCD plan, and the
/// step agrees with the CPU and GPU ones with the GPU taking over at each.
#[test]
fn every_stage_of_the_nscd_plan_is_a_boundary_that_agrees() {
    let all_on = |p: &mut StepParams| {
        (p.mu, p.mu_wall) = (0.3, 0.3);
        // tests/gpu_cohesion.rs's bridges, to the walls too.
        p.cohesion = hourglass::model::Cohesion {
            gamma: 0.072,
            a: 5000.0,
            b: 8.0,
            c: -0.5,
            rupture: 2e-3,
            walls: 1,
        };
        p.restitution = 0.3;
        p.forcing = forcing();
    };
    let (.., mut p) = scene();
    p.overlap_iterations = 4;
    all_on(&mut p);
    assert_eq!(nscd_plan(&p.resolved(true)), NSCD_STAGES);
    for from in NSCD_STAGES {
        agrees_in(from, 4, all_on);
    }
}

/// A DEM pile (the hex pile, jostled, Hertz law): `DEM_STEPS` steps with the
/// walls set again halfway (the force primed again), on the CPU, the GPU and
/// the bisect backend from `from`; positions agree within gpu_dem.rs's 1e-6
/// m, contact counts exactly.
fn dem_agrees(from: Stage, integrator: Integrator) {
    const DEM_STEPS: usize = 40;
    let Some(ctx) = context() else { return };
    let (grains, walls, grid, mut p) = scene();
    p.dt = 4e-5;
    p.solver = SolverKind::Dem;
    let dem = DemParams {
        integrator,
        ..DemParams::default()
    };
    let mut cpu = CpuDemBackend::new(grains.clone(), walls.clone(), grid, K, dem);
    let mut gpu = GpuDemBackend::new(ctx.clone(), grains.clone(), walls.clone(), grid, K, dem).unwrap();
    gpu.check_every = 1;
    let g = GpuDemBackend::new(ctx, grains.clone(), walls.clone(), grid, K, dem).unwrap();
    let mut split = DemBisectBackend::new(grains.clone(), walls.clone(), grid, g, from);
    let name = format!("{} {}", integrator.name(), from.name());
    let steps = |be: &mut dyn Backend| -> Vec<StepStats> {
        (0..DEM_STEPS)
            .map(|step| {
                if step == DEM_STEPS / 2 {
                    be.set_walls(&walls);
                }
                be.step(&p).unwrap()
            })
            .collect()
    };
    let (sg, ss) = (steps(&mut gpu), steps(&mut split));
    let sc: Vec<StepStats> = (0..DEM_STEPS)
        .map(|step| {
            if step == DEM_STEPS / 2 {
                cpu.set_walls(&walls);
            }
            let mut s = cpu.step(&p).unwrap();
            // The listed CPU step counts no contacts: the detection it redoes on demand does.
            s.contacts = cpu.stepper.contact_lists(&cpu.grains, &cpu.walls).distinct();
            s
        })
        .collect();
    for (step, (s, c)) in ss.iter().zip(&sc).enumerate() {
        assert_eq!(
            (s.contacts, s.overflow),
            (c.contacts, c.overflow),
            "{name}, step {step}"
        );
    }
    assert_eq!(sg.last().map(|s| s.contacts), sc.last().map(|s| s.contacts));
    let split_grains = split.grains().unwrap().clone();
    assert!(
        max_distance(&split_grains, &grains) > 1e-5,
        "{name}: the grains did not move"
    );
    for (other, g) in [("cpu", cpu.grains().unwrap()), ("gpu", gpu.grains().unwrap())] {
        let d = max_distance(&split_grains, g);
        assert!(
            d < 1e-6,
            "gpu from {name}: positions differ from the {other} step by {d:e} m"
        );
    }
}

#[test]
fn every_stage_of_the_dem_plan_is_a_boundary_that_agrees() {
    let kdk = DemParams::default();
    assert_eq!(dem_plan(&kdk, false), DEM_STAGES);
    for from in DEM_STAGES {
        dem_agrees(from, Integrator::VelocityVerlet);
    }
    for from in DEM_STAGES {
        dem_agrees(from, Integrator::SemiImplicitEuler);
    }
}

#[test]
fn boundaries_are_named_like_their_stages() {
    for from in NSCD_STAGES.into_iter().chain(DEM_STAGES) {
        assert_eq!(Stage::parse(from.name()), Some(from));
    }
    assert_eq!(Stage::parse("warm_start"), Some(Stage::WarmStart));
    assert_eq!(Stage::parse("binning"), None);
}

/// An unknown name is refused naming the variable and every stage; a stage
/// of the other model's plan is refused naming the plan's stages.
#[test]
fn unknown_or_foreign_stage_names_are_refused_with_the_valid_ones() {
    let e = Stage::parse_named("binning", GPU_FROM).unwrap_err().to_string();
    assert!(e.contains(GPU_FROM) && e.contains("`binning`"), "{e}");
    for s in NSCD_STAGES.into_iter().chain(DEM_STAGES) {
        assert!(e.contains(s.name()), "{e} lacks {}", s.name());
    }
    let e = check_boundary(Stage::DemKick, false).unwrap_err().to_string();
    assert!(e.contains(&names(&NSCD_STAGES)), "{e}");
    let e = check_boundary(Stage::Solve, true).unwrap_err().to_string();
    assert!(e.contains(&names(&DEM_STAGES)), "{e}");
    assert_eq!(check_boundary(Stage::DemForce, true).unwrap(), Stage::DemForce);
}
