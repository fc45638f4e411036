//! The NLGS sweeps' working copy of the acting contacts ([`Sweep::solve`]):
//! packed in sweep order, visited in order, written back into the slots.

use super::{Bodies, Rule, Split, Sweep, Visit};
use crate::model::contact::{coulomb_sor, slip, spin_kick, tangent};
use crate::model::{Body, Contact, dot, sub};

/// An acting contact as a sweep visits it, packed in sweep
/// order: grains `a` and `b` (indices within the sweep's part of the
/// arrays; `b` = [`Sweep::NO_MIRROR`] for a wall or corner), the normal, W,
/// the part of the target that does not depend on the velocities
/// ([`Contact::target`] = u + `offset`), the impulse, and both inverse
/// masses. A visit then reads 40 contiguous bytes and the two velocities,
/// where it read the contact's slot (32 bytes among a grain's 16) through
/// two index arrays; the arithmetic is the same, operation for operation,
/// except that the accumulated rule multiplies by 1/W (`inv_w`) where
/// [`Sweep::visit_in`] divides by W.
#[derive(Debug, Clone, Copy, Default)]
struct Packed {
    a: u32,
    b: u32,
    normal: [f32; 2],
    w: f32,
    /// 1 / W: the accumulated rule multiplies by it, keeping a division off
    /// the chain from one visit of a grain to the next (results differ from
    /// a division in the last bit; docs/solvers.md#why-the-cpu-constants).
    inv_w: f32,
    offset: f32,
    impulse: f32,
    ia: f32,
    ib: f32,
}

/// The packed lists of a [`Split`] (lower, upper, across) and, for the
/// write-back, each entry's slot.
#[derive(Debug, Clone, Default)]
pub(super) struct Packs {
    lists: [Vec<Packed>; 3],
    slots: [Vec<u32>; 3],
    rule: Option<Rule>,
    /// With friction: each packed contact's tangential side.
    turns: [Vec<Turned>; 3],
    friction: bool,
    /// Per list, the contacts of its last full sweep whose correction
    /// exceeded [`Hot::mark`] (indices into the list).
    hot: [Vec<u32>; 3],
    /// Hot contacts a thread of a rebalanced round left for after the join
    /// ([`Packs::hot_rebalanced`]): the lower thread's, then the upper
    /// thread's from the lower list and from the list across.
    deferred: [Vec<u32>; 3],
}

/// Extra sweeps of the hot contacts after a full sweep
/// ([`Packs::sweep`]): when the full sweep's largest correction is at or
/// over `threshold`, `sweeps` rounds visit the contacts whose correction in
/// it exceeded `mark`, each round both halves (on two threads), then those
/// across, in sweep order.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hot {
    pub threshold: f32,
    pub mark: f32,
    pub sweeps: u32,
}

/// The tangential side of a packed frictional contact: its impulse, both
/// radii (`rb` 0 for a wall) and its Coulomb coefficient.
#[derive(Debug, Clone, Copy, Default)]
struct Turned {
    impulse_t: f32,
    ra: f32,
    rb: f32,
    mu: f32,
    /// A moving wall's tangential velocity at the contact, m/s (0 otherwise).
    wall_t: f32,
}

