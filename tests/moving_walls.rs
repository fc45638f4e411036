//! Walls that move (`[[motion]]`): a wall's velocity enters the contact's
//! relative velocity, normal and tangential; grains ride, roll and are
//! turned over with the walls and none is lost to a wall, however fast it
//! sweeps; bad motions are refused naming their key.

use std::path::Path;

use hourglass::backend::{check_initial_state, cpu_backend, grid_for, refuse_unrunnable};
use hourglass::model::Grains;
use hourglass::output::{ResultDir, Summary};
use hourglass::scene::{BackendChoice, Scene, Setup, build};
use hourglass::sim;

fn setup(text: &str) -> hourglass::Result<Setup> {
    build(&Scene::parse(
        &format!("version = 1\n{text}"),
        Path::new("moving.toml"),
    )?)
}

/// Build, check and run `text` on the CPU: its summary, the grains at the
/// end, and the directory holding the results (diagnostics.csv in `out`).
fn run(text: &str) -> (Summary, Grains, tempfile::TempDir) {
    let setup = setup(text).unwrap();
    let grid = grid_for(&setup).unwrap();
    check_initial_state(&setup, &grid).unwrap();
    let mut backend = cpu_backend(&setup, grid);
    let dir = tempfile::tempdir().unwrap();
    let mut out = ResultDir::create(&dir.path().join("out"), &setup.scene.to_toml()).unwrap();
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    (summary, backend.grains().unwrap().clone(), dir)
}

