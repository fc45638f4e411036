//! Hertz: F_n = max(0, k_n delta^1.5 - gamma v_n), the viscous tangential
//! force capped by Coulomb ([`super::viscous`]). The DEM's default law (docs/dem.md).

use super::{DemLaw, LawSpec, Pair, normal, viscous};
use crate::model::NormalLaw;
use crate::model::space::Space;

pub const SPEC: LawSpec = LawSpec {
    law: NormalLaw::Hertz,
    name: "hertz",
    dem: true,
    params: &[],
    history: 0,
    tangential: |dem| dem.kt,
    wgsl: include_str!("../../../shaders/laws/hertz.wgsl"),
};

/// (F_n, F_t), N/m.
#[inline]
pub fn pair<S: Space>(law: &DemLaw, p: &Pair<S::Tangent>) -> (f32, S::Tangent) {
    let f_n = normal(law, law.kn * p.delta * p.delta.sqrt(), p.u);
    (f_n, viscous::<S>(law, p, f_n))
}
