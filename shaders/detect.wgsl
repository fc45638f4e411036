// Stage detect: potential contacts (gap < alert) of each grain into its list of
// CAPACITY slots; count[i] = contacts FOUND (may exceed CAPACITY; only the first
// CAPACITY are written). Order: grains of the 3x3 (x 3 in 3D) cells (layer, row
// and column order, bin order), then the walls in the space's body order
// (wall_contacts: shaders/space/plane_walls.wgsl, segments then corners;
// shaders/space/solid_walls.wgsl, planes, triangles, edges, vertices, the
// mesh's through its index, wall_index, when it has one).
// A wall contact carries the wall's velocity at the contact, wall_vel; zero
// for a grain (and, from zero velocities, for still walls).
// Per workgroup, the overflow sum(max(0, count - K)) and the distinct listed
// contacts (a grain pair once) are added to stats, and the deepest listed
// overlap max(0, -gap) is maxed into stats[STAT_OVERLAP] (f32 bits; twin
// ContactLists::max_overlap). On a grid periodic along x (params.period > 0) the
// 3x3 block wraps around in x and a grain pair's offset is its minimum image
// (grain_contacts_periodic, the plane's). CPU twin: cpu::detect::detect.

var<workgroup> wg_overflow: atomic<u32>;
var<workgroup> wg_distinct: atomic<u32>;
var<workgroup> wg_overlap: atomic<u32>;

// A unit normal and a distance.
struct Dir {
    n: Vec,
    len: f32,
}

// The normal from `origin` to x and their distance; a coincident pair gets a
// fixed axis normal whose sign depends on flip, so the two copies stay
// opposite (cpu::detect::normal_between).
fn normal_between(x: Vec, origin: Vec, flip: bool) -> Dir {
    return normal_along(x - origin, flip);
}

// normal_between of the offset d = x - from (cpu::detect::normal_along).
fn normal_along(d: Vec, flip: bool) -> Dir {
    let len = sqrt(dot_exact(d, d));
    if len > 0.0 {
        return Dir(d / len, len);
    }
    return Dir(axis_x(flip), 0.0);
}

fn push(i: u32, found: u32, c: Contact) {
    if found < CAPACITY {
        slots[i * CAPACITY + found] = c;
    }
}

// Grain j's contact with grain i (at x, radius r, inverse mass im) at offset
// d = x - x_j, if within the alert distance: pushed as grain i's next; returns
// the new count.
fn grain_pair(i: u32, j: u32, d: Vec, r: f32, im: f32, found: u32) -> u32 {
    let nd = normal_along(d, i < j);
    let gap = nd.len - (r + radius[j]);
    if gap < params.alert {
        push(i, found, Contact(j, gap, im + inv_mass[j], 0.0, vec_out(nd.n), tangent_out(tangent_zero()), 0.0, vec_out(vec_zero())));
        return found + 1u;
    }
    return found;
}

// The grain contacts of grain i in cell c: the grains of the 3 x 3 (x 3)
// cells around it (layer, row, then column order, bin order). Returns how many.
fn grain_contacts(i: u32, c: vec3<u32>) -> u32 {
    let x = vec_in(pos[i]);
    let r = radius[i];
    let im = inv_mass[i];
    var found = 0u;
    let z0 = select(0u, c.z - 1u, c.z > 0u);
    let y0 = select(0u, c.y - 1u, c.y > 0u);
    let x0 = select(0u, c.x - 1u, c.x > 0u);
    let z1 = min(c.z + 1u, params.nz - 1u);
    let y1 = min(c.y + 1u, params.ny - 1u);
    let x1 = min(c.x + 1u, params.nx - 1u);
    for (var nz = z0; nz <= z1; nz++) {
        for (var ny = y0; ny <= y1; ny++) {
            for (var nx = x0; nx <= x1; nx++) {
                let cell = (nz * params.ny + ny) * params.nx + nx;
                for (var s = cell_start[cell]; s < cell_start[cell + 1u]; s++) {
                    let j = sorted[s];
                    if j != i {
                        found = grain_pair(i, j, x - vec_in(pos[j]), r, im, found);
                    }
                }
            }
        }
    }
    return found;
}

