//! One GPU NSCD step (Jacobi, exactly 20 iterations) on the bundled hourglass
//! at N = 10,000 and 100,000 grains, on whatever adapter wgpu finds (lavapipe
//! included). Without an adapter it prints a notice and measures nothing.
//!
//! Run: `cargo bench --bench gpu_step`. Figures go to BENCHMARKS.md with the adapter.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use hourglass::backend::grid_for;
use hourglass::gpu::{AdapterChoice, GpuContext};
use hourglass::model::Region;
use hourglass::scene::{BackendChoice, Scene, build};

fn gpu_step(c: &mut Criterion) {
    let Ok(Some(ctx)) = GpuContext::new(AdapterChoice::Any) else {
        eprintln!("gpu_step: no GPU adapter; nothing measured");
        return;
    };
    let adapter = ctx.adapter_name();
    drop(ctx);
    let mut group = c.benchmark_group(format!("gpu_step ({adapter})"));
    group.sample_size(10);
    for n in [10_000u64, 100_000] {
        let mut scene = Scene::default();
        scene.grains.count = n;
        let setup = build(&scene).expect("bundled scene builds");
        let grid = grid_for(&setup).expect("grid");
        let mut notices = Vec::new();
        let mut gpu = hourglass::backend::select(
            &setup,
            grid,
            BackendChoice::Gpu,
            hourglass::backend::Device::Open,
            &mut notices,
        )
        .expect("gpu backend");
        let mut p = setup.params;
        p.itmax = 20;
        p.tol = 0.0;
        let region = Region {
            gravity: p.gravity,
            neck_y: setup.neck_y as f32,
            bbox: setup.walls(true).bounding_box(),
            period: 0.0,
        };
        for _ in 0..3 {
            gpu.step(&p).expect("step");
        }
        group.throughput(Throughput::Elements(n));
        group.bench_with_input(BenchmarkId::new("jacobi20", n), &n, |b, _| {
            b.iter(|| {
                gpu.step(&p).expect("step");
                // Wait for the step's last submit (integrate) inside the timed region.
                std::hint::black_box(gpu.totals(&region).expect("totals").kinetic_energy)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, gpu_step);
criterion_main!(benches);
