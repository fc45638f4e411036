//! The live window under Xvfb: it opens (lavapipe in CI), runs a few frames,
//! saves a screenshot through the `s` key's code path (`--screenshot-after`),
//! closes, and leaves a complete result directory.

mod gpu_common;

use std::process::Command;

use hourglass::render::{BACKGROUND, Camera, band_color};

const SCENE: &str = r#"
version = 1
[walls]
segments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]
[grains]
list = [[0.02, 0.0101, 0.0, 0.0, 0.01], [0.05, 0.0101, 0.0, 0.0, 0.01], [0.08, 0.0101, 0.0, 0.0, 0.01]]
[run]
steps = 200
every = 50
backend = "cpu"
"#;

/// How to reach an X server: the one in DISPLAY, or a fresh Xvfb through xvfb-run.
fn launcher() -> Option<Vec<String>> {
    if std::env::var_os("DISPLAY").is_some() {
        return Some(Vec::new());
    }
    let xvfb = Command::new("xvfb-run").arg("--help").output().is_ok();
    xvfb.then(|| vec!["xvfb-run".to_string(), "-a".to_string()])
}

#[test]
fn window_opens_runs_and_screenshots_the_disks() {
    if gpu_common::context().is_none() {
        return;
    }
    let Some(launch) = launcher() else {
        if std::env::var_os("CI").is_some() {
            panic!("CI needs an X server: neither DISPLAY nor xvfb-run is available");
        }
        eprintln!("skipping: no DISPLAY and no xvfb-run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("three.toml");
    std::fs::write(&scene, SCENE).unwrap();
    let out = dir.path().join("out");
    let bin = env!("CARGO_BIN_EXE_hourglass");
    let mut cmd = match launch.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    let output = cmd
        .arg("run")
        .arg(&scene)
        .args(["--window", "--screenshot-after", "3", "-q", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "hourglass run --window failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Closing the window ended the run cleanly.
    let summary = hourglass::output::read::summary(&out).expect("summary.json after the window closed");
    assert_eq!(summary.grains, 3);
    assert!(summary.steps > 0 && summary.steps < 200, "{} steps", summary.steps);

    let shot = image::open(out.join("screenshot_000.png")).unwrap().to_rgba8();
    let (w, h) = shot.dimensions();
    assert!(w > 100 && h > 100, "{w}x{h}");
    let cam = Camera::fit([0.0, 0.0, 0.1, 0.1], w, h);
    let bg = image::Rgba(BACKGROUND);
    for (k, x) in [0.02f32, 0.05, 0.08].iter().enumerate() {
        let p = cam.to_pixel([*x, 0.01], w, h);
        let c = *shot.get_pixel(p[0] as u32, p[1] as u32);
        assert_ne!(c, bg, "disk {k} is missing at {p:?}");
        let want = band_color(k as u32, 3);
        let diff = (0..3).map(|i| c[i].abs_diff(want[i])).max().unwrap();
        assert!(diff <= 2, "disk {k}: {c:?}, want {want:?}");
    }
    let empty = cam.to_pixel([0.05, 0.06], w, h);
    assert_eq!(*shot.get_pixel(empty[0] as u32, empty[1] as u32), bg, "empty space");
}

/// `view` of a one-frame result whose frame has its own walls (walls.pvd):
/// the window draws the frame's walls, not walls.vtp.
#[test]
fn view_draws_the_walls_of_the_frame_shown() {
    use hourglass::model::{Grains, Walls};
    if gpu_common::context().is_none() {
        return;
    }
    let Some(launch) = launcher() else {
        eprintln!("skipping: no DISPLAY and no xvfb-run");
        return;
    };
    let walls_at = |y: f64| {
        Walls::new(&[
            [[0.0, 0.0], [1.0, 0.0]],
            [[0.0, 0.0], [0.0, 1.0]],
            [[1.0, 0.0], [1.0, 1.0]],
            [[0.1, y], [0.9, y]],
        ])
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut result = hourglass::output::ResultDir::create(&out, "version = 1\n").unwrap();
    result.walls(&walls_at(0.3)).unwrap();
    let g = Grains::new(vec![[0.15, 0.5]], vec![[0.0, 0.0]], vec![0.04], 1.0);
    result.frame(0.0, &g).unwrap();
    result.moving_walls(0, &walls_at(0.7)).unwrap();
    drop(result);
    let bin = env!("CARGO_BIN_EXE_hourglass");
    let mut cmd = match launch.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    let output = cmd
        .arg("view")
        .args(["--screenshot-after", "1", "-q"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "hourglass view failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shot = image::open(out.join("screenshot_000.png")).unwrap().to_rgba8();
    let (w, h) = shot.dimensions();
    let cam = Camera::fit(hourglass::render::scene_bbox(&g, &walls_at(0.7)), w, h);
    let bg = image::Rgba(BACKGROUND);
    let at = |p: [f32; 2]| {
        let q = cam.to_pixel(p, w, h);
        *shot.get_pixel(q[0] as u32, q[1] as u32)
    };
    for x in [0.4, 0.5, 0.6] {
        assert_ne!(at([x, 0.7]), bg, "no wall at ({x}, 0.7)");
        assert_eq!(at([x, 0.3]), bg, "walls.vtp's wall drawn at ({x}, 0.3)");
    }
}
