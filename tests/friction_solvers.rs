//! The frictional Jacobi, APGD and coloured NLGS of the CPU path (the twins of
//! the GPU's frictional stages) on the two cases of docs/nscd.md#coulomb-friction-and-rotation with one
//! answer: a disk on a slope rolls without slipping (a = 2/3 g sin, w = -v/r)
//! when mu >= tan(angle)/3, and slides otherwise (a = g (sin - mu cos), the
//! spin growing at 2 mu g cos / r). Runs without a GPU.

mod common;

use common::{DENSITY, params};
use hourglass::backend::{Backend, CpuBackend};
use hourglass::model::{Grains, Grid, SolverKind, Walls};

const SLOPE_DEG: f32 = 30.0;
const STEPS: usize = 200;

/// 20 disks of radii 1.5-2.5 mm at rest on a 30° slope, 8 mm apart, stepped
/// STEPS times with `solver` and friction `mu` (walls); returns the grains.
fn roll(solver: SolverKind, mu: f32) -> (Grains, f32) {
    let (s, c) = SLOPE_DEG.to_radians().sin_cos();
    let b = [2.0 * f64::from(c), -2.0 * f64::from(s)];
    let walls = Walls::new(&[
        [[0.0, 0.0], b],
        [b, [b[0], 1.0]],
        [[b[0], 1.0], [0.0, 1.0]],
        [[0.0, 1.0], [0.0, 0.0]],
    ]);
    let radius: Vec<f32> = (0..20).map(|k| 0.0015 + 0.00005 * k as f32).collect();
    let pos = radius
        .iter()
        .enumerate()
        .map(|(k, &r)| {
            let d = 0.02 + 0.008 * k as f32;
            [d * c + r * s, -d * s + r * c]
        })
        .collect();
    let grains = Grains::new(pos, vec![[0.0; 2]; 20], radius, DENSITY);
    let mut p = params(solver);
    (p.mu, p.mu_wall) = (mu, mu);
    let grid = Grid::covering(walls.bounding_box(), 2.0 * grains.max_radius() + p.alert).unwrap();
    let mut cpu = CpuBackend::new(grains, walls, grid, 16);
    for _ in 0..STEPS {
        let st = cpu.step(&p).unwrap();
        assert!(st.converged, "{}: {st:?}", solver.name());
    }
    (cpu.grains().unwrap().clone().into_id_order(), STEPS as f32 * p.dt)
}

const SOLVERS: [SolverKind; 3] = [SolverKind::Jacobi, SolverKind::Apgd, SolverKind::Colored];

#[test]
fn disks_roll_without_slipping_when_mu_exceeds_a_third_of_the_slope() {
    let (s, c) = SLOPE_DEG.to_radians().sin_cos();
    for solver in SOLVERS {
        // tan 30° / 3 = 0.19 < 0.5
        let (g, t) = roll(solver, 0.5);
        let v_roll = 2.0 / 3.0 * 9.81 * s * t;
        for i in 0..g.len() {
            let v = g.vel[i][0] * c - g.vel[i][1] * s;
            let w = g.ang_vel[i];
            let what = format!("{}: grain {i}: v {v} w {w}, rolling v {v_roll}", solver.name());
            assert!((v - v_roll).abs() < 0.01 * v_roll, "{what}");
            // No slip: the contact point is at rest, v + r w = 0.
            assert!((v + g.radius[i] * w).abs() < 0.01 * v_roll, "{what}");
            assert!(
                (g.angle[i] - w * t / 2.0).abs() < 0.02 * (w * t / 2.0).abs(),
                "{what}: angle {}",
                g.angle[i]
            );
        }
    }
}

#[test]
fn disks_slide_when_mu_is_below_a_third_of_the_slope() {
    let (s, c) = SLOPE_DEG.to_radians().sin_cos();
    let mu = 0.1; // < 0.19
    for solver in SOLVERS {
        let (g, t) = roll(solver, mu);
        let v_slide = 9.81 * (s - mu * c) * t;
        for i in 0..g.len() {
            let v = g.vel[i][0] * c - g.vel[i][1] * s;
            let w_slide = -2.0 * mu * 9.81 * c * t / g.radius[i];
            let w = g.ang_vel[i];
            let what = format!(
                "{}: grain {i}: v {v} (sliding {v_slide}), w {w} (sliding {w_slide})",
                solver.name()
            );
            assert!((v - v_slide).abs() < 0.01 * v_slide, "{what}");
            assert!((w - w_slide).abs() < 0.01 * w_slide.abs(), "{what}");
        }
    }
}

/// NLGS with friction sweeps the contacts still correcting again after each
/// full sweep over its threshold (`CpuStepper::hot_sweeps`, as without
/// friction). One step of a frictional discharge (600 grains of the bundled
/// hourglass, mu = mu_wall = 0.4, 0.15 s after the gate opened), from the
/// same state with and without those sweeps: both converge, every contact
/// then keeps to its Coulomb cone, and the hot sweeps need fewer full sweeps.
#[test]
fn frictional_nlgs_sweeps_its_hot_contacts_again_and_converges_in_fewer_full_sweeps() {
    use hourglass::backend::grid_for;
    use hourglass::scene::{Scene, build};
    let mut scene = Scene::default();
    scene.grains.count = 600;
    scene.solver.kind = SolverKind::Nlgs;
    (scene.solver.mu, scene.solver.mu_wall) = (0.4, 0.4);
    let setup = build(&scene).unwrap();
    let p = setup.params;
    let (cap, grid, walls) = (
        scene.solver.contact_capacity as usize,
        grid_for(&setup).unwrap(),
        setup.walls(false),
    );
    let mut flowing = CpuBackend::new(setup.grains.clone(), walls.clone(), grid, cap);
    for _ in 0..150 {
        flowing.step(&p).unwrap();
    }
    let sweeps = |hot: u32| {
        let mut b = CpuBackend::new(flowing.grains.clone(), walls.clone(), grid, cap);
        b.stepper = flowing.stepper.clone();
        b.stepper.hot_sweeps = hot;
        b.stepper.residual_history = Some(Vec::new());
        let st = b.step(&p).unwrap();
        assert!(st.converged, "hot sweeps {hot}: {st:?}");
        let lists = b.stepper.contacts();
        for i in 0..lists.count.len() {
            for c in lists.of(i) {
                let bound = p.mu * c.impulse * (1.0 + 1e-5);
                assert!(c.impulse >= 0.0 && c.impulse_t.abs() <= bound.max(0.0) + 1e-12, "{c:?}");
            }
        }
        b.stepper.residual_history.unwrap().len()
    };
    let (plain, hot) = (sweeps(0), sweeps(hourglass::cpu::nlgs::HOT_SWEEPS));
    assert!(
        4 * hot < 3 * plain,
        "{hot} full sweeps with hot sweeps, {plain} without"
    );
}
