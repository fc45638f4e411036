// Stage apgd: accelerated projected Jacobi (Nesterov momentum with adaptive
// restart) on the impulses, per-grain lists as jacobi_contact / jacobi_gather
// (no atomics on the impulses; one atomic max per workgroup gathers the
// largest residual). One iteration is apgd_gather, apgd_contact, apgd_momentum:
//   apgd_gather:   y = P + theta (P - Q)   (Q: previous iterate, one f32 per slot)
//                  v_i = v_free_i + im_i sum_c y_c n_c
//   apgd_contact:  t  = u(v) + (max(d, 0) + beta min(d + slop, 0)) / dt   (Contact::target)
//                  P' = max(0, y - omega t / W),  Q' = P,
//                  residual[i] = max over grain i's contacts of |P' - y| W / omega (m/s),
//                  state.worst = max_i residual[i] (one atomic per workgroup, on the bits)
//   apgd_momentum: one invocation: r = state.worst; restart if r > r_prev and
//                  (k >= APGD_RESTART_AGE or r > r_run); k = 0 if restart else k + 1;
//                  theta = k / (k + 3); r_prev = r; state.worst = 0;
//                  r_run = r when the run begins (a restart, or k was 0)
// state = (theta, k, r_prev, worst, r_run), reset to (0, 0, f32::MAX, 0, f32::MAX)
// by the host at each step.
// The largest residual is gathered by apgd_contact's workgroups as they go,
// not by a pass of one workgroup over every grain (which grew with N).
// theta is one number for the pile, so both copies of a grain-grain contact stay
// bit-identical (src/model/contact.rs).
// With FRICTION (docs/nscd.md#coulomb-friction-and-rotation; a pipeline constant, false unless the pipeline
// sets it) both impulse components are extrapolated from their previous
// iterates (prev, prev_t), the spins gathered with the velocities, and the
// local Coulomb update relaxed by omega taken at y:
//   apgd_gather:   (y_n, y_t) = P + theta (P - Q) per component
//                  v_i = v_free_i + im_i sum_c (y_n n + y_t),
//                  w_i = w_free_i + spin_kick(im_i, r_i, sum_c n x y_t)
//   apgd_contact:  (P_n', P_t') = coulomb_in(y_n, y_t, target, u_t, W, omega, mu), Q' = P,
//                  residual[i] = max of friction_correction(P' - y)
// (the tangent along t = (-n.y, n.x) in the plane, a vector of the contact
// plane in 3D: jacobi_gather's and jacobi_contact's space functions).
// Written over the space. CPU twins: cpu::apgd::{apgd_gather, apgd_contact,
// apgd_momentum}, FRICTION their const parameter.

override FRICTION: bool = false;

// The momentum state; 20 bytes as the host's [f32; 5] (gpu::apgd::Momentum).
struct ApgdState {
    theta: f32,
    k: f32,
    r_prev: f32,
    // The largest residual of this iteration so far, as the bits of a
    // non-negative f32 (their u32 order is the f32 order).
    worst: atomic<u32>,
    // The residual the momentum run began at.
    r_run: f32,
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn apgd_gather(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let theta = state.theta;
    let n = min(count[i], CAPACITY);
    var acc = vec_zero();
    var acc_t = spin_zero();
    for (var k = 0u; k < n; k++) {
        let s = i * CAPACITY + k;
        let c = slots[s];
        let normal = vec_in(c.normal);
        let y = c.impulse + theta * (c.impulse - prev[s]);
        if FRICTION {
            let pt = tangent_in(c.impulse_t);
            let y_t = pt + theta * (pt - tangent_in(prev_t[s]));
            acc = acc + (y * normal + tangent_vec(normal, y_t));
            acc_t = acc_t + contact_moment(normal, y_t);
        } else {
            acc = acc + y * normal;
        }
    }
    let im = inv_mass[i];
    vel[i] = vec_out(vec_in(vel_free[i]) + im * acc);
    if FRICTION {
        spin[i] = spin_out(spin_in(spin_free[i]) + spin_kick(im, radius[i], acc_t));
    }
}

var<workgroup> wg_worst: atomic<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn apgd_contact(inv: Invocation) {
    if inv.lid == 0u {
        atomicStore(&wg_worst, 0u);
    }
    workgroupBarrier();
    let i = flat_index(inv);
    if i < params.n_grains {
        // Only a positive residual is offered: the bits of -0.0 (or a NaN)
        // would outrank every positive f32 as a u32. The CPU's f32::max fold
        // skips a NaN too.
        let r = project_grain(i);
        atomicMax(&wg_worst, select(0u, bitcast<u32>(r), r > 0.0));
    }
    workgroupBarrier();
    if inv.lid == 0u {
        atomicMax(&state.worst, atomicLoad(&wg_worst));
    }
}

// apgd_contact for grain i: projects its contacts, writes and returns its residual.
fn project_grain(i: u32) -> f32 {
    let theta = state.theta;
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
        let y = c.impulse + theta * (c.impulse - prev[s]);
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
        prev[s] = c.impulse;
        if FRICTION {
            let pt = tangent_in(c.impulse_t);
            let y_t = pt + theta * (pt - tangent_in(prev_t[s]));
            let u_t = contact_slip(c, v, vo, rw, rwo);
            let p = coulomb_in(y, y_t, goal, u_t, c.inv_mass_sum, params.omega, mu_of(c.other, params));
            worst = max(worst, friction_correction(p.n - y, p.t - y_t, c.inv_mass_sum, params.omega));
            prev_t[s] = c.impulse_t;
            slots[s].impulse = p.n;
            slots[s].impulse_t = tangent_out(p.t);
        } else {
            let p = max(y - params.omega * goal / c.inv_mass_sum, 0.0);
            worst = max(worst, abs(p - y) * c.inv_mass_sum / params.omega);
            slots[s].impulse = p;
        }
    }
    residual[i] = worst;
    return worst;
}

// One invocation does the work: the largest residual is already in state.worst.
@compute @workgroup_size(WORKGROUP_SIZE)
fn apgd_momentum(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        let m = bitcast<f32>(atomicLoad(&state.worst));
        let age = state.k;
        var k = age + 1.0;
        if m > state.r_prev && (age >= APGD_RESTART_AGE || m > state.r_run) {
            k = 0.0;
        }
        if k == 0.0 || age == 0.0 {
            state.r_run = m;
        }
        state.theta = k / (k + 3.0);
        state.k = k;
        state.r_prev = m;
        atomicStore(&state.worst, 0u);
    }
}
