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

/// What a contact's other body is, packed in one u32 (see [`Contact::other`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Body {
    Grain(u32),
    Segment(u32),
    Corner(u32),
}

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

/// One potential contact of a grain. Keep in sync with `Contact` in shaders/shared.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Contact {
    /// The other body, encoded by [`Body::encode`].
    pub other: u32,
    /// Surface gap d at detection, m (negative = overlap).
    pub gap: f32,
    /// W = im_a + im_b, 1/kg.
    pub inv_mass_sum: f32,
    /// Accumulated normal impulse P >= 0 of this step, N s (per unit thickness).
    pub impulse: f32,
    /// Unit normal from the other body towards this grain.
    pub normal: [f32; 2],
}

impl Contact {
    pub fn body(&self) -> Body {
        Body::decode(self.other)
    }

    /// The velocity the solver drives to zero (or above): the normal relative
    /// velocity u plus the gap closing rate. An open gap may close within the
    /// step (DESIGN §1a: u + max(d, 0)/dt >= 0). An overlap deeper than
    /// `slop` is pushed out by a fraction `beta` per step; beta = 0 is DESIGN
    /// §1a exactly, under which the solver tolerance lets overlaps creep by up
    /// to tol every step. The slop keeps the push-out from chattering in
    /// resting piles (measured: a settled 210-grain pile needs 1-10 NLGS
    /// sweeps per step with a slop of 5 tol, up to 276 with none).
    #[inline]
    pub fn target(&self, u: f32, inv_dt: f32, beta: f32, slop: f32) -> f32 {
        u + (self.gap.max(0.0) + beta * (self.gap + slop).min(0.0)) * inv_dt
    }
}

/// Per-grain contact lists of fixed capacity K.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContactLists {
    /// K, slots per grain.
    pub capacity: usize,
    /// Contacts found per grain; can exceed `capacity` (the excess is an overflow).
    pub count: Vec<u32>,
    /// `capacity` slots per grain.
    pub slots: Vec<Contact>,
}

impl ContactLists {
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
    pub fn of(&self, i: usize) -> &[Contact] {
        let n = (self.count[i] as usize).min(self.capacity);
        &self.slots[i * self.capacity..i * self.capacity + n]
    }

    pub fn of_mut(&mut self, i: usize) -> &mut [Contact] {
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
