//! Periodic boundaries along x (`walls.periodic_x`, docs/walls.md#periodic-boundaries):
//! a grain leaving one side re-enters the other, grains touch across the
//! boundary through their periodic images, nothing is lost through a
//! periodic side, and a scene that cannot run periodic is refused naming
//! the key.

mod common;

use std::path::Path;

use hourglass::backend::{check_initial_state, cpu_backend, grid_for, refuse_unrunnable};
use hourglass::cpu::CpuStepper;
use hourglass::cpu::dem::DemStepper;
use hourglass::cpu::reduce::reduce;
use hourglass::model::{DemParams, Grains, Grid, Region, SolverKind, Walls};
use hourglass::output::{ResultDir, Summary};
use hourglass::scene::build::dem_dt;
use hourglass::scene::{BackendChoice, Scene, Setup, build};
use hourglass::sim;

const XMIN: f32 = -0.05;
const XMAX: f32 = 0.05;
const PERIOD: &str = "[walls]\nsegments = [[-0.08, 0.0, 0.08, 0.0]]\nperiodic_x = [-0.05, 0.05]\n";

fn setup(text: &str) -> hourglass::Result<Setup> {
    build(&Scene::parse(
        &format!("version = 1\n{text}"),
        Path::new("periodic.toml"),
    )?)
}

/// Build, check and run `text` on the CPU: the summary and the grains at the end.
fn run(text: &str) -> (Summary, Grains) {
    let setup = setup(text).unwrap();
    let grid = grid_for(&setup).unwrap();
    assert!(grid.is_periodic());
    check_initial_state(&setup, &grid).unwrap();
    let mut backend = cpu_backend(&setup, grid);
    let dir = tempfile::tempdir().unwrap();
    let mut out = ResultDir::create(&dir.path().join("out"), &setup.scene.to_toml()).unwrap();
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    (summary, backend.grains().unwrap().clone())
}

fn inside_period(g: &Grains) {
    for (i, p) in g.pos.iter().enumerate() {
        assert!(
            p[0] >= XMIN && p[0] < XMAX,
            "grain {i} at x = {} outside the period",
            p[0]
        );
    }
}

#[test]
fn a_grain_crossing_xmax_re_enters_at_xmin_with_its_velocity() {
    for solver in ["nlgs", "dem", "spring", "impulse"] {
        // 1 m/s along x, no gravity, 8 mm above the floor: it crosses xmax
        // at t = 0.01 s and is 0.03 m on at 0.04 s.
        let (summary, g) = run(&format!(
            "gravity = [0.0, 0.0]\n{PERIOD}[solver]\nkind = \"{solver}\"\n\
             [grains]\nlist = [[0.04, 0.008, 1.0, 0.0, 0.003]]\n[run]\nduration = 0.04\nevery = 10\n"
        ));
        assert_eq!((summary.lost_grains, summary.grains), (0, 1), "{solver}");
        inside_period(&g);
        let travelled = summary.sim_time;
        let expected = 0.04 + travelled - 0.1;
        assert!(
            (f64::from(g.pos[0][0]) - expected).abs() < 1e-4,
            "{solver}: x = {}, expected {expected} after {travelled} s",
            g.pos[0][0]
        );
        assert!(
            (g.vel[0][0] - 1.0).abs() < 1e-6 && g.vel[0][1] == 0.0,
            "{solver}: v = {:?}",
            g.vel[0]
        );
        assert!((g.pos[0][1] - 0.008).abs() < 1e-6, "{solver}: y = {}", g.pos[0][1]);
    }
}

/// Two grains of radius `r` overlapping by `d` through the boundary: one at
/// xmin + r - d/2, the other at xmax - r + d/2.
fn across(r: f32, d: f32) -> Grains {
    common::grains(&[(XMIN + r - 0.5 * d, 0.0, r), (XMAX - r + 0.5 * d, 0.0, r)])
}

fn periodic_grid(r: f32, alert: f32) -> Grid {
    Grid::periodic_x([XMIN, -0.01, XMAX, 0.01], 2.0 * r + alert, [XMIN, XMAX]).unwrap()
}

/// Their gap through the boundary (the minimum image), m.
fn gap_across(g: &Grains) -> f32 {
    let dx = g.pos[0][0] - g.pos[1][0];
    let period = XMAX - XMIN;
    let dx = dx - period * (dx / period).round();
    dx.hypot(g.pos[0][1] - g.pos[1][1]) - g.radius[0] - g.radius[1]
}

fn check_pushed_apart(g: &Grains, start_gap: f32, model: &str) {
    inside_period(g);
    assert!(
        gap_across(g) > start_gap,
        "{model}: gap {} from {start_gap}",
        gap_across(g)
    );
    // The grain at xmin is pushed on towards +x, the one at xmax towards -x.
    assert!(g.vel[0][0] > 0.0 && g.vel[1][0] < 0.0, "{model}: v = {:?}", g.vel);
    // Equal masses: the momenta cancel.
    let p = g.vel[0][0] + g.vel[1][0];
    assert!(
        p.abs() <= 1e-6 * g.vel[0][0].abs(),
        "{model}: momentum {p} of {:?}",
        g.vel
    );
    assert!(g.vel[0][1] == 0.0 && g.vel[1][1] == 0.0, "{model}: v = {:?}", g.vel);
}

