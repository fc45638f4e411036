//! Post-processing: the discharge flow rate of the diagnostics, the angle of a heap.

/// A straight-line fit of passed grains against time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowFit {
    /// Grains per second.
    pub rate: f64,
    /// Fit window, s.
    pub window: [f64; 2],
    pub points: usize,
}

/// Fit the flow rate over the steady part of a discharge: the rows where the
/// passed count lies between 20% and 80% of its final value (start-up and
/// the draining tail excluded). None when fewer than 3 rows qualify or fewer
/// than 10 grains passed.
pub fn fit_flow_rate(time: &[f64], passed: &[u64]) -> Option<FlowFit> {
    let last = *passed.last()?;
    if last < 10 {
        return None;
    }
    let (lo, hi) = (0.2 * last as f64, 0.8 * last as f64);
    let pts: Vec<(f64, f64)> = time
        .iter()
        .zip(passed)
        .map(|(&t, &p)| (t, p as f64))
        .filter(|&(_, p)| p >= lo && p <= hi)
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let (mt, mp) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (mut stt, mut stp) = (0.0, 0.0);
    for &(t, p) in &pts {
        stt += (t - mt) * (t - mt);
        stp += (t - mt) * (p - mp);
    }
    if stt <= 0.0 {
        return None;
    }
    Some(FlowFit {
        rate: stp / stt,
        window: [pts[0].0, pts[pts.len() - 1].0],
        points: pts.len(),
    })
}

/// The surface of a heap: (x, top of the grain, y + r) of every grain
/// below `below` (m) slower than `speed` (m/s): the grains at rest, not a
/// stream still falling onto the heap.
pub fn heap_tops(grains: &crate::model::Grains, below: f32, speed: f32) -> Vec<(f64, f64)> {
    (0..grains.len())
        .filter(|&i| grains.pos[i][1] < below && grains.vel[i][0].hypot(grains.vel[i][1]) < speed)
        .map(|i| {
            (
                f64::from(grains.pos[i][0]),
                f64::from(grains.pos[i][1] + grains.radius[i]),
            )
        })
        .collect()
}

/// The angle of a heap's flanks, degrees: the surface profile (highest
/// grain top per `bin` m of x) from the peak to the foot on each side, a
/// least-squares line through the middle 20-80 % of each flank, the two
/// sides averaged. None for fewer than 3 bins on a side (no heap).
pub fn heap_angle(tops: &[(f64, f64)], bin: f64) -> Option<f64> {
    let lo = tops.iter().map(|t| t.0).fold(f64::INFINITY, f64::min);
    let hi = tops.iter().map(|t| t.0).fold(f64::NEG_INFINITY, f64::max);
    if !(bin > 0.0 && hi >= lo) {
        return None;
    }
    let n = ((hi - lo) / bin).ceil() as usize + 1;
    let mut h = vec![0.0f64; n];
    for &(x, y) in tops {
        let k = (((x - lo) / bin) as usize).min(n - 1);
        h[k] = h[k].max(y);
    }
    let peak = (0..n).max_by(|&a, &b| h[a].total_cmp(&h[b]))?;
    let flank = |ks: Vec<usize>| -> Option<f64> {
        let m = ks.len();
        if m < 3 {
            return None;
        }
        let pick: Vec<(f64, f64)> = ks[m / 5..(4 * m / 5).max(m / 5 + 2).min(m)]
            .iter()
            .map(|&k| ((k as f64 - peak as f64).abs() * bin, h[k]))
            .collect();
        let q = pick.len() as f64;
        let (sx, sy) = pick.iter().fold((0.0, 0.0), |s, p| (s.0 + p.0, s.1 + p.1));
        let (mx, my) = (sx / q, sy / q);
        let (sxy, sxx) = pick.iter().fold((0.0, 0.0), |s, p| {
            (s.0 + (p.0 - mx) * (p.1 - my), s.1 + (p.0 - mx) * (p.0 - mx))
        });
        Some((-sxy / sxx).atan().to_degrees())
    };
    let left = flank((0..=peak).rev().collect())?;
    let right = flank((peak..n).collect())?;
    Some((left + right) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_a_constant_rate_exactly() {
        let t: Vec<f64> = (0..100).map(|k| k as f64 * 0.1).collect();
        let p: Vec<u64> = t.iter().map(|&t| (t * 50.0).round() as u64).collect();
        let fit = fit_flow_rate(&t, &p).unwrap();
        assert!((fit.rate - 50.0).abs() < 0.5, "{fit:?}");
    }

    #[test]
    fn no_fit_without_flow() {
        assert!(fit_flow_rate(&[0.0, 1.0, 2.0], &[0, 0, 0]).is_none());
    }

    #[test]
    fn heap_angle_of_a_triangle_of_tops() {
        // Tops every 2 mm on the flanks of a 30-degree heap, 20 cm wide.
        let tan = 30f64.to_radians().tan();
        let tops: Vec<(f64, f64)> = (0..=100)
            .map(|k| {
                let x = -0.1 + 0.002 * k as f64;
                (x, tan * (0.1 - x.abs()))
            })
            .collect();
        let a = super::heap_angle(&tops, 0.01).unwrap();
        assert!((a - 30.0).abs() < 1.0, "{a}");
        assert_eq!(super::heap_angle(&[(0.0, 0.01)], 0.01), None);
        assert_eq!(super::heap_angle(&[], 0.01), None);
    }
}
