//! The binary end to end (docs/cli.md): what a run writes, that the written
//! scene loads again, what `--quiet` and `--help` print, and what a failed
//! run leaves in a result directory that held a finished run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hourglass::scene::{Scene, build};
use tempfile::TempDir;

/// 60 grains in the parametric hourglass: dt = 1 ms, at most 10 settle
/// steps, 30 discharge steps, a row every 10 steps.
const SMALL_HOURGLASS: &str = r#"version = 1
[walls.hourglass]
fit = true
[grains]
count = 60
[solver]
dt = 1e-3
[run]
steps = 30
every = 10
settle = 0.01
"#;

const GRAINS: u64 = 60;
const DISCHARGE_STEPS: u64 = 30;
const EVERY: u64 = 10;

const HEADER: &str = "step,time,grains,passed,kinetic_energy,potential_energy,momentum_x,momentum_y,contacts,iterations,residual,max_overlap,rotational_kinetic_energy,elastic_energy,total_energy,barycentre_x,barycentre_y,grain_collisions,wall_collisions,momentum_z,barycentre_z";

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

fn assert_ok(o: &Output) {
    assert!(o.status.success(), "the run failed:\n{}", stderr(o));
}

/// Writes `text` as `name` in `dir` and runs it quietly on the CPU into `dir/out`.
fn run_scene(dir: &Path, name: &str, text: &str) -> (PathBuf, Output) {
    std::fs::write(dir.join(name), text).unwrap();
    let o = hourglass(dir, &["run", name, "--out", "out", "--quiet", "--backend", "cpu"]);
    (dir.join("out"), o)
}

fn summary(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("summary.json")).expect("summary.json exists");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

/// The `file="..."` entries of a .pvd collection.
fn pvd_files(pvd: &str) -> Vec<String> {
    pvd.split("file=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].to_string())
        .collect()
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.insert(p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap());
            }
        }
    }
    files
}

