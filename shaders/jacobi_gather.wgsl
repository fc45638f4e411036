// Stage jacobi_gather: v_i = v_free_i + im_i sum_c P_c n_c over grain i's own
// contact copies (no atomics). With FRICTION (docs/nscd.md#coulomb-friction-and-rotation; a pipeline
// constant, false unless the pipeline sets it) velocity and spin from the
// free ones and both impulse components, t = (-n.y, n.x):
//   v_i = v_free_i + im_i sum_c (P_n n + P_t t),  w_i = w_free_i + spin_kick(im_i, r_i, sum_c P_t)
// CPU twin: cpu::jacobi::jacobi_gather (same sums, same order), FRICTION its
// const parameter.

override FRICTION: bool = false;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    var acc = vec2<f32>(0.0, 0.0);
    var acc_t = 0.0;
    for (var k = 0u; k < n; k++) {
        let c = slots[i * CAPACITY + k];
        if FRICTION {
            acc = vec2<f32>(acc.x + (c.impulse * c.normal.x + c.impulse_t * -c.normal.y),
                            acc.y + (c.impulse * c.normal.y + c.impulse_t * c.normal.x));
            acc_t += c.impulse_t;
        } else {
            acc = vec2<f32>(acc.x + c.impulse * c.normal.x, acc.y + c.impulse * c.normal.y);
        }
    }
    let im = inv_mass[i];
    let vf = vel_free[i];
    vel[i] = vec2<f32>(vf.x + im * acc.x, vf.y + im * acc.y);
    if FRICTION {
        spin[i] = spin_free[i] + spin_kick(im, radius[i], acc_t);
    }
}
