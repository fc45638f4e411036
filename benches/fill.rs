//! Grain placement (`scene::fill`, lowest-pocket deposition) through the
//! scene build users run: the bundled hourglass filled with N grains (the
//! bulb grows to hold them, `fit = true`). And the 3D fill
//! (`scene::fill3d`): 20,000 spheres of radii within 10 % of 3 mm in the
//! upper bulb of the default hourglass of revolution.
//!
//! Run: `cargo bench --bench fill`. Figures go to BENCHMARKS.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use hourglass::model::Walls3d;
use hourglass::scene::fill3d::{FillRegion3d, deposit};
use hourglass::scene::revolved::{SECTORS, hourglass};
use hourglass::scene::{HourglassSpec, Scene, build};

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

fn place_spheres(c: &mut Criterion) {
    let r = 0.003;
    let spec = HourglassSpec::default();
    let shape = hourglass(&spec, r, SECTORS).expect("the default hourglass");
    let walls = Walls3d::mesh(&[shape.walls, shape.gate].concat()).expect("a mesh");
    let (hw, h) = (spec.width / 2.0, spec.bulb_height);
    let (neck, slope) = (spec.neck * r, spec.slope_deg.to_radians().tan());
    let inside = move |x: [f64; 3]| {
        let rho = x[0].hypot(x[2]);
        rho < hw && x[1] > 0.0 && x[1] > (rho - neck) * slope
    };
    let region = FillRegion3d {
        lo: [-hw, 0.0, -hw],
        hi: [hw, h, hw],
        walls: &walls,
        inside: &inside,
        lower_first: false,
    };
    let n = 20_000;
    let radii: Vec<f64> = (0..n)
        .map(|i| r * (0.9 + 0.2 * ((i * 7919) % 1000) as f64 / 1000.0))
        .collect();
    let mut group = c.benchmark_group("fill3d");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::from_parameter(n), |b| {
        b.iter(|| {
            let pos = deposit(&radii, &region);
            assert_eq!(pos.len(), n);
            pos
        })
    });
    group.finish();
}

criterion_group!(benches, place, place_spheres);
criterion_main!(benches);
