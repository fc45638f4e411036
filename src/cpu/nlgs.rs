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

use crate::model::contact::{TANGENT_MASS_RATIO, coulomb, slip, spin_kick, tangent};
use crate::model::{Body, Contact, ContactLists, dot, sub};

/// Which sequential update rule a sweep applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Accumulated projected impulse (NLGS).
    Accumulated,
    /// Incremental non-negative velocity correction (the course's seed rule).
    Seed,
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
}

impl Sweep {
    pub const NO_MIRROR: u32 = u32::MAX;

    pub fn build(&mut self, lists: &ContactLists) {
        self.grain.clear();
        self.slot.clear();
        self.mirror.clear();
        self.other.clear();
        let k = lists.capacity;
        for i in 0..lists.grains() {
            for (s, c) in lists.of(i).iter().enumerate() {
                let mirror = match c.body() {
                    // Owned by the lower index, unless its full list dropped it.
                    Body::Grain(j) if (j as usize) < i && lists.of(j as usize).iter().any(|m| m.other == i as u32) => {
                        continue;
                    }
                    Body::Grain(j) if (j as usize) < i => Self::NO_MIRROR,
                    Body::Grain(j) => {
                        let j = j as usize;
                        lists
                            .of(j)
                            .iter()
                            .position(|m| m.other == i as u32)
                            .map_or(Self::NO_MIRROR, |p| (j * k + p) as u32)
                    }
                    _ => Self::NO_MIRROR,
                };
                self.grain.push(i as u32);
                self.slot.push((i * k + s) as u32);
                self.mirror.push(mirror);
                self.other.push(match c.body() {
                    Body::Grain(j) => j,
                    _ => Self::NO_MIRROR,
                });
            }
        }
    }

    pub fn len(&self) -> usize {
        self.slot.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slot.is_empty()
    }

    /// Apply the current impulses of the owned copies to the velocities
    /// (warm start): v = v_free + M^-1 sum P n.
    pub fn apply(&self, slots: &[Contact], inv_mass: &[f32], vel: &mut [[f32; 2]], mut spin: Option<Turn<'_>>) {
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

    /// One sweep in grain order; returns the largest velocity correction |dP| W, m/s.
    /// (Alternating forward and backward sweeps was measured on a settling
    /// 2,000-grain hourglass and needed more iterations, not fewer.)
    #[allow(clippy::too_many_arguments)]
    pub fn sweep(
        &self,
        slots: &mut [Contact],
        inv_mass: &[f32],
        vel: &mut [[f32; 2]],
        inv_dt: f32,
        beta: f32,
        slop: f32,
        rule: Rule,
    ) -> f32 {
        let how = Visit {
            sor: 1.0,
            inv_dt,
            beta,
            slop,
            rule,
            mu: 0.0,
            mu_wall: 0.0,
        };
        (0..self.len()).fold(0.0f32, |w, k| w.max(self.visit(k, slots, inv_mass, vel, None, &how)))
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
            Some(mut t) => self.visit_turn(k, Part::WHOLE, slots, inv_mass, vel, &mut t, how),
        }
    }

