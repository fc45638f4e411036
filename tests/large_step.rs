//! no grain is ever lost to the step size. The bundled 2,000-grain
//! hourglass with the gate open from the start (`run.settle = 0`) discharges
//! for 1 s on the CPU with steps of 5 ms and 10 ms; before the substeps
//! (`backend::substep`) the 5 ms run lost 1,827 grains through the walls.
//! Each run must keep every grain, complete, and pass a fair share of what
//! the default step passes in the same second (measured below); and it must
//! be the substeps that saved it.
//!
//! Every run uses tol = 1e-5 m and itmax = 200 instead of 1e-6 and 1000:
//! what is tested is contact detection, not the solver's precision, and the
//! looser tolerance (still 0.3% of a mean radius) keeps the four discharges
//! to about a minute on two cores.

mod common;

use hourglass::backend::{MAX_SUBSTEPS, substep};
use hourglass::output::Summary;
use hourglass::scene::{Scene, build};
use hourglass::sim::Observer;

/// Grains past the neck after 1 s at the default dt (1e-3 s), this scene
/// (the bundled hourglass, neck 6.5 diameters) and these tolerances,
/// measured on the CPU (NLGS): 928 of 2,000. A longer step changes the
/// collisions, not the flow: the 10 ms run passed 930, the 50 ms run 931
/// with a 4 mm alert and 901 with 8 mm (with the former 4-diameter neck: 427
/// at the default step, 453 at 10 ms, 398 at 5 ms with a 2 cm alert). Half
/// the default is the floor. What the longer steps cost is accuracy: the
/// largest overlap was 4.4e-5 m (1.5 % of the mean radius) at 1 ms, 1.3e-4 m
/// at 10 ms, 2.2e-4 m at 50 ms (4 mm alert) and 1.1e-3 m (8 mm alert).
const PASSED_AT_DEFAULT_DT: u64 = 928;

/// Keeps the notices of a run.
#[derive(Default)]
struct Notices(Vec<String>);

impl Observer for Notices {
    fn notice(&mut self, msg: &str) {
        self.0.push(msg.to_string());
    }
}

/// The bundled hourglass, gate open from the start, 1 s of discharge.
fn scene(dt: Option<f64>) -> Scene {
    let mut scene = Scene::default();
    scene.run.settle = 0.0;
    scene.run.duration = Some(1.0);
    scene.solver.dt = dt;
    scene.solver.tol = Some(1e-5);
    scene.solver.itmax = 200;
    scene
}

fn discharge(scene: &Scene) -> (Summary, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut notices = Notices::default();
    let (setup, s) = common::run_on_cpu(scene, dir.path(), &mut notices);
    let s = s.expect("no grain is lost");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(written["subdivided_steps"], s.subdivided_steps);
    assert_eq!(written["max_substeps"], s.max_substeps);
    println!(
        "dt {:.0e} s, alert {} m: {} steps ({} split, up to {} substeps), {} passed, {} lost, \
         mean iterations {:.1}, itmax steps {}, overflow {}, alert exceeded {}, max overlap {:.2e} m, {:.1} s wall",
        setup.params.dt,
        setup.params.alert,
        s.steps,
        s.subdivided_steps,
        s.max_substeps,
        s.passed,
        s.lost_grains,
        s.mean_iterations,
        s.itmax_steps,
        s.contact_overflow,
        s.alert_exceeded_steps,
        s.max_overlap,
        s.wall_seconds
    );
    (s, notices.0)
}

/// What every large-step run must show: nothing lost, every step taken, a
/// fair flow, no grain moved past the alert distance, and the substeps at
/// work (said once, as a notice).
/// `split`: the run is expected to need substeps (with a wide alert, 5e-3 s
/// steps stay under it until grains pass 3.15 m/s, which they may not reach
/// in one second: the wide alert is what keeps that run safe).
fn check_saved(s: &Summary, notices: &[String], dt: f64, split: bool) {
    assert_eq!(s.lost_grains, 0, "dt {dt}: grains lost");
    assert!(s.completed, "dt {dt}: the run stopped early");
    assert_eq!(
        s.steps,
        (1.0 / dt).round() as u64,
        "dt {dt}: steps are counted per outer step"
    );
    assert!(
        s.passed > PASSED_AT_DEFAULT_DT / 2,
        "dt {dt}: {} passed, under half of {PASSED_AT_DEFAULT_DT} at the default dt",
        s.passed
    );
    // A grain can leave a collision faster than 1.25x the fastest speed of
    // the step before (the substep margin); such a step is warned about and
    // counted. It must stay rare (measured: 1 of 100 steps at dt 1e-2); the
    // contract is that nothing is lost.
    assert!(
        s.alert_exceeded_steps * 20 <= s.steps,
        "dt {dt}: {} of {} steps moved past alert",
        s.alert_exceeded_steps,
        s.steps
    );
    let notes: Vec<_> = notices.iter().filter(|n| n.contains("split into")).collect();
    if split {
        assert!(s.subdivided_steps > 0, "dt {dt}: no step was split");
        assert!(
            (2..=MAX_SUBSTEPS).contains(&s.max_substeps),
            "dt {dt}: {}",
            s.max_substeps
        );
        assert_eq!(
            notes.len(),
            1,
            "dt {dt}: one notice for the first split step: {notices:?}"
        );
    } else {
        assert_eq!(notes.len(), usize::from(s.subdivided_steps > 0), "{notices:?}");
    }
}

