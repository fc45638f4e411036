//! Non-linear Gauss-Seidel (projected) and the course's seed rule: sequential
//! sweeps over the contacts, each update applied at once to both bodies.
//!
//! ```text
//!   NLGS:  u  = (v_a - v_b) . n,   target t = u + max(d, 0)/dt + beta min(d, 0)/dt
//!          P' = max(0, P - t / W)                           dP = P' - P
//!   seed:  dP = max(0, -t) / W                              (P only grows)
//!   then   v_a += im_a dP n,   v_b -= im_b dP n
//! ```
//! A grain-grain contact is stored in both grains' lists; the sweep visits the
//! copy owned by the lower index and mirrors the impulse into the other copy
//! when it is done, so the lists stay symmetric for the next warm start. When
//! the lower grain's list overflowed and lost its copy, the higher grain's
//! copy is solved instead (an overflow never drops a contact twice).

use crate::model::contact::{coulomb_sor, spin_kick, tangent};
use rayon::prelude::*;

use super::solver::{SolveCtx, Solver};
use crate::model::{Body, Contact, ContactLists, StepStats, dot, sub};

mod acting;
mod packed;
mod solve;
use acting::{Class, Probes, Split};
use packed::Packs;

/// Which sequential update rule a sweep applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Accumulated projected impulse (NLGS).
    Accumulated,
    /// Incremental non-negative velocity correction (the course's seed rule).
    Seed,
}

/// The update of one contact's impulse, dP, from its impulse P, its target
/// t (m/s, `Contact::target`) and W (`w`), with over-relaxation `sor`:
/// ```text
///   Accumulated:  dP = max(0, P - sor t / W) - P
///   Seed:         dP = max(0, -t) / W
/// ```
/// `per_w(x)` is x / W: the sweep divides, the packed sweep multiplies by
/// its stored 1 / W (the two differ in the last bit; each keeps its own).
/// With friction both take `model::contact::coulomb_sor` instead.
#[inline(always)]
fn update(rule: Rule, impulse: f32, target: f32, sor: f32, w: f32, per_w: impl Fn(f32) -> f32) -> f32 {
    match rule {
        Rule::Accumulated => (impulse - per_w(sor * target)).max(0.0) - impulse,
        Rule::Seed => (-target).max(0.0) / w,
    }
}

/// The distinct contacts in sweep order: slot index of the owning copy and,
/// for grain-grain contacts, the slot of the mirror copy.
#[derive(Debug, Clone, Default)]
pub struct Sweep {
    pub grain: Vec<u32>,
    pub slot: Vec<u32>,
    pub mirror: Vec<u32>,
    /// The other grain of a grain-grain contact, else `NO_MIRROR`.
    pub other: Vec<u32>,
    /// Per-block parts of a parallel [`Sweep::build`], kept for their allocations.
    blocks: Vec<Sweep>,
    /// Per slot of the lists, where the last build found the mirror copy of
    /// that slot's contact in the other grain's list ([`Sweep::push_grain`]).
    hint: Vec<u8>,
}

/// Grains per rayon task of [`Sweep::build`]; under two blocks it runs on one thread.
pub const BUILD_BLOCK: usize = crate::cpu::PAR_MIN;

impl Sweep {
    pub const NO_MIRROR: u32 = u32::MAX;

