//! Capillary cohesion on the GPU: stage `cohesion` against its CPU twin on
//! random grains with their detected lists (odd sizes, fixed grains, walls,
//! overflowing lists), the `Cohesion` layout, and the first step of two
//! grains, and of a grain under a floor, on the whole GPU step.

mod common;
mod gpu_common;

use common::grid_around;
use gpu_common::{Rng, buf, close, context, get, jostle, run, uni};
use hourglass::cpu;
use hourglass::gpu::{GpuBackend, Kernel, Params, ShaderConfig, Stage};
use hourglass::model::{Cohesion, Grains, Grid, SolverKind, StepParams, Walls};

const ALERT: f32 = 0.003;

fn law(walls: bool) -> Cohesion {
    Cohesion {
        gamma: 0.072,
        a: 5000.0,
        b: 8.0,
        c: -0.5,
        rupture: 2e-3,
        walls: u32::from(walls),
    }
}

#[test]
fn cohesion_layout_matches_rust() {
    let cfg = ShaderConfig::new(16);
    let src = cfg.source(Stage::Cohesion);
    let module = naga::front::wgsl::parse_str(&src).expect("cohesion.wgsl parses");
    let (span, offsets) = module
        .types
        .iter()
        .find_map(|(_, t)| match &t.inner {
            naga::TypeInner::Struct { span, members } if t.name.as_deref() == Some("Cohesion") => {
                Some((*span, members.iter().map(|m| m.offset).collect::<Vec<_>>()))
            }
            _ => None,
        })
        .expect("Cohesion");
    assert_eq!(span as usize, std::mem::size_of::<Cohesion>());
    use std::mem::offset_of;
    let want = [
        offset_of!(Cohesion, gamma),
        offset_of!(Cohesion, a),
        offset_of!(Cohesion, b),
        offset_of!(Cohesion, c),
        offset_of!(Cohesion, rupture),
        offset_of!(Cohesion, walls),
    ];
    assert_eq!(offsets, want.map(|o| o as u32));
}

/// `n` random grains in a box of side `side` (some fixed), walls, and their lists.
fn case(n: usize, side: f32, k: usize, seed: u64) -> (Grains, Walls, Grid, hourglass::model::ContactLists) {
    let mut rng = Rng::new(seed);
    let pos = (0..n).map(|_| [rng.f32(0.0, side), rng.f32(0.0, side)]).collect();
    let vel = (0..n).map(|_| [rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0)]).collect();
    let radius = (0..n).map(|_| rng.f32(0.0015, 0.003)).collect();
    let mut g = Grains::new(pos, vel, radius, 2500.0);
    for i in (0..n).step_by(97) {
        g.inv_mass[i] = 0.0;
    }
    let s = f64::from(side);
    let walls = common::walls(&[[0.0, 0.0, s, 0.0], [s, 0.0, s, s], [s, s, 0.0, s], [0.0, s, 0.0, 0.0]]);
    let grid = Grid::covering(walls.bounding_box(), 2.0 * 0.003 + ALERT).unwrap();
    let mut stepper = cpu::CpuStepper::new(grid, k);
    let lists = stepper.detect(&g, &walls, ALERT).clone();
    (g, walls, grid, lists)
}

