//! Walls of revolution in 3D: a profile (radius, height) turned about the y
//! axis into triangles; the hourglass of revolution (two cones and a neck,
//! the plane's hourglass turned) and the silo of revolution (a cylinder over
//! a cone), each with a gate disk across its opening.
//!
//! ```text
//!   profile point (rho, y)  ->  ring (rho cos t_k, y, rho sin t_k),  t_k = 2 pi k / sectors
//!   segment between two rings: a band of `sectors` quads, two triangles each;
//!   a ring of radius 0 (on the axis) makes the band a fan of triangles.
//! ```
//! The rings of consecutive segments are the same points, so the triangles
//! share their edges and vertices (`model::walls3d::Walls3d::mesh`); a
//! closed profile (both ends on the axis) turns into a closed surface.
//!
//! ```text
//!   hourglass (spec as in the plane: width w, bulb height H, neck a = neck r,
//!   slope s; hs = (w/2 - a) tan s):
//!     (0, -H) (w/2, -H) (w/2, -hs) (a, 0) (w/2, hs) (w/2, H) (0, H)
//!     gate: the disk of radius a at y = 0
//!     (hs > H: the cones reach the lids at radius a + H / tan s)
//!   silo (radius R, height H of the cylinder's top, outlet radius a, hopper
//!   angle s from the horizontal; hc = (R - a) tan s):
//!     (a, 0) (R, hc) (R, H) (0, H)
//!     gate: the disk of radius a at y = 0 (the outlet, open below)
//! ```

use super::spec::HourglassSpec;

/// Triangles of a parametric wall: the walls and the gate across the opening.
#[derive(Debug, Clone, PartialEq)]
pub struct Revolved {
    pub walls: Vec<[[f64; 3]; 3]>,
    pub gate: Vec<[[f64; 3]; 3]>,
}

/// Sectors the parametric walls are cut into around the axis by default:
/// the polygon holds 99.8 % of the circle's area.
pub const SECTORS: usize = 64;

/// The surface of `profile` (points (radius >= 0, y)) turned about the y
/// axis in `sectors` steps, in profile order. Segments of zero length are
/// left out.
pub fn revolve(profile: &[[f64; 2]], sectors: usize) -> Vec<[[f64; 3]; 3]> {
    let ring = |p: [f64; 2], k: usize| {
        let t = std::f64::consts::TAU * (k % sectors) as f64 / sectors as f64;
        if p[0] == 0.0 {
            [0.0, p[1], 0.0]
        } else {
            [p[0] * t.cos(), p[1], p[0] * t.sin()]
        }
    };
    let mut out = Vec::new();
    for w in profile.windows(2) {
        let (p, q) = (w[0], w[1]);
        if p == q {
            continue;
        }
        for k in 0..sectors {
            let (p0, p1, q0, q1) = (ring(p, k), ring(p, k + 1), ring(q, k), ring(q, k + 1));
            if p[0] > 0.0 {
                out.push([p0, p1, q1]);
            }
            if q[0] > 0.0 {
                out.push([p0, q1, q0]);
            }
        }
    }
    out
}

/// The hourglass of revolution of `spec` for grains of mean radius
/// `radius_mean` (the plane's outline, `scene::hourglass`, turned about its
/// axis in `sectors` steps); None when the neck is at least as wide as the
/// bulb.
pub fn hourglass(spec: &HourglassSpec, radius_mean: f64, sectors: usize) -> Option<Revolved> {
    let a = spec.neck * radius_mean;
    // The upper half, from the neck to the top centre.
    let mut upper = super::hourglass::upper_side(spec, radius_mean)?;
    upper.push([0.0, spec.bulb_height]);
    let mut profile: Vec<[f64; 2]> = upper.iter().rev().map(|p| [p[0], -p[1]]).collect();
    profile.extend(upper.into_iter().skip(1));
    Some(Revolved {
        walls: revolve(&profile, sectors),
        gate: revolve(&[[0.0, 0.0], [a, 0.0]], sectors),
    })
}

