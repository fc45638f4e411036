//! The rotation columns of a run's output: diagnostics.csv's
//! `rotational_kinetic_energy` and the frames' `angular_velocity`, for a
//! hand-made spin of the start state.

use hourglass::model::SolverKind;
use hourglass::output::{ResultDir, read};
use hourglass::scene::{BackendChoice, Scene, build};
use hourglass::sim;

#[test]
fn first_row_rotational_energy_is_the_sum_of_half_i_w_squared() {
    let dir = tempfile::tempdir().unwrap();
    let mut scene = Scene::default();
    scene.grains.count = 40;
    scene.solver.kind = SolverKind::Nlgs;
    // No step: the one row and frame are the start state.
    scene.run.steps = Some(0);
    let mut setup = build(&scene).unwrap();
    let n = setup.grains.len();
    assert_eq!(n, 40);
    let g = &mut setup.grains;
    g.ang_vel = (0..n).map(|i| 7.0 * (i % 5) as f32 - 13.0).collect();
    // One grain fixed (inverse mass 0): it spins but carries no energy.
    g.inv_mass[3] = 0.0;
    let want: f64 = (0..n)
        .filter(|&i| i != 3)
        .map(|i| {
            let m = 1.0 / f64::from(g.inv_mass[i]);
            let (r, w) = (f64::from(g.radius[i]), f64::from(g.ang_vel[i]));
            0.5 * (0.5 * m * r * r) * w * w
        })
        .sum();
    assert!(want > 0.0);
    let grid = hourglass::backend::grid_for(&setup).unwrap();
    let mut notices = Vec::new();
    let mut backend = hourglass::backend::select(
        &setup,
        grid,
        BackendChoice::Cpu,
        hourglass::backend::Device::Open,
        &mut notices,
    )
    .unwrap();
    let mut out = ResultDir::create(dir.path(), &setup.scene.to_toml()).unwrap();
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    out.finish(&summary).unwrap();

    let rows = read::diagnostics(dir.path()).unwrap();
    assert_eq!(rows.len(), 1);
    let got = rows[0].rotational_kinetic_energy;
    assert!((got - want).abs() <= 1e-12 * want, "{got} != {want}");
    // The translational column is unchanged by the spin: the grains start at rest.
    assert_eq!(rows[0].kinetic_energy, 0.0);

    let frames = read::frames(dir.path()).unwrap();
    assert_eq!(frames.len(), 1);
    let back = read::grains(&frames[0].1).unwrap();
    for (k, &id) in back.id.iter().enumerate() {
        assert_eq!(back.ang_vel[k], setup.grains.ang_vel[id as usize], "grain {id}");
        assert_eq!(back.angle[k], 0.0, "grain {id}");
    }
}

/// A run that would write more than `sim::MANY_FRAMES` frames says so at
/// its start: the bundled hourglass's cadence (every 50 steps) under the
/// DEM's step, not under NSCD's.
#[test]
fn a_cadence_that_writes_over_ten_thousand_frames_is_a_notice() {
    // 3 s of discharge: 5,172,414 DEM steps of 5.8e-7 s; 3,000 NSCD steps of 1e-3 s.
    let dem = (3.0f64 / 5.8e-7).round() as u64;
    let n = sim::many_frames(dem, 50, 5.8e-7).expect("a notice");
    assert!(
        n.starts_with("run.every = 50 writes a frame and a row every 2.90e-5 s"),
        "{n}"
    );
    assert!(n.contains("103448 frames") && n.contains("--every"), "{n}");
    assert_eq!(sim::many_frames(3000, 50, 1e-3), None);
    assert_eq!(sim::many_frames(dem, 2000, 5.8e-7), None, "2,586 frames");
    assert!(sim::many_frames(500_050, 50, 1e-3).is_some(), "10,001 frames");
}
