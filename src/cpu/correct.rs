//! Stages `predict_gap` and the overlap correction: overlaps are pushed out
//! by moving positions, never through the velocities (a split push-out).
//!
//! ```text
//!   velocity solve:  u + max(d, 0)/dt >= 0          (docs/nscd.md, no push-out)
//!   predict_gap:     d' = d + dt u                  the gap the step will leave
//!   correction:      Jacobi on pseudo-velocities w (from w = 0, impulses Q = 0):
//!                    n.(w_a - w_b) + (max(d', 0) + beta min(d' + slop, 0))/dt >= 0
//!   integrate:       x += dt (v + w)                v is kept, w is forgotten
//! ```
//! Pushing overlaps out through the velocity (a target u >= -beta d/dt in the
//! solve) leaves the push-out speed in the grains: in a column of ten resting
//! grains the pushes add up to several mm/s at the top and the column jitters
//! for ever (tests/rest.rs; docs/solvers.md#defaults).
//! Moved this way the grains come to rest exactly while
//! overlaps deeper than the slop still shrink by a fraction beta per step.
//! The correction runs the Jacobi stages (`jacobi_contact`, `jacobi_gather`)
//! on a copy of the lists, so the GPU runs the same kernels.

use crate::model::{Contact, ContactLists, Dim2, Space};

use super::jacobi::{
    Free, Friction, Moving, Projection, gathered, jacobi_contact, jacobi_gather, other_velocity, project,
};
use rayon::prelude::*;

/// Stage `predict_gap`: a copy of this step's contacts with the gap the
/// velocities `vel` will leave after the step, d' = d + dt (v_i - v_j).n,
/// a zero impulse (the correction's own accumulator) and no bounce (the
/// restitution acted on the velocities; the correction only pushes out).
pub fn predict_gap<S: Space>(
    count: &[u32],
    slots: &[Contact<S>],
    capacity: usize,
    vel: &[S::Vec],
    dt: f32,
    out: &mut Vec<Contact<S>>,
) {
    out.resize(slots.len(), Contact::default());
    if capacity == 0 {
        return;
    }
    out.par_chunks_mut(capacity)
        .zip(slots.par_chunks(capacity))
        .zip(count)
        .with_min_len(super::PAR_MIN)
        .enumerate()
        .for_each(|(i, ((o, s), &n))| {
            for (o, c) in o.iter_mut().zip(s).take(n as usize) {
                *o = predicted(c, i, vel, dt);
            }
        });
}

/// Grain `i`'s contact `c` as `predict_gap` copies it.
#[inline]
fn predicted<S: Space>(c: &Contact<S>, i: usize, vel: &[S::Vec], dt: f32) -> Contact<S> {
    // A moving wall has moved with the step: the gap it leaves at the end
    // is the one to push out of, and the push-out sees it still.
    let u = S::dot(S::sub(vel[i], other_velocity(c, vel)), c.normal) - c.wall_normal_velocity();
    Contact {
        gap: c.gap + dt * u,
        impulse: 0.0,
        bounce: 0.0,
        wall_vel: S::Vec::default(),
        ..*c
    }
}

/// Whether some contact's predicted gap d + dt u (stage `predict_gap`) is
/// below -`slop`.
fn deeper_than<S: Space>(
    count: &[u32],
    slots: &[Contact<S>],
    capacity: usize,
    vel: &[S::Vec],
    dt: f32,
    slop: f32,
) -> bool {
    if capacity == 0 {
        return false;
    }
    slots
        .par_chunks(capacity)
        .zip(count)
        .with_min_len(super::PAR_MIN)
        .enumerate()
        .any(|(i, (s, &n))| {
            s.iter().take(n as usize).any(|c| {
                let u = S::dot(S::sub(vel[i], other_velocity(c, vel)), c.normal) - c.wall_normal_velocity();
                c.gap + dt * u < -slop
            })
        })
}

/// How the correction pushes ([`Correction::apply`]): the step dt (s), the
/// fraction `beta` of an overlap beyond `slop` (m) pushed out, and
/// `iterations` Jacobi iterations relaxed by `omega`.
#[derive(Debug, Clone, Copy)]
pub struct PushOut {
    pub dt: f32,
    pub beta: f32,
    pub slop: f32,
    pub omega: f32,
    pub iterations: u32,
}

