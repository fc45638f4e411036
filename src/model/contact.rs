//! Contacts in fixed-capacity per-grain lists.
//!
//! ```text
//!   count: [c_0, c_1, ..., c_{n-1}]        contacts found per grain (may exceed K)
//!   slots: [grain 0: K slots][grain 1: K slots] ...   first min(c_i, K) are valid
//! ```
//! Grain i's list holds every contact of grain i, with the normal pointing from
//! the other body towards grain i. A grain-grain contact is therefore stored
//! twice, once in each grain's list, with opposite normals. Both copies see the
//! same inputs (the gap is computed as |x_i - x_j| - (r_i + r_j), the relative
//! velocity as (v_i - v_j).n, and negating both factors is exact in IEEE
//! arithmetic), so a Jacobi pass computes bit-identical impulses for the two
//! copies and each grain can gather its own velocity with no atomics.

use bytemuck::{Pod, Zeroable};

use super::add;
use super::space::{Dim2, Dim3, Space};

/// What a contact's other body is, packed in one u32 (see [`Contact::other`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Body {
    Grain(u32),
    Segment(u32),
    Corner(u32),
}

/// Relative margin of the screens that skip a candidate before its distance
/// is computed: a candidate is skipped only when it is farther than its reach
/// by this factor, far beyond the rounding of the exact test that follows,
/// so the contacts found are the same, bit for bit. Most candidates of the
/// 3 x 3 cells are out of reach (about 60 per grain, 3-6 contacts), so
/// skipping their square root and divisions, and every segment away from
/// the grain, shortens detection (docs/solvers.md#why-the-cpu-constants).
pub const SURELY_BEYOND: f32 = 1.0 + 1e-4;

/// Tag bits of [`Contact::other`]. Keep in sync with shaders/shared.wgsl.
pub const BODY_SEGMENT: u32 = 0x8000_0000;
pub const BODY_CORNER: u32 = 0x4000_0000;
pub const BODY_INDEX_MASK: u32 = 0x3fff_ffff;

impl Body {
    pub fn encode(self) -> u32 {
        match self {
            Body::Grain(j) => j,
            Body::Segment(k) => BODY_SEGMENT | k,
            Body::Corner(k) => BODY_CORNER | k,
        }
    }
    pub fn decode(code: u32) -> Body {
        let index = code & BODY_INDEX_MASK;
        if code & BODY_SEGMENT != 0 {
            Body::Segment(index)
        } else if code & BODY_CORNER != 0 {
            Body::Corner(index)
        } else {
            Body::Grain(index)
        }
    }
}

/// One potential contact of a grain, in the space `S` (the plane's
/// contact by default). Keep in sync with `Contact` in shaders/shared.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Contact<S: Space = Dim2> {
    /// The other body, encoded by [`Body::encode`].
    pub other: u32,
    /// Surface gap d at detection, m (negative = overlap).
    pub gap: f32,
    /// W = im_a + im_b, 1/kg.
    pub inv_mass_sum: f32,
    /// Accumulated normal impulse P >= 0 of this step, N s (per unit thickness).
    pub impulse: f32,
    /// Unit normal from the other body towards this grain.
    pub normal: S::Vec,
    /// Accumulated tangential impulse P_t of this step, N s; |P_t| <= mu P
    /// (docs/nscd.md#coulomb-friction-and-rotation). In the plane its one
    /// coordinate along t = (-n_y, n_x) (`tangent`): both copies of a
    /// grain-grain contact hold the same value, the mirror copy's normal and
    /// tangent being both negated. In 3D the vector in the contact plane.
    pub impulse_t: S::Tangent,
    /// Restitution (docs/nscd.md#restitution): the normal velocity this contact must
    /// separate at, -e u_n^- >= 0 (m/s), for a contact closing within the step
    /// at its start-of-step velocity u_n^- (`bounce`); 0 otherwise, and
    /// always with e = 0 (the target is then docs/nscd.md's, bit for bit).
    pub bounce: f32,
    /// The velocity of the other body's surface at the contact when it is a
    /// moving wall, m/s (docs/walls.md#moving-walls); zero for a grain and a
    /// still wall. Set by detection every step.
    pub wall_vel: S::Vec,
}

