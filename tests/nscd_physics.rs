//! Physics of the CPU NSCD step (docs/nscd.md): each test checks a law or an
//! exact contract on a case with a known answer.

mod common;

use common::*;
use hourglass::cpu::reduce::reduce;
use hourglass::model::Region;
use hourglass::model::{Body, SolverKind};

const ALL: [SolverKind; 3] = [SolverKind::Jacobi, SolverKind::Nlgs, SolverKind::Seed];

#[test]
fn grain_dropped_on_a_floor_stops_without_bouncing_or_sinking() {
    for solver in ALL {
        let p = params(solver);
        let r = 0.003f32;
        let mut g = grains(&[(0.0, 0.02, r)]);
        let w = walls(&[[-0.1, 0.0, 0.1, 0.0]]);
        let mut s = stepper([-0.1, -0.01, 0.1, 0.05], r, &p);
        let mut landed = None;
        let mut lowest = f32::INFINITY;
        for step in 0..400 {
            let st = s.step(&mut g, &w, &p).unwrap();
            assert!(st.converged, "{solver:?} step {step}");
            let gap = g.pos[0][1] - r;
            // Never sinks more than the tolerance.
            assert!(gap >= -p.tol, "{solver:?} step {step}: gap {gap}");
            if let Some(at) = landed
                && step > at
            {
                // No bounce: once down, it never rises and never moves.
                assert!(
                    g.vel[0][1].abs() <= p.tol / p.dt,
                    "{solver:?} step {step}: v {:?}",
                    g.vel[0]
                );
                assert!(g.pos[0][1] <= lowest + p.tol, "{solver:?} rose at step {step}");
            }
            lowest = lowest.min(g.pos[0][1]);
            if gap <= p.tol && landed.is_none() {
                landed = Some(step);
            }
        }
        assert!(landed.is_some(), "{solver:?}: never reached the floor");
        // At rest the floor's impulse per step is m g dt.
        let m = g.mass(0);
        let c = s.contacts().of(0);
        let total: f64 = c.iter().map(|c| f64::from(c.impulse)).sum();
        let expect = m * 9.81 * f64::from(p.dt);
        assert!(
            (total - expect).abs() <= 1e-4 * expect,
            "{solver:?}: impulse {total} vs m g dt {expect}"
        );
    }
}

#[test]
fn head_on_collision_conserves_momentum_and_is_perfectly_inelastic() {
    for solver in ALL {
        let mut p = params(solver);
        p.gravity = [0.0, 0.0];
        let r = 0.003f32;
        let mut g = grains(&[(-0.0045, 0.0, r), (0.0045, 0.0, r)]);
        g.vel = vec![[1.0, 0.0], [-1.0, 0.0]];
        let w = walls(&[]);
        let mut s = stepper([-0.05, -0.05, 0.05, 0.05], r, &p);
        let m = g.mass(0);
        let mut touched = None;
        for step in 0..20 {
            let st = s.step(&mut g, &w, &p).unwrap();
            assert!(st.converged);
            let px = m * f64::from(g.vel[0][0]) + m * f64::from(g.vel[1][0]);
            let gap = g.pos[1][0] - g.pos[0][0] - 2.0 * r;
            // Once in contact, the pair never overlaps or opens by more than the
            // tolerance allows per step (|dv| < tol/dt).
            if let Some(at) = touched {
                let allowed = p.tol * (step - at + 1) as f32;
                assert!(
                    gap.abs() <= allowed,
                    "{solver:?} step {step}: gap {gap:e} > {allowed:e}"
                );
            } else if gap < p.tol {
                touched = Some(step);
            }
            assert!(px.abs() < 1e-9 * m, "{solver:?} step {step}: momentum {px}");
        }
        // After the collision both move with the same normal velocity (0 here).
        assert!(
            (g.vel[0][0] - g.vel[1][0]).abs() <= p.tol / p.dt,
            "{solver:?}: {:?}",
            g.vel
        );
        assert!(touched.is_some(), "{solver:?}: the grains never met");
    }
}

