//! The lab's diagnostics columns (docs/lab.md): elastic and
//! total energy, barycentre, new grain-grain and grain-wall collisions,
//! appended after `rotational_kinetic_energy` in diagnostics.csv.

use std::path::Path;

use hourglass::backend::{cpu_backend, grid_for};
use hourglass::output::{DIAGNOSTICS_HEADER, ResultDir, read};
use hourglass::scene::{Scene, Setup, build};
use hourglass::sim;

const BOX: &str =
    "[walls]\nsegments = [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]\n";

fn setup(body: &str) -> Setup {
    let text = format!("version = 1\ngravity = [0.0, 0.0]\n{BOX}{body}");
    build(&Scene::parse(&text, Path::new("lab.toml")).unwrap()).unwrap()
}

fn run(setup: &Setup, dir: &Path) -> Vec<hourglass::output::Row> {
    let grid = grid_for(setup).unwrap();
    let mut backend = cpu_backend(setup, grid);
    let mut out = ResultDir::create(dir, &setup.scene.to_toml()).unwrap();
    let summary = sim::run(setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    out.finish(&summary).unwrap();
    read::diagnostics(dir).unwrap()
}

/// A hand-made DEM state: grains 0 and 1 (radius 0.1) overlap by 0.01, grain
/// 2 sinks 0.02 into the floor, grain 3 is free; masses 1, 2, 3 and 4 kg.
/// The first row's elastic energy is 2/5 k_n (0.01^2.5 + 0.02^2.5), its
/// barycentre the mass-weighted mean, its total the sum of the parts.
#[test]
fn first_row_of_a_hand_made_state_has_exact_lab_columns() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = setup(
        "[grains]\nmass = 1.0\nlist = [[0.3, 0.5, 0.0, 0.0, 0.1], [0.6, 0.5, 0.0, 0.0, 0.1], [0.8, 0.8, 0.0, 0.0, 0.1], [0.5, 0.2, 0.0, 0.0, 0.1]]\n[solver]\nkind = \"dem\"\n[dem]\nkn = 1e5\n[run]\nsteps = 0\nbackend = \"cpu\"\n",
    );
    let g = &mut s.grains;
    g.pos = vec![[0.3, 0.5], [0.49, 0.5], [0.8, 0.08], [0.5, 0.7]];
    g.inv_mass = vec![1.0, 0.5, 1.0 / 3.0, 0.25];
    g.vel = vec![[1.0, 0.0], [0.0, -2.0], [0.0, 0.0], [0.5, 0.5]];
    let rows = run(&s, dir.path());
    assert_eq!(rows.len(), 1);
    let r = rows[0];
    let dx = [0.3f32 + 0.2 - 0.49, 0.1 - 0.08f32];
    let want: f64 = dx.iter().map(|&d| 0.4 * 1e5 * f64::from(d).powf(2.5)).sum();
    assert!(
        (r.elastic_energy - want).abs() < 1e-4 * want,
        "{} != {want}",
        r.elastic_energy
    );
    let m = [1.0, 2.0, 3.0, 4.0f64];
    let bx = (0.3 * m[0] + 0.49 * m[1] + 0.8 * m[2] + 0.5 * m[3]) / 10.0;
    let by = (0.5 * m[0] + 0.5 * m[1] + 0.08 * m[2] + 0.7 * m[3]) / 10.0;
    assert!(
        (r.barycentre[0] - bx).abs() < 1e-6 && (r.barycentre[1] - by).abs() < 1e-6,
        "{:?}",
        r.barycentre
    );
    // Kinetic: 1/2 (1 * 1 + 2 * 4 + 4 * 0.5) = 5.5 J; no gravity, no spin.
    assert!((r.kinetic_energy - 5.5).abs() < 1e-6, "{}", r.kinetic_energy);
    assert_eq!(
        r.total_energy,
        r.kinetic_energy + r.rotational_kinetic_energy + r.potential_energy + r.elastic_energy
    );
    // The start state counts nothing as new.
    assert_eq!((r.grain_collisions, r.wall_collisions), (0, 0));
}