#[test]
fn cohesion_matches_cpu() {
    let Some(ctx) = context() else { return };
    for (name, n, side, k, seed) in [
        ("one grain", 1, 0.05, 16, 1),
        ("3001 grains", 3001, 0.3, 16, 2),
        ("overflow K=4", 400, 0.04, 4, 3),
    ] {
        let (g, walls, grid, lists) = case(n, side, k, seed);
        for walls_on in [false, true] {
            let co = law(walls_on);
            let mut p = Params::new(&grid, n, walls.segments.len(), walls.corners.len());
            p.dt = 1e-3;
            let vel_free: Vec<[f32; 2]> = g.vel.clone();
            let mut want = vel_free.clone();
            cpu::cohesion::cohesion(&co, p.dt, &lists, &g.radius, &g.inv_mass, &mut want);
            let cfg = ShaderConfig::new(k as u32);
            let stage = Kernel::new(&ctx, &cfg, Stage::Cohesion, "main");
            let law = uni(&ctx, &co);
            let (pb, count, slots) = (uni(&ctx, &p), buf(&ctx, &lists.count), buf(&ctx, &lists.slots));
            let (r, im, vf) = (buf(&ctx, &g.radius), buf(&ctx, &g.inv_mass), buf(&ctx, &vel_free));
            let b = [
                ("params", &pb),
                ("law", &law),
                ("count", &count),
                ("slots", &slots),
                ("radius", &r),
                ("inv_mass", &im),
                ("vel_free", &vf),
            ];
            let group = stage.group(&ctx, &b);
            run(&ctx, |ps| stage.dispatch(ps, &group, n as u32));
            let got: Vec<[f32; 2]> = get(&ctx, &vf, n);
            let moved = want.iter().zip(&vel_free).filter(|(a, b)| a != b).count();
            assert!(n < 10 || moved > n / 4, "{name}: only {moved} grains feel a bridge");
            for i in 0..n {
                // The sums are in the same order; exp may differ in its last bits.
                let (a, b) = (got[i], want[i]);
                let scale = (b[0] - vel_free[i][0]).abs().max((b[1] - vel_free[i][1]).abs());
                assert!(
                    close(a[0], b[0], 1e-6, 1e-5 * scale + 1e-7) && close(a[1], b[1], 1e-6, 1e-5 * scale + 1e-7),
                    "{name} walls {walls_on}: grain {i}: gpu {a:?}, cpu {b:?}"
                );
            }
        }
    }
}

fn wet(solver: SolverKind, walls: bool) -> StepParams {
    StepParams {
        gravity: [0.0, 0.0],
        cohesion: Cohesion {
            c: 0.0,
            rupture: 1e-3,
            ..law(walls)
        },
        ..common::params(solver)
    }
}

fn gpu_step(g: Grains, walls: &Walls, p: &StepParams) -> Option<Grains> {
    let ctx = context()?;
    let grid = Grid::covering([0.0, 0.0, 0.1, 0.1], 2.0 * 0.003 + p.alert).unwrap();
    let mut gpu = GpuBackend::new(ctx, g, walls.clone(), grid, 16).unwrap();
    gpu.step(p).unwrap();
    Some(gpu.grains().unwrap().clone())
}

fn force(co: &Cohesion, r: f64, gap: f64) -> f64 {
    std::f64::consts::PI * f64::from(co.gamma) * r * ((f64::from(co.b) - f64::from(co.a) * gap).exp() + f64::from(co.c))
}

#[test]
fn gpu_pair_approaches_with_the_force_law_acceleration() {
    let floor = common::walls(&[[0.0, 0.0, 0.1, 0.0]]);
    for solver in [
        SolverKind::Jacobi,
        SolverKind::Apgd,
        SolverKind::Colored,
        SolverKind::Uzawa,
    ] {
        for gap in [5e-4f32, 1.2e-3] {
            let p = wet(solver, false);
            let (r1, r2) = (0.003f32, 0.002f32);
            let g0 = common::grains(&[(0.05, 0.05, r1), (0.05 + r1 + r2 + gap, 0.05, r2)]);
            let d = f64::from(g0.pos[1][0] - g0.pos[0][0] - r1 - r2);
            let Some(g) = gpu_step(g0.clone(), &floor, &p) else {
                return;
            };
            if gap > p.cohesion.rupture {
                assert_eq!(g.vel, vec![[0.0; 2]; 2], "{solver:?}: a broken bridge pulls on the GPU");
                continue;
            }
            let f = force(&p.cohesion, f64::from(2.0 * r1 * r2 / (r1 + r2)), d);
            for (i, sign) in [(0usize, 1.0), (1, -1.0)] {
                let want = sign * f * f64::from(g.inv_mass[i]) * f64::from(p.dt);
                let got = f64::from(g.vel[i][0]);
                assert!(
                    ((got - want) / want).abs() < 0.01,
                    "{solver:?}: grain {i}: {got:e} m/s, the law gives {want:e}"
                );
                assert_eq!(g.vel[i][1], 0.0);
            }
        }
    }
}

