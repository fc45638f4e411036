//! Post-processing of diagnostics: the discharge flow rate.

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
}
