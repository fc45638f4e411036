//! The fill in 3D (`scene::fill3d`): spheres deposited into the lowest
//! pocket pack a box at a solid fraction of at least 0.55 (the random loose
//! packing of sequential deposition), overlap nothing, stay inside, come out
//! the same for the same radii, and fill a silo of revolution as well.

use hourglass::model::Walls3d;
use hourglass::scene::fill3d::{FillRegion3d, deposit};
use hourglass::scene::revolved::{SECTORS, silo};

/// Every pair of spheres and every sphere and wall: the least gap, m.
fn least_gap(pos: &[[f64; 3]], radius: &[f64], walls: &Walls3d) -> f64 {
    let mut least = f64::INFINITY;
    for i in 0..pos.len() {
        for j in i + 1..pos.len() {
            let d: f64 = (0..3).map(|k| (pos[i][k] - pos[j][k]).powi(2)).sum::<f64>().sqrt();
            least = least.min(d - radius[i] - radius[j]);
        }
        let x = pos[i].map(|v| v as f32);
        let r = radius[i] as f32;
        for p in &walls.planes {
            least = least.min(f64::from(p.distance(x) - r));
        }
        let found = walls
            .triangles
            .iter()
            .filter_map(|t| t.gap(x, r))
            .chain(walls.edges.iter().filter_map(|e| e.gap(x, r)))
            .chain(walls.vertices.iter().filter_map(|v| v.gap(x, r)));
        for (_, g) in found {
            least = least.min(f64::from(g));
        }
    }
    least
}

/// The solid fraction of the box `lo`..`hi`, sampled on a lattice of 40^3 points.
fn solid_fraction(pos: &[[f64; 3]], radius: &[f64], lo: [f64; 3], hi: [f64; 3]) -> f64 {
    let n = 40;
    let mut inside = 0usize;
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                let t = [a, b, c].map(|i| (i as f64 + 0.5) / n as f64);
                let x: [f64; 3] = std::array::from_fn(|k| lo[k] + t[k] * (hi[k] - lo[k]));
                if pos
                    .iter()
                    .zip(radius)
                    .any(|(p, r)| (0..3).map(|k| (x[k] - p[k]).powi(2)).sum::<f64>() < r * r)
                {
                    inside += 1;
                }
            }
        }
    }
    inside as f64 / (n * n * n) as f64
}

#[test]
fn spheres_deposited_into_a_box_pack_at_least_0_55_and_overlap_nothing() {
    let (lo, hi) = ([0.0f64; 3], [0.05f64, 0.2, 0.05]);
    let walls = Walls3d::boxed(lo.map(|v| v as f32), hi.map(|v| v as f32)).unwrap();
    let r = 0.002;
    // Radii within 10 % of 2 mm, the same every run.
    let radii: Vec<f64> = (0..3000)
        .map(|i| r * (0.9 + 0.2 * ((i * 7919) % 1000) as f64 / 1000.0))
        .collect();
    let everywhere = |_: [f64; 3]| true;
    let region = FillRegion3d {
        lo,
        hi,
        walls: &walls,
        inside: &everywhere,
        lower_first: false,
    };
    let pos = deposit(&radii, &region);
    assert_eq!(pos.len(), radii.len());
    assert!(least_gap(&pos, &radii, &walls) >= 0.0);
    // Lowest first: the pile's top is flat, well below the box's lid.
    let top = pos.iter().map(|x| x[1]).fold(0.0, f64::max);
    assert!(top < 0.1, "top {top}");
    // The solid fraction away from the walls and the free surface.
    let margin = 4.0 * r;
    let phi = solid_fraction(
        &pos,
        &radii,
        [margin, margin, margin],
        [0.05 - margin, top - 3.0 * margin, 0.05 - margin],
    );
    eprintln!(
        "3D fill: {} spheres, top {top:.4} m, solid fraction {phi:.3}",
        pos.len()
    );
    assert!(phi >= 0.55, "solid fraction {phi}");
    // The same radii, the same places.
    assert_eq!(deposit(&radii, &region), pos);
}

#[test]
fn a_silo_of_revolution_fills_from_its_outlet_up_without_overlaps() {
    let (radius, height, outlet, slope) = (0.04f64, 0.15f64, 0.01f64, 60.0f64);
    let shape = silo(radius, height, outlet, slope, SECTORS).unwrap();
    let walls = Walls3d::mesh(&[shape.walls.clone(), shape.gate.clone()].concat()).unwrap();
    let tan = slope.to_radians().tan();
    let inside = move |x: [f64; 3]| {
        let rho = x[0].hypot(x[2]);
        rho < radius && x[1] > 0.0 && x[1] > (rho - outlet) * tan
    };
    let region = FillRegion3d {
        lo: [-radius, 0.0, -radius],
        hi: [radius, height, radius],
        walls: &walls,
        inside: &inside,
        lower_first: false,
    };
    let radii = vec![0.0025; 800];
    let pos = deposit(&radii, &region);
    assert_eq!(pos.len(), radii.len());
    assert!(pos.iter().all(|&x| inside(x)));
    assert!(least_gap(&pos, &radii, &walls) >= 0.0);
    // The lowest sphere sits on the gate, in the outlet.
    let lowest = pos
        .iter()
        .copied()
        .fold([0.0, f64::INFINITY, 0.0], |a, x| if x[1] < a[1] { x } else { a });
    assert!(
        (lowest[1] - 0.0025).abs() < 1e-6 && lowest[0].hypot(lowest[2]) < outlet,
        "{lowest:?}"
    );
}
