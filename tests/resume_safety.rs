//! `hourglass run --resume DIR` is a transaction: every way it can refuse
//! (a scene whose walls, fill or emitters differ from the saved run's, a
//! missing or older diagnostics.csv, a damaged state.json) is one line naming
//! the file and the key at fault, and leaves DIR byte for byte as it was; a
//! resumed run that fails later keeps the summaries of the segments that
//! finished and stays resumable from its last good state.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A 0.10 m box of 45 grains (no gate: no settle phase), a row every 5 steps.
const WALLS_10: &str =
    "segments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]";

fn scene(walls: &str, grains: &str, extra: &str) -> String {
    format!(
        "version = 1\n[walls]\n{walls}\n[grains]\n{grains}\n[solver]\nkind = \"nlgs\"\n[run]\nevery = 5\nbackend = \"cpu\"\n{extra}"
    )
}

fn scene_a() -> String {
    scene(WALLS_10, "count = 45\nseed = 1", "")
}

fn hourglass(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A tempdir with `a.toml` (scene A) and the result directory `d` of A run for 10 steps.
struct Lab {
    tmp: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.toml"), scene_a()).unwrap();
        let lab = Lab { tmp };
        ok(&hourglass(&[
            "run",
            lab.path("a.toml").to_str().unwrap(),
            "--steps",
            "10",
            "--out",
            lab.dir().to_str().unwrap(),
            "-q",
        ]));
        assert!(lab.dir().join("summary.json").is_file());
        lab
    }

    fn path(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    fn dir(&self) -> PathBuf {
        self.path("d")
    }

    /// Write `text` as `b.toml`; its path.
    fn scene_b(&self, text: &str) -> PathBuf {
        let b = self.path("b.toml");
        std::fs::write(&b, text).unwrap();
        b
    }

    /// `hourglass run [SCENE] --resume d --steps STEPS -q`.
    fn resume(&self, scene: Option<&Path>, steps: u64) -> Output {
        let dir = self.dir();
        let steps = steps.to_string();
        let mut args = vec!["run"];
        if let Some(s) = scene {
            args.push(s.to_str().unwrap());
        }
        args.extend(["--resume", dir.to_str().unwrap(), "--steps", &steps, "-q"]);
        hourglass(&args)
    }

    /// Resume (with `scene`, else DIR/scene.toml) must be refused with one
    /// line and leave DIR byte for byte as it was; the line, without the
    /// `hourglass: ` prefix.
    fn refused(&self, scene: Option<&Path>) -> String {
        let before = snapshot(&self.dir());
        let o = self.resume(scene, 5);
        let after = snapshot(&self.dir());
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "not refused: {err}");
        assert_eq!(err.lines().count(), 1, "not one line: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            before == after,
            "DIR changed by a refused resume ({err}): {}",
            diff(&before, &after)
        );
        err.trim()
            .strip_prefix("hourglass: ")
            .unwrap_or_else(|| panic!("{err}"))
            .to_string()
    }

    fn state(&self) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(self.dir().join("state.json")).unwrap()).unwrap()
    }

    fn set_state(&self, state: &serde_json::Value) {
        std::fs::write(self.dir().join("state.json"), serde_json::to_string(state).unwrap()).unwrap();
    }
}

/// Every file under `dir` (relative path -> bytes), folders included as empty entries.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut all = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            if p.is_dir() {
                all.insert(rel, None);
                todo.push(p);
            } else {
                all.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    all
}

fn diff(a: &BTreeMap<PathBuf, Option<Vec<u8>>>, b: &BTreeMap<PathBuf, Option<Vec<u8>>>) -> String {
    let mut names: Vec<String> = Vec::new();
    for (k, v) in a {
        if b.get(k) != Some(v) {
            names.push(format!("{} changed or removed", k.display()));
        }
    }
    for k in b.keys().filter(|k| !a.contains_key(*k)) {
        names.push(format!("{} added", k.display()));
    }
    names.join(", ")
}

/// The message names `file` and the key `key` (in backquotes).
fn names(message: &str, file: &Path, key: &str) {
    assert!(
        message.contains(&file.display().to_string()),
        "does not name {}: {message}",
        file.display()
    );
    assert!(
        message.contains(&format!("`{key}`")),
        "does not name `{key}`: {message}"
    );
}

#[test]
fn an_added_emitter_is_refused_and_dir_is_unchanged() {
    let lab = Lab::new();
    let b = lab.scene_b(&format!(
        "{}\n[[emitters]]\nposition = [0.05, 0.08]\nradius = 0.003\ninterval = 0.01\ncount = 3\n",
        scene_a()
    ));
    let m = lab.refused(Some(&b));
    names(&m, &b, "emitters");
    assert!(m.contains("scene.toml"), "{m}");
    // A plain resume still goes on from the saved run.
    ok(&lab.resume(None, 5));
}

