//! Property tests: the scene parser and the gmsh reader, fed arbitrary bytes
//! and damaged copies of the committed inputs (`scenes/*.toml`,
//! `meshes/*.msh`: bytes flipped, cut, deleted or duplicated), never panic,
//! and every error they return names the file it is about. So does
//! state.json as `run --resume` reads it, damaged byte by byte or value by
//! value from a real run's.
//!
//! Case counts are bounded ([`CASES`]) so the whole file runs in a few
//! seconds in release; raise `PROPTEST_CASES` for a longer hunt.

use std::path::{Path, PathBuf};

use hourglass::scene::Scene;
use hourglass::scene::gmsh::parse_msh;
use proptest::prelude::*;

/// Cases per property unless `PROPTEST_CASES` says otherwise (each case
/// parses one input of at most a few KB: 4 x 4000 cases take about a second).
const CASES: u32 = 4000;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok());
    ProptestConfig::with_cases(cases.unwrap_or(CASES))
}

fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The committed files of `dir` ending in `.ext`, as bytes, sorted by name.
fn corpus(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(crate_root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no *.{ext} in {dir}");
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// One damage to a file; positions are fractions of its length, so a
/// strategy does not depend on which file it hits.
#[derive(Debug, Clone)]
enum Mutation {
    /// Set the byte at `at` to `byte`.
    Set { at: f64, byte: u8 },
    /// Replace the byte at `at` with one that changes a number or a token.
    Digit { at: f64, pick: usize },
    /// Cut the file at `at`.
    Truncate { at: f64 },
    /// Remove `len` bytes from `at`.
    Delete { at: f64, len: usize },
    /// Copy `len` bytes from `from` and insert them at `at`.
    Duplicate { from: f64, len: usize, at: f64 },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let frac = 0.0..1.0f64;
    prop_oneof![
        (frac.clone(), any::<u8>()).prop_map(|(at, byte)| Mutation::Set { at, byte }),
        (frac.clone(), 0..16usize).prop_map(|(at, pick)| Mutation::Digit { at, pick }),
        frac.clone().prop_map(|at| Mutation::Truncate { at }),
        (frac.clone(), 1..64usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (frac.clone(), 1..256usize, frac).prop_map(|(from, len, at)| Mutation::Duplicate { from, len, at }),
    ]
}

fn index(len: usize, at: f64) -> usize {
    ((len as f64 * at) as usize).min(len)
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    match *m {
        Mutation::Set { at, byte } if len > 0 => bytes[index(len - 1, at)] = byte,
        Mutation::Digit { at, pick } if len > 0 => {
            const SWAPS: &[u8] = b"0123456789-.e+ \n";
            bytes[index(len - 1, at)] = SWAPS[pick % SWAPS.len()];
        }
        Mutation::Truncate { at } => bytes.truncate(index(len, at)),
        Mutation::Delete { at, len: n } => {
            let start = index(len, at);
            bytes.drain(start..(start + n).min(len));
        }
        Mutation::Duplicate { from, len: n, at } => {
            let start = index(len, from);
            let copy = bytes[start..(start + n).min(len)].to_vec();
            let at = index(len, at);
            bytes.splice(at..at, copy);
        }
        _ => {}
    }
}

/// A committed file (picked by `pick`) with `mutations` applied in turn.
fn damaged(files: &[Vec<u8>], pick: usize, mutations: &[Mutation]) -> Vec<u8> {
    let mut bytes = files[pick % files.len()].clone();
    for m in mutations {
        apply(&mut bytes, m);
    }
    bytes
}

/// Parse scene bytes the way `Scene::load` does, then check every field;
/// an error must name the file.
fn check_scene(bytes: &[u8]) -> Result<(), TestCaseError> {
    let path = Path::new("fuzz/scene.toml");
    let text = String::from_utf8_lossy(bytes);
    let result = Scene::parse(&text, path).and_then(|scene| scene.validate());
    if let Err(e) = result {
        let message = e.to_string();
        prop_assert!(
            message.contains("fuzz/scene.toml"),
            "error does not name the file: {}",
            message
        );
        prop_assert!(!message.contains('\n'), "error is not one line: {}", message);
    }
    Ok(())
}

/// Read mesh bytes; an error must name the file.
fn check_mesh(bytes: &[u8]) -> Result<(), TestCaseError> {
    let path = Path::new("fuzz/mesh.msh");
    if let Err(e) = parse_msh(bytes, path) {
        let message = e.to_string();
        prop_assert!(
            message.contains("fuzz/mesh.msh"),
            "error does not name the file: {}",
            message
        );
        prop_assert!(!message.contains('\n'), "error is not one line: {}", message);
    }
    Ok(())
}

/// Headers that get random bytes past `$MeshFormat`, into the section readers.
const MESH_HEADERS: [&[u8]; 4] = [
    b"",
    b"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n",
    b"$MeshFormat\n4.1 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n",
    b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n",
];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn scene_parser_survives_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
        check_scene(&bytes)?;
    }

    #[test]
    fn scene_parser_survives_damaged_scenes(
        pick in 0..64usize,
        mutations in proptest::collection::vec(mutation(), 1..5),
    ) {
        let files = corpus("scenes", "toml");
        check_scene(&damaged(&files, pick, &mutations))?;
    }

    #[test]
    fn mesh_reader_survives_arbitrary_bytes(
        header in 0..MESH_HEADERS.len(),
        bytes in proptest::collection::vec(any::<u8>(), 0..1024),
    ) {
        let mut input = MESH_HEADERS[header].to_vec();
        input.extend_from_slice(&bytes);
        check_mesh(&input)?;
    }

    #[test]
    fn mesh_reader_survives_damaged_meshes(
        pick in 0..64usize,
        mutations in proptest::collection::vec(mutation(), 1..5),
    ) {
        let files = corpus("meshes", "msh");
        check_mesh(&damaged(&files, pick, &mutations))?;
    }
}

/// The walls of the table below: a 10 cm box.
const BOX: &str =
    "[walls]\nsegments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]\n";

/// Every error a bad scene or flag gives names the file (or "command line")
/// and the dotted key or the flag at fault, whichever stage finds it: the
/// field checks, the build, the contact grid or the start state.
#[test]
fn every_error_names_the_file_and_the_key_or_flag() {
    let emitter = |body: &str| format!("{BOX}[grains]\ncount = 0\n[[emitters]]\ninterval = 0.01\n{body}\n");
    let grains = "[grains]\ncount = 4\nradius_std = 0.0\nregion = [0.0, 0.06, 0.1, 0.1]\n";
    let scenes: Vec<(String, &str)> = vec![
        (format!("{BOX}[grains]\nlist = [[0.05, 0.05, 0.0, 0.0, 3.4e38]]\n"), "grains.list[0]"),
        (format!("{BOX}[grains]\nlist = [[0.05, 0.05, 0.0, 0.0, 0.003], [1e8, 0.05, 0.0, 0.0, 0.003]]\n"), "grains.list[1]"),
        (emitter("position = [0.05, 0.05]\nradius = 3.4e38\ncount = 1"), "emitters[0].radius"),
        (emitter("position = [0.05, 0.05]\nradius = 0.2\ncount = 1"), "emitters[0].radius"),
        (emitter("position = [0.05, 0.5]\nradius = 0.003\ncount = 1"), "emitters[0].position"),
        (emitter("position = [0.05, 0.001]\nradius = 0.003\ncount = 1"), "emitters[0].position"),
        (emitter("position = [0.05, 0.05]\njitter = 0.06\nradius = 0.003\ncount = 20"), "emitters[0].jitter"),
        (emitter("position = [0.05, 0.05]\nradius = 0.003\ncount = 1000000000"), "emitters[0].count"),
        (format!("{}gate = [[0.0, 0.05, 3.7e11, 0.05]]\n{grains}[solver]\nkind = \"dem\"\n", BOX), "walls.gate[0]"),
        (format!("{}gate = [[0.0, 0.05, 1e8, 0.05]]\n{grains}[solver]\nkind = \"dem\"\n", BOX), "walls.gate"),
        (format!("{}gate = [[0.0, 0.05, 1e8, 0.05]]\n{grains}[solver]\nkind = \"nlgs\"\n", BOX), "walls.gate"),
        (
            "[walls]\nsegments = [[0.0, 0.0, 300.0, 0.0], [300.0, 0.0, 300.0, 300.0], [300.0, 300.0, 0.0, 300.0], [0.0, 300.0, 0.0, 0.0]]\n[grains]\ncount = 4\nradius_std = 0.0\nregion = [0.0, 0.0, 0.1, 0.1]\n".to_string(),
            "walls.segments",
        ),
        (format!("{BOX}{grains}[solver]\nkind = \"nlgs\"\n[crowd]\ndoor = [0.04, 0.0, 0.06, 0.0]\n"), "crowd"),
        (format!("{BOX}{grains}[forcing]\nsigma = 1e-300\n"), "forcing.sigma"),
        (format!("{BOX}{grains}[dem]\nmu_roll = 1e-300\n[solver]\nkind = \"dem\"\n"), "dem.mu_roll"),
    ];
    for (text, key) in &scenes {
        let text = format!("version = 1\n{text}[run]\nsteps = 1\nbackend = \"cpu\"\n");
        let scene = Scene::parse(&text, Path::new("table/bad.toml")).unwrap();
        let result = hourglass::scene::build(&scene).and_then(|setup| {
            let grid = hourglass::backend::grid_for(&setup)?;
            hourglass::backend::check_initial_state(&setup, &grid)
        });
        let message = match result {
            Ok(()) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        };
        assert!(
            message.starts_with(&format!("table/bad.toml: field `{key}`: ")),
            "the error should name table/bad.toml and `{key}`, got: {message}\n{text}"
        );
    }

    let tmp = tempfile::TempDir::new().unwrap();
    let scene = tmp.path().join("tiny.toml");
    std::fs::write(
        &scene,
        format!("version = 1\n{BOX}[grains]\ncount = 4\nradius_std = 0.0\n[run]\nsteps = 1\nbackend = \"cpu\"\n"),
    )
    .unwrap();
    let mesh = tmp.path().join("tinybox.msh");
    std::fs::write(
        &mesh,
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 0.01 0 0\n3 0.01 0.01 0\n4 0 0.01 0\n$EndNodes\n\
         $Elements\n4\n1 1 2 0 1 1 2\n2 1 2 0 1 2 3\n3 1 2 0 1 3 4\n4 1 2 0 1 4 1\n$EndElements\n",
    )
    .unwrap();
    let (scene, mesh) = (scene.to_str().unwrap(), mesh.to_str().unwrap());
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    let flags: [(Vec<&str>, &str); 4] = [
        (
            vec!["run", scene, "--out", out, "--ks", "5000", "--solver", "nlgs"],
            "--ks",
        ),
        (vec!["run", "--mesh", mesh, "--grains", "50", "--out", out], "--grains"),
        (vec!["run", scene, "--out", out, "--grains", "1e9"], "--grains"),
        (vec!["bench", "--backend", "cpu", "--sizes", "1000000000"], "--sizes"),
    ];
    for (args, flag) in &flags {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} exited 0");
        assert!(
            stderr.starts_with(&format!("hourglass: command line: field `{flag}`: ")) && stderr.lines().count() == 1,
            "`hourglass {}` should name `{flag}` in one line, got: {stderr}",
            args.join(" ")
        );
    }
}

