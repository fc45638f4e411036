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
//!       P' = max(0, P - t / W),  dP = P' - P
//!       v_a += im_a dP n,  v_b -= im_b dP n
//! ```
//! The order inside a colour does not change the result, so this twin walks
//! per-colour lists built once per step ([`ColoredSweep::build`], the twin of
//! the GPU's `bucket_count` + `bucket_scatter`, whose order inside a colour is
//! free); the GPU gets the same numbers (up to fused multiply-adds). Only the owner copy (lower grain) is updated during
//! the iterations; [`colored_mirror`] copies the impulses into the other
//! copies at the end of the step for the warm start and the diagnostics.
//! [`colored_solve`] (one colour's bucket) and [`colored_overflow`] are the
//! GPU's passes one by one, with its per-grain residuals, for the stage tests.
//!
//! With friction (DESIGN §1d) [`solve_friction`] visits the same contacts in
//! the same order with the local Coulomb update ([`update_friction`]): both
//! grains' velocities and spins move; [`colored_solve_friction`] and
//! [`colored_overflow_friction`] are the GPU's frictional passes one by one.

use super::coloring::{Coloring, is_orphan, owns};
use crate::model::OVERFLOW;
use crate::model::contact::{coulomb, spin_kick, tangent};
use crate::model::{Body, Contact, dot, sub};

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
    pub fn build(&mut self, count: &[u32], slots: &[Contact], capacity: usize, coloring: &Coloring) {
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

    /// One iteration (every colour, then the overflow); returns the largest |dP| W, m/s.
    pub fn sweep(
        &self,
        slots: &mut [Contact],
        inv_mass: &[f32],
        vel: &mut [[f32; 2]],
        inv_dt: f32,
        beta: f32,
        slop: f32,
    ) -> f32 {
        let mut worst = 0.0f32;
        for k in 0..self.slot.len() {
            let r = update(
                &mut slots[self.slot[k] as usize],
                self.grain[k] as usize,
                inv_mass,
                vel,
                inv_dt,
                beta,
                slop,
            );
            worst = worst.max(r);
        }
        worst
    }
}

/// Projected Gauss-Seidel update of one owned contact of grain `a`; returns |dP| W.
#[inline]
pub fn update(
    c: &mut Contact,
    a: usize,
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    inv_dt: f32,
    beta: f32,
    slop: f32,
) -> f32 {
    let other = match c.body() {
        Body::Grain(j) => Some(j as usize),
        _ => None,
    };
    let vb = other.map_or([0.0, 0.0], |j| vel[j]);
    let u = dot(sub(vel[a], vb), c.normal);
    let t = c.target(u, inv_dt, beta, slop);
    let p = (c.impulse - t / c.inv_mass_sum).max(0.0);
    let dp = p - c.impulse;
    c.impulse = p;
    let ia = inv_mass[a] * dp;
    if ia != 0.0 {
        vel[a] = [vel[a][0] + ia * c.normal[0], vel[a][1] + ia * c.normal[1]];
    }
    if let Some(j) = other {
        let ib = inv_mass[j] * dp;
        if ib != 0.0 {
            vel[j] = [vel[j][0] - ib * c.normal[0], vel[j][1] - ib * c.normal[1]];
        }
    }
    (dp * c.inv_mass_sum).abs()
}

/// Stage `colored_solve`: the contacts of one colour, in binding order.
/// `bucket` holds that colour's slot indices (the GPU's
/// `bucket[start_k .. start_k + size_k]`); slot `idx` belongs to grain
/// `idx / capacity`, whose residual becomes max(residual, |dP| W).
#[allow(clippy::too_many_arguments)]
pub fn colored_solve(
    slots: &mut [Contact],
    capacity: usize,
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    residual: &mut [f32],
    bucket: &[u32],
    inv_dt: f32,
    beta: f32,
    slop: f32,
) {
    for &idx in bucket {
        let a = idx as usize / capacity.max(1);
        let r = update(&mut slots[idx as usize], a, inv_mass, vel, inv_dt, beta, slop);
        residual[a] = residual[a].max(r);
    }
}

