//! Uniform-grid binning by counting sort: the CPU twin of shaders/bin_count.wgsl,
//! shaders/prefix_sum.wgsl and shaders/bin_scatter.wgsl.
//!
//! ```text
//!   bin_count:   cell_of[i] = cell(x_i);  cell_count[c] += 1
//!   prefix_sum:  cell_start[c] = sum_{c' < c} cell_count[c']   (len cells + 1)
//!   bin_scatter: sorted[cell_start[c] + k] = i  for the k-th grain of cell c
//! ```
//! The cell side is at least 2 r_max + alert, so every pair closer than the
//! alert distance lies in the same or an adjacent cell. Grains outside the
//! grid (lost ones) are clamped into the border cells.

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

/// Stage `bin_count`: each grain's cell and the number of grains per cell.
pub fn bin_count(grid: &Grid, pos: &[[f32; 2]], cell_of: &mut [u32], cell_count: &mut [u32]) {
    cell_count.fill(0);
    for (c, &p) in cell_of.iter_mut().zip(pos) {
        *c = grid.cell_of(p);
        cell_count[*c as usize] += 1;
    }
}

/// Stage `prefix_sum`: exclusive scan; `cell_start` has one more entry than
/// `cell_count`, the last being the total.
pub fn prefix_sum(cell_count: &[u32], cell_start: &mut [u32]) {
    let mut sum = 0u32;
    for (s, &c) in cell_start.iter_mut().zip(cell_count) {
        *s = sum;
        sum += c;
    }
    cell_start[cell_count.len()] = sum;
}

/// Stage `bin_scatter`: grain indices ordered by cell (by grain index inside a
/// cell; the GPU's order inside a cell is arbitrary and tests canonicalise it).
pub fn bin_scatter(cell_of: &[u32], cell_start: &[u32], cursor: &mut [u32], sorted: &mut [u32]) {
    cursor.copy_from_slice(&cell_start[..cursor.len()]);
    for (i, &c) in cell_of.iter().enumerate() {
        let k = &mut cursor[c as usize];
        sorted[*k as usize] = i as u32;
        *k += 1;
    }
}

/// The three binning stages with their scratch buffers, sized for one grid.
#[derive(Debug, Clone, Default)]
pub struct Bins {
    pub cell_of: Vec<u32>,
    pub cell_count: Vec<u32>,
    pub cell_start: Vec<u32>,
    pub sorted: Vec<u32>,
    cursor: Vec<u32>,
}

impl Bins {
    pub fn build(&mut self, grid: &Grid, pos: &[[f32; 2]]) {
        let (n, cells) = (pos.len(), grid.cells());
        self.cell_of.resize(n, 0);
        self.sorted.resize(n, 0);
        self.cell_count.resize(cells, 0);
        self.cursor.resize(cells, 0);
        self.cell_start.resize(cells + 1, 0);
        bin_count(grid, pos, &mut self.cell_of, &mut self.cell_count);
        prefix_sum(&self.cell_count, &mut self.cell_start);
        bin_scatter(&self.cell_of, &self.cell_start, &mut self.cursor, &mut self.sorted);
    }
}