// ---- state.json (`run --resume`) ----------------------------------------

/// A 0.10 m box of 30 grains, a row every 5 steps: its result directory
/// after 10 steps holds a real state.json with contact lists.
const STATE_SCENE: &str = "version = 1\n[walls]\nsegments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]\n[grains]\ncount = 30\n[solver]\nkind = \"nlgs\"\n[run]\nevery = 5\nbackend = \"cpu\"\n";

/// A result directory of [`STATE_SCENE`] run for 10 steps, made once.
fn saved_run() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let scene = tmp.path().join("box.toml");
        std::fs::write(&scene, STATE_SCENE).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
            .args(["run", scene.to_str().unwrap(), "--steps", "10", "-q", "--out"])
            .arg(tmp.path().join("d"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        tmp
    })
    .path()
}

fn saved_state() -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(saved_run().join("d/state.json")).unwrap()).unwrap()
}

/// Read `bytes` as DIR/state.json; an error must be one line naming the file.
fn check_state(bytes: &[u8]) -> Result<Option<String>, TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("state.json");
    std::fs::write(&path, bytes).unwrap();
    match hourglass::sim::State::<hourglass::model::Dim2>::read(tmp.path()) {
        Ok(_) => Ok(None),
        Err(e) => {
            let message = e.to_string();
            prop_assert!(
                message.contains(&path.display().to_string()),
                "error does not name the file: {}",
                message
            );
            prop_assert!(!message.contains('\n'), "error is not one line: {}", message);
            Ok(Some(message))
        }
    }
}

