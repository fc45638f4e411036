//! The space grains move in: the plane ([`Dim2`], disks) or three
//! dimensions ([`Dim3`], spheres). Data and stages written over `S: Space`
//! are written once for both; the CPU monomorphises them, so the plane's
//! code is what it would be written for the plane alone.
//!
//! ```text
//!                      Dim2 (disks)                  Dim3 (spheres)
//!   Vec                [f32; 2]                      [f32; 3]
//!   Spin   w           f32, counter-clockwise        [f32; 3]
//!   Orientation        angle theta, rad              unit quaternion [w, x, y, z]
//!   Tangent            scalar along t = (-n_y, n_x)  vector in the plane normal to n
//!   mass m             rho pi r^2 (per unit          rho 4/3 pi r^3
//!                      thickness)
//!   1/I                2 im / r^2  (I = 1/2 m r^2)   5/2 im / r^2  (I = 2/5 m r^2)
//!   w x a              w (-a_y, a_x)                 w x a
//!   a x f              a_x f_y - a_y f_x             a x f
//!   turn by w dt       theta + w dt                  q + dt/2 (0, w) q, normalised
//! ```
//!
//! The tangential part of a vector v at a contact of unit normal n is
//! `tangent_vec(n, tangent_of(n, v))` = v - (v.n) n in both spaces: the
//! plane stores its one coordinate along t, three dimensions the vector.

use std::fmt::Debug;
use std::ops::{Index, IndexMut};

use bytemuck::Pod;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// What every value of a space (a vector, a spin, an orientation) is: plain
/// data the GPU can read, state.json can hold, and threads can share.
pub trait Value:
    Copy + Default + Debug + PartialEq + Send + Sync + Pod + Serialize + DeserializeOwned + 'static
{
}
impl<T> Value for T where
    T: Copy + Default + Debug + PartialEq + Send + Sync + Pod + Serialize + DeserializeOwned + 'static
{
}

/// A spin or a tangent: a number in the plane, a vector in 3D, taken
/// coordinate by coordinate. The force laws and the integrators write their
/// tangential and rotational terms once with these; on `f32` each is the
/// plain scalar expression.
pub trait Coords: Value {
    /// `f` of each coordinate.
    fn map(self, f: impl Fn(f32) -> f32) -> Self;
    /// `f` of each pair of coordinates of `self` and `o`.
    fn zip(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self;
    /// The length |self|.
    fn norm(self) -> f32;
    /// `self` shortened to length `bound` if longer: the interval
    /// [-bound, bound] of a number, the ball of a vector. A NaN stays a NaN
    /// (never a panic).
    fn cap(self, bound: f32) -> Self;
}

impl Coords for f32 {
    #[inline]
    fn map(self, f: impl Fn(f32) -> f32) -> f32 {
        f(self)
    }

    #[inline]
    fn zip(self, o: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
        f(self, o)
    }

    #[inline]
    fn norm(self) -> f32 {
        self.abs()
    }

    /// max/min, not clamp: WGSL's clamp(e, lo, hi) = min(max(e, lo), hi), and no panic on NaN.
    #[inline]
    fn cap(self, bound: f32) -> f32 {
        self.max(-bound).min(bound)
    }
}

impl Coords for [f32; 3] {
    #[inline]
    fn map(self, f: impl Fn(f32) -> f32) -> [f32; 3] {
        [f(self[0]), f(self[1]), f(self[2])]
    }

    #[inline]
    fn zip(self, o: [f32; 3], f: impl Fn(f32, f32) -> f32) -> [f32; 3] {
        [f(self[0], o[0]), f(self[1], o[1]), f(self[2], o[2])]
    }

    #[inline]
    fn norm(self) -> f32 {
        (self[0] * self[0] + self[1] * self[1] + self[2] * self[2]).sqrt()
    }

