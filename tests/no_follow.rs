//! No writer follows a link inside a result directory: `run`, `run
//! --resume`, `plot` and `render` replace a symbolic link standing at a name they write (the
//! link's target, the user's file, keeps its bytes), with or without the
//! directory's `.hourglass-result` list; a folder they write into that is a
//! link is refused. A run refused for its solver and backend writes nothing.
//! The walls of each frame (walls that move) are written under the same rules.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output};

fn hourglass(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(args)
        .arg(dir)
        .output()
        .expect("the binary starts")
}

/// A small finished CPU run in `out`.
fn small_run(out: &Path) {
    let o = hourglass(
        &[
            "run",
            "--grains",
            "40",
            "--steps",
            "20",
            "--every",
            "10",
            "--backend",
            "cpu",
            "-q",
            "--out",
        ],
        out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `name` in `out` replaced by a link to a file of the user's; returns that file.
fn link_to_mine(out: &Path, name: &str) -> std::path::PathBuf {
    let mine = out.parent().unwrap().join(format!("mine-{}", name.replace('/', "-")));
    std::fs::write(&mine, b"my own notes").unwrap();
    let at = out.join(name);
    let _ = std::fs::remove_file(&at);
    std::os::unix::fs::symlink(&mine, &at).unwrap();
    mine
}

fn assert_replaced(out: &Path, name: &str, mine: &Path) {
    assert_eq!(
        std::fs::read(mine).unwrap(),
        b"my own notes",
        "{name}: written through the link"
    );
    let meta = std::fs::symlink_metadata(out.join(name)).unwrap();
    assert!(meta.file_type().is_file(), "{name}: not replaced by a file of its own");
}

#[test]
fn plot_replaces_a_link_with_and_without_the_list() {
    for keep_list in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("run");
        small_run(&out);
        let o = hourglass(&["plot", "-q"], &out);
        assert!(o.status.success());
        if !keep_list {
            std::fs::remove_file(out.join(".hourglass-result")).unwrap();
        }
        let mine = link_to_mine(&out, "plot_passed.png");
        let mine_svg = link_to_mine(&out, "plot_passed.svg");
        let o = hourglass(&["plot", "-q"], &out);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_replaced(&out, "plot_passed.png", &mine);
        assert_replaced(&out, "plot_passed.svg", &mine_svg);
        // A PNG and an SVG document now, not the user's bytes.
        assert!(image::open(out.join("plot_passed.png")).is_ok());
        let svg = std::fs::read_to_string(out.join("plot_passed.svg")).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
    }
}

#[test]
fn a_rerun_replaces_links_at_the_names_it_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    small_run(&out);
    let names = [
        "state.json",
        "state.partial",
        "diagnostics.csv",
        "scene.toml",
        "frames.pvd",
    ];
    let mine: Vec<_> = names.iter().map(|n| link_to_mine(&out, n)).collect();
    small_run(&out);
    for (n, m) in names.iter().zip(&mine) {
        if *n == "state.partial" {
            // Renamed over state.json: gone, and the user's file kept.
            assert_eq!(std::fs::read(m).unwrap(), b"my own notes");
            continue;
        }
        assert_replaced(&out, n, m);
    }
}

/// A resumed run writes its state, frames list and summary under the same
/// rule: the links are replaced, the user's files keep their bytes. A link
/// at a name the run has not written yet (its next frame) is the user's
/// file: the resume is refused in one line naming it, before anything in
/// the directory changes.
#[test]
fn a_resume_replaces_links_at_the_names_it_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    small_run(&out);
    let steps = |out: &Path| {
        let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["steps"]
            .as_u64()
            .unwrap()
    };
    let before = steps(&out);
    let kept = ["state.json", "diagnostics.csv"].map(|n| std::fs::read(out.join(n)).unwrap());
    // The first frame the resumed run writes: the next after the run's.
    let frames = std::fs::read_dir(out.join("frames")).unwrap().count();
    let next = format!("frames/frame_{frames:06}.vtp");
    let theirs = link_to_mine(&out, &next);
    let o = hourglass(&["run", "--steps", "10", "-q", "--resume"], &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(&next), "{err}");
    assert_eq!(std::fs::read(&theirs).unwrap(), b"my own notes");
    assert_eq!(
        ["state.json", "diagnostics.csv"].map(|n| std::fs::read(out.join(n)).unwrap()),
        kept
    );
    std::fs::remove_file(out.join(&next)).unwrap();

    let names = ["state.partial", "summary.json", "frames.pvd"];
    let mine: Vec<_> = names.iter().map(|n| link_to_mine(&out, n)).collect();
    let o = hourglass(&["run", "--steps", "10", "-q", "--resume"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (n, m) in names.iter().zip(&mine) {
        if *n == "state.partial" {
            // Renamed over state.json: gone, and the user's file kept.
            assert_eq!(std::fs::read(m).unwrap(), b"my own notes");
            continue;
        }
        assert_replaced(&out, n, m);
    }
    let frame = std::fs::read_to_string(out.join(&next)).unwrap();
    assert!(frame.contains("<VTKFile"), "{frame}");
    assert_eq!(steps(&out), before + 10);
}

#[test]
fn a_folder_that_is_a_link_is_refused_without_the_list() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    small_run(&out);
    std::fs::remove_file(out.join(".hourglass-result")).unwrap();
    // The render folder replaced by a link to a folder of the user's.
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("frame_000000.png"), b"my picture").unwrap();
    let _ = std::fs::remove_dir_all(out.join("render"));
    std::os::unix::fs::symlink(&theirs, out.join("render")).unwrap();
    let o = hourglass(&["render", "-q", "--every", "1"], &out);
    let err = String::from_utf8_lossy(&o.stderr);
    // Refused in one line naming the folder (or, with no adapter, refused for that);
    // either way the user's folder is untouched.
    assert!(!o.status.success());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(std::fs::read(theirs.join("frame_000000.png")).unwrap(), b"my picture");
    assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 1);
}