impl Packs {
    /// Pack the `acting` contacts (sweep indices) of `slots` as `split`
    /// divides them, with the inverse masses and, with friction, the radii
    /// of `bodies`.
    pub(super) fn build(
        &mut self,
        sweep: &Sweep,
        split: &Split,
        acting: &[u32],
        slots: &[Contact],
        bodies: &Bodies<'_>,
        how: &Visit,
    ) {
        let inv_mass = bodies.inv_mass;
        let radius = bodies.spin.as_ref().map(|t| t.radius);
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
                let offset = c.target_offset(how.inv_dt, how.beta, how.slop);
                out.push(Packed {
                    a: (a - grain0) as u32,
                    b,
                    normal: c.normal,
                    w: c.inv_mass_sum,
                    inv_w: 1.0 / c.inv_mass_sum,
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
                        wall_t: dot(c.wall_vel, tangent(c.normal)),
                    });
                }
            }
        }
    }

    /// One sweep over the acting contacts (both halves on two threads,
    /// then the contacts across); returns the largest |dP| W of the
    /// full sweep. With `hot` given, a full sweep still over its threshold
    /// is followed by the hot sweeps ([`Hot`]).
    pub(super) fn sweep(
        &mut self,
        split: &Split,
        vel: &mut [[f32; 2]],
        spin: Option<&mut [f32]>,
        how: &Visit,
        hot: Option<Hot>,
    ) -> f32 {
        if let Some(w) = spin {
            return self.sweep_turned(split, vel, w, how, hot);
        }
        let rule = self.rule.unwrap_or(Rule::Accumulated);
        let [lower, upper, across] = &mut self.lists;
        let [h0, h1, h2] = &mut self.hot;
        let mark = hot.map(|h| h.mark);
        let r = if split.mid == 0 {
            sweep_list(lower, h0, vel, how, rule, mark)
        } else {
            let (v0, v1) = vel.split_at_mut(split.mid);
            let (r0, r1) = rayon::join(
                || sweep_list(lower, h0, v0, how, rule, mark),
                || sweep_list(upper, h1, v1, how, rule, mark),
            );
            r0.max(r1).max(sweep_list(across, h2, vel, how, rule, mark))
        };
        let Some(hot) = hot.filter(|h| r >= h.threshold && h.sweeps > 0) else {
            return r;
        };
        // Each round visits the hot contacts of both halves, then those
        // across, in order, as a full sweep does, in place: a contiguous copy
        // would change every full sweep (docs/solvers.md#why-the-cpu-constants).
        if split.mid != 0 && h0.len() * HOT_LOWER_SHARE.1 > (h0.len() + h1.len() + h2.len()) * HOT_LOWER_SHARE.0 {
            self.hot_rebalanced(split.mid, vel, how, rule, hot.sweeps);
            return r;
        }
        for _ in 0..hot.sweeps {
            if split.mid == 0 {
                sweep_marked(lower, h0, vel, how, rule);
                continue;
            }
            let (v0, v1) = vel.split_at_mut(split.mid);
            rayon::join(
                || sweep_marked(lower, h0, v0, how, rule),
                || sweep_marked(upper, h1, v1, how, rule),
            );
            sweep_marked(across, h2, vel, how, rule);
        }
        r
    }

    /// [`Packs::sweep`] with friction: a full sweep of the contacts and
    /// their tangential sides, then, with `hot` given and the sweep still
    /// over its threshold, `hot.sweeps` rounds over its hot contacts, each
    /// round both halves on two threads, then those across. The rounds are
    /// not rebalanced ([`Packs::hot_rebalanced`]): a frictional step's hot
    /// contacts spread over the pile.
    fn sweep_turned(
        &mut self,
        split: &Split,
        vel: &mut [[f32; 2]],
        w: &mut [f32],
        how: &Visit,
        hot: Option<Hot>,
    ) -> f32 {
        let [lower, upper, across] = &mut self.lists;
        let [t0, t1, t2] = &mut self.turns;
        let [h0, h1, h2] = &mut self.hot;
        let mark = hot.map(|h| h.mark);
        let r = if split.mid == 0 {
            sweep_turns(lower, t0, h0, vel, w, how, mark)
        } else {
            let (v0, v1) = vel.split_at_mut(split.mid);
            let (w0, w1) = w.split_at_mut(split.mid);
            let (r0, r1) = rayon::join(
                || sweep_turns(lower, t0, h0, v0, w0, how, mark),
                || sweep_turns(upper, t1, h1, v1, w1, how, mark),
            );
            r0.max(r1).max(sweep_turns(across, t2, h2, vel, w, how, mark))
        };
        let Some(hot) = hot.filter(|h| r >= h.threshold && h.sweeps > 0) else {
            return r;
        };
        for _ in 0..hot.sweeps {
            if split.mid == 0 {
                sweep_marked_turns(lower, t0, h0, vel, w, how);
                continue;
            }
            let (v0, v1) = vel.split_at_mut(split.mid);
            let (w0, w1) = w.split_at_mut(split.mid);
            rayon::join(
                || sweep_marked_turns(lower, t0, h0, v0, w0, how),
                || sweep_marked_turns(upper, t1, h1, v1, w1, how),
            );
            sweep_marked_turns(across, t2, h2, vel, w, how);
        }
        r
    }

    /// Copy the packed impulses back into their slots.
    pub(super) fn write_back(&self, slots: &mut [Contact]) {
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

/// A full frictional sweep of `list` ([`visit_turn`] on each contact in
/// order, `turns` beside `list`, spins `w` indexed like `vel`); with `mark`,
/// the indices of the contacts whose correction exceeded it go into
/// `marked`, as [`sweep_list`] does. Returns the largest correction.
fn sweep_turns(
    list: &mut [Packed],
    turns: &mut [Turned],
    marked: &mut Vec<u32>,
    vel: &mut [[f32; 2]],
    w: &mut [f32],
    how: &Visit,
    mark: Option<f32>,
) -> f32 {
    let n = list.len();
    let pairs = list.iter_mut().zip(turns.iter_mut());
    let Some(mark) = mark else {
        return pairs.fold(0.0f32, |worst, (c, t)| worst.max(visit_turn(c, t, vel, w, how)));
    };
    marked.clear();
    marked.resize(n, 0);
    let (mut hot, mut worst) = (0, 0.0f32);
    for (k, (c, t)) in pairs.enumerate() {
        let r = visit_turn(c, t, vel, w, how);
        marked[hot] = k as u32;
        hot += usize::from(r > mark);
        worst = worst.max(r);
    }
    marked.truncate(hot);
    worst
}

/// One frictional sweep of the `marked` contacts of `list`, in order.
fn sweep_marked_turns(
    list: &mut [Packed],
    turns: &mut [Turned],
    marked: &[u32],
    vel: &mut [[f32; 2]],
    w: &mut [f32],
    how: &Visit,
) {
    for &k in marked {
        let k = k as usize;
        visit_turn(&mut list[k], &mut turns[k], vel, w, how);
    }
}

/// [`Sweep::visit_turn`] on a packed contact and its tangential side;
/// returns the larger of |dP_n| W and |dP_t| 3 W.
#[inline(always)]
fn visit_turn(c: &mut Packed, t: &mut Turned, vel: &mut [[f32; 2]], w: &mut [f32], how: &Visit) -> f32 {
    let a = c.a as usize;
    let wall = c.b == Sweep::NO_MIRROR;
    let b = c.b as usize;
    let vb = if wall { [0.0, 0.0] } else { vel[b] };
    let u = dot(sub(vel[a], vb), c.normal);
    let target = u + c.offset;
    let rw_b = if wall { 0.0 } else { t.rb * w[b] };
    let slip = slip(c.normal, vel[a], vb, t.ra * w[a], rw_b) - t.wall_t;
    let (pn, pt) = coulomb_sor(c.impulse, t.impulse_t, target, slip, c.w, how.sor, t.mu);
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
    crate::cpu::jacobi::friction_correction(dpn, dpt, c.w, 1.0)
}

/// A full sweep of `list`; with `mark`, the indices of the contacts whose
/// correction exceeded it go into `marked`. Returns the largest |dP| W.
fn sweep_list(
    list: &mut [Packed],
    marked: &mut Vec<u32>,
    vel: &mut [[f32; 2]],
    how: &Visit,
    rule: Rule,
    mark: Option<f32>,
) -> f32 {
    let Some(mark) = mark else {
        return list
            .iter_mut()
            .fold(0.0f32, |w, c| w.max(visit_packed(c, vel, how, rule)));
    };
    // Branch-free compaction: every index is written, and the length only
    // grows past those over the mark (a branch here mispredicted on the
    // 40 % or so of contacts that are hot, in no pattern). The buffer is
    // zeroed to the list's length: cheaper than a separate count
    // (docs/solvers.md#why-the-cpu-constants).
    marked.clear();
    marked.resize(list.len(), 0);
    let mut hot = 0;
    let mut worst = 0.0f32;
    for (k, c) in list.iter_mut().enumerate() {
        let r = visit_packed(c, vel, how, rule);
        marked[hot] = k as u32;
        hot += usize::from(r > mark);
        worst = worst.max(r);
    }
    marked.truncate(hot);
    worst
}

/// The lower half's share of the hot contacts (num / den) above which the
/// hot rounds move their split down ([`Packs::hot_rebalanced`]).
const HOT_LOWER_SHARE: (usize, usize) = (3, 5);

impl Packs {
    /// The hot rounds when the lower half holds most of the hot contacts (the
    /// neck and the heap under it: on the 10,000-grain discharge the lower
    /// thread swept 1.77 ms of hot contacts a step while the upper one swept
    /// 0.84 ms and waited). The rounds split the grains at `g`, the owner of the
    /// lower list's hot contact that leaves half of all hot contacts below it:
    /// the lower thread sweeps the hot contacts of the lower list owned below
    /// `g`, the upper thread those owned from `g` on, then the upper list's and
    /// those across; a contact with a grain on the other side of `g` is left
    /// for after the join (`deferred`), where it is swept on one thread, the
    /// lower thread's first. Every visit is the same update in a fixed order,
    /// so the results do not depend on the threads.
    fn hot_rebalanced(&mut self, mid: usize, vel: &mut [[f32; 2]], how: &Visit, rule: Rule, sweeps: u32) {
        let [lower, upper, across] = &mut self.lists;
        let [h0, h1, h2] = &self.hot;
        let [d0, d1, d2] = &mut self.deferred;
        let total = h0.len() + h1.len() + h2.len();
        let g = lower[h0[total / 2] as usize].a as usize;
        let p = lower.partition_point(|c| (c.a as usize) < g);
        let q = h0.partition_point(|&k| (k as usize) < p);
        let (h0_lo, h0_hi) = h0.split_at(q);
        for _ in 0..sweeps {
            d0.clear();
            d1.clear();
            d2.clear();
            let (v0, v1) = vel.split_at_mut(g);
            let (lo, hi) = lower.split_at_mut(p);
            rayon::join(
                || Marked::new(lo, h0_lo, 0).sweep_within(v0, 0, how, rule, d0),
                || {
                    Marked::new(hi, h0_hi, p).sweep_within(v1, g, how, rule, d1);
                    Marked::new(upper, h1, 0).sweep_within(v1, g.wrapping_sub(mid), how, rule, &mut Vec::new());
                    Marked::new(across, h2, 0).sweep_within(v1, g, how, rule, d2);
                },
            );
            sweep_marked(lower, d0, vel, how, rule);
            sweep_marked(lower, d1, vel, how, rule);
            sweep_marked(across, d2, vel, how, rule);
        }
    }
}

/// Marked contacts of a packed list: `marked` indexes the list that `list`
/// is the part of from entry `first` on.
struct Marked<'l> {
    list: &'l mut [Packed],
    marked: &'l [u32],
    first: usize,
}