// SAFETY: `Contact` is `repr(C)` and every field of both spaces is a u32,
// an f32 or an array of f32: 4-byte aligned with no padding between or
// after them (the sizes below are the sums of the fields), and any bit
// pattern is a valid value.
unsafe impl Zeroable for Contact<Dim2> {}
unsafe impl Pod for Contact<Dim2> {}
unsafe impl Zeroable for Contact<Dim3> {}
unsafe impl Pod for Contact<Dim3> {}
const _: () = assert!(size_of::<Contact<Dim2>>() == 4 * (4 + 2 + 1 + 1 + 2));
const _: () = assert!(size_of::<Contact<Dim3>>() == 4 * (4 + 3 + 3 + 1 + 3));

/// The contact's tangent t = (-n_y, n_x): the normal turned a quarter turn
/// counter-clockwise (docs/nscd.md#coulomb-friction-and-rotation).
#[inline]
pub fn tangent(normal: [f32; 2]) -> [f32; 2] {
    [-normal[1], normal[0]]
}

/// W_tt / W_nn of a disk contact: im_a + im_b + r_a^2/I_a + r_b^2/I_b with
/// I = m r^2 / 2 is 3 (im_a + im_b) (docs/nscd.md#coulomb-friction-and-rotation; a wall adds nothing).
pub const TANGENT_MASS_RATIO: f32 = Dim2::TANGENT_MASS_RATIO;

/// The local frictional update of docs/nscd.md#coulomb-friction-and-rotation
/// of coloured NLGS, Jacobi and APGD (NLGS takes [`coulomb_sor`]): from the
/// current impulses (p_n, p_t), the normal target velocity `target`
/// (`Contact::target`), the tangential slip velocity `u_t`, W =
/// `inv_mass_sum` and the relaxation `relax` (1 for coloured NLGS, omega
/// for Jacobi and APGD):
/// ```text
///   P_n' = max(0, P_n - relax target / W)
///   P_t' = clamp(P_t - relax u_t / (3 W), -mu P_n', mu P_n')
/// ```
#[inline]
pub fn coulomb(p_n: f32, p_t: f32, target: f32, u_t: f32, inv_mass_sum: f32, relax: f32, mu: f32) -> (f32, f32) {
    coulomb_in::<Dim2>(p_n, p_t, target, u_t, inv_mass_sum, relax, mu)
}

/// [`coulomb`] in either space: the normal row relaxed by `relax`, the
/// tangential step over W_tt = `Space::TANGENT_MASS_RATIO` W, projected
/// into the Coulomb bound mu P_n' (the interval in the plane, the disk in
/// the contact plane in 3D).
#[inline(always)]
pub fn coulomb_in<S: Space>(
    p_n: f32,
    p_t: S::Tangent,
    target: f32,
    u_t: S::Tangent,
    inv_mass_sum: f32,
    relax: f32,
    mu: f32,
) -> (f32, S::Tangent) {
    let pn = (p_n - relax * target / inv_mass_sum).max(0.0);
    let step = S::tangent_step(p_t, u_t, relax, S::TANGENT_MASS_RATIO * inv_mass_sum);
    (pn, S::clamp_tangent(step, mu * pn))
}

/// The frictional update of the NLGS sweeps: [`coulomb`] with the normal
/// row over-relaxed by `sor` and the tangential row plain:
/// ```text
///   P_n' = max(0, P_n - sor target / W)
///   P_t' = clamp(P_t - u_t / (3 W), -mu P_n', mu P_n')
/// ```
/// With sor = 1 it is [`coulomb`] bit for bit. Relaxing the tangential row
/// as well overshoots and jams a frictional flow (docs/solvers.md#friction).
#[inline]
pub fn coulomb_sor(p_n: f32, p_t: f32, target: f32, u_t: f32, inv_mass_sum: f32, sor: f32, mu: f32) -> (f32, f32) {
    coulomb_sor_in::<Dim2>(p_n, p_t, target, u_t, inv_mass_sum, sor, mu)
}

/// [`coulomb_sor`] in either space: the tangential step over W_tt =
/// `Space::TANGENT_MASS_RATIO` W, unrelaxed, projected into the Coulomb
/// bound mu P_n' (the interval in the plane, where it is [`coulomb_sor`]
/// bit for bit; the disk in the contact plane in 3D).
#[inline(always)]
pub fn coulomb_sor_in<S: Space>(
    p_n: f32,
    p_t: S::Tangent,
    target: f32,
    u_t: S::Tangent,
    inv_mass_sum: f32,
    sor: f32,
    mu: f32,
) -> (f32, S::Tangent) {
    let pn = (p_n - sor * target / inv_mass_sum).max(0.0);
    let step = S::tangent_step(p_t, u_t, 1.0, S::TANGENT_MASS_RATIO * inv_mass_sum);
    (pn, S::clamp_tangent(step, mu * pn))
}