// The grain contacts of grain i in cell c of a grid periodic along x (the
// plane's): the 3x3 block's columns wrap modulo nx, in the order (cx - 1, cx,
// cx + 1) wrapped (0, 1, 2 when nx = 3), and each offset is its minimum image
// (cpu::detect::grain_contacts_periodic, wrapped_columns). Returns how many.
fn grain_contacts_periodic(i: u32, c: vec3<u32>) -> u32 {
    let x = vec_in(pos[i]);
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
                if j != i {
                    found = grain_pair(i, j, min_image(x - vec_in(pos[j]), params), r, im, found);
                }
            }
        }
    }
    return found;
}

// The walls' index (gpu::space::wall_index): a header, then per cell of a
// grid over the mesh the start of its bodies' list, then the lists.
const INDEX_DIMS: u32 = 0u;       // cells along x, y, z (0: no index)
const INDEX_LO: u32 = 3u;         // the grid's lower corner, f32 bits
const INDEX_CELL: u32 = 6u;       // its cell side, f32 bits
const INDEX_REACH: u32 = 7u;      // the reach its lists hold for, f32 bits
const INDEX_PLANES: u32 = 8u;     // walls tried before the indexed bodies (3D's planes)
const INDEX_SPLIT: u32 = 9u;      // bodies of the segment kind among the indexed ones
const INDEX_BODIES: u32 = 10u;    // bodies indexed
const INDEX_HEADER: u32 = 16u;

// The contacts of grain i (at x, radius r, inverse mass im) with the walls,
// pushed after its `found` grain contacts in the body order of the CPU
// (cpu::detect::Detect::wall_contacts): the space's first walls
// (first_walls), then its indexed bodies (body_contact) near x: with an
// index for this reach ((r + alert) SURELY_BEYOND) those of x's cell, none
// outside its grid (model::walls3d::WallIndex::near); else every one.
fn wall_contacts(i: u32, x: Vec, r: f32, im: f32, found_before: u32) -> u32 {
    var found = first_walls(i, x, r, im, found_before);
    let split = wall_index[INDEX_SPLIT];
    let dims = vec3<u32>(wall_index[INDEX_DIMS], wall_index[INDEX_DIMS + 1u], wall_index[INDEX_DIMS + 2u]);
    let reach = (r + params.alert) * SURELY_BEYOND;
    if dims.x == 0u || bitcast<f32>(wall_index[INDEX_REACH]) < reach {
        for (var b = 0u; b < wall_index[INDEX_BODIES]; b++) {
            found = body_contact(i, b, split, x, r, im, reach, found);
        }
        return found;
    }
    let cell = bitcast<f32>(wall_index[INDEX_CELL]);
    var c = vec3<u32>(0u, 0u, 0u);
    for (var k = 0u; k < DIM; k++) {
        let f = (x[k] - bitcast<f32>(wall_index[INDEX_LO + k])) / cell;
        if !(f >= 0.0 && f < f32(dims[k])) {
            return found;
        }
        c[k] = min(u32(f), dims[k] - 1u);
    }
    let at = INDEX_HEADER + (c.z * dims.y + c.y) * dims.x + c.x;
    let first = INDEX_HEADER + dims.x * dims.y * dims.z + 1u;
    for (var s = wall_index[at]; s < wall_index[at + 1u]; s++) {
        found = body_contact(i, wall_index[first + s], split, x, r, im, reach, found);
    }
    return found;
}

fn detect_grain(i: u32) -> u32 {
    let x = vec_in(pos[i]);
    let c = cell_coords(x, params);
    var found = 0u;
    if params.period > 0.0 {
        found = grain_contacts_periodic(i, c);
    } else {
        found = grain_contacts(i, c);
    }
    return wall_contacts(i, x, radius[i], inv_mass[i], found);
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
