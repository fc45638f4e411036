//! The camera of 3D pictures: it orbits a target point on a sphere, y up
//! (gravity's axis), and looks at it through a perspective projection.
//!
//! ```text
//!   eye = target + distance (cos p sin a, sin p, cos p cos a)   a = yaw, p = pitch
//!   yaw 0, pitch 0: looking along -z, x to the right, y up
//!   view: right-handed look-at; projection: wgpu's clip space (depth 0..1)
//! ```
//! Matrices are column-major `[[f32; 4]; 4]` (`m[column][row]`), as WGSL's
//! `mat4x4<f32>` reads them. Written by hand on the space's vector
//! operations (`model::space`): a look-at and a perspective are not worth a
//! linear-algebra dependency.

use crate::model::space::{Dim3, Space, cross};

/// Vertical field of view, rad (35 degrees).
pub const FOV_Y: f32 = 0.610_865_2;

/// A camera orbiting `target`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Orbit {
    /// The point looked at, m.
    pub target: [f32; 3],
    /// From the target to the eye, m.
    pub distance: f32,
    /// Turn about the vertical (y) axis, rad; 0 looks along -z.
    pub yaw: f32,
    /// Elevation above the horizontal, rad (within +-89 degrees).
    pub pitch: f32,
}

/// `a` over its length (unchanged at length 0).
fn unit(a: [f32; 3]) -> [f32; 3] {
    Dim3::scale(a, 1.0 / Dim3::dot(a, a).sqrt().max(f32::MIN_POSITIVE))
}