#[test]
fn run_writes_a_complete_result_directory() {
    let tmp = TempDir::new().unwrap();
    let (out, o) = run_scene(tmp.path(), "small.toml", SMALL_HOURGLASS);
    assert_ok(&o);
    assert!(o.stderr.is_empty(), "--quiet printed on stderr:\n{}", stderr(&o));
    assert!(o.stdout.is_empty(), "--quiet printed on stdout");
    for f in [
        "scene.toml",
        "diagnostics.csv",
        "frames.pvd",
        "walls.vtp",
        "summary.json",
    ] {
        assert!(out.join(f).is_file(), "{f} is missing");
    }

    let s = summary(&out);
    for key in [
        "grains",
        "steps",
        "sim_time",
        "wall_seconds",
        "steps_per_second",
        "grain_steps_per_second",
        "backend",
        "adapter",
        "solver",
        "mean_iterations",
        "lost_grains",
        "flow_rate",
    ] {
        assert!(s.get(key).is_some(), "summary.json lacks `{key}`:\n{s:#}");
    }
    assert_eq!(s["grains"], GRAINS);
    assert_eq!(s["lost_grains"], 0);
    assert_eq!(s["backend"], "cpu");
    // The default solver `auto` runs NLGS on the CPU, and summary.json says what ran.
    assert_eq!(s["solver"], "nlgs");
    assert_eq!(s["completed"], true, "a run that ran all its steps says so");
    let steps = s["steps"].as_u64().unwrap();
    let settle = s["settle_steps"].as_u64().unwrap();
    // settle = 0.01 s at dt = 1 ms: at most 10 steps with the gate closed.
    assert!((1..=10).contains(&settle), "settle steps {settle}");
    assert_eq!(steps, settle + DISCHARGE_STEPS);
    let sim_time = s["sim_time"].as_f64().unwrap();
    assert!((sim_time - steps as f64 * 1e-3).abs() < 1e-6, "sim_time {sim_time}");
    let wall = s["wall_seconds"].as_f64().unwrap();
    let sps = s["steps_per_second"].as_f64().unwrap();
    assert!(wall > 0.0 && sps > 0.0);
    assert!(
        (sps * wall / steps as f64 - 1.0).abs() < 1e-6,
        "steps/s disagrees with steps and wall time"
    );
    let gsps = s["grain_steps_per_second"].as_f64().unwrap();
    assert!((gsps / (sps * GRAINS as f64) - 1.0).abs() < 1e-9);
    assert!(s["mean_iterations"].as_f64().unwrap() >= 1.0);

    // diagnostics.csv: the header, then a row at step 0, every EVERY steps and the last step.
    let csv = std::fs::read_to_string(out.join("diagnostics.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(HEADER));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| {
            let fields: Vec<f64> = l.split(',').map(|v| v.parse().expect("a number")).collect();
            assert_eq!(fields.len(), 21, "row `{l}`");
            fields
        })
        .collect();
    assert_eq!(rows.len() as u64, 1 + steps.div_ceil(EVERY));
    let row_steps: Vec<u64> = rows.iter().map(|r| r[0] as u64).collect();
    let mut expected: Vec<u64> = (0..=steps).step_by(EVERY as usize).collect();
    if !steps.is_multiple_of(EVERY) {
        expected.push(steps);
    }
    assert_eq!(row_steps, expected);
    for r in &rows {
        assert_eq!(r[2] as u64, GRAINS, "grains column");
        assert!(
            (r[1] - r[0] * 1e-3).abs() < 1e-6,
            "time column {} at step {}",
            r[1],
            r[0]
        );
    }
    assert_eq!(rows[0][4], 0.0, "the grains start at rest");
    assert_eq!(rows[0][12], 0.0, "and do not spin");
    for r in &rows {
        // total = kinetic + rotational + potential + elastic (0: NSCD), as written.
        let total = r[4] + r[12] + r[5] + r[13];
        assert!(
            (r[14] - total).abs() <= 1e-12 * total.abs().max(1.0),
            "total energy {} != {total}",
            r[14]
        );
        assert_eq!(r[13], 0.0, "rigid contacts store no energy");
    }
    assert_eq!(
        (rows[0][17], rows[0][18]),
        (0.0, 0.0),
        "the start counts no new contact"
    );

    // frames.pvd names one .vtp per row, each holding every grain, and nothing else lies in frames/.
    let pvd = std::fs::read_to_string(out.join("frames.pvd")).unwrap();
    let frames = pvd_files(&pvd);
    assert_eq!(frames.len(), rows.len());
    assert_eq!(s["frames"], rows.len());
    for f in &frames {
        let vtp = std::fs::read_to_string(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(
            vtp.contains(&format!("NumberOfPoints=\"{GRAINS}\"")),
            "{f} does not hold {GRAINS} points"
        );
    }
    let on_disk = std::fs::read_dir(out.join("frames")).unwrap().count();
    assert_eq!(on_disk, frames.len(), "frames/ holds files the .pvd does not name");
}

#[test]
fn written_scene_is_complete_and_loads_again() {
    let tmp = TempDir::new().unwrap();
    let (out, o) = run_scene(tmp.path(), "small.toml", SMALL_HOURGLASS);
    assert_ok(&o);
    let written_path = out.join("scene.toml");
    let written = std::fs::read_to_string(&written_path).unwrap();

    // Every default written out.
    let table: toml::Table = written.parse().unwrap();
    let table_at = |t: &str| -> &toml::Table {
        t.split('.').fold(&table, |tab, part| {
            tab[part].as_table().unwrap_or_else(|| panic!("[{t}] is missing"))
        })
    };
    assert!(table.contains_key("version") && table.contains_key("gravity"));
    let expected: [(&str, &[&str]); 5] = [
        ("walls", &["hourglass", "neck_y"]),
        ("walls.hourglass", &["width", "bulb_height", "neck", "slope_deg", "fit"]),
        (
            "grains",
            &[
                "count",
                "radius_mean",
                "radius_std",
                "radius_min",
                "radius_max",
                "density",
                "seed",
            ],
        ),
        (
            "solver",
            &[
                "kind",
                "dt",
                "max_overlap",
                "itmax",
                "alert",
                "omega",
                "overlap_relax",
                "warm_start",
                "contact_capacity",
            ],
        ),
        ("run", &["steps", "every", "out", "settle", "settle_speed", "backend"]),
    ];
    for (t, want) in expected {
        for k in want {
            assert!(table_at(t).contains_key(*k), "scene.toml [{t}] lacks `{k}`:\n{written}");
        }
    }

    // It reads back to the resolved scene, and builds the same grains (the
    // backend named as `--backend cpu` named it: it resolves what the solver
    // `auto` leaves open, here `overlap_relax`).
    let mut small = Scene::load(&tmp.path().join("small.toml")).unwrap();
    small.run.backend = hourglass::scene::BackendChoice::Cpu;
    let original = build(&small).unwrap();
    let reloaded = Scene::load(&written_path).unwrap();
    let mut resolved = original.scene.clone();
    resolved.origin = reloaded.origin.clone();
    resolved.run.out = reloaded.run.out.clone();
    resolved.run.backend = reloaded.run.backend;
    assert_eq!(reloaded, resolved);
    assert_eq!(reloaded.to_toml(), written, "writing is not a fixed point");
    let again = build(&reloaded).unwrap();
    assert_eq!(again.grains.pos, original.grains.pos);
    assert_eq!(again.grains.radius, original.grains.radius);

    // And the binary runs it: same grains, the same first frame.
    let o = hourglass(tmp.path(), &["run", "out/scene.toml", "--out", "again", "--quiet"]);
    assert_ok(&o);
    let again_dir = tmp.path().join("again");
    assert_eq!(summary(&again_dir)["grains"], GRAINS);
    assert_eq!(summary(&again_dir)["lost_grains"], 0);
    let first = |d: &Path| std::fs::read(d.join("frames/frame_000000.vtp")).unwrap();
    assert_eq!(first(&out), first(&again_dir));
}

/// Regression: the written scene.toml kept a mesh path relative to the
/// working directory, which resolves against the result directory when it
/// is loaded again.
#[test]
fn written_scene_with_relative_mesh_loads_again() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("meshes")).unwrap();
    std::fs::create_dir_all(root.join("scenes")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/silo.msh"),
        root.join("meshes/silo.msh"),
    )
    .unwrap();
    let scene = "version = 1\n[walls]\nmesh = \"../meshes/silo.msh\"\n[grains]\ncount = 20\n[run]\nsteps = 2\nsettle = 0.0\nbackend = \"cpu\"\n";
    std::fs::write(root.join("scenes/silo.toml"), scene).unwrap();
    let o = hourglass(root, &["run", "scenes/silo.toml", "--out", "out", "--quiet"]);
    assert_ok(&o);
    let o = hourglass(root, &["run", "out/scene.toml", "--out", "again", "--quiet"]);
    assert_ok(&o);
    assert_eq!(summary(&root.join("again"))["grains"], 20);
    assert_eq!(summary(&root.join("again"))["lost_grains"], 0);
}

