// Stage detect: potential contacts (gap < alert) of each grain into its list of
// CAPACITY slots; count[i] = contacts FOUND (may exceed CAPACITY; only the first
// CAPACITY are written). Order: grains of the 3x3 cells (row order, bin order),
// then segments (only where the centre projects inside, 0 <= s_t <= 1; a segment
// with an inside measures the gap with a sign along its inward normal, see
// one_sided in shared.wgsl), then
// corners (only where the grain lies beyond every incident segment).
// A wall contact carries the wall's velocity at the contact, wall_vel: a
// segment's where the centre projects onto it (s_t clamped to [0, 1], linear
// between its ends' velocities segment_vel[k] = (v_a, v_b)), a corner's
// corner_vel[k]; zero for a grain (and, from zero velocities, for still walls).
// Per workgroup, the overflow sum(max(0, count - K)) and the distinct listed
// contacts (a grain pair once) are added to stats, and the deepest listed
// overlap max(0, -gap) is maxed into stats[STAT_OVERLAP] (f32 bits; twin
// ContactLists::max_overlap). On a grid periodic along x (params.period > 0) the
// 3x3 block wraps around in x and a grain pair's offset is its minimum image
// (grain_contacts_periodic). CPU twin: cpu::detect::detect.

var<workgroup> wg_overflow: atomic<u32>;
var<workgroup> wg_distinct: atomic<u32>;
var<workgroup> wg_overlap: atomic<u32>;

// (n.x, n.y, |x - from|); a coincident pair gets a fixed axis normal whose sign
// depends on flip, so the two copies stay opposite (cpu::detect::normal_between).
fn normal_between(x: vec2<f32>, origin: vec2<f32>, flip: bool) -> vec3<f32> {
    return normal_along(x - origin, flip);
}

// normal_between of the offset d = x - from (cpu::detect::normal_along).
fn normal_along(d: vec2<f32>, flip: bool) -> vec3<f32> {
    let len = sqrt(d.x * d.x + d.y * d.y);
    if len > 0.0 {
        return vec3<f32>(d.x / len, d.y / len, len);
    }
    if flip {
        return vec3<f32>(-1.0, 0.0, 0.0);
    }
    return vec3<f32>(1.0, 0.0, 0.0);
}

fn push(i: u32, found: u32, c: Contact) {
    if found < CAPACITY {
        slots[i * CAPACITY + found] = c;
    }
}

// The grain contacts of grain i in cell c: the grains of the 3x3 cells around
// it (row order, bin order). Returns how many.
fn grain_contacts(i: u32, c: vec2<u32>) -> u32 {
    let x = pos[i];
    let r = radius[i];
    let im = inv_mass[i];
    var found = 0u;
    let y0 = select(0u, c.y - 1u, c.y > 0u);
    let x0 = select(0u, c.x - 1u, c.x > 0u);
    let y1 = min(c.y + 1u, params.ny - 1u);
    let x1 = min(c.x + 1u, params.nx - 1u);
    for (var ny = y0; ny <= y1; ny++) {
        for (var nx = x0; nx <= x1; nx++) {
            let cell = ny * params.nx + nx;
            for (var s = cell_start[cell]; s < cell_start[cell + 1u]; s++) {
                let j = sorted[s];
                if j == i {
                    continue;
                }
                let nd = normal_between(x, pos[j], i < j);
                let gap = nd.z - (r + radius[j]);
                if gap < params.alert {
                    push(i, found, Contact(j, gap, im + inv_mass[j], 0.0, nd.xy, 0.0, 0.0, vec2<f32>(0.0, 0.0)));
                    found++;
                }
            }
        }
    }
    return found;
}

// The grain contacts of grain i in cell c of a grid periodic along x: the 3x3
// block's columns wrap modulo nx, in the order (cx - 1, cx, cx + 1) wrapped (0,
// 1, 2 when nx = 3), and each offset is its minimum image
// (cpu::detect::grain_contacts_periodic, wrapped_columns). Returns how many.
fn grain_contacts_periodic(i: u32, c: vec2<u32>) -> u32 {
    let x = pos[i];
    let r = radius[i];
    let im = inv_mass[i];
    var found = 0u;
    var cols = array<u32, 3>((c.x + params.nx - 1u) % params.nx, c.x, (c.x + 1u) % params.nx);
    var ncols = 3u;
    if params.nx <= 3u {
        cols = array<u32, 3>(0u, 1u, 2u);
        ncols = params.nx;
    }
    let y0 = select(0u, c.y - 1u, c.y > 0u);
    let y1 = min(c.y + 1u, params.ny - 1u);
    for (var ny = y0; ny <= y1; ny++) {
        for (var k = 0u; k < ncols; k++) {
            let cell = ny * params.nx + cols[k];
            for (var s = cell_start[cell]; s < cell_start[cell + 1u]; s++) {
                let j = sorted[s];
                if j == i {
                    continue;
                }
                let nd = normal_along(min_image(x - pos[j], params), i < j);
                let gap = nd.z - (r + radius[j]);
                if gap < params.alert {
                    push(i, found, Contact(j, gap, im + inv_mass[j], 0.0, nd.xy, 0.0, 0.0, vec2<f32>(0.0, 0.0)));
                    found++;
                }
            }
        }
    }
    return found;
}

