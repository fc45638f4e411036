//! The DEM and the spring model on spheres on the GPU (`GpuDemBackend<Dim3>`,
//! lavapipe in CI), held to the physics tests/spheres_explicit.rs holds the
//! CPU to: the linear spring exchanges momentum with the masses of spheres,
//! a resting column is compressed by k m g / k_s at its k-th contact,
//! Hertz-Mindlin rolls a sphere down a slope at 5/7 g sin a or lets it slide
//! at g (sin a - mu cos a); and a whole run of the lab's pile (`hourglass
//! run --backend gpu`, emitters included) follows the CPU's.

mod common;
mod gpu_common;

use common::spheres::{G, R, RHO_LAB, floor, grid, on_slope_start, params, run_positions, spring};
use gpu_common::context;
use hourglass::backend::Backend;
use hourglass::gpu::GpuContext;
use hourglass::gpu::dem::GpuDemBackend;
use hourglass::model::{DemParams, Dim3, Grains, Grid, Integrator, Region, SolverKind, Space, Walls3d};

fn gpu(ctx: &GpuContext, g: Grains<Dim3>, walls: Walls3d, grid: Grid<Dim3>, dem: DemParams) -> GpuDemBackend<Dim3> {
    let mut b = GpuDemBackend::new(ctx.clone(), g, walls, grid, 8, dem).expect("the GPU DEM");
    // The counters every step: the tests read the grains anyway.
    b.check_every = 1;
    b
}

#[test]
fn an_elastic_spring_pair_of_spheres_of_masses_8_to_1_collides_elastically_on_the_gpu() {
    let Some(ctx) = context() else { return };
    let p = params([0.0, 0.0], 1e-4, SolverKind::Spring);
    let (ra, rb, va, vb) = (0.4f32, 0.2f32, 0.5f32, -1.0f32);
    let g = Grains::<Dim3>::of_density(
        vec![[0.0, 0.0, 0.0], [ra + rb + 0.01, 0.0, 0.0]],
        vec![[va, 0.0, 0.0], [vb, 0.0, 0.0]],
        vec![ra, rb],
        RHO_LAB,
    );
    let (ma, mb) = (g.mass(0), g.mass(1));
    let grid = grid([-2.0; 3], [2.0; 3], ra, &p);
    let mut b = gpu(
        &ctx,
        g,
        Walls3d::default(),
        grid,
        spring(8000.0, 0.0, Integrator::Leapfrog),
    );
    for _ in 0..2000 {
        b.step(&p).unwrap();
    }
    let g = Backend::grains(&mut b).unwrap().clone();
    let (va, vb) = (f64::from(va), f64::from(vb));
    let ua = ((ma - mb) * va + 2.0 * mb * vb) / (ma + mb);
    let ub = ((mb - ma) * vb + 2.0 * ma * va) / (ma + mb);
    let (got_a, got_b) = (f64::from(g.vel[0][0]), f64::from(g.vel[1][0]));
    assert!((got_a - ua).abs() < 2e-3 * (va - vb).abs(), "{got_a} against {ua}");
    assert!((got_b - ub).abs() < 2e-3 * (va - vb).abs(), "{got_b} against {ub}");
    let energy = |v: [f64; 2]| 0.5 * ma * v[0] * v[0] + 0.5 * mb * v[1] * v[1];
    let e = energy([got_a, got_b]) / energy([va, vb]);
    assert!((e - 1.0).abs() < 1e-3, "kinetic energy kept to {e}");
    for v in &g.vel {
        assert!(v[1] == 0.0 && v[2] == 0.0, "{v:?}");
    }
}

#[test]
fn a_resting_column_of_spheres_is_compressed_by_k_m_g_over_ks_on_the_gpu() {
    let Some(ctx) = context() else { return };
    let (n, ks) = (8usize, 8000.0f32);
    let p = params([0.0, -G], 1e-3, SolverKind::Spring);
    let pos: Vec<[f32; 3]> = (0..n).map(|i| [0.0, R + 2.0 * R * i as f32, 0.0]).collect();
    let g = Grains::<Dim3>::of_density(pos, vec![[0.0; 3]; n], vec![R; n], RHO_LAB);
    let top = 2.0 * R * n as f32 + 1.0;
    let grid = grid([-1.0, -0.5, -1.0], [1.0, top, 1.0], R, &p);
    let dem = spring(ks, 2.0 * ks.sqrt(), Integrator::SemiImplicitEuler);
    let mut b = gpu(&ctx, g, floor(), grid, dem);
    for _ in 0..10_000 {
        b.step(&p).unwrap();
    }
    let g = Backend::grains(&mut b).unwrap();
    let y: Vec<f32> = g.pos.iter().map(|x| x[1]).collect();
    let mut from_top: Vec<f32> = (1..n).rev().map(|k| 2.0 * R - (y[k] - y[k - 1])).collect();
    from_top.push(R - y[0]);
    for (k, &got) in from_top.iter().enumerate() {
        // m = 1 kg.
        let want = (k + 1) as f32 * G / ks;
        assert!(
            (got - want).abs() < 0.02 * want,
            "contact {} from the top compressed {got} m, want {want}",
            k + 1
        );
    }
}

