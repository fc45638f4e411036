//! What a run needs of its space beyond the CPU's stages
//! ([`crate::cpu::CpuSpace`]): the census of what touches, the grid, an
//! emitter's free spot, the walls' frames and the contacts a saved state
//! keeps. The run loop ([`super::Run`]) is written once over it.

use super::state::SavedContacts;
use crate::backend::census::{Census, DetectCensus, Elastic, Look};
use crate::backend::start::{grid_covering, grid_for};
use crate::cpu::CpuSpace;
use crate::error::Result;
use crate::model::{ContactLists, Dim2, Dim3, Grains, Grid, Space, Walls, Walls3d};
use crate::output::vtk::WallsVtp;
use crate::scene::Setup;

/// A space a run goes through (`sim::run`): the plane's and 3D's.
pub trait RunSpace: CpuSpace<Walls: WallsVtp> {
    /// The census of the pairs that touch (collisions, elastic energy,
    /// overlaps at a row).
    type Census: Look<Self>;

    /// A census of pairs closer than `touch` (m) in lists of up to
    /// `capacity` slots per grain, on `grid`.
    fn census(grid: Grid<Self>, capacity: usize, elastic: Elastic, touch: f32) -> Self::Census;

    /// The grid every backend of `setup` bins into.
    fn grid(setup: &Setup<Self>) -> Result<Grid<Self>>;

    /// A grain of radius `r` at `x` would overlap one of `grains` or a wall:
    /// an emitter's spot is taken.
    fn occupied(x: Self::Vec, r: f32, grains: &Grains<Self>, walls: &Self::Walls) -> bool;

    /// The contacts state.json keeps (warm starts, springs) from `lists`,
    /// with the cell order; None where this space saves none yet.
    fn save(lists: &ContactLists<Self>, order: &[u32]) -> Option<SavedContacts>;

    /// [`RunSpace::save`]'s lists again for `grains` grains of at most
    /// `capacity` slots; None when they do not fit.
    fn saved_lists(saved: &SavedContacts, grains: usize, capacity: usize) -> Option<ContactLists<Self>>;
}

/// Whether a grain of radius `r` at `x` overlaps one of `grains`.
fn overlaps_grain<S: Space>(x: S::Vec, r: f32, grains: &Grains<S>) -> bool {
    (0..grains.len()).any(|i| {
        let reach = r + grains.radius[i];
        let d = S::sub(x, grains.pos[i]);
        S::dot(d, d) < reach * reach
    })
}

impl RunSpace for Dim2 {
    type Census = Census;

    fn census(grid: Grid, capacity: usize, elastic: Elastic, touch: f32) -> Census {
        Census::new(grid, capacity, elastic, touch)
    }

    fn grid(setup: &Setup) -> Result<Grid> {
        grid_for(setup)
    }

    /// Against the segments (their nearest point) and the corners.
    fn occupied(x: [f32; 2], r: f32, grains: &Grains, walls: &Walls) -> bool {
        let d2 = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2);
        overlaps_grain::<Dim2>(x, r, grains)
            || walls.segments.iter().any(|s| {
                let t = [s.b[0] - s.a[0], s.b[1] - s.a[1]];
                let len2 = t[0] * t[0] + t[1] * t[1];
                let u = if len2 > 0.0 {
                    (((x[0] - s.a[0]) * t[0] + (x[1] - s.a[1]) * t[1]) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                d2(x, [s.a[0] + u * t[0], s.a[1] + u * t[1]]) < r * r
            })
            || walls.corners.iter().any(|c| d2(x, c.pos) < r * r)
    }

    fn save(lists: &ContactLists, order: &[u32]) -> Option<SavedContacts> {
        Some(SavedContacts::of(lists, order))
    }

    fn saved_lists(saved: &SavedContacts, grains: usize, capacity: usize) -> Option<ContactLists> {
        saved.lists(grains, capacity)
    }
}

impl RunSpace for Dim3 {
    type Census = DetectCensus<Dim3>;

    fn census(grid: Grid<Dim3>, capacity: usize, elastic: Elastic, touch: f32) -> DetectCensus<Dim3> {
        DetectCensus::new(grid, capacity, elastic, touch)
    }

    fn grid(setup: &Setup<Dim3>) -> Result<Grid<Dim3>> {
        grid_covering(setup)
    }

    /// Against the planes and every mesh body that acts on a sphere there.
    fn occupied(x: [f32; 3], r: f32, grains: &Grains<Dim3>, walls: &Walls3d) -> bool {
        overlaps_grain::<Dim3>(x, r, grains) || walls.overlaps_sphere(x, r)
    }

    fn save(lists: &ContactLists<Dim3>, order: &[u32]) -> Option<SavedContacts> {
        Some(SavedContacts::of(lists, order))
    }

    fn saved_lists(saved: &SavedContacts, grains: usize, capacity: usize) -> Option<ContactLists<Dim3>> {
        saved.lists(grains, capacity)
    }
}
