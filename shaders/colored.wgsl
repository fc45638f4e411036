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
//   mirror:   every non-owned copy takes its owner's impulse (end of step)

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
    var vb = vec2<f32>(0.0, 0.0);
    if pair {
        vb = vel[c.other];
    }
    let va = vel[a];
    let dv = vec2<f32>(va.x - vb.x, va.y - vb.y);
    let u = dv.x * c.normal.x + dv.y * c.normal.y;
    // Contact::target (src/model/contact.rs)
    let t = normal_goal(c, u, params);
    let p = max(c.impulse - relax.x * t / c.inv_mass_sum, 0.0);
    let dp = p - c.impulse;
    slots[s].impulse = p;
    let ia = inv_mass[a] * dp;
    if ia != 0.0 {
        vel[a] = vec2<f32>(va.x + ia * c.normal.x, va.y + ia * c.normal.y);
    }
    if pair {
        let ib = inv_mass[c.other] * dp;
        if ib != 0.0 {
            vel[c.other] = vec2<f32>(vb.x - ib * c.normal.x, vb.y - ib * c.normal.y);
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
                slots[i * CAPACITY + s].impulse_t = slots[j * CAPACITY + t].impulse_t;
            }
        }
    }
}

// The frictional visit (FRICTION, docs/nscd.md#coulomb-friction-and-rotation): the same colours and buckets,
// each visit the local Coulomb update with the normal row relaxed by relax.x (cpu::colored::update):
//   u_t = (v_a - v_b) . t - (r_a w_a + r_b w_b),  (P_n', P_t') = coulomb_sor(P_n, P_t, target, u_t, W, sor, mu)
//   (a wall's v_b is its surface velocity wall_vel: contact_slip in shared.wgsl)
//   d = dP_n n + dP_t t:  v_a += im_a d, w_a += spin_kick(im_a, r_a, dP_t),
//                         v_b -= im_b d, w_b += spin_kick(im_b, r_b, dP_t)
//   residual[a] = max(residual[a], friction_correction(dP_n, dP_t, W, 1))
// A fixed grain (im = 0) is never written, as in update: within a colour it
// may have several contacts. CPU twins: cpu::colored::{colored_solve,
// colored_overflow} with FRICTION their const parameter.
fn update_friction(s: u32, a: u32) -> f32 {
    let c = slots[s];
    let pair = (c.other & WALL) == 0u;
    var vb = vec2<f32>(0.0, 0.0);
    var rwb = 0.0;
    if pair {
        vb = vel[c.other];
        rwb = radius[c.other] * spin[c.other];
    }
    let va = vel[a];
    let dv = vec2<f32>(va.x - vb.x, va.y - vb.y);
    let u = dv.x * c.normal.x + dv.y * c.normal.y;
    let u_t = contact_slip(c, va, vb, radius[a] * spin[a], rwb);
    let goal = normal_goal(c, u, params);
    let p = coulomb_sor(c.impulse, c.impulse_t, goal, u_t, c.inv_mass_sum, relax.x, mu_of(c.other, params));
    let dn = p.x - c.impulse;
    let dtan = p.y - c.impulse_t;
    slots[s].impulse = p.x;
    slots[s].impulse_t = p.y;
    let d = vec2<f32>(dn * c.normal.x + dtan * -c.normal.y, dn * c.normal.y + dtan * c.normal.x);
    let ia = inv_mass[a];
    if ia != 0.0 {
        vel[a] = vec2<f32>(va.x + ia * d.x, va.y + ia * d.y);
        spin[a] = spin[a] + spin_kick(ia, radius[a], dtan);
    }
    if pair {
        let ib = inv_mass[c.other];
        if ib != 0.0 {
            vel[c.other] = vec2<f32>(vb.x - ib * d.x, vb.y - ib * d.y);
            spin[c.other] = spin[c.other] + spin_kick(ib, radius[c.other], dtan);
        }
    }
    return friction_correction(dn, dtan, c.inv_mass_sum, 1.0);
}

// model::contact::coulomb_sor: coulomb with the normal row over-relaxed by
// `sor` and the tangential row plain (coulomb bit for bit at sor = 1).
fn coulomb_sor(p_n: f32, p_t: f32, goal: f32, u_t: f32, w: f32, sor: f32, mu: f32) -> vec2<f32> {
    let pn = max(p_n - sor * goal / w, 0.0);
    let bound = mu * pn;
    let pt = clamp(p_t - u_t / (TANGENT_MASS_RATIO * w), -bound, bound);
    return vec2<f32>(pn, pt);
}
