//! Capillary cohesion (docs/cohesion.md, `[cohesion]`) on the CPU: the first step
//! of two grains at a gap below the rupture gap gives each the acceleration
//! of the force law, nothing happens beyond the rupture gap, grain-wall
//! bridges act only when switched on; the scene keys are validated and
//! round-trip.

mod common;

use std::path::Path;

use hourglass::model::{Cohesion, SolverKind, StepParams};
use hourglass::scene::Scene;

/// The default `[cohesion]` (water, 3 mm grains: see `scene::CohesionSpec`).
fn law(walls: bool) -> Cohesion {
    common::nscd3::wet_law(walls)
}

fn wet(solver: SolverKind, walls: bool) -> StepParams {
    StepParams {
        gravity: [0.0, 0.0],
        cohesion: law(walls),
        ..common::params(solver)
    }
}

/// The law in f64: pi gamma r (exp(b - a D) + c), r the harmonic mean of the radii.
fn force(co: &Cohesion, ri: f64, rj: Option<f64>, gap: f64) -> f64 {
    let r = rj.map_or(ri, |rj| 2.0 * ri * rj / (ri + rj));
    std::f64::consts::PI * f64::from(co.gamma) * r * ((f64::from(co.b) - f64::from(co.a) * gap).exp() + f64::from(co.c))
}

const SOLVERS: [SolverKind; 5] = [
    SolverKind::Nlgs,
    SolverKind::Jacobi,
    SolverKind::Colored,
    SolverKind::Uzawa,
    SolverKind::Apgd,
];

/// Two grains of radii 3 and 2 mm side by side at `gap`, at rest, no gravity, no walls near.
fn pair(gap: f32) -> hourglass::model::Grains {
    let (r1, r2) = (0.003, 0.002);
    common::grains(&[(0.05, 0.05, r1), (0.05 + r1 + r2 + gap, 0.05, r2)])
}

#[test]
fn two_grains_approach_with_the_force_law_acceleration() {
    let walls = common::walls(&[[0.0, 0.0, 0.1, 0.0]]);
    for solver in SOLVERS {
        for gap in [1e-4f32, 5e-4, 9e-4] {
            let p = wet(solver, false);
            let mut g = pair(gap);
            let gap = f64::from(g.pos[1][0] - g.pos[0][0]) - 0.005;
            let mut s = common::stepper([0.0, 0.0, 0.1, 0.1], 0.003, &p);
            s.step(&mut g, &walls, &p).unwrap();
            let f = force(&p.cohesion, 0.003, Some(0.002), gap);
            for (i, sign) in [(0usize, 1.0), (1, -1.0)] {
                let m = 1.0 / f64::from(g.inv_mass[i]);
                let want = sign * f / m * f64::from(p.dt);
                let got = f64::from(g.vel[i][0]);
                assert!(
                    ((got - want) / want).abs() < 0.01,
                    "{solver:?} gap {gap:.1e}: grain {i} moves at {got:.6e} m/s after one step, the law gives {want:.6e}"
                );
                assert_eq!(g.vel[i][1], 0.0, "{solver:?}: no force across the line of centres");
            }
            // Equal and opposite: the momentum stays zero.
            let px = g.vel[0][0] / g.inv_mass[0] + g.vel[1][0] / g.inv_mass[1];
            assert!(
                px.abs() < 1e-6 * (g.vel[0][0] / g.inv_mass[0]).abs(),
                "{solver:?}: momentum {px:e}"
            );
        }
    }
}

#[test]
fn beyond_the_rupture_gap_nothing_moves() {
    let walls = common::walls(&[[0.0, 0.0, 0.1, 0.0]]);
    for solver in SOLVERS {
        // just past the rupture gap of 1 mm; 2.5 mm is within the alert distance.
        for gap in [1.02e-3f32, 1.2e-3, 2.5e-3] {
            let p = wet(solver, true);
            let mut g = pair(gap);
            let mut s = common::stepper([0.0, 0.0, 0.1, 0.1], 0.003, &p);
            s.step(&mut g, &walls, &p).unwrap();
            assert!(
                s.contacts().distinct() > 0 || gap > 2e-3,
                "the pair is a potential contact"
            );
            assert_eq!(
                g.vel,
                vec![[0.0, 0.0]; 2],
                "{solver:?} gap {gap:e}: a broken bridge pulls"
            );
        }
    }
}

#[test]
fn pulled_grains_touch_but_do_not_overlap() {
    // A bridge at 0.5 mm pulls the pair shut within a few hundred steps; the
    // projection then holds them at contact.
    let walls = common::walls(&[[0.0, 0.0, 0.1, 0.0]]);
    for solver in [SolverKind::Nlgs, SolverKind::Apgd] {
        let p = wet(solver, false);
        let mut g = pair(5e-4);
        let mut s = common::stepper([0.0, 0.0, 0.1, 0.1], 0.003, &p);
        for _ in 0..300 {
            s.step(&mut g, &walls, &p).unwrap();
        }
        let gap = g.pos[1][0] - g.pos[0][0] - 0.005;
        assert!(
            gap.abs() < 5.0 * p.tol,
            "{solver:?}: gap {gap:e} m after 0.3 s (should be closed, not overlapping)"
        );
        let speed = g.vel[0][0].hypot(g.vel[1][0]);
        assert!(speed < 1e-3, "{solver:?}: the closed pair still moves at {speed:e} m/s");
    }
}

