//! Grain fill: log-normal radii and an overlap-free placement, reproducible
//! from the seed.
//!
//! Radii: a log-normal with linear-space mean m and standard deviation s has
//! log-space parameters sigma^2 = ln(1 + s^2/m^2), mu = ln m - sigma^2/2.
//! Draws outside [radius_min, radius_max] are redrawn (a truncated
//! distribution, not spikes at the bounds).
//!
//! Placement packs rows from the bottom of the fill region upwards (shelf
//! packing): each grain sits on its row's base line, to the right of the
//! previous one with a small random gap, at the first position where its disk
//! lies inside the region and clear of every wall. Grain ids therefore grow
//! with height, which the renderer uses for coloured layers. O(N S) for S
//! wall segments, so a million grains place in seconds.

use rand::{RngExt, SeedableRng, rngs::StdRng};
use rand_distr::{Distribution, LogNormal};

use super::spec::GrainsSpec;

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

impl FillRegion<'_> {
    fn fits(&self, p: [f64; 2], r: f64, clearance: f64) -> bool {
        let b = self.bbox;
        if p[0] - r < b[0] || p[0] + r > b[2] || p[1] - r < b[1] || p[1] + r > b[3] {
            return false;
        }
        if let Some(poly) = self.polygon
            && !point_in_polygon(p, poly)
        {
            return false;
        }
        self.obstacles.iter().all(|&l| segment_distance(p, l) >= r + clearance)
    }
}

/// Place grains of the given radii, in order; returns the centres of those
/// that fit (a prefix of `radii`).
pub fn place(radii: &[f64], region: &FillRegion, rng: &mut StdRng) -> Vec<[f64; 2]> {
    let mut out = Vec::with_capacity(radii.len());
    let Some(r_min) = radii.iter().copied().reduce(f64::min) else {
        return out;
    };
    let r_mean = radii.iter().sum::<f64>() / radii.len() as f64;
    let clearance = 0.02 * r_min;
    let step = 0.5 * r_min;
    let [xmin, mut y, xmax, ymax] = region.bbox;
    while out.len() < radii.len() && y < ymax {
        let mut x = xmin;
        let mut row_height = 0.0f64;
        while let Some(&r) = radii.get(out.len()) {
            // First position at or right of the cursor where this disk fits.
            let mut cx = x + r;
            let cy = y + r + clearance;
            while cx + r <= xmax && !region.fits([cx, cy], r, clearance) {
                cx += step;
            }
            if cx + r > xmax {
                break;
            }
            out.push([cx, cy]);
            row_height = row_height.max(2.0 * r);
            x = cx + r + clearance + 0.1 * r_mean * rng.random::<f64>();
        }
        y += if row_height > 0.0 { row_height + clearance } else { step };
    }
    out
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
