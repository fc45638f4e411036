// Structs and helpers shared by every stage in either space. The generated
// prelude (src/gpu/mod.rs, ShaderConfig::prelude) comes first and defines
// WORKGROUP_SIZE, CAPACITY, CORNER_DIRS, BODY_* and STAT_*; the space's file
// (shaders/space/plane.wgsl or solid.wgsl) follows this one and defines Vec,
// VecS, Spin, Tangent and their operations, the walls' structs and the
// helpers of that space alone. tests/gpu_layout.rs checks every size and
// offset below against Rust.

// Keep in sync with model::contact::Contact (src/model/contact.rs).
struct Contact {
    other: u32,          // the other body: grain index, or BODY_SEGMENT | k, or BODY_CORNER | k
    gap: f32,            // surface gap at detection, m (negative = overlap)
    inv_mass_sum: f32,   // W = im_a + im_b, 1/kg
    impulse: f32,        // accumulated normal impulse P >= 0, N s
    normal: VecS,        // unit normal from the other body towards this grain
    impulse_t: TangentS, // accumulated tangential impulse, N s: along t = (-n.y, n.x) in the plane, a vector of the contact plane in 3D (docs/nscd.md#coulomb-friction-and-rotation)
    bounce: f32,         // restitution: separate at u >= bounce (m/s), 0 = no bounce (model::contact::bounce)
    wall_vel: VecS,      // a moving wall's velocity at the contact, m/s (zero: a grain or a still wall)
}

// Keep in sync with gpu::Params (src/gpu/mod.rs).
struct Params {
    gravity: vec2<f32>,   // m/s^2
    origin: vec2<f32>,    // grid lower-left corner, m
    bbox_lo: vec2<f32>,   // walls' bounding box, m
    bbox_hi: vec2<f32>,
    cell: f32,            // grid cell side, m
    dt: f32,              // s
    inv_dt: f32,          // 1/s
    alert: f32,           // m
    omega: f32,           // Jacobi relaxation
    beta: f32,            // overlap push-out fraction per step
    slop: f32,            // overlap left alone by the push-out, m
    neck_y: f32,          // m
    n_grains: u32,
    nx: u32,
    ny: u32,
    n_segments: u32,
    n_corners: u32,
    n_cells: u32,         // nx * ny
    mu: f32,              // Coulomb friction of grain-grain contacts (docs/nscd.md#coulomb-friction-and-rotation)
    mu_wall: f32,         // Coulomb friction of wall contacts
    restitution: f32,     // restitution e of the projection (docs/nscd.md#restitution)
    kick: f32,            // stochastic forcing: sqrt(dt) sigma, m/s (0 = off)
    seed: u32,            // the forcing's folded seed (model::noise::fold_seed)
    step: u32,            // the step index of the forcing's draws
    period: f32,          // period along x, m (xmin = origin.x; 0 = not periodic, model::Grid::period)
    nz: u32,              // cells along z (1 in the plane; n_cells = nx * ny * nz)
    origin_z: f32,        // the grid's lowest z, m (3D; 0 in the plane)
    pad: u32,             // 8-byte struct alignment
}

// Keep in sync with gpu::ReducePartial (src/gpu/mod.rs).
struct ReducePartial {
    kinetic: f32,
    potential: f32,
    momentum: vec2<f32>,
    passed: u32,
    lost: u32,
    max_overlap: f32,
    max_speed: f32,
}

// The builtins of a compute invocation: every entry point's argument.
struct Invocation {
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
}

// Flat index of the invocation's workgroup in a (possibly 2D) dispatch.
fn flat_workgroup(inv: Invocation) -> u32 {
    return inv.wid.y * inv.nwg.x + inv.wid.x;
}

// Flat invocation index.
fn flat_index(inv: Invocation) -> u32 {
    return flat_workgroup(inv) * WORKGROUP_SIZE + inv.lid;
}

// a - b trunc(a / b) for b > 0, exactly (C's fmod, Rust's f32 %): the sign of a,
// magnitude below b; NaN where a is NaN or infinite. |a| is reduced by b 2^k
// for k from the largest with b 2^k <= |a| down to 0: each difference is exact
// (Sterbenz), so the result is the exact remainder. A point within a period or
// two of the grid takes at most one subtraction.
fn fmod_exact(a: f32, b: f32) -> f32 {
    if !(abs(a) <= 3.40282347e38) {
        return a - a;
    }
    var r = abs(a);
    if r >= b {
        var m = b;
        while m <= 0.5 * r {
            m = m * 2.0;
        }
        loop {
            if r >= m {
                r = r - m;
            }
            if m <= b {
                break;
            }
            m = m * 0.5;
        }
    }
    // The sign of a, -0.0 included.
    return bitcast<f32>(bitcast<u32>(r) | (bitcast<u32>(a) & 0x80000000u));
}

