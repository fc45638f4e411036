//! Crowd motion (Maury-Venel, docs/crowd.md): people walk
//! towards the door at the desired speed, their velocity projected onto the
//! feasible set; people past the door leave and are counted as `passed`.

use std::path::Path;

use hourglass::backend::{Backend, cpu_backend, grid_for};
use hourglass::model::{Grains, Region};
use hourglass::output::{ResultDir, read};
use hourglass::scene::{Scene, Setup, build};
use hourglass::sim;

/// A 10 m x 10 m room with a door from x = 4.4 to 5.6 in its lower wall.
const ROOM: &str = "version = 1\ngravity = [0.0, 0.0]\n[walls]\nsegments = [[0.0, 0.0, 4.4, 0.0], [5.6, 0.0, 10.0, 0.0], [10.0, 0.0, 10.0, 10.0], [10.0, 10.0, 0.0, 10.0], [0.0, 10.0, 0.0, 0.0]]\n";
const CROWD: &str = "[crowd]\nspeed = 1.3\ndoor = [4.4, 0.0, 5.6, 0.0]\n[solver]\nkind = \"crowd\"\ndt = 0.01\nalert = 0.05\ntol = 1e-5\n";

fn setup(text: &str) -> Setup {
    build(&Scene::parse(text, Path::new("crowd.toml")).unwrap()).unwrap()
}

/// The backend of `s` and a region whose box is the walls'.
fn start(s: &Setup) -> (Box<dyn Backend>, Region) {
    let grid = grid_for(s).unwrap();
    let region = Region {
        gravity: [0.0, 0.0],
        neck_y: 0.0,
        bbox: s.walls(false).bounding_box(),
        period: 0.0,
    };
    (cpu_backend(s, grid), region)
}

fn people(rows: &[[f64; 3]]) -> String {
    let list: Vec<String> = rows
        .iter()
        .map(|r| format!("[{}, {}, 0.0, 0.0, {}]", r[0], r[1], r[2]))
        .collect();
    format!("[grains]\nmass = 70.0\nlist = [{}]\n", list.join(", "))
}

#[test]
fn a_person_alone_walks_straight_to_the_door_at_the_desired_speed() {
    // In front of the door (straight down), and off to the side (straight at
    // the near end of the door's clear part, (4.4 + 0.25, 0)).
    for (x0, aim) in [([5.0f32, 6.0f32], [5.0f32, 0.0f32]), ([1.0, 7.0], [4.65, 0.0])] {
        let s = setup(&format!(
            "{ROOM}{}{CROWD}[run]\nsteps = 1\n",
            people(&[[f64::from(x0[0]), f64::from(x0[1]), 0.25]])
        ));
        let (mut b, _) = start(&s);
        let to = [aim[0] - x0[0], aim[1] - x0[1]];
        let len = to[0].hypot(to[1]);
        let u = [1.3 * to[0] / len, 1.3 * to[1] / len];
        let dt = s.params.dt;
        // Until 1 m before the aim.
        let steps = ((len - 1.0) / 1.3 / dt) as usize;
        for k in 1..=steps {
            b.step(&s.params).unwrap();
            let g = b.grains().unwrap();
            let v = g.vel[0];
            let speed = v[0].hypot(v[1]);
            assert!((speed - 1.3).abs() <= 1e-6 * 1.3, "step {k}: speed {speed}");
            // The direction is taken afresh from each position: the same to round-off.
            assert!(
                (v[0] - u[0]).abs() <= 1e-5 * 1.3 && (v[1] - u[1]).abs() <= 1e-5 * 1.3,
                "step {k}: velocity {v:?}, wish {u:?}"
            );
            let t = k as f32 * dt;
            let x = g.pos[0];
            let want = [x0[0] + u[0] * t, x0[1] + u[1] * t];
            assert!(
                (x[0] - want[0]).abs() < 1e-4 && (x[1] - want[1]).abs() < 1e-4,
                "t {t}: at {x:?}, start + U t = {want:?}"
            );
        }
    }
}

/// Surface gap of people 0 and 1 (negative: overlap), m.
fn gap(g: &Grains) -> f32 {
    let (a, b) = (g.pos[0], g.pos[1]);
    (a[0] - b[0]).hypot(a[1] - b[1]) - g.radius[0] - g.radius[1]
}