/// [`Contact::slip`] of a contact with normal `normal`.
#[inline]
pub fn slip(normal: [f32; 2], v_i: [f32; 2], v_o: [f32; 2], rw_i: f32, rw_o: f32) -> f32 {
    Dim2::slip(normal, v_i, v_o, rw_i, rw_o)
}

/// The spin change of a grain of inverse mass `im` and radius `r` from a
/// tangential impulse `dp_t` at its contact point (on either body of the
/// contact, each along its own copy's tangent): dw = -r dP_t / I = -2 im dP_t / r.
#[inline]
pub fn spin_kick(im: f32, r: f32, dp_t: f32) -> f32 {
    Dim2::spin_kick(im, r, dp_t)
}

impl<S: Space> Contact<S> {
    pub fn body(&self) -> Body {
        Body::decode(self.other)
    }

    /// What the next step or a diagnostics row reads of a finished step's
    /// contact: an impulse (normal or tangential, the warm start) or an
    /// overlap. The others, gaps within the alert distance that took no
    /// impulse, would warm-start at 0 anyway, and are most of the lists.
    #[inline]
    pub fn carries_over(&self) -> bool {
        self.impulse != 0.0 || self.impulse_t != S::Tangent::default() || self.gap < 0.0
    }

    /// The velocity the solver drives to zero (or above): the normal relative
    /// velocity u plus the gap closing rate. An open gap may close within the
    /// step (docs/nscd.md: u + max(d, 0)/dt >= 0). An overlap deeper than
    /// `slop` is pushed out by a fraction `beta` per step; beta = 0 is the
    /// bare constraint of docs/nscd.md, under which the solver tolerance lets overlaps creep by up
    /// to tol every step. The slop keeps the push-out from chattering in
    /// resting piles (docs/solvers.md#defaults).
    ///
    /// A bouncing contact (`bounce` > 0, restitution) is driven to u >=
    /// bounce instead: u+ = -e u- (docs/nscd.md#restitution).
    #[inline]
    pub fn target(&self, u: f32, inv_dt: f32, beta: f32, slop: f32) -> f32 {
        u + self.target_offset(inv_dt, beta, slop)
    }

    /// The part of [`Contact::target`] that does not depend on u: the
    /// target is u + this, exactly (u - bounce = u + (-bounce) in IEEE
    /// arithmetic), for a sweep that forms it once per step.
    ///
    /// A moving wall's normal velocity w_n = `wall_vel` . n enters here, once
    /// for every solver: the relative velocity is u - w_n.
    #[inline]
    pub fn target_offset(&self, inv_dt: f32, beta: f32, slop: f32) -> f32 {
        let offset = if self.bounce > 0.0 {
            -self.bounce
        } else {
            (self.gap.max(0.0) + beta * (self.gap + slop).min(0.0)) * inv_dt
        };
        if self.wall_vel == S::Vec::default() {
            offset
        } else {
            offset - self.wall_normal_velocity()
        }
    }

    /// A moving wall's normal velocity at the contact, `wall_vel` . n, m/s.
    #[inline]
    pub fn wall_normal_velocity(&self) -> f32 {
        S::dot(self.wall_vel, self.normal)
    }
}

impl Contact<Dim2> {
    /// The tangential slip velocity at the contact point, seen from this
    /// copy's grain `i` (docs/nscd.md#coulomb-friction-and-rotation): u_t = (v_i - v_o) . t - (r_i w_i + r_o w_o),
    /// with v_o the wall's velocity `wall_vel` and r_o w_o = 0 for a wall or
    /// corner (the caller passes `v_o` = 0 there). Both copies of a grain-grain
    /// contact compute the same value (negated factors, commutative sum).
    #[inline]
    pub fn slip(&self, v_i: [f32; 2], v_o: [f32; 2], rw_i: f32, rw_o: f32) -> f32 {
        slip(self.normal, v_i, add(v_o, self.wall_vel), rw_i, rw_o)
    }
}

/// The bounce velocity of a contact (restitution e, docs/nscd.md#restitution): -e u for a
/// contact whose start-of-step normal velocity `u` (m/s) closes its gap `gap`
/// (m) within the step (gap + dt u <= 0, u < 0), else 0. The start-of-step
/// velocity, not the free velocity, so that a resting contact, whose
/// velocity is ~0 at the start, gets no bounce from one step of gravity.
#[inline]
pub fn bounce(e: f32, gap: f32, u: f32, dt: f32) -> f32 {
    if u < 0.0 && gap + dt * u <= 0.0 { -e * u } else { 0.0 }
}

