//! The lab's contact figures (docs/lab.md), found on the host from the grains
//! as every backend hands them over, so the CPU and the GPU are counted by
//! the same code (the GPU's `reduce` has no word for them):
//!
//! ```text
//!   touching      = { pairs with gap < touch }  found by one CPU binning and a
//!                   detection with alert `touch`: 0 for the soft models (a
//!                   contact is an overlap), the solver's geometric tolerance
//!                   `solver.tol` for NSCD (rigid contacts close to gap 0 within
//!                   it, from either side); a grain-grain pair keyed by its
//!                   two ids (once), a grain-wall pair by the grain's id and
//!                   the segment or corner
//!   new contacts  = | touching(step) \ touching(step - 1) |, counted every
//!                   step, grain-grain and grain-wall apart
//!   elastic       = sum over touching pairs of the model's contact potential:
//!                   NSCD and impulses 0 (rigid), DEM Hertz 2/5 k_n dx^2.5,
//!                   linear spring 1/2 k_s dx^2 (dx = -gap)
//! ```
//!
//! Cost: on the GPU one read-back of the grains per step. The touching
//! pairs of a step are found on neighbour lists with a skin
//! (`cpu::dem::neighbours`, the DEM's, listing grains within `touch` + skin):
//! each step computes the listed gaps, and binning and listing run again
//! only once a grain has moved half the skin, so a step costs a few gaps a
//! grain and a sort of the touching keys. [`Census::lists`], for the
//! overlaps at a row, runs the detection itself.

use crate::cpu::dem::neighbours::Neighbours;
use crate::cpu::detect::{Detect, TOUCHING_START_CAPACITY, corner_gap, detect_growing, grain_gap_in, segment_gap};
use crate::cpu::grid::Bins;
use crate::model::{Body, ContactLists, Dim2, Grains, Grid, Space, Walls};

/// A census of what touches, in one space: the plane's on the DEM's
/// neighbour lists ([`Census`]), 3D's on a detection at every look
/// ([`DetectCensus`]); both count the same pairs by the same keys.
pub trait Look<S: Space>: Send {
    /// Look at `grains` (after a step): count the pairs touching now that
    /// did not at the last look, and return what touches now. The first
    /// look (the start state) counts nothing as new.
    fn look(&mut self, grains: &Grains<S>, walls: &S::Walls, first: bool) -> Touching;
    /// The pairs of the last look, `grains` and `walls` being the ones it
    /// looked at, grain by grain: every pair closer than the touch distance
    /// is listed, and some farther ones may be.
    fn lists(&mut self, grains: &Grains<S>, walls: &S::Walls) -> &ContactLists<S>;
    /// The new contacts counted since the last take (grain-grain, grain-wall), reset to 0.
    fn take(&mut self) -> (u64, u64);
}

/// The keys of `now` (sorted) not in `before` (sorted), grain-grain and
/// grain-wall: the new contacts of a look.
fn new_keys(before: &[(Key, f64)], now: &[(Key, f64)]) -> (u64, u64) {
    let (mut grain, mut wall) = (0, 0);
    // Both sorted: one merge walk finds the keys of `now` not in `before`.
    let mut before = before.iter().map(|e| &e.0).peekable();
    for (key, _) in now {
        while before.next_if(|b| *b < key).is_some() {}
        if before.next_if_eq(&key).is_none() {
            if key.2 == GRAIN {
                grain += 1;
            } else {
                wall += 1;
            }
        }
    }
    (grain, wall)
}

/// [`Look`] by a detection at the touch distance at every look (the space's
/// own: grains, and walls as [`Detect`] finds them), a grain-grain pair
/// keyed once by its two ids, a grain-wall pair by the grain's id and the
/// wall body (`Body::Segment` or `Body::Corner`, with its index).
#[derive(Debug, Clone)]
pub struct DetectCensus<S: Space> {
    grid: Grid<S>,
    bins: Bins,
    lists: ContactLists<S>,
    capacity: usize,
    elastic: Elastic,
    touch: f32,
    before: Vec<(Key, f64)>,
    now: Vec<(Key, f64)>,
    new_grain: u64,
    new_wall: u64,
}

