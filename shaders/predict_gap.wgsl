// Stage predict_gap: for every listed contact of grain i, a copy with the gap
// the solved velocities will leave after the step and a zero impulse (the
// overlap correction's own accumulator, written to the scratch lists `out`)
// and no bounce (restitution acted on the velocities; the correction only
// pushes overlaps out); a moving wall has moved with the step, so the gap is
// the one it leaves at the end and the copy sees the wall still:
//   d' = d + dt ((v_i - v_other) . n - w_n),   P = 0,   bounce = 0,   wall_vel = 0
// with w_n = wall_vel . n (zero for a grain or a still wall).
// Written over the space. CPU twin: cpu::correct::predict_gap.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    let v = vec_in(vel[i]);
    for (var k = 0u; k < n; k++) {
        let s = i * CAPACITY + k;
        var c = slots[s];
        var vo = vec_zero();
        if (c.other & (BODY_SEGMENT | BODY_CORNER)) == 0u {
            vo = vec_in(vel[c.other]);
        }
        let u = dot_exact(v - vo, vec_in(c.normal)) - wall_normal_velocity(c);
        c.gap = c.gap + params.dt * u;
        c.impulse = 0.0;
        c.bounce = 0.0;
        c.wall_vel = vec_out(vec_zero());
        out[s] = c;
    }
}
