//! DEM contact laws as units (docs/dem.md, §1c), shared by the CPU stage
//! `cpu::dem::force` and the GPU stage shaders/dem_force.wgsl.
//!
//! A law is one file of src/model/law/ and one of shaders/laws/, entered
//! once in [`LAWS`]. Its [`LawSpec`] declares what the rest of the code needs:
//! its name (the scene's `[dem] law`), its own parameters with units,
//! defaults and bounds (checked by the scene's validation), the floats of
//! history it keeps per contact, how it fills the [`DemLaw`] uniform, and its
//! WGSL. Its CPU force is `pair` in its file, called through [`pair`].
//!
//! # Composition into the GPU stage
//! The WGSL of every law is concatenated after shaders/laws/shared.wgsl, and
//! [`wgsl`] generates `contact_law`, a `switch` on `DemLaw::kind` that calls
//! the selected law; shaders/dem_force.wgsl calls `contact_law` per contact.
//! The law is a uniform, not a pipeline constant (WGSL `override`) or a text
//! substitution of one law into the stage, so one pipeline serves every law
//! and phase (a run switches gamma between phases by a uniform write, and
//! tests drive several laws through one kernel); the branch is uniform
//! across a dispatch, so it costs no divergence. naga_oil is not a
//! dependency, and plain concatenation needs none.
//!
//! # History
//! A law with history (`history` = 1) keeps one float per contact in
//! `Contact::impulse_t` (unused by the DEM otherwise): the force stage reads
//! it and writes the new value; detection writes 0 for every new contact;
//! the warm start (`cpu::warm_start::warm_start`, shaders/warm_start.wgsl)
//! copies it into the contact found again at the next step. A law writes 0
//! for a listed contact that is open (gap >= 0), so the history of a contact
//! that opened starts from zero when it closes again.

pub mod hertz;
pub mod hertz_mindlin;
pub mod linear;

use crate::model::space::{Coords, Space};
use crate::model::{DemParams, NormalLaw, Phase};

/// The contact law's constants of one step (the GPU's `DemLaw` uniform).
/// Keep in sync with `DemLaw` in shaders/dem_shared.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DemLaw {
    /// Normal stiffness: Hertz k_n, N/m^2.5, or linear k_s, N/m^2.
    pub kn: f32,
    /// The law's tangential coefficient (`LawSpec::tangential`): the viscosity
    /// k_t of the viscous laws, N s/m^2; Hertz-Mindlin's k_t / sqrt(delta), N/m^2.5.
    pub kt: f32,
    /// Normal damping of the current phase (gamma_n or gamma_relax), N s/m^2.
    pub gamma: f32,
    /// Coulomb friction coefficient.
    pub mu: f32,
    /// Rolling-resistance coefficient.
    pub mu_roll: f32,
    /// Time step, s (the implicit tangential and rolling terms need it).
    pub dt: f32,
    /// The law: its index in [`LAWS`] (`NormalLaw as u32`).
    pub kind: u32,
}

/// One contact as a law sees it (both copies of a grain-grain contact see
/// the same values in the plane, opposite slips in 3D; see `cpu::dem`).
/// `T` is the space's tangent (`Space::Tangent`): a number along
/// t = perp(n) in the plane, a vector in the contact plane in 3D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair<T = f32> {
    /// Overlap delta = -gap > 0, m.
    pub delta: f32,
    /// Normal relative velocity v_n, m/s (< 0: approaching).
    pub u: f32,
    /// Tangential slip velocity v_t of the contact points, m/s.
    pub vt: T,
    /// W = im_a + im_b, 1/kg.
    pub inv_mass_sum: f32,
}

/// A parameter a law adds to `[dem]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LawParam {
    /// Key in `[dem]`.
    pub key: &'static str,
    /// Unit, as the docs write it ("1": dimensionless).
    pub unit: &'static str,
    pub default: f64,
    /// Inclusive lower and exclusive upper bound.
    pub min: f64,
    pub max: f64,
}

impl LawParam {
    /// `value` lies in [min, max).
    pub fn admits(&self, value: f64) -> bool {
        value >= self.min && value < self.max
    }
}

/// What a contact law declares (see the module doc).
#[derive(Debug, Clone, Copy)]
pub struct LawSpec {
    /// The law this entry is.
    pub law: NormalLaw,
    /// Its name: the value of `[dem] law`.
    pub name: &'static str,
    /// Whether `[dem] law` may name it (the linear law is the spring model's, `[spring]`).
    pub dem: bool,
    /// Its own parameters in `[dem]`, beyond the shared k_n, gamma, mu, mu_roll.
    pub params: &'static [LawParam],
    /// Floats of history per contact (0 or 1, kept in `Contact::impulse_t`).
    pub history: u32,
    /// `DemLaw::kt` from the resolved parameters.
    pub tangential: fn(&DemParams) -> f32,
    /// Its WGSL: `fn <name>_pair(law: DemLaw, p: Pair, hist: ptr<function, Tangent>) -> LawForce`
    /// returning (F_n, F_t), as its CPU `pair`, in either space (`Tangent`:
    /// shaders/space/).
    pub wgsl: &'static str,
}

