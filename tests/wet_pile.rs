//! The wet sand demo (docs/cohesion.md): 400 grains poured from
//! a point stand steeper with capillary bridges (scenes/wet_pile.toml)
//! than the same grains dry (scenes/dry_pile.toml, the same file without
//! `[cohesion]`). CPU, NLGS with mu = 0.5 for both.

use std::path::Path;

use hourglass::analysis::{heap_angle, heap_tops};
use hourglass::backend::{cpu_backend, grid_for};
use hourglass::output::ResultDir;
use hourglass::scene::{Scene, build};
use hourglass::sim;

fn load(name: &str) -> Scene {
    let s = Scene::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(name)).unwrap();
    s.validate().unwrap();
    s
}

/// Run `scene` on the CPU to its end; the angle of the heap it leaves, degrees.
fn heap(scene: &Scene) -> (f64, usize) {
    let setup = build(scene).unwrap();
    let mut backend = cpu_backend(&setup, grid_for(&setup).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let mut out = ResultDir::create(dir.path(), &setup.scene.to_toml()).unwrap();
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    assert_eq!(summary.emitted, 400);
    let g = backend.grains().unwrap();
    // At rest: slower than 5 cm/s, below the emitter's stream (20 cm).
    let tops = heap_tops(g, 0.15, 0.05);
    (heap_angle(&tops, 0.01).expect("a heap"), tops.len())
}

#[test]
fn the_dry_pile_is_the_wet_pile_without_cohesion() {
    let (wet, dry) = (load("wet_pile.toml"), load("dry_pile.toml"));
    assert!(wet.cohesion.is_some() && dry.cohesion.is_none());
    let mut dried = wet.clone();
    dried.cohesion = None;
    dried.run.out = dry.run.out.clone();
    dried.origin = dry.origin.clone();
    assert_eq!(dried, dry, "scenes/dry_pile.toml drifted from scenes/wet_pile.toml");
}

#[test]
fn a_wet_heap_stands_steeper_than_a_dry_one() {
    let (wet, n_wet) = heap(&load("wet_pile.toml"));
    let (dry, n_dry) = heap(&load("dry_pile.toml"));
    println!("heap angle: wet {wet:.1} deg ({n_wet} grains at rest), dry {dry:.1} deg ({n_dry})");
    assert!(n_wet > 380 && n_dry > 380, "grains at rest: wet {n_wet}, dry {n_dry}");
    assert!(dry > 5.0, "the dry heap (mu = 0.5) flattened to {dry:.1} deg");
    assert!(wet > dry + 8.0, "wet heap at {wet:.1} deg, dry at {dry:.1} deg");
}
