// Stage bin_sort: after bin_scatter, each cell's grains in increasing index
// order, so the binning (and every list and sum built from it) is the same in
// every run: one invocation per cell, an insertion sort of
// sorted[cell_start[c] .. cell_start[c + 1]] in place. The scatter's atomic
// order is close to index order (workgroups run roughly in order), so the
// sort moves few entries. CPU twin: cpu::grid::bin_sort (the CPU's scatter
// already yields this order).

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let c = flat_index(inv);
    if c >= params.n_cells { return; }
    let lo = cell_start[c];
    // The guard keeps a bad scan from writing out of bounds.
    let hi = min(cell_start[c + 1u], arrayLength(&sorted));
    for (var k = lo + 1u; k < hi; k++) {
        let g = sorted[k];
        var j = k;
        while j > lo && sorted[j - 1u] > g {
            sorted[j] = sorted[j - 1u];
            j--;
        }
        sorted[j] = g;
    }
}
