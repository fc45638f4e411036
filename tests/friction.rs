//! Coulomb friction and rotation in the NSCD solvers (docs/nscd.md#coulomb-friction-and-rotation): a disk
//! rolls or slides on a slope as rigid-body mechanics says, a disk launched
//! without spin along a floor slides and then rolls at 2/3 of its speed, an
//! oblique collision keeps the tangential impulse inside the Coulomb bound
//! and keeps momentum and angular momentum, and a heap stands with friction
//! and flattens without.

mod common;

use common::{grains, params, stepper, walls};
use hourglass::model::{Grains, SolverKind, StepParams};

/// The NSCD solvers that carry friction on the CPU (Uzawa and the seed rule
/// refuse it).
const SOLVERS: [SolverKind; 4] = [
    SolverKind::Nlgs,
    SolverKind::Jacobi,
    SolverKind::Colored,
    SolverKind::Apgd,
];

const G: f64 = 9.81;

fn frictional(solver: SolverKind, mu: f32) -> StepParams {
    StepParams {
        mu,
        mu_wall: mu,
        restitution: 0.0,
        forcing: Default::default(),
        overlap_iterations: 4,
        ..params(solver)
    }
}

/// A grain of radius r resting on a slope of `deg` degrees going down to
/// the right, after `steps` steps: (velocity along the slope, downwards
/// positive; spin; time).
fn on_slope(solver: SolverKind, mu: f32, deg: f64, steps: usize) -> (f64, f64, f64, f64) {
    let p = frictional(solver, mu);
    let angle = deg.to_radians();
    let (c, s) = (angle.cos(), angle.sin());
    let r = 0.003f32;
    let len = 2.0;
    let w = walls(&[[-len * c, len * s, len * c, -len * s]]);
    let normal = [s, c];
    let at = |k: usize| (f64::from(r) * normal[k]) as f32;
    let mut g = grains(&[(at(0), at(1), r)]);
    let mut st = stepper([-2.0, -1.1, 2.0, 1.1], r, &p);
    for _ in 0..steps {
        assert!(st.step(&mut g, &w, &p).unwrap().converged, "{solver:?}");
    }
    let v = g.vel[0];
    let along = f64::from(v[0]) * c - f64::from(v[1]) * s;
    let t = steps as f64 * f64::from(p.dt);
    (along, f64::from(g.ang_vel[0]), t, f64::from(r))
}

#[test]
fn a_disk_rolls_down_a_rough_slope_and_slides_down_a_slippery_one() {
    let deg = 30f64;
    let (sin, cos) = (deg.to_radians().sin(), deg.to_radians().cos());
    for solver in SOLVERS {
        // mu = 0.5 >= tan(30)/3: rolling without slipping, a = 2/3 g sin.
        let (v, w, t, r) = on_slope(solver, 0.5, deg, 300);
        let expect = 2.0 / 3.0 * G * sin * t;
        assert!(
            (v - expect).abs() < 1e-2 * expect,
            "{solver:?} rolling: v {v} vs {expect}"
        );
        // Rolling down to the right turns clockwise (w < 0) with w r = -v.
        assert!(
            (w * r + v).abs() < 1e-2 * v,
            "{solver:?} rolling: w r {} vs v {v}",
            w * r
        );

        // mu = 0.1 < tan(30)/3: sliding, a = g (sin - mu cos), dw/dt = -2 mu g cos / r.
        let (v, w, t, r) = on_slope(solver, 0.1, deg, 300);
        let expect = G * (sin - 0.1 * cos) * t;
        assert!(
            (v - expect).abs() < 1e-2 * expect,
            "{solver:?} sliding: v {v} vs {expect}"
        );
        let spin = -2.0 * 0.1 * G * cos / r * t;
        assert!(
            (w - spin).abs() < 1e-2 * spin.abs(),
            "{solver:?} sliding: w {w} vs {spin}"
        );
        assert!(-w * r < 0.9 * v, "{solver:?} sliding: the rim must slip");
    }
}

