// The walls of the plane as the detection sees them (shaders/detect.wgsl):
// no bodies before the indexed ones; body b < split is segment b, the
// others corner b - split (cpu::detect::wall_contacts: segments, then corners).

// No wall of the plane comes before its segments.
fn first_walls(i: u32, x: Vec, r: f32, im: f32, found: u32) -> u32 {
    return found;
}

// Grain i's contact with wall body b, if any, pushed after its `found`
// contacts: a segment only where the centre projects inside, 0 <= s_t <= 1
// (a segment with an inside measures the gap with a sign along its inward
// normal, see one_sided), carrying its velocity where the centre projects
// onto it (s_t clamped to [0, 1], linear between its ends' velocities
// segment_vel[k] = (v_a, v_b)); a corner only where the grain lies beyond
// every incident segment, carrying corner_vel[k]. Returns the new count.
// (`reach` is 3D's: a plane's segment keeps a grain by its unsigned gap.)
fn body_contact(i: u32, b: u32, split: u32, x: Vec, r: f32, im: f32, reach: f32, found: u32) -> u32 {
    if b < split {
        let k = b;
        let seg = segments[k];
        let t = seg.b - seg.a;
        let rel = x - seg.a;
        let st = (rel.x * t.x + rel.y * t.y) / (t.x * t.x + t.y * t.y);
        if !(st >= 0.0 && st <= 1.0) {
            return found;
        }
        let p = vec2<f32>(seg.a.x + st * t.x, seg.a.y + st * t.y);
        let nd = normal_between(x, p, false);
        var n = nd.n;
        if nd.len == 0.0 {
            let len = sqrt(t.x * t.x + t.y * t.y);
            n = vec2<f32>(-t.y / len, t.x / len);
        }
        if !(nd.len - r < params.alert) {
            return found;
        }
        let sd = one_sided(seg, x, p, n, nd.len);
        // model::walls::Walls::segment_velocity_at
        let ends = segment_vel[k];
        let s = clamp(st, 0.0, 1.0);
        let wv = vec2<f32>(ends[0].x + s * (ends[1].x - ends[0].x), ends[0].y + s * (ends[1].y - ends[0].y));
        push(i, found, Contact(BODY_SEGMENT | k, sd.z - r, im, 0.0, sd.xy, 0.0, 0.0, wv));
        return found + 1u;
    }
    let k = b - split;
    let corner = corners[k];
    let rel = x - corner.pos;
    for (var e = 0u; e < CORNER_DIRS; e++) {
        let d = corner.dirs[e];
        if rel.x * d.x + rel.y * d.y > 0.0 {
            return found;
        }
    }
    let nd = normal_between(x, corner.pos, false);
    let gap = nd.len - r;
    if !(gap < params.alert) {
        return found;
    }
    push(i, found, Contact(BODY_CORNER | k, gap, im, 0.0, nd.n, 0.0, 0.0, corner_vel[k]));
    return found + 1u;
}
