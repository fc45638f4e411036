//! Accuracy stated as overlap: `solver.max_overlap` keeps the run's largest
//! overlap under its share of the mean radius by adapting the tolerance,
//! summary.json says what it aimed at and the tolerances it used, and the
//! key is refused where it cannot act (docs/nscd.md#accuracy-as-overlap).

mod common;

use hourglass::model::SolverKind;
use hourglass::model::accuracy::OverlapTarget;
use hourglass::output::Summary;
use hourglass::scene::{Scene, build};
use hourglass::sim;

/// A 600-grain bundled hourglass discharging for 0.6 s on the CPU.
fn scene() -> Scene {
    let mut scene = Scene::default();
    scene.grains.count = 600;
    scene.run.duration = Some(0.6);
    scene
}

fn run(scene: &Scene) -> Summary {
    let dir = tempfile::tempdir().unwrap();
    let summary = common::run_on_cpu(scene, dir.path(), &mut sim::Silent).1.unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(written["max_overlap_target"].as_f64(), summary.max_overlap_target);
    summary
}

fn percent(s: &Summary) -> f64 {
    100.0 * s.max_overlap / s.radius_mean
}

#[test]
fn the_largest_overlap_stays_under_the_target_that_a_fixed_tol_overshoots() {
    let mut fixed = scene();
    fixed.solver.tol = Some(5e-6);
    let loose = run(&fixed);
    assert_eq!(loose.max_overlap_target, None);
    assert_eq!(loose.tol_range, [f64::from(5e-6f32); 2]);

    let mut aimed = scene();
    aimed.solver.max_overlap = Some(0.004);
    let held = run(&aimed);
    println!(
        "tol 5e-6: {:.3} % of r at {:.1} iterations; max_overlap 0.4 %: {:.3} % at {:.1} iterations, tol in {:?} m",
        percent(&loose),
        loose.mean_iterations,
        percent(&held),
        held.mean_iterations,
        held.tol_range
    );
    // The scene needs the control: the loose fixed tolerance overshoots 0.4 %.
    assert!(percent(&loose) > 0.4, "{} %", percent(&loose));
    assert!(percent(&held) <= 0.4, "{} %", percent(&held));
    assert_eq!(held.max_overlap_target, Some(0.004));
    let target = OverlapTarget::new(0.004, held.radius_mean);
    let [lo, hi] = held.tol_range;
    // It started at tol_hi and stayed within the range.
    assert!(
        (hi - f64::from(target.tol_hi())).abs() < 1e-3 * hi,
        "{hi} against {}",
        target.tol_hi()
    );
    assert!(lo >= f64::from(target.tol_lo()) * 0.999, "{lo}");
    assert_eq!(held.lost_grains, 0);
    assert!(held.passed > 300, "{} passed", held.passed);
}

#[test]
fn a_target_no_solve_can_meet_tightens_tol_within_its_range() {
    let mut aimed = scene();
    aimed.run.duration = Some(0.1);
    // 0.01 % of the radius: every step overshoots, so the run tightens 10 %
    // a step towards tol_lo (and loosens again after a step at itmax).
    aimed.solver.max_overlap = Some(1e-4);
    let s = run(&aimed);
    let target = OverlapTarget::new(1e-4, s.radius_mean);
    let [lo, hi] = s.tol_range;
    assert!((hi - f64::from(target.tol_hi())).abs() < 1e-3 * hi, "{hi}");
    assert!(
        lo <= 0.9001 * hi && lo >= 0.999 * f64::from(target.tol_lo()),
        "{lo} in [{}, {hi}]",
        target.tol_lo()
    );
}

#[test]
fn the_default_nscd_run_aims_at_one_percent_and_keeps_it() {
    let s = run(&scene());
    assert_eq!(s.max_overlap_target, Some(0.01));
    assert!(percent(&s) <= 1.0, "{} %", percent(&s));
    let built = build(&scene()).unwrap();
    assert_eq!(
        built.scene.solver.max_overlap,
        Some(0.01),
        "the resolved scene writes the default out"
    );
    assert_eq!(built.params.tol, built.overlap_target.unwrap().tol_hi());
}

#[test]
fn max_overlap_is_refused_beside_tol_out_of_range_and_for_models_without_an_nscd_solve() {
    let refused = |edit: &dyn Fn(&mut Scene), words: &[&str]| {
        let mut s = scene();
        edit(&mut s);
        let Err(e) = build(&s) else { panic!("accepted") };
        let e = e.to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains("`solver.max_overlap`"), "{e}");
        for w in words {
            assert!(e.contains(w), "`{w}` in: {e}");
        }
    };
    refused(
        &|s| {
            s.solver.tol = Some(1e-6);
            s.solver.max_overlap = Some(0.01);
        },
        &["not both"],
    );
    refused(&|s| s.solver.max_overlap = Some(0.6), &["(0, 0.5]", "0.6"]);
    refused(&|s| s.solver.max_overlap = Some(0.0), &[]);
    refused(&|s| s.solver.max_overlap = Some(f64::NAN), &[]);
    for kind in [SolverKind::Dem, SolverKind::Spring, SolverKind::Impulse] {
        refused(
            &|s| {
                s.solver.kind = kind;
                s.solver.max_overlap = Some(0.01);
            },
            &[kind.name()],
        );
    }
    // Unset, the explicit models adapt nothing and write no target.
    let mut dem = scene();
    dem.solver.kind = SolverKind::Dem;
    let built = build(&dem).unwrap();
    assert_eq!(built.overlap_target, None);
    assert_eq!(built.scene.solver.max_overlap, None);
}

#[test]
fn a_scene_file_with_both_keys_is_refused_naming_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("both.toml");
    std::fs::write(&path, "version = 1\n[solver]\ntol = 2e-6\nmax_overlap = 0.01\n").unwrap();
    let Err(e) = Scene::load(&path).and_then(|s| build(&s).map(|_| ())) else {
        panic!("accepted")
    };
    let e = e.to_string();
    assert!(e.contains("both.toml") && e.contains("solver.max_overlap"), "{e}");
}
