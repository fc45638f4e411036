//! Linear spring-dashpot: F_n = max(0, k_s delta - k_d v_n) (`kn` is k_s,
//! `gamma` k_d), the viscous tangential force capped by Coulomb. The spring
//! model's law (docs/lab.md, `[spring]`).

use super::{DemLaw, LawSpec, Pair, normal, viscous};
use crate::model::NormalLaw;
use crate::model::space::Space;

pub const SPEC: LawSpec = LawSpec {
    law: NormalLaw::Linear,
    name: "linear",
    dem: false,
    params: &[],
    history: 0,
    tangential: |dem| dem.kt,
    wgsl: include_str!("../../../shaders/laws/linear.wgsl"),
};

/// (F_n, F_t), N/m.
#[inline]
pub fn pair<S: Space>(law: &DemLaw, p: &Pair<S::Tangent>) -> (f32, S::Tangent) {
    let f_n = normal(law, law.kn * p.delta, p.u);
    (f_n, viscous::<S>(law, p, f_n))
}
