//! The distribution of overlaps over a run: at every diagnostics row the
//! overlaps of all touching pairs (grain-grain, grain-wall, grain-corner) are
//! found on the host from the grains the frame was written from, and counted
//! in a histogram of the overlap as a fraction of the mean radius. The run's
//! summary gives its median and 99th percentile ([`OverlapHistogram`]); the
//! largest overlap comes from every step ([`crate::model::StepStats::max_overlap`]).
//!
//! Found on the host so that every backend is measured by the same code: the
//! pairs are those of the census's detection at the row
//! ([`crate::backend::census::Census::lists`], pairs closer than its touch
//! distance, 0 or more), of which the overlapping ones count.

use crate::model::{ContactLists, Space};

/// Histogram resolution: bins of 1e-4 of the mean radius (0.01 %).
const BINS_PER_RADIUS: f64 = 1e4;
/// Overlaps of a whole radius and more share the last bin.
const BINS: usize = BINS_PER_RADIUS as usize + 1;

/// Overlaps of touching pairs, counted over every sample of a run.
#[derive(Debug, Clone)]
pub struct OverlapHistogram {
    /// Mean grain radius the overlaps are measured in, m.
    radius_mean: f64,
    counts: Vec<u64>,
    total: u64,
}

impl OverlapHistogram {
    pub fn new(radius_mean: f64) -> Self {
        OverlapHistogram {
            radius_mean,
            counts: vec![0; BINS],
            total: 0,
        }
    }

    /// Count the overlaps (negative gaps) of the pairs in `lists`, each
    /// grain-grain pair once (in the list of its lower grain).
    pub fn sample<S: Space>(&mut self, lists: &ContactLists<S>) {
        for i in 0..lists.grains() {
            for c in lists.of(i) {
                if let crate::model::Body::Grain(j) = c.body()
                    && (j as usize) < i
                {
                    continue;
                }
                if c.gap < 0.0 {
                    self.add(f64::from(-c.gap));
                }
            }
        }
    }

    fn add(&mut self, overlap: f64) {
        let b = (overlap / self.radius_mean * BINS_PER_RADIUS) as usize;
        self.counts[b.min(BINS - 1)] += 1;
        self.total += 1;
    }

    /// The mean radius overlaps are measured in, m.
    pub fn radius_mean(&self) -> f64 {
        self.radius_mean
    }

    /// The non-empty bins as (bin, count): what a resumed run starts from.
    pub fn bins(&self) -> Vec<(u32, u64)> {
        let filled = self.counts.iter().enumerate().filter(|(_, c)| **c > 0);
        filled.map(|(b, &c)| (b as u32, c)).collect()
    }

    /// Count `bins` (from [`OverlapHistogram::bins`]) as if sampled here.
    pub fn add_bins(&mut self, bins: &[(u32, u64)]) {
        for &(b, c) in bins {
            self.counts[(b as usize).min(BINS - 1)] += c;
            self.total += c;
        }
    }

    /// Touching pairs counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The overlap under which a fraction `q` of the counted pairs lie, m
    /// (the upper edge of its bin: never under the true quantile); 0 when
    /// nothing touched.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let want = (q * self.total as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= want {
                return (b + 1) as f64 / BINS_PER_RADIUS * self.radius_mean;
            }
        }
        self.radius_mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::detect::bin_and_detect;
    use crate::cpu::grid::Bins;
    use crate::model::{Grains, Grid, Walls};

    #[test]
    fn quantiles_of_known_overlaps() {
        let mut h = OverlapHistogram::new(1e-3);
        assert_eq!(h.quantile(0.99), 0.0);
        // 1 % .. 100 % of the radius in steps of 1 %: p50 is 50 %, p99 is 99 %.
        for k in 1..=100 {
            h.add(f64::from(k) * 1e-5 - 1e-9);
        }
        assert_eq!(h.total(), 100);
        assert!((h.quantile(0.5) - 5.0e-4).abs() < 2e-7, "{}", h.quantile(0.5));
        assert!((h.quantile(0.99) - 9.9e-4).abs() < 2e-7, "{}", h.quantile(0.99));
    }

    #[test]
    fn sample_counts_each_touching_pair_once() {
        let grid = Grid::covering([-1.0, -1.0, 1.0, 1.0], 0.1).unwrap();
        // Two grains of radius 0.01 overlapping by 1e-3, a third apart.
        let pos = vec![[0.0, 0.0], [0.019, 0.0], [0.5, 0.0]];
        let grains = Grains::new(pos, vec![[0.0; 2]; 3], vec![0.01; 3], 1.0);
        let mut lists = ContactLists::new(0, 8);
        bin_and_detect(&grid, &mut Bins::default(), &grains, &Walls::default(), 0.0, &mut lists);
        let mut h = OverlapHistogram::new(0.01);
        h.sample(&lists);
        assert_eq!(h.total(), 1);
        assert!((h.quantile(1.0) - 1e-3).abs() < 2e-6, "{}", h.quantile(1.0));
    }
}