#[test]
fn grain_wall_bridge_only_when_switched_on() {
    let floor = common::walls(&[[0.0, 0.0, 0.1, 0.0]]);
    let r = 0.003f32;
    let gap = 4e-4f32;
    for solver in SOLVERS {
        for walls in [false, true] {
            let p = wet(solver, walls);
            let mut g = common::grains(&[(0.05, r + gap, r)]);
            let gap = f64::from(g.pos[0][1] - r);
            let mut s = common::stepper([0.0, 0.0, 0.1, 0.1], r, &p);
            s.step(&mut g, &floor, &p).unwrap();
            let want = if walls {
                -force(&p.cohesion, f64::from(r), None, gap) * f64::from(g.inv_mass[0]) * f64::from(p.dt)
            } else {
                0.0
            };
            let got = f64::from(g.vel[0][1]);
            if walls {
                assert!(
                    ((got - want) / want).abs() < 0.01,
                    "{solver:?}: {got:e} m/s, the law gives {want:e}"
                );
            } else {
                assert_eq!(got, 0.0, "{solver:?}: the wall pulls with `walls = false`");
            }
            assert_eq!(g.vel[0][0], 0.0);
        }
    }
}

fn parse(text: &str) -> hourglass::error::Result<Scene> {
    let s = Scene::parse(text, Path::new("wet.toml"))?;
    s.validate()?;
    Ok(s)
}

fn refused(text: &str, needles: &[&str]) {
    let e = parse(text).expect_err(text).to_string();
    for n in needles {
        assert!(e.contains(n), "`{text}`: error `{e}` does not name `{n}`");
    }
    assert!(!e.contains('\n'), "one line: {e}");
}

#[test]
fn cohesion_keys_are_validated() {
    refused("[cohesion]\ngamma = nan", &["cohesion.gamma", "finite"]);
    refused("[cohesion]\ngamma = -0.07", &["cohesion.gamma", ">= 0"]);
    refused("[cohesion]\na = -1.0", &["cohesion.a"]);
    refused("[cohesion]\nb = inf", &["cohesion.b"]);
    refused("[cohesion]\nb = 200.0", &["cohesion.b"]);
    refused("[cohesion]\nc = nan", &["cohesion.c"]);
    refused("[cohesion]\nrupture = 0.0", &["cohesion.rupture", "> 0"]);
    refused("[cohesion]\nrupture = -1e-3", &["cohesion.rupture"]);
    refused(
        "[solver]\nalert = 0.002\n[cohesion]\nrupture = 0.0025",
        &["cohesion.rupture", "solver.alert"],
    );
    // A constant C below -exp(b - a D_rupt) would push at the rupture gap.
    refused("[cohesion]\nc = -100.0", &["cohesion.c"]);
    refused("[cohesion]\ngama = 0.07", &["gama"]);
    refused("[cohesion]\nwalls = 1", &["line 2", "boolean"]);
    for kind in ["dem", "spring", "impulse"] {
        refused(
            &format!("[solver]\nkind = \"{kind}\"\n[cohesion]\n"),
            &["cohesion", kind],
        );
    }
    parse("[cohesion]\nwalls = true\nc = -1.0").unwrap();
}

#[test]
fn cohesion_round_trips_through_the_written_scene() {
    let s = parse("[cohesion]\ngamma = 0.05\na = 4000.0\nb = 7.5\nc = 0.25\nrupture = 8e-4\nwalls = true").unwrap();
    let again = Scene::parse(&s.to_toml(), Path::new("again.toml")).unwrap();
    assert_eq!(again.cohesion, s.cohesion);
    assert!(s.to_toml().contains("[cohesion]"));
    let dry = parse("").unwrap();
    assert!(!dry.to_toml().contains("cohesion"), "a dry scene writes no [cohesion]");
    assert_eq!(Scene::parse(&dry.to_toml(), Path::new("d")).unwrap().cohesion, None);
}

/// In 3D (`CpuBackend<Dim3>`), the bridge between two spheres along a line
/// of centres off every axis: the first step moves each at dt F / m of the
/// sphere's mass, nothing beyond the rupture gap (tests/common/nscd3.rs).
#[test]
fn two_spheres_approach_with_the_force_law_acceleration() {
    use hourglass::backend::{Backend, CpuBackend};
    use hourglass::model::{Dim3, Grains, Grid, Walls3d};
    let cpu = |g: Grains<Dim3>, w: Walls3d, grid: Grid<Dim3>| -> Box<dyn Backend<Dim3>> {
        Box::new(CpuBackend::new(g, w, grid, 16))
    };
    for solver in [
        SolverKind::Nlgs,
        SolverKind::Jacobi,
        SolverKind::Colored,
        SolverKind::Uzawa,
        SolverKind::Apgd,
    ] {
        common::nscd3::wet_pair(&cpu, solver);
    }
}
