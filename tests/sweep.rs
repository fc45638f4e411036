//! `hourglass sweep` end to end (docs/sweeps.md): every point a result
//! directory and a row of results.csv, the same numbers as the same run made
//! alone, a failed point recorded while the sweep goes on, a rerun that
//! skips what finished, and every refusal in one line before anything runs.

use std::path::Path;
use std::process::{Command, Output};

use tempfile::TempDir;

/// 80 grains, 10 settle steps and 40 discharge steps of 1 ms, on the CPU.
const SWEEP: &str = r#"version = 1
scene = "base.toml"
replicas = 2
[grid]
"walls.hourglass.neck" = [6.0, 9.0]
[run]
steps = 40
backend = "cpu"
"#;

const BASE: &str = r#"version = 1
[walls.hourglass]
fit = true
[grains]
count = 80
[solver]
dt = 1e-3
[run]
every = 10
settle = 0.01
"#;

fn hourglass(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("the binary starts")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn setup(sweep: &str) -> TempDir {
    let tmp = TempDir::new().unwrap();
    std::fs::write(tmp.path().join("base.toml"), BASE).unwrap();
    std::fs::write(tmp.path().join("s.toml"), sweep).unwrap();
    tmp
}

/// results.csv as rows of (column, value) maps.
fn table(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(dir.join("results.csv")).expect("results.csv exists");
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    r.records()
        .map(|row| {
            header
                .iter()
                .cloned()
                .zip(row.unwrap().iter().map(str::to_string))
                .collect()
        })
        .collect()
}

fn summary(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn every_point_is_a_run_and_a_row_with_the_numbers_of_the_same_run_alone() {
    let tmp = setup(SWEEP);
    let o = hourglass(tmp.path(), &["sweep", "s.toml", "--out", "out", "--workers", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = table(&tmp.path().join("out"));
    assert_eq!(rows.len(), 4);
    let want = [
        ("0000", "6.0", "1"),
        ("0001", "6.0", "2"),
        ("0002", "9.0", "1"),
        ("0003", "9.0", "2"),
    ];
    for (row, (id, neck, seed)) in rows.iter().zip(want) {
        assert_eq!(row["id"], id);
        assert_eq!(row["status"], "done");
        assert_eq!(row["walls.hourglass.neck"], neck);
        assert_eq!(row["grains.seed"], seed);
        assert_eq!(row["error"], "");
        let run = tmp.path().join("out/runs").join(id);
        assert!(
            run.join(".hourglass-result").is_file(),
            "runs/{id} is a result directory"
        );
        let s = summary(&run);
        assert_eq!(row["passed"], s["passed"].to_string());
        assert_eq!(row["steps"], s["steps"].to_string());
        assert_eq!(
            row["max_overlap"].parse::<f64>().unwrap(),
            s["max_overlap"].as_f64().unwrap()
        );
    }
    // Point 0003 made alone with `hourglass run`: the same grains passed, the same overlap.
    std::fs::write(
        tmp.path().join("alone.toml"),
        BASE.replace("fit = true", "fit = true\nneck = 9.0")
            .replace("count = 80", "count = 80\nseed = 2"),
    )
    .unwrap();
    let o = hourglass(
        tmp.path(),
        &[
            "run",
            "alone.toml",
            "--out",
            "alone",
            "--steps",
            "40",
            "--backend",
            "cpu",
            "--quiet",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, b) = (
        summary(&tmp.path().join("alone")),
        summary(&tmp.path().join("out/runs/0003")),
    );
    for key in ["passed", "steps", "max_overlap", "mean_iterations", "lost_grains"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    // The state the run ended in is the same bit for bit.
    assert_eq!(
        std::fs::read(tmp.path().join("alone/state.json")).unwrap(),
        std::fs::read(tmp.path().join("out/runs/0003/state.json")).unwrap()
    );
}

#[test]
fn a_failed_point_is_a_row_with_its_error_the_rest_run_and_a_rerun_redoes_only_it() {
    // Point 0001 asks the GPU for a solver it does not run: refused when it starts.
    let sweep = r#"version = 1
scene = "base.toml"
[zip]
"solver.kind" = ["nlgs", "nlgs", "jacobi"]
"run.backend" = ["cpu", "gpu", "cpu"]
[run]
steps = 20
"#;
    let tmp = setup(sweep);
    let out = tmp.path().join("out");
    let o = hourglass(
        tmp.path(),
        &["sweep", "s.toml", "--out", "out", "--workers", "2", "--quiet"],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "the exit status counts the failed runs: {}",
        stderr(&o)
    );
    let rows = table(&out);
    let status: Vec<&str> = rows.iter().map(|r| r["status"].as_str()).collect();
    assert_eq!(status, ["done", "failed", "done"]);
    assert!(
        rows[1]["error"].contains("solver `nlgs` on the GPU backend"),
        "{}",
        rows[1]["error"]
    );
    assert!(!rows[1]["error"].contains('\n'));
    assert_eq!(rows[1]["passed"], "");
    assert!(stderr(&o).contains("point 0001 failed: "), "{}", stderr(&o));
    let finished = std::fs::metadata(out.join("runs/0000/summary.json"))
        .unwrap()
        .modified()
        .unwrap();
    // A second sweep into the directory runs only what did not finish.
    let o = hourglass(tmp.path(), &["sweep", "s.toml", "--out", "out", "--workers", "2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("(2 finished before, 1 to run)"), "{}", stderr(&o));
    assert_eq!(
        std::fs::metadata(out.join("runs/0000/summary.json"))
            .unwrap()
            .modified()
            .unwrap(),
        finished
    );
    // An interrupted run (no summary.json) runs again; the finished stay.
    std::fs::remove_file(out.join("runs/0002/summary.json")).unwrap();
    let o = hourglass(tmp.path(), &["sweep", "s.toml", "--out", "out"]);
    assert!(stderr(&o).contains("(1 finished before, 2 to run)"), "{}", stderr(&o));
    assert_eq!(table(&out)[2]["status"], "done");
    assert!(out.join("runs/0002/summary.json").is_file());
}

#[test]
fn bad_sweeps_and_directories_are_refused_in_one_line_before_any_run() {
    let tmp = setup(SWEEP);
    let one_line = |o: &Output, want: &str| {
        assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
        let e = stderr(o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(want), "{e}\nwant: {want}");
    };
    // An unknown key, named with the nearest valid one; nothing is written.
    std::fs::write(
        tmp.path().join("typo.toml"),
        SWEEP.replace("hourglass.neck", "hourglass.nek"),
    )
    .unwrap();
    let o = hourglass(tmp.path(), &["sweep", "typo.toml", "--out", "t"]);
    one_line(
        &o,
        "field `walls.hourglass.nek`: is not a scene key (did you mean `walls.hourglass.neck`?)",
    );
    assert!(!tmp.path().join("t").exists());
    // A value the scene refuses, naming the point.
    std::fs::write(tmp.path().join("neg.toml"), SWEEP.replace("[6.0, 9.0]", "[6.0, -2.0]")).unwrap();
    let o = hourglass(tmp.path(), &["sweep", "neg.toml", "--out", "t"]);
    one_line(
        &o,
        "neg.toml point 0002 (walls.hourglass.neck = -2.0, grains.seed = 1): field `walls.hourglass.neck`",
    );
    // An empty grid, and duplicate points.
    std::fs::write(tmp.path().join("empty.toml"), SWEEP.replace("[6.0, 9.0]", "[]")).unwrap();
    one_line(
        &hourglass(tmp.path(), &["sweep", "empty.toml", "--out", "t"]),
        "is empty",
    );
    std::fs::write(tmp.path().join("dup.toml"), SWEEP.replace("[6.0, 9.0]", "[6.0, 6.0]")).unwrap();
    one_line(
        &hourglass(tmp.path(), &["sweep", "dup.toml", "--out", "t"]),
        "repeats point 0000",
    );
    assert!(!tmp.path().join("t").exists());
    one_line(
        &hourglass(tmp.path(), &["sweep", "nowhere.toml", "--out", "t"]),
        "nowhere.toml: cannot read sweep file: ",
    );
    // Malformed TOML: the line and column.
    std::fs::write(tmp.path().join("broken.toml"), "version = 1\n[grid\n").unwrap();
    one_line(
        &hourglass(tmp.path(), &["sweep", "broken.toml", "--out", "t"]),
        "broken.toml: line 2, column",
    );
    // A folder of the user's, and a run's result directory: refused, untouched.
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "keep").unwrap();
    one_line(
        &hourglass(tmp.path(), &["sweep", "s.toml", "--out", "mine"]),
        "is not a sweep directory",
    );
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1);
    assert_eq!(std::fs::read_to_string(mine.join("notes.txt")).unwrap(), "keep");
    let o = hourglass(
        tmp.path(),
        &["run", "base.toml", "--out", "res", "--steps", "2", "--quiet"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    one_line(
        &hourglass(tmp.path(), &["sweep", "s.toml", "--out", "res"]),
        "is a run's result directory, not a sweep directory",
    );
    // Another sweep into a sweep's directory.
    std::fs::write(
        tmp.path().join("one.toml"),
        SWEEP.replace("[6.0, 9.0]", "[6.0]").replace("replicas = 2", ""),
    )
    .unwrap();
    let o = hourglass(tmp.path(), &["sweep", "one.toml", "--out", "sw", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(tmp.path().join("sw/results.csv")).unwrap();
    one_line(
        &hourglass(tmp.path(), &["sweep", "s.toml", "--out", "sw"]),
        "holds another sweep (1 points there, 4 in s.toml)",
    );
    assert_eq!(std::fs::read(tmp.path().join("sw/results.csv")).unwrap(), before);
    one_line(
        &hourglass(tmp.path(), &["sweep", "s.toml", "--out", "x", "--workers", "0"]),
        "command line: field `--workers`: must be 1 to 1024, got 0",
    );
    one_line(
        &hourglass(tmp.path(), &["sweep", "s.toml", "--out", "x", "--threads", "100000"]),
        "command line: field `--threads`: must be 1 to 1024, got 100000",
    );
    assert!(!tmp.path().join("x").exists());
}

#[test]
fn the_bundled_beverloo_sweep_is_four_necks_by_two_seeds() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/beverloo.toml");
    let s = hourglass::sweep::Sweep::load(&path).unwrap();
    assert_eq!(s.keys, ["walls.hourglass.neck", "grains.seed"]);
    let points: Vec<(f64, u64)> = s
        .points
        .iter()
        .map(|p| (p.scene.walls.hourglass.as_ref().unwrap().neck, p.scene.grains.seed))
        .collect();
    let want: Vec<(f64, u64)> = [5.0, 7.0, 9.0, 11.0].iter().flat_map(|&n| [(n, 1), (n, 2)]).collect();
    assert_eq!(points, want);
    // A worker builds its one point as the whole sweep builds it.
    let five = hourglass::sweep::Sweep::load_point(&path, "0005").unwrap();
    assert_eq!(five.values, s.points[5].values);
    assert_eq!(five.scene.to_toml(), s.points[5].scene.to_toml());
    assert!(hourglass::sweep::Sweep::load_point(&path, "0008").is_err());
    assert!(hourglass::sweep::Sweep::load_point(&path, "5").is_err());
    assert!(
        s.points
            .iter()
            .all(|p| p.scene.solver.mu == 0.4 && p.scene.grains.count == 2000 && p.scene.run.duration == Some(2.0))
    );
}

/// The 3D Beverloo sweeps: eight outlets of the silo (3.5 to 7 d) under
/// NLGS and four (4 to 7 d) under the Hertz DEM (friction 0.5 either way),
/// and every point builds.
#[test]
fn the_3d_beverloo_sweeps_are_the_silos_outlets_under_nlgs_and_the_dem() {
    use hourglass::model::SolverKind;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let eight = [0.0105, 0.012, 0.0135, 0.015, 0.0165, 0.018, 0.0195, 0.021];
    for (file, kind, want) in [
        ("beverloo3d.toml", SolverKind::Nlgs, &eight[..]),
        (
            "beverloo3d_dem.toml",
            SolverKind::Dem,
            &[0.012, 0.015, 0.018, 0.021][..],
        ),
    ] {
        let s = hourglass::sweep::Sweep::load(&root.join("examples").join(file)).unwrap();
        assert_eq!(s.keys, ["walls.silo.outlet"], "{file}");
        let outlets: Vec<f64> = s
            .points
            .iter()
            .map(|p| p.scene.walls.silo.as_ref().unwrap().outlet)
            .collect();
        assert_eq!(outlets, want, "{file}");
        for p in &s.points {
            assert_eq!((p.scene.dimension, p.scene.solver.kind), (3, kind), "{file}");
            let mu = if kind == SolverKind::Dem {
                p.scene.dem.mu
            } else {
                p.scene.solver.mu
            };
            assert_eq!(mu, 0.5, "{file}");
            assert_eq!(p.scene.grains.count, 4000, "{file}");
            hourglass::scene::build3d(&p.scene).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
    }
}
