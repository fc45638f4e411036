//! Rest is rest: a resting column of 10 grains and a settled pile come to
//! rest under NLGS, Jacobi, coloured NLGS, APGD and Uzawa with the scene's
//! default settings: below 1e-4 m/s rms within one simulated second and for
//! the ten seconds after, without the overlaps creeping.
//!
//! The piles are hexagonal piles of 120 grains (settled 2 s under NLGS)
//! and of 465 grains in 30 rows (settled 3 s), then stepped 11 s under each
//! solver. The same figure for the bundled hourglass's 2,000-grain fill
//! behind its closed gate (`cargo run --release --example rest_pile`) is in
//! docs/solvers.md; it takes many minutes per solver, too slow for this suite.

mod common;

use common::{grains, hex_pile, stepper, throw_top_grain, walls};
use hourglass::cpu::CpuStepper;
use hourglass::cpu::reduce::reduce;
use hourglass::model::{Grains, Region, SolverKind, StepParams, Walls};
use hourglass::scene::SolverSpec;

const SOLVERS: [SolverKind; 5] = [
    SolverKind::Nlgs,
    SolverKind::Jacobi,
    SolverKind::Colored,
    SolverKind::Apgd,
    SolverKind::Uzawa,
];

/// Rest: rms speed of the grains, m/s.
const REST: f64 = 1e-4;

/// The scene's default solver settings at dt = 1e-3 s.
fn defaults(solver: SolverKind) -> StepParams {
    let s = SolverSpec::default();
    StepParams {
        gravity: [0.0, -9.81],
        dt: 1e-3,
        alert: s.alert as f32,
        tol: s.tol_or_default() as f32,
        itmax: s.itmax,
        omega: s.omega as f32,
        // Unset in the default scene: each solver's own (0.8 for NLGS).
        overlap_relax: s.overlap_relax.unwrap_or(solver.overlap_relax(false)) as f32,
        overlap_relax_default: false,
        overlap_iterations: s.overlap_iterations,
        solver,
        warm_start: s.warm_start,
        mu: 0.0,
        mu_wall: 0.0,
        cohesion: Default::default(),
        restitution: 0.0,
        forcing: Default::default(),
    }
}

fn column(r: f32) -> (Grains, Walls) {
    // 10 grains stacked with 1e-5 m gaps in a box just wider than one grain.
    let col: Vec<_> = (0..10)
        .map(|k| (0.0, r + k as f32 * (2.0 * r + 1e-5) + 1e-5, r))
        .collect();
    let cw = f64::from(r) + 1e-5;
    (
        grains(&col),
        walls(&[[-cw, 0.0, cw, 0.0], [-cw, 0.0, -cw, 0.2], [cw, 0.0, cw, 0.2]]),
    )
}

fn rms_speed(g: &Grains) -> f64 {
    let s: f64 = g.vel.iter().map(|v| f64::from(v[0] * v[0] + v[1] * v[1])).sum();
    (s / g.len() as f64).sqrt()
}

fn new_stepper(w: &Walls, r: f32, p: &StepParams) -> CpuStepper {
    let bb = w.bounding_box();
    stepper([bb[0], bb[1], bb[2], bb[3].max(0.2)], r, p)
}

/// A hexagonal pile of grains of radius 3 mm, `base` wide, settled `steps`
/// steps under NLGS: its stepper (the warm start), grains and walls.
fn settled_pile(base: usize, steps: usize) -> (CpuStepper, Grains, Walls) {
    let r = 0.003;
    let (mut g, w) = hex_pile(base, r);
    let p = defaults(SolverKind::Nlgs);
    let mut s = new_stepper(&w, r, &p);
    for _ in 0..steps {
        s.step(&mut g, &w, &p).unwrap();
    }
    (s, g, w)
}

