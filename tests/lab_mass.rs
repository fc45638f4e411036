//! Grains with a given mass: a `grains.list` row's sixth
//! value is its grain's mass, `grains.mass` gives every grain one mass
//! whatever its radius, and `density` and `mass` exclude each other.

use std::path::Path;

use hourglass::scene::{Scene, build};

const BOX: &str =
    "[walls]\nsegments = [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]\n";

fn scene(grains: &str) -> Scene {
    let text = format!("version = 1\n{BOX}[grains]\n{grains}\n[run]\nsteps = 1\n");
    Scene::parse(&text, Path::new("lab.toml")).unwrap()
}

#[test]
fn list_masses_give_those_inverse_masses_and_rows_without_use_the_density() {
    let s = scene(
        "density = 100.0\nlist = [[0.2, 0.5, 0.0, 0.0, 0.05, 2.0], [0.5, 0.5, 1.0, 0.0, 0.05, 0.25], [0.8, 0.5, 0.0, 0.0, 0.1]]",
    );
    let setup = build(&s).unwrap();
    let g = &setup.grains;
    assert_eq!(g.inv_mass[0], 0.5);
    assert_eq!(g.inv_mass[1], 4.0);
    // The old five-value row: m = rho pi r^2 = 100 pi 0.01 = pi kg.
    assert_eq!(g.inv_mass[2], (1.0 / std::f64::consts::PI) as f32);
    // The resolved scene keeps the masses: loading it again gives the same grains.
    let again = Scene::parse(&setup.scene.to_toml(), Path::new("again.toml")).unwrap();
    assert_eq!(build(&again).unwrap().grains.inv_mass, g.inv_mass);
}

#[test]
fn scene_mass_gives_one_kilogram_grains_whatever_the_radius() {
    let s =
        scene("count = 30\nradius_mean = 0.02\nradius_std = 0.005\nradius_min = 0.01\nradius_max = 0.03\nmass = 1.0");
    let setup = build(&s).unwrap();
    let g = &setup.grains;
    assert_eq!(g.len(), 30);
    assert!(g.radius.iter().any(|&r| r != g.radius[0]), "the radii differ");
    assert!(g.inv_mass.iter().all(|&im| im == 1.0), "{:?}", g.inv_mass);
    assert_eq!(setup.scene.grains.density, None);
    assert_eq!(setup.scene.grains.mass, Some(1.0));
}

#[test]
fn density_and_mass_together_is_a_field_error() {
    let s = scene("count = 4\ndensity = 2500.0\nmass = 1.0");
    let err = build(&s).unwrap_err().to_string();
    assert_eq!(err, "lab.toml: field `grains.mass`: give `density` or `mass`, not both");
}
