// The walls of 3D as the detection sees them (shaders/detect.wgsl): planes
// and triangles (segments), edges and vertices (corners), in the body order
// of model::Walls3d (cpu::detect's Detect for Dim3 and Walls3d::mesh_gap).
// Every body is tried: the CPU's wall index and bounding-box screens skip
// only bodies farther than the alert distance, so the contacts and their
// order are the same.

// The side test of a triangle's edge from p to q (model::walls3d::Triangle::gap).
fn inside_edge(p: Vec, q: Vec, x: Vec, m: Vec, owns: u32, k: u32) -> bool {
    let side = dot_exact(cross_exact(q - p, x - p), m);
    return side > 0.0 || (side == 0.0 && ((owns >> k) & 1u) == 1u);
}

// The normal and distance of a face to x: (n, d) with d the signed distance
// along n of a plane, |d| with n facing x of a triangle; len < 0 where x
// does not project inside the triangle.
fn face_gap(f: Segment, x: Vec) -> Dir {
    let m = vec_in(f.n);
    let a = vec_in(f.a);
    if f.kind == FACE_PLANE {
        return Dir(m, dot_exact(x - a, m));
    }
    let b = vec_in(f.b);
    let c = vec_in(f.c);
    if !(inside_edge(a, b, x, m, f.owns, 0u) && inside_edge(b, c, x, m, f.owns, 1u) && inside_edge(c, a, x, m, f.owns, 2u)) {
        return Dir(m, -1.0);
    }
    let d = dot_exact(x - a, m);
    return Dir(select(m, -m, d < 0.0), abs(d));
}

// The normal from an edge or vertex to x and their distance; len < 0 where
// x does not project onto the edge or lies level with or ahead of one of
// its directions (model::walls3d::Edge::gap, Vertex::gap).
fn corner_gap(c: Corner, x: Vec) -> Dir {
    let a = vec_in(c.a);
    let rel = x - a;
    var p = a;
    if c.kind == RIDGE_EDGE {
        let t = vec_in(c.b) - a;
        let st = dot_exact(rel, t) / dot_exact(t, t);
        if !(st >= 0.0 && st <= 1.0) {
            return Dir(vec_zero(), -1.0);
        }
        p = vec3<f32>(a.x + st * t.x, a.y + st * t.y, a.z + st * t.z);
    }
    for (var e = 0u; e < c.count; e++) {
        if dot_exact(rel, vec_in(c.dirs[e])) >= 0.0 {
            return Dir(vec_zero(), -1.0);
        }
    }
    let d = x - p;
    let len = sqrt(dot_exact(d, d));
    if len > 0.0 {
        return Dir(d / len, len);
    }
    return Dir(axis_x(false), 0.0);
}

// The contacts of grain i (at x, radius r, inverse mass im) with the walls,
// pushed after its `found` grain contacts; each carries its body's velocity
// (segment_vel, corner_vel: zero for still walls). Returns the new count.
fn wall_contacts(i: u32, x: Vec, r: f32, im: f32, found_before: u32) -> u32 {
    var found = found_before;
    for (var k = 0u; k < params.n_segments; k++) {
        let f = segments[k];
        let g = face_gap(f, x);
        let gap = g.len - r;
        if (f.kind == FACE_PLANE || g.len >= 0.0) && gap < params.alert {
            push(i, found, Contact(BODY_SEGMENT | k, gap, im, 0.0, vec_out(g.n), tangent_out(tangent_zero()), 0.0, segment_vel[k]));
            found++;
        }
    }
    for (var k = 0u; k < params.n_corners; k++) {
        let g = corner_gap(corners[k], x);
        let gap = g.len - r;
        if g.len >= 0.0 && gap < params.alert {
            push(i, found, Contact(BODY_CORNER | k, gap, im, 0.0, vec_out(g.n), tangent_out(tangent_zero()), 0.0, corner_vel[k]));
            found++;
        }
    }
    return found;
}