/// Step `s` 11 s under `solver`; the failures of the rest conditions: rms
/// speed under [`REST`] from 1 s on, the largest overlap of the last 5 s no
/// deeper than that of the 5 s before (or than the slop, under which
/// overlaps are left alone: growing up to it is settling, beyond it creep).
fn watch(name: &str, solver: SolverKind, mut s: CpuStepper, mut g: Grains, w: &Walls) -> Vec<String> {
    let p = defaults(solver);
    let bb = w.bounding_box();
    let region = Region {
        gravity: p.gravity,
        neck_y: -1.0,
        bbox: [bb[0], bb[1], bb[2], 0.2],
        period: 0.0,
    };
    let (mut at_1s, mut worst, mut overlap, mut iterations) = (0.0, 0.0f64, [0.0f64; 2], 0u64);
    for step in 1..=11_000 {
        iterations += u64::from(s.step(&mut g, w, &p).unwrap().iterations);
        let v = rms_speed(&g);
        if step == 1000 {
            at_1s = v;
        }
        if step >= 1000 {
            worst = worst.max(v);
        }
        if step > 1000 {
            let t = reduce(&g, s.contacts(), w, &region);
            let half = usize::from(step > 6000);
            overlap[half] = overlap[half].max(t.max_overlap);
        }
    }
    println!(
        "{solver:?} {name}: rms speed {at_1s:.2e} m/s at 1 s, at most {worst:.2e} over 1-11 s; \
         largest overlap {:.2e} then {:.2e} m; {:.1} iterations/step",
        overlap[0],
        overlap[1],
        iterations as f64 / 11_000.0
    );
    let mut failures = Vec::new();
    if worst >= REST {
        failures.push(format!("{solver:?} {name}: {worst:.2e} m/s rms after 1 s"));
    }
    if overlap[1] > overlap[0].max(f64::from(p.slop())) + 0.1 * f64::from(p.tol) {
        failures.push(format!(
            "{solver:?} {name}: overlap crept {:.2e} -> {:.2e} m",
            overlap[0], overlap[1]
        ));
    }
    failures
}

