//! Grain fill: log-normal radii and an overlap-free placement, reproducible
//! from the seed.
//!
//! Radii: a log-normal with linear-space mean m and standard deviation s has
//! log-space parameters sigma^2 = ln(1 + s^2/m^2), mu = ln m - sigma^2/2.
//! Draws outside [radius_min, radius_max] are redrawn (a truncated
//! distribution, not spikes at the bounds).
//!
//! Placement is sequential deposition into the lowest pocket, as granular
//! codes insert grains: each grain, in the order drawn, goes to the lowest
//! position in the fill region where it rests (against gravity, -y) on two
//! placed grains, on a grain and a wall, or on two walls (a wall line, a
//! line's end point, or an edge of the fill box), with its centre at least
//! r_i + r_j + c from every placed grain and r + c from every wall line
//! ([`clearance`] c: 1e-9 m, or 8 f32 epsilons of the region's extent). Grain
//! ids therefore grow with height, which the renderer uses for coloured
//! layers.
//!
//! ```text
//!   pockets: candidate (supports, branch), keyed by the height y of the
//!            centre of a grain of radius R resting in them
//!   queue k: the pockets of radius class k, lowest y first, R = its largest radius
//!   for each grain (radius r, class k):
//!       pop the lowest pocket of queue k; rest a grain of radius r in it;
//!       clear of everything -> place it there, and queue its pockets with
//!       the grains (5x5 grid cells) and wall lines near it
//!       taken for r but maybe not for a smaller grain of the class, or no
//!       resting position for r -> back in the queue (at most 8 times)
//!       otherwise -> dropped from this class
//! ```
//! The grains are split into 4 classes at quantiles of their radii, so a
//! pocket too narrow for small grains still serves large ones and one taken
//! for large grains still serves small ones; within a class the order is
//! that of the class's largest grain, so "lowest" holds up to the spread of
//! radii in a class. A uniform grid of cells one largest diameter wide
//! holds the placed grains and, per cell, the wall lines within reach.
//!
//! Cost O(N log N); the hourglass's fit search places the grains once per
//! size it tries. Area fraction and timings: BENCHMARKS.md, "The fill".

use rand::{SeedableRng, rngs::StdRng};
use rand_distr::{Distribution, LogNormal};

use super::spec::GrainsSpec;

mod pockets;

/// Log-space (mu, sigma) of a log-normal with linear-space mean and std.
pub fn lognormal_params(mean: f64, std: f64) -> (f64, f64) {
    let sigma2 = (1.0 + (std * std) / (mean * mean)).ln();
    (mean.ln() - 0.5 * sigma2, sigma2.sqrt())
}

/// `count` radii drawn from the spec's truncated log-normal.
pub fn sample_radii(spec: &GrainsSpec, count: usize, rng: &mut StdRng) -> Vec<f64> {
    if spec.radius_std == 0.0 {
        return vec![spec.radius_mean; count];
    }
    let (mu, sigma) = lognormal_params(spec.radius_mean, spec.radius_std);
    let dist = LogNormal::new(mu, sigma).expect("validated: sigma > 0 and finite");
    (0..count)
        .map(|_| {
            for _ in 0..1000 {
                let r = dist.sample(rng);
                if r >= spec.radius_min && r <= spec.radius_max {
                    return r;
                }
            }
            spec.radius_mean
        })
        .collect()
}

/// Where grains may go.
pub struct FillRegion<'a> {
    /// Search box [xmin, ymin, xmax, ymax], m.
    pub bbox: [f64; 4],
    /// Closed wall loop for the point-in-polygon test (None: the box alone).
    pub polygon: Option<&'a [[[f64; 2]; 2]]>,
    /// Every wall line a grain must keep clear of (gate included).
    pub obstacles: &'a [[[f64; 2]; 2]],
}

/// Even-odd ray casting along +x; horizontal lines never count.
pub fn point_in_polygon(p: [f64; 2], lines: &[[[f64; 2]; 2]]) -> bool {
    let mut inside = false;
    for &[a, b] in lines {
        if (a[1] > p[1]) != (b[1] > p[1]) {
            let x = a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
            if x > p[0] {
                inside = !inside;
            }
        }
    }
    inside
}

/// Distance from p to the segment [a, b].
pub fn segment_distance(p: [f64; 2], [a, b]: [[f64; 2]; 2]) -> f64 {
    let t = [b[0] - a[0], b[1] - a[1]];
    let tt = t[0] * t[0] + t[1] * t[1];
    let s = if tt > 0.0 {
        (((p[0] - a[0]) * t[0] + (p[1] - a[1]) * t[1]) / tt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let d = [p[0] - a[0] - s * t[0], p[1] - a[1] - s * t[1]];
    (d[0] * d[0] + d[1] * d[1]).sqrt()
}

/// Place grains of the given radii, in order, each in the lowest pocket of
/// the region (module doc); returns the centres of those that fit (a prefix
/// of `radii`). `rng` only breaks ties between pockets of equal height.
pub fn place(radii: &[f64], region: &FillRegion, rng: &mut StdRng) -> Vec<[f64; 2]> {
    if radii.is_empty() {
        return Vec::new();
    }
    pockets::Deposit::new(radii, region, clearance(region.bbox)).run(rng)
}

/// Gap between a placed grain and its supports, m: 1e-9 m, or 8 f32 epsilons
/// of the region's largest coordinate where that is more, so the grains stay
/// overlap-free once their centres and radii are rounded to f32 (`Grains`).
pub fn clearance(bbox: [f64; 4]) -> f64 {
    let scale = bbox.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    (8.0 * f64::from(f32::EPSILON) * scale).max(1e-9)
}

/// A seeded generator for the fill.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lognormal_parameters_reproduce_mean_and_std() {
        let (mu, sigma) = lognormal_params(0.003, 0.001);
        let mean = (mu + 0.5 * sigma * sigma).exp();
        let var = ((sigma * sigma).exp() - 1.0) * (2.0 * mu + sigma * sigma).exp();
        assert!((mean - 0.003).abs() < 1e-15);
        assert!((var.sqrt() - 0.001).abs() < 1e-15);
    }

    #[test]
    fn sampled_radii_match_the_untruncated_moments_roughly() {
        let spec = GrainsSpec {
            radius_min: 1e-6,
            radius_max: 1.0,
            ..GrainsSpec::default()
        };
        let r = sample_radii(&spec, 200_000, &mut rng(7));
        let m = r.iter().sum::<f64>() / r.len() as f64;
        let s = (r.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / r.len() as f64).sqrt();
        assert!((m - 0.003).abs() < 0.003 * 0.01, "mean {m}");
        assert!((s - 0.001).abs() < 0.001 * 0.03, "std {s}");
    }

    #[test]
    fn point_in_polygon_square() {
        let sq = [
            [[0.0, 0.0], [1.0, 0.0]],
            [[1.0, 0.0], [1.0, 1.0]],
            [[1.0, 1.0], [0.0, 1.0]],
            [[0.0, 1.0], [0.0, 0.0]],
        ];
        assert!(point_in_polygon([0.5, 0.5], &sq));
        assert!(!point_in_polygon([1.5, 0.5], &sq));
        assert!(!point_in_polygon([0.5, -0.1], &sq));
    }
}
