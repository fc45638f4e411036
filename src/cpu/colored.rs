//! Graph-coloured NLGS: CPU twin of shaders/colored.wgsl.
//!
//! One iteration visits the colours in order; within a colour no two contacts
//! share a movable grain ([`super::coloring`]), so its updates are independent
//! and the GPU runs them all at once (one invocation per contact of the
//! colour, from per-colour buckets), yet the iteration is exact Gauss-Seidel:
//! ```text
//!   for colour k = 0 .. colours-1, then OVERFLOW (serially):
//!     for every owned contact c = (a, b) of colour k:
//!       u  = (v_a - v_b) . n,  t = u + (max(d,0) + beta min(d + slop, 0))/dt
//!       P' = max(0, P - sor t / W),  dP = P' - P
//!       v_a += im_a dP n,  v_b -= im_b dP n
//! ```
//! with sor = 1.8 far from convergence and 1 near it
//! (`model::solver::colored_sor`, decided after the first iteration, then
//! every 10).
//! The order inside a colour does not change the result, so this twin walks
//! per-colour lists built once per step ([`ColoredSweep::build`], the twin of
//! the GPU's `bucket_count` + `bucket_scatter`, whose order inside a colour is
//! free); the GPU gets the same numbers (up to fused multiply-adds). Only the owner copy (lower grain) is updated during
//! the iterations; [`colored_mirror`] copies the impulses into the other
//! copies at the end of the step for the warm start and the diagnostics.
//! [`colored_solve`] (one colour's bucket) and [`colored_overflow`] are the
//! GPU's passes one by one, with its per-grain residuals, for the stage tests.
//!
//! With friction (docs/nscd.md#coulomb-friction-and-rotation) the `FRICTION = true` instances visit the same
//! contacts in the same order with the local Coulomb update ([`update`]):
//! both grains' velocities and spins move.
//!
//! Written over the space (model::space): in 3D the tangential impulse is a
//! vector of the contact plane projected into the Coulomb disk, the spins
//! are vectors, and the mirror gives the second copy of a pair the opposite
//! tangent (each copy seen from its own sphere).

use super::coloring::{Coloring, is_orphan, owns};
use super::jacobi::{Friction, Moving};
use super::solver::{SolveCtx, Solver};
use crate::model::OVERFLOW;
use crate::model::contact::coulomb_sor_in;
use crate::model::solver::{colored_sor, colored_sor_above, colored_sor_due};
use crate::model::{Body, Contact, ContactLists, Space, StepParams, StepStats};

/// Owned contacts grouped by colour: `slot[start[k]..start[k + 1]]` are colour k
/// (the overflow colour last), each with its grain.
#[derive(Debug, Clone, Default)]
pub struct ColoredSweep {
    pub start: Vec<usize>,
    pub grain: Vec<u32>,
    pub slot: Vec<u32>,
}

impl ColoredSweep {
    /// Group the owned slots of `count`/`slots` by their colour in `coloring`.
    pub fn build<S: Space>(&mut self, count: &[u32], slots: &[Contact<S>], capacity: usize, coloring: &Coloring) {
        let groups = coloring.colors as usize + 1;
        let mut per: Vec<Vec<(u32, u32)>> = vec![Vec::new(); groups];
        for a in 0..count.len() {
            for s in 0..(count[a] as usize).min(capacity) {
                let idx = a * capacity + s;
                let col = coloring.color[idx];
                let orphan = col == OVERFLOW && is_orphan(count, slots, capacity, a, idx);
                // Owned copies, and orphans (the owner's full list dropped the
                // contact), which only this grain can solve.
                if !owns(a as u32, slots[idx].other) && !orphan {
                    continue;
                }
                let g = if col == OVERFLOW { groups - 1 } else { col as usize };
                per[g].push((a as u32, idx as u32));
            }
        }
        self.start.clear();
        self.grain.clear();
        self.slot.clear();
        self.start.push(0);
        for list in per {
            for (a, s) in list {
                self.grain.push(a);
                self.slot.push(s);
            }
            self.start.push(self.slot.len());
        }
    }

