//! The NSCD experiments on spheres, over any backend: tests/spheres.rs
//! runs them on the CPU, tests/gpu_spheres_nscd.rs on the GPU.

use hourglass::backend::Backend;
use hourglass::model::inside::Hold;
use hourglass::model::{Dim3, Grains, Grid, Plane, SolverKind, Space, StepParams, Walls3d};

/// A backend over spheres, walls and a grid (the solver is the step's).
pub type Make<'a> = &'a dyn Fn(Grains<Dim3>, Walls3d, Grid<Dim3>) -> Box<dyn Backend<Dim3>>;

pub const RHO: f64 = 2500.0;

/// Jacobi at a tight tolerance, no push-out through the moved positions.
pub fn params(gravity: [f32; 2], e: f32, mu: f32) -> StepParams {
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

/// The grid over the box from `lo` to `hi`, cells of 2 r_max + alert.
pub fn grid(lo: [f32; 3], hi: [f32; 3], r_max: f32, p: &StepParams) -> Grid<Dim3> {
    Grid::<Dim3>::covering_box(lo, hi, 2.0 * r_max + p.alert).unwrap()
}

/// `params` under `solver`.
pub fn under(solver: SolverKind, p: StepParams) -> StepParams {
    StepParams { solver, ..p }
}

/// Two spheres of radii `ra`, `rb` approaching along x at `va`, `vb`,
/// without gravity; their velocities along x once they have separated or
/// stuck, after 0.05 s, and the spheres.
pub fn head_on(make: Make<'_>, solver: SolverKind, r: [f32; 2], v: [f32; 2], e: f32) -> (f32, f32, Grains<Dim3>) {
    let ([ra, rb], [va, vb]) = (r, v);
    let p = under(solver, params([0.0, 0.0], e, 0.0));
    let gap = 0.002;
    let g = Grains::<Dim3>::of_density(
        vec![[0.0, 0.0, 0.0], [ra + rb + gap, 0.0, 0.0]],
        vec![[va, 0.0, 0.0], [vb, 0.0, 0.0]],
        vec![ra, rb],
        RHO,
    );
    let box_ = ([-0.05; 3], [0.05; 3]);
    let mut b = make(g, Walls3d::default(), grid(box_.0, box_.1, ra.max(rb), &p));
    for _ in 0..500 {
        b.step(&p).unwrap();
    }
    let g = b.grains().unwrap().clone();
    (g.vel[0][0], g.vel[1][0], g)
}

/// A sphere dropped from rest with its lowest point `h` above a floor at
/// y = 0 (a plane of a box): the highest point of its first rebound and
/// the largest gap over its last 0.1 s, m.
pub fn drop(make: Make<'_>, solver: SolverKind, h: f32, e: f32) -> (f32, f32) {
    let r = 0.005f32;
    let p = under(solver, params([0.0, -9.81], e, 0.0));
    let g = Grains::<Dim3>::of_density(vec![[0.05, r + h, 0.05]], vec![[0.0; 3]], vec![r], RHO);
    let walls = Walls3d::boxed([0.0; 3], [0.1, 0.3, 0.1]).unwrap();
    let mut b = make(g, walls, grid([0.0; 3], [0.1, 0.3, 0.1], r, &p));
    let (mut bounced, mut apex, mut last) = (false, 0.0f32, 0.0f32);
    // Fall 0.14 s, rise 0.07 s and fall back (e = 0.5), settle.
    let steps = 8000;
    for k in 0..steps {
        b.step(&p).unwrap();
        let g = b.grains().unwrap();
        bounced |= g.vel[0][1] > 0.0;
        if bounced && k < 3500 {
            apex = apex.max(g.pos[0][1] - r);
        }
        if k >= steps - 1000 {
            last = last.max((g.pos[0][1] - r).abs());
        }
    }
    let g = b.grains().unwrap();
    for k in [0, 2] {
        assert!(
            (g.pos[0][k] - 0.05).abs() < 1e-6,
            "drifted off the vertical: {:?}",
            g.pos[0]
        );
    }
    (apex, last)
}

/// A sphere of radius r on a floor (y = 0) under gravity tilted by `a`
/// (the slope, seen from the floor): its velocity and spin after `t` s from
/// rest, with friction `mu`, and r.
pub fn on_slope(make: Make<'_>, solver: SolverKind, a: f32, mu: f32, t: f32) -> ([f32; 3], [f32; 3], f32) {
    let r = 0.005f32;
    let g = 9.81f32;
    let p = under(solver, params([g * a.sin(), -g * a.cos()], 0.0, mu));
    let grains = Grains::<Dim3>::of_density(vec![[0.02, r, 0.05]], vec![[0.0; 3]], vec![r], RHO);
    let walls = Walls3d {
        planes: vec![Plane::new([0.0; 3], [0.0, 1.0, 0.0]).unwrap()],
        ..Walls3d::default()
    };
    let mut b = make(grains, walls, grid([0.0, 0.0, 0.0], [0.4, 0.05, 0.1], r, &p));
    let steps = (t / p.dt).round() as usize;
    for _ in 0..steps {
        b.step(&p).unwrap();
    }
    let g = b.grains().unwrap();
    (g.vel[0], g.ang_vel[0], r)
}

/// A perfectly inelastic head-on pair moves on with the momentum of
/// spheres (masses 8 : 1), stuck together, nothing turning (`solver` on
/// `make`'s backend).
pub fn inelastic_pair(make: Make<'_>, solver: SolverKind) {
    // Radii 4 and 2 mm: masses 8 : 1 for spheres (4 : 1 would be disks).
    let (ra, rb, va, vb) = (0.004f32, 0.002f32, 0.1f32, -0.3f32);
    let (ua, ub, g) = head_on(make, solver, [ra, rb], [va, vb], 0.0);
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

/// A head-on pair with restitution e separates at e times its approach,
/// keeping its momentum (`solver` on `make`'s backend).
pub fn restitution_pair(make: Make<'_>, solver: SolverKind) {
    let (ra, rb, va, vb, e) = (0.003f32, 0.003f32, 0.2f32, -0.1f32, 0.5f32);
    let (ua, ub, g) = head_on(make, solver, [ra, rb], [va, vb], e);
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

/// A dropped sphere rebounds to e^2 of its height and then rests; with e =
/// 0 it does not rebound (`solver` on `make`'s backend).
pub fn drop_rebound(make: Make<'_>, solver: SolverKind) {
    let h = 0.1;
    let (apex, rest) = drop(make, solver, h, 0.5);
    // The bounce happens up to |v| dt = 0.14 mm above the floor.
    assert!(
        (apex / h - 0.25).abs() < 0.01,
        "{solver:?}: rebound to {apex} m of {h} m"
    );
    assert!(rest < 2e-5, "{solver:?}: {rest} m off the floor at the end");
    let (apex, rest) = drop(make, solver, h, 0.0);
    assert!(
        apex < 2e-4,
        "{solver:?}: a perfectly inelastic drop rebounded to {apex} m"
    );
    assert!(rest < 2e-5, "{solver:?}: {rest} m off the floor at the end");
}

/// A sphere rolls down a slope at 5/7 g sin a without slipping (`solver`
/// on `make`'s backend).
pub fn rolling(make: Make<'_>, solver: SolverKind) {
    let (a, t, g) = (0.3f32, 0.1f32, 9.81f32);
    // Rolling needs mu >= 2/7 tan a = 0.088.
    let (v, w, r) = on_slope(make, solver, a, 0.5, t);
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

/// A sphere with too little friction slides at g (sin a - mu cos a) and
/// spins up at 5/2 mu g cos a / r (`solver` on `make`'s backend).
pub fn sliding(make: Make<'_>, solver: SolverKind) {
    let (a, t, g, mu) = (0.3f32, 0.1f32, 9.81f32, 0.03f32);
    let (v, w, r) = on_slope(make, solver, a, mu, t);
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

/// The default `[cohesion]` (water, 3 mm grains), grain-wall bridges `walls`.
pub fn wet_law(walls: bool) -> hourglass::model::Cohesion {
    hourglass::model::Cohesion {
        gamma: 0.072,
        a: 5000.0,
        b: 8.0,
        c: 0.0,
        rupture: 1e-3,
        walls: u32::from(walls),
    }
}

/// Two spheres of radii 3 and 2 mm at rest, no gravity, their line of
/// centres along (1, 2, 2)/3, at surface gaps 0.1, 0.5, 0.9 and 1.2 mm,
/// after one wet step of `solver`:
/// each moves at dt F / m towards the other (F the bridge's force between
/// spheres, m the sphere's mass rho 4/3 pi r^3) within 1 %, along the line
/// of centres, the momentum kept; beyond the rupture gap nothing moves.
pub fn wet_pair(make: Make<'_>, solver: SolverKind) {
    let law = wet_law(false);
    let d = [1.0f32 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
    let (r1, r2) = (0.003f32, 0.002f32);
    for gap in [1e-4f32, 5e-4, 9e-4, 1.2e-3] {
        // A step of 10 us: the closing pair (about 1.5 m/s at 0.1 mm, the
        // spheres' bridge pulling 3.5e3 g on the 3 mm one) stays apart
        // within it, so the projection leaves the bridge's kick alone.
        let p = StepParams {
            cohesion: law,
            dt: 1e-5,
            ..under(solver, params([0.0, 0.0], 0.0, 0.0))
        };
        let c0 = [0.03f32; 3];
        let c1: [f32; 3] = std::array::from_fn(|k| c0[k] + (r1 + r2 + gap) * d[k]);
        let g = Grains::<Dim3>::of_density(vec![c0, c1], vec![[0.0; 3]; 2], vec![r1, r2], RHO);
        let mut b = make(g, Walls3d::default(), grid([0.0; 3], [0.1; 3], r1, &p));
        b.step(&p).unwrap();
        let g = b.grains().unwrap();
        let between: f64 = (0..3).map(|k| f64::from(c1[k] - c0[k]).powi(2)).sum::<f64>().sqrt();
        let gap = between - f64::from(r1 + r2);
        let r = 2.0 * f64::from(r1) * f64::from(r2) / f64::from(r1 + r2);
        let f = if gap < f64::from(law.rupture) {
            std::f64::consts::PI
                * f64::from(law.gamma)
                * r
                * ((f64::from(law.b) - f64::from(law.a) * gap).exp() + f64::from(law.c))
        } else {
            0.0
        };
        for (i, sign) in [(0usize, 1.0), (1, -1.0)] {
            let m = g.mass(i);
            for (k, (&v, &along)) in g.vel[i].iter().zip(&d).enumerate() {
                let want = sign * f / m * f64::from(p.dt) * f64::from(along);
                let got = f64::from(v);
                if f == 0.0 {
                    assert_eq!(
                        got, 0.0,
                        "{solver:?} gap {gap:.1e}: sphere {i} moved past the rupture gap"
                    );
                } else {
                    assert!(
                        ((got - want) / want).abs() < 0.01,
                        "{solver:?} gap {gap:.1e}: sphere {i} component {k}: {got:.6e} m/s, the law gives {want:.6e}"
                    );
                }
            }
        }
        let momentum: f64 = (0..2).map(|i| g.mass(i) * f64::from(g.vel[i][0])).sum();
        assert!(
            momentum.abs() <= 1e-6 * f / f64::from(1.0 / p.dt),
            "{solver:?}: momentum {momentum:e}"
        );
    }
}

/// The twelve triangles of the closed cube from `lo` to `hi` (as a gmsh
/// surface gives them, every face's normal out of the cube), holding its
/// spheres on the side `hold` says.
pub fn cube_mesh_holding(lo: f64, hi: f64, hold: Hold) -> Walls3d {
    let c = |i: usize| [i & 1, i >> 1 & 1, i >> 2 & 1].map(|b| if b == 1 { hi } else { lo });
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let t: Vec<[[f64; 3]; 3]> = quads
        .iter()
        .flat_map(|q| [[c(q[0]), c(q[1]), c(q[2])], [c(q[0]), c(q[2]), c(q[3])]])
        .collect();
    Walls3d::mesh_holding(&t, &[], hold).unwrap()
}

/// A sphere of 5 mm let go at (`x0`, 0.05, 0.05) at `vx` along x (20 mm a
/// step) towards the face x = 0.1 of the cube [0, 0.1]^3 holding it on the
/// side `hold` says, then `steps` steps more: the first step takes its
/// centre past the face before any contact is seen, and no later step
/// takes it farther past. The sphere at the end.
fn thrown_through_a_face(make: Make<'_>, solver: SolverKind, hold: Hold, x0: f32, vx: f32, steps: u32) -> Grains<Dim3> {
    let p = StepParams {
        dt: 1e-3,
        alert: 0.001,
        ..under(solver, params([0.0, 0.0], 0.0, 0.0))
    };
    let walls = cube_mesh_holding(0.0, 0.1, hold);
    assert!(walls.triangles.iter().all(|t| t.side != 0.0));
    let g = Grains::<Dim3>::of_density(vec![[x0, 0.05, 0.05]], vec![[vx, 0.0, 0.0]], vec![0.005], RHO);
    let mut b = make(g, walls, grid([-0.05; 3], [0.25; 3], 0.005, &p));
    b.step(&p).unwrap();
    let (along, crossed) = (vx.signum(), b.grains().unwrap().pos[0][0]);
    assert!(
        along * (crossed - 0.1) > 0.0,
        "{solver:?}: the first step ends at x = {crossed}"
    );
    for k in 0..steps {
        b.step(&p).unwrap();
        let x = b.grains().unwrap().pos[0][0];
        assert!(
            along * x <= along * crossed,
            "{solver:?}: step {k}: x = {x} m, past {crossed}"
        );
    }
    b.grains().unwrap().clone()
}

/// A sphere thrown at a face of a closed cube mesh from inside so fast that
/// one step takes its centre past the face (20 mm a step, 14 mm from it):
/// the face's inside pushes it back, never farther out, and it ends at rest
/// inside the cube (the push-out sends it across to the far face, without
/// restitution). A two-sided face would push it out.
pub fn held_by_a_closed_mesh(make: Make<'_>, solver: SolverKind) {
    let r = 0.005f32;
    let g = thrown_through_a_face(make, solver, Hold::Inside, 0.081, 20.0, 300);
    let (x, v) = (g.pos[0], Dim3::dot(g.vel[0], g.vel[0]).sqrt());
    let inside = x.iter().all(|&x| (r - 1e-4..=0.1 - r + 1e-4).contains(&x));
    assert!(
        inside && v < 1e-3,
        "{solver:?}: the sphere ends at {x:?} m, moving at {v} m/s"
    );
}

/// The cube of [`held_by_a_closed_mesh`] as an obstacle (`Hold::Outside`),
/// the sphere thrown at its +x face from outside at 20 mm a step: the face
/// pushes it back out, never deeper in, and it ends outside the cube.
pub fn kept_out_by_a_closed_obstacle(make: Make<'_>, solver: SolverKind) {
    let x = thrown_through_a_face(make, solver, Hold::Outside, 0.119, -20.0, 100).pos[0];
    assert!(x[0] >= 0.1 + 0.005 - 1e-4, "{solver:?}: the sphere ends at {x:?} m");
}
