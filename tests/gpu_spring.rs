//! The spring model (docs/lab.md) on the GPU against the CPU reference: whole
//! runs with each integrator agree, and the GPU column settles to the
//! compressions k m g / k_s. The stage test (`dem_force_matches_cpu` with the
//! linear law) is in tests/gpu_dem.rs, beside the Hertz one.

mod gpu_common;

use gpu_common::context;
use hourglass::backend::{Backend, CpuDemBackend};
use hourglass::gpu::dem::GpuDemBackend;
use hourglass::model::{DemParams, Grains, Grid, Integrator, NormalLaw, SolverKind, StepParams, Walls};
use hourglass::scene::{BackendChoice, Scene, build};

const K: usize = 16;
/// Areal density of a 1 kg disk of radius 0.3 m, kg/m^2.
const RHO: f64 = 1.0 / (std::f64::consts::PI * 0.09);

fn params(dt: f32) -> StepParams {
    StepParams {
        gravity: [0.0, -9.81],
        dt,
        alert: 0.02,
        tol: 1e-6,
        itmax: 1,
        omega: 0.5,
        overlap_relax: 0.0,
        overlap_relax_default: false,
        overlap_iterations: 0,
        solver: SolverKind::Spring,
        warm_start: false,
        mu: 0.0,
        mu_wall: 0.0,
        cohesion: Default::default(),
        restitution: 0.0,
        forcing: Default::default(),
    }
}

fn spring(integrator: Integrator) -> DemParams {
    DemParams {
        kn: 4000.0,
        kt: 0.0,
        gamma_n: 20.0,
        gamma_relax: 20.0,
        mu: 0.0,
        mu_roll: 0.0,
        law: NormalLaw::Linear,
        integrator,
        ..DemParams::default()
    }
}

/// 30 balls of 0.25 to 0.35 m, in rows with random sideways speeds, falling into a 4 m box.
fn pile() -> (Grains, Walls, Grid) {
    let mut rng = gpu_common::Rng::new(7);
    let (mut pos, mut vel, mut rad) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..30 {
        pos.push([
            0.4 + 0.75 * (i % 5) as f32 + rng.f32(-0.02, 0.02),
            0.4 + 0.75 * (i / 5) as f32,
        ]);
        vel.push([rng.f32(-1.0, 1.0), rng.f32(-1.0, 0.0)]);
        rad.push(rng.f32(0.25, 0.35));
    }
    let g = Grains::new(pos, vel, rad, RHO);
    let lines = [
        [[0.0, 0.0], [4.0, 0.0]],
        [[4.0, 0.0], [4.0, 6.0]],
        [[0.0, 6.0], [0.0, 0.0]],
    ];
    let grid = Grid::covering([0.0, 0.0, 4.0, 6.0], 0.72).unwrap();
    (g, Walls::new(&lines), grid)
}

#[test]
fn spring_step_matches_cpu_with_each_integrator() {
    let Some(ctx) = context() else { return };
    for integrator in [Integrator::SemiImplicitEuler, Integrator::Leapfrog] {
        let (g, walls, grid) = pile();
        let p = params(1e-3);
        let dem = spring(integrator);
        let mut cpu = CpuDemBackend::new(g.clone(), walls.clone(), grid, K, dem);
        let mut gpu = GpuDemBackend::new(ctx.clone(), g, walls, grid, K, dem).unwrap();
        gpu.check_every = 9;
        let mut contacts = 0;
        for step in 1..=600 {
            cpu.step(&p).unwrap();
            // The listed CPU step counts no contacts: the detection it redoes on demand does.
            contacts += cpu.stepper.contact_lists(&cpu.grains, &cpu.walls).distinct();
            gpu.step(&p).unwrap();
            if step % 100 == 0 {
                let want = cpu.grains().unwrap().clone();
                let got = gpu.grains().unwrap();
                let worst = (0..want.len())
                    .map(|i| (got.pos[i][0] - want.pos[i][0]).hypot(got.pos[i][1] - want.pos[i][1]))
                    .fold(0.0f32, f32::max);
                eprintln!(
                    "{} step {step}: largest position difference {worst:.2e} m",
                    integrator.name()
                );
                // Rounding alone (fused multiply-adds, sqrt) over 600 steps of
                // 0.6 m balls: the first collisions amplify it, but not to a tenth of a millimetre.
                assert!(
                    worst < 1e-4,
                    "{} step {step}: GPU and CPU differ by {worst} m",
                    integrator.name()
                );
            }
        }
        assert!(
            contacts > 1000,
            "{}: the pile never touched ({contacts})",
            integrator.name()
        );
    }
}

/// scenes/column.toml on the GPU backend: after 12 s the bottom contact is
/// compressed by 20 m g / k_s, as on the CPU (tests/lab_models.rs).
#[test]
fn column_scene_settles_on_the_gpu() {
    if context().is_none() {
        return;
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/column.toml");
    let mut scene = Scene::load(&path).unwrap();
    scene.run.backend = BackendChoice::Gpu;
    let setup = build(&scene).unwrap();
    let grid = hourglass::backend::grid_for(&setup).unwrap();
    let mut notices = Vec::new();
    let mut b = hourglass::backend::select(
        &setup,
        grid,
        BackendChoice::Gpu,
        hourglass::backend::Device::Open,
        &mut notices,
    )
    .unwrap();
    for _ in 0..12_000 {
        b.step(&setup.params).unwrap();
    }
    let g = b.grains().unwrap();
    let low = g.id.iter().position(|&id| id == 0).unwrap();
    let got = f64::from(0.3 - g.pos[low][1]);
    let want = 20.0 * 9.81 / setup.scene.spring.ks;
    eprintln!("GPU column: lowest compression {got:.5e} m, want {want:.5e} m");
    assert!((got - want).abs() < 0.02 * want, "lowest compression {got} vs {want}");
}