/// Stage `colored_overflow`: serially over every grain and its slots, the
/// contacts of the [`OVERFLOW`] colour that grain solves (owned copies and
/// orphans, see [`is_orphan`]); residual as in [`colored_solve`].
#[allow(clippy::too_many_arguments)]
pub fn colored_overflow(
    count: &[u32],
    slots: &mut [Contact],
    capacity: usize,
    color: &[u32],
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    residual: &mut [f32],
    inv_dt: f32,
    beta: f32,
    slop: f32,
) {
    for a in 0..count.len() {
        for s in 0..(count[a] as usize).min(capacity) {
            let idx = a * capacity + s;
            let solves = owns(a as u32, slots[idx].other) || is_orphan(count, slots, capacity, a, idx);
            if color[idx] == OVERFLOW && solves {
                let r = update(&mut slots[idx], a, inv_mass, vel, inv_dt, beta, slop);
                residual[a] = residual[a].max(r);
            }
        }
    }
}

/// Stage `colored_mirror`: every non-owned copy takes the impulse of its
/// owner's copy (left unchanged when the owner's list dropped the contact).
pub fn colored_mirror(count: &[u32], slots: &mut [Contact], capacity: usize) {
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
                slots[i * k + s].impulse_t = slots[j * k + t].impulse_t;
            }
        }
    }
}

/// The coloured solver of one step on the CPU path: colour, start from the
/// warm-started impulses, iterate until |dP| W < tol/dt or itmax, mirror.
/// Returns the colouring (its colour count is the step's `colors`).
pub fn solve(
    lists: &mut crate::model::ContactLists,
    vel_free: &[[f32; 2]],
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    p: &crate::model::StepParams,
    stats: &mut crate::model::StepStats,
    history: Option<&mut Vec<f32>>,
) -> super::coloring::Coloring {
    let (coloring, sweep) = prepare(lists, inv_mass, stats);
    // The GPU starts from the same gather (warm start), so both round alike.
    let k = lists.capacity;
    super::jacobi::jacobi_gather(&lists.count, &lists.slots, k, vel_free, inv_mass, vel);
    let (inv_dt, threshold) = (1.0 / p.dt, p.tol / p.dt);
    super::iterate(stats, p.itmax, threshold, history, || {
        sweep.sweep(&mut lists.slots, inv_mass, vel, inv_dt, p.overlap_relax, p.slop())
    });
    colored_mirror(&lists.count, &mut lists.slots, k);
    coloring
}

/// Colour the contacts and group them by colour (timed into `stats.coloring_ms`).
fn prepare(
    lists: &crate::model::ContactLists,
    inv_mass: &[f32],
    stats: &mut crate::model::StepStats,
) -> (super::coloring::Coloring, ColoredSweep) {
    let start = std::time::Instant::now();
    let coloring = super::coloring::color_contacts(lists, inv_mass);
    let mut sweep = ColoredSweep::default();
    sweep.build(&lists.count, &lists.slots, lists.capacity, &coloring);
    stats.coloring_ms = (start.elapsed().as_secs_f64() * 1e3) as f32;
    (coloring, sweep)
}

/// The grains' spins and radii, for the frictional sweep (DESIGN §1d).
pub struct Spins<'a> {
    /// Spins before the contacts act, rad/s.
    pub spin_free: &'a [f32],
    /// Radii, m.
    pub radius: &'a [f32],
    /// The solved spins, rad/s (written).
    pub spin: &'a mut [f32],
}

/// [`solve`] with Coulomb friction (DESIGN §1d): the same colours and order,
/// each visit the local update `coulomb` with relaxation 1 on (P_n, P_t) and
/// both grains' velocities and spins updated; the residual is
/// max(|dP_n| W, |dP_t| 3W).
#[allow(clippy::too_many_arguments)]
pub fn solve_friction(
    lists: &mut crate::model::ContactLists,
    vel_free: &[[f32; 2]],
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    s: Spins,
    p: &crate::model::StepParams,
    stats: &mut crate::model::StepStats,
    history: Option<&mut Vec<f32>>,
) -> super::coloring::Coloring {
    let (coloring, sweep) = prepare(lists, inv_mass, stats);
    let k = lists.capacity;
    let (c, sl) = (&lists.count, &lists.slots);
    super::jacobi::jacobi_gather_friction(c, sl, k, vel_free, s.spin_free, inv_mass, s.radius, vel, s.spin);
    let (inv_dt, threshold) = (1.0 / p.dt, p.tol / p.dt);
    let how = FrictionVisit {
        inv_dt,
        beta: p.overlap_relax,
        slop: p.slop(),
        mu: p.mu,
        mu_wall: p.mu_wall,
    };
    super::iterate(stats, p.itmax, threshold, history, || {
        let mut worst = 0.0f32;
        for (&slot, &a) in sweep.slot.iter().zip(&sweep.grain) {
            let c = &mut lists.slots[slot as usize];
            worst = worst.max(update_friction(c, a as usize, inv_mass, s.radius, vel, s.spin, &how));
        }
        worst
    });
    colored_mirror(&lists.count, &mut lists.slots, k);
    coloring
}