    /// The sweep order of `lists`: grain by grain, each grain's contacts in
    /// list order. Blocks of [`BUILD_BLOCK`] grains are built on rayon and
    /// concatenated in grain order, so the order is the sequential one; each
    /// mirror costs one scan, from the hint of `Sweep::push_grain`
    /// (docs/solvers.md#why-the-cpu-constants).
    pub fn build(&mut self, lists: &ContactLists) {
        self.clear();
        let n = lists.grains();
        // With no list full, every grain-grain contact has both copies.
        let whole = lists.count.iter().all(|&c| c as usize <= lists.capacity);
        let k = lists.capacity;
        self.hint.resize(n * k, 0);
        if n < 2 * BUILD_BLOCK {
            let mut hint = std::mem::take(&mut self.hint);
            for (i, h) in hint.chunks_mut(k.max(1)).enumerate().take(n) {
                self.push_grain(lists, i, whole, h);
            }
            self.hint = hint;
            return;
        }
        self.blocks.resize_with(n.div_ceil(BUILD_BLOCK), Sweep::default);
        let hints = self.hint.par_chunks_mut((BUILD_BLOCK * k).max(1));
        self.blocks
            .par_iter_mut()
            .zip(hints)
            .enumerate()
            .for_each(|(b, (part, hint))| {
                part.clear();
                for (i, h) in (b * BUILD_BLOCK..((b + 1) * BUILD_BLOCK).min(n)).zip(hint.chunks_mut(k.max(1))) {
                    part.push_grain(lists, i, whole, h);
                }
            });
        for part in &self.blocks {
            self.grain.extend_from_slice(&part.grain);
            self.slot.extend_from_slice(&part.slot);
            self.mirror.extend_from_slice(&part.mirror);
            self.other.extend_from_slice(&part.other);
        }
    }

    fn clear(&mut self) {
        self.grain.clear();
        self.slot.clear();
        self.mirror.clear();
        self.other.clear();
    }

    /// Append grain i's contacts: a grain-grain contact is owned by the lower
    /// index, unless the lower grain's full list dropped its copy. One scan of
    /// the other grain's list finds both whether it holds the copy and where.
    /// With `whole` lists (none overflowed) the lower grain holds its copy,
    /// and a higher grain skips the contact without a scan. The search
    /// first tries where the last build found the copy (`hint`, this grain's
    /// slots): lists mostly keep their order from one step to the next, and
    /// the scan's loads from the other grain's list were half of this
    /// function's samples.
    fn push_grain(&mut self, lists: &ContactLists, i: usize, whole: bool, hint: &mut [u8]) {
        let k = lists.capacity;
        for (s, c) in lists.of(i).iter().enumerate() {
            let (mirror, other) = match c.body() {
                Body::Grain(j) if whole && (j as usize) < i => continue,
                Body::Grain(j) => {
                    let theirs = lists.of(j as usize);
                    let me = Body::Grain(i as u32).encode();
                    let h = usize::from(hint[s]);
                    let copy = if theirs.get(h).is_some_and(|m| m.other == me) {
                        Some(h)
                    } else {
                        let p = theirs.iter().position(|m| m.other == me);
                        hint[s] = p.map_or(0, |p| p.min(usize::from(u8::MAX)) as u8);
                        p
                    };
                    match copy {
                        Some(_) if (j as usize) < i => continue,
                        Some(p) => ((j as usize * k + p) as u32, j),
                        None => (Self::NO_MIRROR, j),
                    }
                }
                _ => (Self::NO_MIRROR, Self::NO_MIRROR),
            };
            self.grain.push(i as u32);
            self.slot.push((i * k + s) as u32);
            self.mirror.push(mirror);
            self.other.push(other);
        }
    }

    pub fn len(&self) -> usize {
        self.slot.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slot.is_empty()
    }

