// Stage prefix_sum: exclusive scan of any length, in levels.
//   scan:  each workgroup scans a tile of WORKGROUP_SIZE elements (Hillis-Steele in
//          workgroup memory); dst[i] = exclusive prefix within the tile, and the
//          tile's total goes to block_sums[tile]. Elements past len_in read as 0,
//          so with len_out = len_in + 1 the last entry is the grand total.
//   add:   dst[i] += offsets[tile], where offsets is the scanned block_sums (the
//          next level up, scanned the same way until one tile holds everything).
// CPU twin: cpu::grid::prefix_sum.

// Keep in sync with gpu::prefix_sum::ScanLevel.
struct ScanLevel {
    len_in: u32,
    len_out: u32,
}

var<workgroup> tile: array<u32, WORKGROUP_SIZE>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn scan(inv: Invocation) {
    let block = flat_workgroup(inv);
    let i = block * WORKGROUP_SIZE + inv.lid;
    var x = 0u;
    if i < level.len_in {
        x = src[i];
    }
    tile[inv.lid] = x;
    for (var off = 1u; off < WORKGROUP_SIZE; off = off * 2u) {
        workgroupBarrier();
        var t = tile[inv.lid];
        if inv.lid >= off {
            t = t + tile[inv.lid - off];
        }
        workgroupBarrier();
        tile[inv.lid] = t;
    }
    workgroupBarrier();
    let inclusive = tile[inv.lid];
    if i < level.len_out {
        dst[i] = inclusive - x;
    }
    if inv.lid == WORKGROUP_SIZE - 1u && block * WORKGROUP_SIZE < level.len_out {
        block_sums[block] = inclusive;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn add(inv: Invocation) {
    let block = flat_workgroup(inv);
    let i = block * WORKGROUP_SIZE + inv.lid;
    if i < level.len_out {
        dst[i] = dst[i] + offsets[block];
    }
}