    #[inline]
    fn cap(self, bound: f32) -> [f32; 3] {
        let len = self.norm();
        if len > bound {
            self.map(|x| x * (bound / len))
        } else {
            self
        }
    }
}

/// A space of `DIM` coordinates and the operations the stages take in it.
pub trait Space: Copy + Default + Debug + PartialEq + Eq + Send + Sync + 'static {
    /// Coordinates of a point.
    const DIM: usize;
    /// A point or a vector (m, m/s, N s).
    type Vec: Value + Index<usize, Output = f32> + IndexMut<usize>;
    /// An angular velocity (rad/s) or angular impulse.
    type Spin: Coords;
    /// A grain's orientation.
    type Orientation: Value;
    /// A tangential impulse or velocity at a contact, in its own coordinates.
    type Tangent: Coords;
    /// The walls of a scene: segments with corner points in the plane,
    /// planes in 3D (model::walls, model::walls3d).
    type Walls: Debug + Clone + Default + PartialEq + Send + Sync + 'static;
    /// An axis-aligned box, its low corner then its high corner:
    /// [xmin, ymin, xmax, ymax] in the plane, [xmin, ymin, zmin, xmax, ymax,
    /// zmax] in 3D, m.
    type Bounds: Value;
    /// The walls' prescribed motion (`model::motion`).
    type Motion: super::motion::Moves<Self::Walls>;
    /// The orientation of a grain that has not turned.
    const UNTURNED: Self::Orientation;

    /// The vector with every coordinate `v`.
    fn splat(v: f32) -> Self::Vec;