    /// Apply the current impulses of the owned copies to the velocities
    /// (warm start): v = v_free + M^-1 sum P n. Frictionless and from
    /// `par_min` contacts, on two threads as a split sweep (`Split`): the contacts
    /// within the lower and the upper half of the grains at once, then those
    /// across, in sweep order (on one thread it took 0.15 ms of a 7 ms step
    /// at 10,000 grains).
    pub fn apply(
        &self,
        slots: &[Contact],
        inv_mass: &[f32],
        vel: &mut [[f32; 2]],
        mut spin: Option<Turn<'_>>,
        par_min: usize,
    ) {
        if spin.is_none() && self.len() >= par_min && vel.len() >= 2 {
            let mid = vel.len() / 2;
            // The sweep order is grain by grain: the owners below `mid` first.
            let cut = self.grain.partition_point(|&g| (g as usize) < mid);
            let (v0, v1) = vel.split_at_mut(mid);
            let (mut across0, mut across1) = (Vec::new(), Vec::new());
            let half = |ks: std::ops::Range<usize>, v: &mut [[f32; 2]], g0: usize, across: &mut Vec<usize>| {
                for k in ks {
                    let (a, o) = (self.grain[k] as usize, self.other[k]);
                    let b = (o != Self::NO_MIRROR).then_some(o as usize);
                    let inside = |g: usize| g.wrapping_sub(g0) < v.len();
                    if !inside(a) || b.is_some_and(|b| !inside(b)) {
                        across.push(k);
                        continue;
                    }
                    let c = &slots[self.slot[k] as usize];
                    kick(c.normal, a - g0, b.map(|b| b - g0), c.impulse, &inv_mass[g0..], v);
                }
            };
            rayon::join(
                || half(0..cut, v0, 0, &mut across0),
                || half(cut..self.len(), v1, mid, &mut across1),
            );
            for k in across0.into_iter().chain(across1) {
                let c = &slots[self.slot[k] as usize];
                let b = (self.other[k] != Self::NO_MIRROR).then_some(self.other[k] as usize);
                kick(c.normal, self.grain[k] as usize, b, c.impulse, inv_mass, vel);
            }
            return;
        }
        for (&a, &s) in self.grain.iter().zip(&self.slot) {
            let c = &slots[s as usize];
            let b = match c.body() {
                Body::Grain(j) => Some(j as usize),
                _ => None,
            };
            kick(c.normal, a as usize, b, c.impulse, inv_mass, vel);
            if let Some(t) = spin.as_mut() {
                turn(c.normal, a as usize, b, c.impulse_t, inv_mass, vel, t);
            }
        }
    }

    /// Update contact `k` (sweep index) at once; returns |dP| W, m/s.
    #[inline]
    fn visit(
        &self,
        k: usize,
        slots: &mut [Contact],
        inv_mass: &[f32],
        vel: &mut [[f32; 2]],
        spin: Option<Turn<'_>>,
        how: &Visit,
    ) -> f32 {
        match spin {
            None => self.visit_in(k, Part::WHOLE, slots, inv_mass, vel, how),
            Some(mut t) => self.visit_turn(k, slots, inv_mass, vel, &mut t, how),
        }
    }

    /// [`Sweep::visit`] on a part of the arrays: `slots` starts at slot
    /// `part.slot0`, `vel` and `inv_mass` at grain `part.grain0`, and both
    /// grains of contact `k` lie in the part. Frictionless: the sweeps call
    /// it, or [`Sweep::visit_turn`], from separate loops, so that this hot
    /// path carries no spins, which would slow the frictionless run
    /// (docs/solvers.md#why-the-cpu-constants).
    #[inline]
    fn visit_in(
        &self,
        k: usize,
        part: Part,
        slots: &mut [Contact],
        inv_mass: &[f32],
        vel: &mut [[f32; 2]],
        how: &Visit,
    ) -> f32 {
        let a = self.grain[k] as usize - part.grain0;
        let c = &mut slots[self.slot[k] as usize - part.slot0];
        let b = match c.body() {
            Body::Grain(j) => Some(j as usize - part.grain0),
            _ => None,
        };
        let vb = b.map_or([0.0, 0.0], |b| vel[b]);
        let u = dot(sub(vel[a], vb), c.normal);
        let target = c.target(u, how.inv_dt, how.beta, how.slop);
        let w = c.inv_mass_sum;
        let dp = update(how.rule, c.impulse, target, how.sor, w, |x| x / w);
        c.impulse += dp;
        kick(c.normal, a, b, dp, inv_mass, vel);
        dp.abs() * c.inv_mass_sum
    }