#[test]
fn two_people_heading_into_each_other_never_overlap_nor_pass_through() {
    // A corridor 10 m long and 0.8 m wide (two people cannot stand side by
    // side) with a 0.6 m door in the middle of its upper wall: the two walk
    // towards each other from both ends, meet below the door, and leave one
    // after the other.
    let corridor = "version = 1\ngravity = [0.0, 0.0]\n[walls]\nsegments = [[0.0, 0.0, 10.0, 0.0], [10.0, 0.0, 10.0, 0.8], [10.0, 0.8, 5.3, 0.8], [4.7, 0.8, 0.0, 0.8], [0.0, 0.8, 0.0, 0.0]]\n";
    let crowd = "[crowd]\nspeed = 1.3\ndoor = [4.7, 0.8, 5.3, 0.8]\n[solver]\nkind = \"crowd\"\ndt = 0.01\nalert = 0.05\ntol = 1e-5\n";
    let s = setup(&format!(
        "{corridor}{}{crowd}",
        people(&[[1.0, 0.4, 0.25], [9.0, 0.35, 0.25]])
    ));
    let (mut b, region) = start(&s);
    // The projection converges to tol, and overlaps shallower than the slop
    // (5 tol, `StepParams::slop`) are left for the next step to settle.
    let tol = s.params.slop();
    let mut worst = f32::INFINITY;
    let mut steps = 0;
    while b.grains().unwrap().len() == 2 {
        b.step(&s.params).unwrap();
        steps += 1;
        assert!(steps < 2000, "they never reached the door");
        let g = b.grains().unwrap();
        if g.len() < 2 {
            break;
        }
        // Ids 0 and 1 in cell order: person 0 is the one that started left.
        let (l, r) = if g.id[0] == 0 { (0, 1) } else { (1, 0) };
        assert!(
            g.pos[l][0] < g.pos[r][0],
            "step {steps}: the left person passed the right one"
        );
        worst = worst.min(gap(g));
        assert!(gap(g) >= -tol, "step {steps}: overlap {} m > slop {tol} m", -gap(g));
    }
    // They did meet (touch) before the first left.
    assert!(worst < 0.01, "closest gap {worst} m: they never met");
    for _ in 0..500 {
        if b.grains().unwrap().is_empty() {
            break;
        }
        b.step(&s.params).unwrap();
    }
    assert!(b.grains().unwrap().is_empty(), "both leave by the door");
    assert_eq!(b.totals(&region).unwrap().passed, 2);
}

#[test]
fn a_person_behind_a_wall_goes_around_it_to_the_door() {
    // A wall from (3, 2) to (7, 2) hides the door from a person at (5.4, 5):
    // the straight line is blocked, so they follow the distance field round
    // the nearer end of the wall, never through it. At (5, 5) they stand on
    // the field's ridge (both ends are as far): the field's grid is shifted
    // off the walls' symmetry (`RIDGE_SHIFT`), so they still pick a side
    // rather than stall against the wall's middle.
    let room = "version = 1\ngravity = [0.0, 0.0]\n[walls]\nsegments = [[0.0, 0.0, 4.4, 0.0], [5.6, 0.0, 10.0, 0.0], [10.0, 0.0, 10.0, 10.0], [10.0, 10.0, 0.0, 10.0], [0.0, 10.0, 0.0, 0.0], [3.0, 2.0, 7.0, 2.0]]\n";
    for x0 in [[5.4f32, 5.0], [5.0, 5.0]] {
        let list = people(&[[f64::from(x0[0]), f64::from(x0[1]), 0.25]]);
        let s = setup(&format!("{room}{list}{CROWD}"));
        let (mut b, region) = start(&s);
        let dt = s.params.dt;
        let mut prev = x0;
        let mut t = 0.0f32;
        while !b.grains().unwrap().is_empty() {
            b.step(&s.params).unwrap();
            t += dt;
            assert!(t < 20.0, "from {x0:?}: still in the room after 20 s, at {prev:?}");
            if let Some(&x) = b.grains().unwrap().pos.first() {
                // The centre never crosses the wall's line between its ends.
                let crossed = (prev[1] - 2.0) * (x[1] - 2.0) < 0.0 && (3.0..=7.0).contains(&x[0]);
                assert!(!crossed, "walked through the wall from {prev:?} to {x:?}");
                let v = b.grains().unwrap().vel[0];
                assert!(v[0].hypot(v[1]) <= 1.3 * (1.0 + 1e-6), "faster than the wish: {v:?}");
                prev = x;
            }
        }
        assert_eq!(b.totals(&region).unwrap().passed, 1);
        // A lower bound of the way for the centre (0.25 m clear of the
        // wall's ends, out by a radius past the door's clear part [4.65,
        // 5.35]): round the nearer end, (7.25, 2) -> (5.35, -0.25) or
        // (2.75, 2) -> (4.65, -0.25), at 1.3 m/s; the field's way is a little longer.
        let way = |e: [f32; 2], d: [f32; 2]| (x0[0] - e[0]).hypot(x0[1] - e[1]) + (e[0] - d[0]).hypot(e[1] - d[1]);
        let geodesic = way([7.25, 2.0], [5.35, -0.25]).min(way([2.75, 2.0], [4.65, -0.25])) / 1.3;
        assert!(
            t >= geodesic,
            "from {x0:?}: left after {t} s, faster than the shortest way ({geodesic} s)"
        );
        assert!(
            t <= 1.25 * geodesic,
            "from {x0:?}: left after {t} s, the shortest way takes {geodesic} s"
        );
    }
}

