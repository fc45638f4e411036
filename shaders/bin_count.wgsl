// Stage bin_count: cell_of[i] = cell(x_i); cell_count[c] += 1 (atomic).
// cell_count is cleared by the host before the pass. CPU twin: cpu::grid::bin_count.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> pos: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> cell_of: array<u32>;
@group(0) @binding(3) var<storage, read_write> cell_count: array<atomic<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= params.n_grains {
        return;
    }
    let c = cell_coords(pos[i], params);
    // Clamped into the grid, so cell < n_cells; the guard keeps a bad Params from writing out of bounds.
    let cell = min(c.y * params.nx + c.x, params.n_cells - 1u);
    cell_of[i] = cell;
    atomicAdd(&cell_count[cell], 1u);
}
