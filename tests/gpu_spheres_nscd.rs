//! The NSCD solvers of 3D on the GPU (`GpuBackend<Dim3>`, lavapipe in CI),
//! held to the physics tests/spheres.rs holds the CPU to
//! (tests/common/nscd3.rs): head-on pairs keep the momentum of spheres and
//! separate at e times their approach, a dropped sphere rebounds to e^2 of
//! its height, and a sphere on a slope rolls at 5/7 g sin a or slides at
//! g (sin a - mu cos a) under projected Jacobi, coloured NLGS and APGD;
//! frictionless, Uzawa too (the drop's rebound: Jacobi and Uzawa).
//! A solver the GPU does not run in 3D is refused by name.

mod common;
mod gpu_common;

use common::nscd3::{
    RHO, drop_rebound, grid, held_by_a_closed_mesh, inelastic_pair, kept_out_by_a_closed_obstacle, params,
    restitution_pair, rolling, sliding, wet_pair,
};
use common::spheres::run_positions;
use gpu_common::context;
use hourglass::backend::Backend;
use hourglass::gpu::{GpuBackend, GpuContext};
use hourglass::model::{Dim3, Grains, Grid, Region, SolverKind, Space, StepParams, Walls3d};

/// A maker of GPU backends on `ctx`.
fn on(ctx: &GpuContext) -> impl Fn(Grains<Dim3>, Walls3d, Grid<Dim3>) -> Box<dyn Backend<Dim3>> + '_ {
    |g, walls, grid| Box::new(GpuBackend::new(ctx.clone(), g, walls, grid, 16).expect("the GPU NSCD backend"))
}

#[test]
fn a_perfectly_inelastic_head_on_pair_moves_on_with_the_momentum_of_spheres_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in [
        SolverKind::Jacobi,
        SolverKind::Colored,
        SolverKind::Apgd,
        SolverKind::Uzawa,
    ] {
        inelastic_pair(&on(&ctx), solver);
    }
}

#[test]
fn a_head_on_pair_with_restitution_separates_at_e_times_its_approach_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in [SolverKind::Jacobi, SolverKind::Colored, SolverKind::Apgd] {
        restitution_pair(&on(&ctx), solver);
    }
}

#[test]
fn a_dropped_sphere_rebounds_to_e_squared_of_its_height_and_then_rests_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in [SolverKind::Jacobi, SolverKind::Uzawa] {
        drop_rebound(&on(&ctx), solver);
    }
}

#[test]
fn a_sphere_rolls_down_a_slope_at_five_sevenths_g_sin_a_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in [SolverKind::Jacobi, SolverKind::Colored, SolverKind::Apgd] {
        rolling(&on(&ctx), solver);
    }
}

#[test]
fn a_sphere_with_too_little_friction_slides_at_g_sin_a_less_mu_g_cos_a_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in [SolverKind::Jacobi, SolverKind::Colored, SolverKind::Apgd] {
        sliding(&on(&ctx), solver);
    }
}

#[test]
fn a_sphere_that_jumps_a_face_of_a_closed_mesh_is_pushed_back_inside_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in [SolverKind::Jacobi, SolverKind::Colored, SolverKind::Apgd] {
        held_by_a_closed_mesh(&on(&ctx), solver);
    }
}

#[test]
fn a_sphere_that_jumps_a_face_of_a_closed_obstacle_is_pushed_back_out_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in [SolverKind::Jacobi, SolverKind::Colored, SolverKind::Apgd] {
        kept_out_by_a_closed_obstacle(&on(&ctx), solver);
    }
}

#[test]
fn two_wet_spheres_approach_with_the_force_law_acceleration_on_the_gpu() {
    let Some(ctx) = context() else { return };
    for solver in [
        SolverKind::Jacobi,
        SolverKind::Colored,
        SolverKind::Apgd,
        SolverKind::Uzawa,
    ] {
        wet_pair(&on(&ctx), solver);
    }
}

/// The first step's error under `p`.
fn refusal(ctx: &GpuContext, p: &StepParams) -> String {
    let g = Grains::<Dim3>::of_density(vec![[0.05, 0.05, 0.05]], vec![[0.0; 3]], vec![0.005], RHO);
    let grid = grid([0.0; 3], [0.1; 3], 0.005, p);
    let mut b = GpuBackend::new(ctx.clone(), g, Walls3d::default(), grid, 16).unwrap();
    b.step(p).unwrap_err().to_string()
}