/// Scratch of the correction, kept between steps.
#[derive(Debug, Clone, Default)]
pub struct Correction<S: Space = Dim2> {
    slots: Vec<Contact<S>>,
    zero: Vec<S::Vec>,
    /// Pseudo-velocity of each grain, m/s: the correction moves it dt w.
    pub shift: Vec<S::Vec>,
    /// The sparse iterations' grain sets ([`Correction::apply`]).
    seen: Vec<bool>,
    active: Vec<u32>,
    next: Vec<u32>,
}

impl<S: Space> Correction<S> {
    /// Push out overlaps deeper than `slop` by a fraction `beta` with
    /// `iterations` Jacobi iterations (relaxation `omega`), then move the
    /// grains: pos += dt w. Velocities are left as they are.
    pub fn apply(
        &mut self,
        lists: &ContactLists<S>,
        inv_mass: &[f32],
        vel: &[S::Vec],
        pos: &mut [S::Vec],
        push: &PushOut,
    ) {
        let n = pos.len();
        if push.iterations == 0 || push.beta == 0.0 || n == 0 {
            return;
        }
        let (count, slots, capacity) = (&lists.count, &lists.slots, lists.capacity);
        if !count.iter().any(|&c| c as usize > capacity) {
            self.apply_near(lists, inv_mass, vel, pos, push);
            return;
        }
        let PushOut {
            dt,
            beta,
            slop,
            omega,
            iterations,
        } = *push;
        // Only an overlap deeper than the slop pushes: with none left after the
        // step, every pseudo-velocity stays 0 and the grains would not move;
        // most steps of a flow have none (docs/solvers.md#why-the-cpu-constants).
        if !deeper_than(count, slots, capacity, vel, dt, slop) {
            return;
        }
        predict_gap(count, slots, capacity, vel, dt, &mut self.slots);
        self.zero.clear();
        self.zero.resize(n, S::Vec::default());
        self.shift.clear();
        self.shift.resize(n, S::Vec::default());
        let how = Projection {
            inv_dt: 1.0 / dt,
            beta,
            slop,
            omega,
        };
        let zero = Free {
            vel: &self.zero,
            inv_mass,
            spin: &[],
            radius: &[],
        };
        for _ in 0..iterations {
            let r = jacobi_contact::<S, false>(count, &mut self.slots, capacity, &self.shift, &Friction::none(), &how);
            let out = Moving {
                vel: &mut self.shift,
                spin: &mut [],
            };
            jacobi_gather::<_, false>(count, &self.slots, capacity, &zero, out);
            if r == 0.0 {
                break;
            }
        }
        super::integrate::integrate::<S>(pos, &self.shift, dt);
    }

    /// [`Correction::apply`] on the grains the push-out reaches, with the
    /// same result bit for bit. A contact holds no impulse and moves no grain
    /// unless it is deeper than the slop or one of its grains moved; so
    /// iteration k only needs the grains owning a deep contact and those
    /// within one contact of a grain that holds an impulse after iteration
    /// k - 1, and every other grain keeps a zero impulse and shift (the
    /// per-grain arithmetic is `jacobi_contact`'s and `jacobi_gather`'s).
    /// The neighbours come from each grain's own list, so a list that
    /// overflowed (its contacts no longer symmetric) takes the full pass.
    /// With no contact deeper than the slop nothing moves (the scan for them
    /// is the only pass over every contact). Figures:
    /// docs/solvers.md#why-the-cpu-constants.
    fn apply_near(
        &mut self,
        lists: &ContactLists<S>,
        inv_mass: &[f32],
        vel: &[S::Vec],
        pos: &mut [S::Vec],
        push: &PushOut,
    ) {
        let deep = deep_grains(lists, vel, push);
        if deep.is_empty() {
            return;
        }
        let n = pos.len();
        self.slots.resize(lists.slots.len(), Contact::default());
        self.shift.clear();
        self.shift.resize(n, S::Vec::default());
        self.seen.clear();
        self.seen.resize(n, false);
        // Rows of the copy are predicted when their grain first joins.
        let mut copied = std::mem::take(&mut self.seen);
        self.active.clear();
        self.active.extend_from_slice(&deep);
        let mut moved = Vec::new();
        for _ in 0..push.iterations {
            self.copy_rows(lists, vel, push.dt, &mut copied, &mut moved);
            let r = self.project_active(lists, inv_mass, push);
            if r == 0.0 {
                break;
            }
            self.next_active(lists, &deep);
        }
        let dt = push.dt;
        for &i in &moved {
            let i = i as usize;
            pos[i] = S::zip(pos[i], self.shift[i], |x, w| x + dt * w);
        }
        self.seen = copied;
    }