// Rust's f32::rem_euclid for b > 0: the exact remainder, plus b where negative.
fn rem_euclid(a: f32, b: f32) -> f32 {
    let r = fmod_exact(a, b);
    return select(r, r + b, r < 0.0);
}

// Rounding half away from zero (Rust's f32::round; WGSL's round takes halves to even).
fn round_away(q: f32) -> f32 {
    let t = trunc(q);
    return select(t, t + sign(q), abs(q - t) >= 0.5);
}

// x wrapped into [xmin, xmax) on a grid periodic along x (xmin = origin.x; a
// sum rounded onto xmax gives xmin); x itself otherwise or when not finite
// (model::Grid::wrap_x).
fn wrap_x(x: f32, params: Params) -> f32 {
    if params.period > 0.0 && abs(x) <= 3.40282347e38 {
        let xmin = params.origin.x;
        let w = xmin + rem_euclid(x - xmin, params.period);
        return select(w, xmin, w >= xmin + params.period);
    }
    return x;
}

// The friction coefficient of a contact with body `other` (StepParams::mu_of).
fn mu_of(other: u32, params: Params) -> f32 {
    return select(params.mu_wall, params.mu, (other & (BODY_SEGMENT | BODY_CORNER)) == 0u);
}

// max(|dP_n| W, |dP_t| W_tt) / relax, W_tt = TANGENT_MASS_RATIO W
// (cpu::jacobi::friction_correction_in).
fn friction_correction(dp_n: f32, dp_t: Tangent, w: f32, relax: f32) -> f32 {
    let t = (tangent_norm(dp_t) * TANGENT_MASS_RATIO * w) / relax;
    return max((abs(dp_n) * w) / relax, t);
}

// A contact's normal and tangential impulses.
struct Impulses {
    n: f32,
    t: Tangent,
}

// The local frictional update of docs/nscd.md#coulomb-friction-and-rotation
// (model::contact::coulomb_in): from (P_n, P_t), the normal target
// velocity, the slip u_t, W and the relaxation, P_n' = max(0, P_n - relax
// target / W) and P_t' = P_t - relax u_t / W_tt cut to the Coulomb bound mu
// P_n' (tangent_cap: the interval in the plane, the disk in 3D).
fn coulomb_in(p_n: f32, p_t: Tangent, goal: f32, u_t: Tangent, w: f32, relax: f32, mu: f32) -> Impulses {
    let pn = max(p_n - relax * goal / w, 0.0);
    let pt = tangent_cap(tangent_step(p_t, u_t, relax, TANGENT_MASS_RATIO * w), mu * pn);
    return Impulses(pn, pt);
}

// A moving wall's normal velocity at the contact, w_n = wall_vel . n, m/s
// (model::contact::Contact::wall_normal_velocity).
fn wall_normal_velocity(c: Contact) -> f32 {
    return dot_exact(vec_in(c.wall_vel), vec_in(c.normal));
}

// The velocity a contact drives to zero or above (model::contact::Contact::target):
// u >= bounce for a bouncing contact (restitution), else u + max(d, 0)/dt
// + beta min(d + slop, 0)/dt >= 0. A moving wall (wall_vel != 0) drives the
// relative normal velocity u - w_n instead: u + (offset - w_n), offset the
// still target's part past u (Contact::target_offset); a still wall and a
// grain keep the still target's expressions, bit for bit.
fn normal_goal(c: Contact, u: f32, params: Params) -> f32 {
    if any(vec_in(c.wall_vel) != vec_zero()) {
        var offset = -c.bounce;
        if !(c.bounce > 0.0) {
            offset = (max(c.gap, 0.0) + params.beta * min(c.gap + params.slop, 0.0)) * params.inv_dt;
        }
        return u + (offset - wall_normal_velocity(c));
    }
    if c.bounce > 0.0 {
        return u - c.bounce;
    }
    return u + (max(c.gap, 0.0) + params.beta * min(c.gap + params.slop, 0.0)) * params.inv_dt;
}

// The tangential slip of a contact seen from grain i (model::contact's
// Friction::velocities): slip(n, v_i, v_o + wall_vel, r_i w_i, r_o w_o);
// v_o and r_o w_o are 0 for a wall or corner, whose surface moves at wall_vel.
fn contact_slip(c: Contact, v: Vec, vo: Vec, rw: Spin, rwo: Spin) -> Tangent {
    return slip(vec_in(c.normal), v, vo + vec_in(c.wall_vel), rw, rwo);
}