/// Two equal grains meet head-on (NSCD, no restitution: both stop): one
/// grain-grain collision over the run, no wall collision; a third grain hits
/// the right wall once. The CSV has the full header and 21 fields a row.
#[test]
fn a_run_counts_each_new_contact_once_and_writes_twenty_one_columns() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup(
        "[grains]\nlist = [[0.3, 0.5, 1.0, 0.0, 0.05], [0.7, 0.5, -1.0, 0.0, 0.05], [0.8, 0.2, 1.0, 0.0, 0.05]]\n[solver]\nkind = \"nlgs\"\ndt = 1e-3\n[run]\nsteps = 300\nevery = 10\nbackend = \"cpu\"\ncollisions = true\n",
    );
    let rows = run(&s, dir.path());
    let csv = std::fs::read_to_string(dir.path().join("diagnostics.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(DIAGNOSTICS_HEADER));
    assert!(lines.all(|l| l.split(',').count() == 21), "{csv}");
    assert_eq!(rows.len(), 31);
    let grain: u64 = rows.iter().map(|r| r.grain_collisions).sum();
    let wall: u64 = rows.iter().map(|r| r.wall_collisions).sum();
    assert_eq!((grain, wall), (1, 1), "{rows:#?}");
    // The pair meets at t = 0.15 s (gap 0.3 m closed at 2 m/s): counted in the row at 0.15 s or 0.16 s.
    let at = rows.iter().find(|r| r.grain_collisions == 1).unwrap().time;
    assert!((0.15..=0.16 + 1e-9).contains(&at), "{at}");
    // No gravity, NSCD rigid: the total is the kinetic energy, which the inelastic hits lower.
    assert!(rows.iter().all(|r| r.elastic_energy == 0.0));
    assert!(rows.last().unwrap().total_energy < rows[0].total_energy);
}

/// Without `run.collisions` (an NSCD run's default) the per-step census is skipped: the two collision
/// columns are 0 and every other column is the counted run's, bit for bit
/// (the census only looks).
#[test]
fn without_the_census_the_rows_are_the_same_but_for_the_collision_columns() {
    let body = "[grains]\nlist = [[0.3, 0.5, 1.0, 0.0, 0.05], [0.7, 0.5, -1.0, 0.0, 0.05], [0.8, 0.2, 1.0, 0.0, 0.05]]\n[solver]\nkind = \"nlgs\"\ndt = 1e-3\n[run]\nsteps = 300\nevery = 10\nbackend = \"cpu\"\n";
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // NSCD runs count no collisions unless asked (run.collisions).
    let counted = run(&setup(&format!("{body}collisions = true\n")), a.path());
    let quiet = run(&setup(body), b.path());
    assert_eq!(counted.len(), quiet.len());
    assert!(counted.iter().any(|r| r.grain_collisions > 0));
    for (c, q) in counted.iter().zip(&quiet) {
        assert_eq!((q.grain_collisions, q.wall_collisions), (0, 0));
        let without = hourglass::output::Row {
            grain_collisions: 0,
            wall_collisions: 0,
            ..*c
        };
        assert_eq!(&without, q);
    }
}

/// The spring model's `elastic_energy` is 1/2 k_s dx^2 over its contacts: a
/// 1 kg ball of radius 0.3 m (the lab's) set at rest on the floor at its
/// equilibrium sink dx = m g / k_s stays there, and every row holds
/// (m g)^2 / (2 k_s) (single-precision positions: dx to about 1e-5, the
/// energy to 2e-5; asserted to 1e-4), total = kinetic + potential + elastic.
#[test]
fn a_spring_ball_resting_on_the_floor_stores_half_ks_dx_squared() {
    let dir = tempfile::tempdir().unwrap();
    let (ks, m, g, r) = (4000.0f64, 1.0f64, 9.81f64, 0.3f64);
    let dx = m * g / ks;
    let text = format!(
        "version = 1\ngravity = [0.0, -9.81]\n{BOX}[grains]\nmass = 1.0\nlist = [[0.5, {y}, 0.0, 0.0, 0.3]]\n[solver]\nkind = \"spring\"\ndt = 1e-3\n[spring]\nks = {ks}\nkd = 126.0\n[run]\nsteps = 1000\nevery = 100\nbackend = \"cpu\"\n",
        y = r - dx
    );
    let s = build(&Scene::parse(&text, Path::new("lab.toml")).unwrap()).unwrap();
    let rows = run(&s, dir.path());
    assert_eq!(rows.len(), 11);
    let want = 0.5 * ks * dx * dx;
    for row in &rows {
        assert!(
            (row.elastic_energy - want).abs() < 1e-4 * want,
            "step {}: elastic {} J, want {want} J",
            row.step,
            row.elastic_energy
        );
        let parts = row.kinetic_energy + row.potential_energy + row.elastic_energy + row.rotational_kinetic_energy;
        assert!(
            (row.total_energy - parts).abs() < 1e-12 * parts.abs().max(1.0),
            "{row:?}"
        );
    }
}