/// The volume of the upper bulb of the hourglass of revolution of `spec`
/// (above the neck), m^3, as the profile's cones and cylinder enclose it (0
/// when the neck is at least as wide as the bulb).
pub fn upper_bulb_volume(spec: &HourglassSpec, radius_mean: f64) -> f64 {
    // A frustum of radii r0, r1 and height d per segment of the side.
    let frustum = |p: [f64; 2], q: [f64; 2]| {
        std::f64::consts::PI * (q[1] - p[1]) * (p[0] * p[0] + p[0] * q[0] + q[0] * q[0]) / 3.0
    };
    super::hourglass::upper_side(spec, radius_mean)
        .map_or(0.0, |side| side.windows(2).map(|w| frustum(w[0], w[1])).sum())
}

/// `spec` enlarged (width and bulb height, in steps of 10 %) until its upper
/// bulb holds `count` spheres of mean radius `radius_mean` at a packing
/// fraction of `packing`; None past a thousandfold enlargement.
pub fn fit_hourglass(spec: &HourglassSpec, count: u64, radius_mean: f64, packing: f64) -> Option<HourglassSpec> {
    let need = count as f64 * 4.0 / 3.0 * std::f64::consts::PI * radius_mean.powi(3) / packing;
    let mut s = spec.clone();
    while upper_bulb_volume(&s, radius_mean) < need {
        if s.width > spec.width * 1e3 {
            return None;
        }
        s.width *= 1.1;
        s.bulb_height *= 1.1;
    }
    Some(s)
}