    /// Copy (stage `predict_gap`) the rows of the active grains that are
    /// not `copied` yet, marking them there and listing them in `moved`
    /// ([`Correction::apply_near`]).
    fn copy_rows(
        &mut self,
        lists: &ContactLists<S>,
        vel: &[S::Vec],
        dt: f32,
        copied: &mut [bool],
        moved: &mut Vec<u32>,
    ) {
        let k = lists.capacity;
        for &i in self.active.iter() {
            let i = i as usize;
            if !copied[i] {
                copied[i] = true;
                moved.push(i as u32);
                for (s, c) in row(lists, i).iter().enumerate() {
                    self.slots[i * k + s] = predicted(c, i, vel, dt);
                }
            }
        }
    }

    /// One Jacobi iteration on the active grains ([`Correction::apply_near`]):
    /// `jacobi_contact` from the last shifts, then `jacobi_gather` on the
    /// same grains (the others hold no impulse). Returns the largest correction.
    fn project_active(&mut self, lists: &ContactLists<S>, inv_mass: &[f32], push: &PushOut) -> f32 {
        let (k, count) = (lists.capacity, &lists.count);
        let inv_dt = 1.0 / push.dt;
        let mut r = 0.0f32;
        for &i in self.active.iter() {
            let i = i as usize;
            for c in &mut self.slots[i * k..i * k + count[i] as usize] {
                r = r.max(project(i, c, &self.shift, inv_dt, push.beta, push.slop, push.omega));
            }
        }
        for &i in self.active.iter() {
            let i = i as usize;
            self.shift[i] = gathered(
                &self.slots[i * k..i * k + count[i] as usize],
                S::Vec::default(),
                inv_mass[i],
            );
        }
        r
    }

    /// The next iteration's active grains ([`Correction::apply_near`]): the
    /// `deep` grains and every grain within one contact of a grain holding
    /// an impulse, sorted, each once.
    fn next_active(&mut self, lists: &ContactLists<S>, deep: &[u32]) {
        let (k, count) = (lists.capacity, &lists.count);
        let (active, next) = (&mut self.active, &mut self.next);
        next.clear();
        next.extend_from_slice(deep);
        for &i in active.iter() {
            let i = i as usize;
            let row = &self.slots[i * k..i * k + count[i] as usize];
            if row.iter().any(|c| c.impulse != 0.0) {
                next.push(i as u32);
                next.extend(row.iter().filter_map(|c| match c.body() {
                    crate::model::Body::Grain(j) => Some(j),
                    _ => None,
                }));
            }
        }
        next.sort_unstable();
        next.dedup();
        std::mem::swap(active, next);
    }
}

/// Grain i's list in `lists` (none of which overflowed).
#[inline]
fn row<S: Space>(lists: &ContactLists<S>, i: usize) -> &[Contact<S>] {
    let k = lists.capacity;
    &lists.slots[i * k..i * k + lists.count[i] as usize]
}

/// The grains owning a contact whose predicted gap (stage `predict_gap`)
/// is below -slop, in grain order ([`Correction::apply_near`]).
fn deep_grains<S: Space>(lists: &ContactLists<S>, vel: &[S::Vec], push: &PushOut) -> Vec<u32> {
    let (dt, slop) = (push.dt, push.slop);
    (0..vel.len() as u32)
        .into_par_iter()
        .with_min_len(super::PAR_MIN)
        .filter(|&i| {
            let i = i as usize;
            row(lists, i).iter().any(|c| predicted(c, i, vel, dt).gap < -slop)
        })
        .collect()
}
