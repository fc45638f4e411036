// Stage jacobi_contact: for every listed contact of grain i, from one velocity snapshot,
//   u  = (v_i - v_other) . n,   target = u + (max(d, 0) + beta min(d + slop, 0)) / dt - w_n
//   P' = max(0, P - omega target / W)
// and residual[i] = max over its contacts of |P' - P| W / omega (m/s), reduced by
// residual_max. With FRICTION (docs/nscd.md#coulomb-friction-and-rotation, StepParams::friction; a pipeline
// constant, false unless the pipeline sets it), with w the spins (`spin`,
// rad/s) and u_t the slip of the contact points (`contact_slip`: along t =
// (-n.y, n.x) in the plane, a vector of the contact plane in 3D),
//   (P_n', P_t') = coulomb_in(P_n, P_t, target, u_t, W, omega, mu)
// where a wall's v_other is its surface velocity at the contact, wall_vel (zero for
// a still wall), w_n = wall_vel . n (normal_goal and contact_slip in shared.wgsl)
// and residual[i] = max of friction_correction(P' - P). Both copies of a
// grain-grain contact see the same (u, u_t) (opposite tangents in 3D), so
// they stay equal. Written over the space (either space's stage).
// CPU twin: cpu::jacobi::jacobi_contact (which returns the max directly),
// FRICTION its const parameter.

override FRICTION: bool = false;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    let v = vec_in(vel[i]);
    var rw = spin_zero();
    if FRICTION {
        rw = spin_scale(spin_in(spin[i]), radius[i]);
    }
    var worst = 0.0;
    for (var k = 0u; k < n; k++) {
        let s = i * CAPACITY + k;
        let c = slots[s];
        var vo = vec_zero();
        var rwo = spin_zero();
        if (c.other & (BODY_SEGMENT | BODY_CORNER)) == 0u {
            vo = vec_in(vel[c.other]);
            if FRICTION {
                rwo = spin_scale(spin_in(spin[c.other]), radius[c.other]);
            }
        }
        let u = dot_exact(v - vo, vec_in(c.normal));
        // Contact::target (src/model/contact.rs)
        let goal = normal_goal(c, u, params);
        if FRICTION {
            let u_t = contact_slip(c, v, vo, rw, rwo);
            let pt0 = tangent_in(c.impulse_t);
            let p = coulomb_in(c.impulse, pt0, goal, u_t, c.inv_mass_sum, params.omega, mu_of(c.other, params));
            worst = max(worst, friction_correction(p.n - c.impulse, p.t - pt0, c.inv_mass_sum, params.omega));
            slots[s].impulse = p.n;
            slots[s].impulse_t = tangent_out(p.t);
        } else {
            let p = max(c.impulse - params.omega * goal / c.inv_mass_sum, 0.0);
            worst = max(worst, abs(p - c.impulse) * c.inv_mass_sum / params.omega);
            slots[s].impulse = p;
        }
    }
    residual[i] = worst;
}
