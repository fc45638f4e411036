// Stage reduce: one ReducePartial per workgroup of grains (the host sums the
// partials in f64). Per grain, with m = 1/im (0 for a fixed grain):
//   kinetic = 1/2 m |v|^2, potential = -m g . x, momentum = m v,
//   lost = more than r outside the bounds (or not finite),
//   passed = y < neck_y and not lost,
//   overlap = max over listed contacts of the overlap at the current positions
//             (two grains through the minimum image of their offset when
//             periodic along x),
//   speed = |v|.
// Sums and maxima over the workgroup by a tree in workgroup memory.
// CPU twin: cpu::reduce::reduce.

var<workgroup> tile: array<ReducePartial, WORKGROUP_SIZE>;

// Overlap of a listed contact of grain i at the current positions, m (negative = apart).
fn overlap_now(i: u32, other: u32) -> f32 {
    let x = pos[i];
    let r = radius[i];
    let index = other & BODY_INDEX_MASK;
    if (other & BODY_SEGMENT) != 0u {
        let s = segments[index];
        let t = s.b - s.a;
        let rel = x - s.a;
        let st = clamp((rel.x * t.x + rel.y * t.y) / (t.x * t.x + t.y * t.y), 0.0, 1.0);
        let p = vec2<f32>(s.a.x + st * t.x, s.a.y + st * t.y);
        let d = x - p;
        return r - one_sided(s, x, p, s.n, sqrt(d.x * d.x + d.y * d.y)).z;
    }
    if (other & BODY_CORNER) != 0u {
        let d = x - corners[index].pos;
        return r - sqrt(d.x * d.x + d.y * d.y);
    }
    let d = min_image(x - pos[index], params);
    return r + radius[index] - sqrt(d.x * d.x + d.y * d.y);
}

fn grain_totals(i: u32) -> ReducePartial {
    let x = pos[i];
    let v = vel[i];
    let im = inv_mass[i];
    let m = select(0.0, 1.0 / im, im > 0.0);
    let v2 = v.x * v.x + v.y * v.y;
    let r = radius[i];
    let inside = x.x >= params.bbox_lo.x - r && x.x <= params.bbox_hi.x + r
        && x.y >= params.bbox_lo.y - r && x.y <= params.bbox_hi.y + r;
    var overlap = 0.0;
    let n = min(count[i], CAPACITY);
    for (var k = 0u; k < n; k++) {
        overlap = max(overlap, overlap_now(i, slots[i * CAPACITY + k].other));
    }
    return ReducePartial(
        0.5 * m * v2,
        -m * (params.gravity.x * x.x + params.gravity.y * x.y),
        m * v,
        select(0u, 1u, inside && x.y < params.neck_y),
        select(1u, 0u, inside),
        overlap,
        sqrt(v2),
    );
}

fn merge(a: ReducePartial, b: ReducePartial) -> ReducePartial {
    return ReducePartial(
        a.kinetic + b.kinetic,
        a.potential + b.potential,
        a.momentum + b.momentum,
        a.passed + b.passed,
        a.lost + b.lost,
        max(a.max_overlap, b.max_overlap),
        max(a.max_speed, b.max_speed),
    );
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    var t = ReducePartial(0.0, 0.0, vec2<f32>(0.0, 0.0), 0u, 0u, 0.0, 0.0);
    if i < params.n_grains {
        t = grain_totals(i);
    }
    tile[inv.lid] = t;
    for (var half = WORKGROUP_SIZE / 2u; half > 0u; half = half / 2u) {
        workgroupBarrier();
        if inv.lid < half {
            tile[inv.lid] = merge(tile[inv.lid], tile[inv.lid + half]);
        }
    }
    let block = flat_workgroup(inv);
    if inv.lid == 0u && block * WORKGROUP_SIZE < params.n_grains {
        partials[block] = tile[0];
    }
}
