//! The explicit models on spheres in three dimensions (`DemStepper<Dim3>`,
//! `ImpulseStepper<Dim3>`): the linear spring exchanges momentum with the
//! masses of spheres (rho 4/3 pi r^3), a resting column of spheres is
//! compressed by k m g / k_s at its k-th contact, Hertz-Mindlin rolls a
//! sphere down a slope at 5/7 g sin a (the inertia 2/5 m r^2) or lets it
//! slide, the impulse model rebounds a dropped sphere to e^2 of its height,
//! and the lab's 3D pile (351 spheres fed into a box, k_s = 8,000 N/m,
//! k_d = 100 N s/m, semi-implicit Euler, h = 1e-3 s, 70 s) keeps every
//! sphere and comes to rest on a floor that carries its weight.

mod common;

use common::spheres::{G, R, RHO_LAB, floor, grid, on_slope_start, params, spring};
use hourglass::cpu::dem::{DemStepper, kinetic_energy, spring_energy};
use hourglass::cpu::impulse::ImpulseStepper;
use hourglass::model::{Body, Dim3, Grains, ImpulseParams, Integrator, SolverKind, Walls3d};

#[test]
fn an_elastic_spring_pair_of_spheres_of_masses_8_to_1_collides_elastically() {
    // Radii 0.4 and 0.2 m of one density: masses 8 : 1 (4 : 1 for disks).
    let p = params([0.0, 0.0], 1e-4, SolverKind::Spring);
    let (ra, rb, va, vb) = (0.4f32, 0.2f32, 0.5f32, -1.0f32);
    let mut g = Grains::<Dim3>::of_density(
        vec![[0.0, 0.0, 0.0], [ra + rb + 0.01, 0.0, 0.0]],
        vec![[va, 0.0, 0.0], [vb, 0.0, 0.0]],
        vec![ra, rb],
        RHO_LAB,
    );
    let (ma, mb) = (g.mass(0), g.mass(1));
    assert!((ma / mb - 8.0).abs() < 1e-4, "{ma} {mb}");
    let e0 = kinetic_energy(&g);
    let mut s = DemStepper::new(
        grid([-2.0; 3], [2.0; 3], ra, &p),
        8,
        spring(8000.0, 0.0, Integrator::Leapfrog),
    );
    // Contact lasts pi sqrt(m*/k_s) = 0.031 s; 0.2 s leaves them apart.
    for _ in 0..2000 {
        s.step(&mut g, &Walls3d::default(), &p);
    }
    let (va, vb, ma, mb) = (f64::from(va), f64::from(vb), ma, mb);
    let ua = ((ma - mb) * va + 2.0 * mb * vb) / (ma + mb);
    let ub = ((mb - ma) * vb + 2.0 * ma * va) / (ma + mb);
    let (got_a, got_b) = (f64::from(g.vel[0][0]), f64::from(g.vel[1][0]));
    assert!((got_a - ua).abs() < 2e-3 * (va - vb).abs(), "{got_a} against {ua}");
    assert!((got_b - ub).abs() < 2e-3 * (va - vb).abs(), "{got_b} against {ub}");
    assert!(
        (kinetic_energy(&g) / e0 - 1.0).abs() < 1e-3,
        "{} J from {e0} J",
        kinetic_energy(&g)
    );
    for v in &g.vel {
        assert!(v[1] == 0.0 && v[2] == 0.0, "{v:?}");
    }
}

/// `n` spheres stacked on a floor, just touching, spring model damped about
/// critically for one contact, semi-implicit Euler at h = 1e-3 s: after `t`
/// seconds, the compressions of the contacts from the top (contact k
/// carries k m g).
fn column(n: usize, ks: f32, t: f32) -> Vec<f32> {
    let p = params([0.0, -G], 1e-3, SolverKind::Spring);
    let pos: Vec<[f32; 3]> = (0..n).map(|i| [0.0, R + 2.0 * R * i as f32, 0.0]).collect();
    let mut g = Grains::<Dim3>::of_density(pos, vec![[0.0; 3]; n], vec![R; n], RHO_LAB);
    let top = 2.0 * R * n as f32 + 1.0;
    let mut s = DemStepper::new(
        grid([-1.0, -0.5, -1.0], [1.0, top, 1.0], R, &p),
        8,
        spring(ks, 2.0 * ks.sqrt(), Integrator::SemiImplicitEuler),
    );
    let walls = floor();
    for _ in 0..(t / p.dt) as usize {
        s.step(&mut g, &walls, &p);
    }
    let y: Vec<f32> = g.pos.iter().map(|x| x[1]).collect();
    let mut from_top: Vec<f32> = (1..n).rev().map(|k| 2.0 * R - (y[k] - y[k - 1])).collect();
    from_top.push(R - y[0]);
    from_top
}

