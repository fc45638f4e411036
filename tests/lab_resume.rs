//! `hourglass run --resume DIR`: a CPU run cut after N
//! steps and resumed for M more is the uninterrupted N + M run, bit for bit
//! (diagnostics rows, frames, final grains), also when N falls on a step
//! where the CPU reorders its grains; a bad DIR is one line.

use std::path::Path;
use std::process::{Command, Output};

const BOX: &str = r#"version = 1
[walls]
segments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]
[grains]
count = 60
[solver]
kind = "nlgs"
[run]
every = 10
backend = "cpu"
"#;

fn hourglass(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(o: Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `hourglass run SCENE --steps STEPS --out OUT -q`, which must succeed.
fn run_steps(scene: &str, steps: u64, out: &Path) {
    ok(hourglass(&[
        "run",
        scene,
        "--steps",
        &steps.to_string(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]));
}

/// `hourglass run --resume DIR --steps STEPS -q`, which must succeed.
fn resume(dir: &Path, steps: u64) {
    ok(hourglass(&[
        "run",
        "--resume",
        dir.to_str().unwrap(),
        "--steps",
        &steps.to_string(),
        "-q",
    ]));
}

fn state_grains(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("state.json")).unwrap();
    serde_json::from_str::<serde_json::Value>(&text).unwrap()["grains"].clone()
}

#[test]
fn a_resumed_cpu_run_is_the_uninterrupted_run_bit_for_bit() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = tmp.path().join("box.toml");
    std::fs::write(&scene, BOX).unwrap();
    let s = scene.to_str().unwrap();
    let whole = tmp.path().join("whole");
    ok(hourglass(&[
        "run",
        s,
        "--steps",
        "270",
        "--out",
        whole.to_str().unwrap(),
        "-q",
    ]));
    // 100: the CPU reorders its grains at the next step (every 100 steps).
    for n in [100u64, 130] {
        let cut = tmp.path().join(format!("cut{n}"));
        let c = cut.to_str().unwrap();
        ok(hourglass(&["run", s, "--steps", &n.to_string(), "--out", c, "-q"]));
        ok(hourglass(&[
            "run",
            "--resume",
            c,
            "--steps",
            &(270 - n).to_string(),
            "-q",
        ]));
        let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
        assert!(
            read(&whole, "diagnostics.csv") == read(&cut, "diagnostics.csv"),
            "N = {n}: the rows differ"
        );
        assert_eq!(state_grains(&whole), state_grains(&cut), "N = {n}");
        assert!(read(&whole, "frames.pvd") == read(&cut, "frames.pvd"));
        assert!(read(&whole, "frames/frame_000027.vtp") == read(&cut, "frames/frame_000027.vtp"));
        let (a, b) = (
            hourglass::output::read::summary(&whole).unwrap(),
            hourglass::output::read::summary(&cut).unwrap(),
        );
        assert_eq!((b.steps, b.frames, b.completed), (270, 28, true));
        assert_eq!(
            (a.max_overlap, a.overlap_p99, a.itmax_steps),
            (b.max_overlap, b.overlap_p99, b.itmax_steps)
        );
    }
}

#[test]
fn a_resumed_run_takes_a_new_solver_and_appends_its_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = tmp.path().join("box.toml");
    std::fs::write(&scene, BOX).unwrap();
    let out = tmp.path().join("run");
    let o = out.to_str().unwrap();
    ok(hourglass(&[
        "run",
        scene.to_str().unwrap(),
        "--steps",
        "50",
        "--out",
        o,
        "-q",
    ]));
    ok(hourglass(&[
        "run", "--resume", o, "--solver", "jacobi", "--steps", "40", "-q",
    ]));
    let rows = hourglass::output::read::diagnostics(&out).unwrap();
    let steps: Vec<u64> = rows.iter().map(|r| r.step).collect();
    assert_eq!(steps, (0..=9).map(|k| 10 * k).collect::<Vec<_>>());
    let summary = hourglass::output::read::summary(&out).unwrap();
    assert_eq!(
        (summary.steps, summary.solver.as_str(), summary.frames),
        (90, "jacobi", 10)
    );
    assert!(
        std::fs::read_to_string(out.join("scene.toml"))
            .unwrap()
            .contains("kind = \"jacobi\"")
    );
}

