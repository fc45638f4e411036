//! The acting set of an NLGS solve ([`Sweep::solve`]): the contacts sorted
//! into those that can act and the idle ones, the idle ones' probes, and
//! the acting ones split for two threads.

use rayon::prelude::*;

use super::{SolveScratch, Sweep, Visit};
use crate::model::{Body, Contact, dot, sub};

impl Sweep {
    /// Sort the contacts into those that can act and the idle ones (with
    /// their probes), each in sweep order ([`Sweep::solve`]): a contact acts
    /// when it holds an impulse or its gap is not predicted open by more
    /// than `reach` at the warm-started velocities. Blocks of
    /// [`CLASSIFY_BLOCK`] contacts run on rayon and are concatenated in
    /// order (on one thread this took 0.54 ms of a 10.9 ms step at 10,000
    /// grains).
    /// The sets go into `out`'s acting, idle and probe lists.
    pub(super) fn classify(
        &self,
        slots: &[Contact],
        vel: &[[f32; 2]],
        how: &Visit,
        reach: f32,
        out: &mut SolveScratch,
    ) {
        let SolveScratch {
            acting,
            idle,
            probes,
            classes,
            ..
        } = out;
        let probes = &mut probes.list;
        let dt = 1.0 / how.inv_dt;
        let block = |range: std::ops::Range<usize>, out: &mut Class| {
            for k in range {
                let c = &slots[self.slot[k] as usize];
                let vb = match c.body() {
                    Body::Grain(j) => vel[j as usize],
                    _ => [0.0, 0.0],
                };
                let u = dot(sub(vel[self.grain[k] as usize], vb), c.normal);
                if c.impulse > 0.0 || c.target(u, how.inv_dt, how.beta, how.slop) * dt < reach {
                    out.acting.push(k as u32);
                } else {
                    out.idle.push(k as u32);
                    out.probes.push(Probe::of(c, self.grain[k], how));
                }
            }
        };
        let n = self.len();
        classes.resize_with(n.div_ceil(CLASSIFY_BLOCK).max(1), Class::default);
        classes.par_iter_mut().enumerate().for_each(|(b, out)| {
            out.acting.clear();
            out.idle.clear();
            out.probes.clear();
            block(b * CLASSIFY_BLOCK..((b + 1) * CLASSIFY_BLOCK).min(n), out);
        });
        acting.clear();
        idle.clear();
        probes.clear();
        for part in classes.iter() {
            acting.extend_from_slice(&part.acting);
            idle.extend_from_slice(&part.idle);
            probes.extend_from_slice(&part.probes);
        }
    }
}

/// The acting and idle contacts of one block of sweep indices ([`Sweep::classify`]).
#[derive(Debug, Clone, Default)]
pub(super) struct Class {
    acting: Vec<u32>,
    idle: Vec<u32>,
    probes: Vec<Probe>,
}

/// Contacts per rayon task of [`Sweep::classify`]; under two blocks it runs on one thread.
const CLASSIFY_BLOCK: usize = 4096;

/// The idle contacts of a frictionless solve, packed for the periodic check
/// ([`Sweep::solve`]): grains `a` and `b` (`b` = [`Sweep::NO_MIRROR`] for a
/// wall or corner), the normal and the velocity-free part of the target, as
/// the packed acting contacts hold them. An idle contact holds no impulse, so
/// a visit gives it one exactly when its target u + offset is negative: the
/// check screens them all for that, on both threads, reading 20 contiguous
/// bytes a contact, and visits them in order only when one is found
/// (docs/solvers.md#why-the-cpu-constants).
#[derive(Debug, Clone, Default)]
pub(super) struct Probes {
    pub(super) list: Vec<Probe>,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Probe {
    a: u32,
    b: u32,
    normal: [f32; 2],
    offset: f32,
}

impl Probe {
    pub(super) fn of(c: &Contact, a: u32, how: &Visit) -> Probe {
        Probe {
            a,
            b: match c.body() {
                Body::Grain(j) => j,
                _ => Sweep::NO_MIRROR,
            },
            normal: c.normal,
            // Contact::target is u + offset (u - bounce for a bounce).
            offset: c.target(0.0, how.inv_dt, how.beta, how.slop),
        }
    }
}

/// Idle contacts screened per rayon task.
const PROBE_CHUNK: usize = 4096;

impl Probes {
    pub(super) fn build(&mut self, sweep: &Sweep, idle: &[u32], slots: &[Contact], how: &Visit) {
        self.list.clear();
        let of = |&k: &u32| Probe::of(&slots[sweep.slot[k as usize] as usize], sweep.grain[k as usize], how);
        self.list.extend(idle.iter().map(of));
    }

    /// Whether some idle contact's target is negative at `vel`.
    pub(super) fn any_closing(&self, vel: &[[f32; 2]]) -> bool {
        use rayon::prelude::*;
        let closing = |p: &Probe| {
            let vb = if p.b == Sweep::NO_MIRROR {
                [0.0, 0.0]
            } else {
                vel[p.b as usize]
            };
            dot(sub(vel[p.a as usize], vb), p.normal) + p.offset < 0.0
        };
        self.list.par_chunks(PROBE_CHUNK).any(|ch| ch.iter().any(closing))
    }
}

/// The acting contacts split for two threads: grains below index `mid` and
/// from `mid` on (the CPU backend keeps grains in cell order, so the halves
/// are the lower and upper part of the pile), the contacts within each half
/// and those across. `mid` = 0: one pass in sweep order (few contacts). The
/// order (both halves, then across) does not depend on the thread count, so
/// results are the same on one core.
#[derive(Debug, Clone, Default)]
pub(super) struct Split {
    pub(super) mid: usize,
    pub(super) lower: Vec<u32>,
    pub(super) upper: Vec<u32>,
    pub(super) across: Vec<u32>,
}

impl Split {
    pub(super) fn build(&mut self, sweep: &Sweep, acting: &[u32], grains: usize, par_min: usize) {
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