#[test]
fn grains_overlapping_through_the_boundary_are_pushed_apart_under_nscd() {
    let (r, d) = (0.003, 2e-4);
    let mut g = across(r, d);
    let mut p = common::params(SolverKind::Nlgs);
    p.gravity = [0.0, 0.0];
    let mut s = CpuStepper::new(periodic_grid(r, p.alert), 16);
    let walls = Walls::default();
    let lists = s.detect(&g, &walls, p.alert);
    assert_eq!(
        (lists.count[0], lists.count[1]),
        (1, 1),
        "the pair is found through the boundary"
    );
    let c = lists.of(0)[0];
    assert!((c.gap + d).abs() < 1e-6 && c.normal == [1.0, 0.0], "{c:?}");
    assert_eq!(lists.of(1)[0].normal, [-1.0, 0.0]);
    assert_eq!(lists.of(1)[0].gap, c.gap);
    // The diagnostics measure the overlap through the boundary too.
    let lists = lists.clone();
    let region = Region {
        gravity: p.gravity,
        neck_y: 0.0,
        bbox: [XMIN, -1.0, XMAX, 1.0],
        period: XMAX - XMIN,
    };
    let totals = reduce(&g, &lists, &walls, &region);
    assert!(
        (totals.max_overlap - f64::from(d)).abs() < 1e-6,
        "{}",
        totals.max_overlap
    );
    assert_eq!(totals.lost, 0);
    for _ in 0..5 {
        s.step(&mut g, &walls, &p).unwrap();
    }
    check_pushed_apart(&g, -d, "nlgs");
}

#[test]
fn grains_overlapping_through_the_boundary_are_pushed_apart_under_the_dem() {
    let (r, d) = (0.003, 2e-4);
    let dem = DemParams::default();
    let alert = 0.001;
    for listed in [false, true] {
        let mut g = across(r, d);
        let mut p = common::params(SolverKind::Dem);
        p.gravity = [0.0, 0.0];
        p.alert = alert;
        p.dt = dem_dt(&g, f64::from(dem.kn), 0.1) as f32;
        let mut s = DemStepper::new(periodic_grid(r, alert), 16, dem);
        let walls = Walls::default();
        for _ in 0..20 {
            if listed {
                s.step_listed(&mut g, &walls, &p);
            } else {
                s.step(&mut g, &walls, &p);
            }
        }
        check_pushed_apart(&g, -d, if listed { "dem (lists)" } else { "dem" });
    }
}

#[test]
fn a_pile_on_a_periodic_floor_settles_inside_the_period() {
    for solver in ["nlgs", "dem"] {
        let (summary, g) = run(&format!(
            "{PERIOD}[solver]\nkind = \"{solver}\"\n[grains]\ncount = 40\nregion = [-0.05, 0.002, 0.05, 0.04]\n\
             [run]\nduration = 0.3\nevery = 50\n"
        ));
        assert_eq!((summary.lost_grains, summary.grains), (0, 40), "{solver}");
        inside_period(&g);
        let period = XMAX - XMIN;
        let mut across = 0;
        for i in 0..g.len() {
            assert!(
                g.pos[i][1] > 0.0 && g.pos[i][1] < 0.04,
                "{solver}: grain {i} at {:?}",
                g.pos[i]
            );
            for j in 0..i {
                let dx = g.pos[i][0] - g.pos[j][0];
                let wrapped = dx - period * (dx / period).round();
                let gap = wrapped.hypot(g.pos[i][1] - g.pos[j][1]) - g.radius[i] - g.radius[j];
                // No pair sinks into another, through the boundary or not.
                assert!(
                    gap > -0.1 * g.radius[i],
                    "{solver}: grains {i}, {j} overlap by {}",
                    -gap
                );
                across += usize::from(wrapped != dx && gap < 1e-4);
            }
        }
        assert!(across > 0, "{solver}: no grains touch through the boundary");
    }
}