/// A sphere of radius 5 mm resting on a floor (y = 0) under gravity tilted
/// by `a`, Hertz-Mindlin with friction `mu`: its velocity and spin after
/// `t` s, and its radius.
fn hertz_mindlin_on_slope(ctx: &GpuContext, a: f32, mu: f32, t: f32) -> ([f32; 3], [f32; 3], f32) {
    let (g, p, dem, grid) = on_slope_start(a, mu);
    let r = g.radius[0];
    let mut b = gpu(ctx, g, floor(), grid, dem);
    for _ in 0..(t / p.dt).round() as usize {
        b.step(&p).unwrap();
    }
    let g = Backend::grains(&mut b).unwrap();
    (g.vel[0], g.ang_vel[0], r)
}

#[test]
fn hertz_mindlin_rolls_a_sphere_down_a_slope_at_five_sevenths_g_sin_a_on_the_gpu() {
    let Some(ctx) = context() else { return };
    let (a, t) = (0.3f32, 0.1f32);
    let (v, w, r) = hertz_mindlin_on_slope(&ctx, a, 0.5, t);
    let want = 5.0 / 7.0 * G * a.sin() * t;
    assert!((v[0] / want - 1.0).abs() < 0.01, "{} m/s against {want}", v[0]);
    // The contact point at rest up to the spring's give: v_x = -w_z r.
    assert!((v[0] + w[2] * r).abs() < 0.01 * want, "v {v:?}, w {w:?}");
    assert!(
        v[2].abs() < 1e-6 && w[0].abs() < 1e-6 && w[1].abs() < 1e-6,
        "v {v:?}, w {w:?}"
    );
}

#[test]
fn hertz_mindlin_lets_a_sphere_with_too_little_friction_slide_on_the_gpu() {
    let Some(ctx) = context() else { return };
    let (a, t, mu) = (0.3f32, 0.1f32, 0.03f32);
    let (v, w, r) = hertz_mindlin_on_slope(&ctx, a, mu, t);
    let want = G * (a.sin() - mu * a.cos()) * t;
    assert!((v[0] / want - 1.0).abs() < 0.01, "{} m/s against {want}", v[0]);
    // Friction spins it up at 5/2 mu g cos a / r (2 mu g cos a / r for a disk).
    let spin = 2.5 * mu * G * a.cos() / r * t;
    assert!((-w[2] / spin - 1.0).abs() < 0.02, "{} rad/s against {spin}", -w[2]);
}

/// The totals of 3D on the GPU (the grains and the lists read back) are the
/// CPU's reduction of them: a sphere pressed into the floor.
#[test]
fn the_gpu_totals_of_spheres_are_those_of_their_state() {
    let Some(ctx) = context() else { return };
    let p = params([0.0, -G], 1e-4, SolverKind::Spring);
    let g = Grains::<Dim3>::of_density(
        vec![[0.5, R - 0.01, 0.5], [1.5, 1.0, 0.5]],
        vec![[0.0, 0.0, 0.0], [0.2, -0.1, 0.3]],
        vec![R, R],
        RHO_LAB,
    );
    let grid = grid([0.0; 3], [2.0; 3], R, &p);
    let mut b = gpu(&ctx, g, floor(), grid, spring(8000.0, 0.0, Integrator::Leapfrog));
    b.step(&p).unwrap();
    let region = Region::<Dim3> {
        gravity: [0.0, -G, 0.0],
        neck_y: f32::NEG_INFINITY,
        bbox: [0.0, 0.0, 0.0, 2.0, 2.0, 2.0],
        period: 0.0,
    };
    let t = Backend::totals(&mut b, &region).unwrap();
    let g = Backend::grains(&mut b).unwrap().clone();
    let kinetic: f64 = (0..2)
        .map(|i| 0.5 * g.mass(i) * f64::from(Dim3::dot(g.vel[i], g.vel[i])))
        .sum();
    assert!(
        (t.kinetic_energy / kinetic - 1.0).abs() < 1e-5,
        "{} J against {kinetic} J",
        t.kinetic_energy
    );
    // The first sphere overlaps the floor by about 1 cm after one step.
    assert!(
        (t.max_overlap - 0.01).abs() < 1e-3,
        "deepest overlap {} m",
        t.max_overlap
    );
    assert_eq!(t.lost, 0);
}

/// `hourglass run` of the lab's pile for 3 s (17 spheres emitted) on
/// `--backend gpu` (lavapipe in CI) and on the CPU: the same spheres, ending
/// where the CPU's end, rows of the same energy.
#[test]
fn the_labs_pile_runs_on_the_gpu_as_on_the_cpu() {
    if context().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("hourglass-gpu-pile-{}", std::process::id()));
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/3d/pile_box.toml");
    let run = |backend: &str| {
        let args = [scene, "--backend", backend, "--duration", "3", "--quiet", "--force"];
        let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        run_positions(&args, &dir.join(backend))
    };
    let (a, gpu_row) = run("gpu");
    let (b, cpu_row) = run("cpu");
    assert_eq!(a.len(), 17 * 3, "17 spheres emitted in 3 s");
    assert_eq!(a.len(), b.len());
    let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-3, "the spheres end {worst} m from the CPU's");
    // kinetic and potential energy (columns 4 and 5).
    for k in [4, 5] {
        assert!(
            (gpu_row[k] / cpu_row[k] - 1.0).abs() < 1e-4,
            "column {k}: {} vs {}",
            gpu_row[k],
            cpu_row[k]
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
