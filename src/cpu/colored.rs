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

use super::coloring::{Coloring, is_orphan, owns};
use crate::model::OVERFLOW;
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
    let start = std::time::Instant::now();
    let coloring = super::coloring::color_contacts(lists, inv_mass);
    let k = lists.capacity;
    let mut sweep = ColoredSweep::default();
    sweep.build(&lists.count, &lists.slots, k, &coloring);
    stats.coloring_ms = (start.elapsed().as_secs_f64() * 1e3) as f32;
    // The GPU starts from the same gather (warm start), so both round alike.
    super::jacobi::jacobi_gather(&lists.count, &lists.slots, k, vel_free, inv_mass, vel);
    let (inv_dt, threshold) = (1.0 / p.dt, p.tol / p.dt);
    super::iterate(stats, p.itmax, threshold, history, || {
        sweep.sweep(&mut lists.slots, inv_mass, vel, inv_dt, p.overlap_relax, p.slop())
    });
    colored_mirror(&lists.count, &mut lists.slots, k);
    coloring
}
