//! Capillary cohesion (docs/cohesion.md, Maury's "numerical modelling" slides):
//! a liquid bridge between two grains at surface gap D < D_rupt pulls them
//! together along the line of centres with
//! ```text
//!   F = pi gamma r (exp(-A max(D, 0) + B) + C)        (attractive; see units below)
//!   r = 2 r_i r_j / (r_i + r_j)   grain-grain (harmonic mean: r for equal grains)
//!   r = r_i                       grain-wall (a wall is a grain of infinite radius)
//! ```
//! The course writes the law for a common radius r; the harmonic mean is the
//! effective radius of two spheres of different radii (the Derjaguin
//! approximation of the bridge force), and it equals r when the radii agree.
//! Units: pi gamma r is a force (N) in 3D, the bridge between two spheres;
//! our 2D grains are disks of unit thickness whose forces are N per metre.
//! We apply the course's law as it is written, its value taken as N/m (one
//! such bridge per metre of thickness): a modelling choice of the course's
//! 2D scheme, not a derivation; the constants a, b, c set its size.
//! An overlap (D < 0) pulls with the force at contact. The force enters the
//! free velocity, v_free += dt F / m, before the NSCD projection, which then
//! keeps the pulled grains from overlapping (`cpu::cohesion`,
//! shaders/cohesion.wgsl).

use bytemuck::{Pod, Zeroable};

/// The cohesion law's constants (`[cohesion]`), the GPU's `Cohesion`
/// uniform. Keep in sync with `Cohesion` in shaders/cohesion.wgsl. All
/// zero (the default) is no cohesion.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Cohesion {
    /// Surface tension gamma, N/m (water 0.072).
    pub gamma: f32,
    /// A, 1/m: how fast the bridge weakens with the gap.
    pub a: f32,
    /// B (dimensionless): exp(B) + C is the force at contact in units of pi gamma r.
    pub b: f32,
    /// C (dimensionless): the constant part.
    pub c: f32,
    /// Rupture gap D_rupt, m: no bridge at D >= D_rupt; 0: no cohesion.
    pub rupture: f32,
    /// 1: grain-wall (and grain-corner) bridges too; 0: between grains only.
    pub walls: u32,
}

impl Cohesion {
    /// Any bridge at all.
    pub fn on(&self) -> bool {
        self.rupture > 0.0 && self.gamma > 0.0
    }

    /// The attractive force of a bridge of effective radius `r` at surface
    /// gap `gap`, N/m; 0 at or beyond the rupture gap.
    #[inline]
    pub fn force(&self, r: f32, gap: f32) -> f32 {
        if gap >= self.rupture {
            return 0.0;
        }
        std::f32::consts::PI * self.gamma * r * ((self.b - self.a * gap.max(0.0)).exp() + self.c)
    }
}

/// The effective radius of a bridge between radii `ri` and `rj`.
#[inline]
pub fn effective_radius(ri: f32, rj: f32) -> f32 {
    2.0 * ri * rj / (ri + rj)
}