/// Every law, indexed by `NormalLaw as usize`.
pub const LAWS: &[LawSpec] = &[hertz::SPEC, linear::SPEC, hertz_mindlin::SPEC];

/// The declaration of `law`.
pub fn spec(law: NormalLaw) -> &'static LawSpec {
    &LAWS[law as usize]
}

/// The law `[dem] law` may name `name`, if any.
pub fn by_name(name: &str) -> Option<&'static LawSpec> {
    LAWS.iter().find(|s| s.dem && s.name == name)
}

/// The law of `phase` at time step `dt`.
pub fn law(dem: &DemParams, phase: Phase, dt: f32) -> DemLaw {
    DemLaw {
        kn: dem.kn,
        kt: (spec(dem.law).tangential)(dem),
        gamma: dem.gamma(phase),
        mu: dem.mu,
        mu_roll: dem.mu_roll,
        dt,
        kind: dem.law as u32,
    }
}

/// (F_n, F_t) of contact `p` under `law` (N/m in the plane, N in 3D), the
/// history `hist` updated for a law that keeps one. F_t is a tangent of the
/// space `S`, opposing the slip. CPU twin of `contact_law` ([`wgsl`]).
#[inline]
pub fn pair<S: Space>(law: &DemLaw, p: &Pair<S::Tangent>, hist: &mut S::Tangent) -> (f32, S::Tangent) {
    const LINEAR: u32 = NormalLaw::Linear as u32;
    const HERTZ_MINDLIN: u32 = NormalLaw::HertzMindlin as u32;
    match law.kind {
        LINEAR => linear::pair::<S>(law, p),
        HERTZ_MINDLIN => hertz_mindlin::pair(law, p, hist),
        _ => hertz::pair::<S>(law, p),
    }
}

/// The normal force max(0, elastic - gamma v_n), never attractive.
#[inline]
pub fn normal(law: &DemLaw, elastic: f32, u: f32) -> f32 {
    (elastic - law.gamma * u).max(0.0)
}

/// The viscous tangential force of docs/dem.md taken implicitly, capped by
/// Coulomb: -k_t v_t / (1 + k_t R W dt) shortened to mu F_n, with R
/// = `Space::TANGENT_MASS_RATIO` (3 for disks, 7/2 for spheres).
#[inline]
pub fn viscous<S: Space>(law: &DemLaw, p: &Pair<S::Tangent>, f_n: f32) -> S::Tangent {
    let cap = law.mu * f_n;
    let stiff = 1.0 + law.kt * S::TANGENT_MASS_RATIO * p.inv_mass_sum * law.dt;
    p.vt.map(|vt| -law.kt * vt / stiff).cap(cap)
}

/// shaders/laws/shared.wgsl: `Pair` and the helpers the laws share.
const SHARED_WGSL: &str = include_str!("../../shaders/laws/shared.wgsl");

/// The laws' WGSL for shaders/dem_force.wgsl: `LAWS_WITH_HISTORY`, the
/// shared part, every law, and `contact_law`, which calls the law
/// `law.kind` selects.
pub fn wgsl() -> String {
    let mask = LAWS
        .iter()
        .enumerate()
        .fold(0u32, |m, (k, s)| m | (u32::from(s.history > 0) << k));
    let mut out = format!(
        "// Generated by model::law::wgsl: bit k set when law k keeps history.\n\
         const LAWS_WITH_HISTORY: u32 = {mask:#x}u;\n\n{SHARED_WGSL}"
    );
    for s in LAWS {
        out.push_str(s.wgsl);
        out.push('\n');
    }
    out.push_str(
        "// Generated by model::law::wgsl: the law DemLaw::kind selects (model::law::pair).\n\
         fn contact_law(law: DemLaw, p: Pair, hist: ptr<function, Tangent>) -> LawForce {\n    switch law.kind {\n",
    );
    for (k, s) in LAWS.iter().enumerate().skip(1) {
        out.push_str(&format!(
            "        case {k}u: {{ return {}_pair(law, p, hist); }}\n",
            s.name
        ));
    }
    out.push_str(&format!(
        "        default: {{ return {}_pair(law, p, hist); }}\n    }}\n}}\n",
        LAWS[0].name
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laws_are_indexed_by_their_kind() {
        for (k, s) in LAWS.iter().enumerate() {
            assert_eq!(s.law as usize, k, "{}", s.name);
            assert!(s.wgsl.contains(&format!("fn {}_pair(", s.name)), "{}", s.name);
        }
    }
}