    /// [`Sweep::visit_in`] on the whole arrays with friction and rotation
    /// (docs/nscd.md#coulomb-friction-and-rotation, `model::contact::coulomb_sor`): `t` is indexed like `vel`.
    #[inline]
    fn visit_turn(
        &self,
        k: usize,
        slots: &mut [Contact],
        inv_mass: &[f32],
        vel: &mut [[f32; 2]],
        t: &mut Turn<'_>,
        how: &Visit,
    ) -> f32 {
        let a = self.grain[k] as usize;
        let c = &mut slots[self.slot[k] as usize];
        let b = match c.body() {
            Body::Grain(j) => Some(j as usize),
            _ => None,
        };
        let vb = b.map_or([0.0, 0.0], |b| vel[b]);
        let u = dot(sub(vel[a], vb), c.normal);
        let target = c.target(u, how.inv_dt, how.beta, how.slop);
        let rw = |g: usize| t.radius[g] * t.w[g];
        let slip = c.slip(vel[a], vb, rw(a), b.map_or(0.0, rw));
        let mu = if b.is_some() { how.mu } else { how.mu_wall };
        let (pn, pt) = coulomb_sor(c.impulse, c.impulse_t, target, slip, c.inv_mass_sum, how.sor, mu);
        let (dpn, dpt) = (pn - c.impulse, pt - c.impulse_t);
        (c.impulse, c.impulse_t) = (pn, pt);
        kick(c.normal, a, b, dpn, inv_mass, vel);
        turn(c.normal, a, b, dpt, inv_mass, vel, t);
        crate::cpu::jacobi::friction_correction(dpn, dpt, c.inv_mass_sum, 1.0)
    }

    /// Copy each owned impulse into its mirror copy.
    pub fn mirror(&self, slots: &mut [Contact]) {
        for (&s, &m) in self.slot.iter().zip(&self.mirror) {
            if m != Self::NO_MIRROR {
                slots[m as usize].impulse = slots[s as usize].impulse;
                slots[m as usize].impulse_t = slots[s as usize].impulse_t;
            }
        }
    }
}

/// Contacts predicted to stay open by more than this fraction of the alert
/// distance start a step outside the sweeps ([`Sweep::solve`]): less CPU
/// time for the same overlap, where 0 would need so many rounds of checks
/// that steps reach itmax (docs/solvers.md#why-the-cpu-constants).
pub const ACT_REACH: f32 = 0.1;

/// The idle contacts are also checked every this many sweeps of a step
/// that has not converged yet.
pub const IDLE_CHECK_EVERY: u32 = 10;

/// Over-relaxation of the NLGS sweeps far from convergence, shared with
/// coloured NLGS (`model::solver::SOR`): a sweep after one whose largest
/// correction exceeded both SOR_ABOVE times the threshold and the speed
/// gravity adds in one step (|g| dt, passed as `sor_floor`) updates
/// P' = max(0, P - SOR t / W) (with friction the normal row alone, and only
/// within a step's first [`SOR_SWEEPS`] iterations); other sweeps are plain
/// Gauss-Seidel.
pub use crate::model::solver::{SOR, SOR_ABOVE};
/// With friction, the iterations of a step (full sweeps and idle checks,
/// as counted in its stats; hot sweeps are not counted) after which its
/// sweeps are plain Gauss-Seidel whatever their corrections. A frictional
/// sweep relaxes the normal rows alone (`model::contact::coulomb_sor`);
/// without this limit a few steps' relaxed sweeps stall above the
/// threshold and run to itmax (docs/solvers.md#friction). Frictionless
/// steps have no such limit.
pub const SOR_SWEEPS: u32 = 100;
/// [`SOR_ABOVE`] when overlaps are pushed out through the velocities
/// (`overlap_iterations = 0`), the value that setting was tuned with.
pub const SOR_ABOVE_VELOCITY_PUSH: f32 = 3.0;