    /// [`Sweep::visit`] on a part of the arrays: `slots` starts at slot
    /// `part.slot0`, `vel` and `inv_mass` at grain `part.grain0`, and both
    /// grains of contact `k` lie in the part. Frictionless: the sweeps call
    /// it, or [`Sweep::visit_turn`], from separate loops, so that this hot
    /// path carries no spins (a spin argument checked on every visit made the
    /// frictionless default run 1.22x slower).
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
        let dp = match how.rule {
            Rule::Accumulated => (c.impulse - how.sor * target / c.inv_mass_sum).max(0.0) - c.impulse,
            Rule::Seed => (-target).max(0.0) / c.inv_mass_sum,
        };
        c.impulse += dp;
        kick(c.normal, a, b, dp, inv_mass, vel);
        dp.abs() * c.inv_mass_sum
    }

    /// [`Sweep::visit_in`] with friction and rotation (DESIGN §1d,
    /// `model::contact::coulomb`): `t` is indexed like `vel`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn visit_turn(
        &self,
        k: usize,
        part: Part,
        slots: &mut [Contact],
        inv_mass: &[f32],
        vel: &mut [[f32; 2]],
        t: &mut Turn<'_>,
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
        let rw = |g: usize| t.radius[g] * t.w[g];
        let slip = c.slip(vel[a], vb, rw(a), b.map_or(0.0, rw));
        let mu = if b.is_some() { how.mu } else { how.mu_wall };
        let (pn, pt) = coulomb(c.impulse, c.impulse_t, target, slip, c.inv_mass_sum, how.sor, mu);
        let (dpn, dpt) = (pn - c.impulse, pt - c.impulse_t);
        (c.impulse, c.impulse_t) = (pn, pt);
        kick(c.normal, a, b, dpn, inv_mass, vel);
        turn(c.normal, a, b, dpt, inv_mass, vel, t);
        (dpn.abs() * c.inv_mass_sum).max(dpt.abs() * TANGENT_MASS_RATIO * c.inv_mass_sum)
    }

    /// Iterate to `threshold` (m/s), sweeping the contacts that can act and
    /// checking the others now and then. A contact whose gap is open by more
    /// than `reach` (m) beyond what the step's velocities close (target * dt,
    /// at the warm-started velocities) starts outside the sweeps; once the
    /// swept contacts are under the threshold (and every [`IDLE_CHECK_EVERY`]
    /// sweeps, and on the last iteration), one pass over the others checks
    /// them, and any that moved joins the sweeps. Convergence is therefore
    /// the same test as sweeping every contact (every contact's last visit
    /// was under the threshold), and a contact left out never had an impulse
    /// to give. Sweeps are over-relaxed far from convergence ([`SOR`]) and run
    /// on two threads from `par_min` acting contacts ([`Split`]). Each sweep
    /// of the acting contacts, and each check, is one iteration in the stats.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &self,
        scratch: &mut SolveScratch,
        slots: &mut [Contact],
        inv_mass: &[f32],
        vel: &mut [[f32; 2]],
        mut spin: Option<Turn<'_>>,
        how: &Visit,
        reach: f32,
        threshold: f32,
        stats: &mut crate::model::StepStats,
        itmax: u32,
        par_min: usize,
        sor_floor: f32,
        mut history: Option<&mut Vec<f32>>,
    ) {
        let dt = 1.0 / how.inv_dt;
        let SolveScratch {
            acting,
            idle,
            split,
            packed,
        } = scratch;
        acting.clear();
        idle.clear();
        for k in 0..self.len() {
            let c = &slots[self.slot[k] as usize];
            let vb = match c.body() {
                Body::Grain(j) => vel[j as usize],
                _ => [0.0, 0.0],
            };
            let u = dot(sub(vel[self.grain[k] as usize], vb), c.normal);
            if c.impulse > 0.0 || c.target(u, how.inv_dt, how.beta, how.slop) * dt < reach {
                acting.push(k as u32);
            } else {
                idle.push(k as u32);
            }
        }
        let mut record = |stats: &mut crate::model::StepStats, r: f32| {
            stats.iterations += 1;
            stats.residual = r;
            if let Some(h) = history.as_deref_mut() {
                h.push(r);
            }
        };
        split.build(self, acting, vel.len(), par_min);
        // The sweeps run on a packed copy of the acting contacts ([`Packed`],
        // [`Turned`] with friction), written back when the solve ends or the
        // acting set grows.
        let radius = spin.as_ref().map(|t| t.radius);
        packed.build(self, split, acting, slots, inv_mass, radius, how);
        // Over-relaxed while far from the threshold, plain Gauss-Seidel near
        // it and on a step's first sweep (a resting pile, which starts near
        // it, is then solved exactly: see SOR).
        let relaxed = *how;
        let plain = Visit { sor: 1.0, ..*how };
        let above = (SOR_ABOVE * threshold).max(sor_floor);
        let mut last = 0.0f32;
        while stats.iterations < itmax {
            let how = if last > above { &relaxed } else { &plain };
            let r = packed.sweep(split, vel, spin.as_mut().map(|t| &mut *t.w), how);
            last = r;
            record(stats, r);
            // The idle contacts are checked once the acting ones converged,
            // every IDLE_CHECK_EVERY sweeps (a slow step must not leave one
            // unvisited while velocities change), and on the last iteration.
            let due = stats.iterations.is_multiple_of(IDLE_CHECK_EVERY) || stats.iterations + 1 >= itmax;
            if r >= threshold && !due {
                continue;
            }
            if idle.is_empty() {
                if r < threshold {
                    stats.converged = true;
                    break;
                }
                continue;
            }
            if stats.iterations >= itmax {
                break;
            }
            // Check the idle contacts once; those that moved act from now on.
            let mut worst = 0.0f32;
            let before = acting.len();
            idle.retain(|&k| {
                let r = self.visit(k as usize, slots, inv_mass, vel, spin.as_mut().map(Turn::reborrow), how);
                worst = worst.max(r);
                if r > 0.0 {
                    acting.push(k);
                    false
                } else {
                    true
                }
            });
            record(stats, worst.max(r));
            if r < threshold && worst < threshold {
                // Every contact's last visit is under the threshold.
                stats.converged = true;
                break;
            }
            if acting.len() > before {
                packed.write_back(slots);
                acting.sort_unstable();
                split.build(self, acting, vel.len(), par_min);
                packed.build(self, split, acting, slots, inv_mass, radius, how);
            }
        }
        packed.write_back(slots);
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
/// distance start a step outside the sweeps ([`Sweep::solve`]). Measured on
/// the 2,000-grain discharge (tol 1e-5, dt 1e-3, 0.3 s): 0.1 takes 0.67x the
/// CPU time of sweeping every contact (177 against 161 iterations, the same
/// overlap); 0 needs so many rounds of checks that steps reach itmax.
pub const ACT_REACH: f32 = 0.1;

/// The idle contacts are also checked every this many sweeps of a step
/// that has not converged yet.
pub const IDLE_CHECK_EVERY: u32 = 10;

/// Over-relaxation of the NLGS sweeps far from convergence: a sweep after
/// one whose largest correction exceeded both SOR_ABOVE times the threshold
/// and the speed gravity adds in one step (|g| dt, passed as `sor_floor`)
/// updates P' = max(0, P - SOR t / W); other sweeps are plain Gauss-Seidel.
/// Measured on the 2,000-grain discharge (0.3 s, dt 1e-3): at tol 1e-5, 65
/// iterations per step and 1.57 % largest overlap, against 184 and 2.23 %
/// plain; at tol 1e-6, 224 against 620 (0.15 % against 0.29 %, no step at
/// itmax against 101). Relaxed all the way (no switch), a resting pile kept
/// moving at 0.2-0.6 mm/s and took 135-195 iterations at tol 1e-5; with the
/// switch but no |g| dt floor, a pile jittered at 3 mm/s (tests/rest.rs).
pub const SOR: f32 = 1.8;
/// See [`SOR`].
pub const SOR_ABOVE: f32 = 3.0;

/// Acting contacts from which a sweep runs on two threads ([`Split`]).
/// Measured (2 cores): on 10,000 grains (about 30,000 acting contacts) the
/// two-thread sweep takes 0.62x the wall time per simulated second; on
/// 2,000 grains (about 5,000) the hand-off per sweep made it 1.4x slower.
pub const PAR_SWEEP_MIN: usize = 16_384;

/// What [`Sweep::solve`] keeps between steps: the acting and idle contacts
/// (sweep indices) and their split for two threads.
#[derive(Debug, Clone, Default)]
pub struct SolveScratch {
    acting: Vec<u32>,
    idle: Vec<u32>,
    split: Split,
    packed: Packs,
}

/// An acting contact as a sweep visits it, packed in sweep
/// order: grains `a` and `b` (indices within the sweep's part of the
/// arrays; `b` = [`Sweep::NO_MIRROR`] for a wall or corner), the normal, W,
/// the part of the target that does not depend on the velocities
/// ([`Contact::target`] = u + `offset`), the impulse, and both inverse
/// masses. A visit then reads 36 contiguous bytes and the two velocities,
/// where it read the contact's slot (32 bytes among a grain's 16) through
/// two index arrays; the arithmetic is the same, operation for operation,
/// so the results are the same bit for bit.
#[derive(Debug, Clone, Copy, Default)]
struct Packed {
    a: u32,
    b: u32,
    normal: [f32; 2],
    w: f32,
    offset: f32,
    impulse: f32,
    ia: f32,
    ib: f32,
}

/// The packed lists of a [`Split`] (lower, upper, across) and, for the
/// write-back, each entry's slot.
#[derive(Debug, Clone, Default)]
struct Packs {
    lists: [Vec<Packed>; 3],
    slots: [Vec<u32>; 3],
    rule: Option<Rule>,
    /// With friction: each packed contact's tangential side.
    turns: [Vec<Turned>; 3],
    friction: bool,
}

/// The tangential side of a packed frictional contact: its impulse, both
/// radii (`rb` 0 for a wall) and its Coulomb coefficient.
#[derive(Debug, Clone, Copy, Default)]
struct Turned {
    impulse_t: f32,
    ra: f32,
    rb: f32,
    mu: f32,
}

impl Packs {
    #[allow(clippy::too_many_arguments)]
    fn build(
        &mut self,
        sweep: &Sweep,
        split: &Split,
        acting: &[u32],
        slots: &[Contact],
        inv_mass: &[f32],
        radius: Option<&[f32]>,
        how: &Visit,
    ) {
        self.rule = Some(how.rule);
        self.friction = radius.is_some();
        let (lower, upper, across): (&[u32], &[u32], &[u32]) = if split.mid == 0 {
            (acting, &[], &[])
        } else {
            (&split.lower, &split.upper, &split.across)
        };
        let mid = split.mid;
        for (n, (list, grain0)) in [(lower, 0usize), (upper, mid), (across, 0)].into_iter().enumerate() {
            let (out, at, turns) = (&mut self.lists[n], &mut self.slots[n], &mut self.turns[n]);
            out.clear();
            at.clear();
            turns.clear();
            for &k in list {
                let k = k as usize;
                let c = &slots[sweep.slot[k] as usize];
                let a = sweep.grain[k] as usize;
                let (b, ib) = match c.body() {
                    Body::Grain(j) => ((j as usize - grain0) as u32, inv_mass[j as usize]),
                    _ => (Sweep::NO_MIRROR, 0.0),
                };
                // Contact::target with u = 0 would add 0.0 to the offset;
                // the sum u + offset is formed in the visit as it is there.
                let offset = if c.bounce > 0.0 {
                    -c.bounce
                } else {
                    (c.gap.max(0.0) + how.beta * (c.gap + how.slop).min(0.0)) * how.inv_dt
                };
                out.push(Packed {
                    a: (a - grain0) as u32,
                    b,
                    normal: c.normal,
                    w: c.inv_mass_sum,
                    offset,
                    impulse: c.impulse,
                    ia: inv_mass[a],
                    ib,
                });
                at.push(sweep.slot[k]);
                if let Some(r) = radius {
                    let wall = b == Sweep::NO_MIRROR;
                    turns.push(Turned {
                        impulse_t: c.impulse_t,
                        ra: r[a],
                        rb: if wall { 0.0 } else { r[b as usize + grain0] },
                        mu: if wall { how.mu_wall } else { how.mu },
                    });
                }
            }
        }
    }

    /// One sweep, as [`Sweep::sweep_acting`] does it (both halves on two
    /// threads, then the contacts across); returns the largest |dP| W.
    fn sweep(&mut self, split: &Split, vel: &mut [[f32; 2]], spin: Option<&mut [f32]>, how: &Visit) -> f32 {
        if let Some(w) = spin {
            let [lower, upper, across] = &mut self.lists;
            let [t0, t1, t2] = &mut self.turns;
            if split.mid == 0 {
                return visit_packed_turn(lower, t0, vel, w, how);
            }
            let (v0, v1) = vel.split_at_mut(split.mid);
            let (w0, w1) = w.split_at_mut(split.mid);
            let (r0, r1) = rayon::join(
                || visit_packed_turn(lower, t0, v0, w0, how),
                || visit_packed_turn(upper, t1, v1, w1, how),
            );
            return r0.max(r1).max(visit_packed_turn(across, t2, vel, w, how));
        }
        let rule = self.rule.unwrap_or(Rule::Accumulated);
        let [lower, upper, across] = &mut self.lists;
        if split.mid == 0 {
            return visit_packed(lower, vel, how, rule);
        }
        let (v0, v1) = vel.split_at_mut(split.mid);
        let (r0, r1) = rayon::join(
            || visit_packed(lower, v0, how, rule),
            || visit_packed(upper, v1, how, rule),
        );
        r0.max(r1).max(visit_packed(across, vel, how, rule))
    }

    /// Copy the packed impulses back into their slots.
    fn write_back(&self, slots: &mut [Contact]) {
        for (list, at) in self.lists.iter().zip(&self.slots) {
            for (p, &s) in list.iter().zip(at) {
                slots[s as usize].impulse = p.impulse;
            }
        }
        if self.friction {
            for (turns, at) in self.turns.iter().zip(&self.slots) {
                for (t, &s) in turns.iter().zip(at) {
                    slots[s as usize].impulse_t = t.impulse_t;
                }
            }
        }
    }
}

/// [`Sweep::visit_turn`] on packed contacts, in order (`turns` beside
/// `list`, spins `w` indexed like `vel`); returns the largest of |dP_n| W
/// and |dP_t| 3 W.
fn visit_packed_turn(
    list: &mut [Packed],
    turns: &mut [Turned],
    vel: &mut [[f32; 2]],
    w: &mut [f32],
    how: &Visit,
) -> f32 {
    let mut worst = 0.0f32;
    for (c, t) in list.iter_mut().zip(turns.iter_mut()) {
        let a = c.a as usize;
        let wall = c.b == Sweep::NO_MIRROR;
        let b = c.b as usize;
        let vb = if wall { [0.0, 0.0] } else { vel[b] };
        let u = dot(sub(vel[a], vb), c.normal);
        let target = u + c.offset;
        let rw_b = if wall { 0.0 } else { t.rb * w[b] };
        let slip = slip(c.normal, vel[a], vb, t.ra * w[a], rw_b);
        let (pn, pt) = coulomb(c.impulse, t.impulse_t, target, slip, c.w, how.sor, t.mu);
        let (dpn, dpt) = (pn - c.impulse, pt - t.impulse_t);
        (c.impulse, t.impulse_t) = (pn, pt);
        let tn = tangent(c.normal);
        for (n, dp) in [(c.normal, dpn), (tn, dpt)] {
            let ia = c.ia * dp;
            vel[a][0] += ia * n[0];
            vel[a][1] += ia * n[1];
            if !wall {
                let ib = c.ib * dp;
                vel[b][0] -= ib * n[0];
                vel[b][1] -= ib * n[1];
            }
        }
        w[a] += spin_kick(c.ia, t.ra, dpt);
        if !wall {
            w[b] += spin_kick(c.ib, t.rb, dpt);
        }
        worst = worst.max((dpn.abs() * c.w).max(dpt.abs() * TANGENT_MASS_RATIO * c.w));
    }
    worst
}

/// [`Sweep::visit_in`] on packed contacts, in order; returns the largest |dP| W.
#[inline]
fn visit_packed(list: &mut [Packed], vel: &mut [[f32; 2]], how: &Visit, rule: Rule) -> f32 {
    let mut worst = 0.0f32;
    for c in list.iter_mut() {
        let a = c.a as usize;
        let wall = c.b == Sweep::NO_MIRROR;
        let vb = if wall { [0.0, 0.0] } else { vel[c.b as usize] };
        let u = dot(sub(vel[a], vb), c.normal);
        let target = u + c.offset;
        let dp = match rule {
            Rule::Accumulated => (c.impulse - how.sor * target / c.w).max(0.0) - c.impulse,
            Rule::Seed => (-target).max(0.0) / c.w,
        };
        c.impulse += dp;
        let ia = c.ia * dp;
        vel[a][0] += ia * c.normal[0];
        vel[a][1] += ia * c.normal[1];
        if !wall {
            let ib = c.ib * dp;
            let b = c.b as usize;
            vel[b][0] -= ib * c.normal[0];
            vel[b][1] -= ib * c.normal[1];
        }
        worst = worst.max(dp.abs() * c.w);
    }
    worst
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

/// The acting contacts split for two threads: grains below index `mid` and
/// from `mid` on (the CPU backend keeps grains in cell order, so the halves
/// are the lower and upper part of the pile), the contacts within each half
/// and those across. `mid` = 0: one pass in sweep order (few contacts). The
/// order (both halves, then across) does not depend on the thread count, so
/// results are the same on one core.
#[derive(Debug, Clone, Default)]
struct Split {
    mid: usize,
    lower: Vec<u32>,
    upper: Vec<u32>,
    across: Vec<u32>,
}

impl Split {
    fn build(&mut self, sweep: &Sweep, acting: &[u32], grains: usize, par_min: usize) {
        self.mid = 0;
        if acting.len() < par_min || grains < 2 {
            return;
        }
        let mid = grains / 2;
        self.lower.clear();
        self.upper.clear();
        self.across.clear();
        for &k in acting {
            let a = sweep.grain[k as usize] as usize;
            let b = sweep.other[k as usize];
            let b = if b == Sweep::NO_MIRROR { a } else { b as usize };
            // The owner's slots hold the contact: it lies in the owner's half.
            match (a < mid, b < mid) {
                (true, true) => self.lower.push(k),
                (false, false) => self.upper.push(k),
                _ => self.across.push(k),
            }
        }
        self.mid = mid;
    }
}

/// How a visit updates a contact: the target's 1/dt, beta and slop, and the rule.
#[derive(Debug, Clone, Copy)]
pub struct Visit {
    /// Over-relaxation of the accumulated rule (1: Gauss-Seidel).
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
/// and, opposite, to grain `b`, and its torques to both spins (DESIGN §1d:
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
