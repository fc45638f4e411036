//! Emitters (docs/lab.md): `count` grains appear at
//! `start + k interval` (to one step), none overlapping anything when it
//! appears, on the CPU and the GPU; an emission whose spot is taken waits
//! and is counted in summary.json.

#[path = "gpu_common/mod.rs"]
mod gpu_common;

use std::path::Path;

use hourglass::backend::{Backend, cpu_backend, grid_for};
use hourglass::model::Grains;
use hourglass::output::{ResultDir, Summary, read};
use hourglass::scene::{Scene, Setup, build};
use hourglass::sim;

const BOX: &str =
    "[walls]\nsegments = [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]\n";

fn setup(body: &str) -> Setup {
    setup_in("", body)
}

/// `top` holds the keys before the first table (gravity).
fn setup_in(top: &str, body: &str) -> Setup {
    let text = format!("version = 1\n{top}{BOX}{body}");
    build(&Scene::parse(&text, Path::new("emit.toml")).unwrap()).unwrap()
}

fn run(setup: &Setup, mut backend: Box<dyn Backend>, dir: &Path) -> (Vec<hourglass::output::Row>, Summary) {
    let mut out = ResultDir::create(dir, &setup.scene.to_toml()).unwrap();
    let summary = sim::run(setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    out.finish(&summary).unwrap();
    (read::diagnostics(dir).unwrap(), read::summary(dir).unwrap())
}

/// The smallest gap between grain `i` and the others or the box's walls, m.
fn gap(g: &Grains, i: usize) -> f32 {
    let (x, r) = (g.pos[i], g.radius[i]);
    let walls = [x[0] - r, 1.0 - x[0] - r, x[1] - r, 1.0 - x[1] - r];
    let mut min = walls.into_iter().fold(f32::INFINITY, f32::min);
    for j in (0..g.len()).filter(|&j| j != i) {
        let d = ((x[0] - g.pos[j][0]).powi(2) + (x[1] - g.pos[j][1]).powi(2)).sqrt();
        min = min.min(d - r - g.radius[j]);
    }
    min
}

/// An emitters-only scene (no fill): 5 grains every 0.05 s from t = 0.1 s,
/// dropped downwards under gravity, one row and frame per step.
const FIVE: &str = "[grains]\ncount = 0\nmass = 1.0\n[[emitters]]\nposition = [0.5, 0.3]\njitter = 0.01\nvelocity = [0.0, -1.0]\nradius_mean = 0.02\nradius_std = 0.003\ninterval = 0.05\ncount = 5\nstart = 0.1\n[run]\nsteps = 350\nevery = 1\n";

fn check_five(dir: &Path, rows: &[hourglass::output::Row], summary: &Summary, dt: f64) {
    assert_eq!((summary.emitted, summary.emissions_waited, summary.grains), (5, 0, 5));
    // Grain k appears in the first row at or after 0.1 + 0.05 k (to one step).
    for k in 0..5u64 {
        let due = 0.1 + 0.05 * k as f64;
        let first = rows.iter().find(|r| r.grains > k).unwrap();
        assert!(
            first.time >= due - 0.5 * dt - 1e-9 && first.time <= due + dt + 1e-9,
            "grain {k} at {} s, due {due} s",
            first.time
        );
    }
    assert_eq!(rows.last().unwrap().grains, 5);
    // In the frame where each appears it overlaps nothing, and it has its id k, mass 1 kg.
    let frames = read::frames(dir).unwrap();
    let mut seen = 0;
    for (_, path) in &frames {
        let g = read::grains(path).unwrap();
        for i in (0..g.len()).filter(|&i| g.id[i] as usize >= seen) {
            assert!(
                gap(&g, i) >= 0.0,
                "grain {} overlaps at arrival by {}",
                g.id[i],
                -gap(&g, i)
            );
            assert!(
                (g.pos[i][0] - 0.5).abs() <= 0.01 + 1e-6 && g.vel[i] == [0.0, -1.0],
                "{g:?}"
            );
        }
        seen = seen.max(g.len());
    }
    assert_eq!(seen, 5);
}

/// NSCD and the lab's two explicit models on the CPU. The impulse model
/// keeps its default e = 0.5 and h = 1e-3 s; the springs are stiff with a
/// critical dashpot 2 sqrt(k_s m): a 1 kg grain landing at 2.5 m/s sinks
/// about v sqrt(m/k_s) = 2.5 mm into the floor (an eighth of its radius) and
/// does not bounce back up to the emitter, at the CFL step 0.1 sqrt(m/k_s)
/// = 1e-4 s (rows every 10 steps: the arrival is checked to one row).
#[test]
fn cpu_emits_count_grains_at_the_interval_without_overlap() {
    for (kind, table, every) in [
        ("nlgs", "", 1u64),
        ("impulse", "", 1),
        ("spring", "[spring]\nks = 1e6\nkd = 2000.0\n", 10),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut s = setup(&format!(
            "{FIVE}backend = \"cpu\"\n[solver]\nkind = \"{kind}\"\n{table}"
        ));
        assert!(s.grains.is_empty());
        let dt = f64::from(s.params.dt);
        // 0.35 s, as FIVE's 350 steps of the NSCD's 1 ms.
        s.scene.run.steps = Some((0.35 / dt).round() as u64);
        s.scene.run.every = every;
        let grid = grid_for(&s).unwrap();
        let (rows, summary) = run(&s, cpu_backend(&s, grid), dir.path());
        assert_eq!((summary.solver.as_str(), summary.lost_grains), (kind, 0));
        check_five(dir.path(), &rows, &summary, every as f64 * dt);
    }
}

#[test]
fn gpu_emits_count_grains_at_the_interval_without_overlap() {
    let Some(ctx) = gpu_common::context() else { return };
    for kind in ["jacobi", "dem"] {
        let dir = tempfile::tempdir().unwrap();
        let s = setup(&format!(
            "{FIVE}backend = \"gpu\"\n[solver]\nkind = \"{kind}\"\ndt = 1e-4\n"
        ));
        let grid = grid_for(&s).unwrap();
        let backend = hourglass::backend::gpu_backend(&s, grid, ctx.clone()).unwrap();
        let mut s = s;
        // NSCD counts collisions only when asked (run.collisions).
        s.scene.run.collisions = Some(true);
        s.scene.run.steps = Some(3500);
        s.scene.run.every = 10;
        let (rows, summary) = run(&s, backend, dir.path());
        assert_eq!(summary.backend, "gpu");
        // The lab's columns on the GPU: the grains fall onto the floor (new
        // grain-wall contacts), and the total is the sum of its parts.
        assert!(rows.iter().map(|r| r.wall_collisions).sum::<u64>() >= 1, "{kind}");
        for r in &rows {
            let parts = r.kinetic_energy + r.rotational_kinetic_energy + r.potential_energy + r.elastic_energy;
            assert!(
                (r.total_energy - parts).abs() <= 1e-9 * parts.abs().max(1.0),
                "{kind}: {r:?}"
            );
        }
        if kind == "dem" {
            assert!(rows.iter().any(|r| r.elastic_energy > 0.0), "DEM overlaps store energy");
        }
        // Rows every 10 steps (1 ms): the arrival is checked to one row.
        check_five(dir.path(), &rows, &summary, 10.0 * f64::from(s.params.dt));
    }
}

/// A listed grain sits on the emitter's spot and moves off at 1 m/s (no
/// gravity): the emission due at t = 0 waits until the spot is free (the
/// centres 0.04 m apart, t = 0.04 s) and is counted once. (An emitter inside
/// a wall, whose spot is never free, is refused when the scene is built:
/// scenes/bad/emitter_in_wall.toml.)
#[test]
fn an_occupied_spot_waits_for_the_next_free_step_and_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup_in(
        "gravity = [0.0, 0.0]\n",
        "[grains]\nlist = [[0.5, 0.5, 1.0, 0.0, 0.02]]\n[[emitters]]\nposition = [0.5, 0.5]\nradius = 0.02\ninterval = 1.0\ncount = 1\n[solver]\nkind = \"nlgs\"\ndt = 1e-3\n[run]\nsteps = 100\nevery = 1\nbackend = \"cpu\"\n",
    );
    let grid = grid_for(&s).unwrap();
    let (rows, summary) = run(&s, cpu_backend(&s, grid), dir.path());
    assert_eq!((summary.emitted, summary.emissions_waited), (1, 1));
    let arrival = rows.iter().find(|r| r.grains == 2).unwrap().time;
    assert!((0.04..=0.042).contains(&arrival), "arrived at {arrival} s");
    assert_eq!(rows.last().unwrap().grains, 2);
}
