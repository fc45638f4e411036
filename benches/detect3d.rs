//! Binning and detection of 10,000 spheres (radius 3 mm) in the hourglass
//! of revolution (64 sectors: 384 triangles, their edges and vertices),
//! with and without the wall index (`Walls3d::indexed`). The spheres lie on
//! a lattice filling the upper bulb, so most touch their neighbours and the
//! outer ones the walls.
//!
//! Run: `cargo bench --bench detect3d`. Figures go to BENCHMARKS.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use hourglass::cpu::detect::bin_and_detect;
use hourglass::cpu::grid::Bins;
use hourglass::model::{ContactLists, Dim3, Grains, Grid, Walls3d};
use hourglass::scene::HourglassSpec;
use hourglass::scene::revolved::{SECTORS, hourglass};

fn detect3d(c: &mut Criterion) {
    let (r, alert) = (0.003f32, 0.0005f32);
    let spec = HourglassSpec::default();
    let shape = hourglass(&spec, f64::from(r), SECTORS).expect("the default hourglass");
    let walls = Walls3d::mesh(&[shape.walls, shape.gate].concat()).expect("a mesh");
    let (hw, h) = (0.5 * spec.width as f32, spec.bulb_height as f32);
    // A lattice of spacing 2r in the upper bulb's cylinder, kept inside its cone.
    let slope = spec.slope_deg.to_radians().tan() as f32;
    let neck = spec.neck as f32 * r;
    let mut pos = Vec::new();
    'fill: for y in 0.. {
        for i in 0..200 {
            for k in 0..200 {
                let x = [
                    -hw + r + 2.0 * r * i as f32,
                    2.0 * r + 2.0 * r * y as f32,
                    -hw + r + 2.0 * r * k as f32,
                ];
                let rho = x[0].hypot(x[2]);
                if rho + r < hw && x[1] - r > (rho + r - neck) * slope && x[1] + r < h {
                    pos.push(x);
                    if pos.len() == 10_000 {
                        break 'fill;
                    }
                }
            }
        }
    }
    let n = pos.len();
    let grains = Grains::<Dim3>::of_density(pos, vec![[0.0; 3]; n], vec![r; n], 2500.0);
    let grid = Grid::<Dim3>::covering_box([-hw, -h, -hw], [hw, h, hw], 2.0 * r + alert).expect("a grid");
    let mut group = c.benchmark_group("detect3d");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    for (name, w) in [
        ("every_body", walls.clone()),
        ("indexed", walls.indexed(2.0 * r + alert)),
    ] {
        let (mut bins, mut lists) = (Bins::default(), ContactLists::<Dim3>::new(n, 32));
        group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
            b.iter(|| std::hint::black_box(bin_and_detect(&grid, &mut bins, &grains, &w, alert, &mut lists).contacts))
        });
    }
    group.finish();
}

criterion_group!(benches, detect3d);
criterion_main!(benches);