/// A tiny valid scene for the result-directory cases.
const TINY: &str = r#"version = 1
[walls]
segments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]
[grains]
count = 4
radius_std = 0.0
[run]
steps = 2
every = 1
"#;

#[test]
fn rejected_scene_leaves_previous_result_untouched() {
    let tmp = TempDir::new().unwrap();
    let (out, o) = run_scene(tmp.path(), "tiny.toml", TINY);
    assert_ok(&o);
    let before = snapshot(&out);
    assert!(before.contains_key(Path::new("summary.json")));

    let bad = TINY.replace("count = 4", "count = 4\nradius_mean = -0.003");
    let (_, o) = run_scene(tmp.path(), "bad.toml", &bad);
    assert!(!o.status.success());
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    // Validation fails before the directory is touched: the finished run stays whole.
    assert_eq!(snapshot(&out), before);
}

#[test]
fn run_that_fails_after_writing_began_leaves_no_summary() {
    let tmp = TempDir::new().unwrap();
    let (out, o) = run_scene(tmp.path(), "tiny.toml", TINY);
    assert_ok(&o);
    assert!(out.join("summary.json").is_file());

    // A directory where frames.pvd goes: the run cannot clear or write it.
    std::fs::remove_file(out.join("frames.pvd")).unwrap();
    std::fs::create_dir_all(out.join("frames.pvd/blocker")).unwrap();
    let (_, o) = run_scene(tmp.path(), "tiny.toml", TINY);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("frames.pvd") && err.contains("cannot write output"),
        "{err}"
    );
    assert!(
        !out.join("summary.json").exists(),
        "a failed run left the previous run's summary.json"
    );
}