#[test]
fn a_missing_or_older_diagnostics_csv_is_refused_and_dir_is_unchanged() {
    let lab = Lab::new();
    let csv = lab.dir().join("diagnostics.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    // An older version's header (before the lab's columns).
    let old = text.replacen(
        hourglass::output::DIAGNOSTICS_HEADER,
        hourglass::output::DIAGNOSTICS_HEADER_BEFORE_LAB,
        1,
    );
    std::fs::write(&csv, &old).unwrap();
    let m = lab.refused(None);
    assert!(m.contains(&csv.display().to_string()), "{m}");
    assert!(m.contains("header"), "{m}");
    std::fs::remove_file(&csv).unwrap();
    let m = lab.refused(None);
    assert!(m.contains(&csv.display().to_string()), "{m}");
    // Put back, the run resumes.
    std::fs::write(&csv, &text).unwrap();
    ok(&lab.resume(None, 5));
}

#[test]
fn moved_or_smaller_walls_are_refused_and_dir_is_unchanged() {
    let lab = Lab::new();
    let saved = lab.dir().join("scene.toml");
    for walls in [
        "segments = [[0.0, 0.0, 0.12, 0.0], [0.12, 0.0, 0.12, 0.12], [0.12, 0.12, 0.0, 0.12], [0.0, 0.12, 0.0, 0.0]]",
        "segments = [[0.0, 0.0, 0.08, 0.0], [0.08, 0.0, 0.08, 0.08], [0.08, 0.08, 0.0, 0.08], [0.0, 0.08, 0.0, 0.0]]",
    ] {
        let b = lab.scene_b(&scene(walls, "count = 45\nseed = 1", ""));
        let m = lab.refused(Some(&b));
        names(&m, &b, "walls.segments");
        assert!(m.contains(&saved.display().to_string()), "{m}");
    }
}

#[test]
fn another_fill_count_or_seed_is_refused_and_dir_is_unchanged() {
    let lab = Lab::new();
    for (grains, key) in [
        ("count = 60\nseed = 1", "grains.count"),
        ("count = 45\nseed = 2", "grains.seed"),
    ] {
        let b = lab.scene_b(&scene(WALLS_10, grains, ""));
        let m = lab.refused(Some(&b));
        names(&m, &b, key);
    }
    // What may change does: another solver and dt.
    let b = lab.scene_b(&scene_a().replace("kind = \"nlgs\"", "kind = \"impulse\"\ndt = 0.0005"));
    ok(&lab.resume(Some(&b), 5));
    // Its rows come at earlier times than the first run's last (a smaller
    // dt): the state is still good to go on from.
    ok(&lab.resume(None, 5));
}

#[test]
fn a_resume_solves_to_the_tolerance_its_scene_states() {
    // Scene A states no tolerance: the run adapts one to the default
    // max_overlap and saves it.
    let lab = Lab::new();
    let adapted = lab.state()["tally"]["tol"].as_f64().expect("an adapted tol");
    assert!(adapted < 4e-6, "{adapted}");
    let b = lab.scene_b(&scene_a().replace("kind = \"nlgs\"", "kind = \"nlgs\"\ntol = 5e-6"));
    ok(&lab.resume(Some(&b), 5));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(lab.dir().join("summary.json")).unwrap()).unwrap();
    // The resumed steps were solved to the stated 5e-6 m, not the saved tolerance.
    assert_eq!(summary["tol_range"][1].as_f64(), Some(f64::from(5e-6f32)), "{summary}");
    assert!(summary["max_overlap_target"].is_null(), "{summary}");
    assert!(lab.state()["tally"]["tol"].is_null());
    // Back to the default target, the run adapts again from its ceiling.
    ok(&lab.resume(None, 5));
    ok(&lab.resume(Some(&lab.scene_b(&scene_a())), 5));
    assert!(lab.state()["tally"]["tol"].as_f64().unwrap() < 4e-6);
}

/// A change to a state.json.
type Damage = Box<dyn Fn(&mut serde_json::Value)>;

#[test]
fn a_damaged_state_is_refused_naming_state_json_and_dir_is_unchanged() {
    let lab = Lab::new();
    let good = lab.state();
    let path = lab.dir().join("state.json");
    let cases: Vec<(&str, Damage)> = vec![
        (
            "grains.radius",
            Box::new(|s| s["grains"]["radius"][3] = (-0.003).into()),
        ),
        ("grains.radius", Box::new(|s| s["grains"]["radius"][0] = 0.0.into())),
        (
            "grains.inv_mass",
            Box::new(|s| s["grains"]["inv_mass"][7] = (-1.0).into()),
        ),
        ("step", Box::new(|s| s["step"] = u64::MAX.into())),
        (
            "grains.id",
            Box::new(|s| s["grains"]["id"][1] = s["grains"]["id"][0].clone()),
        ),
        ("grains.pos", Box::new(|s| s["grains"]["pos"][2][1] = (-1e30).into())),
        ("frames", Box::new(|s| s["frames"][1][1] = "../../elsewhere.vtp".into())),
        ("waiting", Box::new(|s| s["emitted"] = vec![0].into())),
        ("tally.tol", Box::new(|s| s["tally"]["tol"] = (-2e-6).into())),
        (
            "tally.tightening.reference",
            Box::new(|s| s["tally"]["tightening"]["reference"] = (-1.0).into()),
        ),
        (
            "tally.tightening.from",
            Box::new(|s| s["tally"]["tightening"]["from"] = (-1.0).into()),
        ),
        (
            "grains.vel",
            Box::new(|s| {
                s["grains"]["vel"].as_array_mut().unwrap().pop();
            }),
        ),
    ];
    for (key, damage) in cases {
        let mut s = good.clone();
        damage(&mut s);
        lab.set_state(&s);
        let m = lab.refused(None);
        names(&m, &path, key);
    }
    lab.set_state(&good);
    ok(&lab.resume(None, 5));
}

