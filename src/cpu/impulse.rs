//! The impulse model with restitution and position projection (docs/lab.md),
//! CPU only, in the plane and in 3D (`ImpulseStepper<Dim3>`: the same
//! formulas with three coordinates). A contact of grain a with body b (n from b to a, gap d, overlap
//! dx = -d, m_ab^-1 = im_a + im_b, v_n = (v_a - v_b) . n; a wall has im_b = 0
//! and v_b its velocity at the contact, `Contact::wall_vel`, so that a grain
//! leaves a moving wall at -e times the normal speed it met it with, relative
//! to the wall):
//!
//! ```text
//!   only if dx > 0 and v_n < 0 (overlapping AND approaching):
//!     j = -(1 + e) v_n / m_ab^-1;   v_a += j im_a n;   v_b -= j im_b n
//!   every overlapping contact, from the overlap the detection measured:
//!     x_a += k_p (im_a / m_ab^-1) dx n;   x_b -= k_p (im_b / m_ab^-1) dx n
//! ```
//! A separating pair is never flipped back: a pair that moves apart inside an
//! overlap keeps its velocities and only the projection moves it. Impulses
//! are applied in one sequential sweep over the contacts (each pair once, in
//! grain order), so each sees the velocities the previous ones left; the
//! projections are summed over a grain's contacts (Jacobi) and applied at once.
//!
//! # One step
//! ```text
//!   semi-implicit Euler:        detect(x_n);  v += h g;  impulses;  project;  x += h v
//!   leapfrog / velocity Verlet: detect(x_n);  impulses;  project;  v += h/2 g;  x += h v;  v += h/2 g
//! ```
//! Under constant gravity, KDK is exact at full steps (1/2 v^2 + g y is kept),
//! and its impulses act on the full-step velocity v_n, which belongs to the
//! same instant as x_n: a reflection with e = 1 then keeps |v| at a fixed
//! height, so the energy is kept. Semi-implicit Euler's reflected velocity
//! v_n - g h is half a step of gravity ahead of its x_n (it keeps
//! E - m g h v_y / 2 in flight instead of E), and a reflection of -V raises
//! that kept quantity by m g h V: the ball gains about h V / H of its energy
//! per bounce (tests/lab_models.rs measures +38% over 100 bounces).

use super::detect::{self, Detect};
use super::grid::Bins;
use crate::model::space::{Dim2, Space};
use crate::model::{Body, Contact, ContactLists, Grains, Grid, ImpulseParams, StepParams, StepStats};

/// Scratch state of the impulse stepper: bins, contact lists, the
/// projection sums; in the space `S` (the plane by default).
#[derive(Debug, Clone)]
pub struct ImpulseStepper<S: Detect = Dim2> {
    pub grid: Grid<S>,
    pub bins: Bins,
    pub lists: ContactLists<S>,
    pub params: ImpulseParams,
    shift: Vec<S::Vec>,
    /// The tally of the last detection (the step's contact statistics).
    tally: detect::Tally,
}

/// What one sweep of impulses did (for tests and diagnostics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied {
    /// Grain-grain impulses.
    pub grain: u32,
    /// Grain-wall impulses.
    pub wall: u32,
}

impl<S: Detect> ImpulseStepper<S> {
    pub fn new(grid: Grid<S>, capacity: usize, params: ImpulseParams) -> Self {
        ImpulseStepper {
            grid,
            bins: Bins::default(),
            lists: ContactLists::new(0, capacity),
            params,
            shift: Vec::new(),
            tally: detect::Tally::default(),
        }
    }

    /// Binning and detection at the current positions.
    pub fn detect(&mut self, grains: &Grains<S>, walls: &S::Walls, alert: f32) {
        self.tally = detect::bin_and_detect(&self.grid, &mut self.bins, grains, walls, alert, &mut self.lists);
    }