#[test]
fn grain_on_a_frictionless_slope_accelerates_at_g_sin_angle() {
    for solver in ALL {
        let p = params(solver);
        let angle = 30f64.to_radians();
        let (c, s_) = (angle.cos(), angle.sin());
        let r = 0.003f32;
        // Slope through the origin going down to the right; grain resting on it.
        let len = 2.0;
        let w = walls(&[[-len * c, len * s_, len * c, -len * s_]]);
        let normal = [s_, c];
        let mut g = grains(&[((f64::from(r) * normal[0]) as f32, (f64::from(r) * normal[1]) as f32, r)]);
        let mut st = stepper([-2.0, -1.1, 2.0, 1.1], r, &p);
        let steps = 200;
        for _ in 0..steps {
            assert!(st.step(&mut g, &w, &p).unwrap().converged);
        }
        let t = steps as f64 * f64::from(p.dt);
        let v = g.vel[0];
        let along = f64::from(v[0]) * c - f64::from(v[1]) * s_;
        let across = f64::from(v[0]) * normal[0] + f64::from(v[1]) * normal[1];
        let expect = 9.81 * s_ * t;
        assert!(
            (along - expect).abs() < 1e-3 * expect,
            "{solver:?}: {along} vs {expect}"
        );
        assert!(
            across.abs() < f64::from(p.tol / p.dt),
            "{solver:?}: normal velocity {across}"
        );
    }
}

#[test]
fn grain_beyond_a_segment_end_is_held_by_the_corner_not_the_line() {
    let p = params(SolverKind::Nlgs);
    let r = 0.003f32;
    let w = walls(&[[-0.1, 0.0, 0.0, 0.0]]);
    // Centre past the end (x > 0), low enough that the infinite line would hold it.
    let mut g = grains(&[(0.5 * r, 0.9 * r, r)]);
    let mut s = stepper([-0.1, -0.1, 0.1, 0.1], r, &p);
    // Fall onto the corner (the gap is 0.03 r) and rest on it for a few steps.
    for _ in 0..5 {
        s.step(&mut g, &w, &p).unwrap();
    }
    let bodies: Vec<Body> = s.contacts().of(0).iter().map(|c| c.body()).collect();
    assert!(bodies.contains(&Body::Corner(1)), "{bodies:?}");
    assert!(!bodies.iter().any(|b| matches!(b, Body::Segment(_))), "{bodies:?}");
    // The corner pushes it outwards along (x - c)/|x - c| and it falls off the edge.
    assert!(g.vel[0][0] > 0.0, "{:?}", g.vel[0]);
    for _ in 0..300 {
        s.step(&mut g, &w, &p).unwrap();
    }
    assert!(g.pos[0][1] < -r, "it should fall past the edge: {:?}", g.pos[0]);

    // The same grain inside the segment's range rests on the line.
    let mut g = grains(&[(-0.5 * r, r, r)]);
    for _ in 0..300 {
        s.step(&mut g, &w, &p).unwrap();
    }
    assert!((g.pos[0][1] - r).abs() <= p.tol, "{:?}", g.pos[0]);
}

#[test]
fn resting_column_and_pile_keep_overlaps_and_converge_every_step() {
    let r = 0.003f32;
    for solver in ALL {
        let p = params(solver);
        // Column of 12 grains in a box just wider than one grain.
        let col: Vec<_> = (0..12).map(|k| (0.0, r + k as f32 * (2.0 * r + 1e-5), r)).collect();
        let cw = f64::from(r) + 1e-5;
        let cases = [
            (
                "column",
                grains(&col),
                walls(&[[-cw, 0.0, cw, 0.0], [-cw, 0.0, -cw, 0.2], [cw, 0.0, cw, 0.2]]),
            ),
            {
                let (g, w) = hex_pile(10, r);
                ("pile", g, w)
            },
        ];
        // Overlaps settle where the push-out of what exceeds the slop
        // (overlap_relax per step) balances the creep the tolerance allows
        // (tol per step): slop + tol (1 + 1/beta).
        let bound = f64::from(p.slop()) + f64::from(p.tol) * (1.0 + 1.0 / f64::from(p.overlap_relax));
        for (name, mut g, w) in cases {
            let bb = w.bounding_box();
            let mut s = stepper([bb[0], bb[1], bb[2], bb[3].max(0.2)], r, &p);
            let region = Region {
                gravity: p.gravity,
                neck_y: -1.0,
                bbox: [bb[0], bb[1], bb[2], 0.2],
                period: 0.0,
            };
            for _ in 0..200 {
                s.step(&mut g, &w, &p).unwrap();
            }
            let mut halves = [0.0f64; 2];
            for step in 0..1000 {
                let st = s.step(&mut g, &w, &p).unwrap();
                assert!(
                    st.converged,
                    "{solver:?} {name}: step {step} hit itmax (residual {})",
                    st.residual
                );
                let o = reduce(&g, s.contacts(), &w, &region).max_overlap;
                halves[step / 500] = halves[step / 500].max(o);
            }
            println!(
                "{solver:?} {name}: max overlap steps 0-499 {:.3e} m, 500-999 {:.3e} m",
                halves[0], halves[1]
            );
            assert!(
                halves[1] <= halves[0] + 0.5 * f64::from(p.tol),
                "{solver:?} {name}: overlap grew {halves:?}"
            );
            assert!(
                halves[1] <= bound,
                "{solver:?} {name}: overlap {:e} beyond {bound:e}",
                halves[1]
            );
        }
    }
}

