//! Spheres in three dimensions on the CPU stepper (`CpuStepper<Dim3>`),
//! each answer under projected Jacobi, APGD, NLGS (Gauss-Seidel sweeps,
//! `cpu::sweep`) and coloured NLGS: head-on pairs keep their
//! momentum with the masses of spheres (rho 4/3 pi r^3), a dropped sphere
//! rebounds to e^2 of its height and then rests on the floor, and a sphere
//! on a slope rolls at 5/7 g sin a (the inertia 2/5 m r^2) or, with too
//! little friction, slides at g (sin a - mu cos a).

mod common;

use common::nscd3::{
    RHO, drop_rebound, grid, held_by_a_closed_mesh, inelastic_pair, kept_out_by_a_closed_obstacle, params,
    restitution_pair, rolling, sliding,
};
use hourglass::backend::{Backend, CpuBackend};
use hourglass::cpu::CpuStepper;
use hourglass::model::{Dim3, Grains, Grid, SolverKind, StepParams, Walls3d};

/// The CPU backend of the step's NSCD solver.
fn cpu(g: Grains<Dim3>, walls: Walls3d, grid: Grid<Dim3>) -> Box<dyn Backend<Dim3>> {
    Box::new(CpuBackend::new(g, walls, grid, 16))
}

fn stepper(lo: [f32; 3], hi: [f32; 3], r_max: f32, p: &StepParams) -> CpuStepper<Dim3> {
    CpuStepper::new(grid(lo, hi, r_max, p), 16)
}

/// The NSCD solvers with 3D stages.
const SOLVERS: [SolverKind; 4] = [
    SolverKind::Jacobi,
    SolverKind::Apgd,
    SolverKind::Nlgs,
    SolverKind::Colored,
];

#[test]
fn a_perfectly_inelastic_head_on_pair_moves_on_with_the_momentum_of_spheres() {
    // Frictionless: Uzawa too.
    for solver in SOLVERS.into_iter().chain([SolverKind::Uzawa]) {
        inelastic_pair(&cpu, solver);
    }
}

#[test]
fn a_head_on_pair_with_restitution_separates_at_e_times_its_approach() {
    for solver in SOLVERS {
        restitution_pair(&cpu, solver);
    }
}

#[test]
fn a_dropped_sphere_rebounds_to_e_squared_of_its_height_and_then_rests() {
    for solver in SOLVERS.into_iter().chain([SolverKind::Uzawa]) {
        drop_rebound(&cpu, solver);
    }
}

#[test]
fn a_sphere_rolls_down_a_slope_at_five_sevenths_g_sin_a() {
    for solver in SOLVERS {
        rolling(&cpu, solver);
    }
}

#[test]
fn a_sphere_with_too_little_friction_slides_at_g_sin_a_less_mu_g_cos_a() {
    for solver in SOLVERS {
        sliding(&cpu, solver);
    }
}

#[test]
fn a_sphere_that_jumps_a_face_of_a_closed_mesh_is_pushed_back_inside() {
    for solver in SOLVERS {
        held_by_a_closed_mesh(&cpu, solver);
    }
}

#[test]
fn a_sphere_that_jumps_a_face_of_a_closed_obstacle_is_pushed_back_out() {
    for solver in SOLVERS {
        kept_out_by_a_closed_obstacle(&cpu, solver);
    }
}

#[test]
fn a_solver_without_3d_stages_is_refused_by_name() {
    let p = StepParams {
        solver: SolverKind::Seed,
        ..params([0.0, -9.81], 0.0, 0.0)
    };
    let mut g = Grains::<Dim3>::of_density(vec![[0.05, 0.05, 0.05]], vec![[0.0; 3]], vec![0.005], RHO);
    let mut st = stepper([0.0; 3], [0.1; 3], 0.005, &p);
    let e = st.step(&mut g, &Walls3d::default(), &p).unwrap_err().to_string();
    assert!(e.contains("solver `seed`") && e.contains("3D"), "{e}");
}

#[test]
fn friction_under_a_frictionless_solver_is_refused() {
    let p = StepParams {
        solver: SolverKind::Uzawa,
        ..params([0.0, -9.81], 0.0, 0.3)
    };
    let mut g = Grains::<Dim3>::of_density(vec![[0.05, 0.05, 0.05]], vec![[0.0; 3]], vec![0.005], RHO);
    let mut st = stepper([0.0; 3], [0.1; 3], 0.005, &p);
    let e = st.step(&mut g, &Walls3d::default(), &p).unwrap_err().to_string();
    assert!(e.contains("friction under solver `uzawa`"), "{e}");
}

#[test]
fn spheres_poured_into_a_box_come_to_rest_inside_it() {
    for solver in SOLVERS {
        poured(solver);
    }
}

fn poured(solver: SolverKind) {
    let r = 0.004f32;
    let p = StepParams {
        solver,
        dt: 1e-3,
        tol: 1e-6,
        itmax: 2000,
        overlap_iterations: 4,
        mu: 0.3,
        mu_wall: 0.3,
        ..params([0.0, -9.81], 0.0, 0.3)
    };
    let (lo, hi) = ([0.0f32; 3], [0.04f32, 0.2, 0.04]);
    // 4 x 4 spheres a layer, 8 layers, each layer shifted so the pile does
    // not stack in columns.
    let mut pos = Vec::new();
    for layer in 0..8 {
        for k in 0..16 {
            let shift = 0.001 * (layer % 3) as f32;
            let (i, j) = ((k % 4) as f32, (k / 4) as f32);
            pos.push([
                0.005 + shift + 0.0095 * i,
                0.01 + 0.0095 * layer as f32,
                0.005 + 0.0095 * j + shift * 0.5,
            ]);
        }
    }
    let n = pos.len();
    let mut g = Grains::<Dim3>::of_density(pos, vec![[0.0; 3]; n], vec![r; n], RHO);
    let walls = Walls3d::boxed(lo, hi).unwrap();
    let mut st = stepper(lo, hi, r, &p);
    let mut overlap = 0.0f32;
    for _ in 0..1500 {
        let stats = st.step(&mut g, &walls, &p).unwrap();
        overlap = overlap.max(stats.max_overlap);
    }
    for x in &g.pos {
        assert!(
            (0..3).all(|k| x[k] > lo[k] && x[k] < hi[k]),
            "a sphere left the box: {x:?}"
        );
    }
    let fastest = g.max_speed();
    assert!(fastest < 2e-3, "{solver:?}: still moving at {fastest} m/s");
    // The pile settled: no sphere above the fourth layer's height of a
    // dense packing of this box, and none overlapping more than 1 % of r.
    let top = g.pos.iter().map(|x| x[1]).fold(0.0f32, f32::max);
    assert!(top < 0.06, "{solver:?}: top sphere at {top} m");
    assert!(overlap < 0.01 * r, "{solver:?}: overlap {overlap} m");
}
