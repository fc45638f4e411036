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
    let v_a = vel[i];
    let w_a = ang_vel[i];
    var f = vec2<f32>(0.0, 0.0);
    var tau = 0.0;
    var m_roll = 0.0;
    let keeps_history = ((LAWS_WITH_HISTORY >> law.kind) & 1u) != 0u;
    for (var s = 0u; s < listed; s++) {
        let c = slots[i * CAPACITY + s];
        let delta = -c.gap;
        if delta <= 0.0 {
            if keeps_history {
                slots[i * CAPACITY + s].impulse_t = 0.0;
            }
            continue;
        }
        // A wall turns at 0 with radius 0 and moves at its velocity at the
        // contact (zero for a still wall).
        var v_b = c.wall_vel;
        var w_b = 0.0;
        var r_b = 0.0;
        if (c.other & (BODY_SEGMENT | BODY_CORNER)) == 0u {
            v_b = vel[c.other];
            w_b = ang_vel[c.other];
            r_b = radius[c.other];
        }
        let n = c.normal;
        let t = vec2<f32>(-n.y, n.x);
        let dv = vec2<f32>(v_a.x - v_b.x, v_a.y - v_b.y);
        let u = dv.x * n.x + dv.y * n.y;
        let vt = (dv.x * t.x + dv.y * t.y) - (r_a * w_a + r_b * w_b);
        var hist = c.impulse_t;
        let fnt = contact_law(law, Pair(delta, u, vt, c.inv_mass_sum), &hist);
        if keeps_history {
            slots[i * CAPACITY + s].impulse_t = hist;
        }
        let fn_ = fnt.x;
        let ft = fnt.y;
        f.x += fn_ * n.x + ft * t.x;
        f.y += fn_ * n.y + ft * t.y;
        tau -= r_a * ft;
        m_roll += law.mu_roll * fn_ * r_a;
    }
    let inv_i = 2.0 * inv_mass[i] / (r_a * r_a);
    if inv_i > 0.0 {
        tau += min(max(-(tau + w_a / (inv_i * law.dt)), -m_roll), m_roll);
    }
    force[i] = f;
    torque[i] = tau;
}