fn detect_grain(i: u32) -> u32 {
    let x = pos[i];
    let r = radius[i];
    let im = inv_mass[i];
    var found = 0u;
    let c = cell_coords(x, params);
    if params.period > 0.0 {
        found = grain_contacts_periodic(i, c);
    } else {
        found = grain_contacts(i, c);
    }
    for (var k = 0u; k < params.n_segments; k++) {
        let seg = segments[k];
        let t = seg.b - seg.a;
        let rel = x - seg.a;
        let st = (rel.x * t.x + rel.y * t.y) / (t.x * t.x + t.y * t.y);
        if !(st >= 0.0 && st <= 1.0) {
            continue;
        }
        let p = vec2<f32>(seg.a.x + st * t.x, seg.a.y + st * t.y);
        let nd = normal_between(x, p, false);
        var n = nd.xy;
        if nd.z == 0.0 {
            let len = sqrt(t.x * t.x + t.y * t.y);
            n = vec2<f32>(-t.y / len, t.x / len);
        }
        if nd.z - r < params.alert {
            let sd = one_sided(seg, x, p, n, nd.z);
            // model::walls::Walls::segment_velocity_at
            let ends = segment_vel[k];
            let s = clamp(st, 0.0, 1.0);
            let wv = vec2<f32>(ends[0].x + s * (ends[1].x - ends[0].x), ends[0].y + s * (ends[1].y - ends[0].y));
            push(i, found, Contact(BODY_SEGMENT | k, sd.z - r, im, 0.0, sd.xy, 0.0, 0.0, wv));
            found++;
        }
    }
    for (var k = 0u; k < params.n_corners; k++) {
        let corner = corners[k];
        let rel = x - corner.pos;
        var beyond = true;
        for (var e = 0u; e < CORNER_DIRS; e++) {
            let d = corner.dirs[e];
            if rel.x * d.x + rel.y * d.y > 0.0 {
                beyond = false;
            }
        }
        if !beyond {
            continue;
        }
        let nd = normal_between(x, corner.pos, false);
        let gap = nd.z - r;
        if gap < params.alert {
            push(i, found, Contact(BODY_CORNER | k, gap, im, 0.0, nd.xy, 0.0, 0.0, corner_vel[k]));
            found++;
        }
    }
    return found;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    if inv.lid == 0u {
        atomicStore(&wg_overflow, 0u);
        atomicStore(&wg_distinct, 0u);
        atomicStore(&wg_overlap, 0u);
    }
    workgroupBarrier();
    let i = flat_index(inv);
    if i < params.n_grains {
        let found = detect_grain(i);
        count[i] = found;
        let listed = min(found, CAPACITY);
        var distinct = 0u;
        var overlap = 0.0;
        for (var k = 0u; k < listed; k++) {
            let other = slots[i * CAPACITY + k].other;
            // 0.0 - gap, not -gap: a gap of exactly +0.0 would give -0.0,
            // whose bits (0x80000000) win every atomicMax below.
            overlap = max(overlap, 0.0 - slots[i * CAPACITY + k].gap);
            let is_grain = (other & (BODY_SEGMENT | BODY_CORNER)) == 0u;
            if !(is_grain && other < i) {
                distinct++;
            }
        }
        atomicAdd(&wg_overflow, found - listed);
        atomicAdd(&wg_distinct, distinct);
        atomicMax(&wg_overlap, bitcast<u32>(overlap));
    }
    workgroupBarrier();
    if inv.lid == 0u {
        atomicAdd(&stats[STAT_OVERFLOW], atomicLoad(&wg_overflow));
        atomicAdd(&stats[STAT_CONTACTS], atomicLoad(&wg_distinct));
        atomicMax(&stats[STAT_OVERLAP], atomicLoad(&wg_overlap));
    }
}
