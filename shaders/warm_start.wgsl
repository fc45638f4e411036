// Stage warm_start: every listed contact of grain i found again in last step's
// list of grain i (same other body) starts from its previous impulses (normal
// and tangential, the tangent carried into the new contact plane in 3D,
// carry_tangent); others
// start at 0. CPU twin: cpu::warm_start::warm_start. The DEM runs it too, to
// carry a contact law's history (model::law), kept in impulse_t.
// Entry point bounce (restitution e > 0, docs/nscd.md#restitution): every listed contact gets
// its bounce velocity -e u (u < 0 its start-of-step normal velocity, from vel
// before the contacts act, relative to the other grain or to a moving wall's
// wall_vel) when gap + dt u <= 0, else 0. CPU twin:
// cpu::warm_start::bounce.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    let m = min(prev_count[i], CAPACITY);
    for (var k = 0u; k < n; k++) {
        let s = i * CAPACITY + k;
        let other = slots[s].other;
        var p = 0.0;
        var pt = tangent_zero();
        for (var o = 0u; o < m; o++) {
            if prev_slots[i * CAPACITY + o].other == other {
                p = prev_slots[i * CAPACITY + o].impulse;
                pt = carry_tangent(tangent_in(prev_slots[i * CAPACITY + o].impulse_t), vec_in(slots[s].normal));
                break;
            }
        }
        slots[s].impulse = p;
        slots[s].impulse_t = tangent_out(pt);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bounce(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    for (var k = 0u; k < n; k++) {
        let s = i * CAPACITY + k;
        let c = slots[s];
        var vo = vec_in(c.wall_vel);
        if (c.other & (BODY_SEGMENT | BODY_CORNER)) == 0u {
            vo = vec_in(vel[c.other]);
        }
        let dv = vec_in(vel[i]) - vo;
        let u = dot_exact(dv, vec_in(c.normal));
        var b = 0.0;
        if u < 0.0 && c.gap + params.dt * u <= 0.0 {
            b = -params.restitution * u;
        }
        slots[s].bounce = b;
    }
}
