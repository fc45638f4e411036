// Stage reorder: gather one per-grain array into cell order, dst[k] = src[sorted[k]]
// (sorted from the last binning). Run once per array (pos, vel, radius, inv_mass, id),
// then copied back over the source. CPU twin: cpu::reorder::reorder.

// 32-bit elements (radius, inv_mass, id).
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather1(inv: Invocation) {
    let k = flat_index(inv);
    if k < params.n_grains {
        dst1[k] = src1[sorted[k]];
    }
}

// 64-bit elements (pos, vel).
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather2(inv: Invocation) {
    let k = flat_index(inv);
    if k < params.n_grains {
        dst2[k] = src2[sorted[k]];
    }
}
