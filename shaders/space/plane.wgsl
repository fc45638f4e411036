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
alias Orient = f32;           // an orientation: the angle, rad
alias OrientS = f32;
alias SegmentVel = array<vec2<f32>, 2>;   // the velocities of a segment's ends a and b, m/s
alias CornerVel = vec2<f32>;

fn vec_in(v: VecS) -> Vec { return v; }
fn vec_out(v: Vec) -> VecS { return v; }
fn spin_in(w: SpinS) -> Spin { return w; }
fn spin_out(w: Spin) -> SpinS { return w; }
fn tangent_in(t: TangentS) -> Tangent { return t; }
fn tangent_out(t: Tangent) -> TangentS { return t; }
fn orient_in(o: OrientS) -> Orient { return o; }
fn orient_out(o: Orient) -> OrientS { return o; }
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

// The tangent of a pair's second copy, seen from its own grain
// (Space::mirror_tangent): the same coordinate in the plane, where both
// copies' tangents turn with their normals.
fn mirror_tangent(t: Tangent) -> Tangent {
    return t;
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

// The local frictional update of docs/nscd.md#coulomb-friction-and-rotation
// as a pair (P_n', P_t') (coulomb_in, in shaders/shared.wgsl; the coloured
// and APGD stages of the plane read it so).
fn coulomb(p_n: f32, p_t: f32, goal: f32, u_t: f32, w: f32, relax: f32, mu: f32) -> vec2<f32> {
    let p = coulomb_in(p_n, p_t, goal, u_t, w, relax, mu);
    return vec2<f32>(p.n, p.t);
}

// dw = -2 im dP_t / r (Space::spin_kick; 0 for r = 0).
fn spin_kick(im: f32, r: f32, dp_t: f32) -> f32 {
    return select(0.0, -2.0 * im * dp_t / r, r > 0.0);
}

// r w (Space::spin_scale).
fn spin_scale(w: Spin, r: f32) -> Spin {
    return w * r;
}

// The vector of the tangent coordinate t, t (-n.y, n.x) (Space::tangent_vec).
fn tangent_vec(n: Vec, t: Tangent) -> Vec {
    return vec2<f32>(-n.y * t, n.x * t);
}

// The tangent step p - relax u / w (Space::tangent_step).
fn tangent_step(p: Tangent, u: Tangent, relax: f32, w: f32) -> Tangent {
    return p - relax * u / w;
}

// An orientation turned at spin w for dt: theta + dt w (Space::turn).
fn turn(theta: Orient, w: Spin, dt: f32) -> Orient {
    return theta + dt * w;
}

// A stochastic kick's draws as a velocity: x and y (free_velocity).
fn forcing_kick(w: vec3<f32>) -> Vec {
    return w.xy;
}

// Gravity, m/s^2 (Params::gravity).
fn gravity_of(params: Params) -> Vec {
    return params.gravity;
}