/// Damage `state` at `pointer` (a JSON pointer): set it, or drop or repeat an array's last entry.
fn damage(state: &mut serde_json::Value, pointer: &str, to: serde_json::Value) {
    *state.pointer_mut(pointer).unwrap_or_else(|| panic!("{pointer}")) = to;
}

#[test]
fn damaged_state_values_are_one_error_naming_state_json_and_the_key() {
    use serde_json::json;
    let good = saved_state();
    assert!(
        good["contacts"]["words"].as_array().is_some_and(|w| !w.is_empty()),
        "no saved contacts"
    );
    let n = good["grains"]["id"].as_array().unwrap().len();
    let shorter = |v: &serde_json::Value| {
        let mut v = v.as_array().unwrap().clone();
        v.pop();
        serde_json::Value::Array(v)
    };
    let cases: Vec<(&str, &str, serde_json::Value)> = vec![
        ("grains.radius", "/grains/radius/3", json!(-0.003)),
        ("grains.radius", "/grains/radius/0", json!(0.0)),
        ("grains.inv_mass", "/grains/inv_mass/5", json!(-2.0)),
        ("grains.id", "/grains/id/1", good["grains"]["id"][0].clone()),
        ("grains.id", "/grains/id/2", json!(n)),
        ("grains.vel", "/grains/vel", shorter(&good["grains"]["vel"])),
        ("grains.angle", "/grains/angle", shorter(&good["grains"]["angle"])),
        ("grains.ang_vel", "/grains/ang_vel", shorter(&good["grains"]["ang_vel"])),
        ("step", "/step", json!(u64::MAX)),
        ("tally.steps", "/tally/steps", json!(3)),
        ("discharge_start", "/discharge_start", json!(-1.0)),
        ("speed", "/speed", json!(-1.0)),
        ("waiting", "/waiting", json!([true])),
        ("passed", "/passed", shorter(&good["passed"])),
        ("frames", "/frames", shorter(&good["frames"])),
        ("times", "/times/1", json!(-5.0)),
        ("contacts.words", "/contacts/words/0", json!(1_000_000)),
        ("contacts.words", "/contacts/words", shorter(&good["contacts"]["words"])),
        (
            "contacts.order",
            "/contacts/order/1",
            good["contacts"]["order"][0].clone(),
        ),
    ];
    for (key, pointer, to) in cases {
        let mut s = good.clone();
        damage(&mut s, pointer, to);
        let message = check_state(serde_json::to_string(&s).unwrap().as_bytes())
            .unwrap()
            .unwrap_or_else(|| panic!("{pointer} damaged was read as a good state"));
        assert!(
            message.contains(&format!("`{key}`")),
            "{pointer}: does not name `{key}`: {message}"
        );
    }
    assert_eq!(
        check_state(serde_json::to_string(&good).unwrap().as_bytes()).unwrap(),
        None
    );
}