    /// One iteration (every colour, then the overflow) with [`update`];
    /// returns the largest correction, m/s.
    pub fn sweep<S: Space, const FRICTION: bool>(
        &self,
        slots: &mut [Contact<S>],
        bodies: &Bodies,
        out: &mut Moving<S>,
        how: &Visit,
    ) -> f32 {
        let mut worst = 0.0f32;
        for (&slot, &a) in self.slot.iter().zip(&self.grain) {
            let r = update::<S, FRICTION>(&mut slots[slot as usize], a as usize, bodies, out, how);
            worst = worst.max(r);
        }
        worst
    }
}

/// The grains a visit reads: inverse masses and, with friction, radii (m;
/// may be empty without).
#[derive(Debug, Clone, Copy)]
pub struct Bodies<'a> {
    pub inv_mass: &'a [f32],
    pub radius: &'a [f32],
}

/// The constants of a visit: the target's 1/dt, beta and slop
/// (`Contact::target`), with friction the coefficients of grain-grain
/// (`mu`) and wall (`mu_wall`) contacts, and the over-relaxation `sor` of
/// the normal rows (`model::solver::colored_sor`; 1: plain Gauss-Seidel).
#[derive(Debug, Clone, Copy)]
pub struct Visit {
    pub inv_dt: f32,
    pub beta: f32,
    pub slop: f32,
    pub mu: f32,
    pub mu_wall: f32,
    pub sor: f32,
}

impl Visit {
    /// The step's, unrelaxed.
    pub fn of(p: &StepParams) -> Visit {
        Visit {
            inv_dt: 1.0 / p.dt,
            beta: p.overlap_relax,
            slop: p.slop(),
            mu: p.mu,
            mu_wall: p.mu_wall,
            sor: 1.0,
        }
    }
}

/// Projected Gauss-Seidel update of one owned contact `c` of grain `a`:
/// P' = max(0, P - sor t / W) (`how.sor`), both grains' velocities
/// (`out.vel`) moved at once; returns |dP| W. With `FRICTION`
/// (docs/nscd.md#coulomb-friction-and-rotation) the local update
/// `coulomb_sor_in` on (P_n, P_t) (the normal row relaxed by `how.sor`),
/// both grains' velocities and spins (`out.spin`) moved; returns
/// max(|dP_n| W, |dP_t| W_tt). In 3D P_t is a vector of the contact plane
/// and the other grain's kick is along its own copy's normal and tangent
/// (-n, `Space::mirror_tangent`). A fixed grain is never written (on the
/// GPU it may sit in several contacts of one colour).
#[inline]
pub fn update<S: Space, const FRICTION: bool>(
    c: &mut Contact<S>,
    a: usize,
    bodies: &Bodies,
    out: &mut Moving<S>,
    how: &Visit,
) -> f32 {
    let other = match c.body() {
        Body::Grain(j) => Some(j as usize),
        _ => None,
    };
    if FRICTION {
        return update_friction(c, a, other, bodies, out, how);
    }
    let (inv_mass, vel) = (bodies.inv_mass, &mut *out.vel);
    let vb = other.map_or(S::Vec::default(), |j| vel[j]);
    let u = S::dot(S::sub(vel[a], vb), c.normal);
    let t = c.target(u, how.inv_dt, how.beta, how.slop);
    let p = (c.impulse - how.sor * t / c.inv_mass_sum).max(0.0);
    let dp = p - c.impulse;
    c.impulse = p;
    let ia = inv_mass[a] * dp;
    if ia != 0.0 {
        vel[a] = S::zip(vel[a], c.normal, |v, n| v + ia * n);
    }
    if let Some(j) = other {
        let ib = inv_mass[j] * dp;
        if ib != 0.0 {
            vel[j] = S::zip(vel[j], c.normal, |v, n| v - ib * n);
        }
    }
    (dp * c.inv_mass_sum).abs()
}

