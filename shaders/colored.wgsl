// Stage colored: one colour of graph-coloured NLGS. After the colouring, the
// owned contacts are bucketed by colour into one list of slot indices
// (colour k at bucket[start_k .. start_k + size_k]); a colour's pass then runs
// one invocation per contact of that colour. Within a colour no movable grain
// has two contacts, so the velocity writes never collide (a fixed grain's
// velocity is never written). CPU twin: cpu::colored (same names).
//   bucket_count:   size_k of every colour (atomics), one invocation per grain
//   bucket_scatter: slot indices into bucket from cursor_k = start_k (atomics; the
//                   order inside a colour is free: its updates commute exactly)
//   solve:    u = (v_a - v_b).n, t = u + (max(d,0) + beta min(d + slop,0))/dt,
//             P' = max(0, P - sor t/W), v_a += im_a dP n, v_b -= im_b dP n,
//             (sor = relax.x: 1.8 far from convergence, 1 near it; the host
//             sets it between batches by model::solver::colored_sor)
//             residual[a] = max(residual[a], |dP| W) (atomic on the f32 bits,
//             which order like the values for non-negative floats; the host
//             clears residual before the iteration it reads)
//   overflow: the same, serially over every grain, for OVERFLOW_COLOR (one invocation)
//   mirror:   every non-owned copy takes its owner's impulse (end of step), its
//             tangent seen from its own grain (mirror_tangent: the same
//             coordinate in the plane, the opposite vector in 3D)
// Written over the space (either space's stage): velocities, spins and
// tangents are the space's (shaders/space/).

// Friction (docs/nscd.md#coulomb-friction-and-rotation): a pipeline constant, false unless the pipeline sets it.
override FRICTION: bool = false;

const WALL: u32 = BODY_SEGMENT | BODY_CORNER;

fn owns(i: u32, other: u32) -> bool {
    return (other & WALL) != 0u || other > i;
}

// The overflow pass solves owned copies and orphans: copies whose owner's
// full list dropped the contact (cpu::colored::solves_overflow).
fn solves_overflow(a: u32, other: u32) -> bool {
    if owns(a, other) {
        return true;
    }
    let m = min(count[other], CAPACITY);
    for (var t = 0u; t < m; t++) {
        if slots[other * CAPACITY + t].other == a {
            return false;
        }
    }
    return true;
}

// cpu::colored::update: update_friction with FRICTION, else update.
fn visit(s: u32, a: u32) -> f32 {
    if FRICTION {
        return update_friction(s, a);
    }
    return update(s, a);
}

// cpu::colored::update without friction; returns |dP| W.
fn update(s: u32, a: u32) -> f32 {
    let c = slots[s];
    let pair = (c.other & WALL) == 0u;
    var vb = vec_zero();
    if pair {
        vb = vec_in(vel[c.other]);
    }
    let va = vec_in(vel[a]);
    let normal = vec_in(c.normal);
    let u = dot_exact(va - vb, normal);
    // Contact::target (src/model/contact.rs)
    let t = normal_goal(c, u, params);
    let p = max(c.impulse - relax.x * t / c.inv_mass_sum, 0.0);
    let dp = p - c.impulse;
    slots[s].impulse = p;
    let ia = inv_mass[a] * dp;
    if ia != 0.0 {
        vel[a] = vec_out(va + ia * normal);
    }
    if pair {
        let ib = inv_mass[c.other] * dp;
        if ib != 0.0 {
            vel[c.other] = vec_out(vb - ib * normal);
        }
    }
    return abs(dp * c.inv_mass_sum);
}