#[test]
fn a_resting_column_of_spheres_is_compressed_by_k_m_g_over_ks() {
    let n = 20;
    for ks in [8000.0f32, 40000.0] {
        let c = column(n, ks, 40.0);
        for (k, &got) in c.iter().enumerate() {
            // m = 1 kg.
            let want = (k + 1) as f32 * G / ks;
            assert!(
                (got - want).abs() < 0.02 * want,
                "k_s {ks}: contact {} from the top compressed {got} m, want {want}",
                k + 1
            );
        }
    }
}

/// The floor y = 0 over x in [0, 0.4], z in [0, 0.1] as a mesh of squares
/// of side 5 cm, each cut into two triangles along a diagonal: a sphere
/// rolling along z = 0.05 rides right above a row of shared edges and
/// vertices.
fn mesh_floor() -> Walls3d {
    let side = 0.05f64;
    let mut t = Vec::new();
    for i in 0..8 {
        for k in 0..2 {
            let (x0, z0) = (side * i as f64, side * k as f64);
            let (x1, z1) = (x0 + side, z0 + side);
            t.push([[x0, 0.0, z0], [x1, 0.0, z0], [x1, 0.0, z1]]);
            t.push([[x0, 0.0, z0], [x1, 0.0, z1], [x0, 0.0, z1]]);
        }
    }
    Walls3d::mesh(&t).unwrap()
}

/// A sphere of radius 5 mm resting on a floor (y = 0) under gravity tilted by
/// `a`, Hertz-Mindlin with friction `mu`: its velocity and spin after `t` s.
fn hertz_mindlin_on_slope(a: f32, mu: f32, t: f32) -> ([f32; 3], [f32; 3], f32) {
    let (v, w, r, _) = hertz_mindlin_on(&floor(), a, mu, t);
    (v, w, r)
}

/// [`hertz_mindlin_on_slope`] on `walls`; also the largest |v_y| on the way.
fn hertz_mindlin_on(walls: &Walls3d, a: f32, mu: f32, t: f32) -> ([f32; 3], [f32; 3], f32, f32) {
    let (mut g, p, dem, grid) = on_slope_start(a, mu);
    let r = g.radius[0];
    let mut s = DemStepper::new(grid, 8, dem);
    let mut bump = 0.0f32;
    for _ in 0..(t / p.dt).round() as usize {
        s.step(&mut g, walls, &p);
        bump = bump.max(g.vel[0][1].abs());
    }
    (g.vel[0], g.ang_vel[0], r, bump)
}

#[test]
fn a_sphere_rolls_over_a_triangulated_floor_as_over_a_plane() {
    let (a, t) = (0.3f32, 0.3f32);
    let (v_plane, w_plane, _, _) = hertz_mindlin_on(&floor(), a, 0.5, t);
    let walls = mesh_floor();
    let (v, w, _, bump) = hertz_mindlin_on(&walls, a, 0.5, t);
    // It rolled 9 cm, over two squares' worth of shared edges and vertices,
    // and neither jumped at them nor rolled otherwise than on the plane.
    let travelled = 0.5 * 5.0 / 7.0 * G * a.sin() * t * t;
    assert!(travelled > 0.06, "{travelled}");
    // Within 1e-3: the tangential spring starts afresh on each new
    // triangle (its history belongs to the contact with one body), and the
    // sphere slips a little while it builds up again.
    for k in 0..3 {
        assert!(
            (v[k] - v_plane[k]).abs() < 1e-3 * v_plane[0],
            "v {v:?} against {v_plane:?}"
        );
        assert!(
            (w[k] - w_plane[k]).abs() < 1e-3 * w_plane[2].abs(),
            "w {w:?} against {w_plane:?}"
        );
    }
    assert!(bump < 1e-3, "the sphere bounced at {bump} m/s");
}

