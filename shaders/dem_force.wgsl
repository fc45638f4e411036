// Stage dem_force: force and torque on each grain from its own contact list
// (the contact law DemLaw::kind selects, `contact_law`, composed from
// shaders/laws/ by model::law::wgsl; rolling resistance); no atomics. A law
// with history reads and writes it in the slot's impulse_t (0 for an open
// contact). A wall's velocity at the contact is the slot's wall_vel, filled by
// detect. The kinematics and their derivation: src/cpu/dem/mod.rs.
// CPU twin: cpu::dem::force::dem_force (with history: dem_force_history).

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let listed = min(count[i], CAPACITY);
    let r_a = radius[i];
    let v_a = vec_in(vel[i]);
    let w_a = spin_in(ang_vel[i]);
    var f = vec_zero();
    var tau = spin_zero();
    var m_roll = 0.0;
    let keeps_history = ((LAWS_WITH_HISTORY >> law.kind) & 1u) != 0u;
    for (var s = 0u; s < listed; s++) {
        let c = slots[i * CAPACITY + s];
        let delta = -c.gap;
        if delta <= 0.0 {
            if keeps_history {
                slots[i * CAPACITY + s].impulse_t = tangent_out(tangent_zero());
            }
            continue;
        }
        // A wall turns at 0 with radius 0 and moves at its velocity at the
        // contact (zero for a still wall).
        var v_b = vec_in(c.wall_vel);
        var w_b = spin_zero();
        var r_b = 0.0;
        if (c.other & (BODY_SEGMENT | BODY_CORNER)) == 0u {
            v_b = vec_in(vel[c.other]);
            w_b = spin_in(ang_vel[c.other]);
            r_b = radius[c.other];
        }
        let n = vec_in(c.normal);
        let u = dot_exact(v_a - v_b, n);
        let vt = slip(n, v_a, v_b, r_a * w_a, r_b * w_b);
        var hist = tangent_in(c.impulse_t);
        let fnt = contact_law(law, Pair(delta, u, vt, c.inv_mass_sum), &hist);
        if keeps_history {
            slots[i * CAPACITY + s].impulse_t = tangent_out(hist);
        }
        f += contact_force(n, fnt.n, fnt.t);
        tau -= r_a * contact_moment(n, fnt.t);
        m_roll += law.mu_roll * fnt.n * r_a;
    }
    let inv_i = inv_inertia(inv_mass[i], r_a);
    if inv_i > 0.0 {
        tau += spin_cap(-(tau + w_a / (inv_i * law.dt)), m_roll);
    }
    force[i] = vec_out(f);
    torque[i] = spin_out(tau);
}