#[test]
fn a_disk_launched_without_spin_slides_then_rolls_at_two_thirds_of_its_speed() {
    let (mu, v0) = (0.3f32, 1.0f64);
    let t_roll = v0 / (3.0 * f64::from(mu) * G);
    for solver in SOLVERS {
        let p = frictional(solver, mu);
        let r = 0.003f32;
        let w = walls(&[[-1.0, 0.0, 3.0, 0.0]]);
        let mut g: Grains = grains(&[(0.0, r, r)]);
        g.vel[0] = [v0 as f32, 0.0];
        let mut st = stepper([-1.0, -0.1, 3.0, 0.1], r, &p);
        let (mut t, mut checked_slide) = (0.0, false);
        while t < 3.0 * t_roll {
            st.step(&mut g, &w, &p).unwrap();
            t += f64::from(p.dt);
            let (v, spin) = (f64::from(g.vel[0][0]), f64::from(g.ang_vel[0]));
            if !checked_slide && t >= 0.5 * t_roll {
                // Sliding: v = v0 - mu g t, |w| r = 2 mu g t.
                let (ve, we) = (v0 - f64::from(mu) * G * t, 2.0 * f64::from(mu) * G * t);
                assert!((v - ve).abs() < 1e-2 * v0, "{solver:?} at {t}: v {v} vs {ve}");
                assert!(
                    (-spin * f64::from(r) - we).abs() < 1e-2 * v0,
                    "{solver:?} at {t}: w r {}",
                    spin * f64::from(r)
                );
                checked_slide = true;
            }
        }
        let (v, spin) = (f64::from(g.vel[0][0]), f64::from(g.ang_vel[0]));
        assert!(checked_slide);
        assert!(
            (v - 2.0 / 3.0 * v0).abs() < 1e-2 * v0,
            "{solver:?}: rolling at {v}, expected {}",
            2.0 / 3.0 * v0
        );
        assert!(
            (spin * f64::from(r) + v).abs() < 1e-3 * v0,
            "{solver:?}: rolls without slipping: w r {}",
            spin * f64::from(r)
        );
        // Angular momentum about the contact point (clockwise positive) is
        // kept: m r v + I (-w) = m r (v - w r / 2), m r v0 at launch.
        let l = v - spin * f64::from(r) / 2.0;
        assert!(
            (l - v0).abs() < 1e-2 * v0,
            "{solver:?}: angular momentum about the contact point {l} vs {v0}"
        );
    }
}

#[test]
fn an_oblique_collision_keeps_coulomb_momentum_and_angular_momentum() {
    let mu = 0.3f32;
    for solver in SOLVERS {
        let p = StepParams {
            gravity: [0.0, 0.0],
            ..frictional(solver, mu)
        };
        let (ra, rb) = (0.003f32, 0.004f32);
        // Just touching (gap 1e-7 m) along a normal 40 degrees off the motion,
        // so the impulse acts where the grains meet (an impulse across an
        // open gap would carry angular momentum gap * P_t).
        let phi = 40f32.to_radians();
        let d = ra + rb + 1e-7;
        let mut g: Grains = grains(&[(0.0, 0.0, ra), (d * phi.cos(), d * phi.sin(), rb)]);
        g.vel[0] = [0.5, 0.0];
        g.ang_vel[1] = 20.0;
        let totals = |g: &Grains| {
            let (mut px, mut py, mut m, mut cx, mut cy) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for i in 0..g.len() {
                let mi = g.mass(i);
                px += mi * f64::from(g.vel[i][0]);
                py += mi * f64::from(g.vel[i][1]);
                m += mi;
                cx += mi * f64::from(g.pos[i][0]);
                cy += mi * f64::from(g.pos[i][1]);
            }
            let (cx, cy) = (cx / m, cy / m);
            let mut l = 0.0;
            for i in 0..g.len() {
                let mi = g.mass(i);
                let (x, y) = (f64::from(g.pos[i][0]) - cx, f64::from(g.pos[i][1]) - cy);
                let r = f64::from(g.radius[i]);
                l += mi * (x * f64::from(g.vel[i][1]) - y * f64::from(g.vel[i][0]));
                l += 0.5 * mi * r * r * f64::from(g.ang_vel[i]);
            }
            [px, py, l]
        };
        let before = totals(&g);
        let w = walls(&[]);
        let mut st = stepper([-0.05, -0.05, 0.05, 0.05], rb, &p);
        let mut touched = false;
        for _ in 0..20 {
            st.step(&mut g, &w, &p).unwrap();
            for i in 0..g.len() {
                for c in st.contacts().of(i) {
                    assert!(
                        c.impulse_t.abs() <= mu * c.impulse * (1.0 + 1e-6),
                        "{solver:?}: |P_t| {} > mu P_n {}",
                        c.impulse_t.abs(),
                        mu * c.impulse
                    );
                    touched |= c.impulse > 0.0 && c.impulse_t != 0.0;
                }
            }
        }
        assert!(touched, "{solver:?}: the collision must act with friction");
        let after = totals(&g);
        let scale = before[0].hypot(before[1]);
        for (k, name) in ["momentum x", "momentum y"].iter().enumerate() {
            assert!(
                (after[k] - before[k]).abs() < 1e-5 * scale,
                "{solver:?}: {name} {} -> {}",
                before[k],
                after[k]
            );
        }
        assert!(
            (after[2] - before[2]).abs() < 1e-4 * before[2].abs(),
            "{solver:?}: angular momentum {} -> {}",
            before[2],
            after[2]
        );
        // Friction turned the first grain (it had no spin).
        assert!(g.ang_vel[0].abs() > 1.0, "{solver:?}: spin {:?}", g.ang_vel);
    }
}