/// Per-grain contact lists of fixed capacity K.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContactLists<S: Space = Dim2> {
    /// K, slots per grain.
    pub capacity: usize,
    /// Contacts found per grain; can exceed `capacity` (the excess is an overflow).
    pub count: Vec<u32>,
    /// `capacity` slots per grain.
    pub slots: Vec<Contact<S>>,
}

impl<S: Space> ContactLists<S> {
    pub fn new(grains: usize, capacity: usize) -> Self {
        ContactLists {
            capacity,
            count: vec![0; grains],
            slots: vec![Contact::default(); grains * capacity],
        }
    }

    pub fn grains(&self) -> usize {
        self.count.len()
    }

    /// The valid contacts of grain i.
    pub fn of(&self, i: usize) -> &[Contact<S>] {
        let n = (self.count[i] as usize).min(self.capacity);
        &self.slots[i * self.capacity..i * self.capacity + n]
    }

    pub fn of_mut(&mut self, i: usize) -> &mut [Contact<S>] {
        let n = (self.count[i] as usize).min(self.capacity);
        &mut self.slots[i * self.capacity..i * self.capacity + n]
    }

    /// Contacts that did not fit in their grain's list (and were dropped).
    pub fn overflow(&self) -> u64 {
        self.count
            .iter()
            .map(|&c| u64::from(c.saturating_sub(self.capacity as u32)))
            .sum()
    }

    /// Deepest overlap -gap over the listed contacts, m (0 when none
    /// overlaps). Twin of the STAT_OVERLAP word of shaders/detect.wgsl.
    pub fn max_overlap(&self) -> f32 {
        (0..self.grains())
            .flat_map(|i| self.of(i))
            .fold(0.0f32, |m, c| m.max(-c.gap))
    }

    /// Number of distinct contacts (a grain-grain pair counts once).
    pub fn distinct(&self) -> u64 {
        let mut n = 0u64;
        for i in 0..self.grains() {
            for c in self.of(i) {
                match c.body() {
                    Body::Grain(j) if (j as usize) < i => {}
                    _ => n += 1,
                }
            }
        }
        n
    }
}

// Contact colouring (cpu::coloring and shaders/coloring.wgsl).

/// Colours a contact can get (two u32 masks on the GPU).
pub const MAX_COLORS: u32 = 64;
/// The colour of contacts solved serially after all others.
pub const OVERFLOW: u32 = MAX_COLORS;
/// Colour of a contact that no round has coloured yet.
pub const UNCOLORED: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::{coulomb, coulomb_sor};
    use proptest::prelude::*;

    proptest! {
        /// Unrelaxed, the NLGS update is the shared Coulomb update bit for bit.
        #[test]
        fn coulomb_sor_at_one_is_coulomb(
            p_n in 0.0f32..1e-3, p_t in -1e-3f32..1e-3, target in -1.0f32..1.0,
            u_t in -1.0f32..1.0, w in 1e-2f32..1e4, mu in 0.0f32..1.0,
        ) {
            let (a, b) = (coulomb(p_n, p_t, target, u_t, w, 1.0, mu), coulomb_sor(p_n, p_t, target, u_t, w, 1.0, mu));
            prop_assert_eq!(a.0.to_bits(), b.0.to_bits());
            prop_assert_eq!(a.1.to_bits(), b.1.to_bits());
        }

        /// Relaxed, the normal impulse is the relaxed one of [`coulomb`]; the
        /// tangential one takes the plain step, within mu times it.
        #[test]
        fn coulomb_sor_relaxes_the_normal_row_only(
            p_n in 0.0f32..1e-3, p_t in -1e-3f32..1e-3, target in -1.0f32..1.0,
            u_t in -1.0f32..1.0, w in 1e-2f32..1e4, mu in 0.0f32..1.0,
        ) {
            let relaxed = coulomb(p_n, p_t, target, u_t, w, 1.8, mu);
            let (pn, pt) = coulomb_sor(p_n, p_t, target, u_t, w, 1.8, mu);
            prop_assert_eq!(pn.to_bits(), relaxed.0.to_bits());
            prop_assert!(pt.abs() <= mu * pn);
            // Inside the bound, the plain tangential step.
            let step = p_t - u_t / (3.0 * w);
            if step.abs() < mu * pn {
                prop_assert_eq!(pt.to_bits(), step.to_bits());
            }
        }
    }
}