impl Orbit {
    /// The camera at `yaw` and `pitch` (rad) that holds the box `bounds`
    /// ([xmin, ymin, zmin, xmax, ymax, zmax], m) whole in a picture of
    /// `aspect` = width / height: it looks at the box's centre from the
    /// distance at which the box's bounding sphere fits the narrower field
    /// of view, with a small margin.
    pub fn fit(bounds: [f32; 6], yaw: f32, pitch: f32, aspect: f32) -> Orbit {
        let lo = [bounds[0], bounds[1], bounds[2]];
        let hi = [bounds[3], bounds[4], bounds[5]];
        let target = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])];
        let d = Dim3::sub(hi, lo);
        let radius = (0.5 * Dim3::dot(d, d).sqrt()).max(1e-6);
        let half_y = 0.5 * FOV_Y;
        let half_x = (half_y.tan() * aspect.max(1e-3)).atan();
        let half = half_y.min(half_x);
        let limit = 89f32.to_radians();
        Orbit {
            target,
            distance: 1.04 * radius / half.sin(),
            yaw,
            pitch: pitch.clamp(-limit, limit),
        }
    }

    /// The eye's position, m.
    pub fn eye(&self) -> [f32; 3] {
        let (sp, cp) = self.pitch.sin_cos();
        let (sa, ca) = self.yaw.sin_cos();
        let t = self.target;
        let d = self.distance;
        [t[0] + d * cp * sa, t[1] + d * sp, t[2] + d * cp * ca]
    }

    /// The unit vector from the target towards the eye.
    pub fn towards_eye(&self) -> [f32; 3] {
        unit(Dim3::sub(self.eye(), self.target))
    }

    /// The unit normal of the cut-away's plane, towards the eye: the
    /// horizontal part of the direction to the eye, so the plane through
    /// the target is vertical (it holds an hourglass's axis), whatever the
    /// pitch.
    pub fn cut_normal(&self) -> [f32; 3] {
        let (sa, ca) = self.yaw.sin_cos();
        [sa, 0.0, ca]
    }

    /// Whether `p` lies on the eye's side of the cut-away's plane (through
    /// the target, [`Orbit::cut_normal`]): the half a cut-away leaves out.
    pub fn in_front(&self, p: [f32; 3]) -> bool {
        Dim3::dot(Dim3::sub(p, self.target), self.cut_normal()) > 0.0
    }

    /// The view matrix: world to eye coordinates (x right, y up, the eye
    /// looking along -z).
    pub fn view(&self) -> [[f32; 4]; 4] {
        let eye = self.eye();
        let back = self.towards_eye();
        let right = unit([back[2], 0.0, -back[0]]);
        let up = cross(back, right);
        [
            [right[0], up[0], back[0], 0.0],
            [right[1], up[1], back[1], 0.0],
            [right[2], up[2], back[2], 0.0],
            [-Dim3::dot(right, eye), -Dim3::dot(up, eye), -Dim3::dot(back, eye), 1.0],
        ]
    }

    /// The near and far planes, m: around the target, `reach` (m) either
    /// side of it.
    fn depth_range(&self, reach: f32) -> (f32, f32) {
        let near = (self.distance - reach).max(1e-3 * self.distance);
        (near, self.distance + reach)
    }

    /// The perspective projection for a picture of `aspect` = width /
    /// height holding everything within `reach` (m) of the target: eye
    /// coordinates to clip coordinates, depth 0 at the near plane and 1 at
    /// the far one.
    pub fn projection(&self, aspect: f32, reach: f32) -> [[f32; 4]; 4] {
        let (near, far) = self.depth_range(reach);
        let f = 1.0 / (0.5 * FOV_Y).tan();
        let a = far / (near - far);
        [
            [f / aspect.max(1e-6), 0.0, 0.0, 0.0],
            [0.0, f, 0.0, 0.0],
            [0.0, 0.0, a, -1.0],
            [0.0, 0.0, near * a, 0.0],
        ]
    }

    /// The pixel (from the top-left corner, x right, y down) at which `p`
    /// appears in a `width` x `height` picture; None behind the eye.
    pub fn to_pixel(&self, p: [f32; 3], width: u32, height: u32) -> Option<[f32; 2]> {
        let v = self.view();
        let e: [f32; 3] = std::array::from_fn(|r| v[0][r] * p[0] + v[1][r] * p[1] + v[2][r] * p[2] + v[3][r]);
        if e[2] >= 0.0 {
            return None;
        }
        let f = 1.0 / (0.5 * FOV_Y).tan();
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let x = f / aspect * e[0] / -e[2];
        let y = f * e[1] / -e[2];
        Some([(x + 1.0) * 0.5 * width as f32, (1.0 - y) * 0.5 * height as f32])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOX: [f32; 6] = [-1.0, 0.0, -1.0, 1.0, 2.0, 1.0];

    #[test]
    fn the_target_is_the_centre_of_the_picture() {
        for (yaw, pitch) in [(0.0, 0.0), (0.7, 0.3), (-2.0, -0.5)] {
            let o = Orbit::fit(BOX, yaw, pitch, 1.5);
            let p = o.to_pixel(o.target, 300, 200).unwrap();
            assert!((p[0] - 150.0).abs() < 1e-3 && (p[1] - 100.0).abs() < 1e-3, "{p:?}");
            let e = o.eye();
            let d = Dim3::sub(e, o.target);
            assert!((Dim3::dot(d, d).sqrt() - o.distance).abs() < 1e-4 * o.distance);
        }
    }

    #[test]
    fn up_is_up_and_x_is_right_from_the_front() {
        let o = Orbit::fit(BOX, 0.0, 0.0, 1.0);
        let c = o.to_pixel(o.target, 100, 100).unwrap();
        let up = o.to_pixel([0.0, 1.5, 0.0], 100, 100).unwrap();
        let right = o.to_pixel([0.5, 1.0, 0.0], 100, 100).unwrap();
        assert!(up[1] < c[1] && (up[0] - c[0]).abs() < 1e-3);
        assert!(right[0] > c[0] && (right[1] - c[1]).abs() < 1e-3);
        // From the front (yaw 0) the eye is on +z: that half is in front.
        assert!(o.in_front([0.0, 1.0, 0.5]) && !o.in_front([0.0, 1.0, -0.5]));
    }

    #[test]
    fn the_box_fits_and_the_projection_agrees_with_to_pixel() {
        for (yaw, pitch, w, h) in [(0.4, 0.5, 640, 480), (1.2, -0.2, 200, 500)] {
            let o = Orbit::fit(BOX, yaw, pitch, w as f32 / h as f32);
            let (v, pr) = (o.view(), o.projection(w as f32 / h as f32, 2.0));
            for k in 0..8 {
                let p = [
                    BOX[3 * (k & 1)],
                    BOX[1 + 3 * ((k >> 1) & 1)],
                    BOX[2 + 3 * ((k >> 2) & 1)],
                ];
                let px = o.to_pixel(p, w, h).unwrap();
                assert!(
                    px[0] > 0.0 && px[0] < w as f32 && px[1] > 0.0 && px[1] < h as f32,
                    "{p:?} at {px:?}"
                );
                let e: [f32; 4] = std::array::from_fn(|r| v[0][r] * p[0] + v[1][r] * p[1] + v[2][r] * p[2] + v[3][r]);
                let c: [f32; 4] = std::array::from_fn(|r| (0..4).map(|k| pr[k][r] * e[k]).sum());
                let ndc = [c[0] / c[3], c[1] / c[3], c[2] / c[3]];
                let from_clip = [(ndc[0] + 1.0) * 0.5 * w as f32, (1.0 - ndc[1]) * 0.5 * h as f32];
                assert!((from_clip[0] - px[0]).abs() < 1e-2 && (from_clip[1] - px[1]).abs() < 1e-2);
                assert!(ndc[2] > 0.0 && ndc[2] < 1.0, "depth {}", ndc[2]);
            }
        }
    }
}
