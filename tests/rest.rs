//! Rest is rest: a resting column of 10 grains and a settled pile stay at
//! rest under NLGS, Jacobi, coloured NLGS, APGD and Uzawa with the scene's default settings: the top
//! grain slower than 1e-4 m/s, kinetic energy not growing, overlap not creeping.

mod common;

use common::{grains, hex_pile, stepper, walls};
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

/// The scene's default solver settings at dt = 1e-3 s.
fn defaults(solver: SolverKind) -> StepParams {
    let s = SolverSpec::default();
    StepParams {
        gravity: [0.0, -9.81],
        dt: 1e-3,
        alert: s.alert as f32,
        tol: s.tol as f32,
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

#[test]
fn columns_and_piles_stay_at_rest_under_nlgs_jacobi_colored_apgd_and_uzawa() {
    let failures = watch(&SOLVERS);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Settle 1 s, watch 2 s; the failures of the rest conditions.
fn watch(solvers: &[SolverKind]) -> Vec<String> {
    let r = 0.003f32;
    let mut failures = Vec::new();
    for &solver in solvers {
        let p = defaults(solver);
        for (name, (mut g, w)) in [("column", column(r)), ("pile", hex_pile(10, r))] {
            let bb = w.bounding_box();
            let mut s = stepper([bb[0], bb[1], bb[2], bb[3].max(0.2)], r, &p);
            let region = Region {
                gravity: p.gravity,
                neck_y: -1.0,
                bbox: [bb[0], bb[1], bb[2], 0.2],
            };
            // Settle 1 s, then watch 2 s in four windows.
            for _ in 0..1000 {
                s.step(&mut g, &w, &p).unwrap();
            }
            let top = (0..g.len())
                .max_by(|&a, &b| g.pos[a][1].total_cmp(&g.pos[b][1]))
                .unwrap();
            let (mut speed, mut ke, mut overlap, mut iters) = ([0.0f64; 4], [0.0f64; 4], [0.0f64; 4], [0u64; 4]);
            for step in 0..2000 {
                let st = s.step(&mut g, &w, &p).unwrap();
                let q = step / 500;
                let t = reduce(&g, s.contacts(), &w, &region);
                let v = g.vel[top];
                speed[q] = speed[q].max(f64::from((v[0] * v[0] + v[1] * v[1]).sqrt()));
                ke[q] = ke[q].max(t.kinetic_energy);
                overlap[q] = overlap[q].max(t.max_overlap);
                iters[q] += u64::from(st.iterations);
            }
            let e = |a: [f64; 4]| a.map(|x| format!("{x:.1e}")).join(" ");
            println!(
                "{solver:?} {name}: top speed {} m/s, KE {} J, overlap {} m, iterations/step {:?}",
                e(speed),
                e(ke),
                e(overlap),
                iters.map(|i| i as f64 / 500.0)
            );
            if speed[3] >= 1e-4 {
                failures.push(format!("{solver:?} {name}: top grain at {:.2e} m/s", speed[3]));
            }
            if ke[3] > ke[1] * 1.01 + 1e-12 {
                failures.push(format!(
                    "{solver:?} {name}: kinetic energy grew {:.2e} -> {:.2e} J",
                    ke[1], ke[3]
                ));
            }
            // Overlaps shallower than the slop are left alone by the push-out
            // (Contact::target): growing up to it is settling, beyond it creep.
            if overlap[3] > overlap[1].max(f64::from(p.slop())) + 0.1 * f64::from(p.tol) {
                failures.push(format!(
                    "{solver:?} {name}: overlap crept {:.2e} -> {:.2e} m",
                    overlap[1], overlap[3]
                ));
            }
        }
    }
    failures
}