    /// Whether a grain of radius `r` at `x` has a part inside the box `b`
    /// (its centre within `r` of it); false for a centre that is not finite.
    fn within(b: Self::Bounds, x: Self::Vec, r: f32) -> bool {
        let b: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&b));
        (0..Self::DIM).all(|k| x[k] >= b[k] - r && x[k] <= b[k + Self::DIM] + r)
    }

    /// The low and the high corner of the box `b`.
    fn box_corners(b: Self::Bounds) -> (Self::Vec, Self::Vec) {
        let b: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&b));
        let (mut lo, mut hi) = (Self::splat(0.0), Self::splat(0.0));
        for k in 0..Self::DIM {
            (lo[k], hi[k]) = (b[k], b[k + Self::DIM]);
        }
        (lo, hi)
    }

    /// The box from `lo` to `hi`.
    fn box_of(lo: Self::Vec, hi: Self::Vec) -> Self::Bounds {
        let mut out = Self::Bounds::default();
        let b: &mut [f32] = bytemuck::cast_slice_mut(std::slice::from_mut(&mut out));
        for k in 0..Self::DIM {
            (b[k], b[k + Self::DIM]) = (lo[k], hi[k]);
        }
        out
    }

    /// The point or vector in 3D (z = 0 in the plane): the frames' coordinates.
    fn xyz(v: Self::Vec) -> [f32; 3] {
        let mut out = [0.0; 3];
        for (k, o) in out.iter_mut().enumerate().take(Self::DIM) {
            *o = v[k];
        }
        out
    }

    /// The vector (x, y) of the x-y plane (z = 0 in 3D): gravity, which
    /// lies in that plane in both spaces, y up.
    fn in_plane(v: [f32; 2]) -> Self::Vec;

    /// The mass of a grain of radius `r` (m) and density `rho`, kg: per unit
    /// thickness in the plane (rho is then areal), of a sphere in 3D.
    fn mass(rho: f64, r: f64) -> f64;

    /// The inverse moment of inertia of a uniform grain of inverse mass
    /// `inv_mass` and radius `r` about its centre, 1/(kg m^2).
    fn inv_inertia(inv_mass: f32, r: f32) -> f32;

    /// w x a: the velocity, relative to the centre, of the point at `arm`
    /// of a body spinning at `w`.
    fn spin_cross(w: Self::Spin, arm: Self::Vec) -> Self::Vec;

    /// a x f: the moment about the centre of `f` applied at `arm`.
    fn moment(arm: Self::Vec, f: Self::Vec) -> Self::Spin;

    /// `w` scaled by `s`.
    fn spin_scale(w: Self::Spin, s: f32) -> Self::Spin;

    /// `a + b` of two spins.
    fn spin_add(a: Self::Spin, b: Self::Spin) -> Self::Spin;

    /// The orientation after turning at `w` for `dt` from `o`.
    fn turn(o: Self::Orientation, w: Self::Spin, dt: f32) -> Self::Orientation;

    /// The tangential part of `v` at a contact of unit normal `n`, in the
    /// tangent's own coordinates.
    fn tangent_of(n: Self::Vec, v: Self::Vec) -> Self::Tangent;

    /// The vector of tangent coordinates `t` at a contact of unit normal `n`.
    fn tangent_vec(n: Self::Vec, t: Self::Tangent) -> Self::Vec;

    /// W_tt / W_nn of a contact between uniform grains, (im_a + im_b +
    /// r_a^2/I_a + r_b^2/I_b) / (im_a + im_b): 3 for disks (I = 1/2 m r^2)
    /// and 7/2 for spheres (I = 2/5 m r^2), the same for a wall (which adds
    /// nothing).
    const TANGENT_MASS_RATIO: f32;

    /// The tangential slip velocity at a contact of unit normal `n` (from
    /// the other body towards this grain), seen from this grain: the
    /// tangential part of v_i - v_o - (r_i w_i) x n - (r_o w_o) x n, with
    /// `rw_i` = r_i w_i and `rw_o` = r_o w_o the spins of this grain and
    /// the other body scaled by their radii (0 for a wall).
    fn slip(n: Self::Vec, v_i: Self::Vec, v_o: Self::Vec, rw_i: Self::Spin, rw_o: Self::Spin) -> Self::Tangent;

    /// `t` projected into the Coulomb bound |t| <= `bound` (the interval in
    /// the plane, the disk in the contact plane in 3D).
    fn clamp_tangent(t: Self::Tangent, bound: f32) -> Self::Tangent;

    /// |t|.
    fn tangent_norm(t: Self::Tangent) -> f32;

    /// p - relax u / w, coordinate by coordinate (a tangential projection step).
    fn tangent_step(p: Self::Tangent, u: Self::Tangent, relax: f32, w: f32) -> Self::Tangent;

    /// a - b of two tangents.
    fn tangent_sub(a: Self::Tangent, b: Self::Tangent) -> Self::Tangent;

    /// The moment n x t_vec of a tangential impulse `t` at a contact of
    /// normal `n`, per unit of the grain's radius: its spin change is
    /// [`Space::spin_kick`] of the sum of these over its contacts.
    fn contact_moment(n: Self::Vec, t: Self::Tangent) -> Self::Spin;

    /// The tangential impulse a grain-grain contact's second copy holds
    /// (seen from the other grain, its normal negated): the same number in
    /// the plane (its tangent is negated with the normal), the opposite
    /// vector in 3D.
    fn mirror_tangent(t: Self::Tangent) -> Self::Tangent;

    /// The spin change of a grain of inverse mass `im` and radius `r` from
    /// the summed [`Space::contact_moment`]s `m` of its contacts (its contact
    /// points lie at -r n): -r m / I, that is -2 im m / r for a disk and
    /// -5/2 im m / r for a sphere (0 for r = 0).
    fn spin_kick(im: f32, r: f32, m: Self::Spin) -> Self::Spin;

    /// A tangential impulse of the last step carried to a contact whose
    /// normal is now `n` (the warm start): the plane keeps the number along
    /// the new tangent, 3D lays the vector into the new contact plane.
    fn carry_tangent(t: Self::Tangent, n: Self::Vec) -> Self::Tangent;

    /// Elementwise `f(a_k, b_k)`.
    #[inline]
    fn zip(a: Self::Vec, b: Self::Vec, f: impl Fn(f32, f32) -> f32) -> Self::Vec {
        let mut c = a;
        for k in 0..Self::DIM {
            c[k] = f(a[k], b[k]);
        }
        c
    }

    #[inline]
    fn add(a: Self::Vec, b: Self::Vec) -> Self::Vec {
        Self::zip(a, b, |x, y| x + y)
    }

    #[inline]
    fn sub(a: Self::Vec, b: Self::Vec) -> Self::Vec {
        Self::zip(a, b, |x, y| x - y)
    }

    #[inline]
    fn scale(a: Self::Vec, s: f32) -> Self::Vec {
        Self::zip(a, a, |x, _| x * s)
    }

    /// The dot product, summed in coordinate order.
    #[inline]
    fn dot(a: Self::Vec, b: Self::Vec) -> f32 {
        let mut s = a[0] * b[0];
        for k in 1..Self::DIM {
            s += a[k] * b[k];
        }
        s
    }

    /// v - (v.n) n: the part of `v` normal to unit `n`.
    #[inline]
    fn tangential(v: Self::Vec, n: Self::Vec) -> Self::Vec {
        Self::sub(v, Self::scale(n, Self::dot(v, n)))
    }
}