/// 1,500 grains poured from a funnel onto a floor between two far walls,
/// after `seconds`: (x, top of grain) of the grains below the funnel's
/// outlet that have come to rest (slower than 5 cm/s: not the stream).
fn pour(solver: SolverKind, mu: f32, seconds: f64) -> Vec<(f64, f64)> {
    let p = StepParams {
        tol: 1e-5,
        ..frictional(solver, mu)
    };
    // The funnel: walls at 51 degrees down to an outlet 5 cm wide (8
    // diameters, wide enough not to arch) 0.2 m above the floor.
    let (outlet, lip) = (0.025f64, 0.2f64);
    let rise = 0.5 * 51f64.to_radians().tan();
    let half = 0.5;
    let w = walls(&[
        [-half, 0.0, half, 0.0],
        [-half, 0.0, -half, 1.5],
        [half, 0.0, half, 1.5],
        [-outlet - 0.5, lip + rise, -outlet, lip],
        [outlet, lip, outlet + 0.5, lip + rise],
    ]);
    // Radii 2.5-3.5 mm (a fixed scrambled sequence, so the packing is not a
    // crystal) in a block 24 wide above the outlet.
    let (cols, pitch) = (24usize, 0.0075f32);
    let list: Vec<(f32, f32, f32)> = (0..1500)
        .map(|k| {
            let (i, j) = (k % cols, k / cols);
            let u = ((k as u64 * 2_654_435_761) % 1000) as f32 / 1000.0;
            let x = (i as f32 - (cols as f32 - 1.0) / 2.0) * pitch;
            (x, 0.45 + j as f32 * pitch, 0.0025 + 0.001 * u)
        })
        .collect();
    let mut g = grains(&list);
    let mut st = stepper([-0.55, -0.05, 0.55, 1.5], 0.0035, &p);
    let steps = (seconds / f64::from(p.dt)).round() as usize;
    for _ in 0..steps {
        st.step(&mut g, &w, &p).unwrap();
    }
    (0..g.len())
        .filter(|&i| f64::from(g.pos[i][1]) < lip && g.vel[i][0].hypot(g.vel[i][1]) < 0.05)
        .map(|i| (f64::from(g.pos[i][0]), f64::from(g.pos[i][1] + g.radius[i])))
        .collect()
}

/// The tilt of a surface, degrees: a least-squares line through the highest
/// grain top of every `bin` m of x that holds one.
fn surface_tilt(tops: &[(f64, f64)], bin: f64) -> f64 {
    let mut top = std::collections::BTreeMap::<i64, f64>::new();
    for &(x, y) in tops {
        let h = top.entry((x / bin).floor() as i64).or_insert(f64::NEG_INFINITY);
        *h = h.max(y);
    }
    let pts: Vec<(f64, f64)> = top.into_iter().map(|(k, y)| (k as f64 * bin, y)).collect();
    let q = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / q,
        pts.iter().map(|p| p.1).sum::<f64>() / q,
    );
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    (sxy / sxx).atan().to_degrees().abs()
}

/// The angle of a heap's flanks, degrees (`analysis::heap_angle`, 1 cm bins).
fn repose_angle(tops: &[(f64, f64)]) -> f64 {
    hourglass::analysis::heap_angle(tops, 0.01).expect("a heap")
}

#[test]
fn a_heap_stands_at_an_angle_with_friction_and_flattens_without() {
    // NLGS only: 2 x 3 s of 1,500 grains is the slowest test here.
    {
        let solver = SolverKind::Nlgs;
        let heap = pour(solver, 0.5, 3.0);
        let rough = repose_angle(&heap);
        let flat = pour(solver, 0.0, 3.0);
        // A layer flat from wall to wall may have its highest bin at a wall,
        // where heap_angle finds no flank on that side: then the tilt of the
        // whole surface (a ramp would show there).
        let smooth = hourglass::analysis::heap_angle(&flat, 0.01).unwrap_or_else(|| surface_tilt(&flat, 0.01));
        println!("{solver:?}: angle of repose {rough:.1} deg with mu = 0.5, {smooth:.1} deg with mu = 0");
        assert!(heap.len() > 1400, "{solver:?}: only {} grains poured", heap.len());
        // Measured (NLGS): 11.3 deg with mu = 0.5 (disks roll freely: no
        // rolling resistance), 0.4 deg with mu = 0.
        assert!(rough > 8.0, "{solver:?}: a frictional heap at {rough:.1} deg");
        assert!(smooth < 3.0, "{solver:?}: a frictionless heap at {smooth:.1} deg");
    }
}