#[test]
fn everyone_leaves_the_evacuation_room_and_every_row_counts_them_all() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = build(&Scene::load(&root.join("scenes/evacuation.toml")).unwrap()).unwrap();
    let n = s.grains.len() as u64;
    let dir = tempfile::tempdir().unwrap();
    let grid = grid_for(&s).unwrap();
    let mut b = cpu_backend(&s, grid);
    let mut out = ResultDir::create(dir.path(), &s.scene.to_toml()).unwrap();
    let summary = sim::run(&s, b.as_mut(), &mut out, &mut sim::Silent).unwrap();
    out.finish(&summary).unwrap();
    let summary = read::summary(dir.path()).unwrap();
    assert_eq!((summary.passed, summary.lost_grains, summary.grains), (n, 0, n));
    let t = summary.evacuation_time.expect("the room empties");
    // Nobody walks faster than the wish: the person farthest from the door
    // needs at least their straight distance to it (plus a radius) at 1.3 m/s.
    let far = s
        .grains
        .pos
        .iter()
        .map(|p| (p[0] - p[0].clamp(4.4, 5.6)).hypot(p[1]))
        .fold(0.0f32, f32::max);
    assert!(
        f64::from(far / 1.3) <= t,
        "emptied at {t} s, the farthest is {far} m away"
    );
    assert!(t < 60.0, "the room took {t} s to empty");
    assert!(
        (summary.sim_time - t).abs() < 1e-6,
        "the run ends when the room is empty"
    );
    // At every row, the people in the room (the frame) and those out make the total.
    let rows = read::diagnostics(dir.path()).unwrap();
    let frames = read::frames(dir.path()).unwrap();
    assert_eq!(rows.len(), frames.len());
    for (row, (time, path)) in rows.iter().zip(&frames) {
        assert!(
            (row.time - time).abs() < 1e-5,
            "row at {} s, frame at {time} s",
            row.time
        );
        let inside = read::grains(path).unwrap().len() as u64;
        assert_eq!(row.grains, n, "t {time}");
        assert_eq!(inside + row.passed, n, "t {time}: {inside} inside, {} out", row.passed);
    }
    assert!(rows.windows(2).all(|w| w[0].passed <= w[1].passed), "nobody comes back");
    assert!(
        summary.max_overlap < 0.01 * summary.radius_mean,
        "overlap {}",
        summary.max_overlap
    );
}

/// `hourglass ARGS` from the crate root: (exit success, stderr).
fn hourglass(args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_gpu_and_resume_refuse_a_crowd_in_one_line_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gpu");
    let o = out.to_str().unwrap();
    let (ok, err) = hourglass(&[
        "run",
        "scenes/evacuation.toml",
        "--backend",
        "gpu",
        "--out",
        o,
        "--quiet",
    ]);
    assert!(!ok);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("crowd motion runs on the CPU only"), "{err}");
    assert!(!out.exists(), "nothing is written");
    // A short run, then --resume: refused, and the run's summary stays.
    let out = dir.path().join("cpu");
    let o = out.to_str().unwrap();
    let (ok, err) = hourglass(&[
        "run",
        "scenes/evacuation.toml",
        "--steps",
        "20",
        "--every",
        "10",
        "--out",
        o,
        "--quiet",
    ]);
    assert!(ok, "{err}");
    let (ok, err) = hourglass(&["run", "--resume", o, "--steps", "10", "--quiet"]);
    assert!(!ok);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("resuming a crowd run"), "{err}");
    assert!(out.join("summary.json").exists());
}