/// The plane: disks, one spin, orientation an angle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dim2;

/// Three dimensions: spheres, spin a vector, orientation a unit quaternion.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dim3;

impl Space for Dim2 {
    const DIM: usize = 2;
    type Vec = [f32; 2];
    type Spin = f32;
    type Orientation = f32;
    type Tangent = f32;
    type Walls = super::Walls;
    type Bounds = [f32; 4];
    type Motion = super::motion::WallMotion;
    const UNTURNED: f32 = 0.0;

    #[inline]
    fn splat(v: f32) -> [f32; 2] {
        [v; 2]
    }

    #[inline]
    fn in_plane(v: [f32; 2]) -> [f32; 2] {
        v
    }

    #[inline]
    fn mass(rho: f64, r: f64) -> f64 {
        rho * std::f64::consts::PI * r * r
    }

    #[inline]
    fn inv_inertia(inv_mass: f32, r: f32) -> f32 {
        2.0 * inv_mass / (r * r)
    }

    #[inline]
    fn spin_cross(w: f32, arm: [f32; 2]) -> [f32; 2] {
        [-w * arm[1], w * arm[0]]
    }

    #[inline]
    fn moment(arm: [f32; 2], f: [f32; 2]) -> f32 {
        arm[0] * f[1] - arm[1] * f[0]
    }

    #[inline]
    fn spin_scale(w: f32, s: f32) -> f32 {
        w * s
    }

    #[inline]
    fn spin_add(a: f32, b: f32) -> f32 {
        a + b
    }

    #[inline]
    fn turn(theta: f32, w: f32, dt: f32) -> f32 {
        theta + dt * w
    }

    #[inline]
    fn tangent_of(n: [f32; 2], v: [f32; 2]) -> f32 {
        -n[1] * v[0] + n[0] * v[1]
    }

    #[inline]
    fn tangent_vec(n: [f32; 2], t: f32) -> [f32; 2] {
        [-n[1] * t, n[0] * t]
    }

    #[inline]
    fn carry_tangent(t: f32, _n: [f32; 2]) -> f32 {
        t
    }

    const TANGENT_MASS_RATIO: f32 = 3.0;

    /// (v_i - v_o) . t - (r_i w_i + r_o w_o): w x n = w t in the plane.
    #[inline]
    fn slip(n: [f32; 2], v_i: [f32; 2], v_o: [f32; 2], rw_i: f32, rw_o: f32) -> f32 {
        let t = [-n[1], n[0]];
        (v_i[0] - v_o[0]) * t[0] + (v_i[1] - v_o[1]) * t[1] - (rw_i + rw_o)
    }

    #[inline]
    fn clamp_tangent(t: f32, bound: f32) -> f32 {
        t.clamp(-bound, bound)
    }

    #[inline]
    fn tangent_norm(t: f32) -> f32 {
        t.abs()
    }

