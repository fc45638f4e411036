// The walls of the plane as the detection sees them (shaders/detect.wgsl):
// segments, then corners (cpu::detect::wall_contacts).

// The contacts of grain i (at x, radius r, inverse mass im) with the walls,
// pushed after its `found` grain contacts: segments (only where the centre
// projects inside, 0 <= s_t <= 1; a segment with an inside measures the gap
// with a sign along its inward normal, see one_sided), then corners (only
// where the grain lies beyond every incident segment). A segment's contact
// carries its velocity where the centre projects onto it (s_t clamped to
// [0, 1], linear between its ends' velocities segment_vel[k] = (v_a, v_b)), a
// corner's corner_vel[k]. Returns the new count.
fn wall_contacts(i: u32, x: Vec, r: f32, im: f32, found_before: u32) -> u32 {
    var found = found_before;
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
        var n = nd.n;
        if nd.len == 0.0 {
            let len = sqrt(t.x * t.x + t.y * t.y);
            n = vec2<f32>(-t.y / len, t.x / len);
        }
        if nd.len - r < params.alert {
            let sd = one_sided(seg, x, p, n, nd.len);
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
        let gap = nd.len - r;
        if gap < params.alert {
            push(i, found, Contact(BODY_CORNER | k, gap, im, 0.0, nd.n, 0.0, 0.0, corner_vel[k]));
            found++;
        }
    }
    return found;
}