#[test]
fn a_column_rests_within_a_second_under_every_nscd_solver() {
    let r = 0.003;
    let mut failures = Vec::new();
    for solver in SOLVERS {
        let (g, w) = column(r);
        let s = new_stepper(&w, r, &defaults(solver));
        failures.extend(watch("column", solver, s, g, &w));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_settled_pile_rests_within_a_second_under_every_nscd_solver() {
    let (s, g, w) = settled_pile(15, 2000);
    let mut failures = Vec::new();
    for solver in SOLVERS {
        // From the settled state and its impulses (the warm start carries over).
        failures.extend(watch("pile", solver, s.clone(), g.clone(), &w));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A deep pile: 465 grains in 30 rows. The solve's error at each contact
/// (up to REST_FLOOR) lets the contacts close at that speed while the
/// push-out opens them again, and a grain squeezed between two nearly
/// opposite contacts moves several times faster: the deeper the pile, the
/// more such contacts it has. At a floor of 1e-5 m/s this pile kept moving
/// at 1.3e-4 to 2.5e-4 m/s rms.
#[test]
fn a_deep_pile_rests_within_a_second_under_every_nscd_solver() {
    let (s, g, w) = settled_pile(30, 3000);
    let mut failures = Vec::new();
    for solver in SOLVERS {
        failures.extend(watch("deep pile", solver, s.clone(), g.clone(), &w));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A flow is solved to `tol` as before: the tighter convergence near rest
/// (`StepParams::solve_tol`) starts only when the fastest grain is slower
/// than tol/dt / REST_SHARE (0.2 m/s at the defaults). The threshold is
/// min(s tol/dt, r max(REST_SHARE speed, REST_FLOOR)), s the solver's share
/// of tol/dt and r its share of the slow-grain bound: r = 1 (APGD's
/// resting solve stops at REST_FLOOR, 1e-6 m/s, not at 0.4 of it, where
/// the settled fill's deep contacts stall it until itmax), Uzawa's 0.25.
#[test]
fn the_solve_tightens_only_when_the_grains_are_slow() {
    use hourglass::model::params::{REST_FLOOR, REST_SHARE};
    for solver in SOLVERS {
        let p = defaults(solver);
        assert_eq!(p.solve_tol(0.2), p.tol);
        assert_eq!(p.solve_tol(3.0), p.tol);
        let (s, r) = (solver.facts().threshold, solver.facts().rest_threshold);
        assert_eq!(r, if solver == SolverKind::Uzawa { s } else { 1.0 });
        for speed in [0.0, 1e-5, 1e-3, 0.05, 0.1, 0.2, 3.0] {
            let rule = (s * p.tol / p.dt).min(r * (REST_SHARE * speed).max(REST_FLOOR));
            let got = p.solve_threshold(speed);
            assert!(
                (got - rule).abs() <= 1e-6 * rule,
                "{solver:?} at {speed} m/s: threshold {got:.3e} m/s, the rule's {rule:.3e}"
            );
        }
        assert!((p.solve_threshold(0.0) - r * REST_FLOOR).abs() <= 1e-6 * REST_FLOOR);
        // Pushing out through the velocities, the solve keeps tol.
        let through_velocities = StepParams {
            overlap_iterations: 0,
            ..p
        };
        assert_eq!(through_velocities.solve_tol(0.0), p.tol);
    }
}

/// A few fast grains do not loosen the solve of a resting pile under the
/// solvers whose resting solve converges slowly (Jacobi, coloured NLGS,
/// APGD: `SolverFacts::fast_share`): with the top grain of a 120-grain
/// pile (settled under NLGS, then 0.3 s under the solver) thrown up at
/// 0.1 m/s, the tolerance following the
/// fastest grain would be 1 % of its speed, 1e-3 m/s, and the pile's
/// contacts would be solved a thousand times more loosely than at rest
/// (6-10 iterations to 3.8e-4 - 9.7e-4 m/s); ignoring the fastest 1 % of
/// the grains, the step solves towards the rest floor (REST_FLOOR, 1e-6
/// m/s; coloured NLGS and APGD reach it, Jacobi ends at the cap at 6.5e-6).
/// NLGS keeps following the fastest grain.
#[test]
fn a_few_fast_grains_do_not_loosen_a_resting_pile() {
    use hourglass::model::params::REST_FLOOR;
    let (s, g, w) = settled_pile(15, 2000);
    assert!(g.len() >= 100, "{} grains: the fastest 1 % is less than one", g.len());
    for solver in [SolverKind::Jacobi, SolverKind::Colored, SolverKind::Apgd] {
        let p = defaults(solver);
        let loose = p.solve_threshold(0.1);
        let (mut s, mut g) = (s.clone(), g.clone());
        for _ in 0..300 {
            s.step(&mut g, &w, &p).unwrap();
        }
        throw_top_grain(&mut g, 0.1);
        let st = s.step(&mut g, &w, &p).unwrap();
        assert!(
            st.residual < 0.01 * loose,
            "{solver:?}: residual {:.2e} m/s after {} iterations; following the fast grain: {loose:.2e}, the rest floor's {REST_FLOOR:.2e}",
            st.residual,
            st.iterations
        );
    }
}

/// APGD's resting solve stops at the rest floor itself
/// (`SolverFacts::rest_threshold` 1), not at its share of tol/dt (0.4):
/// over the first second of the settled 465-grain pile it runs to itmax in
/// at most one step in ten (60 of 1,000, 112 iterations a step; at 0.4 of
/// the floor 164, 211 a step, the deep contacts' corrections stalling
/// just above it).
#[test]
fn apgds_resting_solve_converges_at_the_floor() {
    let (mut s, mut g, w) = settled_pile(30, 3000);
    let p = defaults(SolverKind::Apgd);
    let (mut capped, mut iterations) = (0u32, 0u32);
    for _ in 0..1000 {
        let st = s.step(&mut g, &w, &p).unwrap();
        capped += u32::from(!st.converged);
        iterations += st.iterations;
    }
    assert!(
        capped <= 100,
        "{capped} of 1,000 resting steps at itmax ({:.1} iterations a step)",
        f64::from(iterations) / 1000.0
    );
}
