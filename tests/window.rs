//! The live window under Xvfb: it opens (lavapipe in CI), runs a few frames,
//! saves a screenshot through the `s` key's code path (`--screenshot-after`),
//! closes, and leaves a complete result directory.

mod gpu_common;

use std::process::Command;

use hourglass::render::{BACKGROUND, Camera, SEAM_COLOR, band_color, scene_bbox, with_period};

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

/// One window test at a time: two `xvfb-run -a` started together can pick
/// the same display number, and one of them then fails to start.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How to reach an X server: the one in DISPLAY, or a fresh Xvfb through
/// xvfb-run (the caller holds [`serial`]).
fn launcher() -> Option<Vec<String>> {
    if std::env::var_os("DISPLAY").is_some() {
        return Some(Vec::new());
    }
    let xvfb = Command::new("xvfb-run").arg("--help").output().is_ok();
    xvfb.then(|| vec!["xvfb-run".to_string(), "-a".to_string()])
}

#[test]
fn window_opens_runs_and_screenshots_the_disks() {
    let _serial = serial();
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
    let args = ["run".as_ref(), scene.as_os_str(), "--window".as_ref()];
    let more = [
        "--screenshot-after".as_ref(),
        "3".as_ref(),
        "-q".as_ref(),
        "--out".as_ref(),
    ];
    let output = hourglass_under(&launch, &[&args[..], &more[..], &[out.as_os_str()]].concat());
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
    let _serial = serial();
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
    let view = || {
        let args = [
            "view".as_ref(),
            "--screenshot-after".as_ref(),
            "1".as_ref(),
            "-q".as_ref(),
        ];
        let output = hourglass_under(&launch, &[&args[..], &[out.as_os_str()]].concat());
        assert!(
            output.status.success(),
            "hourglass view failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    view();
    // The screenshot is written as every output is: a link at its name is
    // replaced, and the user's file behind it keeps its bytes.
    #[cfg(unix)]
    {
        let mine = dir.path().join("mine.png");
        std::fs::write(&mine, b"my picture").unwrap();
        std::fs::remove_file(out.join("screenshot_000.png")).unwrap();
        std::os::unix::fs::symlink(&mine, out.join("screenshot_000.png")).unwrap();
        view();
        assert_eq!(std::fs::read(&mine).unwrap(), b"my picture");
        let meta = std::fs::symlink_metadata(out.join("screenshot_000.png")).unwrap();
        assert!(meta.file_type().is_file(), "the link was written through, not replaced");
    }
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

/// `view` of a 3D result directory: the window draws its spheres through
/// the orbit camera `render` would use, over the background, as `render`
/// draws them.
#[test]
fn view_draws_a_3d_run_as_spheres() {
    let _serial = serial();
    use hourglass::model::Grains;
    use hourglass::model::space::Dim3;
    if gpu_common::context().is_none() {
        return;
    }
    let Some(launch) = launcher() else {
        eprintln!("skipping: no DISPLAY and no xvfb-run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut result = hourglass::output::ResultDir::create(&out, "version = 1\ndimension = 3\n").unwrap();
    let walls = hourglass::model::Walls3d::boxed([0.0; 3], [1.0, 1.0, 1.0]).unwrap();
    result.walls(&walls).unwrap();
    let g: Grains<Dim3> = Grains {
        pos: vec![[0.3, 0.2, 0.5], [0.7, 0.6, 0.5]],
        vel: vec![[0.0; 3]; 2],
        radius: vec![0.12; 2],
        inv_mass: vec![0.0; 2],
        id: vec![0, 1],
        ang_vel: vec![[0.0; 3]; 2],
        angle: vec![[1.0, 0.0, 0.0, 0.0]; 2],
    };
    result.frame(0.0, &g).unwrap();
    drop(result);
    let args = [
        "view".as_ref(),
        "--screenshot-after".as_ref(),
        "1".as_ref(),
        "-q".as_ref(),
        out.as_os_str(),
    ];
    let output = hourglass_under(&launch, &args);
    assert!(
        output.status.success(),
        "hourglass view failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shot = image::open(out.join("screenshot_000.png")).unwrap().to_rgba8();
    let (w, h) = shot.dimensions();
    let frames = hourglass::output::read::frames(&out).unwrap();
    let polygons = hourglass::output::read::wall_polygons3d(&out.join("walls.vtp")).unwrap();
    let opts = hourglass::app::movie::MovieOptions {
        width: 720,
        height: 720,
        ..Default::default()
    };
    let frame = hourglass::app::movie::sphere_frame(&frames, &polygons, &opts).unwrap();
    let bg = image::Rgba(BACKGROUND);
    for (k, p) in g.pos.iter().enumerate() {
        let q = frame.orbit.to_pixel(*p, w, h).unwrap();
        let c = shot.get_pixel(q[0] as u32, q[1] as u32);
        // Lit from the front, the sphere's centre shows at least its
        // band's colour under the ambient light, and is not the background.
        assert_ne!(*c, bg, "sphere {k} at {q:?}");
        let want = band_color(g.id[k], 2);
        let lit: f32 = (0..3).map(|i| f32::from(c[i])).sum();
        let full: f32 = want.iter().map(|&x| f32::from(x)).sum();
        assert!(
            lit > 0.4 * full && lit <= full + 6.0,
            "sphere {k}: {c:?} against {want:?}"
        );
    }
    assert_eq!(*shot.get_pixel(w - 2, h - 2), bg, "a corner");
    // The window's picture is `render`'s of the same frame and camera, pixel for pixel.
    let ctx = gpu_common::context().unwrap();
    let spheres = hourglass::output::read::spheres(&frames[0].1).unwrap();
    let same = hourglass::render::spheres::SphereMovie::new(&ctx, &polygons, frame, [w, h])
        .draw(&spheres)
        .unwrap();
    assert!(shot == same, "the window's picture differs from render's");
}

/// `run --window` of a 3D scene: the lab's pile runs live, its spheres
/// drawn (pixels of the first band's colour, shaded), and the window's
/// close ends the run with its result directory complete.
#[test]
fn the_live_window_runs_a_3d_scene() {
    let _serial = serial();
    if gpu_common::context().is_none() {
        return;
    }
    let Some(launch) = launcher() else {
        eprintln!("skipping: no DISPLAY and no xvfb-run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pile");
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/3d/pile_box.toml");
    let args = [
        "run".as_ref(),
        scene.as_ref(),
        "--window".as_ref(),
        "--screenshot-after".as_ref(),
        "40".as_ref(),
        "-q".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ];
    let output = hourglass_under(&launch, &args);
    assert!(
        output.status.success(),
        "hourglass run --window failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.join("summary.json").is_file(), "the run ends complete");
    let shot = image::open(out.join("screenshot_000.png")).unwrap().to_rgba8();
    let sand = band_color(0, 351).map(f32::from);
    // A sphere's pixel is its colour times one shade: bytes in proportion.
    let sphere_pixels = shot
        .pixels()
        .filter(|p| {
            let s = f32::from(p[0]) / sand[0];
            s > 0.3 && (0..3).all(|k| (f32::from(p[k]) - s * sand[k]).abs() <= 0.1 * sand[k])
        })
        .count();
    assert!(sphere_pixels > 100, "{sphere_pixels} sphere pixels");
    assert_eq!(
        *shot.get_pixel(shot.width() - 2, shot.height() - 2),
        image::Rgba(BACKGROUND)
    );
}

/// The rows of `shot` with the periodic boundary's mark in the columns
/// about pixel x = `x` (the seam is 2 px wide about it).
fn marked_rows(shot: &image::RgbaImage, x: f32) -> u32 {
    let (w, h) = shot.dimensions();
    let c = x.floor() as i64;
    let is_mark = |p: &image::Rgba<u8>| (0..3).all(|i| p[i].abs_diff(SEAM_COLOR[i]) <= 2);
    (0..h)
        .filter(|&y| {
            (c - 1..=c + 1)
                .filter(|&k| k >= 0 && k < i64::from(w))
                .any(|k| is_mark(shot.get_pixel(k as u32, y)))
        })
        .count() as u32
}

/// `hourglass ARGS` under the launcher.
fn hourglass_under(launch: &[String], args: &[&std::ffi::OsStr]) -> std::process::Output {
    let bin = env!("CARGO_BIN_EXE_hourglass");
    let mut cmd = match launch.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    cmd.args(args).output().unwrap()
}

/// `view` of a periodic result directory, and `run --window` of a periodic
/// scene: the window draws both seams (the period [-0.05, 0.05] is wider
/// than the floor, and the fitted view holds it) in the mark colour, dashed
/// over the window's height; a result directory that is not periodic has
/// no mark.
#[test]
fn view_and_the_live_window_mark_the_seams_of_a_periodic_domain() {
    let _serial = serial();
    use hourglass::model::{Grains, Walls};
    if gpu_common::context().is_none() {
        return;
    }
    let Some(launch) = launcher() else {
        eprintln!("skipping: no DISPLAY and no xvfb-run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let walls = Walls::new(&[[[-0.03, 0.0], [0.03, 0.0]]]);
    let g = Grains::new(vec![[0.0, 0.01]], vec![[0.0, 0.0]], vec![0.003], 2500.0);
    let period = [-0.05f32, 0.05];
    let write = |name: &str, scene: &str| {
        let out = dir.path().join(name);
        let mut result = hourglass::output::ResultDir::create(&out, scene).unwrap();
        result.walls(&walls).unwrap();
        result.frame(0.0, &g).unwrap();
        out
    };
    let periodic = write("periodic", "version = 1\n[walls]\nperiodic_x = [-0.05, 0.05]\n");
    let plain = write("plain", "version = 1\n");
    let scene = dir.path().join("periodic.toml");
    std::fs::write(
        &scene,
        "version = 1\ngravity = [0.0, 0.0]\n[walls]\nsegments = [[-0.03, 0.0, 0.03, 0.0]]\n\
         periodic_x = [-0.05, 0.05]\n[grains]\nlist = [[0.0, 0.01, 0.0, 0.0, 0.003]]\n\
         [run]\nsteps = 200\nevery = 50\nbackend = \"cpu\"\n",
    )
    .unwrap();
    let live = dir.path().join("live");
    let cases: [(&str, Vec<&std::ffi::OsStr>, &std::path::Path, bool); 3] = [
        (
            "view",
            vec![
                "view".as_ref(),
                "--screenshot-after".as_ref(),
                "1".as_ref(),
                "-q".as_ref(),
                periodic.as_ref(),
            ],
            &periodic,
            true,
        ),
        (
            "view (not periodic)",
            vec![
                "view".as_ref(),
                "--screenshot-after".as_ref(),
                "1".as_ref(),
                "-q".as_ref(),
                plain.as_ref(),
            ],
            &plain,
            false,
        ),
        (
            "run --window",
            vec![
                "run".as_ref(),
                scene.as_ref(),
                "--window".as_ref(),
                "--screenshot-after".as_ref(),
                "2".as_ref(),
                "-q".as_ref(),
                "--out".as_ref(),
                live.as_ref(),
            ],
            &live,
            true,
        ),
    ];
    for (what, args, out, marked) in cases {
        let output = hourglass_under(&launch, &args);
        assert!(
            output.status.success(),
            "{what} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let shot = image::open(out.join("screenshot_000.png")).unwrap().to_rgba8();
        let (w, h) = shot.dimensions();
        let cam = Camera::fit(with_period(scene_bbox(&g, &walls), Some(period)), w, h);
        for x in period {
            let p = cam.to_pixel([x, 0.0], w, h)[0];
            let rows = marked_rows(&shot, p);
            if marked {
                assert!(
                    p > 2.0 && p < w as f32 - 2.0,
                    "{what}: the seam at x = {x} is out of view"
                );
                assert!(
                    rows * 10 > 4 * h && rows * 4 < 3 * h,
                    "{what}: the seam at x = {x} (pixel {p}) is marked on {rows} of {h} rows"
                );
            } else {
                assert_eq!(rows, 0, "{what}: a mark at x = {x}");
            }
        }
    }
}