#[test]
fn hertz_mindlin_rolls_a_sphere_down_a_slope_at_five_sevenths_g_sin_a() {
    let (a, t) = (0.3f32, 0.1f32);
    // Rolling needs mu >= 2/7 tan a = 0.088.
    let (v, w, r) = hertz_mindlin_on_slope(a, 0.5, t);
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
fn hertz_mindlin_lets_a_sphere_with_too_little_friction_slide() {
    let (a, t, mu) = (0.3f32, 0.1f32, 0.03f32);
    let (v, w, r) = hertz_mindlin_on_slope(a, mu, t);
    let want = G * (a.sin() - mu * a.cos()) * t;
    assert!((v[0] / want - 1.0).abs() < 0.01, "{} m/s against {want}", v[0]);
    // Friction spins it up at 5/2 mu g cos a / r (2 mu g cos a / r for a disk).
    let spin = 2.5 * mu * G * a.cos() / r * t;
    assert!((-w[2] / spin - 1.0).abs() < 0.02, "{} rad/s against {spin}", -w[2]);
}

/// A lab sphere dropped from rest with its bottom `h` m above the floor under
/// the impulse model (restitution `e`, leapfrog, h = 1e-3 s): the highest its
/// bottom gets after the first bounce.
fn impulse_rebound(h: f32, e: f32) -> f32 {
    let p = params([0.0, -G], 1e-3, SolverKind::Impulse);
    let mut g = Grains::<Dim3>::of_density(vec![[0.5, R + h, 0.5]], vec![[0.0; 3]], vec![R], RHO_LAB);
    let ip = ImpulseParams {
        e,
        kp: 0.4,
        integrator: Integrator::Leapfrog,
    };
    let mut s = ImpulseStepper::new(grid([0.0; 3], [1.0, 2.0 * h + 1.0, 1.0], R, &p), 8, ip);
    let walls = floor();
    let (mut bounced, mut top) = (false, 0.0f32);
    for _ in 0..3000 {
        s.step(&mut g, &walls, &p);
        let (y, vy) = (g.pos[0][1] - R, g.vel[0][1]);
        if vy > 0.0 {
            bounced = true;
        }
        if bounced {
            top = top.max(y);
            if vy < 0.0 {
                break;
            }
        }
        assert!(g.pos[0][0] == 0.5 && g.pos[0][2] == 0.5);
    }
    assert!(bounced);
    top
}

#[test]
fn an_impulse_sphere_rebounds_to_e_squared_of_its_height() {
    for e in [0.5f32, 0.8] {
        let top = impulse_rebound(1.0, e);
        assert!((top / (e * e) - 1.0).abs() < 0.02, "e {e}: rebound to {top} m from 1 m");
    }
}

#[test]
fn impulses_between_spheres_of_masses_8_to_1_keep_momentum_and_with_e_1_energy() {
    let p = params([0.0, 0.0], 1e-3, SolverKind::Impulse);
    let (ra, rb) = (0.4f32, 0.2f32);
    let mut g = Grains::<Dim3>::of_density(
        vec![[0.0, 0.0, 0.0], [ra + rb + 0.003, 0.05, 0.0]],
        vec![[0.5, 0.0, 0.0], [-1.0, 0.0, 0.0]],
        vec![ra, rb],
        RHO_LAB,
    );
    let momentum = |g: &Grains<Dim3>| -> [f64; 3] {
        let mut m = [0.0; 3];
        for i in 0..g.len() {
            for (k, mk) in m.iter_mut().enumerate() {
                *mk += g.mass(i) * f64::from(g.vel[i][k]);
            }
        }
        m
    };
    let (p0, e0) = (momentum(&g), kinetic_energy(&g));
    let ip = ImpulseParams {
        e: 1.0,
        kp: 0.2,
        integrator: Integrator::Leapfrog,
    };
    let mut s = ImpulseStepper::new(grid([-2.0; 3], [2.0; 3], ra, &p), 8, ip);
    for _ in 0..200 {
        s.step(&mut g, &Walls3d::default(), &p);
    }
    // An oblique hit: both spheres leave the x axis.
    assert!(g.vel[1][1] > 0.01 && g.vel[0][1] < -1e-3, "{:?}", g.vel);
    let p1 = momentum(&g);
    for k in 0..3 {
        assert!((p1[k] - p0[k]).abs() < 1e-5, "momentum {p1:?} from {p0:?}");
    }
    assert!(
        (kinetic_energy(&g) / e0 - 1.0).abs() < 1e-5,
        "{} J from {e0} J",
        kinetic_energy(&g)
    );
}

/// A sequence of numbers in [0, 1), the same at every run.
fn uniform(state: &mut u64) -> f32 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 40) as f32 / (1u64 << 24) as f32
}

