//! What a backend starts from: the grid every backend bins into
//! ([`grid_for`]), the initial state ([`Start`]), and the check that an
//! explicit grain list starts inside the scene's bounds and without overlaps
//! ([`check_initial_state`]: a grid pass that stops at the first pair of
//! overlapping grains, then a contact detection on the CPU for the walls).

use crate::cpu::CpuStepper;
use crate::error::{Error, Result};
use crate::model::{Body, DemParams, Dim2, Grains, Grid, ImpulseParams, SolverKind, Space};
use crate::scene::Setup;
use crate::scene::bounds::BoundsRule;

/// The grid every backend bins into: covers the walls, the initial grains and
/// the emitters' grains, cells of side 2 r_max + alert; with periodic
/// boundaries (`walls.periodic_x`) it spans the period along x
/// (`Grid::periodic_x`).
pub fn grid_for(setup: &Setup) -> Result<Grid> {
    let (lo, hi, cell) = extent(setup);
    let bb = [lo[0], lo[1], hi[0], hi[1]];
    match setup.periodic_x() {
        Some(period) => Grid::periodic_x(bb, cell, period),
        None => Grid::covering(bb, cell),
    }
}

/// The corners of the box holding the walls, the initial grains and the
/// emitters' grains, and the cell side 2 r_max + alert.
fn extent<S: Space>(setup: &Setup<S>) -> (S::Vec, S::Vec, f32) {
    let (mut lo, mut hi) = S::box_corners(setup.walls_box);
    let emitted = setup.emitters.iter().map(|e| &e.grains);
    let mut r_max = setup.grains.max_radius();
    for g in std::iter::once(&setup.grains).chain(emitted) {
        for p in &g.pos {
            for k in 0..S::DIM {
                (lo[k], hi[k]) = (lo[k].min(p[k]), hi[k].max(p[k]));
            }
        }
        r_max = r_max.max(g.max_radius());
    }
    (lo, hi, 2.0 * r_max + setup.params.alert)
}

/// [`grid_for`] in any space, without periodic boundaries (refused in 3D).
pub fn grid_covering<S: Space>(setup: &Setup<S>) -> Result<Grid<S>> {
    let (lo, hi, cell) = extent(setup);
    Grid::covering_box(lo, hi, cell)
}

/// The state a backend is built from: a scene's ([`Start::of`]) or a packed
/// state of the study.
pub struct Start<'a, S: Space = Dim2> {
    pub grains: &'a Grains<S>,
    /// The walls of the first step (gate closed).
    pub walls: &'a S::Walls,
    pub grid: Grid<S>,
    /// Contact slots per grain.
    pub capacity: usize,
    /// Picks the stepper: DEM or NSCD (every NSCD solver shares one stepper).
    pub solver: SolverKind,
    /// The force law of the DEM or the spring model, used when `solver` is `dem` or `spring`.
    pub dem: DemParams,
    /// The impulse model, used when `solver` is `impulse`.
    pub impulse: ImpulseParams,
}

impl<S: Space> Clone for Start<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Space> Copy for Start<'_, S> {}