/// The run: dt = 5 ms with alert = 2 cm. An alert band over three
/// mean diameters holds dozens of neighbours per grain, more than the
/// default 32 contact slots: with 32, contacts overflow from step 1 and 819
/// grains are lost by step 100 even with the substeps (measured), whatever
/// the step. So this run takes the largest capacity, 64, under which only
/// the densest lists still overflow now and then (measured: 178,502 dropped
/// contacts over the run against about 48,000 potential contacts a step)
/// and nothing is lost. The slowest run here (77 s on two cores): 50,000
/// potential contacts a step, most steps at itmax.
#[test]
fn five_millisecond_steps_with_a_wide_alert_lose_nothing() {
    let mut scene = scene(Some(5e-3));
    scene.solver.alert = 0.02;
    scene.solver.contact_capacity = 64;
    let (s, notices) = discharge(&scene);
    check_saved(&s, &notices, 5e-3, false);
}

/// dt = 10 ms with the default alert (4 mm): ten times the default step.
#[test]
fn ten_millisecond_steps_lose_nothing() {
    let (s, notices) = discharge(&scene(Some(1e-2)));
    check_saved(&s, &notices, 1e-2, true);
    assert_eq!(s.contact_overflow, 0);
}

/// Huge time steps: dt = 50 ms, fifty times the default,
/// loses nothing and passes within 20 % of what the default step passes
/// (the substeps follow the fastest grain). What breaks first as dt grows:
/// with the default alert (4 mm) the fastest grains, 3.8 m/s into the lower
/// bulb, need up to 68 substeps at 50 ms (57 in another run of the same
/// scene: the flow is chaotic), more than MAX_SUBSTEPS, and the run stops
/// with a one-line error (`Error::StepTooLong`) before any grain is lost.
/// So this scene widens the alert to 8 mm (about 34 substeps). The scene is
/// scenes/huge_step.toml, which the README names: it must be this test's.
#[test]
fn fifty_times_the_default_step_loses_nothing_and_keeps_the_flow() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/huge_step.toml");
    let file = Scene::load(&path).unwrap();
    let mut scene = scene(Some(5e-2));
    scene.solver.alert = 0.008;
    scene.run.every = file.run.every;
    scene.run.out = file.run.out.clone();
    scene.origin = file.origin.clone();
    // Compared resolved (every default written out), as `hourglass run` writes scene.toml.
    let resolved = |s: &Scene| build(s).unwrap().scene.to_toml();
    assert_eq!(
        resolved(&file),
        resolved(&scene),
        "scenes/huge_step.toml is not the tested scene"
    );
    let (s, notices) = discharge(&file);
    check_saved(&s, &notices, 5e-2, true);
    let base = PASSED_AT_DEFAULT_DT as f64;
    assert!(
        (s.passed as f64 - base).abs() <= 0.2 * base,
        "{} passed against {PASSED_AT_DEFAULT_DT} at the default step",
        s.passed
    );
}

/// The default step is built so that one grain falling the walls' half
/// height moves 80% of alert a step (`scene::laws::default_dt`); two such
/// grains head-on, or one that fell farther (into the lower bulb, up to
/// 3-4 m/s here), close faster than that, so the fall is split too, but
/// into few substeps: no grain can outrun a fall from the top of the walls.
#[test]
fn default_steps_are_split_only_as_far_as_the_fall_needs() {
    let scene = scene(None);
    let setup = build(&scene).unwrap();
    let p = setup.params;
    let b = setup.walls(true).bounding_box();
    let fall = (2.0 * 9.81 * f64::from(b[3] - b[1])).sqrt() as f32;
    let bound = substep::substeps(fall, p.gravity, p.dt, p.alert);
    let (s, notices) = discharge(&scene);
    assert_eq!(s.lost_grains, 0);
    assert!(s.completed);
    assert_eq!((s.alert_exceeded_steps, s.contact_overflow), (0, 0));
    assert!(
        s.passed > PASSED_AT_DEFAULT_DT * 9 / 10,
        "{} passed, the measured {PASSED_AT_DEFAULT_DT}",
        s.passed
    );
    assert!(
        (1..=bound).contains(&s.max_substeps),
        "{} substeps, more than a fall of {fall} m/s needs ({bound})",
        s.max_substeps
    );
    let split = notices.iter().filter(|n| n.contains("split into")).count();
    assert_eq!(split, usize::from(s.subdivided_steps > 0), "{notices:?}");
}
