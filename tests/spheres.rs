//! Spheres in three dimensions on the CPU stepper (`CpuStepper<Dim3>`),
//! each answer under projected Jacobi, APGD and NLGS (Gauss-Seidel sweeps,
//! `cpu::sweep`): head-on pairs keep their
//! momentum with the masses of spheres (rho 4/3 pi r^3), a dropped sphere
//! rebounds to e^2 of its height and then rests on the floor, and a sphere
//! on a slope rolls at 5/7 g sin a (the inertia 2/5 m r^2) or, with too
//! little friction, slides at g (sin a - mu cos a).

use hourglass::cpu::CpuStepper;
use hourglass::model::{Dim3, Grains, Grid, Plane, SolverKind, StepParams, Walls3d};

/// Jacobi at a tight tolerance, no push-out through the moved positions.
fn params(gravity: [f32; 2], e: f32, mu: f32) -> StepParams {
    StepParams {
        gravity,
        dt: 1e-4,
        alert: 0.002,
        tol: 1e-10,
        itmax: 5000,
        omega: 0.5,
        overlap_relax: 0.2,
        overlap_relax_default: false,
        overlap_iterations: 0,
        solver: SolverKind::Jacobi,
        warm_start: true,
        mu,
        mu_wall: mu,
        cohesion: Default::default(),
        restitution: e,
        forcing: Default::default(),
    }
}

fn stepper(lo: [f32; 3], hi: [f32; 3], r_max: f32, p: &StepParams) -> CpuStepper<Dim3> {
    let grid = Grid::<Dim3>::covering_box(lo, hi, 2.0 * r_max + p.alert).unwrap();
    CpuStepper::new(grid, 16)
}

const RHO: f64 = 2500.0;

/// The NSCD solvers with 3D stages.
const SOLVERS: [SolverKind; 3] = [SolverKind::Jacobi, SolverKind::Apgd, SolverKind::Nlgs];

/// `params` under `solver`.
fn under(solver: SolverKind, p: StepParams) -> StepParams {
    StepParams { solver, ..p }
}

/// Two spheres of radii `ra`, `rb` approaching along x at `va`, `vb`,
/// without gravity; their velocities along x once they have separated or
/// stuck, after 0.05 s.
fn head_on(solver: SolverKind, ra: f32, rb: f32, va: f32, vb: f32, e: f32) -> (f32, f32, Grains<Dim3>) {
    let p = under(solver, params([0.0, 0.0], e, 0.0));
    let gap = 0.002;
    let mut g = Grains::<Dim3>::of_density(
        vec![[0.0, 0.0, 0.0], [ra + rb + gap, 0.0, 0.0]],
        vec![[va, 0.0, 0.0], [vb, 0.0, 0.0]],
        vec![ra, rb],
        RHO,
    );
    let walls = Walls3d::default();
    let mut st = stepper([-0.05, -0.05, -0.05], [0.05, 0.05, 0.05], ra.max(rb), &p);
    for _ in 0..500 {
        st.step(&mut g, &walls, &p).unwrap();
    }
    (g.vel[0][0], g.vel[1][0], g)
}