/// (time, passed) of every row of `dir`/out/diagnostics.csv.
fn passed(dir: &tempfile::TempDir) -> Vec<(f64, u64)> {
    let mut r = csv::Reader::from_path(dir.path().join("out/diagnostics.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (t, p) = (col("time"), col("passed"));
    r.records()
        .map(|row| {
            let row = row.unwrap();
            (row[t].parse().unwrap(), row[p].parse().unwrap())
        })
        .collect()
}

/// A floor 4 m long under one grain of radius 3 mm resting on it at x = 0.
const FLOOR_AND_GRAIN: &str =
    "[walls]\nsegments = [[-1.0, 0.0, 3.0, 0.0]]\n[grains]\nlist = [[0.0, 0.003, 0.0, 0.0, 0.003]]\n";

#[test]
fn a_grain_on_a_rising_floor_rises_with_it_and_never_sinks_into_it() {
    let (summary, g, _) = run(&format!(
        "{FLOOR_AND_GRAIN}[[motion]]\ntranslate = {{ velocity = [0.0, 0.05] }}\nend = 0.5\n[run]\nduration = 0.4\nevery = 10\n"
    ));
    assert_eq!(summary.lost_grains, 0);
    // The floor is at y = 0.05 t: at 0.4 s, 20 mm up; the grain rests on it.
    let y = f64::from(g.pos[0][1]);
    assert!((y - (0.02 + 0.003)).abs() < 2e-5, "y = {y}");
    assert!((f64::from(g.vel[0][1]) - 0.05).abs() < 1e-4, "v_y = {}", g.vel[0][1]);
    // No overlap beyond the slop the solver keeps at rest (1e-5 m).
    assert!(summary.max_overlap < 1.2e-5, "max overlap {} m", summary.max_overlap);
}

#[test]
fn a_disk_on_a_conveyor_ends_rolling_at_a_third_of_the_belt_speed() {
    // Coulomb friction drives the disk forward and spins it up until its
    // contact point moves with the belt: v + w r = V with m dv = F dt and
    // (m r^2 / 2) dw = F r dt, so v = V / 3 and w r = 2 V / 3, reached at
    // t = V / (3 mu g) = 6.8 ms here.
    let belt = 0.1;
    let (summary, g, _) = run(&format!(
        "{FLOOR_AND_GRAIN}[solver]\nmu = 0.5\nmu_wall = 0.5\n[[motion]]\ntranslate = {{ velocity = [{belt}, 0.0] }}\nend = 1.0\n[run]\nduration = 0.2\nevery = 10\n"
    ));
    assert_eq!(summary.lost_grains, 0);
    let (v, wr) = (f64::from(g.vel[0][0]), f64::from(g.ang_vel[0] * g.radius[0]));
    assert!((v - belt / 3.0).abs() < 1e-3 * belt, "v = {v}, expected {}", belt / 3.0);
    assert!((wr - 2.0 * belt / 3.0).abs() < 1e-3 * belt, "w r = {wr}");
    // Rolling, it has moved V t / 3 along.
    let x = f64::from(g.pos[0][0]);
    assert!((x - belt * 0.2 / 3.0).abs() < 1e-4, "x = {x}");
}

#[test]
fn a_wall_faster_than_the_alert_distance_per_step_splits_the_step_and_loses_no_grain() {
    // A floor rising at 12 m/s closes 12 mm per 1 ms step, three times the
    // alert distance (4 mm), on a grain 5 mm above it: unsplit, the first
    // step finds no contact and ends with the floor past the grain's centre.
    let (summary, g, _) = run(
        "[walls]\nsegments = [[-1.0, 0.0, 3.0, 0.0]]\n[grains]\nlist = [[0.0, 0.008, 0.0, 0.0, 0.003]]\n[solver]\ndt = 0.001\n[[motion]]\ntranslate = { velocity = [0.0, 12.0] }\nend = 0.02\n[run]\nduration = 0.02\nevery = 5\n",
    );
    assert_eq!(summary.lost_grains, 0);
    assert!(summary.subdivided_steps > 0 && summary.max_substeps >= 4, "{summary:?}");
    // The floor is at 0.24 m; the grain rides on it at its speed.
    let y = f64::from(g.pos[0][1]);
    assert!(y > 0.24 && y < 0.24 + 0.004, "y = {y}");
    assert!((f64::from(g.vel[0][1]) - 12.0).abs() < 0.05, "v_y = {}", g.vel[0][1]);
}

#[test]
fn an_hourglass_turned_over_discharges_twice_and_loses_nothing() {
    let n = 300;
    let (summary, _, dir) = run(&format!(
        "[grains]\ncount = {n}\n[[motion]]\nstart = 1.2\nturn = {{ center = [0.0, 0.0], duration = 0.6 }}\n[run]\nduration = 3.2\nevery = 20\n"
    ));
    assert_eq!(summary.lost_grains, 0);
    let rows = passed(&dir);
    let at = |t: f64| rows.iter().find(|r| r.0 >= t - 1e-9).map(|r| r.1).unwrap();
    // All through before the turn (1.2 s after the gate opens) ...
    let open = summary.discharge_start;
    assert_eq!(at(open + 1.2), n, "{rows:?}");
    // ... turned over, the passed grains are above the neck again ...
    assert!(at(open + 1.8) < n / 10, "{rows:?}");
    // ... and all through once more at the end.
    assert_eq!(rows.last().unwrap().1, n, "{rows:?}");
}

/// Every solver the GPU runs moves walls there: a scene with `[[motion]]`
/// is accepted on `--backend gpu` by the DEM, the spring model and the NSCD
/// solvers.
#[test]
fn moving_walls_are_accepted_on_the_gpu_by_every_gpu_solver() {
    for kind in ["dem", "spring", "jacobi"] {
        let s = setup(&format!(
            "[grains]\ncount = 50\n[solver]\nkind = \"{kind}\"\n[[motion]]\nrotate = {{ center = [0.0, 0.0], rate = 1.0 }}\n"
        ))
        .unwrap();
        assert!(s.moves_walls(), "{kind}");
        for choice in [BackendChoice::Gpu, BackendChoice::Auto, BackendChoice::Cpu] {
            let r = refuse_unrunnable(&s, choice);
            assert!(r.is_ok(), "{kind} on {choice:?}: {:?}", r.err());
        }
    }
}

#[test]
fn bad_motions_are_refused_naming_their_key() {
    let box_ = "[walls]\nsegments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]\n[grains]\ncount = 5\n";
    let cases = [
        ("[[motion]]\nspin = { rate = 1.0 }\n", "spin"),
        ("[[motion]]\n", "give exactly one of"),
        (
            "[[motion]]\nrotate = { center = [0.0, 0.0], rate = 1.0 }\ntranslate = { velocity = [1.0, 0.0] }\nend = 1.0\n",
            "give exactly one of",
        ),
        (
            "[[motion]]\nvibrate = { amplitude = 0.001, frequency = -5.0, direction = [0.0, 1.0] }\n",
            "motion[0].vibrate.frequency",
        ),
        (
            "[[motion]]\nvibrate = { amplitude = 0.001, frequency = 5.0, direction = [0.0, 0.0] }\n",
            "motion[0].vibrate.direction",
        ),
        (
            "[[motion]]\nrotate = { center = [nan, 0.0], rate = 1.0 }\n",
            "motion[0].rotate.center[0]",
        ),
        (
            "[[motion]]\nturn = { center = [0.0, 0.0], duration = 0.0 }\n",
            "motion[0].turn.duration",
        ),
        (
            "[[motion]]\nturn = { center = [0.0, 0.0], duration = 1.0 }\nstart = 2.0\nend = 1.0\n",
            "motion[0].end",
        ),
        ("[[motion]]\ntranslate = { velocity = [1.0, 0.0] }\n", "motion[0].end"),
        (
            "[[motion]]\nwalls = \"lid\"\nrotate = { center = [0.0, 0.0], rate = 1.0 }\n",
            "motion[0].walls",
        ),
        ("[walls.groups]\nlid = [7]\n", "walls.groups.lid"),
        ("[walls.groups]\nlid = [2]\nrim = [2, 3]\n", "walls.groups.rim"),
    ];
    for (extra, key) in cases {
        // `[walls.groups]` extends the box's `[walls]` table.
        let text = if let Some(groups) = extra.strip_prefix("[walls.groups]\n") {
            format!(
                "{}[walls.groups]\n{groups}{}",
                &box_[..box_.find("[grains]").unwrap()],
                &box_[box_.find("[grains]").unwrap()..]
            )
        } else {
            format!("{box_}{extra}")
        };
        let e = setup(&text)
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"))
            .to_string();
        assert!(e.contains(key), "{key}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn a_named_group_moves_and_the_rest_of_the_walls_stay() {
    // A box whose lid (segment 2) is lifted by 1 cm: the lid's corners part
    // from the walls', the other walls stay where they were built.
    let s = setup(
        "[walls]\nsegments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]\n[walls.groups]\nlid = [2]\n[grains]\ncount = 5\n[[motion]]\nwalls = \"lid\"\ntranslate = { velocity = [0.0, 0.01] }\nend = 1.0\n",
    )
    .unwrap();
    let m = s.motion.as_ref().unwrap();
    let w = m.walls(2.0, 2.1);
    let lid = w.segments[2];
    assert_eq!((lid.a[1], lid.b[1]), (0.11, 0.11));
    assert_eq!(w.segments[0], s.walls(false).segments[0]);
    // After its end the lid rests: no velocity.
    assert_eq!(w.segment_vel[2], [[0.0; 2]; 2]);
    // While it moves, its ends move at its velocity and the floor's not at all.
    let w = m.walls(0.5, 0.6);
    for v in w.segment_vel[2] {
        assert!((v[1] - 0.01).abs() < 1e-6 && v[0].abs() < 1e-6, "{v:?}");
    }
    assert_eq!(w.segment_vel[0], [[0.0; 2]; 2]);
    // The box the walls sweep holds the lifted lid.
    assert!(s.walls_box[3] >= 0.11, "{:?}", s.walls_box);
}

fn hourglass_bin(args: &[&str]) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_run_cut_while_its_walls_turn_resumes_bit_for_bit_and_writes_each_frames_walls() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = tmp.path().join("turn.toml");
    std::fs::write(
        &scene,
        "version = 1\n[grains]\ncount = 120\n[solver]\nkind = \"nlgs\"\n[[motion]]\nstart = 0.2\nturn = { center = [0.0, 0.0], duration = 0.4 }\n[run]\nevery = 25\nbackend = \"cpu\"\n",
    )
    .unwrap();
    let s = scene.to_str().unwrap();
    let (whole, cut) = (tmp.path().join("whole"), tmp.path().join("cut"));
    // The gate opens after 300 settle steps; the turn runs from 500 to 900.
    hourglass_bin(&["run", s, "--steps", "1000", "--out", whole.to_str().unwrap(), "-q"]);
    hourglass_bin(&["run", s, "--steps", "650", "--out", cut.to_str().unwrap(), "-q"]);
    hourglass_bin(&["run", "--resume", cut.to_str().unwrap(), "--steps", "350", "-q"]);
    let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
    assert!(
        read(&whole, "diagnostics.csv") == read(&cut, "diagnostics.csv"),
        "the rows differ"
    );
    assert!(
        read(&whole, "state.json") == read(&cut, "state.json"),
        "the states differ"
    );
    // Each frame has its walls: at the last frame, turned half a turn from
    // where they were once the gate had opened.
    let frames = hourglass::output::read::frames(&whole).unwrap();
    let open = hourglass::output::read::summary(&whole).unwrap().discharge_start;
    let before = frames
        .iter()
        .position(|f| f.0 > open + 1e-9 && f.0 < open + 0.2)
        .unwrap();
    let first = hourglass::output::read::frame_walls(&whole, before).unwrap();
    let last = hourglass::output::read::frame_walls(&whole, frames.len() - 1).unwrap();
    assert_eq!(first.segments.len(), last.segments.len());
    for (a, b) in first.segments.iter().zip(&last.segments) {
        assert!(
            (a.a[0] + b.a[0]).abs() < 1e-6 && (a.a[1] + b.a[1]).abs() < 1e-6,
            "{a:?} {b:?}"
        );
    }
}

#[test]
fn a_physical_group_of_a_mesh_moves_by_its_name_and_an_unknown_one_is_refused() {
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/hourglass.msh");
    let scene = |group: &str| {
        format!(
            "[walls]\nmesh = {:?}\n[grains]\ncount = 50\n[[motion]]\nwalls = \"{group}\"\ntranslate = {{ velocity = [0.0, 0.1] }}\nend = 1.0\n",
            mesh.to_str().unwrap()
        )
    };
    let s = setup(&scene("wall")).unwrap();
    let m = s.motion.as_ref().unwrap();
    // Every line of the physical group `wall` (all but the gate) moves up 0.1 m/s.
    let w = m.walls(0.0, 0.5);
    assert!(!w.segment_vel.is_empty());
    for v in w.segment_vel.iter().flatten() {
        assert!((v[1] - 0.1).abs() < 1e-6 && v[0].abs() < 1e-6, "{v:?}");
    }
    let e = setup(&scene("lid")).err().unwrap().to_string();
    assert!(
        e.contains("motion[0].walls") && e.contains("`lid`") && e.contains("all, wall"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1);
}