#[test]
fn the_labs_3d_pile_keeps_every_sphere_and_rests_on_a_floor_that_carries_its_weight() {
    // 351 lab spheres (r 0.3 m, 1 kg) fed into a 4 x 4 m box one every
    // 0.18 s at 4 m/s downwards from 8 m, then 6.8 s to settle: 70 s in all.
    let p = params([0.0, -G], 1e-3, SolverKind::Spring);
    let (lo, hi) = ([0.0f32; 3], [4.0f32, 10.0, 4.0]);
    let walls = Walls3d::boxed(lo, hi).unwrap();
    let mut s = DemStepper::new(
        grid(lo, hi, R, &p),
        16,
        spring(8000.0, 100.0, Integrator::SemiImplicitEuler),
    );
    let mut g = Grains::<Dim3>::of_density(Vec::new(), Vec::new(), Vec::new(), RHO_LAB);
    let (count, every, steps) = (351usize, 180usize, 70_000usize);
    let mut seed = 7u64;
    // Energy fed in: each sphere's kinetic and potential energy as it appears.
    let mut fed = 0.0f64;
    let energy = |g: &Grains<Dim3>, s: &DemStepper<Dim3>| -> f64 {
        let potential: f64 = (0..g.len()).map(|i| g.mass(i) * f64::from(G * g.pos[i][1])).sum();
        kinetic_energy(g) + potential + spring_energy(&s.lists, 8000.0)
    };
    let mut highest = 0.0f64;
    for step in 0..steps {
        if step % every == 0 && g.len() < count {
            let x = [1.0 + 2.0 * uniform(&mut seed), 8.0, 1.0 + 2.0 * uniform(&mut seed)];
            let mut one = Grains::<Dim3>::of_density(vec![x], vec![[0.0, -4.0, 0.0]], vec![R], RHO_LAB);
            one.id = vec![g.len() as u32];
            fed += one.mass(0) * f64::from(G * x[1]) + kinetic_energy(&one);
            g.extend(&one);
        }
        s.step(&mut g, &walls, &p);
        if step % 1000 == 999 {
            // Damped springs only take energy away (to rounding).
            let e = energy(&g, &s);
            assert!(e <= fed * (1.0 + 1e-4), "step {step}: {e} J with {fed} J fed in");
            highest = highest.max(e / fed);
        }
    }
    assert_eq!(g.len(), count);
    for (i, x) in g.pos.iter().enumerate() {
        for k in 0..3 {
            assert!(x[k] > lo[k] && x[k] < hi[k], "sphere {i} at {x:?} left the box");
        }
    }
    // At rest: no speed, no momentum, and the floor (plane 2 of the box)
    // carries the pile's weight, k_s delta summed over its contacts.
    let vmax = g.max_speed();
    assert!(vmax < 0.02, "fastest sphere at {vmax} m/s");
    let weight = count as f64 * f64::from(G);
    let mut floor_force = 0.0f64;
    for i in 0..g.len() {
        for c in s.lists.of(i) {
            if c.body() == Body::Segment(2) && c.gap < 0.0 {
                floor_force += 8000.0 * f64::from(-c.gap);
            }
        }
    }
    assert!(
        (floor_force / weight - 1.0).abs() < 0.01,
        "floor carries {floor_force} N of {weight} N"
    );
    let lowest_energy = energy(&g, &s);
    let top = g.pos.iter().map(|x| x[1]).fold(0.0f32, f32::max) + R;
    let deepest = s
        .lists
        .slots
        .iter()
        .filter(|c| c.gap < 0.0)
        .map(|c| -c.gap)
        .fold(0.0f32, f32::max);
    eprintln!(
        "lab 3D pile: {count} spheres kept, fastest {vmax:.2e} m/s, floor {floor_force:.2} N of {weight:.2} N, \
         pile {top:.3} m high, deepest overlap {deepest:.4} m, energy {lowest_energy:.1} J of {fed:.1} J fed in"
    );
    assert!(
        lowest_energy < fed,
        "{lowest_energy} J left of {fed} J fed in ({highest})"
    );
}
