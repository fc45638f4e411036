//! The hourglass discharges: grains pass the neck, none are lost, the grain
//! count is constant, and the flow rate is fitted and reported.

use hourglass::model::SolverKind;
use hourglass::output::ResultDir;
use hourglass::scene::{BackendChoice, Scene, build};
use hourglass::sim;

fn discharge(scene: &Scene) -> (hourglass::output::Summary, Vec<Vec<String>>) {
    let dir = tempfile::tempdir().unwrap();
    let setup = build(scene).unwrap();
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
    let csv = std::fs::read_to_string(dir.path().join("diagnostics.csv")).unwrap();
    let rows = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    (summary, rows)
}

fn check(name: &str, scene: &Scene) {
    let n = scene.grains.count;
    let (s, rows) = discharge(scene);
    println!(
        "{name}: {} grains, {} passed after {:.2} s of discharge, flow rate {:?} grains/s over {:?} s, mean iterations {:.1}, itmax steps {}, max overlap {:.2e} m",
        s.grains,
        s.passed,
        s.sim_time - s.discharge_start,
        s.flow_rate,
        s.flow_fit_window,
        s.mean_iterations,
        s.itmax_steps,
        s.max_overlap
    );
    assert_eq!(s.grains, n);
    assert_eq!(s.lost_grains, 0, "{name}: grains left the walls");
    assert!(
        rows.iter().all(|r| r[2] == n.to_string()),
        "{name}: grain count changed"
    );
    assert!(s.passed >= n / 2, "{name}: only {} of {n} passed the neck", s.passed);
    // Passed counts never decrease by more than a grain or two bouncing at the neck.
    let passed: Vec<i64> = rows.iter().map(|r| r[3].parse().unwrap()).collect();
    assert!(passed.windows(2).all(|w| w[1] >= w[0] - 2), "{name}: {passed:?}");
    let rate = s.flow_rate.expect("flow rate fitted");
    assert!(rate > 0.0 && rate.is_finite());
    // The fit covers the rows between 20% and 80% of the final count, so over
    // its window the line must rise by roughly 60% of it.
    let [t0, t1] = s.flow_fit_window.unwrap();
    let rise = rate * (t1 - t0) / s.passed as f64;
    assert!(
        (0.4..=0.8).contains(&rise),
        "{name}: rate {rate} over {t0}..{t1} rises {rise} of the final count"
    );
}

#[test]
fn parametric_hourglass_discharges_with_nothing_lost() {
    let mut scene = Scene::default();
    scene.grains.count = 400;
    scene.solver.kind = SolverKind::Nlgs;
    scene.run.settle = 0.3;
    scene.run.duration = Some(1.5);
    scene.run.every = 25;
    check("parametric/nlgs", &scene);
}

#[test]
fn mesh_hourglass_discharges_with_jacobi() {
    let mut scene = Scene::load(std::path::Path::new("scenes/hourglass_mesh.toml")).unwrap();
    scene.grains.count = 300;
    scene.run.settle = 0.3;
    scene.run.duration = Some(1.5);
    scene.run.every = 25;
    check("mesh/jacobi", &scene);
}

/// Every wall segment of the bundled hourglasses (parametric and mesh) has an
/// inside, the gate stays two-sided, and each inward normal points to the
/// side of the outline's centre line (x = 0) or up (the floor) / down (the lid).
#[test]
fn hourglass_walls_have_an_inside() {
    let mesh = Scene::load(std::path::Path::new("scenes/hourglass_mesh.toml")).unwrap();
    for (name, scene) in [("parametric", Scene::default()), ("mesh", mesh)] {
        let setup = build(&scene).unwrap();
        let open = setup.walls(false);
        let closed = setup.walls(true);
        assert!(closed.segments.len() > open.segments.len(), "{name}: a gate");
        for (k, s) in closed.segments.iter().enumerate() {
            let gate = k >= open.segments.len();
            assert_eq!(s.n == [0.0; 2], gate, "{name}: segment {k} {s:?}");
            if !gate {
                assert_eq!(open.segments[k], *s, "{name}: segment {k} with and without the gate");
                let mid = [0.5 * (s.a[0] + s.b[0]), 0.5 * (s.a[1] + s.b[1])];
                // Towards x = 0 on the side walls; vertical on the floor and lid.
                let inward = if s.n[0].abs() > 1e-3 {
                    -mid[0] * s.n[0] > 0.0
                } else {
                    -mid[1] * s.n[1] > 0.0
                };
                assert!(inward, "{name}: segment {k} {s:?} points out");
            }
        }
    }
}