/// The frictional part of [`update`] (`other`: the other grain, if any).
#[inline]
fn update_friction<S: Space>(
    c: &mut Contact<S>,
    a: usize,
    other: Option<usize>,
    bodies: &Bodies,
    out: &mut Moving<S>,
    how: &Visit,
) -> f32 {
    let (inv_mass, radius) = (bodies.inv_mass, bodies.radius);
    let (vel, spin) = (&mut *out.vel, &mut *out.spin);
    let f = Friction {
        spin: &*spin,
        radius,
        mu: how.mu,
        mu_wall: how.mu_wall,
    };
    let (u, u_t, mu) = f.velocities(a, c, vel);
    let target = c.target(u, how.inv_dt, how.beta, how.slop);
    let w = c.inv_mass_sum;
    let (pn, pt) = coulomb_sor_in::<S>(c.impulse, c.impulse_t, target, u_t, w, how.sor, mu);
    let (dn, dt) = (pn - c.impulse, S::tangent_sub(pt, c.impulse_t));
    (c.impulse, c.impulse_t) = (pn, pt);
    let d = S::zip(c.normal, S::tangent_vec(c.normal, dt), |n, t| dn * n + t);
    let ia = inv_mass[a];
    if ia != 0.0 {
        vel[a] = S::zip(vel[a], d, |v, d| v + ia * d);
        let m = S::contact_moment(c.normal, dt);
        spin[a] = S::spin_add(spin[a], S::spin_kick(ia, radius[a], m));
    }
    if let Some(j) = other {
        // The other copy's normal is -n and its tangent the mirrored one.
        let ib = inv_mass[j];
        if ib != 0.0 {
            vel[j] = S::zip(vel[j], d, |v, d| v - ib * d);
            let m = S::contact_moment(S::scale(c.normal, -1.0), S::mirror_tangent(dt));
            spin[j] = S::spin_add(spin[j], S::spin_kick(ib, radius[j], m));
        }
    }
    super::jacobi::friction_correction_in::<S>(dn, dt, w, 1.0)
}

/// Stage `colored_solve`: the contacts of one colour, in binding order.
/// `bucket` holds that colour's slot indices (the GPU's
/// `bucket[start_k .. start_k + size_k]`); slot `idx` belongs to grain
/// `idx / capacity`, whose residual becomes max(residual, correction).
pub fn colored_solve<S: Space, const FRICTION: bool>(
    lists: &mut ContactLists<S>,
    bodies: &Bodies,
    mut out: Moving<S>,
    residual: &mut [f32],
    bucket: &[u32],
    how: &Visit,
) {
    let capacity = lists.capacity;
    for &idx in bucket {
        let a = idx as usize / capacity.max(1);
        let r = update::<S, FRICTION>(&mut lists.slots[idx as usize], a, bodies, &mut out, how);
        residual[a] = residual[a].max(r);
    }
}

/// Stage `colored_overflow`: serially over every grain and its slots, the
/// contacts of the [`OVERFLOW`] colour that grain solves (owned copies and
/// orphans, see [`is_orphan`]); residual as in [`colored_solve`].
pub fn colored_overflow<S: Space, const FRICTION: bool>(
    lists: &mut ContactLists<S>,
    color: &[u32],
    bodies: &Bodies,
    mut out: Moving<S>,
    residual: &mut [f32],
    how: &Visit,
) {
    let capacity = lists.capacity;
    for (a, res) in residual.iter_mut().enumerate().take(lists.count.len()) {
        for s in 0..(lists.count[a] as usize).min(capacity) {
            let idx = a * capacity + s;
            let (count, slots) = (&lists.count, &lists.slots);
            let solves = owns(a as u32, slots[idx].other) || is_orphan(count, slots, capacity, a, idx);
            if color[idx] == OVERFLOW && solves {
                let r = update::<S, FRICTION>(&mut lists.slots[idx], a, bodies, &mut out, how);
                *res = res.max(r);
            }
        }
    }
}

