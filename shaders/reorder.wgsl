// Stage reorder: gather one per-grain array into cell order, dst[k] = src[sorted[k]]
// (sorted from the last binning). Run once per array (pos, vel, radius, inv_mass, id),
// then copied back over the source. CPU twin: cpu::reorder::reorder.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> sorted: array<u32>;
@group(0) @binding(2) var<storage, read> src1: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst1: array<u32>;
@group(0) @binding(4) var<storage, read> src2: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> dst2: array<vec2<u32>>;

// 32-bit elements (radius, inv_mass, id).
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let k = flat_index(wid, nwg, lid);
    if k < params.n_grains {
        dst1[k] = src1[sorted[k]];
    }
}

// 64-bit elements (pos, vel).
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let k = flat_index(wid, nwg, lid);
    if k < params.n_grains {
        dst2[k] = src2[sorted[k]];
    }
}