/// The silo of revolution: a cylinder of radius `radius` up to `height`
/// over a hopper at `slope_deg` from the horizontal down to an outlet of
/// radius `outlet` at y = 0, closed at the top; the gate is the outlet's
/// disk. None when the outlet is not narrower than the cylinder or the
/// hopper reaches above `height`. Cut into `sectors` around the axis.
pub fn silo(radius: f64, height: f64, outlet: f64, slope_deg: f64, sectors: usize) -> Option<Revolved> {
    let hc = (radius - outlet) * slope_deg.to_radians().tan();
    if !(outlet > 0.0 && outlet < radius && hc > 0.0 && hc < height) {
        return None;
    }
    let profile = [[outlet, 0.0], [radius, hc], [radius, height], [0.0, height]];
    Some(Revolved {
        walls: revolve(&profile, sectors),
        gate: revolve(&[[0.0, 0.0], [outlet, 0.0]], sectors),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Walls3d;

    /// The volume a closed surface of outward- or inward-facing triangles
    /// encloses (the divergence theorem), m^3.
    fn enclosed(t: &[[[f64; 3]; 3]]) -> f64 {
        let v: f64 = t
            .iter()
            .map(|[a, b, c]| {
                let bc = [
                    b[1] * c[2] - b[2] * c[1],
                    b[2] * c[0] - b[0] * c[2],
                    b[0] * c[1] - b[1] * c[0],
                ];
                (a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2]) / 6.0
            })
            .sum();
        v.abs()
    }

    #[test]
    fn the_hourglass_turns_into_a_closed_surface_of_the_bulbs_volume() {
        let spec = HourglassSpec::default();
        let r = 0.003;
        let h = hourglass(&spec, r, SECTORS).unwrap();
        let walls = Walls3d::mesh(&h.walls).unwrap();
        // Closed: every edge between exactly two triangles.
        assert!(walls.edges.iter().all(|e| e.into.len() == 2));
        // Two lids of SECTORS fans, four bands of 2 SECTORS.
        assert_eq!(h.walls.len(), 2 * SECTORS + 4 * 2 * SECTORS);
        let polygon = SECTORS as f64 / std::f64::consts::TAU * (std::f64::consts::TAU / SECTORS as f64).sin();
        let want = 2.0 * upper_bulb_volume(&spec, r) * polygon;
        let got = enclosed(&h.walls);
        assert!((got / want - 1.0).abs() < 1e-9, "{got} m^3 against {want}");
        // The gate is the neck's disk, its rim the neck's ring.
        assert_eq!(h.gate.len(), SECTORS);
        let a = spec.neck * r;
        for t in &h.gate {
            for p in t {
                assert_eq!(p[1], 0.0);
                assert!((p[0].hypot(p[2]) - a).abs() < 1e-12 || (p[0] == 0.0 && p[2] == 0.0));
            }
        }
        let both = Walls3d::mesh(&[h.walls.clone(), h.gate.clone()].concat()).unwrap();
        assert_eq!(both.vertices.len(), walls.vertices.len() + 1);
        // Closed: every face holds the spheres inside, towards the centre of
        // the hourglass (its faces' inward normals point at the axis or the
        // neck's plane); the gate's faces stay two-sided, the walls' keep
        // their inside with the gate in place.
        let faces_in = |w: &Walls3d| {
            w.triangles.iter().all(|t| {
                let c: [f32; 3] = std::array::from_fn(|k| (t.a[k] + t.b[k] + t.c[k]) / 3.0);
                let inward = t.normal.map(|v| v * t.side);
                t.side != 0.0 && (0..3).map(|k| -c[k] * inward[k]).sum::<f32>() > 0.0
            })
        };
        assert!(faces_in(&walls));
        let gated = Walls3d::mesh_with_gate(&h.walls, &h.gate).unwrap();
        let (sides, gate) = gated.triangles.split_at(h.walls.len());
        assert_eq!(sides, &walls.triangles[..]);
        assert!(gate.iter().all(|t| t.side == 0.0));
        // Walls and gate as one mesh: the neck's ring has three faces, so
        // nothing there is closed.
        assert!(both.triangles.iter().all(|t| t.side == 0.0));
    }

    #[test]
    fn a_fitted_hourglass_holds_its_spheres_and_a_narrow_bulb_is_refused() {
        let spec = HourglassSpec::default();
        let r = 0.003;
        let one = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        let fitted = fit_hourglass(&spec, 1_000_000, r, 0.6).unwrap();
        assert!(fitted.width > spec.width && fitted.bulb_height > spec.bulb_height);
        assert!(upper_bulb_volume(&fitted, r) * 0.6 >= 1_000_000.0 * one);
        let smaller = HourglassSpec {
            width: fitted.width / 1.1,
            bulb_height: fitted.bulb_height / 1.1,
            ..spec.clone()
        };
        assert!(upper_bulb_volume(&smaller, r) * 0.6 < 1_000_000.0 * one);
        assert_eq!(fit_hourglass(&spec, 10, r, 0.6), Some(spec.clone()));
        let narrow = HourglassSpec { width: 0.03, ..spec };
        assert!(hourglass(&narrow, r, SECTORS).is_none());
    }

    #[test]
    fn the_silo_is_a_cylinder_over_a_hopper_with_its_outlet_as_gate() {
        let (radius, height, outlet, slope) = (0.1, 0.4, 0.02, 60.0f64);
        let s = silo(radius, height, outlet, slope, SECTORS).unwrap();
        // Open at the outlet: the rim edges have one face, the rest two.
        let walls = Walls3d::mesh(&s.walls).unwrap();
        // Open at its outlet: two-sided.
        assert!(walls.triangles.iter().all(|t| t.side == 0.0));
        let rim = walls.edges.iter().filter(|e| e.into.len() == 1).count();
        assert_eq!(rim, SECTORS);
        assert!(walls.edges.iter().all(|e| !e.into.is_empty() && e.into.len() <= 2));
        // Closed by its gate, it encloses the cone's frustum and the cylinder.
        let hc = (radius - outlet) * slope.to_radians().tan();
        let pi = std::f64::consts::PI;
        let polygon = SECTORS as f64 / std::f64::consts::TAU * (std::f64::consts::TAU / SECTORS as f64).sin();
        let want = polygon
            * (pi * hc * (outlet * outlet + outlet * radius + radius * radius) / 3.0
                + pi * radius * radius * (height - hc));
        let got = enclosed(&[s.walls.clone(), s.gate.clone()].concat());
        assert!((got / want - 1.0).abs() < 1e-9, "{got} against {want}");
        assert!(silo(0.1, 0.4, 0.1, 60.0, SECTORS).is_none());
        assert!(silo(0.1, 0.1, 0.02, 60.0, SECTORS).is_none());
        assert!(silo(0.1, 0.4, 0.0, 60.0, SECTORS).is_none());
    }
}
