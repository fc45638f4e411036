// The plane (model::space::Dim2): what the stages see of their space when
// they run on disks. shaders/space/solid.wgsl defines the same names for
// spheres; a stage written with them runs in either space, one written with
// the plane's own helpers further down (segments and corners, the scalar
// tangent of the NSCD solvers) in the plane alone. Follows
// shaders/shared.wgsl in every stage's source.

const DIM: u32 = 2u;
alias Vec = vec2<f32>;        // a position, velocity or force
alias VecS = vec2<f32>;       // as stored (model::space::Space::Vec)
alias Spin = f32;             // an angular velocity or torque, about z
alias SpinS = f32;
alias Tangent = f32;          // a tangential slip or impulse, along t = (-n.y, n.x)
alias TangentS = f32;
alias SegmentVel = array<vec2<f32>, 2>;   // the velocities of a segment's ends a and b, m/s
alias CornerVel = vec2<f32>;

fn vec_in(v: VecS) -> Vec { return v; }
fn vec_out(v: Vec) -> VecS { return v; }
fn spin_in(w: SpinS) -> Spin { return w; }
fn spin_out(w: Spin) -> SpinS { return w; }
fn tangent_in(t: TangentS) -> Tangent { return t; }
fn tangent_out(t: Tangent) -> TangentS { return t; }
fn vec_zero() -> Vec { return vec2<f32>(0.0, 0.0); }
fn spin_zero() -> Spin { return 0.0; }
fn tangent_zero() -> Tangent { return 0.0; }

// a . b, coordinate by coordinate in order (model::space::Space::dot).
fn dot_exact(a: Vec, b: Vec) -> f32 {
    return a.x * b.x + a.y * b.y;
}

// The unit vector along +x, negated for flip (cpu::detect::normal_along).
fn axis_x(flip: bool) -> Vec {
    return vec2<f32>(select(1.0, -1.0, flip), 0.0);
}

// The inverse moment of inertia 1/I of a disk, 2 im / r^2 (Space::inv_inertia).
fn inv_inertia(im: f32, r: f32) -> f32 {
    return 2.0 * im / (r * r);
}

// F_n n + F_t t, t = (-n.y, n.x): the force of a contact on its grain
// (cpu::dem::force::contact_force).
fn contact_force(n: Vec, f_n: f32, f_t: Tangent) -> Vec {
    let t = vec2<f32>(-n.y, n.x);
    return vec2<f32>(f_n * n.x + f_t * t.x, f_n * n.y + f_t * t.y);
}

// n x F_t (Space::contact_moment): F_t itself in the plane.
fn contact_moment(n: Vec, f_t: Tangent) -> Spin {
    return f_t;
}

// The slip of the contact points (v_a - v_b) . t - (r_a w_a + r_b w_b)
// (Space::slip), rw = r w.
fn slip(n: Vec, v_a: Vec, v_b: Vec, rw_a: Spin, rw_b: Spin) -> Tangent {
    let t = vec2<f32>(-n.y, n.x);
    let dv = vec2<f32>(v_a.x - v_b.x, v_a.y - v_b.y);
    return (dv.x * t.x + dv.y * t.y) - (rw_a + rw_b);
}

// t shortened to the interval [-bound, bound] (Coords::cap).
fn tangent_cap(t: Tangent, bound: f32) -> Tangent {
    return min(max(t, -bound), bound);
}

// |t| (Coords::norm).
fn tangent_norm(t: Tangent) -> f32 {
    return abs(t);
}

// A spin shortened to the interval [-bound, bound] (Coords::cap).
fn spin_cap(w: Spin, bound: f32) -> Spin {
    return min(max(w, -bound), bound);
}

// Last step's tangent carried to a contact of normal n (Space::carry_tangent):
// unchanged in the plane, where the tangent turns with the normal.
fn carry_tangent(t: Tangent, n: Vec) -> Tangent {
    return t;
}

// x + dt v, wrapped into [xmin, xmax) on a grid periodic along x (wrap_x).
fn drift(x: Vec, v: Vec, dt: f32, params: Params) -> Vec {
    return vec2<f32>(wrap_x(x.x + dt * v.x, params), x.y + dt * v.y);
}

// Cell coordinates (x, y, 0) of a point, clamped into the grid; NaN goes to
// 0; on a grid periodic along x the column is first wrapped modulo nx
// (model::Grid::cell_coords).
fn cell_coords(p: Vec, params: Params) -> vec3<u32> {
    let f = floor((p - params.origin) / params.cell);
    var column = f.x;
    if params.period > 0.0 {
        column = rem_euclid(column, f32(params.nx));
    }
    let fx = min(select(0.0, column, column > 0.0), f32(params.nx - 1u));
    let fy = min(select(0.0, f.y, f.y > 0.0), f32(params.ny - 1u));
    return vec3<u32>(u32(fx), u32(fy), 0u);
}