#[test]
fn a_perfectly_inelastic_head_on_pair_moves_on_with_the_momentum_of_spheres() {
    // Radii 4 and 2 mm: masses 8 : 1 for spheres (4 : 1 would be disks).
    let (ra, rb, va, vb) = (0.004f32, 0.002f32, 0.1f32, -0.3f32);
    // Frictionless: Uzawa too.
    for solver in SOLVERS.into_iter().chain([SolverKind::Uzawa]) {
        let (ua, ub, g) = head_on(solver, ra, rb, va, vb, 0.0);
        let (ma, mb) = (g.mass(0), g.mass(1));
        assert!((ma / mb - 8.0).abs() < 1e-4, "{ma} {mb}");
        let common = (ma * f64::from(va) + mb * f64::from(vb)) / (ma + mb);
        assert!((f64::from(ua) - common).abs() < 1e-5, "{ua} against {common}");
        assert!((f64::from(ub) - common).abs() < 1e-5, "{ub} against {common}");
        // Nothing moved off the line of centres, nothing spins.
        for v in &g.vel {
            assert!(v[1].abs() < 1e-7 && v[2].abs() < 1e-7, "{v:?}");
        }
        assert_eq!(g.ang_vel, vec![[0.0; 3]; 2]);
        // Sticking together, not overlapping by more than the solve's tolerance.
        let d = ((g.pos[1][0] - g.pos[0][0]).powi(2) + g.pos[1][1].powi(2) + g.pos[1][2].powi(2)).sqrt();
        assert!((d - (ra + rb)).abs() < 1e-6, "{solver:?}: centres {d} apart");
    }
}

#[test]
fn a_head_on_pair_with_restitution_separates_at_e_times_its_approach() {
    let (ra, rb, va, vb, e) = (0.003f32, 0.003f32, 0.2f32, -0.1f32, 0.5f32);
    for solver in SOLVERS {
        let (ua, ub, g) = head_on(solver, ra, rb, va, vb, e);
        let approach = va - vb;
        let separation = ub - ua;
        assert!(
            (separation / approach - e).abs() < 1e-3,
            "{separation} against {approach}"
        );
        let (ma, mb) = (g.mass(0), g.mass(1));
        let before = ma * f64::from(va) + mb * f64::from(vb);
        let after = ma * f64::from(ua) + mb * f64::from(ub);
        assert!(
            (after - before).abs() < 1e-6 * before.abs().max(ma * 0.1),
            "{solver:?}: {after} against {before}"
        );
    }
}

/// A sphere dropped from rest with its lowest point `h` above a floor at
/// y = 0 (a plane of a box): the highest point of its first rebound and
/// the largest gap over its last 0.1 s, m.
fn drop(solver: SolverKind, h: f32, e: f32) -> (f32, f32) {
    let r = 0.005f32;
    let p = under(solver, params([0.0, -9.81], e, 0.0));
    let mut g = Grains::<Dim3>::of_density(vec![[0.05, r + h, 0.05]], vec![[0.0; 3]], vec![r], RHO);
    let walls = Walls3d::boxed([0.0; 3], [0.1, 0.3, 0.1]).unwrap();
    let mut st = stepper([0.0; 3], [0.1, 0.3, 0.1], r, &p);
    let (mut bounced, mut apex, mut last) = (false, 0.0f32, 0.0f32);
    // Fall 0.14 s, rise 0.07 s and fall back (e = 0.5), settle.
    let steps = 8000;
    for k in 0..steps {
        st.step(&mut g, &walls, &p).unwrap();
        bounced |= g.vel[0][1] > 0.0;
        if bounced && k < 3500 {
            apex = apex.max(g.pos[0][1] - r);
        }
        if k >= steps - 1000 {
            last = last.max((g.pos[0][1] - r).abs());
        }
    }
    for k in [0, 2] {
        assert!(
            (g.pos[0][k] - 0.05).abs() < 1e-6,
            "drifted off the vertical: {:?}",
            g.pos[0]
        );
    }
    (apex, last)
}

#[test]
fn a_dropped_sphere_rebounds_to_e_squared_of_its_height_and_then_rests() {
    let h = 0.1;
    for solver in SOLVERS.into_iter().chain([SolverKind::Uzawa]) {
        let (apex, rest) = drop(solver, h, 0.5);
        // The bounce happens up to |v| dt = 0.14 mm above the floor.
        assert!(
            (apex / h - 0.25).abs() < 0.01,
            "{solver:?}: rebound to {apex} m of {h} m"
        );
        assert!(rest < 2e-5, "{solver:?}: {rest} m off the floor at the end");
        let (apex, rest) = drop(solver, h, 0.0);
        assert!(
            apex < 2e-4,
            "{solver:?}: a perfectly inelastic drop rebounded to {apex} m"
        );
        assert!(rest < 2e-5, "{solver:?}: {rest} m off the floor at the end");
    }
}