// Owned copies of colour < MAX_COLORS: the contacts the colour passes solve
// (the overflow colour and orphans are left to colored_overflow).
fn bucketed(a: u32, idx: u32) -> bool {
    return color[idx] < MAX_COLORS && owns(a, slots[idx].other);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn colored_bucket_count(inv: Invocation) {
    let a = flat_index(inv);
    if a >= params.n_grains { return; }
    let n = min(count[a], CAPACITY);
    for (var s = 0u; s < n; s++) {
        let idx = a * CAPACITY + s;
        if bucketed(a, idx) {
            atomicAdd(&bucket_size[color[idx]], 1u);
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn colored_bucket_scatter(inv: Invocation) {
    let a = flat_index(inv);
    if a >= params.n_grains { return; }
    let n = min(count[a], CAPACITY);
    for (var s = 0u; s < n; s++) {
        let idx = a * CAPACITY + s;
        if bucketed(a, idx) {
            bucket[atomicAdd(&bucket_cursor[color[idx]], 1u)] = idx;
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn colored_solve(inv: Invocation) {
    let t = flat_index(inv);
    if t >= pass_color.z { return; }
    let idx = bucket[pass_color.y + t];
    // Scenes have CAPACITY >= 1; max() keeps the module valid at 0, where no slot exists.
    let a = idx / max(CAPACITY, 1u);
    atomicMax(&residual[a], bitcast<u32>(visit(idx, a)));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn colored_overflow(inv: Invocation) {
    if flat_index(inv) != 0u { return; }
    for (var a = 0u; a < params.n_grains; a++) {
        let n = min(count[a], CAPACITY);
        for (var s = 0u; s < n; s++) {
            let idx = a * CAPACITY + s;
            if color[idx] == OVERFLOW_COLOR && solves_overflow(a, slots[idx].other) {
                atomicMax(&residual[a], bitcast<u32>(visit(idx, a)));
            }
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn colored_mirror(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let n = min(count[i], CAPACITY);
    for (var s = 0u; s < n; s++) {
        let j = slots[i * CAPACITY + s].other;
        if owns(i, j) {
            continue;
        }
        let m = min(count[j], CAPACITY);
        for (var t = 0u; t < m; t++) {
            if slots[j * CAPACITY + t].other == i {
                slots[i * CAPACITY + s].impulse = slots[j * CAPACITY + t].impulse;
                let pt = tangent_in(slots[j * CAPACITY + t].impulse_t);
                slots[i * CAPACITY + s].impulse_t = tangent_out(mirror_tangent(pt));
            }
        }
    }
}

// The frictional visit (FRICTION, docs/nscd.md#coulomb-friction-and-rotation): the same colours and buckets,
// each visit the local Coulomb update with the normal row relaxed by relax.x (cpu::colored::update):
//   u_t = contact_slip (the slip of the contact points: along t = (-n.y, n.x)
//         in the plane, a vector of the contact plane in 3D),
//   (P_n', P_t') = coulomb_sor(P_n, P_t, target, u_t, W, sor, mu)
//   (a wall's v_b is its surface velocity wall_vel: contact_slip in shared.wgsl)
//   d = dP_n n + dP_t t:  v_a += im_a d, w_a += spin_kick(im_a, r_a, n x dP_t),
//                         v_b -= im_b d, w_b += spin_kick(im_b, r_b, (-n) x mirror(dP_t))
//   residual[a] = max(residual[a], friction_correction(dP_n, dP_t, W, 1))
// A fixed grain (im = 0) is never written, as in update: within a colour it
// may have several contacts. CPU twins: cpu::colored::{colored_solve,
// colored_overflow} with FRICTION their const parameter.
fn update_friction(s: u32, a: u32) -> f32 {
    let c = slots[s];
    let pair = (c.other & WALL) == 0u;
    var vb = vec_zero();
    var rwb = spin_zero();
    if pair {
        vb = vec_in(vel[c.other]);
        rwb = spin_scale(spin_in(spin[c.other]), radius[c.other]);
    }
    let va = vec_in(vel[a]);
    let normal = vec_in(c.normal);
    let u = dot_exact(va - vb, normal);
    let u_t = contact_slip(c, va, vb, spin_scale(spin_in(spin[a]), radius[a]), rwb);
    let goal = normal_goal(c, u, params);
    let pt0 = tangent_in(c.impulse_t);
    let p = coulomb_sor(c.impulse, pt0, goal, u_t, c.inv_mass_sum, relax.x, mu_of(c.other, params));
    let dn = p.n - c.impulse;
    let dtan = p.t - pt0;
    slots[s].impulse = p.n;
    slots[s].impulse_t = tangent_out(p.t);
    let d = dn * normal + tangent_vec(normal, dtan);
    let ia = inv_mass[a];
    if ia != 0.0 {
        vel[a] = vec_out(va + ia * d);
        spin[a] = spin_out(spin_in(spin[a]) + spin_kick(ia, radius[a], contact_moment(normal, dtan)));
    }
    if pair {
        let ib = inv_mass[c.other];
        if ib != 0.0 {
            vel[c.other] = vec_out(vb - ib * d);
            let m = contact_moment(-normal, mirror_tangent(dtan));
            spin[c.other] = spin_out(spin_in(spin[c.other]) + spin_kick(ib, radius[c.other], m));
        }
    }
    return friction_correction(dn, dtan, c.inv_mass_sum, 1.0);
}

// model::contact::coulomb_sor_in: coulomb_in with the normal row
// over-relaxed by `sor` and the tangential row plain (coulomb_in bit for
// bit at sor = 1).
fn coulomb_sor(p_n: f32, p_t: Tangent, goal: f32, u_t: Tangent, w: f32, sor: f32, mu: f32) -> Impulses {
    let pn = max(p_n - sor * goal / w, 0.0);
    let pt = tangent_cap(tangent_step(p_t, u_t, 1.0, TANGENT_MASS_RATIO * w), mu * pn);
    return Impulses(pn, pt);
}
