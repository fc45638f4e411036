//! Hertz-Mindlin with a tangential spring (the default law of LIGGGHTS and
//! Chrono): the Hertz normal force with viscous damping,
//! F_n = max(0, k_n delta^1.5 - gamma v_n), and a tangential spring on the
//! slip accumulated over the contact's life, clipped by Coulomb:
//!
//! ```text
//!   k_t  = 8 G* sqrt(R* delta) = c_t sqrt(delta),  c_t = 3 k_n (1 - nu) / (2 - nu)
//!   xi'  = xi + v_t dt                          (xi: the contact's history, m)
//!   F_t  = -k_t xi'          if |k_t xi'| <= mu F_n
//!        = -mu F_n sign(xi'), and xi' = -F_t / k_t (the spring clipped) otherwise
//! ```
//! c_t: with k_n = 4/3 E* sqrt(R*) (per unit thickness) and grains of one
//! material of Poisson ratio nu, G* / E* = (1 - nu) / (2 (2 - nu)), so
//! 8 G* sqrt(R* delta) = 3 k_n sqrt(delta) (1 - nu) / (2 - nu): R* drops out.
//! In 2D the tangent plane is the line t = perp(n): the history is a scalar
//! along the current t, so it turns with the contact normal and keeps its
//! length (the rotation into the current tangent plane). Both copies of a
//! grain-grain contact hold the same xi (v_t is the same in both). In 3D
//! xi is a vector in the contact plane (the warm start projects last step's
//! into the new plane), the cap a disk: F_t = -k_t xi' shortened to mu F_n,
//! and a slipping spring is set to -F_t / k_t; the two copies of a pair hold
//! opposite vectors.

use super::{DemLaw, LawParam, LawSpec, Pair, normal};
use crate::model::NormalLaw;
use crate::model::space::Coords;

/// `[dem] poisson`: the grains' Poisson ratio nu.
pub const POISSON: LawParam = LawParam {
    key: "poisson",
    unit: "1",
    default: 0.3,
    min: 0.0,
    max: 0.5,
};

pub const SPEC: LawSpec = LawSpec {
    law: NormalLaw::HertzMindlin,
    name: "hertz_mindlin",
    dem: true,
    params: &[POISSON],
    history: 1,
    tangential: |dem| 3.0 * dem.kn * (1.0 - dem.poisson) / (2.0 - dem.poisson),
    wgsl: include_str!("../../../shaders/laws/hertz_mindlin.wgsl"),
};

/// (F_n, F_t), N/m; `hist` (xi, m) updated.
#[inline]
pub fn pair<T: Coords>(law: &DemLaw, p: &Pair<T>, hist: &mut T) -> (f32, T) {
    let root = p.delta.sqrt();
    let f_n = normal(law, law.kn * p.delta * root, p.u);
    let cap = law.mu * f_n;
    let kt = law.kt * root;
    let xi = hist.zip(p.vt, |h, vt| h + vt * law.dt);
    let trial = xi.map(|x| -kt * x);
    // |trial| > cap >= 0 implies k_t > 0.
    let slips = trial.norm() > cap;
    let f_t = trial.cap(cap);
    *hist = if slips { f_t.map(|f| -f / kt) } else { xi };
    (f_n, f_t)
}
