//! The parametric hourglass: two bulbs joined at a neck at y = 0.
//!
//! ```text
//!   (-w/2, H) +-----------------+ (w/2, H)
//!             |                 |
//!   (-w/2, hs)+                 + (w/2, hs)      hs = (w/2 - a) tan(slope)
//!               \             /
//!                 \  gate   /
//!          (-a, 0)  +=====+  (a, 0)             a = neck * radius_mean
//!                 /         \
//!               ...  mirror  ...
//! ```
//! When hs > H the funnel reaches the top and the bulb is a trapezoid.

use super::spec::HourglassSpec;

/// Wall lines [[x0, y0], [x1, y1]] (a closed loop) and the gate line across the neck.
pub struct HourglassLines {
    pub walls: Vec<[[f64; 2]; 2]>,
    pub gate: [[f64; 2]; 2],
}

/// The outline of an hourglass with grains of mean radius `radius_mean`.
/// Returns None when the neck is at least as wide as the bulb.
pub fn outline(spec: &HourglassSpec, radius_mean: f64) -> Option<HourglassLines> {
    let a = spec.neck * radius_mean;
    // Left half of the upper bulb, from the neck up to the top centre.
    let left: Vec<[f64; 2]> = upper_side(spec, radius_mean)?.iter().map(|p| [-p[0], p[1]]).collect();
    let mut upper = left.clone();
    upper.extend(left.iter().rev().map(|p| [-p[0], p[1]]));
    // upper runs (-a,0) ... top ... (a,0); the lower bulb mirrors it in y.
    let lower: Vec<[f64; 2]> = upper.iter().map(|p| [-p[0], -p[1]]).collect();
    let mut loop_pts = upper;
    loop_pts.extend(lower.into_iter().skip(1));
    let walls = loop_pts.windows(2).map(|w| [w[0], w[1]]).collect();
    Some(HourglassLines {
        walls,
        gate: [[-a, 0.0], [a, 0.0]],
    })
}

/// The right side of the upper bulb, from the neck (a, 0) up to the top
/// corner: (a, 0), (w/2, hs), (w/2, H), or (a, 0), (a + H / tan s, H) when
/// the funnel reaches the top; None when the neck is at least as wide as
/// the bulb. The plane's outline mirrors it, the hourglass of revolution
/// (`scene::revolved`) turns it about the axis.
pub fn upper_side(spec: &HourglassSpec, radius_mean: f64) -> Option<Vec<[f64; 2]>> {
    let a = spec.neck * radius_mean;
    let hw = 0.5 * spec.width;
    if a >= hw {
        return None;
    }
    let t = spec.slope_deg.to_radians().tan();
    let h = spec.bulb_height;
    let hs = (hw - a) * t;
    Some(if hs < h {
        vec![[a, 0.0], [hw, hs], [hw, h]]
    } else {
        vec![[a, 0.0], [a + h / t, h]]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outline_is_closed_and_symmetric() {
        let lines = outline(&HourglassSpec::default(), 0.003).unwrap();
        let w = &lines.walls;
        assert_eq!(w.len(), 10);
        for k in 0..w.len() {
            assert_eq!(w[k][1], w[(k + 1) % w.len()][0], "loop is closed");
        }
        let hs = (0.15f64 - 0.0195) * 51f64.to_radians().tan();
        assert!((w[0][1][1] - hs).abs() < 1e-12);
        // The neck: 6.5 diameters of 6 mm.
        assert!((lines.gate[1][0] - 0.0195).abs() < 1e-12 && lines.gate[0][0] == -lines.gate[1][0]);
        assert_eq!((lines.gate[0][1], lines.gate[1][1]), (0.0, 0.0));
    }
}