    /// One step of `self.params.integrator` (see the module doc).
    pub fn step(&mut self, grains: &mut Grains<S>, walls: &S::Walls, p: &StepParams) -> StepStats {
        self.detect(grains, walls, p.alert);
        let (h, g) = (p.dt, S::in_plane(p.gravity));
        let kick = |grains: &mut Grains<S>, h: f32| {
            for (v, &im) in grains.vel.iter_mut().zip(&grains.inv_mass) {
                if im > 0.0 {
                    for k in 0..S::DIM {
                        v[k] += h * g[k];
                    }
                }
            }
        };
        let grid = self.grid;
        let drift = |grains: &mut Grains<S>| {
            for (x, v) in grains.pos.iter_mut().zip(&grains.vel) {
                for k in 0..S::DIM {
                    x[k] += h * v[k];
                }
            }
            super::integrate::wrap(&grid, &mut grains.pos);
        };
        if self.params.integrator.kdk() {
            self.impulses(grains);
            self.project(grains);
            kick(grains, 0.5 * h);
            drift(grains);
            kick(grains, 0.5 * h);
        } else {
            kick(grains, h);
            self.impulses(grains);
            self.project(grains);
            drift(grains);
        }
        let vmax = grains.max_speed();
        let tally = self.tally;
        StepStats {
            converged: true,
            contacts: tally.contacts,
            overflow: tally.overflow,
            max_displacement: vmax * p.dt,
            max_overlap: tally.max_overlap,
            ..StepStats::default()
        }
    }

    /// One sequential sweep of restitution impulses over the listed contacts
    /// that overlap and approach.
    pub fn impulses(&self, grains: &mut Grains<S>) -> Applied {
        let e = self.params.e;
        let mut applied = Applied::default();
        for Overlap { i, j, c, im_a, im_b, w } in overlaps(&self.lists, &grains.inv_mass) {
            let v_b = j.map_or(c.wall_vel, |j| grains.vel[j]);
            let v_a = grains.vel[i];
            let n = c.normal;
            let v_n = S::dot(S::sub(v_a, v_b), n);
            if v_n >= 0.0 {
                continue;
            }
            let imp = -(1.0 + e) * v_n / w;
            grains.vel[i] = S::zip(v_a, n, |v, n| v + imp * im_a * n);
            if let Some(j) = j {
                grains.vel[j] = S::zip(v_b, n, |v, n| v - imp * im_b * n);
                applied.grain += 1;
            } else {
                applied.wall += 1;
            }
        }
        applied
    }

    /// The position projection of every overlapping contact, from the
    /// overlaps the detection measured (summed per grain, then applied).
    pub fn project(&mut self, grains: &mut Grains<S>) {
        let kp = self.params.kp;
        if kp <= 0.0 {
            return;
        }
        let n_grains = self.lists.grains().min(grains.len());
        self.shift.clear();
        self.shift.resize(n_grains, S::Vec::default());
        for Overlap { i, j, c, im_a, im_b, w } in overlaps(&self.lists, &grains.inv_mass) {
            let (n, dx) = (c.normal, -c.gap);
            let (sa, sb) = (kp * im_a / w * dx, kp * im_b / w * dx);
            for k in 0..S::DIM {
                self.shift[i][k] += sa * n[k];
            }
            if let Some(j) = j {
                for k in 0..S::DIM {
                    self.shift[j][k] -= sb * n[k];
                }
            }
        }
        for (x, s) in grains.pos.iter_mut().zip(&self.shift) {
            for k in 0..S::DIM {
                x[k] += s[k];
            }
        }
    }
}

/// An overlapping contact the impulse model acts on: grain `i`, the other
/// grain `j` (None for a wall), the inverse masses and their sum `w` > 0.
struct Overlap<'a, S: Space> {
    i: usize,
    j: Option<usize>,
    c: &'a Contact<S>,
    im_a: f32,
    im_b: f32,
    w: f32,
}

/// Every listed contact with a negative gap once (a grain pair from its
/// lower index), in list order, skipping pairs of two fixed grains (w = 0).
fn overlaps<'a, S: Space>(
    lists: &'a ContactLists<S>,
    inv_mass: &'a [f32],
) -> impl Iterator<Item = Overlap<'a, S>> + 'a {
    (0..lists.grains().min(inv_mass.len())).flat_map(move |i| {
        lists.of(i).iter().filter_map(move |c| {
            let j = match c.body() {
                Body::Grain(j) if (j as usize) <= i => return None,
                Body::Grain(j) => Some(j as usize),
                Body::Segment(_) | Body::Corner(_) => None,
            };
            let im_a = inv_mass[i];
            let im_b = j.map_or(0.0, |j| inv_mass[j]);
            let w = im_a + im_b;
            (c.gap < 0.0 && w > 0.0).then_some(Overlap { i, j, c, im_a, im_b, w })
        })
    })
}