impl<'l> Marked<'l> {
    fn new(list: &'l mut [Packed], marked: &'l [u32], first: usize) -> Marked<'l> {
        Marked { list, marked, first }
    }

    /// [`sweep_marked`] on a part of the arrays: `vel[0]` is grain `g0` of
    /// the list's numbering (wrapping: an upper list, numbered from the
    /// middle, has g0 = g - mid). A contact with a grain outside `vel` is
    /// not visited: its index goes into `deferred`.
    fn sweep_within(self, vel: &mut [[f32; 2]], g0: usize, how: &Visit, rule: Rule, deferred: &mut Vec<u32>) {
        let Marked { list, marked, first } = self;
        let n = vel.len();
        for &k in marked {
            let c = &mut list[k as usize - first];
            let a = (c.a as usize).wrapping_sub(g0);
            let b = (c.b as usize).wrapping_sub(g0);
            if a >= n || (c.b != Sweep::NO_MIRROR && b >= n) {
                deferred.push(k);
                continue;
            }
            visit_packed_at(c, vel, g0, how, rule);
        }
    }
}

/// One sweep of the `marked` contacts of `list`, in order.
fn sweep_marked(list: &mut [Packed], marked: &[u32], vel: &mut [[f32; 2]], how: &Visit, rule: Rule) {
    for &k in marked {
        visit_packed(&mut list[k as usize], vel, how, rule);
    }
}

