// Stage uzawa: projected dual gradient of Maury's velocity projection, every
// contact from one velocity snapshot (then jacobi_gather rebuilds v):
//   rho = s / (im_i N_i + im_j N_j)   (Gershgorin-safe for s in (0, 2); N = listed contacts)
//   t   = u + (max(d, 0) + beta min(d + slop, 0)) / dt   (Contact::target)
//   P'  = max(0, P - rho t)
// residual[i] = max over its contacts of |P' - P| / rho, m/s.
// Written over the space. CPU twin: cpu::uzawa::uzawa_contact.

@compute @workgroup_size(WORKGROUP_SIZE)
fn uzawa_contact(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    let v = vec_in(vel[i]);
    let gi = inv_mass[i] * f32(n);
    var worst = 0.0;
    for (var k = 0u; k < n; k++) {
        let s = i * CAPACITY + k;
        let c = slots[s];
        var vo = vec_zero();
        var gb = 0.0;
        if (c.other & (BODY_SEGMENT | BODY_CORNER)) == 0u {
            vo = vec_in(vel[c.other]);
            gb = inv_mass[c.other] * f32(min(count[c.other], CAPACITY));
        }
        let g = gi + gb;
        var unit = 0.0;
        if g > 0.0 {
            unit = 1.0 / g;
        }
        let rho = step_fraction.x * unit;
        if rho == 0.0 {
            continue;
        }
        let u = dot_exact(v - vo, vec_in(c.normal));
        // Contact::target (src/model/contact.rs)
        let t = normal_goal(c, u, params);
        let p = max(c.impulse - rho * t, 0.0);
        worst = max(worst, abs(p - c.impulse) / rho);
        slots[s].impulse = p;
    }
    residual[i] = worst;
}
