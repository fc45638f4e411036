//! Uniform-grid binning by counting sort: the CPU twin of shaders/bin_count.wgsl,
//! shaders/prefix_sum.wgsl, shaders/bin_scatter.wgsl and shaders/bin_sort.wgsl.
//!
//! ```text
//!   bin_count:   cell_of[i] = cell(x_i);  cell_count[c] += 1
//!   prefix_sum:  cell_start[c] = sum_{c' < c} cell_count[c']   (len cells + 1)
//!   bin_scatter: sorted[cell_start[c] + k] = i  for the k-th grain of cell c
//!   bin_sort:    each cell's slice of sorted in increasing order
//! ```
//! The cell side is at least 2 r_max + alert, so every pair closer than the
//! alert distance lies in the same or an adjacent cell. Grains outside the
//! grid (lost ones) are clamped into the border cells.

use crate::model::Grid;

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
/// cell; the GPU's scatter leaves a cell in atomic order, which `bin_sort`
/// then puts in this order).
pub fn bin_scatter(cell_of: &[u32], cell_start: &[u32], cursor: &mut [u32], sorted: &mut [u32]) {
    cursor.copy_from_slice(&cell_start[..cursor.len()]);
    for (i, &c) in cell_of.iter().enumerate() {
        let k = &mut cursor[c as usize];
        sorted[*k as usize] = i as u32;
        *k += 1;
    }
}

/// Stage `bin_sort`: the grain indices of each cell
/// (`sorted[cell_start[c] .. cell_start[c + 1]]`) in increasing order. The
/// output of [`bin_scatter`] is already in this order, so [`Bins::build`]
/// does not call it; the GPU needs it after its atomic scatter.
pub fn bin_sort(cell_start: &[u32], sorted: &mut [u32]) {
    for w in cell_start.windows(2) {
        sorted[w[0] as usize..w[1] as usize].sort_unstable();
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