/// After each full sweep still over the threshold, this many
/// sweeps of the hot contacts: those whose correction in that sweep exceeded
/// [`HOT_MARK`] times the threshold (each round visits both halves of a
/// two-thread sweep, then the contacts across, in sweep order). Convergence
/// is still a full sweep under the threshold, so a resting pile, whose first
/// sweep converges, never sees them. A step's work sits in the neck, so
/// they cut the contact visits; at the same tol they leave more overlap (the
/// rest of the pile gets fewer sweeps), so they go with a tighter tol
/// (docs/solvers.md#why-the-cpu-constants). With friction they halve the
/// wall time of a frictional discharge (docs/solvers.md#friction).
pub const HOT_SWEEPS: u32 = 2;
/// See [`HOT_SWEEPS`]: a lower mark visits many more contacts for little
/// less overlap (docs/solvers.md#why-the-cpu-constants).
pub const HOT_MARK: f32 = 0.5;

/// Acting contacts from which a sweep runs on two threads (`Split`), for
/// grains in any order: below it the hand-off per sweep costs more than the
/// second thread saves (docs/solvers.md#why-the-cpu-constants).
pub const PAR_SWEEP_MIN: usize = 16_384;

/// What [`Sweep::solve`] keeps between steps: the acting and idle contacts
/// (sweep indices) and their split for two threads.
#[derive(Debug, Clone, Default)]
pub struct SolveScratch {
    acting: Vec<u32>,
    idle: Vec<u32>,
    split: Split,
    packed: Packs,
    probes: Probes,
    /// Per-block parts of [`Sweep::classify`], kept for their allocations.
    classes: Vec<Class>,
}

/// Where a part of the arrays starts ([`Sweep::visit_in`]).
#[derive(Debug, Clone, Copy)]
struct Part {
    grain0: usize,
    slot0: usize,
}

impl Part {
    const WHOLE: Part = Part { grain0: 0, slot0: 0 };
}

/// How a visit updates a contact: the target's 1/dt, beta and slop, and the rule.
#[derive(Debug, Clone, Copy)]
pub struct Visit {
    /// Over-relaxation of the accumulated rule (1: Gauss-Seidel); with
    /// friction, of the normal row only.
    pub sor: f32,
    pub inv_dt: f32,
    pub beta: f32,
    pub slop: f32,
    pub rule: Rule,
    /// Coulomb coefficients grain-grain and grain-wall (used when a sweep
    /// is given the spins; the seed rule carries no friction).
    pub mu: f32,
    pub mu_wall: f32,
}

/// The grains a solve moves ([`Sweep::solve`]): inverse masses, the
/// velocities (written) and, with friction, the rotation side.
#[derive(Debug)]
pub struct Bodies<'a> {
    pub inv_mass: &'a [f32],
    pub vel: &'a mut [[f32; 2]],
    pub spin: Option<Turn<'a>>,
}

/// How far a [`Sweep::solve`] goes: contacts open by more than `reach` (m)
/// start idle, it stops under `threshold` (m/s) or after `itmax`
/// iterations, sweeps on two threads from `par_min` acting contacts, and
/// relaxes only sweeps after one whose correction exceeded `sor_floor` (m/s),
/// with `hot_sweeps` sweeps of the hot contacts after each full sweep over
/// the threshold ([`HOT_SWEEPS`]).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub reach: f32,
    pub threshold: f32,
    pub itmax: u32,
    pub par_min: usize,
    pub sor_floor: f32,
    pub hot_sweeps: u32,
}

/// Where a solve counts its iterations: the step's stats and, when
/// `Some`, each iteration's residual (m/s, the study).
#[derive(Debug)]
pub struct Tally<'a> {
    pub stats: &'a mut StepStats,
    pub history: Option<&'a mut Vec<f32>>,
}

impl Tally<'_> {
    /// One iteration whose residual is `r`.
    fn record(&mut self, r: f32) {
        self.stats.iterations += 1;
        self.stats.residual = r;
        if let Some(h) = self.history.as_deref_mut() {
            h.push(r);
        }
    }
}

/// The rotation side of a frictional sweep: radii (m) and spins (rad/s),
/// indexed like the velocities.
#[derive(Debug)]
pub struct Turn<'a> {
    pub radius: &'a [f32],
    pub w: &'a mut [f32],
}

