//! The uniform grid both backends bin grains into: geometry only (the binning
//! stages are `cpu::grid` and shaders/bin_*.wgsl). The cell side is at least
//! 2 r_max + alert, so every pair closer than the alert distance lies in the
//! same or an adjacent cell; points outside are clamped into the border cells.
//! A grid of the plane ([`Dim2`], the default) has `nz` = 1; cells are
//! numbered x fastest, then y, then z: (cz ny + cy) nx + cx.
//!
//! A grid periodic along x ([`Grid::periodic_x`], `walls.periodic_x`) spans
//! exactly the period [xmin, xmax) with a whole number (at least 3) of
//! cells: the neighbours of a cell in x wrap around, and two grains are
//! separated by the minimum image of their offset ([`Grid::min_image`]).

use super::space::{Dim2, Space};
use crate::error::{Error, Result};

/// Largest grid the binning accepts (cells); beyond it the scene is malformed.
pub const MAX_CELLS: u64 = 1 << 28;

/// A uniform grid. Keep in sync with the grid fields of `Params` in shaders/shared.wgsl.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Grid<S: Space = Dim2> {
    /// Lowest corner, m.
    pub origin: S::Vec,
    /// Cell side, m.
    pub cell: f32,
    pub nx: u32,
    pub ny: u32,
    /// Cells along z: 1 in the plane.
    pub nz: u32,
    /// Period along x, m (= nx cell, `origin[0]` = xmin): 0 for a grid that
    /// is not periodic.
    pub period: f32,
}

impl<S: Space> Grid<S> {
    /// A grid of cells of side `cell` covering the box from `lo` to `hi`
    /// with one spare cell on every side.
    pub fn covering_box(lo: S::Vec, hi: S::Vec, cell: f32) -> Result<Grid<S>> {
        let bad = |p: &str| Error::field("grid", "cell", p.to_string());
        if !(cell.is_finite() && cell > 0.0) {
            return Err(bad(&format!("cell size must be positive, got {cell}")));
        }
        if (0..S::DIM).any(|k| !(lo[k].is_finite() && hi[k].is_finite())) {
            return Err(bad("the walls' bounding box is not finite"));
        }
        let mut n = [1u64; 3];
        for k in 0..S::DIM {
            n[k] = ((hi[k] - lo[k]) / cell).ceil().max(1.0) as u64 + 2;
        }
        let total = n[0].saturating_mul(n[1]).saturating_mul(n[2]);
        if total > MAX_CELLS {
            let sizes: Vec<String> = n[..S::DIM].iter().map(u64::to_string).collect();
            return Err(bad(&format!(
                "{} cells exceed the limit of {MAX_CELLS}: the walls are far larger than the grains",
                sizes.join(" x ")
            )));
        }
        Ok(Grid {
            origin: S::zip(lo, lo, |x, _| x - cell),
            cell,
            nx: n[0] as u32,
            ny: n[1] as u32,
            nz: n[2] as u32,
            period: 0.0,
        })
    }

    /// Whether the grid wraps along x.
    #[inline]
    pub fn is_periodic(&self) -> bool {
        self.period > 0.0
    }

    /// The offset `d` between two points as its minimum image along x:
    /// d_x - L round(d_x / L) for period L (`d` unchanged when not
    /// periodic). Odd in `d` bit for bit (`round` rounds halves away from
    /// zero), so the two copies of a pair see offsets that are exact negatives.
    #[inline]
    pub fn min_image(&self, d: S::Vec) -> S::Vec {
        if self.period > 0.0 {
            let mut m = d;
            m[0] = d[0] - self.period * (d[0] / self.period).round();
            m
        } else {
            d
        }
    }

    /// `x` wrapped into [xmin, xmax) (`x` itself when not periodic, or not finite).
    #[inline]
    pub fn wrap_x(&self, x: f32) -> f32 {
        if self.period > 0.0 && x.is_finite() {
            let xmin = self.origin[0];
            let w = xmin + (x - xmin).rem_euclid(self.period);
            // Rounding of the sum can land on xmax itself.
            if w >= xmin + self.period { xmin } else { w }
        } else {
            x
        }
    }

    pub fn cells(&self) -> usize {
        self.nx as usize * self.ny as usize * self.nz as usize
    }

    /// Cell coordinates [cx, cy, cz] of a point, clamped into the grid (NaN
    /// goes to 0; cz = 0 in the plane).
    #[inline]
    pub fn cell_coords(&self, p: S::Vec) -> [u32; 3] {
        let n = [self.nx, self.ny, self.nz];
        let mut c = [0u32; 3];
        for k in 0..S::DIM {
            let mut f = ((p[k] - self.origin[k]) / self.cell).floor();
            if k == 0 && self.period > 0.0 {
                f = f.rem_euclid(self.nx as f32);
            }
            c[k] = (f.max(0.0) as u32).min(n[k] - 1);
        }
        c
    }

    /// The number of the cell holding a point (clamped as [`Grid::cell_coords`]).
    #[inline]
    pub fn cell_of(&self, p: S::Vec) -> u32 {
        let [cx, cy, cz] = self.cell_coords(p);
        (cz * self.ny + cy) * self.nx + cx
    }
}

impl Grid<Dim2> {
    /// A grid of cells of side `cell` covering `bbox` = [xmin, ymin, xmax, ymax]
    /// with one spare cell on every side.
    pub fn covering(bbox: [f32; 4], cell: f32) -> Result<Grid> {
        Grid::covering_box([bbox[0], bbox[1]], [bbox[2], bbox[3]], cell)
    }

    /// A grid periodic along x over `period` = [xmin, xmax): nx = floor((xmax -
    /// xmin) / `cell`) cells of side (xmax - xmin) / nx (at least `cell`) in
    /// x, starting at xmin, and in y cells of that side covering `bbox`'s
    /// y-range with one spare cell on either side. Fewer than 3 cells in the
    /// period is an error: the 3 x 3 search would see a cell twice.
    pub fn periodic_x(bbox: [f32; 4], cell: f32, period: [f32; 2]) -> Result<Grid> {
        let bad = |p: String| Error::field("grid", "walls.periodic_x", p);
        let len = period[1] - period[0];
        if !(len.is_finite() && len > 0.0) {
            return Err(bad(format!("the period {period:?} is empty or not finite")));
        }
        let cover = Grid::covering([period[0], bbox[1], period[1], bbox[3]], cell)?;
        let nx = (len / cell).floor();
        if nx < 3.0 {
            return Err(bad(format!(
                "the period {len} m holds fewer than 3 contact cells of {cell} m (2 r_max + alert)"
            )));
        }
        let side = len / nx;
        let ny = (((bbox[3] - bbox[1]) / side).ceil().max(1.0) as u64 + 2).min(u64::from(cover.ny));
        Ok(Grid {
            origin: [period[0], bbox[1] - side],
            cell: side,
            nx: nx as u32,
            ny: ny as u32,
            nz: 1,
            period: len,
        })
    }

    /// Cell coordinates of a point, clamped into the grid (NaN goes to 0).
    #[inline]
    pub fn coords(&self, p: [f32; 2]) -> (u32, u32) {
        let [cx, cy, _] = self.cell_coords(p);
        (cx, cy)
    }
}