/// The constants of a frictional visit.
#[derive(Debug, Clone, Copy)]
pub struct FrictionVisit {
    pub inv_dt: f32,
    pub beta: f32,
    pub slop: f32,
    pub mu: f32,
    pub mu_wall: f32,
}

/// Frictional Gauss-Seidel update of one owned contact of grain `a`
/// (DESIGN §1d); returns max(|dP_n| W, |dP_t| 3W).
#[inline]
pub fn update_friction(
    c: &mut Contact,
    a: usize,
    inv_mass: &[f32],
    radius: &[f32],
    vel: &mut [[f32; 2]],
    spin: &mut [f32],
    how: &FrictionVisit,
) -> f32 {
    let (other, mu) = match c.body() {
        Body::Grain(j) => (Some(j as usize), how.mu),
        _ => (None, how.mu_wall),
    };
    let vb = other.map_or([0.0, 0.0], |j| vel[j]);
    let rw_b = other.map_or(0.0, |j| radius[j] * spin[j]);
    let u = dot(sub(vel[a], vb), c.normal);
    let u_t = c.slip(vel[a], vb, radius[a] * spin[a], rw_b);
    let target = c.target(u, how.inv_dt, how.beta, how.slop);
    let w = c.inv_mass_sum;
    let (pn, pt) = coulomb(c.impulse, c.impulse_t, target, u_t, w, 1.0, mu);
    let (dn, dt) = (pn - c.impulse, pt - c.impulse_t);
    (c.impulse, c.impulse_t) = (pn, pt);
    let t = tangent(c.normal);
    let d = [dn * c.normal[0] + dt * t[0], dn * c.normal[1] + dt * t[1]];
    // A fixed grain is never written (on the GPU it may sit in several
    // contacts of one colour).
    let ia = inv_mass[a];
    if ia != 0.0 {
        vel[a] = [vel[a][0] + ia * d[0], vel[a][1] + ia * d[1]];
        spin[a] += spin_kick(ia, radius[a], dt);
    }
    if let Some(j) = other {
        // The other copy's normal and tangent are both negated, its P_t the same.
        let ib = inv_mass[j];
        if ib != 0.0 {
            vel[j] = [vel[j][0] - ib * d[0], vel[j][1] - ib * d[1]];
            spin[j] += spin_kick(ib, radius[j], dt);
        }
    }
    super::jacobi::friction_correction(dn, dt, w, 1.0)
}

/// Stage `colored_solve_friction`: [`colored_solve`] with [`update_friction`]
/// (bindings of `colored_solve`, then radius and spin).
#[allow(clippy::too_many_arguments)]
pub fn colored_solve_friction(
    slots: &mut [Contact],
    capacity: usize,
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    residual: &mut [f32],
    bucket: &[u32],
    how: &FrictionVisit,
    radius: &[f32],
    spin: &mut [f32],
) {
    for &idx in bucket {
        let a = idx as usize / capacity.max(1);
        let r = update_friction(&mut slots[idx as usize], a, inv_mass, radius, vel, spin, how);
        residual[a] = residual[a].max(r);
    }
}

/// Stage `colored_overflow_friction`: [`colored_overflow`] with [`update_friction`].
#[allow(clippy::too_many_arguments)]
pub fn colored_overflow_friction(
    count: &[u32],
    slots: &mut [Contact],
    capacity: usize,
    color: &[u32],
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    residual: &mut [f32],
    how: &FrictionVisit,
    radius: &[f32],
    spin: &mut [f32],
) {
    for a in 0..count.len() {
        for s in 0..(count[a] as usize).min(capacity) {
            let idx = a * capacity + s;
            let solves = owns(a as u32, slots[idx].other) || is_orphan(count, slots, capacity, a, idx);
            if color[idx] == OVERFLOW && solves {
                let r = update_friction(&mut slots[idx], a, inv_mass, radius, vel, spin, how);
                residual[a] = residual[a].max(r);
            }
        }
    }
}