/// dt = 0.1 s for millimetre grains used to let them jump through the walls
///. Now each step is split so that no pair closes by more than
/// the alert distance, and once even `MAX_SUBSTEPS` substeps are not enough
/// (grains at about 1 m/s after the first step) the run stops with one line
/// naming dt and the speed, exits non-zero (also with --quiet), writes no
/// summary.json, and its diagnostics still hold every grain.
#[test]
fn run_with_a_step_too_long_to_split_fails_with_one_line() {
    let tmp = TempDir::new().unwrap();
    let scene = "version = 1\n[walls.hourglass]\nfit = true\n[grains]\ncount = 200\n[solver]\ndt = 0.1\n";
    let (out, o) = run_scene(tmp.path(), "coarse.toml", scene);
    assert!(!o.status.success(), "a run with a step too long to split exited 0");
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.starts_with("hourglass: dt = 1e-1 s is too long for grains at ")
            && err.contains(&format!("more than {} substeps", hourglass::backend::MAX_SUBSTEPS))
            && err.contains("lower solver.dt or raise solver.alert"),
        "{err}"
    );
    assert!(!out.join("summary.json").exists(), "a failed run wrote summary.json");
    let csv = std::fs::read_to_string(out.join("diagnostics.csv")).unwrap();
    let last: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
    assert_eq!(last[2].parse::<u64>().unwrap(), 200, "{csv}");
}

