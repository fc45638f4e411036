// Stage jacobi_gather: v_i = v_free_i + im_i sum_c P_c n_c over grain i's own
// contact copies (no atomics). With FRICTION (docs/nscd.md#coulomb-friction-and-rotation; a pipeline
// constant, false unless the pipeline sets it) velocity and spin from the
// free ones and both impulse components (tangent_vec: P_t (-n.y, n.x) in
// the plane, P_t itself in 3D; contact_moment: n x P_t):
//   v_i = v_free_i + im_i sum_c (P_n n + P_t),  w_i = w_free_i + spin_kick(im_i, r_i, sum_c n x P_t)
// Written over the space. CPU twin: cpu::jacobi::jacobi_gather (same sums,
// same order: cpu::jacobi::friction_sums), FRICTION its const parameter.

override FRICTION: bool = false;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    var acc = vec_zero();
    var acc_t = spin_zero();
    for (var k = 0u; k < n; k++) {
        let c = slots[i * CAPACITY + k];
        let normal = vec_in(c.normal);
        if FRICTION {
            let pt = tangent_in(c.impulse_t);
            acc = acc + (c.impulse * normal + tangent_vec(normal, pt));
            acc_t = acc_t + contact_moment(normal, pt);
        } else {
            acc = acc + c.impulse * normal;
        }
    }
    let im = inv_mass[i];
    vel[i] = vec_out(vec_in(vel_free[i]) + im * acc);
    if FRICTION {
        spin[i] = spin_out(spin_in(spin_free[i]) + spin_kick(im, radius[i], acc_t));
    }
}