impl<S: Space> DetectCensus<S> {
    /// A census of pairs closer than `touch` (m, >= 0), in lists of up to
    /// `capacity` slots per grain.
    pub fn new(grid: Grid<S>, capacity: usize, elastic: Elastic, touch: f32) -> Self {
        DetectCensus {
            grid,
            bins: Bins::default(),
            lists: ContactLists::new(0, capacity.min(TOUCHING_START_CAPACITY)),
            capacity,
            elastic,
            touch,
            before: Vec::new(),
            now: Vec::new(),
            new_grain: 0,
            new_wall: 0,
        }
    }
}

impl<S: Detect> Look<S> for DetectCensus<S> {
    fn look(&mut self, grains: &Grains<S>, walls: &S::Walls, first: bool) -> Touching {
        let (grid, bins, lists) = (&self.grid, &mut self.bins, &mut self.lists);
        detect_growing(grid, bins, grains, walls, self.touch, lists, self.capacity);
        self.now.clear();
        for i in 0..grains.len() {
            let a = grains.id[i];
            for c in self.lists.of(i) {
                if c.gap >= self.touch {
                    continue;
                }
                let key = match c.body() {
                    Body::Grain(j) => {
                        let b = grains.id[j as usize];
                        (a.min(b), a.max(b), GRAIN)
                    }
                    Body::Segment(k) => (a, k, SEGMENT),
                    Body::Corner(k) => (a, k, CORNER),
                };
                let energy = if c.gap < 0.0 {
                    self.elastic.energy(f64::from(-c.gap))
                } else {
                    0.0
                };
                self.now.push((key, energy));
            }
        }
        self.now.sort_unstable_by_key(|e| e.0);
        // A grain-grain pair is listed by both its grains.
        self.now.dedup_by_key(|e| e.0);
        let mut t = Touching {
            elastic_energy: self.now.iter().fold(0.0, |sum, e| sum + e.1),
            ..Touching::default()
        };
        for (key, _) in &self.now {
            if key.2 == GRAIN {
                t.grain_pairs += 1;
            } else {
                t.wall_pairs += 1;
            }
        }
        if !first {
            let (grain, wall) = new_keys(&self.before, &self.now);
            self.new_grain += grain;
            self.new_wall += wall;
        }
        std::mem::swap(&mut self.before, &mut self.now);
        t
    }

    fn lists(&mut self, _grains: &Grains<S>, _walls: &S::Walls) -> &ContactLists<S> {
        &self.lists
    }

    fn take(&mut self) -> (u64, u64) {
        let counts = (self.new_grain, self.new_wall);
        self.new_grain = 0;
        self.new_wall = 0;
        counts
    }
}

/// The elastic potential of one contact of the running model.
///
/// `sim` picks it from the solver: Hertz for the DEM, `Spring { ks }` for
/// the linear spring model (docs/lab.md), rigid for NSCD and the impulse
/// model (whose projection moves grains and stores nothing).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Elastic {
    /// Rigid contacts (NSCD, impulses): no stored energy.
    Rigid,
    /// Hertz (DEM, docs/dem.md): F = k_n dx^1.5, energy 2/5 k_n dx^2.5; k_n in N/m^2.5.
    Hertz { kn: f64 },
    /// Linear spring: F = k_s dx, energy 1/2 k_s dx^2; k_s in N/m.
    Spring { ks: f64 },
}

impl Elastic {
    /// Energy stored in a contact of overlap `dx` (m, > 0), J (per unit thickness).
    pub fn energy(self, dx: f64) -> f64 {
        match self {
            Elastic::Rigid => 0.0,
            Elastic::Hertz { kn } => 0.4 * kn * dx * dx * dx.sqrt(),
            Elastic::Spring { ks } => 0.5 * ks * dx * dx,
        }
    }
}

/// What touches at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Touching {
    /// Touching grain-grain pairs.
    pub grain_pairs: u64,
    /// Touching grain-wall (segment or corner) pairs.
    pub wall_pairs: u64,
    /// Energy stored in them, J.
    pub elastic_energy: f64,
}

/// A pair's key: the grain's id, the other body (a grain's id, or a segment
/// or corner index tagged by kind).
type Key = (u32, u32, u8);

const GRAIN: u8 = 0;
const SEGMENT: u8 = 1;
const CORNER: u8 = 2;