#[test]
fn nlgs_and_jacobi_reach_the_same_velocities_on_a_packed_pile() {
    let r = 0.003f32;
    let (mut g0, w) = hex_pile(12, r);
    // Give the pile some motion so the solve has work to do.
    for (i, v) in g0.vel.iter_mut().enumerate() {
        *v = [0.05 * ((i % 7) as f32 - 3.0) / 3.0, -0.2];
    }
    let bb = w.bounding_box();
    let mut out = Vec::new();
    for solver in [SolverKind::Nlgs, SolverKind::Jacobi] {
        let mut p = params(solver);
        p.tol = 1e-8;
        p.itmax = 20_000;
        p.warm_start = false;
        let mut g = g0.clone();
        let mut s = stepper([bb[0], bb[1], bb[2], 0.2], r, &p);
        let st = s.step(&mut g, &w, &p).unwrap();
        assert!(st.converged, "{solver:?}");
        println!(
            "{solver:?}: {} iterations to |dv| < {:.0e} m/s on {} contacts",
            st.iterations,
            p.tol / p.dt,
            st.contacts
        );
        out.push((g.vel.clone(), st.iterations));
    }
    let tol = 1e-4f32;
    for (a, b) in out[0].0.iter().zip(&out[1].0) {
        assert!((a[0] - b[0]).abs() < tol && (a[1] - b[1]).abs() < tol, "{a:?} vs {b:?}");
    }
}

/// Regression: when the lower grain's full list drops a grain-grain contact,
/// the higher grain's copy is the only one left and must still be solved
/// (NLGS and coloured NLGS used to skip it as "owned by the lower grain").
#[test]
fn contact_dropped_by_a_full_list_is_solved_from_the_other_side() {
    use hourglass::cpu::CpuStepper;
    use hourglass::model::Grid;
    let r = 0.003f32;
    for solver in [
        SolverKind::Jacobi,
        SolverKind::Nlgs,
        SolverKind::Seed,
        SolverKind::Colored,
    ] {
        let p = params(solver);
        // Grain 0 is fixed; grain 1 rests on it; grain 2, in a lower cell row,
        // fills grain 0's single slot first.
        let mut g = grains(&[(0.0, 0.0, r), (0.0, 2.0 * r, r), (-0.0061, -0.004, r)]);
        g.inv_mass[0] = 0.0;
        let grid = Grid::covering([-0.05, -0.05, 0.05, 0.05], 2.0 * r + p.alert).unwrap();
        let mut s = CpuStepper::new(grid, 1);
        let st = s.step(&mut g, &walls(&[]), &p).unwrap();
        assert!(
            st.overflow >= 1,
            "{solver:?}: the setup must overflow grain 0's list: {st:?}"
        );
        assert!(
            g.vel[1][1] >= -p.tol / p.dt,
            "{solver:?}: grain 1 fell into the fixed grain: v = {:?}",
            g.vel[1]
        );
    }
}

