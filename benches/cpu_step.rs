//! One CPU NSCD step (Jacobi, the default solver) on a settled hourglass at
//! N = 2,000, 10,000 and 50,000 grains. The state is the bundled hourglass
//! scene filled with N grains and stepped 40 times with the gate closed, so
//! the rows of the fill have fallen onto each other and most grains are in
//! contact (a loose bed, not a settled one).
//!
//! Run: `cargo bench --bench cpu_step`. Figures go to BENCHMARKS.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use hourglass::backend::grid_for;
use hourglass::backend::{Backend, CpuBackend};
use hourglass::model::SolverKind;
use hourglass::scene::{Scene, build};

/// A settled hourglass of `n` grains on the CPU backend.
fn settled(n: u64, solver: SolverKind) -> (CpuBackend, hourglass::model::StepParams) {
    let mut scene = Scene::default();
    scene.grains.count = n;
    scene.solver.kind = solver;
    let setup = build(&scene).expect("bundled scene builds");
    let grid = grid_for(&setup).expect("grid");
    let mut cpu = CpuBackend::new(
        setup.grains.clone(),
        setup.walls(true).clone(),
        grid,
        setup.scene.solver.contact_capacity as usize,
    );
    // Let the rows of the fill fall onto each other (0.04 s): most grains are
    // then in contact, without paying for a full settle at 50,000 grains.
    for _ in 0..40 {
        cpu.step(&setup.params).expect("step");
    }
    (cpu, setup.params)
}

fn cpu_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("cpu_step");
    group.sample_size(10);
    for n in [2_000u64, 10_000, 50_000] {
        for solver in [SolverKind::Jacobi, SolverKind::Nlgs] {
            let (mut cpu, p) = settled(n, solver);
            let (mut steps, mut iterations) = (0u64, 0u64);
            group.throughput(Throughput::Elements(n));
            group.bench_with_input(BenchmarkId::new(solver.name(), n), &n, |b, _| {
                b.iter(|| {
                    let stats = cpu.step(&p).expect("step");
                    steps += 1;
                    iterations += u64::from(stats.iterations);
                    std::hint::black_box(stats.iterations)
                })
            });
            // Criterion reports time per step; the iteration count is the other half of the story.
            eprintln!(
                "cpu_step/{}/{n}: mean iterations {:.1} over {steps} steps",
                solver.name(),
                iterations as f64 / steps.max(1) as f64
            );
        }
    }
    group.finish();
}

criterion_group!(benches, cpu_step);
criterion_main!(benches);
