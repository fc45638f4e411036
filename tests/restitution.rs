//! Restitution in the NSCD projection (docs/nscd.md#restitution): a
//! contact closing within a step separates at -e times its approach
//! velocity, on every NSCD solver of the CPU path. A grain dropped on a floor
//! rebounds to e^2 of its drop height; a head-on pair leaves at -e times its
//! closing velocity and keeps its momentum; e = 0 stays perfectly inelastic.

mod common;

use common::{grains, params, stepper, walls};
use hourglass::model::{Grains, SolverKind, StepParams};

const SOLVERS: [SolverKind; 6] = [
    SolverKind::Nlgs,
    SolverKind::Jacobi,
    SolverKind::Colored,
    SolverKind::Apgd,
    SolverKind::Uzawa,
    SolverKind::Seed,
];

const R: f32 = 0.005;
/// Drop height of the grain's lowest point above the floor, m.
const H: f32 = 0.1;

/// The drop: one grain released from rest with its lowest point `H` above a
/// floor at y = 0, dt = 1e-4 s (the bounce happens up to |v| dt = 0.14 mm
/// above the floor). Returns the highest gap after the first bounce and the
/// largest gap after the grain first came within 1 um of the floor (NaN if
/// it never did), m.
fn drop(solver: SolverKind, e: f32, mu: f32) -> (f32, f32) {
    drop_with(solver, e, mu, 0)
}

/// [`drop`] with `overlap_iterations` of the split push-out (the scenes' default is 4).
fn drop_with(solver: SolverKind, e: f32, mu: f32, overlap_iterations: u32) -> (f32, f32) {
    let p = StepParams {
        dt: 1e-4,
        tol: 1e-9,
        itmax: 5000,
        restitution: e,
        mu,
        mu_wall: mu,
        overlap_iterations,
        ..params(solver)
    };
    let mut g = grains(&[(0.05, R + H, R)]);
    // A sideways speed and a spin, which friction acts on at the bounce.
    g.vel[0] = [0.05, 0.0];
    g.ang_vel[0] = 3.0;
    let w = walls(&[[0.0, 0.0, 0.1, 0.0]]);
    let mut st = stepper([-0.01, -0.01, 0.11, 0.15], R, &p);
    let gap = |g: &Grains| g.pos[0][1] - R;
    let (mut bounced, mut apex, mut landed, mut after) = (false, 0.0f32, false, 0.0f32);
    // Fall (0.14 s) and rise again to e^2 H (0.07 s at e = 0.5).
    for _ in 0..2600 {
        st.step(&mut g, &w, &p).unwrap();
        if g.vel[0][1] > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(gap(&g));
        }
        landed |= gap(&g) < 1e-6;
        if landed {
            after = after.max(gap(&g));
        }
    }
    (apex, if landed { after } else { f32::NAN })
}

#[test]
fn a_grain_dropped_with_e_one_half_rebounds_to_a_quarter_of_its_height_on_every_solver() {
    // Frictionless on every solver, and with friction (mu = 0.5) on those
    // that carry it: friction acts along the floor and leaves the bounce alone.
    let frictional = [
        SolverKind::Nlgs,
        SolverKind::Jacobi,
        SolverKind::Colored,
        SolverKind::Apgd,
    ];
    let runs = SOLVERS
        .map(|s| (s, 0.0))
        .into_iter()
        .chain(frictional.map(|s| (s, 0.5)));
    for (solver, mu) in runs {
        let (apex, _) = drop(solver, 0.5, mu);
        let ratio = apex / H;
        eprintln!("{solver:?} mu {mu}: rebound ratio {ratio:.5}");
        assert!(
            (ratio - 0.25).abs() < 0.02 * 0.25,
            "{solver:?} mu {mu}: rebound to {ratio} of the drop height, want 0.25 within 2 %"
        );
    }
}

/// The split push-out (`overlap_iterations` > 0, the scenes' default) moves
/// grains out of overlaps only: a bounce is the velocity's, so the drop's
/// apex is the same with it as without (a bounce left in the correction's
/// copy of the contacts pushed the grain up by a further bounce * dt, 70 um).
#[test]
fn the_split_push_out_leaves_the_bounce_alone() {
    for solver in SOLVERS {
        let (plain, _) = drop_with(solver, 0.5, 0.0, 0);
        let (split, _) = drop_with(solver, 0.5, 0.0, 4);
        assert!(
            (split - plain).abs() < 1e-6,
            "{solver:?}: apex {split} m with the split push-out, {plain} m without"
        );
    }
}

#[test]
fn a_grain_dropped_with_e_zero_stays_on_the_floor() {
    for solver in SOLVERS {
        let (_, after) = drop(solver, 0.0, 0.0);
        // Perfectly inelastic: it never leaves the floor once it lands
        // (within the solver's tolerance).
        assert!(
            after < 1e-6,
            "{solver:?}: gap {after} m after landing (NaN: never landed)"
        );
    }
}

#[test]
fn a_head_on_pair_leaves_at_minus_e_times_its_closing_velocity_and_keeps_its_momentum() {
    for solver in SOLVERS {
        for e in [0.3f32, 0.8, 1.0] {
            let p = StepParams {
                gravity: [0.0, 0.0],
                tol: 1e-10,
                itmax: 10_000,
                restitution: e,
                ..params(solver)
            };
            // Unequal masses (radii 5 and 4 mm), closing at 1.5 m/s.
            let mut g = grains(&[(0.0, 0.0, 0.005), (0.05, 0.0, 0.004)]);
            g.vel = vec![[1.0, 0.0], [-0.5, 0.0]];
            let m = [1.0 / g.inv_mass[0], 1.0 / g.inv_mass[1]];
            let momentum = |g: &Grains| m[0] * g.vel[0][0] + m[1] * g.vel[1][0];
            let (p0, before) = (momentum(&g), g.vel[0][0] - g.vel[1][0]);
            let w = walls(&[]);
            let mut st = stepper([-0.1, -0.05, 0.15, 0.05], 0.005, &p);
            // They meet after 0.041 / 1.5 = 27 ms.
            for _ in 0..60 {
                st.step(&mut g, &w, &p).unwrap();
            }
            let after = g.vel[0][0] - g.vel[1][0];
            assert!(
                (after + e * before).abs() < 1e-4 * before,
                "{solver:?} e {e}: relative velocity {after} after, {before} before"
            );
            let p1 = momentum(&g);
            assert!(
                (p1 - p0).abs() < 1e-5 * (m[0] + m[1]),
                "{solver:?} e {e}: momentum {p1}, was {p0}"
            );
            assert!(
                g.vel.iter().all(|v| v[1] == 0.0),
                "{solver:?}: motion stays on the line"
            );
        }
    }
}
