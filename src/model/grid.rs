//! The uniform grid both backends bin grains into: geometry only (the binning
//! stages are `cpu::grid` and shaders/bin_*.wgsl). The cell side is at least
//! 2 r_max + alert, so every pair closer than the alert distance lies in the
//! same or an adjacent cell; points outside are clamped into the border cells.

use crate::error::{Error, Result};

/// Largest grid the binning accepts (cells); beyond it the scene is malformed.
pub const MAX_CELLS: u64 = 1 << 28;

/// A uniform grid. Keep in sync with the grid fields of `Params` in shaders/shared.wgsl.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// Lower-left corner, m.
    pub origin: [f32; 2],
    /// Cell side, m.
    pub cell: f32,
    pub nx: u32,
    pub ny: u32,
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
        })
    }

    pub fn cells(&self) -> usize {
        self.nx as usize * self.ny as usize
    }

    /// Cell coordinates of a point, clamped into the grid (NaN goes to 0).
    #[inline]
    pub fn coords(&self, p: [f32; 2]) -> (u32, u32) {
        let fx = ((p[0] - self.origin[0]) / self.cell).floor();
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