// Keep in sync with model::walls::Segment.
struct Segment {
    a: vec2<f32>,
    b: vec2<f32>,
    n: vec2<f32>,   // inward unit normal (zero = two-sided), see model::walls
}

// Keep in sync with model::walls::Corner.
struct Corner {
    pos: vec2<f32>,
    dirs: array<vec2<f32>, CORNER_DIRS>,   // unit directions of incident segments (zero = unused)
}

// The offset d between two points as its minimum image along x on a grid
// periodic along x, d.x - L round(d.x / L) for period L; d itself otherwise
// (model::Grid::min_image).
fn min_image(d: vec2<f32>, params: Params) -> vec2<f32> {
    if params.period > 0.0 {
        return vec2<f32>(d.x - params.period * round_away(d.x / params.period), d.y);
    }
    return d;
}

// Normal and signed distance from a segment's closest point p to x: the inward
// normal and -|x - p| where x has crossed a segment with an inside, else (n, dist)
// unchanged (cpu::detect::one_sided).
fn one_sided(s: Segment, x: vec2<f32>, p: vec2<f32>, n: vec2<f32>, dist: f32) -> vec3<f32> {
    if s.n.x == 0.0 && s.n.y == 0.0 {
        return vec3<f32>(n, dist);
    }
    let d = x - p;
    let behind = d.x * s.n.x + d.y * s.n.y < 0.0;
    return vec3<f32>(s.n, select(dist, -dist, behind));
}

// The local frictional update of docs/nscd.md#coulomb-friction-and-rotation (model::contact::coulomb): from
// (P_n, P_t), the normal target velocity, the slip u_t, W and the relaxation,
// returns (P_n', P_t') with P_n' = max(0, P_n - relax target / W) and
// P_t' = clamp(P_t - relax u_t / (3 W), -mu P_n', mu P_n').
fn coulomb(p_n: f32, p_t: f32, goal: f32, u_t: f32, w: f32, relax: f32, mu: f32) -> vec2<f32> {
    let pn = max(p_n - relax * goal / w, 0.0);
    let bound = mu * pn;
    let pt = clamp(p_t - relax * u_t / (TANGENT_MASS_RATIO * w), -bound, bound);
    return vec2<f32>(pn, pt);
}

// dw = -2 im dP_t / r (model::contact::spin_kick; 0 for r = 0).
fn spin_kick(im: f32, r: f32, dp_t: f32) -> f32 {
    return select(0.0, -2.0 * im * dp_t / r, r > 0.0);
}

// A moving wall's normal velocity at the contact, w_n = wall_vel . n, m/s
// (model::contact::Contact::wall_normal_velocity).
fn wall_normal_velocity(c: Contact) -> f32 {
    return c.wall_vel.x * c.normal.x + c.wall_vel.y * c.normal.y;
}

// The velocity a contact drives to zero or above (model::contact::Contact::target):
// u >= bounce for a bouncing contact (restitution), else u + max(d, 0)/dt
// + beta min(d + slop, 0)/dt >= 0. A moving wall (wall_vel != 0) drives the
// relative normal velocity u - w_n instead: u + (offset - w_n), offset the
// still target's part past u (Contact::target_offset); a still wall and a
// grain keep the still target's expressions, bit for bit.
fn normal_goal(c: Contact, u: f32, params: Params) -> f32 {
    if c.wall_vel.x != 0.0 || c.wall_vel.y != 0.0 {
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

// The tangential slip of a contact seen from grain i (model::contact::Contact::slip):
// u_t = (v_i - (v_o + wall_vel)) . t - (r_i w_i + r_o w_o) with t = (-n.y, n.x);
// v_o and r_o w_o are 0 for a wall or corner, whose surface moves at wall_vel.
fn contact_slip(c: Contact, v: vec2<f32>, vo: vec2<f32>, rw: f32, rwo: f32) -> f32 {
    let dx = v.x - (vo.x + c.wall_vel.x);
    let dy = v.y - (vo.y + c.wall_vel.y);
    return dx * -c.normal.y + dy * c.normal.x - (rw + rwo);
}

// Gravity, m/s^2 (Params::gravity).
fn gravity_of(params: Params) -> Vec {
    return params.gravity;
}