/// Counts new contacts step by step.
#[derive(Debug, Clone)]
pub struct Census {
    grid: Grid,
    bins: Bins,
    lists: ContactLists,
    /// The slots per grain `lists` may grow to.
    capacity: usize,
    elastic: Elastic,
    /// Pairs closer than this touch, m.
    touch: f32,
    /// The lists the looks run on.
    near: Neighbours,
    /// `lists` predates the last look.
    stale: bool,
    /// The keys touching at the last look, sorted, each with its elastic
    /// energy (J).
    before: Vec<(Key, f64)>,
    now: Vec<(Key, f64)>,
    /// New contacts since the last [`Census::take`]: grain-grain, grain-wall.
    pub new_grain: u64,
    pub new_wall: u64,
}

impl Census {
    /// A census of pairs closer than `touch` (m, >= 0), in lists of up to
    /// `capacity` slots per grain.
    pub fn new(grid: Grid, capacity: usize, elastic: Elastic, touch: f32) -> Self {
        Census {
            touch,
            grid,
            bins: Bins::default(),
            lists: ContactLists::new(0, capacity.min(TOUCHING_START_CAPACITY)),
            capacity,
            elastic,
            near: Neighbours::within(touch),
            stale: true,
            before: Vec::new(),
            now: Vec::new(),
            new_grain: 0,
            new_wall: 0,
        }
    }

    /// Look at `grains` (after a step): count the pairs touching now that
    /// did not at the last look, and return what touches now. The first
    /// look (the start state) counts nothing as new.
    pub fn look(&mut self, grains: &Grains, walls: &Walls, first: bool) -> Touching {
        let touch = self.touch;
        self.near.update(&self.grid, grains, walls, touch);
        self.stale = true;
        let mut t = Touching::default();
        self.now.clear();
        for i in 0..grains.len() {
            let (a, x, r) = (grains.id[i], grains.pos[i], grains.radius[i]);
            for &code in self.near.of(i) {
                // The detection's rules at alert `touch`, then its gap against `touch`.
                let (key, gap) = match Body::decode(code) {
                    Body::Grain(j) => {
                        let j = j as usize;
                        let (_, gap) = grain_gap_in(&self.grid, (x, r), (grains.pos[j], grains.radius[j]), true);
                        let b = grains.id[j];
                        ((a.min(b), a.max(b), GRAIN), gap)
                    }
                    Body::Segment(k) => match segment_gap(&walls.segments[k as usize], x, r) {
                        Some((_, gap, reach)) if reach < touch => ((a, k, SEGMENT), gap),
                        _ => continue,
                    },
                    Body::Corner(k) => match corner_gap(&walls.corners[k as usize], x, r) {
                        Some((_, gap)) => ((a, k, CORNER), gap),
                        None => continue,
                    },
                };
                if gap >= touch {
                    continue;
                }
                if key.2 == GRAIN {
                    t.grain_pairs += 1;
                } else {
                    t.wall_pairs += 1;
                }
                let energy = if gap < 0.0 {
                    self.elastic.energy(f64::from(-gap))
                } else {
                    0.0
                };
                self.now.push((key, energy));
            }
        }
        // In key order, so that the energy's sum does not depend on the order
        // of the lists (where they were last built).
        self.now.sort_unstable_by_key(|e| e.0);
        t.elastic_energy = self.now.iter().fold(0.0, |sum, e| sum + e.1);
        if !first {
            let (grain, wall) = new_keys(&self.before, &self.now);
            self.new_grain += grain;
            self.new_wall += wall;
        }
        std::mem::swap(&mut self.before, &mut self.now);
        t
    }

    /// The pairs of the last look, `grains` and `walls` being the ones it
    /// looked at, grain by grain: every pair closer than the touch distance
    /// is listed (the lists grow as needed), and some farther ones may be.
    pub fn lists(&mut self, grains: &Grains, walls: &Walls) -> &ContactLists {
        if self.stale {
            let (grid, bins, lists) = (&self.grid, &mut self.bins, &mut self.lists);
            detect_growing(grid, bins, grains, walls, self.touch, lists, self.capacity);
            self.stale = false;
        }
        &self.lists
    }

    /// The new contacts counted since the last take (grain-grain, grain-wall), reset to 0.
    pub fn take(&mut self) -> (u64, u64) {
        let counts = (self.new_grain, self.new_wall);
        self.new_grain = 0;
        self.new_wall = 0;
        counts
    }
}

