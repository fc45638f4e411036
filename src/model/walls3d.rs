//! Walls in three dimensions. Today: planes, each bounding a half-space
//! the grains keep to (a box is six of them); triangles from meshes are to
//! join them as the plane's segments have.
//!
//! ```text
//!   plane (point p, unit inward normal n):  d = (x - p).n - r,  normal n
//! ```
//! A sphere whose centre crossed the plane gets d < -r and is pushed back
//! to the inside, as a disk is by a segment with an inside (model::walls).

use crate::error::{Error, Result};

/// A plane wall: the grains stay on the side its normal points to.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Plane {
    /// A point of the plane, m.
    pub point: [f32; 3],
    /// The unit normal, pointing to the grains' side.
    pub normal: [f32; 3],
}

impl Plane {
    /// The plane through `point` facing `towards` (any length but zero;
    /// it is normalised). Refused when `towards` has no direction or a
    /// coordinate is not finite.
    pub fn new(point: [f32; 3], towards: [f32; 3]) -> Result<Plane> {
        let len = towards.iter().map(|x| x * x).sum::<f32>().sqrt();
        let finite = point.iter().chain(&towards).all(|x| x.is_finite());
        if !(finite && len > 0.0 && len.is_finite()) {
            return Err(Error::field(
                "walls",
                "plane",
                format!("a plane through {point:?} facing {towards:?} has no direction"),
            ));
        }
        Ok(Plane {
            point,
            normal: towards.map(|x| x / len),
        })
    }

    /// The signed distance of `x` from the plane, m: positive on the grains' side.
    #[inline]
    pub fn distance(&self, x: [f32; 3]) -> f32 {
        let d = [x[0] - self.point[0], x[1] - self.point[1], x[2] - self.point[2]];
        d[0] * self.normal[0] + d[1] * self.normal[1] + d[2] * self.normal[2]
    }
}

/// The walls of a 3D scene.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Walls3d {
    pub planes: Vec<Plane>,
}

impl Walls3d {
    /// The six planes of the box from `lo` to `hi` facing inwards.
    pub fn boxed(lo: [f32; 3], hi: [f32; 3]) -> Result<Walls3d> {
        if !(0..3).all(|k| lo[k] < hi[k]) {
            return Err(Error::field(
                "walls",
                "box",
                format!("the box from {lo:?} to {hi:?} is empty"),
            ));
        }
        let mut planes = Vec::with_capacity(6);
        for k in 0..3 {
            let mut n = [0.0; 3];
            n[k] = 1.0;
            planes.push(Plane::new(lo, n)?);
            n[k] = -1.0;
            planes.push(Plane::new(hi, n)?);
        }
        Ok(Walls3d { planes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_keeps_its_inside_on_the_positive_side_of_every_plane() {
        let walls = Walls3d::boxed([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]).unwrap();
        assert_eq!(walls.planes.len(), 6);
        let inside = [0.25, 1.5, 0.5];
        let dists: Vec<f32> = walls.planes.iter().map(|p| p.distance(inside)).collect();
        assert_eq!(dists, vec![0.25, 0.75, 1.5, 0.5, 0.5, 2.5]);
        assert!(walls.planes[3].distance([0.5, 2.5, 1.0]) < 0.0);
        let e = Walls3d::boxed([0.0; 3], [1.0, 0.0, 1.0]).unwrap_err().to_string();
        assert!(e.contains("is empty"), "{e}");
        let e = Plane::new([0.0; 3], [0.0; 3]).unwrap_err().to_string();
        assert!(e.contains("no direction"), "{e}");
        assert!(Plane::new([f32::NAN, 0.0, 0.0], [0.0, 0.0, 1.0]).is_err());
        assert_eq!(Plane::new([0.0; 3], [0.0, 0.0, 2.0]).unwrap().normal, [0.0, 0.0, 1.0]);
    }
}