impl<'a, S: Space> Start<'a, S> {
    /// `setup`'s grains behind its closed walls, on `grid`.
    pub fn of(setup: &'a Setup<S>, grid: Grid<S>) -> Start<'a, S> {
        Start {
            grains: &setup.grains,
            walls: setup.walls(true),
            grid,
            capacity: setup.scene.solver.contact_capacity as usize,
            solver: setup.params.solver,
            dem: setup.dem,
            impulse: setup.impulse,
        }
    }
}

/// Overlap beyond which two starting bodies are said to overlap, m.
const OVERLAP_TOL: f32 = 1e-9;

/// Reject explicit grain lists whose grains overlap or whose centres start
/// outside the scene's bounds ([`Setup::bounds`]: `walls.bounds`, the walls'
/// box of a closed outline, or bounds derived around open walls).
///
/// Grains are checked against each other first, by [`first_grain_overlap`],
/// which stops at the first overlap: 200,000 grains at one point are refused
/// at once, where a contact detection would build 200,000 lists of 200,000
/// candidates. Grains that pass no longer crowd a cell, and a detection then
/// finds overlaps with the walls in linear time.
pub fn check_initial_state(setup: &Setup, grid: &Grid) -> Result<()> {
    let walls = setup.walls(true);
    let bb = setup.bounds.rect;
    let outside = match setup.bounds.rule {
        BoundsRule::Stated => "walls.bounds",
        BoundsRule::Walls => "the walls' bounding box",
        BoundsRule::Derived => "the bounds around the walls, the grains and the emitters",
    };
    for (i, p) in setup.grains.pos.iter().enumerate() {
        if !(p[0] >= bb[0] && p[0] <= bb[2] && p[1] >= bb[1] && p[1] <= bb[3]) {
            return Err(Error::field(
                &setup.scene.origin,
                &if setup.scene.grains.list.is_some() {
                    format!("grains.list[{i}]")
                } else {
                    "grains.region".to_string()
                },
                format!("grain {i} starts at ({}, {}), outside {outside}", p[0], p[1]),
            ));
        }
    }
    if let Some((i, j, gap)) = first_grain_overlap(&setup.grains) {
        return Err(Error::field(
            &setup.scene.origin,
            &format!("grains.list[{i}]"),
            format!("overlaps grain {j} by {:.3e} m at the start", -gap),
        ));
    }
    // Touching pairs only (alert 0): lists that grow as far as the fullest.
    let mut stepper = CpuStepper::growing_from(*grid, crate::cpu::detect::TOUCHING_START_CAPACITY, 64);
    let lists = stepper.detect(&setup.grains, walls, 0.0);
    for i in 0..setup.grains.len() {
        if let Some(c) = lists.of(i).iter().find(|c| c.gap < -OVERLAP_TOL) {
            let with = match c.body() {
                Body::Grain(j) => format!("grain {j}"),
                Body::Segment(k) => format!("wall segment {k}"),
                Body::Corner(k) => format!("wall corner {k}"),
            };
            return Err(Error::field(
                &setup.scene.origin,
                &format!("grains.list[{i}]"),
                format!("overlaps {with} by {:.3e} m at the start", -c.gap),
            ));
        }
    }
    Ok(())
}

/// A pair of grains `i < j` that overlap by more than `OVERLAP_TOL`, with
/// their gap (< 0), m; `None` when no two overlap. Of the overlapping pairs,
/// the one with the smallest `j`, then the smallest `i`.
///
/// Grains are binned into square cells of side 2 r_max (a grain only meets
/// grains of its own and the 8 neighbouring cells) in list order, each
/// checked against the grains binned before it. That is O(n k) for k grains
/// per cell, and k stays bounded by the packing unless two grains overlap,
/// which ends the pass.
pub fn first_grain_overlap(grains: &Grains) -> Option<(usize, usize, f32)> {
    let n = grains.len();
    let r_max = grains.max_radius();
    if n < 2 || r_max <= 0.0 {
        return None;
    }
    let side = 2.0 * r_max;
    let cell = |p: [f32; 2]| ((p[0] / side).floor() as i64, (p[1] / side).floor() as i64);
    let mut occupants: std::collections::HashMap<(i64, i64), Vec<usize>> = std::collections::HashMap::new();
    let mut first: Option<(usize, usize, f32)> = None;
    for j in 0..n {
        let (cx, cy) = cell(grains.pos[j]);
        for dx in -1..=1 {
            for dy in -1..=1 {
                let Some(earlier) = occupants.get(&(cx + dx, cy + dy)) else {
                    continue;
                };
                for &i in earlier {
                    let gap = grain_gap(grains, i, j);
                    if gap < -OVERLAP_TOL && first.is_none_or(|(fi, _, _)| i < fi) {
                        first = Some((i, j, gap));
                    }
                }
            }
        }
        if first.is_some() {
            return first;
        }
        occupants.entry((cx, cy)).or_default().push(j);
    }
    None
}

/// Surface distance between grains `i` and `j` (negative when they overlap), m.
fn grain_gap(grains: &Grains, i: usize, j: usize) -> f32 {
    let (a, b) = (grains.pos[i], grains.pos[j]);
    (b[0] - a[0]).hypot(b[1] - a[1]) - grains.radius[i] - grains.radius[j]
}