impl Look<Dim2> for Census {
    fn look(&mut self, grains: &Grains, walls: &Walls, first: bool) -> Touching {
        Census::look(self, grains, walls, first)
    }
    fn lists(&mut self, grains: &Grains, walls: &Walls) -> &ContactLists {
        Census::lists(self, grains, walls)
    }
    fn take(&mut self) -> (u64, u64) {
        Census::take(self)
    }
}

/// Mass-weighted centre of the moving grains (inverse mass > 0), m (z 0
/// in the plane); the origin without any.
pub fn barycentre<S: Space>(grains: &Grains<S>) -> [f64; 3] {
    let (mut m, mut x) = (0.0, [0.0; 3]);
    for i in (0..grains.len()).filter(|&i| grains.inv_mass[i] > 0.0) {
        let mi = grains.mass(i);
        m += mi;
        for (k, x) in x.iter_mut().enumerate().take(S::DIM) {
            *x += mi * f64::from(grains.pos[i][k]);
        }
    }
    if m > 0.0 { x.map(|x| x / m) } else { [0.0; 3] }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        Grid::covering([-1.0, -1.0, 1.0, 1.0], 0.1).unwrap()
    }

    #[test]
    fn hertz_and_spring_energies_of_one_overlap() {
        // dx = 0.01: 2/5 1e5 1e-5 = 0.4; 1/2 4000 1e-4 = 0.2.
        assert!((Elastic::Hertz { kn: 1e5 }.energy(0.01) - 0.4).abs() < 1e-12);
        assert!((Elastic::Spring { ks: 4000.0 }.energy(0.01) - 0.2).abs() < 1e-12);
        assert_eq!(Elastic::Rigid.energy(0.01), 0.0);
    }

    #[test]
    fn new_contacts_are_counted_once_per_pair_and_apart_for_walls() {
        // A floor y = 0 from x = -0.5 to 0.5. Grains of radius 0.01 (ids 0, 1, 2).
        let walls = Walls::new(&[[[-0.5, 0.0], [0.5, 0.0]]]);
        let apart = vec![[0.0, 0.2], [0.1, 0.2], [0.3, 0.2]];
        let mut g = Grains::new(apart.clone(), vec![[0.0; 2]; 3], vec![0.01; 3], 1.0);
        let mut c = Census::new(grid(), 8, Elastic::Hertz { kn: 1e5 }, 0.0);
        assert_eq!(c.look(&g, &walls, true), Touching::default());
        // Grains 0 and 1 overlap by 0.001; grain 2 sinks 0.002 into the floor.
        g.pos = vec![[0.0, 0.2], [0.019, 0.2], [0.3, 0.008]];
        let t = c.look(&g, &walls, false);
        assert_eq!((t.grain_pairs, t.wall_pairs), (1, 1));
        let want = 0.4 * 1e5 * (1e-3f64.powf(2.5) + 2e-3f64.powf(2.5));
        assert!(
            (t.elastic_energy - want).abs() < 1e-3 * want,
            "{} {want}",
            t.elastic_energy
        );
        // Still touching at the next step: nothing new.
        c.look(&g, &walls, false);
        assert_eq!(c.take(), (1, 1));
        assert_eq!(c.take(), (0, 0));
        // Apart, then touching again: counted again; the order of the grains does not matter.
        g.pos = apart;
        c.look(&g, &walls, false);
        g.pos = vec![[0.3, 0.008], [0.019, 0.2], [0.0, 0.2]];
        g.id = vec![2, 1, 0];
        c.look(&g, &walls, false);
        assert_eq!(c.take(), (1, 1));
    }

    #[test]
    fn barycentre_is_mass_weighted_over_moving_grains() {
        let mut g = Grains::new(
            vec![[0.0, 0.0], [3.0, 6.0], [100.0, 100.0]],
            vec![[0.0; 2]; 3],
            vec![1.0; 3],
            1.0,
        );
        g.inv_mass = vec![1.0, 0.5, 0.0];
        assert_eq!(barycentre(&g), [2.0, 4.0, 0.0]);
        assert_eq!(barycentre(&Grains::<crate::model::Dim2>::default()), [0.0; 3]);
    }
}
