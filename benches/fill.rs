//! Grain placement (`scene::fill`, lowest-pocket deposition) through the
//! scene build users run: the bundled hourglass filled with N grains (the
//! bulb grows to hold them, `fit = true`).
//!
//! Run: `cargo bench --bench fill`. Figures go to BENCHMARKS.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use hourglass::scene::{Scene, build};

fn place(c: &mut Criterion) {
    let mut group = c.benchmark_group("fill");
    group.sample_size(10);
    for n in [50_000u64, 200_000] {
        let mut scene = Scene::default();
        scene.grains.count = n;
        group.throughput(Throughput::Elements(n));
        group.bench_with_input(BenchmarkId::from_parameter(n), &scene, |b, scene| {
            b.iter(|| {
                let setup = build(scene).expect("the bundled scene builds");
                assert_eq!(setup.grains.len() as u64, scene.grains.count);
                setup
            })
        });
    }
    group.finish();
}

criterion_group!(benches, place);
criterion_main!(benches);
