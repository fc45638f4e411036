// The walls of 3D as the detection sees them (shaders/detect.wgsl): planes
// and triangles (segments), edges and vertices (corners), in the body order
// of model::Walls3d (cpu::detect's Detect for Dim3 and Walls3d::mesh_gap):
// every plane, then the mesh's bodies near the sphere (wall_bodies in
// detect.wgsl). The CPU's bounding-box screens skip only bodies farther
// than the alert distance, so the contacts and their order are the same.

// The side test of a triangle's edge from p to q (model::walls3d::Triangle::gap).
fn inside_edge(p: Vec, q: Vec, x: Vec, m: Vec, owns: u32, k: u32) -> bool {
    let side = dot_exact(cross_exact(q - p, x - p), m);
    return side > 0.0 || (side == 0.0 && ((owns >> k) & 1u) == 1u);
}

// The normal of triangle k (segments[k]) and x's distance along it: of a
// one-sided triangle the normal towards its inside and the signed distance
// (negative once x crossed it), of a two-sided one the normal facing x and
// |d|; a zero normal where x does not project inside it. Read field by
// field from the buffer (a copy of the record would cost more than the test).
fn face_gap(k: u32, x: Vec) -> Dir {
    let m = vec_in(segments[k].n);
    let a = vec_in(segments[k].a);
    let b = vec_in(segments[k].b);
    let c = vec_in(segments[k].c);
    let owns = segments[k].owns;
    if !(inside_edge(a, b, x, m, owns, 0u) && inside_edge(b, c, x, m, owns, 1u) && inside_edge(c, a, x, m, owns, 2u)) {
        return Dir(vec_zero(), 0.0);
    }
    let d = dot_exact(x - a, m);
    let side = segments[k].side;
    if side != 0.0 {
        return Dir(m * side, d * side);
    }
    return Dir(select(m, -m, d < 0.0), abs(d));
}

// The normal from edge or vertex k (corners[k]) to x and their distance;
// len < 0 where x does not project onto the edge or lies level with or
// ahead of one of its directions (model::walls3d::Edge::gap, Vertex::gap).
fn corner_gap(k: u32, x: Vec) -> Dir {
    let a = vec_in(corners[k].a);
    let rel = x - a;
    var p = a;
    if corners[k].kind == RIDGE_EDGE {
        let t = vec_in(corners[k].b) - a;
        let st = dot_exact(rel, t) / dot_exact(t, t);
        if !(st >= 0.0 && st <= 1.0) {
            return Dir(vec_zero(), -1.0);
        }
        p = vec3<f32>(a.x + st * t.x, a.y + st * t.y, a.z + st * t.z);
    }
    var record = k;
    var left = corners[k].count;
    loop {
        for (var e = 0u; e < min(left, SOLID_DIRS); e++) {
            if dot_exact(rel, vec_in(corners[record].dirs[e])) >= 0.0 {
                return Dir(vec_zero(), -1.0);
            }
        }
        if left <= SOLID_DIRS {
            break;
        }
        left -= SOLID_DIRS;
        record = corners[record].more;
    }
    let d = x - p;
    let len = sqrt(dot_exact(d, d));
    if len > 0.0 {
        return Dir(d / len, len);
    }
    return Dir(axis_x(false), 0.0);
}

// The planes (segments 0 .. planes), every one tried, before the mesh's bodies.
fn first_walls(i: u32, x: Vec, r: f32, im: f32, found_before: u32) -> u32 {
    var found = found_before;
    for (var k = 0u; k < wall_index[INDEX_PLANES]; k++) {
        let n = segments[k].n;
        let gap = dot_exact(x - vec_in(segments[k].a), vec_in(n)) - r;
        if gap < params.alert {
            push(i, found, Contact(BODY_SEGMENT | k, gap, im, 0.0, n, tangent_out(tangent_zero()), 0.0, segment_vel[k]));
            found++;
        }
    }
    return found;
}

// Sphere i's contact with mesh body b (triangles, then edges, then
// vertices: b < split is triangle b, segment planes + b; the others are
// corner b - split), if any, pushed after its `found` contacts and carrying
// its body's velocity (zero for still walls). Returns the new count. A
// triangle acts within `reach` of its plane (model::walls3d::Triangle::gap_within).
fn body_contact(i: u32, b: u32, split: u32, x: Vec, r: f32, im: f32, reach: f32, found: u32) -> u32 {
    if b < split {
        let k = wall_index[INDEX_PLANES] + b;
        let g = face_gap(k, x);
        let gap = g.len - r;
        if any(g.n != vec_zero()) && abs(g.len) <= reach && gap < params.alert {
            push(i, found, Contact(BODY_SEGMENT | k, gap, im, 0.0, vec_out(g.n), tangent_out(tangent_zero()), 0.0, segment_vel[k]));
            return found + 1u;
        }
        return found;
    }
    let k = b - split;
    let g = corner_gap(k, x);
    let gap = g.len - r;
    if g.len >= 0.0 && gap < params.alert {
        push(i, found, Contact(BODY_CORNER | k, gap, im, 0.0, vec_out(g.n), tangent_out(tangent_zero()), 0.0, corner_vel[k]));
        return found + 1u;
    }
    return found;
}