    #[inline]
    fn tangent_step(p: f32, u: f32, relax: f32, w: f32) -> f32 {
        p - relax * u / w
    }

    #[inline]
    fn tangent_sub(a: f32, b: f32) -> f32 {
        a - b
    }

    /// n x (t (-n_y, n_x)) = t |n|^2 = t.
    #[inline]
    fn contact_moment(_n: [f32; 2], t: f32) -> f32 {
        t
    }

    #[inline]
    fn mirror_tangent(t: f32) -> f32 {
        t
    }

    #[inline]
    fn spin_kick(im: f32, r: f32, m: f32) -> f32 {
        if r > 0.0 { -2.0 * im * m / r } else { 0.0 }
    }
}

impl Space for Dim3 {
    const DIM: usize = 3;
    type Vec = [f32; 3];
    type Spin = [f32; 3];
    type Orientation = [f32; 4];
    type Tangent = [f32; 3];
    type Walls = super::Walls3d;
    type Bounds = [f32; 6];
    type Motion = super::motion::Still;
    const UNTURNED: [f32; 4] = [1.0, 0.0, 0.0, 0.0];

    #[inline]
    fn splat(v: f32) -> [f32; 3] {
        [v; 3]
    }

    #[inline]
    fn in_plane(v: [f32; 2]) -> [f32; 3] {
        [v[0], v[1], 0.0]
    }

    #[inline]
    fn mass(rho: f64, r: f64) -> f64 {
        rho * 4.0 / 3.0 * std::f64::consts::PI * r * r * r
    }

    #[inline]
    fn inv_inertia(inv_mass: f32, r: f32) -> f32 {
        2.5 * inv_mass / (r * r)
    }

    #[inline]
    fn spin_cross(w: [f32; 3], arm: [f32; 3]) -> [f32; 3] {
        cross(w, arm)
    }

    #[inline]
    fn moment(arm: [f32; 3], f: [f32; 3]) -> [f32; 3] {
        cross(arm, f)
    }

    #[inline]
    fn spin_scale(w: [f32; 3], s: f32) -> [f32; 3] {
        Self::scale(w, s)
    }

    #[inline]
    fn spin_add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        Self::add(a, b)
    }

    /// q + dt/2 (0, w) q, normalised: first order in dt, unit length kept
    /// (an unnormalised quaternion would scale the frames it turns).
    #[inline]
    fn turn(q: [f32; 4], w: [f32; 3], dt: f32) -> [f32; 4] {
        let h = 0.5 * dt;
        let [a, b, c, d] = q;
        let dq = [
            -w[0] * b - w[1] * c - w[2] * d,
            w[0] * a + w[1] * d - w[2] * c,
            -w[0] * d + w[1] * a + w[2] * b,
            w[0] * c - w[1] * b + w[2] * a,
        ];
        let p = [a + h * dq[0], b + h * dq[1], c + h * dq[2], d + h * dq[3]];
        let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]).sqrt();
        if len > 0.0 && len.is_finite() {
            p.map(|x| x / len)
        } else {
            q
        }
    }

    #[inline]
    fn tangent_of(n: [f32; 3], v: [f32; 3]) -> [f32; 3] {
        Self::tangential(v, n)
    }

    #[inline]
    fn tangent_vec(_n: [f32; 3], t: [f32; 3]) -> [f32; 3] {
        t
    }

    #[inline]
    fn carry_tangent(t: [f32; 3], n: [f32; 3]) -> [f32; 3] {
        Self::tangential(t, n)
    }

    const TANGENT_MASS_RATIO: f32 = 3.5;

    #[inline]
    fn slip(n: [f32; 3], v_i: [f32; 3], v_o: [f32; 3], rw_i: [f32; 3], rw_o: [f32; 3]) -> [f32; 3] {
        let spin = Self::add(cross(rw_i, n), cross(rw_o, n));
        Self::tangential(Self::sub(Self::sub(v_i, v_o), spin), n)
    }

    #[inline]
    fn clamp_tangent(t: [f32; 3], bound: f32) -> [f32; 3] {
        let len = Self::dot(t, t).sqrt();
        if len > bound { Self::scale(t, bound / len) } else { t }
    }

    #[inline]
    fn tangent_norm(t: [f32; 3]) -> f32 {
        Self::dot(t, t).sqrt()
    }

    #[inline]
    fn tangent_step(p: [f32; 3], u: [f32; 3], relax: f32, w: f32) -> [f32; 3] {
        Self::zip(p, u, |p, u| p - relax * u / w)
    }

    #[inline]
    fn tangent_sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        Self::sub(a, b)
    }

    #[inline]
    fn contact_moment(n: [f32; 3], t: [f32; 3]) -> [f32; 3] {
        cross(n, t)
    }

    #[inline]
    fn mirror_tangent(t: [f32; 3]) -> [f32; 3] {
        t.map(|x| -x)
    }

    #[inline]
    fn spin_kick(im: f32, r: f32, m: [f32; 3]) -> [f32; 3] {
        if r > 0.0 {
            Self::scale(m, -2.5 * im / r)
        } else {
            [0.0; 3]
        }
    }
}