/// The two-thread NLGS sweep (lower and upper halves at once, then the
/// contacts across) solves the same problem as the one-thread sweep: on a
/// wide pile of 20,000 grains (far past `PAR_SWEEP_MIN` contacts) with some
/// motion, both converge to the same velocities.
#[test]
fn two_thread_nlgs_sweep_reaches_the_one_thread_velocities() {
    let r = 0.003f32;
    let (cols, rows) = (2000usize, 10usize);
    let mut list = Vec::new();
    for row in 0..rows {
        for k in 0..cols {
            let x = (2.0 * r + 1e-5) * (k as f32 + 0.5 * (row % 2) as f32) + r;
            let y = r + row as f32 * 3f32.sqrt() * (r + 5e-6) + 1e-5;
            list.push((x, y, r));
        }
    }
    let mut g0 = grains(&list);
    for (i, v) in g0.vel.iter_mut().enumerate() {
        *v = [0.05 * ((i % 7) as f32 - 3.0) / 3.0, -0.2];
    }
    let width = f64::from((2.0 * r + 1e-5) * (cols as f32 + 1.0));
    let w = walls(&[
        [-0.001, 0.0, width, 0.0],
        [-0.001, 0.0, -0.001, 0.2],
        [width, 0.0, width, 0.2],
    ]);
    let bb = w.bounding_box();
    let mut p = params(SolverKind::Nlgs);
    p.tol = 1e-8;
    p.itmax = 20_000;
    p.warm_start = false;
    let mut out = Vec::new();
    for par_min in [usize::MAX, 1] {
        let mut g = g0.clone();
        let mut s = stepper([bb[0], bb[1], bb[2], 0.2], r, &p);
        s.sweep_par_min = par_min;
        let st = s.step(&mut g, &w, &p).unwrap();
        assert!(st.converged, "par_min {par_min}: {} iterations", st.iterations);
        println!(
            "par_min {par_min}: {} iterations, {} contacts",
            st.iterations, st.contacts
        );
        assert!(st.contacts > 40_000, "{} contacts: too few to split", st.contacts);
        out.push(g.vel);
    }
    let tol = 1e-4f32;
    let mut largest = 0.0f32;
    for (a, b) in out[0].iter().zip(&out[1]) {
        assert!((a[0] - b[0]).abs() < tol && (a[1] - b[1]).abs() < tol, "{a:?} vs {b:?}");
        largest = largest.max((a[0] - b[0]).abs()).max((a[1] - b[1]).abs());
    }
    println!("largest velocity difference {largest:e} m/s");
    // The sweep order differs across the halves, so the iterates do too: the
    // two-thread path did run.
    assert!(largest > 0.0, "identical velocities: the two-thread sweep did not run");
}

/// A diagnostics row does not depend on the threads: stage `reduce` over
/// 100,000 grains gives the same sums, bit for bit, on 1, 2 and 4 threads
/// (fixed chunks added in order; a work-stealing reduction split the f64
/// sums differently from run to run).
#[test]
fn reduce_is_the_same_bit_for_bit_on_any_thread_count() {
    let n = 100_000usize;
    let list: Vec<(f32, f32, f32)> = (0..n)
        .map(|i| ((i % 400) as f32 * 0.007, (i / 400) as f32 * 0.007 + 0.003, 0.003))
        .collect();
    let mut g = grains(&list);
    for (i, v) in g.vel.iter_mut().enumerate() {
        let s = (i as f32 * 0.618_034).fract();
        *v = [0.3 * (s - 0.5), -1.0 + 0.7 * s * s];
    }
    let w = walls(&[[-0.01, 0.0, 3.0, 0.0]]);
    let lists = hourglass::model::ContactLists::new(n, 4);
    let region = Region {
        gravity: [0.0, -9.81],
        neck_y: 0.5,
        bbox: [-0.01, 0.0, 3.0, 2.0],
        period: 0.0,
    };
    let sums: Vec<_> = [1usize, 2, 4]
        .iter()
        .map(|&t| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
            pool.install(|| reduce(&g, &lists, &w, &region))
        })
        .collect();
    let bits = |t: &hourglass::model::Totals| {
        [
            t.kinetic_energy,
            t.potential_energy,
            t.momentum[0],
            t.momentum[1],
            t.max_speed,
        ]
        .map(f64::to_bits)
    };
    assert!(sums[0].passed > 0 && sums[0].kinetic_energy > 0.0, "{:?}", sums[0]);
    for s in &sums[1..] {
        assert_eq!(bits(s), bits(&sums[0]), "{s:?} vs {:?}", sums[0]);
        assert_eq!((s.passed, s.lost), (sums[0].passed, sums[0].lost));
    }
}
