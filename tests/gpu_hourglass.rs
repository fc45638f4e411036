//! The whole product on both backends: a 1,500-grain hourglass run for 3 s of
//! discharge on the CPU reference and on the GPU (lavapipe in CI) gives
//! passed counts within 15% of each other (why 15%: see the assertion).
//!
//! The scene uses tol = 1e-5 m and itmax = 200 (both backends alike) so the
//! Jacobi solve costs ~150 iterations a step instead of ~450: lavapipe runs
//! every dispatch on the CPU, and the default tolerance would make this test
//! take most of an hour there. The comparison is between backends at equal
//! settings, which is what this test is about.

mod gpu_common;

use hourglass::output::{ResultDir, Summary};
use hourglass::scene::{BackendChoice, Scene, build};
use hourglass::sim;

fn run(scene: &Scene, choice: BackendChoice) -> Summary {
    let dir = tempfile::tempdir().unwrap();
    let setup = build(scene).unwrap();
    let grid = hourglass::backend::grid_for(&setup).unwrap();
    let mut notices = Vec::new();
    let mut backend =
        hourglass::backend::select(&setup, grid, choice, hourglass::backend::Device::Open, &mut notices).unwrap();
    let mut out = ResultDir::create(dir.path(), &setup.scene.to_toml()).unwrap();
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    out.finish(&summary).unwrap();
    summary
}

#[test]
fn hourglass_passed_counts_agree_between_backends() {
    if gpu_common::context().is_none() {
        return;
    }
    let mut scene = Scene::default();
    scene.grains.count = 1500;
    // The same solver on both backends (the default `auto` picks NLGS on the CPU).
    scene.solver.kind = hourglass::model::SolverKind::Jacobi;
    scene.solver.tol = 1e-5;
    scene.solver.itmax = 200;
    scene.run.settle = 0.3;
    scene.run.duration = Some(3.0);
    scene.run.every = 100;
    let cpu = run(&scene, BackendChoice::Cpu);
    let gpu = run(&scene, BackendChoice::Gpu);
    for s in [&cpu, &gpu] {
        println!(
            "{} ({}): {} passed, {} lost, flow rate {:?} grains/s, mean iterations {:.1}, itmax steps {}, {:.1} steps/s",
            s.backend,
            s.adapter,
            s.passed,
            s.lost_grains,
            s.flow_rate,
            s.mean_iterations,
            s.itmax_steps,
            s.steps_per_second
        );
        assert_eq!(s.lost_grains, 0, "{}: grains lost", s.backend);
        assert!(s.passed > 0, "{}: nothing passed the neck", s.backend);
    }
    assert_eq!(gpu.backend, "gpu");
    // 15%, not 10%: the GPU path is not bit-reproducible (bin_scatter fills a
    // cell in atomicAdd order, so contact order and the f32 sums in the
    // gather vary with thread timing), and the flow through a 4-diameter neck
    // amplifies it: identical inputs gave 1,120 and 1,003 passed on lavapipe
    // in two runs of this test on 2026-11-23 (CPU: 1,125 both times).
    let (a, b) = (cpu.passed as f64, gpu.passed as f64);
    assert!((a - b).abs() <= 0.15 * a.max(b), "passed: cpu {a} vs gpu {b}");
}
