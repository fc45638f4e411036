//! The uniform grid both backends bin grains into: geometry only (the binning
//! stages are `cpu::grid` and shaders/bin_*.wgsl). The cell side is at least
//! 2 r_max + alert, so every pair closer than the alert distance lies in the
//! same or an adjacent cell; points outside are clamped into the border cells.
//!
//! A grid periodic along x ([`Grid::periodic_x`], `walls.periodic_x`) spans
//! exactly the period [xmin, xmax) with a whole number (at least 3) of
//! cells: the neighbours of a cell in x wrap around, and two grains are
//! separated by the minimum image of their offset ([`Grid::min_image`]).

use crate::error::{Error, Result};

/// Largest grid the binning accepts (cells); beyond it the scene is malformed.
pub const MAX_CELLS: u64 = 1 << 28;

/// A uniform grid. Keep in sync with the grid fields of `Params` in shaders/shared.wgsl.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Grid {
    /// Lower-left corner, m.
    pub origin: [f32; 2],
    /// Cell side, m.
    pub cell: f32,
    pub nx: u32,
    pub ny: u32,
    /// Period along x, m (= nx cell, `origin[0]` = xmin): 0 for a grid that
    /// is not periodic.
    pub period: f32,
}

impl Grid {
    /// A grid of cells of side `cell` covering `bbox` = [xmin, ymin, xmax, ymax]
    /// with one spare cell on every side.
    pub fn covering(bbox: [f32; 4], cell: f32) -> Result<Grid> {
        let bad = |p: &str| Error::field("grid", "cell", p.to_string());
        if !(cell.is_finite() && cell > 0.0) {
            return Err(bad(&format!("cell size must be positive, got {cell}")));
        }
        if bbox.iter().any(|v| !v.is_finite()) {
            return Err(bad("the walls' bounding box is not finite"));
        }
        let nx = ((bbox[2] - bbox[0]) / cell).ceil().max(1.0) as u64 + 2;
        let ny = ((bbox[3] - bbox[1]) / cell).ceil().max(1.0) as u64 + 2;
        if nx * ny > MAX_CELLS {
            return Err(bad(&format!(
                "{nx} x {ny} cells exceed the limit of {MAX_CELLS}: the walls are far larger than the grains"
            )));
        }
        Ok(Grid {
            origin: [bbox[0] - cell, bbox[1] - cell],
            cell,
            nx: nx as u32,
            ny: ny as u32,
            period: 0.0,
        })
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
            period: len,
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
    pub fn min_image(&self, d: [f32; 2]) -> [f32; 2] {
        if self.period > 0.0 {
            [d[0] - self.period * (d[0] / self.period).round(), d[1]]
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
        self.nx as usize * self.ny as usize
    }

    /// Cell coordinates of a point, clamped into the grid (NaN goes to 0).
    #[inline]
    pub fn coords(&self, p: [f32; 2]) -> (u32, u32) {
        let mut fx = ((p[0] - self.origin[0]) / self.cell).floor();
        if self.period > 0.0 {
            fx = fx.rem_euclid(self.nx as f32);
        }
        let fy = ((p[1] - self.origin[1]) / self.cell).floor();
        let cx = (fx.max(0.0) as u32).min(self.nx - 1);
        let cy = (fy.max(0.0) as u32).min(self.ny - 1);
        (cx, cy)
    }

    #[inline]
    pub fn cell_of(&self, p: [f32; 2]) -> u32 {
        let (cx, cy) = self.coords(p);
        cy * self.nx + cx
    }
}
