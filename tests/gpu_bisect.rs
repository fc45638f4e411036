//! The bisect switch (`backend::bisect`): with the CPU running the stages
//! before each boundary and the GPU the rest, a step agrees with both the
//! pure CPU and the pure GPU step.
//!
//! Tolerances are tests/gpu_step.rs's for convergence checked every iteration
//! (`check_every = 1`, the CPU's stopping rule): the backends build the same
//! lists in the same order and differ only in the shader compiler's rounding
//! (a fused multiply-add, a last-ulp sqrt), so after 16 steps and a wall change positions agree
//! within 5e-6 m, contact and overflow counts exactly, and iterations within
//! one per step (the jostled pile makes some steps run to itmax on both).

mod common;
mod gpu_common;

use common::{hex_pile, params};
use gpu_common::{Rng, context};
use hourglass::backend::{Backend, BisectBackend, CpuBackend};
use hourglass::gpu::GpuBackend;
use hourglass::gpu::step::GpuFrom;
use hourglass::model::{Grains, Grid, Region, SolverKind, StepParams, StepStats, Walls};

const K: usize = 16;
const STEPS: usize = 16;

/// tests/gpu_step.rs's scene: a hex pile of 325 grains, jostled by random velocities.
fn scene() -> (Grains, Walls, Grid, StepParams) {
    let (mut grains, walls) = hex_pile(25, 0.003);
    let mut rng = Rng::new(7);
    for v in grains.vel.iter_mut() {
        *v = [rng.f32(-0.05, 0.05), rng.f32(-0.05, 0.05)];
    }
    let mut p = params(SolverKind::Jacobi);
    p.itmax = 200;
    let mut bb = walls.bounding_box();
    for q in &grains.pos {
        bb = [bb[0].min(q[0]), bb[1].min(q[1]), bb[2].max(q[0]), bb[3].max(q[1])];
    }
    let grid = Grid::covering(bb, 2.0 * grains.max_radius() + p.alert).unwrap();
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

fn agrees(from: GpuFrom) {
    agrees_with(from, 0);
}

/// [`agrees`] with `overlap_iterations` (> 0: the split push-out, whose
/// correction runs on the GPU with integrate, on the pile pressed together as
/// in tests/gpu_step.rs's `pressed_pile`: every row 3e-5 m lower than the
/// one below leaves room for, overlaps of ~2e-5 m, four times the slop, so
/// that a correction left out shows).
fn agrees_with(from: GpuFrom, overlap_iterations: u32) {
    agrees_in(from, overlap_iterations, |_| {});
}

/// [`agrees_with`] on the step parameters `tweak` leaves.
fn agrees_in(from: GpuFrom, overlap_iterations: u32, tweak: impl Fn(&mut StepParams)) {
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
    };
    let (ts, tc) = (split.totals(&region).unwrap(), cpu.totals(&region).unwrap());
    assert_eq!((ts.passed, ts.lost), (tc.passed, tc.lost), "{name}");
    assert!((ts.max_overlap - tc.max_overlap).abs() < 1e-6, "{name}: {ts:?} {tc:?}");
}

#[test]
fn gpu_from_free_velocity_agrees_with_cpu_and_gpu() {
    agrees(GpuFrom::FreeVelocity);
}

#[test]
fn gpu_from_detect_agrees_with_cpu_and_gpu() {
    agrees(GpuFrom::Detect);
}

#[test]
fn gpu_from_warm_start_agrees_with_cpu_and_gpu() {
    agrees(GpuFrom::WarmStart);
}

#[test]
fn gpu_from_solve_agrees_with_cpu_and_gpu() {
    agrees(GpuFrom::Solve);
}

#[test]
fn gpu_from_integrate_agrees_with_cpu_and_gpu() {
    agrees(GpuFrom::Integrate);
}

#[test]
fn split_push_out_agrees_with_cpu_and_gpu_at_every_boundary() {
    for from in GpuFrom::ALL {
        agrees_with(from, 4);
    }
}

/// Restitution (the bounce stage runs with warm start, on the CPU before
/// `solve`) and stochastic forcing (with the free velocity, on the CPU
/// before `detect`; the draws follow the backends' step counts) at every
/// boundary (DESIGN §1e).
#[test]
fn restitution_and_forcing_agree_with_cpu_and_gpu_at_every_boundary() {
    for from in GpuFrom::ALL {
        agrees_in(from, 0, |p| {
            p.restitution = 0.5;
            p.forcing = hourglass::model::Forcing {
                sigma: 0.2,
                seed: 3,
                step: 0,
            };
        });
    }
}

#[test]
fn boundaries_are_named_like_their_stages() {
    for from in GpuFrom::ALL {
        assert_eq!(GpuFrom::parse(from.name()), Some(from));
    }
    assert_eq!(GpuFrom::parse("detect"), Some(GpuFrom::Detect));
    assert_eq!(GpuFrom::parse("binning"), None);
}
