//! Open walls: a scene need not enclose its grains. What counts as lost is
//! a grain more than its radius outside the bounds: `walls.bounds` where a
//! scene states them, the walls' bounding box where the walls hold the
//! grains in a closed outline, else the box around the walls, the grains
//! and the emitters widened on every side. An open segment may hold its
//! grains on one side only (`walls.solid_side`), as a floor does.

#[path = "gpu_common/mod.rs"]
mod gpu_common;

use std::path::Path;

use hourglass::Error;
use hourglass::backend::{check_initial_state, cpu_backend, grid_for};
use hourglass::model::Grains;
use hourglass::output::{ResultDir, Summary};
use hourglass::scene::{Scene, Setup, build};
use hourglass::sim;

/// An open floor 4 m long, the length of the derived margin.
const FLOOR: &str = "[walls]\nsegments = [[-1.0, 0.0, 3.0, 0.0]]\n";

fn setup(text: &str) -> hourglass::Result<Setup> {
    build(&Scene::parse(&format!("version = 1\n{text}"), Path::new("open.toml"))?)
}

/// Build, check and run `text` on the CPU; the run's outcome, the grains at
/// its end and the directory that holds its results in `out`.
fn run(text: &str) -> (hourglass::Result<Summary>, Grains, tempfile::TempDir) {
    let setup = setup(text).unwrap();
    let grid = grid_for(&setup).unwrap();
    check_initial_state(&setup, &grid).unwrap();
    let mut backend = cpu_backend(&setup, grid);
    let dir = tempfile::tempdir().unwrap();
    let mut out = ResultDir::create(&dir.path().join("out"), &setup.scene.to_toml()).unwrap();
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent);
    (summary, backend.grains().unwrap().clone(), dir)
}

/// The start of the error a run stops with when grains are lost.
fn lost(err: &Error) -> Option<(u64, String)> {
    match err {
        Error::Diverged { step, problem } if problem.contains("lost through the walls") => {
            Some((*step, problem.clone()))
        }
        _ => None,
    }
}

#[test]
fn a_grain_resting_on_an_open_floor_runs_and_is_not_lost() {
    let (summary, g, _) = run(&format!(
        "{FLOOR}[grains]\nlist = [[0.0, 0.003, 0.0, 0.0, 0.003]]\n[run]\nduration = 0.2\nevery = 10\n"
    ));
    let summary = summary.unwrap();
    assert_eq!((summary.lost_grains, summary.grains), (0, 1));
    // It stays where it rests: on the floor, its centre one radius above it.
    assert!((g.pos[0][1] - 0.003).abs() < 1e-4, "y = {}", g.pos[0][1]);
    assert!(g.pos[0][0].abs() < 1e-6, "x = {}", g.pos[0][0]);
}

#[test]
fn a_grain_dropped_onto_an_open_floor_lands_and_stays() {
    let (summary, g, _) = run(&format!(
        "{FLOOR}[grains]\nlist = [[0.0, 0.1, 0.0, 0.0, 0.003]]\n[run]\nduration = 0.5\nevery = 10\n"
    ));
    let summary = summary.unwrap();
    assert_eq!((summary.lost_grains, summary.grains), (0, 1));
    // It fell 0.1 m in 0.14 s and has rested on the floor since.
    assert!((g.pos[0][1] - 0.003).abs() < 1e-4, "y = {}", g.pos[0][1]);
    assert!(g.vel[0][1].abs() < 1e-3, "vy = {}", g.vel[0][1]);
}

#[test]
fn a_ball_bounced_up_from_an_open_floor_rises_back_and_is_not_lost() {
    // An elastic spring (no dashpot, 0.4 mm into the floor at most): the
    // ball dropped from 0.1 m comes back up to nearly 0.1 m, far above the
    // floor's zero-height box, at each bounce.
    let (summary, _, dir) = run(&format!(
        "{FLOOR}[grains]\nlist = [[0.0, 0.1, 0.0, 0.0, 0.003]]\n\
         [solver]\nkind = \"spring\"\ndt = 1e-5\n[spring]\nks = 1e6\nkd = 0.0\n\
         [run]\nduration = 0.5\nevery = 100\n"
    ));
    let summary = summary.unwrap();
    assert_eq!((summary.lost_grains, summary.grains), (0, 1));
    // Down in 0.143 s, up again by 0.286 s: the highest frame after the bounce.
    let frames = hourglass::output::read::frames(&dir.path().join("out")).unwrap();
    let top = frames
        .iter()
        .filter(|(t, _)| *t > 0.2)
        .map(|(_, p)| hourglass::output::read::grains(p).unwrap().pos[0][1])
        .fold(f32::MIN, f32::max);
    assert!((top - 0.1).abs() < 1e-3, "highest after the bounce {top} m");
}

