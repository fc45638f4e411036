//! Graph-coloured NLGS (cpu::colored) solves the same problem as NLGS: on the
//! same state both converge to the same velocities, and it is a drop-in solver
//! for the step.

mod common;

use common::*;
use hourglass::model::{Grains, SolverKind};

/// A hex pile with random velocities (so the contacts carry different impulses).
fn stirred_pile() -> (Grains, hourglass::model::Walls) {
    let (mut g, w) = hex_pile(25, 0.003);
    let mut s = 12345u64;
    for v in &mut g.vel {
        for x in v.iter_mut() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *x = ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.2;
        }
    }
    (g, w)
}

#[test]
fn colored_and_nlgs_converge_to_the_same_velocities() {
    let (g0, w) = stirred_pile();
    let mut out = Vec::new();
    for solver in [SolverKind::Nlgs, SolverKind::Colored] {
        let mut p = params(solver);
        p.tol = 1e-10;
        p.itmax = 20_000;
        p.warm_start = false;
        let mut s = stepper([-0.01, -0.01, 0.2, 0.2], 0.003, &p);
        let mut g = g0.clone();
        let st = s.step(&mut g, &w, &p).unwrap();
        assert!(
            st.converged,
            "{solver:?}: residual {} after {}",
            st.residual, st.iterations
        );
        println!("{solver:?}: {} iterations, colours {}", st.iterations, s.colors);
        out.push(g.vel);
    }
    let vmax = g0.vel.iter().map(|v| v[0].abs().max(v[1].abs())).fold(0.0f32, f32::max);
    let worst = out[0]
        .iter()
        .zip(&out[1])
        .map(|(a, b)| (a[0] - b[0]).abs().max((a[1] - b[1]).abs()))
        .fold(0.0f32, f32::max);
    assert!(
        worst <= 1e-4 * vmax,
        "velocities differ by {worst} m/s (speeds up to {vmax})"
    );
}

#[test]
fn colored_pile_holds_up_like_nlgs() {
    let mut end = Vec::new();
    for solver in [SolverKind::Nlgs, SolverKind::Colored] {
        let p = params(solver);
        let (mut g, w) = hex_pile(12, 0.003);
        let mut s = stepper([-0.01, -0.01, 0.1, 0.1], 0.003, &p);
        // The triangle collapses sideways for about 0.25 s (its timing
        // follows rounding); 300 steps compare the settled heaps.
        for step in 0..300 {
            let st = s.step(&mut g, &w, &p).unwrap();
            assert!(st.converged, "{solver:?} step {step}");
        }
        let lowest = g.pos.iter().map(|x| x[1]).fold(f32::INFINITY, f32::min);
        assert!(lowest >= 0.003 - 5.0 * p.tol, "{solver:?}: bottom row sank to {lowest}");
        let vmax = g.vel.iter().map(|v| v[0].hypot(v[1])).fold(0.0f32, f32::max);
        let top = g.pos.iter().map(|x| x[1]).fold(f32::NEG_INFINITY, f32::max);
        println!("{solver:?}: top {top} m, max speed {vmax} m/s");
        if solver == SolverKind::Colored {
            assert!(s.colors >= 3, "a hex pile needs at least 3 colours, got {}", s.colors);
        }
        end.push((top, vmax));
    }
    // Frictionless piles creep; both keep the pile within a grain diameter of its height.
    assert!((end[0].0 - end[1].0).abs() < 0.006, "{end:?}");
}

/// A 30-grain column landing at 1 m/s, cold: coloured NLGS, over-relaxed
/// far from convergence like NLGS, stops it within twice NLGS's sweeps
/// (plain coloured Gauss-Seidel ran into itmax = 1,000 with the top grains
/// still moving), and both leave every grain at rest to the tolerance's
/// accuracy (a few tol/dt summed up the column).
#[test]
fn colored_stops_a_landing_column_within_twice_nlgs_sweeps() {
    let mut sweeps = Vec::new();
    for solver in [SolverKind::Nlgs, SolverKind::Colored] {
        let p = params(solver);
        let (mut g, w) = common::landing_column(30);
        let mut s = stepper([-0.01, -0.01, 0.02, 0.2], 0.003, &p);
        let st = s.step(&mut g, &w, &p).unwrap();
        assert!(st.converged, "{solver:?}: {st:?}");
        let fastest = g.vel.iter().map(|v| v[0].hypot(v[1])).fold(0.0f32, f32::max);
        println!("{solver:?}: {} sweeps, fastest grain {fastest:e} m/s", st.iterations);
        assert!(fastest < 0.01, "{solver:?}: a grain left at {fastest} m/s");
        sweeps.push(st.iterations);
    }
    assert!(
        sweeps[1] <= 2 * sweeps[0],
        "coloured {} against NLGS {} sweeps",
        sweeps[1],
        sweeps[0]
    );
}
