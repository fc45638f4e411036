// Stage bin_scatter: sorted[cursor[c]++] = i for each grain i of cell c (atomic cursor,
// initialised by the host as a copy of cell_start). The order inside a cell is
// that of the atomics, which varies from run to run; bin_sort then puts it in
// index order. CPU twin: cpu::grid::bin_scatter.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let slot = atomicAdd(&cursor[cell_of[i]], 1u);
    sorted[slot] = i;
}