/// A state whose counts are consistent but leave no room for the steps asked.
#[test]
fn a_state_without_room_for_the_steps_is_refused() {
    let lab = Lab::new();
    let mut s = lab.state();
    let big = u64::MAX - 2;
    s["step"] = big.into();
    s["backend_steps"] = big.into();
    s["discharge_steps"] = big.into();
    s["tally"]["steps"] = big.into();
    lab.set_state(&s);
    let m = lab.refused(None);
    names(&m, &lab.dir().join("state.json"), "step");
}

/// The file names of `dir/segments`, sorted.
fn segments(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("segments"))
        .map(|r| {
            r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn each_finished_segment_keeps_its_summary() {
    let lab = Lab::new();
    let dir = lab.dir();
    let first = std::fs::read(dir.join("summary.json")).unwrap();
    ok(&lab.resume(None, 5));
    assert_eq!(segments(&dir), ["summary_000000.json"]);
    assert_eq!(std::fs::read(dir.join("segments/summary_000000.json")).unwrap(), first);
    let second = std::fs::read(dir.join("summary.json")).unwrap();
    let s: serde_json::Value = serde_json::from_slice(&second).unwrap();
    assert_eq!(s["steps"], 15);
    // Its rates are of the 5 steps it took, in its own wall time.
    let (rate, wall) = (
        s["steps_per_second"].as_f64().unwrap(),
        s["wall_seconds"].as_f64().unwrap(),
    );
    assert!((rate * wall - 5.0).abs() < 1e-6, "{rate} steps/s over {wall} s");
    let grain_rate = s["grain_steps_per_second"].as_f64().unwrap();
    assert!(
        (grain_rate * wall - 5.0 * 45.0).abs() < 1e-4,
        "{grain_rate} grain-steps/s over {wall} s"
    );
    ok(&lab.resume(None, 5));
    assert_eq!(segments(&dir), ["summary_000000.json", "summary_000001.json"]);
    assert_eq!(std::fs::read(dir.join("segments/summary_000001.json")).unwrap(), second);
    let summaries = hourglass::output::read::segments(&dir).unwrap();
    assert_eq!(summaries.iter().map(|s| s.steps).collect::<Vec<_>>(), [10, 15]);
    // The manifest lists them: a new run into DIR removes them.
    let manifest = std::fs::read_to_string(dir.join(".hourglass-result")).unwrap();
    assert!(
        manifest.lines().any(|l| l == "segments/summary_000001.json"),
        "{manifest}"
    );
    ok(&hourglass(&[
        "run",
        lab.path("a.toml").to_str().unwrap(),
        "--steps",
        "5",
        "--out",
        dir.to_str().unwrap(),
        "-q",
    ]));
    assert!(!dir.join("segments").exists());
}

#[test]
fn a_resumed_run_that_loses_grains_keeps_the_summary_and_stays_resumable() {
    let lab = Lab::new();
    let dir = lab.dir();
    let first = std::fs::read(dir.join("summary.json")).unwrap();
    let good_step = lab.state()["step"].as_u64().unwrap();
    // A spring law too soft to hold the grains: they fall through the floor.
    let soft = scene_a().replace("kind = \"nlgs\"", "kind = \"spring\"\ndt = 0.002") + "[spring]\nks = 0.001\n";
    let b = lab.scene_b(&soft);
    let o = lab.resume(Some(&b), 2000);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("grains lost"), "{err}");
    assert!(!dir.join("summary.json").exists());
    assert_eq!(std::fs::read(dir.join("segments/summary_000000.json")).unwrap(), first);
    // The state is the last one with every grain inside the walls.
    let state = lab.state();
    let step = state["step"].as_u64().unwrap();
    assert!(step >= good_step, "{step} < {good_step}");
    for p in state["grains"]["pos"].as_array().unwrap() {
        let y = p[1].as_f64().unwrap();
        assert!(y > -0.01, "a grain of the saved state is out of the box: y = {y}");
    }
    // Resumable from it with the first scene.
    let a = lab.path("a.toml");
    ok(&lab.resume(Some(&a), 5));
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["steps"], step + 5);
    assert_eq!(s["lost_grains"], 0);
    assert_eq!(std::fs::read(dir.join("segments/summary_000000.json")).unwrap(), first);
}