#[test]
fn a_bad_resume_directory_is_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let o = hourglass(&["run", "--resume", missing.to_str().unwrap(), "-q"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("state.json") && err.contains("not a result directory"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    // A corrupt state: one line naming the file, and the directory is left as it was.
    let scene = tmp.path().join("box.toml");
    std::fs::write(&scene, BOX).unwrap();
    let out = tmp.path().join("run");
    ok(hourglass(&[
        "run",
        scene.to_str().unwrap(),
        "--steps",
        "10",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]));
    std::fs::write(out.join("state.json"), "{\"version\": 1, \"step\": ").unwrap();
    let o = hourglass(&["run", "--resume", out.to_str().unwrap(), "-q"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("state.json"), "{err}");
    assert!(
        out.join("summary.json").exists(),
        "a refused resume leaves the finished run complete"
    );
}

/// The lab's box filled by an emitter: cut while grains are still coming,
/// the resumed run emits the same grains at the same steps.
#[test]
fn a_resumed_run_with_an_emitter_goes_on_emitting_bit_for_bit() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/lab_box.toml");
    let s = scene.to_str().unwrap();
    let (whole, cut) = (tmp.path().join("whole"), tmp.path().join("cut"));
    run_steps(s, 1000, &whole);
    run_steps(s, 375, &cut);
    resume(&cut, 625);
    let read = |d: &Path| std::fs::read(d.join("diagnostics.csv")).unwrap();
    assert!(read(&whole) == read(&cut), "the rows differ");
    assert_eq!(state_grains(&whole), state_grains(&cut));
    let (a, b) = (
        hourglass::output::read::summary(&whole).unwrap(),
        hourglass::output::read::summary(&cut).unwrap(),
    );
    // 1000 steps of 2 ms: grains at 0, 0.2, ... 1.8 s and 2.0 s.
    assert_eq!((a.emitted, b.emitted, b.grains), (11, 11, 11));
}

/// An interrupted run (no summary.json) cut after a row was written but
/// before its state was: the resumed run drops that row and writes it again,
/// and the result is the uninterrupted run's.
#[test]
fn an_interrupted_run_resumes_from_its_last_state_and_drops_later_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = tmp.path().join("box.toml");
    std::fs::write(&scene, BOX).unwrap();
    let s = scene.to_str().unwrap();
    let (whole, cut) = (tmp.path().join("whole"), tmp.path().join("cut"));
    run_steps(s, 200, &whole);
    run_steps(s, 130, &cut);
    std::fs::remove_file(cut.join("summary.json")).unwrap();
    let rows = std::fs::read_to_string(whole.join("diagnostics.csv")).unwrap();
    let next = rows.lines().find(|l| l.starts_with("140,")).unwrap();
    let mut csv = std::fs::read_to_string(cut.join("diagnostics.csv")).unwrap();
    csv.push_str(&format!("{next}\n"));
    std::fs::write(cut.join("diagnostics.csv"), csv).unwrap();
    resume(&cut, 70);
    let read = |d: &Path| std::fs::read(d.join("diagnostics.csv")).unwrap();
    assert!(read(&whole) == read(&cut), "the rows differ");
    assert_eq!(state_grains(&whole), state_grains(&cut));
    assert!(cut.join("summary.json").exists());
}

/// The lab's explicit models resume bit for bit too: `scenes/box.toml`
/// (impulse model, an emitter still dropping balls at the cut) and
/// `scenes/column.toml` (linear springs with a dashpot, settling), each run
/// for N + M steps straight and for N, then `--resume` for M: diagnostics.csv
/// and state.json are the same bytes.
#[test]
fn the_impulse_and_spring_models_resume_bit_for_bit() {
    let tmp = tempfile::tempdir().unwrap();
    // N on a row (state.json is written at rows: every 50 and 100 steps).
    for (name, n, m) in [("box", 300u64, 400u64), ("column", 300, 400)] {
        let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenes/{name}.toml"));
        let s = scene.to_str().unwrap();
        let (whole, cut) = (
            tmp.path().join(format!("{name}-whole")),
            tmp.path().join(format!("{name}-cut")),
        );
        run_steps(s, n + m, &whole);
        run_steps(s, n, &cut);
        resume(&cut, m);
        let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
        assert!(
            read(&whole, "diagnostics.csv") == read(&cut, "diagnostics.csv"),
            "{name}: the rows differ"
        );
        assert!(
            read(&whole, "state.json") == read(&cut, "state.json"),
            "{name}: the states differ"
        );
        let summary = hourglass::output::read::summary(&cut).unwrap();
        assert_eq!((summary.steps, summary.lost_grains), (n + m, 0), "{name}");
        // The cut falls while something happens: balls still coming, the column still moving.
        let rows = hourglass::output::read::diagnostics(&cut).unwrap();
        let at_cut = rows.iter().find(|r| r.step == n).unwrap();
        let end = rows.last().unwrap();
        assert!(
            end.grains > at_cut.grains || end.kinetic_energy != at_cut.kinetic_energy,
            "{name}: nothing happened after the cut"
        );
    }
}

/// A Hertz-Mindlin DEM run keeps its tangential springs across a resume
/// (state.json's contacts): 300 grains of the bundled hourglass, 4,000
/// steps against 2,000 resumed for 2,000 more, end within 1e-6 m of each
/// other. The force is computed afresh at the resume, so the runs agree to
/// round-off (2.3e-8 m measured); with the springs restarted at zero they
/// part by 1.5e-5 m.
#[test]
fn a_resumed_hertz_mindlin_run_keeps_its_springs() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = tmp.path().join("hm.toml");
    std::fs::write(
        &scene,
        "version = 1\n[grains]\ncount = 300\n[solver]\nkind = \"dem\"\n[dem]\nlaw = \"hertz_mindlin\"\nmu = 0.5\n[run]\nevery = 100\nbackend = \"cpu\"\n",
    )
    .unwrap();
    let s = scene.to_str().unwrap();
    let (whole, half) = (tmp.path().join("whole"), tmp.path().join("half"));
    run_steps(s, 4000, &whole);
    run_steps(s, 2000, &half);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(half.join("state.json")).unwrap()).unwrap();
    let springs = saved["contacts"]["count"].as_array().map_or(0, |c| c.len());
    assert_eq!(springs, 300, "state.json keeps the contact lists of every grain");
    resume(&half, 2000);
    let (a, b) = (state_grains(&whole), state_grains(&half));
    let pos = |g: &serde_json::Value| -> Vec<[f64; 2]> {
        g["pos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()])
            .collect()
    };
    let (pa, pb) = (pos(&a), pos(&b));
    assert_eq!(pa.len(), pb.len());
    let apart = pa
        .iter()
        .zip(&pb)
        .map(|(x, y)| (x[0] - y[0]).hypot(x[1] - y[1]))
        .fold(0.0, f64::max);
    assert!(apart < 1e-6, "the resumed run ends {apart:e} m from the whole one");
}