fn refused(text: &str) -> String {
    match setup(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_periodic_boundaries_are_refused_naming_the_key() {
    let grain = "[grains]\nlist = [[0.0, 0.01, 0.0, 0.0, 0.003]]\n";
    let floor = "[walls]\nsegments = [[-0.08, 0.0, 0.08, 0.0]]\n";
    for (bounds, says) in [
        ("[nan, 0.05]", "walls.periodic_x[0]"),
        ("[-0.05, inf]", "walls.periodic_x[1]"),
        ("[0.05, -0.05]", "xmin < xmax"),
        ("[0.05, 0.05]", "xmin < xmax"),
        ("[-0.003, 0.004]", "diameter plus solver.alert"),
        ("[-0.01, 0.01]", "3 contact cells"),
        ("[0.001, 0.05]", "outside the period"),
        ("[-0.05, 0.0]", "outside the period"),
    ] {
        let e = refused(&format!("{floor}periodic_x = {bounds}\n{grain}"));
        assert!(e.contains("walls.periodic_x") && e.contains(says), "{bounds}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    let e = refused(&format!(
        "{floor}periodic_x = [-0.05, 0.05]\n[grains]\ncount = 10\nregion = [-0.06, 0.002, 0.0, 0.03]\n"
    ));
    assert!(
        e.contains("walls.periodic_x") && e.contains("outside the period"),
        "{e}"
    );
    let e = refused(&format!("{floor}periodic_x = [-0.05, 0.05, 0.1]\n{grain}"));
    assert!(e.contains("walls.periodic_x"), "{e}");
    let e = refused(&format!(
        "{floor}periodic_x = [-0.05, 0.05]\n{grain}[solver]\nkind = \"crowd\"\n"
    ));
    assert!(e.contains("walls.periodic_x") && e.contains("crowd"), "{e}");
}

/// Periodic boundaries run on both backends: no backend choice refuses a
/// periodic scene of a model the GPU runs, and `auto` does not fall back to
/// the CPU for the period (tests/gpu_periodic.rs runs them on the GPU).
#[test]
fn periodic_boundaries_are_refused_by_no_backend() {
    for solver in ["jacobi", "colored", "uzawa", "apgd", "dem", "spring"] {
        let s = setup(&format!(
            "{PERIOD}[solver]\nkind = \"{solver}\"\n[grains]\nlist = [[0.0, 0.01, 0.0, 0.0, 0.003]]\n"
        ))
        .unwrap();
        for choice in [BackendChoice::Gpu, BackendChoice::Auto, BackendChoice::Cpu] {
            refuse_unrunnable(&s, choice).unwrap_or_else(|e| panic!("{solver} on {choice:?}: {e}"));
        }
        let grid = grid_for(&s).unwrap();
        let mut notices = Vec::new();
        hourglass::backend::select(
            &s,
            grid,
            BackendChoice::Auto,
            hourglass::backend::Device::Open,
            &mut notices,
        )
        .unwrap();
        assert!(!notices.iter().any(|n| n.contains("periodic")), "{solver}: {notices:?}");
    }
}

#[test]
fn stated_bounds_that_meet_the_period_hold_it() {
    // 0.09 rounds up in single precision: the bounds are compared as the walls are.
    let s = hourglass::scene::build(
        &hourglass::scene::Scene::parse(
            "version = 1\n[walls]\nsegments = [[0.0, 0.0, 0.09, 0.0]]\nperiodic_x = [0.0, 0.09]\nbounds = [0.0, -0.01, 0.09, 0.5]\n[grains]\nlist = [[0.045, 0.003, 0.0, 0.0, 0.003]]\n",
            std::path::Path::new("chute.toml"),
        )
        .unwrap(),
    );
    assert!(s.is_ok(), "{}", s.err().unwrap());
}

/// A periodic run writes periodic.vtp, listed in `.hourglass-result`: the
/// seams x = xmin and x = xmax over the bounds in y, read back as walls.vtp
/// is; a run that is not periodic writes none.
#[test]
fn a_periodic_run_writes_its_seams_for_paraview_and_only_a_periodic_run() {
    let tmp = tempfile::tempdir().unwrap();
    for periodic in [true, false] {
        let walls = if periodic {
            PERIOD.to_string()
        } else {
            "[walls]\nsegments = [[-0.08, 0.0, 0.08, 0.0]]\n".to_string()
        };
        let setup = setup(&format!(
            "gravity = [0.0, 0.0]\n{walls}[grains]\nlist = [[0.0, 0.008, 0.0, 0.0, 0.003]]\n[run]\nsteps = 4\nevery = 2\n"
        ))
        .unwrap();
        let grid = grid_for(&setup).unwrap();
        let mut backend = cpu_backend(&setup, grid);
        let out = tmp.path().join(format!("out-{periodic}"));
        let mut dir = ResultDir::create(&out, &setup.scene.to_toml()).unwrap();
        sim::run(&setup, backend.as_mut(), &mut dir, &mut sim::Silent).unwrap();
        let path = out.join(hourglass::output::PERIODIC);
        let listed = std::fs::read_to_string(out.join(hourglass::output::MANIFEST)).unwrap();
        if periodic {
            let rect = setup.bounds.rect;
            let seams = hourglass::output::read::walls_file(&path).unwrap();
            let want = Walls::new(&[
                [
                    [f64::from(XMIN), f64::from(rect[1])],
                    [f64::from(XMIN), f64::from(rect[3])],
                ],
                [
                    [f64::from(XMAX), f64::from(rect[1])],
                    [f64::from(XMAX), f64::from(rect[3])],
                ],
            ]);
            assert_eq!(seams.segments, want.segments);
            assert!(rect[3] > rect[1]);
            assert!(listed.lines().any(|l| l == "periodic.vtp"), "{listed}");
            assert_eq!(hourglass::output::read::period(&out).unwrap(), Some([XMIN, XMAX]));
        } else {
            assert!(
                std::fs::symlink_metadata(&path).is_err(),
                "periodic.vtp without a period"
            );
            assert!(!listed.contains("periodic"), "{listed}");
            assert_eq!(hourglass::output::read::period(&out).unwrap(), None);
        }
    }
}
