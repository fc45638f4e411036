// Stage jacobi_contact: for every listed contact of grain i, from one velocity snapshot,
//   u  = (v_i - v_other) . n,   target = u + (max(d, 0) + beta min(d + slop, 0)) / dt - w_n
//   P' = max(0, P - omega target / W)
// and residual[i] = max over its contacts of |P' - P| W / omega (m/s), reduced by
// residual_max. With FRICTION (docs/nscd.md#coulomb-friction-and-rotation, StepParams::friction; a pipeline
// constant, false unless the pipeline sets it), with t = (-n.y, n.x) and w the
// spins (`spin`, rad/s),
//   u_t = (v_i - v_other) . t - (r_i w_i + r_other w_other)
//   (P_n', P_t') = coulomb(P_n, P_t, target, u_t, W, omega, mu)
// where a wall's v_other is its surface velocity at the contact, wall_vel (zero for
// a still wall), w_n = wall_vel . n (normal_goal and contact_slip in shared.wgsl)
// and residual[i] = max of friction_correction(P' - P). Both copies of a
// grain-grain contact see the same (u, u_t), so they stay equal.
// CPU twin: cpu::jacobi::jacobi_contact (which returns the max directly),
// FRICTION its const parameter.

override FRICTION: bool = false;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    let v = vel[i];
    var rw = 0.0;
    if FRICTION {
        rw = radius[i] * spin[i];
    }
    var worst = 0.0;
    for (var k = 0u; k < n; k++) {
        let s = i * CAPACITY + k;
        let c = slots[s];
        var vo = vec2<f32>(0.0, 0.0);
        var rwo = 0.0;
        if (c.other & (BODY_SEGMENT | BODY_CORNER)) == 0u {
            vo = vel[c.other];
            if FRICTION {
                rwo = radius[c.other] * spin[c.other];
            }
        }
        let dv = vec2<f32>(v.x - vo.x, v.y - vo.y);
        let u = dv.x * c.normal.x + dv.y * c.normal.y;
        // Contact::target (src/model/contact.rs)
        let goal = normal_goal(c, u, params);
        if FRICTION {
            let u_t = contact_slip(c, v, vo, rw, rwo);
            let p = coulomb(c.impulse, c.impulse_t, goal, u_t, c.inv_mass_sum, params.omega, mu_of(c.other, params));
            worst = max(worst, friction_correction(p.x - c.impulse, p.y - c.impulse_t, c.inv_mass_sum, params.omega));
            slots[s].impulse = p.x;
            slots[s].impulse_t = p.y;
        } else {
            let p = max(c.impulse - params.omega * goal / c.inv_mass_sum, 0.0);
            worst = max(worst, abs(p - c.impulse) * c.inv_mass_sum / params.omega);
            slots[s].impulse = p;
        }
    }
    residual[i] = worst;
}