#[test]
fn gpu_wall_bridge_only_when_switched_on() {
    let floor = common::walls(&[[0.0, 0.0, 0.1, 0.0]]);
    let r = 0.003f32;
    for walls in [false, true] {
        let p = wet(SolverKind::Apgd, walls);
        let g0 = common::grains(&[(0.05, r + 4e-4, r)]);
        let d = f64::from(g0.pos[0][1] - r);
        let Some(g) = gpu_step(g0, &floor, &p) else { return };
        let got = f64::from(g.vel[0][1]);
        if walls {
            let want = -force(&p.cohesion, f64::from(r), d) * f64::from(g.inv_mass[0]) * f64::from(p.dt);
            assert!(
                ((got - want) / want).abs() < 0.01,
                "{got:e} m/s, the law gives {want:e}"
            );
        } else {
            assert_eq!(got, 0.0, "the wall pulls with walls = false");
        }
    }
}

/// A wet hex pile of 325 grains (bridges between grains and to the walls),
/// jostled, 16 Jacobi steps: the GPU step, and the bisect switch at every
/// boundary (the CPU's cohesion before `solve`, the GPU's from there),
/// agree with the CPU within gpu_bisect.rs's 5e-6 m; and the bridges
/// matter: the dry pile ends elsewhere.
#[test]
fn wet_pile_steps_agree_on_cpu_gpu_and_every_bisect_boundary() {
    use hourglass::backend::{Backend, BisectBackend, CpuBackend};
    use hourglass::model::plan::NSCD_STAGES;
    let Some(ctx) = context() else { return };
    let (mut grains, walls) = common::hex_pile(25, 0.003);
    jostle(&mut grains, 7);
    let mut p = StepParams {
        cohesion: law(true),
        ..common::params(SolverKind::Jacobi)
    };
    p.itmax = 200;
    let grid = grid_around(&grains, &walls, p.alert);
    let run = |be: &mut dyn Backend, p: &StepParams| -> Grains {
        for _ in 0..16 {
            be.step(p).unwrap();
        }
        be.grains().unwrap().clone()
    };
    let dist = |a: &Grains, b: &Grains| -> f32 {
        assert_eq!(a.id, b.id);
        (a.pos.iter().zip(&b.pos))
            .map(|(x, y)| (x[0] - y[0]).hypot(x[1] - y[1]))
            .fold(0.0, f32::max)
    };
    let cpu = run(&mut CpuBackend::new(grains.clone(), walls.clone(), grid, 16), &p);
    let dry = StepParams {
        cohesion: Cohesion::default(),
        ..p
    };
    let cpu_dry = run(&mut CpuBackend::new(grains.clone(), walls.clone(), grid, 16), &dry);
    assert!(dist(&cpu, &cpu_dry) > 1e-5, "the bridges moved nothing");
    let mut gpu = GpuBackend::new(ctx.clone(), grains.clone(), walls.clone(), grid, 16).unwrap();
    (gpu.check_every, gpu.reorder_every) = (1, 0);
    let d = dist(&run(&mut gpu, &p), &cpu);
    assert!(d < 5e-6, "gpu: positions differ from the cpu by {d:e} m");
    for from in NSCD_STAGES {
        let mut g = GpuBackend::new(ctx.clone(), grains.clone(), walls.clone(), grid, 16).unwrap();
        g.check_every = 1;
        let mut split = BisectBackend::new(grains.clone(), walls.clone(), grid, g, from);
        let d = dist(&run(&mut split, &p), &cpu);
        assert!(
            d < 5e-6,
            "gpu from {}: positions differ from the cpu by {d:e} m",
            from.name()
        );
    }
}