/// [`Sweep::visit_in`] on a packed contact; returns its |dP| W. Always
/// inlined, the hot sweeps' index list included, where the compiler does
/// not inline it by itself (docs/solvers.md#why-the-cpu-constants).
#[inline(always)]
fn visit_packed(c: &mut Packed, vel: &mut [[f32; 2]], how: &Visit, rule: Rule) -> f32 {
    visit_packed_at(c, vel, 0, how, rule)
}

/// [`visit_packed`] with `vel[0]` being grain `g0` of the contact's numbering.
#[inline(always)]
fn visit_packed_at(c: &mut Packed, vel: &mut [[f32; 2]], g0: usize, how: &Visit, rule: Rule) -> f32 {
    let a = (c.a as usize).wrapping_sub(g0);
    let wall = c.b == Sweep::NO_MIRROR;
    let b = (c.b as usize).wrapping_sub(g0);
    let vb = if wall { [0.0, 0.0] } else { vel[b] };
    let u = dot(sub(vel[a], vb), c.normal);
    let target = u + c.offset;
    let dp = super::update(rule, c.impulse, target, how.sor, c.w, |x| x * c.inv_w);
    c.impulse += dp;
    let ia = c.ia * dp;
    vel[a][0] += ia * c.normal[0];
    vel[a][1] += ia * c.normal[1];
    if !wall {
        let ib = c.ib * dp;
        vel[b][0] -= ib * c.normal[0];
        vel[b][1] -= ib * c.normal[1];
    }
    dp.abs() * c.w
}