#[test]
fn run_help_exits_zero() {
    let tmp = TempDir::new().unwrap();
    let o = hourglass(tmp.path(), &["run", "--help"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in [
        "--mesh",
        "--grains",
        "--backend",
        "--solver",
        "--duration",
        "--steps",
        "--out",
        "--every",
        "--window",
    ] {
        assert!(help.contains(flag), "`run --help` does not mention {flag}:\n{help}");
    }
}

#[test]
fn no_subcommand_fails_with_one_line() {
    let tmp = TempDir::new().unwrap();
    let o = hourglass(tmp.path(), &[]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("hourglass run"), "{err}");
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "it wrote something");
}

#[test]
fn study_rejects_bad_flags_with_one_line_and_writes_nothing() {
    let tmp = TempDir::new().unwrap();
    for (args, says) in [
        (&["study", "--solvers", "nlgs,dem"][..], "`dem` is not an NSCD solver"),
        (&["study", "--omegas", "0.5,1.5"][..], "1.5 is outside (0, 1]"),
        (&["study", "--omegas", "0"][..], "0 is outside (0, 1]"),
        (
            &["study", "--settle-itmax", "0"][..],
            "`--settle-itmax`: must be at least 1",
        ),
        (&["study", "--itmax", "0"][..], "`--itmax`: must be at least 1"),
    ] {
        let o = hourglass(tmp.path(), args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(
            std::fs::read_dir(tmp.path()).unwrap().count(),
            0,
            "{args:?} wrote something"
        );
    }
}

// The result directory is ours or refused: a run removes only what a run wrote.

/// A folder a user made: a render/ folder, notes in frames/, their own
/// diagnostics.csv and a .partial file, all names an older version removed.
fn users_folder(dir: &Path) {
    std::fs::create_dir_all(dir.join("render")).unwrap();
    std::fs::write(dir.join("render/figure.png"), b"mine").unwrap();
    std::fs::create_dir_all(dir.join("frames")).unwrap();
    std::fs::write(dir.join("frames/notes.txt"), b"notes").unwrap();
    std::fs::write(dir.join("diagnostics.csv"), b"a,b\n1,2\n").unwrap();
    std::fs::write(dir.join("thesis.partial"), b"chapter 1").unwrap();
}

fn run_tiny(dir: &Path, out: &str, extra: &[&str]) -> Output {
    std::fs::write(dir.join("tiny.toml"), TINY).unwrap();
    let mut args = vec!["run", "tiny.toml", "--out", out, "--quiet", "--backend", "cpu"];
    args.extend_from_slice(extra);
    hourglass(dir, &args)
}

#[test]
fn non_result_directory_is_refused_and_keeps_every_file() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    users_folder(&out);
    let before = snapshot(&out);
    let o = run_tiny(tmp.path(), "out", &[]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("out") && err.contains("not a result directory") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(snapshot(&out), before, "a refused run changed the folder");
}

#[test]
fn second_run_removes_the_old_frames_and_keeps_a_users_file() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    assert_ok(&run_tiny(tmp.path(), "out", &["--steps", "8"]));
    assert!(out.join(".hourglass-result").is_file());
    let first = std::fs::read_dir(out.join("frames")).unwrap().count();
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    std::fs::write(out.join("frames/notes.txt"), b"mine too").unwrap();

    assert_ok(&run_tiny(tmp.path(), "out", &["--steps", "2"]));
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
    assert_eq!(std::fs::read(out.join("frames/notes.txt")).unwrap(), b"mine too");
    let frames = pvd_files(&std::fs::read_to_string(out.join("frames.pvd")).unwrap());
    let mut on_disk: Vec<String> = std::fs::read_dir(out.join("frames"))
        .unwrap()
        .map(|e| format!("frames/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    on_disk.sort();
    let mut expected = frames.clone();
    expected.push("frames/notes.txt".into());
    expected.sort();
    assert!(frames.len() < first, "the second run should write fewer frames");
    assert_eq!(on_disk, expected, "the first run's frames were not removed");
    assert!(out.join("summary.json").is_file());
}

#[test]
fn force_writes_into_a_folder_and_keeps_its_files() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    users_folder(&out);
    // Their diagnostics.csv is a name a run writes: it is never overwritten.
    let o = run_tiny(tmp.path(), "out", &["--force"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("diagnostics.csv"), "{err}");
    assert_eq!(std::fs::read(out.join("diagnostics.csv")).unwrap(), b"a,b\n1,2\n");
    // The refused run claimed nothing: no list that names a file it never
    // wrote (a later run would otherwise delete the user's file of that name).
    assert!(!out.join(".hourglass-result").exists());
    assert!(!out.join("scene.toml").exists());

    std::fs::rename(out.join("diagnostics.csv"), tmp.path().join("kept.csv")).unwrap();
    let before = snapshot(&out);
    for _ in 0..2 {
        // --force, then a plain run into what is now a result directory.
        let o = run_tiny(tmp.path(), "out", &["--force"]);
        assert_ok(&o);
        assert!(out.join("summary.json").is_file());
        let after = snapshot(&out);
        for (path, bytes) in &before {
            if path != Path::new(".hourglass-result") {
                assert_eq!(after.get(path), Some(bytes), "{} changed", path.display());
            }
        }
    }
}

#[test]
fn out_of_range_flags_are_blamed_on_the_flag() {
    let tmp = TempDir::new().unwrap();
    for (args, flag) in [
        (&["run", "--duration", "1e300", "--backend", "cpu"][..], "`--duration`"),
        (&["run", "--grains", "1e12", "--backend", "cpu"][..], "`--grains`"),
        (
            &["run", "--grains", "1000000000000", "--backend", "cpu"][..],
            "`--grains`",
        ),
        (&["render", "somewhere", "--every", "0"][..], "`--every`"),
        (&["bench", "--sizes", "100,0", "--backend", "cpu"][..], "`--sizes`"),
        (&["bench", "--steps", "0", "--backend", "cpu"][..], "`--steps`"),
    ] {
        let o = hourglass(tmp.path(), args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(!err.contains("scene"), "{args:?} blames the scene: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed a table");
        assert_eq!(
            std::fs::read_dir(tmp.path()).unwrap().count(),
            0,
            "{args:?} wrote something"
        );
    }
}

#[test]
fn plot_of_an_interrupted_run_says_it_is_incomplete() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    assert_ok(&run_tiny(tmp.path(), "out", &[]));
    let o = hourglass(tmp.path(), &["plot", "out"]);
    assert_ok(&o);
    assert!(!stderr(&o).contains("incomplete"), "{}", stderr(&o));

    std::fs::remove_file(out.join("summary.json")).unwrap();
    let o = hourglass(tmp.path(), &["plot", "out"]);
    assert_ok(&o);
    let err = stderr(&o);
    let notices: Vec<_> = err.lines().filter(|l| l.contains("incomplete")).collect();
    assert_eq!(notices.len(), 1, "{err}");
    assert!(notices[0].contains("summary.json"), "{err}");
    assert!(out.join("plot_passed.png").is_file());
    // A later run removes the plots: they are listed as written by hourglass.
    assert_ok(&run_tiny(tmp.path(), "out", &[]));
    assert!(!out.join("plot_passed.png").exists());
}

#[test]
fn replay_render_and_plot_name_a_missing_result_directory() {
    let tmp = TempDir::new().unwrap();
    for cmd in ["plot", "render", "view"] {
        let o = hourglass(tmp.path(), &[cmd, "no_such_run"]);
        assert!(!o.status.success(), "{cmd} succeeded");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{cmd}: {err}");
        assert!(
            err.contains("no_such_run: result directory does not exist"),
            "{cmd}: {err}"
        );
    }
}