#[test]
fn a_solver_the_backend_cannot_run_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    for solver in ["nlgs", "seed", "impulse"] {
        let o = hourglass(
            &[
                "run",
                "--solver",
                solver,
                "--backend",
                "gpu",
                "--steps",
                "2",
                "-q",
                "--out",
            ],
            &out,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{solver}");
        assert_eq!(err.trim().lines().count(), 1, "{solver}: {err}");
        assert!(err.contains("--backend") || err.contains("backend"), "{solver}: {err}");
        assert!(
            !out.exists(),
            "{solver}: {} was created before the refusal",
            out.display()
        );
    }
}

#[test]
fn the_walls_of_a_frame_replace_links_at_their_names() {
    use hourglass::model::{Grains, Walls};
    use hourglass::output::{ResultDir, read};
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let floor = |y: f64| Walls::new(&[[[-1.0, y], [1.0, y]]]);
    let grains = Grains::new(vec![[0.0, 0.5]], vec![[0.0, 0.0]], vec![0.1], 1.0);
    let mut dir = ResultDir::create(&out, "version = 1\n").unwrap();
    dir.walls(&floor(0.0)).unwrap();
    for k in 0..2 {
        dir.frame(k as f64, &grains).unwrap();
        dir.moving_walls(k, &floor(k as f64)).unwrap();
    }
    let names = [
        "walls.pvd",
        "walls.partial",
        "walls/walls_000001.vtp",
        "walls/walls_000001.partial",
    ];
    let mine: Vec<_> = names.iter().map(|n| link_to_mine(&out, n)).collect();
    // Frame 1's walls given again: every name rewritten.
    dir.moving_walls(1, &floor(0.25)).unwrap();
    for (n, m) in names.iter().zip(&mine) {
        if n.ends_with(".partial") {
            // Renamed over the file it stands for: gone, the user's file kept.
            assert_eq!(
                std::fs::read(m).unwrap(),
                b"my own notes",
                "{n}: written through the link"
            );
            continue;
        }
        assert_replaced(&out, n, m);
    }
    assert_eq!(read::frame_walls(&out, 1).unwrap(), floor(0.25));
    assert_eq!(read::wall_frames(&out).unwrap().unwrap().len(), 2);
    // A run into the directory whose walls never move removes them all.
    let mine = link_to_mine(&out, "walls/walls_000000.vtp");
    small_run(&out);
    assert_eq!(std::fs::read(&mine).unwrap(), b"my own notes");
    for name in ["walls.pvd", "walls", "walls/walls_000000.vtp"] {
        assert!(std::fs::symlink_metadata(out.join(name)).is_err(), "{name} is left");
    }
}

#[test]
fn the_seams_of_a_periodic_run_replace_links_and_go_with_the_next_run() {
    use hourglass::output::{PERIODIC, ResultDir, read};
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut dir = ResultDir::create(&out, "version = 1\n").unwrap();
    dir.periodic([-0.5, 0.5], [0.0, 1.0]).unwrap();
    let names = [PERIODIC, "periodic.partial"];
    let mine: Vec<_> = names.iter().map(|n| link_to_mine(&out, n)).collect();
    dir.periodic([-0.25, 0.25], [0.0, 2.0]).unwrap();
    for (n, m) in names.iter().zip(&mine) {
        if n.ends_with(".partial") {
            assert_eq!(
                std::fs::read(m).unwrap(),
                b"my own notes",
                "{n}: written through the link"
            );
            continue;
        }
        assert_replaced(&out, n, m);
    }
    let seams = read::walls_file(&out.join(PERIODIC)).unwrap();
    assert_eq!(seams.segments.len(), 2);
    assert_eq!((seams.segments[0].a, seams.segments[0].b), ([-0.25, 0.0], [-0.25, 2.0]));
    drop(dir);
    // A run that is not periodic into the directory removes it.
    small_run(&out);
    assert!(
        std::fs::symlink_metadata(out.join(PERIODIC)).is_err(),
        "periodic.vtp is left"
    );
    // A periodic.vtp of the user's is never overwritten: the next run is refused.
    std::fs::write(out.join(PERIODIC), b"my own seams").unwrap();
    let o = hourglass(
        &[
            "run",
            "--grains",
            "40",
            "--steps",
            "20",
            "--backend",
            "cpu",
            "-q",
            "--out",
        ],
        &out,
    );
    assert!(!o.status.success());
    assert_eq!(std::fs::read(out.join(PERIODIC)).unwrap(), b"my own seams");
}