#[test]
fn what_the_gpu_does_not_run_in_3d_is_refused_by_name() {
    let Some(ctx) = context() else { return };
    let base = params([0.0, -9.81], 0.0, 0.0);
    for solver in [SolverKind::Nlgs, SolverKind::Seed] {
        let e = refusal(&ctx, &StepParams { solver, ..base });
        let name = format!(
            "solver `{}` on the GPU backend in 3D (jacobi, colored, uzawa, apgd run there)",
            solver.name()
        );
        assert!(e.contains(&name), "{e}");
    }
    let frictional_uzawa = StepParams {
        solver: SolverKind::Uzawa,
        ..params([0.0, -9.81], 0.0, 0.3)
    };
    let e = refusal(&ctx, &frictional_uzawa);
    assert!(
        e.contains("solver `uzawa` with friction on the GPU backend in 3D (jacobi, colored, apgd carry it there)"),
        "{e}"
    );
}

/// `hourglass run` of the 3D silo under projected Jacobi (200 spheres, no
/// settle, 40 steps) on `--backend gpu` (lavapipe in CI) and on the CPU:
/// the same spheres, within 0.2 mm of the CPU's at the end, the same
/// energy to 3 % (kinetic) and 0.1 % (potential). The two stop their
/// iterations at different counts (the GPU checks every 10), so they agree
/// to the solve's tolerance, not bit for bit.
#[test]
fn the_3d_silo_runs_under_jacobi_on_the_gpu_as_on_the_cpu() {
    if context().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("hourglass-gpu-silo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let silo = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/3d/silo.toml")).unwrap();
    assert!(silo.contains("\nsettle = 0.2\n"));
    let scene = dir.join("silo.toml");
    std::fs::write(&scene, silo.replace("\nsettle = 0.2\n", "\nsettle = 0.0\n")).unwrap();
    let run = |backend: &str| {
        let flags = [
            "--solver",
            "jacobi",
            "--grains",
            "200",
            "--steps",
            "40",
            "--quiet",
            "--force",
            "--backend",
            backend,
        ];
        let mut args = vec![scene.as_os_str()];
        args.extend(flags.iter().map(std::ffi::OsStr::new));
        run_positions(&args, &dir.join(backend))
    };
    let (gpu, gpu_row) = run("gpu");
    let (cpu, cpu_row) = run("cpu");
    assert_eq!(gpu.len(), 200 * 3);
    assert_eq!(gpu.len(), cpu.len());
    let worst = gpu.iter().zip(&cpu).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    assert!(worst < 2e-4, "the spheres end {worst} m from the CPU's");
    // grains, passed; kinetic and potential energy (columns 2, 3, 4, 5).
    assert_eq!(gpu_row[2..4], cpu_row[2..4]);
    assert!(gpu_row[4] > 0.0 && (gpu_row[4] / cpu_row[4] - 1.0).abs() < 0.03);
    assert!((gpu_row[5] / cpu_row[5] - 1.0).abs() < 1e-3);
    std::fs::remove_dir_all(&dir).ok();
}

/// Spheres handed over out of id order (a resumed CPU run keeps its cell
/// order): the GPU's diagnostics row pairs each listed contact with its
/// own spheres, so the pair that overlaps by 0.1 mm reads 0.1 mm.
#[test]
fn the_gpu_totals_of_spheres_out_of_id_order_pair_each_contact_with_its_spheres() {
    let Some(ctx) = context() else { return };
    // No push-out: the overlap stays as it is.
    let p = StepParams {
        overlap_relax: 0.0,
        ..params([0.0, 0.0], 0.0, 0.0)
    };
    let r = 0.005f32;
    let pos = vec![
        [0.02, 0.02, 0.02],
        [0.02 + 2.0 * r - 1e-4, 0.02, 0.02],
        [0.08, 0.08, 0.08],
    ];
    let mut g = Grains::<Dim3>::of_density(pos, vec![[0.0; 3]; 3], vec![r; 3], RHO);
    g.id = vec![2, 0, 1];
    let grid = grid([0.0; 3], [0.1; 3], r, &p);
    for solver in [SolverKind::Jacobi, SolverKind::Apgd] {
        let mut b = GpuBackend::new(ctx.clone(), g.clone(), Walls3d::default(), grid, 16).unwrap();
        b.step(&StepParams { solver, ..p }).unwrap();
        let region = Region {
            gravity: [0.0; 3],
            neck_y: -1.0,
            bbox: Dim3::box_of([0.0; 3], [0.1; 3]),
            period: 0.0,
        };
        let t = Backend::totals(&mut b, &region).unwrap();
        assert!(
            (t.max_overlap - 1e-4).abs() < 1e-6,
            "{solver:?}: max overlap {}",
            t.max_overlap
        );
        assert_eq!(t.contacts, Some(1), "{solver:?}");
        // The spheres come back in id order, where they were.
        let back = b.grains().unwrap();
        assert_eq!(back.id, [0, 1, 2]);
        assert_eq!(back.pos[2], g.pos[0], "{solver:?}");
    }
}
