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
    fit_from(time, passed, 0)
}

/// The rows of each discharge of a run. A discharge ends at the row where
/// the passed count peaks before it falls by more than a tenth of the most
/// that ever passed (and by at least 10 grains): the grains went back above
/// the neck, as when the hourglass is turned over. The next starts at the
/// row where that fall bottoms out; the rows of the fall belong to neither.
pub fn discharges(passed: &[u64]) -> Vec<std::ops::Range<usize>> {
    let most = passed.iter().copied().max().unwrap_or(0);
    let drop = (most / 10).max(10);
    let mut out = Vec::new();
    let (mut start, mut peak) = (0, 0);
    let mut trough: Option<usize> = None;
    for i in 1..passed.len() {
        if passed[i] < passed[i - 1] {
            if passed[peak] - passed[i] > drop {
                trough = Some(i);
            }
        } else if let Some(t) = trough.take() {
            out.push(start..peak + 1);
            (start, peak) = (t, t);
        }
        if trough.is_none() && passed[i] >= passed[peak] {
            peak = i;
        }
    }
    if passed.is_empty() {
        return out;
    }
    match trough {
        Some(t) => out.extend([start..peak + 1, t..passed.len()]),
        None => out.push(start..passed.len()),
    }
    out
}

/// [`fit_flow_rate`] of every discharge of a run ([`discharges`]): the
/// first counts from 0 as [`fit_flow_rate`] does, each later one from the
/// count at its first row.
pub fn fit_flow_rates(time: &[f64], passed: &[u64]) -> Vec<Option<FlowFit>> {
    discharges(passed)
        .into_iter()
        .map(|r| {
            let base = if r.start == 0 { 0 } else { passed[r.start] };
            fit_from(&time[r.clone()], &passed[r], base)
        })
        .collect()
}

/// [`fit_flow_rate`] counting the passed grains from `base`.
fn fit_from(time: &[f64], passed: &[u64], base: u64) -> Option<FlowFit> {
    let last = passed.last()?.saturating_sub(base);
    if last < 10 {
        return None;
    }
    let (lo, hi) = (base as f64 + 0.2 * last as f64, base as f64 + 0.8 * last as f64);
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
    fn a_run_turned_over_has_two_discharges_each_fitted_from_its_own_start() {
        // 100 grains/s to 300, held, turned over (down to 10), then 200 grains/s back to 300.
        let t: Vec<f64> = (0..100).map(|k| k as f64 * 0.1).collect();
        let p: Vec<u64> = t
            .iter()
            .map(|&t| {
                if t < 5.0 {
                    (100.0 * t).min(300.0) as u64
                } else {
                    (10.0 + 200.0 * (t - 5.0)).min(300.0) as u64
                }
            })
            .collect();
        assert_eq!(discharges(&p), vec![0..50, 50..100]);
        // A turn over several rows: the fall's rows belong to neither discharge.
        let q = [0, 100, 200, 300, 300, 250, 120, 20, 20, 150, 300];
        assert_eq!(discharges(&q), vec![0..5, 7..11]);
        // A grain or two bouncing back over the neck does not end a discharge.
        assert_eq!(discharges(&[0, 100, 99, 200, 300]), vec![0..5]);
        let fits = fit_flow_rates(&t, &p);
        assert!((fits[0].unwrap().rate - 100.0).abs() < 1.0, "{fits:?}");
        assert!((fits[1].unwrap().rate - 200.0).abs() < 2.0, "{fits:?}");
        // The first discharge's fit is fit_flow_rate's over its rows.
        assert_eq!(fits[0], fit_flow_rate(&t[..50], &p[..50]));
        // A run of one discharge: one fit, fit_flow_rate's.
        assert_eq!(
            fit_flow_rates(&t[..50], &p[..50]),
            vec![fit_flow_rate(&t[..50], &p[..50])]
        );
    }

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