#[test]
fn a_grain_off_the_end_of_an_open_floor_is_lost_past_the_derived_bounds() {
    // It slides off the end at x = 3 at 2 m/s. The bounds are the box
    // around the floor and the grain, [-1, 0, 3, 0.003], widened by its
    // width 4 m on every side: lost once the centre is below -4.003 - r,
    // a fall of 4.009 m that takes 0.904 s after it leaves the floor at
    // t = 0.045 s, so at the first row after t = 0.949 s, not before.
    let (summary, _, _) = run(&format!(
        "{FLOOR}[grains]\nlist = [[2.91, 0.003, 2.0, 0.0, 0.003]]\n[solver]\ndt = 1e-3\n[run]\nduration = 2.0\nevery = 10\n"
    ));
    let err = summary.unwrap_err();
    let (step, problem) = lost(&err).unwrap_or_else(|| panic!("{err}"));
    assert!(problem.starts_with("1 of 1 grains lost through the walls"), "{problem}");
    assert!((950..=970).contains(&step), "lost at step {step}");
    // The binary says so in one line and fails.
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("off.toml");
    let text = format!(
        "version = 1\n{FLOOR}[grains]\nlist = [[2.91, 0.003, 2.0, 0.0, 0.003]]\n[solver]\ndt = 1e-3\n[run]\nduration = 2.0\nevery = 10\n"
    );
    std::fs::write(&scene, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .current_dir(dir.path())
        .args(["run", "off.toml", "--quiet", "--backend", "cpu", "--out", "res"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("hourglass: step {step}: 1 of 1 grains lost through the walls")),
        "{stderr}"
    );
}

#[test]
fn the_bounds_are_stated_the_walls_box_of_a_closed_outline_or_derived() {
    let grain = "[grains]\nlist = [[0.0, 0.1, 0.0, 0.0, 0.003]]\n";
    // Open floor: the box [-1, 0, 3, 0.1] widened by 4 m.
    let open = setup(&format!("{FLOOR}{grain}")).unwrap();
    assert_eq!(open.region().bbox, [-5.0, -4.0, 7.0, 4.1]);
    // A closed box: its own bounding box, as the walls hold the grains.
    let boxed = "[walls]\nsegments = [[-1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, -1.0, 1.0], [-1.0, 1.0, -1.0, 0.0]]\n";
    let closed = setup(&format!("{boxed}{grain}")).unwrap();
    assert_eq!(closed.region().bbox, [-1.0, 0.0, 1.0, 1.0]);
    // Stated bounds win over both.
    let stated = setup(&format!("{}bounds = [-2.0, -0.5, 4.0, 1.0]\n{grain}", FLOOR)).unwrap();
    assert_eq!(stated.region().bbox, [-2.0, -0.5, 4.0, 1.0]);
}

#[test]
fn a_grain_listed_outside_a_closed_box_is_refused_as_before() {
    let boxed = "[walls]\nsegments = [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]\n";
    // A grain listed outside the box is refused at the start.
    let s = setup(&format!(
        "{boxed}[grains]\nlist = [[0.5, 0.5, 0.0, 0.0, 0.01], [1.2, 0.5, 0.0, 0.0, 0.01]]\n"
    ))
    .unwrap();
    let err = check_initial_state(&s, &grid_for(&s).unwrap()).unwrap_err().to_string();
    assert!(err.starts_with("open.toml: "), "{err}");
    assert!(err.contains("grains.list[1]"), "{err}");
    assert!(
        err.ends_with("grain 1 starts at (1.2, 0.5), outside the walls' bounding box"),
        "{err}"
    );
}

#[test]
fn walls_bounds_must_be_finite_ordered_and_hold_the_walls_and_the_grains() {
    let grain = "[grains]\nlist = [[0.0, 0.1, 0.0, 0.0, 0.003]]\n";
    let err = |bounds: &str| {
        setup(&format!("{FLOOR}bounds = {bounds}\n{grain}"))
            .unwrap_err()
            .to_string()
    };
    assert!(
        err("[-2.0, -1.0, nan, 1.0]").contains("walls.bounds"),
        "{}",
        err("[-2.0, -1.0, nan, 1.0]")
    );
    assert!(
        err("[4.0, -1.0, -2.0, 1.0]").contains("walls.bounds"),
        "{}",
        err("[4.0, -1.0, -2.0, 1.0]")
    );
    assert!(
        err("[-2.0, -1.0, 4.0]").contains("walls.bounds"),
        "{}",
        err("[-2.0, -1.0, 4.0]")
    );
    // The floor reaches x = 3.
    assert!(
        err("[-2.0, -1.0, 2.0, 1.0]").contains("walls.bounds"),
        "{}",
        err("[-2.0, -1.0, 2.0, 1.0]")
    );
    // Grains outside stated bounds are refused at the start.
    let s = setup(&format!("{FLOOR}bounds = [-2.0, -1.0, 4.0, 0.05]\n{grain}")).unwrap();
    let e = check_initial_state(&s, &grid_for(&s).unwrap()).unwrap_err().to_string();
    assert!(e.contains("grains.list[0]"), "{e}");
    assert!(e.ends_with("grain 0 starts at (0, 0.1), outside walls.bounds"), "{e}");
}

#[test]
fn solid_side_must_name_a_side_for_the_segments() {
    let grain = "[grains]\nlist = [[0.0, 0.1, 0.0, 0.0, 0.003]]\n";
    let err = |side: &str| {
        setup(&format!("{FLOOR}solid_side = {side}\n{grain}"))
            .unwrap_err()
            .to_string()
    };
    for bad in ["\"up\"", "1.0", "[\"left\", \"right\"]", "[\"left\", 2]"] {
        let e = err(bad);
        assert!(e.contains("walls.solid_side"), "{bad}: {e}");
    }
    let hourglass = setup("[walls]\nsolid_side = \"left\"\n[grains]\ncount = 10\n")
        .unwrap_err()
        .to_string();
    assert!(hourglass.contains("walls.solid_side"), "{hourglass}");
    // Both forms are read and written back.
    for good in ["\"left\"", "[\"right\"]", "\"both\""] {
        let s = setup(&format!("{FLOOR}solid_side = {good}\n{grain}")).unwrap();
        let again = Scene::parse(&s.scene.to_toml(), Path::new("again.toml")).unwrap();
        assert_eq!(again.walls.solid_side, s.scene.walls.solid_side);
    }
}

/// A grain of 10 g and radius 1 cm at 1 m/s into a soft floor (k_s = 40
/// N/m): it stops 1.58 cm into it, its centre 0.58 cm past the floor's line.
fn soft_landing(side: &str) -> (hourglass::Result<Summary>, Grains, tempfile::TempDir) {
    run(&landing_text(side))
}

/// The scene of [`soft_landing`], the floor's `side` key given.
fn landing_text(side: &str) -> String {
    format!(
        "[walls]\nsegments = [[-1.0, 0.0, 3.0, 0.0]]\nbounds = [-2.0, -0.5, 4.0, 1.0]\n{side}\
         [grains]\nlist = [[0.0, 0.0105, 0.0, -1.0, 0.01, 0.01]]\n\
         [solver]\nkind = \"spring\"\ndt = 1e-4\nalert = 0.02\n\
         [spring]\nks = 40.0\nkd = 0.0\n[run]\nduration = 0.6\nevery = 100\n"
    )
}

#[test]
fn a_one_sided_floor_holds_a_grain_pushed_through_it_and_a_two_sided_one_loses_it() {
    let (two_sided, _, _) = soft_landing("");
    let err = two_sided.unwrap_err();
    assert!(lost(&err).is_some(), "{err}");
    let (one_sided, g, _) = soft_landing("solid_side = \"left\"\n");
    let summary = one_sided.unwrap();
    assert_eq!(summary.lost_grains, 0);
    assert!(summary.max_overlap > 0.0105, "max overlap {} m", summary.max_overlap);
    // Sent back up, above the floor, at about the speed it came in with.
    assert!(g.pos[0][1] > 0.0, "y = {}", g.pos[0][1]);
}

/// The soft landing on the GPU, step for step with the CPU: the GPU's
/// detection reads an open segment's solid side as the CPU's does, so the
/// one-sided floor sends the grain back up and the two-sided one lets it
/// through, on both.
#[test]
fn the_gpu_holds_a_grain_on_the_solid_side_of_an_open_floor_as_the_cpu_does() {
    use hourglass::backend::{Device, select};
    use hourglass::scene::BackendChoice;
    if gpu_common::context().is_none() {
        return;
    }
    for (side, above) in [("solid_side = \"left\"\n", true), ("", false)] {
        let s = setup(&landing_text(side)).unwrap();
        let grid = grid_for(&s).unwrap();
        let mut cpu = cpu_backend(&s, grid);
        let mut gpu = select(&s, grid, BackendChoice::Gpu, Device::Open, &mut Vec::new()).unwrap();
        // 70 ms: in at 1 m/s, 1.58 cm deep at 25 ms and out again at 50 ms
        // (half a period pi sqrt(m / k_s)), or through the line at 11 ms.
        for _ in 0..700 {
            cpu.step(&s.params).unwrap();
            gpu.step(&s.params).unwrap();
        }
        let (c, g) = (cpu.grains().unwrap().clone(), gpu.grains().unwrap().clone());
        let (y, vy) = (g.pos[0][1], g.vel[0][1]);
        assert!(
            (y - c.pos[0][1]).abs() < 1e-5,
            "{side:?}: gpu y {y}, cpu y {}",
            c.pos[0][1]
        );
        assert!(
            (vy - c.vel[0][1]).abs() < 1e-3,
            "{side:?}: gpu vy {vy}, cpu vy {}",
            c.vel[0][1]
        );
        if above {
            assert!(y > 0.01 && vy > 0.5, "one-sided: y {y}, vy {vy}");
        } else {
            assert!(y < -0.01 && vy < -0.5, "two-sided: y {y}, vy {vy}");
        }
    }
}

/// The lab's fed column with its soft spring, `--ks 4000`: 120 particles of
/// 0.6 m dropped from 75 m onto a floor held from above. Two-sided, the
/// floor let the bottom particle through at step 11,400 (its overlap
/// passed its radius); one-sided, the column keeps every particle to the end.
#[test]
fn the_fed_column_with_soft_springs_keeps_every_particle() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/column_fed.toml");
    let mut scene = Scene::load(&path).unwrap();
    scene.spring.ks = 4000.0;
    // Its 20 s and 40 s more, to average the bottom overlap over the slow
    // sway of the column (its lowest mode, 2 sqrt(k_s / m) sin(pi / 482) =
    // 0.82 rad/s, a period of 7.6 s, damps over about a minute).
    scene.run.duration = Some(60.0);
    scene.run.backend = hourglass::scene::BackendChoice::Cpu;
    let dir = tempfile::tempdir().unwrap();
    scene.run.out = dir.path().join("out");
    let setup = build(&scene).unwrap();
    let grid = grid_for(&setup).unwrap();
    let mut backend = cpu_backend(&setup, grid);
    let mut out = ResultDir::create(&scene.run.out, &setup.scene.to_toml()).unwrap();
    let started = std::time::Instant::now();
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    assert_eq!((summary.steps, summary.grains, summary.lost_grains), (60_000, 120, 0));
    // Every particle above weighs on the bottom one: the floor's mean force
    // over the last 40 s (5 periods of the sway) is their weight, 120 m g, a
    // mean overlap of 120 m g / k_s = 0.294 m (49.0 % of a diameter); the
    // landings pressed it more than a radius in, and the one-sided floor
    // held it.
    let bottom = |g: &Grains| {
        let b = (0..g.len())
            .min_by(|&a, &b| g.pos[a][1].total_cmp(&g.pos[b][1]))
            .unwrap();
        f64::from(g.radius[b] - g.pos[b][1])
    };
    let g = backend.grains().unwrap();
    let end = bottom(g);
    let at_20 = frames_at(&scene.run.out, 20.0, bottom);
    let frames = hourglass::output::read::frames(&scene.run.out).unwrap();
    let late: Vec<f64> = frames
        .iter()
        .filter(|(t, _)| *t >= 20.0)
        .map(|(_, path)| bottom(&hourglass::output::read::grains(path).unwrap()))
        .collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    let deepest = late.iter().copied().fold(0.0, f64::max);
    eprintln!(
        "fed column, k_s = 4000: bottom particle at t = 20 s {at_20:.4} m into the floor ({:.1} % of its diameter), at 60 s {end:.4} m, mean over 20-60 s {mean:.4} m ({:.1} %, {} frames), deepest then {deepest:.4} m; {:.1} s wall",
        100.0 * at_20 / 0.6,
        100.0 * mean / 0.6,
        late.len(),
        started.elapsed().as_secs_f64()
    );
    let rest = 120.0 * 9.81 / 4000.0;
    assert!(
        (mean - rest).abs() < 0.02 * rest,
        "mean bottom overlap {mean} m, at rest {rest} m"
    );
    assert!(summary.max_overlap > 0.3, "max overlap {} m", summary.max_overlap);
}

/// `f` of the grains of the first frame at or after `time` in the result `dir`.
fn frames_at(dir: &Path, time: f64, f: impl Fn(&Grains) -> f64) -> f64 {
    let frames = hourglass::output::read::frames(dir).unwrap();
    let (_, path) = frames.iter().find(|(t, _)| *t >= time - 1e-9).unwrap();
    f(&hourglass::output::read::grains(path).unwrap())
}