/// a x b.
#[inline]
pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The rotation matrix's image of `v` under the unit quaternion `q` = [w, x, y, z].
pub fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
    let u = [q[1], q[2], q[3]];
    // v + 2 u x (u x v + w v)
    let t = Dim3::add(cross(u, v), Dim3::scale(v, q[0]));
    Dim3::add(v, Dim3::scale(cross(u, t), 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    /// The rigid-body velocity of a point, v + w x a, is the same whether
    /// computed in the plane or in 3D with the spin along z: the plane's
    /// conventions are the z-slice of the solid's.
    #[test]
    fn the_plane_is_the_z_slice_of_three_dimensions() {
        let cases = [
            ([0.3f32, -0.7], 2.5f32, [1.5f32, 0.25]),
            ([-1.0, 2.0], -0.4, [0.0, -3.0]),
        ];
        for (arm, w, f) in cases {
            let c2 = Dim2::spin_cross(w, arm);
            let c3 = Dim3::spin_cross([0.0, 0.0, w], [arm[0], arm[1], 0.0]);
            assert_eq!([c2[0], c2[1], 0.0], c3);
            let m2 = Dim2::moment(arm, f);
            let m3 = Dim3::moment([arm[0], arm[1], 0.0], [f[0], f[1], 0.0]);
            assert_eq!([0.0, 0.0, m2], m3);
        }
    }

    /// Mass and inertia of a uniform disk (1/2 m r^2) and sphere (2/5 m r^2).
    #[test]
    fn mass_and_inertia_of_a_disk_and_a_sphere() {
        let (rho, r) = (2500.0, 0.002);
        let pi = std::f64::consts::PI;
        assert!((Dim2::mass(rho, r) - rho * pi * r * r).abs() < 1e-15);
        assert!((Dim3::mass(rho, r) - rho * 4.0 / 3.0 * pi * r.powi(3)).abs() < 1e-18);
        let m = Dim3::mass(rho, r);
        let inertia = 0.4 * m * r * r;
        let inv = Dim3::inv_inertia((1.0 / m) as f32, r as f32);
        assert!(((1.0 / f64::from(inv)) / inertia - 1.0).abs() < 1e-6);
        let m = Dim2::mass(rho, r);
        let inv = Dim2::inv_inertia((1.0 / m) as f32, r as f32);
        assert!(((1.0 / f64::from(inv)) / (0.5 * m * r * r) - 1.0).abs() < 1e-6);
        assert_eq!(Dim2::inv_inertia(0.0, 0.1), 0.0);
        assert_eq!(Dim3::inv_inertia(0.0, 0.1), 0.0);
    }

    /// tangent_vec(n, tangent_of(n, v)) is v less its normal part, in both
    /// spaces, and it is normal to n.
    #[test]
    fn tangent_coordinates_hold_the_tangential_part() {
        let s = 1.0 / 3f32.sqrt();
        for n in [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [s, -s, s], [0.6, 0.8, 0.0]] {
            for v in [[0.5, -1.5, 2.0], [0.0, 0.0, 0.0], [-3.0, 0.1, 0.2]] {
                let t = Dim3::tangent_vec(n, Dim3::tangent_of(n, v));
                let want = Dim3::sub(v, Dim3::scale(n, Dim3::dot(v, n)));
                for k in 0..3 {
                    assert!(close(t[k], want[k], 1e-6), "{n:?} {v:?}");
                }
                assert!(close(Dim3::dot(t, n), 0.0, 1e-6));
            }
        }
        for n in [[1.0, 0.0], [0.6, -0.8], [-s * 1.5f32.sqrt(), s * 1.5f32.sqrt()]] {
            for v in [[0.5f32, -1.5], [-3.0, 0.1]] {
                let t = Dim2::tangent_vec(n, Dim2::tangent_of(n, v));
                let want = Dim2::tangential(v, n);
                assert!(close(t[0], want[0], 1e-6) && close(t[1], want[1], 1e-6), "{n:?} {v:?}");
            }
        }
        // The plane's tangent is n turned by 90 degrees counter-clockwise.
        assert_eq!(Dim2::tangent_vec([0.0, 1.0], 1.0), [-1.0, 0.0]);
    }

    /// Turning at a constant spin for a time T rotates by |w| T about w:
    /// a quarter turn about z takes x to y, and the quaternion stays unit.
    #[test]
    fn turning_at_a_constant_spin_rotates_about_it() {
        let w = [0.0, 0.0, std::f32::consts::FRAC_PI_2];
        let steps = 20_000;
        let dt = 1.0 / steps as f32;
        let mut q = Dim3::UNTURNED;
        for _ in 0..steps {
            q = Dim3::turn(q, w, dt);
        }
        let norm: f32 = q.iter().map(|x| x * x).sum();
        assert!(close(norm, 1.0, 1e-5), "{q:?}");
        let x = rotate(q, [1.0, 0.0, 0.0]);
        assert!(
            close(x[0], 0.0, 1e-3) && close(x[1], 1.0, 1e-3) && close(x[2], 0.0, 1e-3),
            "{x:?}"
        );
        // About a tilted axis the axis itself stays put.
        let axis = [0.6, 0.0, 0.8];
        let mut q = Dim3::UNTURNED;
        for _ in 0..1000 {
            q = Dim3::turn(q, Dim3::scale(axis, 3.0), 1e-3);
        }
        let a = rotate(q, axis);
        assert!((0..3).all(|k| close(a[k], axis[k], 1e-5)), "{a:?}");
        assert_eq!(Dim2::turn(0.5, 2.0, 0.25), 1.0);
        // A non-finite spin leaves the orientation as it was.
        assert_eq!(Dim3::turn(Dim3::UNTURNED, [f32::NAN, 0.0, 0.0], 0.1), Dim3::UNTURNED);
    }

    #[test]
    fn vector_operations_match_the_plane_helpers() {
        let (a, b) = ([1.5f32, -2.0], [0.25f32, 4.0]);
        assert_eq!(Dim2::add(a, b), super::super::add(a, b));
        assert_eq!(Dim2::sub(a, b), super::super::sub(a, b));
        assert_eq!(Dim2::dot(a, b), super::super::dot(a, b));
        assert_eq!(Dim2::scale(a, 3.0), super::super::scale(a, 3.0));
        assert_eq!(Dim3::dot([1.0, 2.0, 3.0], [4.0, -5.0, 6.0]), 12.0);
        assert_eq!(cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]), [0.0, 0.0, 1.0]);
        assert_eq!(Dim3::splat(2.0), [2.0; 3]);
    }
}
