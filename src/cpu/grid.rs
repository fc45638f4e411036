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
//! alert distance lies in the same or an adjacent cell (the 3 x 3 block in
//! the plane, 3 x 3 x 3 in 3D). Grains outside the grid (lost ones) are
//! clamped into the border cells.

use crate::model::{Grid, Space};

/// Stage `bin_count`: each grain's cell and the number of grains per cell.
pub fn bin_count<S: Space>(grid: &Grid<S>, pos: &[S::Vec], cell_of: &mut [u32], cell_count: &mut [u32]) {
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
    /// Bin the grains at `pos` into `grid`'s cells (in either space).
    pub fn build<S: Space>(&mut self, grid: &Grid<S>, pos: &[S::Vec]) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dim2, Dim3};
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    /// Spheres binned into a 3D grid whose cell is 2 r_max + alert: every
    /// cell's slice of `sorted` holds exactly its grains, in index order,
    /// and every pair within reach lies in the same or an adjacent cell
    /// along each axis, so the 3 x 3 x 3 block around a grain holds all of
    /// its contacts.
    #[test]
    fn spheres_within_reach_are_in_adjacent_cells_of_a_3d_grid() {
        let mut rng = StdRng::seed_from_u64(7);
        let (r_max, alert) = (0.01f32, 0.002f32);
        let lo = [-0.1f32, 0.0, 0.05];
        let hi = [0.1f32, 0.3, 0.15];
        let n = 3000;
        let pos: Vec<[f32; 3]> = (0..n)
            .map(|_| std::array::from_fn(|k| rng.random_range(lo[k]..hi[k])))
            .collect();
        let radius: Vec<f32> = (0..n).map(|_| rng.random_range(0.5 * r_max..r_max)).collect();
        let grid = Grid::<Dim3>::covering_box(lo, hi, 2.0 * r_max + alert).unwrap();
        assert!(grid.nz > 1 && grid.ny > grid.nx);
        assert_eq!(grid.cells(), (grid.nx * grid.ny * grid.nz) as usize);
        let mut bins = Bins::default();
        bins.build(&grid, &pos);
        assert_eq!(bins.cell_start[grid.cells()] as usize, n);
        let mut seen = vec![false; n];
        for c in 0..grid.cells() {
            let slice = &bins.sorted[bins.cell_start[c] as usize..bins.cell_start[c + 1] as usize];
            assert!(slice.windows(2).all(|w| w[0] < w[1]));
            for &i in slice {
                assert_eq!(grid.cell_of(pos[i as usize]) as usize, c);
                assert!(!std::mem::replace(&mut seen[i as usize], true));
            }
        }
        assert!(seen.iter().all(|&s| s));
        let mut pairs = 0;
        for i in 0..n {
            for j in i + 1..n {
                let d = Dim3::sub(pos[i], pos[j]);
                let reach = radius[i] + radius[j] + alert;
                if Dim3::dot(d, d) < reach * reach {
                    pairs += 1;
                    let (a, b) = (grid.cell_coords(pos[i]), grid.cell_coords(pos[j]));
                    assert!((0..3).all(|k| a[k].abs_diff(b[k]) <= 1), "{i} {j}: {a:?} {b:?}");
                }
            }
        }
        assert!(pairs > 100, "{pairs} pairs: the test needs contacts to check");
    }

    /// Cells are numbered x fastest, then y, then z; points outside the
    /// grid are clamped into its border cells and NaN into the first.
    #[test]
    fn cells_are_numbered_x_fastest_and_points_outside_are_clamped() {
        let grid = Grid::<Dim3>::covering_box([0.0; 3], [1.0, 2.0, 3.0], 1.0).unwrap();
        assert_eq!((grid.nx, grid.ny, grid.nz), (3, 4, 5));
        assert_eq!(grid.origin, [-1.0; 3]);
        assert_eq!(grid.cell_coords([0.5, 1.5, 2.5]), [1, 2, 3]);
        assert_eq!(grid.cell_of([0.5, 1.5, 2.5]), (3 * 4 + 2) * 3 + 1);
        assert_eq!(grid.cell_coords([-9.0, 9.0, 1e9]), [0, 3, 4]);
        assert_eq!(grid.cell_coords([f32::NAN; 3]), [0, 0, 0]);
        // The plane's grid is the z = 0 layer: one cell deep.
        let flat = Grid::<Dim2>::covering([0.0, 0.0, 1.0, 2.0], 1.0).unwrap();
        assert_eq!((flat.nx, flat.ny, flat.nz), (3, 4, 1));
        assert_eq!(flat.cell_of([0.5, 1.5]), 2 * 3 + 1);
        assert_eq!(flat.coords([0.5, 1.5]), (1, 2));
    }

    #[test]
    fn a_3d_grid_beyond_the_cell_limit_or_not_finite_is_refused() {
        let e = Grid::<Dim3>::covering_box([0.0; 3], [1.0; 3], 1e-3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("1002 x 1002 x 1002 cells exceed"), "{e}");
        let e = Grid::<Dim3>::covering_box([0.0; 3], [1.0, f32::INFINITY, 1.0], 0.1).unwrap_err();
        assert!(e.to_string().contains("not finite"), "{e}");
        assert!(Grid::<Dim3>::covering_box([0.0; 3], [1.0; 3], 0.0).is_err());
    }
}