impl Turn<'_> {
    /// The same arrays, borrowed for one call.
    pub fn reborrow(&mut self) -> Turn<'_> {
        Turn {
            radius: self.radius,
            w: &mut *self.w,
        }
    }
}

/// Apply tangential impulse `dp_t` along `normal`'s tangent to grain `a`
/// and, opposite, to grain `b`, and its torques to both spins (docs/nscd.md#coulomb-friction-and-rotation:
/// dw = -r dP_t / I on either body).
#[inline]
fn turn(
    normal: [f32; 2],
    a: usize,
    b: Option<usize>,
    dp_t: f32,
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    t: &mut Turn<'_>,
) {
    kick(tangent(normal), a, b, dp_t, inv_mass, vel);
    t.w[a] += spin_kick(inv_mass[a], t.radius[a], dp_t);
    if let Some(b) = b {
        t.w[b] += spin_kick(inv_mass[b], t.radius[b], dp_t);
    }
}

/// Apply impulse `dp` along `normal` to grain `a` and, opposite, to grain `b`
/// (none for a wall or corner).
#[inline]
fn kick(normal: [f32; 2], a: usize, b: Option<usize>, dp: f32, inv_mass: &[f32], vel: &mut [[f32; 2]]) {
    let ia = inv_mass[a] * dp;
    vel[a][0] += ia * normal[0];
    vel[a][1] += ia * normal[1];
    if let Some(b) = b {
        let ib = inv_mass[b] * dp;
        vel[b][0] -= ib * normal[0];
        vel[b][1] -= ib * normal[1];
    }
}

/// NLGS (`Rule::Accumulated`) or the seed rule as a [`Solver`]; keeps the
/// sweep order and the acting/idle split between steps.
#[derive(Debug, Clone)]
pub struct Nlgs {
    rule: Rule,
    sweep: Sweep,
    scratch: SolveScratch,
}

impl Nlgs {
    pub fn new(rule: Rule) -> Nlgs {
        Nlgs {
            rule,
            sweep: Sweep::default(),
            scratch: SolveScratch::default(),
        }
    }
}

impl Solver for Nlgs {
    fn solve(&mut self, ctx: SolveCtx, stats: &mut StepStats) {
        let SolveCtx {
            lists,
            free,
            out,
            p,
            history,
            par_min,
            hot_sweeps,
        } = ctx;
        let rule = self.rule;
        self.sweep.build(lists);
        out.vel.copy_from_slice(free.vel);
        // The seed rule is frictionless.
        let friction = p.friction() && rule == Rule::Accumulated;
        if friction {
            out.spin.copy_from_slice(free.spin);
        }
        let mut spin = friction.then_some(Turn {
            radius: free.radius,
            w: out.spin,
        });
        let turn = spin.as_mut().map(Turn::reborrow);
        self.sweep.apply(&lists.slots, free.inv_mass, out.vel, turn, par_min);
        let how = Visit {
            // With friction only the normal rows are relaxed (`coulomb_sor`).
            sor: if rule == Rule::Accumulated { SOR } else { 1.0 },
            inv_dt: 1.0 / p.dt,
            beta: p.overlap_relax,
            slop: p.slop(),
            rule,
            mu: p.mu,
            mu_wall: p.mu_wall,
        };
        let limits = Limits {
            reach: ACT_REACH * p.alert,
            threshold: p.threshold(),
            itmax: p.itmax,
            par_min,
            sor_floor: p.gravity[0].hypot(p.gravity[1]) * p.dt,
            hot_sweeps,
        };
        let bodies = Bodies {
            inv_mass: free.inv_mass,
            vel: out.vel,
            spin,
        };
        let tally = Tally { stats, history };
        self.sweep
            .solve(&mut self.scratch, &mut lists.slots, bodies, &how, &limits, tally);
        self.sweep.mirror(&mut lists.slots);
    }

    fn boxed(&self) -> Box<dyn Solver> {
        Box::new(self.clone())
    }
}