/// A sphere of radius r on a floor (y = 0) under gravity tilted by `a`
/// (the slope, seen from the floor): its speed along the slope and its spin
/// about z after `t` s from rest, with friction `mu`.
fn on_slope(solver: SolverKind, a: f32, mu: f32, t: f32) -> ([f32; 3], [f32; 3], f32) {
    let r = 0.005f32;
    let g = 9.81f32;
    let p = under(solver, params([g * a.sin(), -g * a.cos()], 0.0, mu));
    let mut grains = Grains::<Dim3>::of_density(vec![[0.02, r, 0.05]], vec![[0.0; 3]], vec![r], RHO);
    let walls = Walls3d {
        planes: vec![Plane::new([0.0; 3], [0.0, 1.0, 0.0]).unwrap()],
        ..Walls3d::default()
    };
    let mut st = stepper([0.0, 0.0, 0.0], [0.4, 0.05, 0.1], r, &p);
    let steps = (t / p.dt).round() as usize;
    for _ in 0..steps {
        st.step(&mut grains, &walls, &p).unwrap();
    }
    (grains.vel[0], grains.ang_vel[0], r)
}

#[test]
fn a_sphere_rolls_down_a_slope_at_five_sevenths_g_sin_a() {
    let (a, t, g) = (0.3f32, 0.1f32, 9.81f32);
    // Rolling needs mu >= 2/7 tan a = 0.088.
    for solver in SOLVERS {
        let (v, w, r) = on_slope(solver, a, 0.5, t);
        let want = 5.0 / 7.0 * g * a.sin() * t;
        assert!(
            (v[0] / want - 1.0).abs() < 0.01,
            "{solver:?}: {} m/s against {want}",
            v[0]
        );
        // Without slipping: the contact point at rest, v_x = -w_z r.
        assert!((v[0] + w[2] * r).abs() < 1e-3 * want, "{solver:?}: v {v:?}, w {w:?}");
        assert!(v[1].abs() < 1e-4 && v[2].abs() < 1e-6 && w[0].abs() < 1e-6 && w[1].abs() < 1e-6);
    }
}

#[test]
fn a_sphere_with_too_little_friction_slides_at_g_sin_a_less_mu_g_cos_a() {
    let (a, t, g, mu) = (0.3f32, 0.1f32, 9.81f32, 0.03f32);
    for solver in SOLVERS {
        let (v, w, r) = on_slope(solver, a, mu, t);
        let want = g * (a.sin() - mu * a.cos()) * t;
        assert!(
            (v[0] / want - 1.0).abs() < 0.01,
            "{solver:?}: {} m/s against {want}",
            v[0]
        );
        // Friction spins it up at 5/2 mu g cos a / r, slower than rolling needs.
        let spin = 2.5 * mu * g * a.cos() / r * t;
        assert!(
            (-w[2] / spin - 1.0).abs() < 0.01,
            "{solver:?}: {} rad/s against {spin}",
            -w[2]
        );
        assert!(-w[2] * r < 0.9 * v[0]);
    }
}

#[test]
fn a_solver_without_3d_stages_is_refused_by_name() {
    let p = StepParams {
        solver: SolverKind::Colored,
        ..params([0.0, -9.81], 0.0, 0.0)
    };
    let mut g = Grains::<Dim3>::of_density(vec![[0.05, 0.05, 0.05]], vec![[0.0; 3]], vec![0.005], RHO);
    let mut st = stepper([0.0; 3], [0.1; 3], 0.005, &p);
    let e = st.step(&mut g, &Walls3d::default(), &p).unwrap_err().to_string();
    assert!(e.contains("solver `colored`") && e.contains("3D"), "{e}");
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