/// Stage `colored_mirror`: every non-owned copy takes the impulse of its
/// owner's copy (left unchanged when the owner's list dropped the contact),
/// its tangent seen from its own grain (`Space::mirror_tangent`: the same
/// coordinate in the plane, the opposite vector in 3D).
pub fn colored_mirror<S: Space>(count: &[u32], slots: &mut [Contact<S>], capacity: usize) {
    let k = capacity;
    for i in 0..count.len() {
        for s in 0..(count[i] as usize).min(k) {
            let o = slots[i * k + s].other;
            if owns(i as u32, o) {
                continue;
            }
            let j = o as usize;
            let found = (0..(count[j] as usize).min(k)).find(|&t| slots[j * k + t].other == i as u32);
            if let Some(t) = found {
                slots[i * k + s].impulse = slots[j * k + t].impulse;
                // Zero without friction: both copies already agree.
                slots[i * k + s].impulse_t = S::mirror_tangent(slots[j * k + t].impulse_t);
            }
        }
    }
}

/// The coloured solver of one step on the CPU path: colour, start from the
/// warm-started impulses, iterate until the largest correction is under the
/// threshold or itmax, mirror. At each [`colored_sor_due`] iteration the
/// over-relaxation of the next ones follows [`colored_sor`] (the GPU's rule
/// and cadence). With `FRICTION` the same colours and order, each visit
/// [`update`]'s frictional one. Returns the colouring (its colour count is
/// the step's `colors`).
pub fn solve<S: Space, const FRICTION: bool>(ctx: SolveCtx<S>, stats: &mut StepStats) -> super::coloring::Coloring {
    let SolveCtx {
        lists,
        free,
        mut out,
        p,
        history,
        ..
    } = ctx;
    let (coloring, sweep) = prepare(lists, free.inv_mass, stats);
    // The GPU starts from the same gather (warm start), so both round alike.
    let (c, s, k) = (&lists.count, &lists.slots, lists.capacity);
    let gather_out = Moving {
        vel: &mut *out.vel,
        spin: &mut *out.spin,
    };
    super::jacobi::jacobi_gather::<S, FRICTION>(c, s, k, &free, gather_out);
    let (mut how, threshold) = (Visit::of(p), p.threshold());
    let above = colored_sor_above(threshold, p.gravity, p.dt);
    let bodies = Bodies {
        inv_mass: free.inv_mass,
        radius: free.radius,
    };
    let (mut done, mut last) = (0u32, f32::INFINITY);
    super::iterate(stats, p.itmax, threshold, history, || {
        if colored_sor_due(done) {
            how.sor = colored_sor(done, last, above, FRICTION);
        }
        last = sweep.sweep::<S, FRICTION>(&mut lists.slots, &bodies, &mut out, &how);
        done += 1;
        last
    });
    colored_mirror(&lists.count, &mut lists.slots, k);
    coloring
}

/// Colour the contacts and group them by colour (timed into `stats.coloring_ms`).
fn prepare<S: Space>(
    lists: &ContactLists<S>,
    inv_mass: &[f32],
    stats: &mut StepStats,
) -> (super::coloring::Coloring, ColoredSweep) {
    let start = std::time::Instant::now();
    let coloring = super::coloring::color_contacts(lists, inv_mass);
    let mut sweep = ColoredSweep::default();
    sweep.build(&lists.count, &lists.slots, lists.capacity, &coloring);
    stats.coloring_ms = (start.elapsed().as_secs_f64() * 1e3) as f32;
    (coloring, sweep)
}

/// Coloured NLGS as a [`Solver`]; the step's colour count goes into `stats.colors`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Colored;

impl<S: Space> Solver<S> for Colored {
    fn solve(&mut self, ctx: SolveCtx<S>, stats: &mut StepStats) {
        let coloring = if ctx.p.friction() {
            solve::<S, true>(ctx, stats)
        } else {
            solve::<S, false>(ctx, stats)
        };
        stats.colors = coloring.colors;
    }

    fn boxed(&self) -> Box<dyn Solver<S>> {
        Box::new(*self)
    }
}
