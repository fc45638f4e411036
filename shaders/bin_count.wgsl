// Stage bin_count: cell_of[i] = cell(x_i); cell_count[c] += 1 (atomic).
// cell_count is cleared by the host before the pass. CPU twin: cpu::grid::bin_count.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let c = cell_coords(vec_in(pos[i]), params);
    // Clamped into the grid, so cell < n_cells; the guard keeps a bad Params from writing out of bounds.
    let cell = min((c.z * params.ny + c.y) * params.nx + c.x, params.n_cells - 1u);
    cell_of[i] = cell;
    atomicAdd(&cell_count[cell], 1u);
}