/// Every number and flag of a state, as JSON pointers.
fn leaves(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| leaves(x, format!("{at}/{i}"), out)),
        serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| leaves(x, format!("{at}/{k}"), out)),
        _ => out.push(at),
    }
}

/// Values that break a state field's domain or its consistency with the others.
fn nasty() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    prop_oneof![
        Just(json!(-1.0)),
        Just(json!(0.0)),
        Just(json!(-0.003)),
        Just(json!(1e30)),
        Just(json!(-1e30)),
        Just(json!(1e-40)),
        Just(json!(4294967296u64)),
        Just(json!(u64::MAX)),
        Just(json!(true)),
        (0..100u64).prop_map(|k| json!(k)),
    ]
}

proptest! {
    // Each case runs the binary (tens of milliseconds).
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48)
    ))]

    /// One value of a real state set to a nasty one, and in some cases
    /// its bytes damaged too, then `run --resume`: the run goes on or stops
    /// with one line, never a panic, and a refusal that names state.json
    /// leaves the directory as it was.
    #[test]
    fn resume_survives_damaged_state_values(
        pick in any::<proptest::sample::Index>(),
        to in nasty(),
        bytes in proptest::option::of(proptest::collection::vec(mutation(), 1..4)),
    ) {
        let mut state = saved_state();
        let mut all = Vec::new();
        leaves(&state, String::new(), &mut all);
        let pointer = pick.get(&all).clone();
        damage(&mut state, &pointer, to);
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        std::fs::create_dir_all(dir.join("frames")).unwrap();
        let mut before = std::collections::BTreeMap::new();
        for rel in [".hourglass-result", "scene.toml", "diagnostics.csv", "summary.json", "frames.pvd", "walls.vtp"] {
            std::fs::copy(saved_run().join("d").join(rel), dir.join(rel)).unwrap();
        }
        let text = serde_json::to_string(&state).unwrap().into_bytes();
        let text = damaged(&[text], 0, bytes.as_deref().unwrap_or_default());
        if bytes.is_some() {
            check_state(&text)?;
        }
        std::fs::write(dir.join("state.json"), &text).unwrap();
        for e in std::fs::read_dir(saved_run().join("d/frames")).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join("frames").join(e.file_name())).unwrap();
        }
        for e in walk(&dir) {
            before.insert(e.clone(), std::fs::read(&e).unwrap());
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
            .args(["run", "--resume", dir.to_str().unwrap(), "--steps", "5", "-q"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        prop_assert!(!err.contains("panicked"), "{}: {}", pointer, err);
        prop_assert!(matches!(out.status.code(), Some(0 | 1)), "{}: {:?} {}", pointer, out.status, err);
        if !out.status.success() {
            prop_assert_eq!(err.lines().count(), 1, "{}: {}", pointer, err);
            if err.contains("state.json") {
                let after: std::collections::BTreeMap<PathBuf, Vec<u8>> =
                    walk(&dir).into_iter().map(|p| { let b = std::fs::read(&p).unwrap(); (p, b) }).collect();
                prop_assert!(before == after, "{}: a refused resume changed DIR: {}", pointer, err);
            }
        }
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}
