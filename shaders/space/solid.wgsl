// Space (model::space::Dim3): what the stages see of their space when they
// run on spheres; the same names as shaders/space/plane.wgsl, so a stage
// written with them runs in either space. Follows shaders/shared.wgsl in
// every stage's source. A vector is stored as three f32 (VecS, the layout
// of Rust's [f32; 3]: 12 bytes, where WGSL's vec3 would take 16) and worked
// on as a vec3 (Vec).

const DIM: u32 = 3u;
alias Vec = vec3<f32>;          // a position, velocity or force
alias VecS = array<f32, 3>;     // as stored (model::space::Space::Vec)
alias Spin = vec3<f32>;         // an angular velocity or torque
alias SpinS = array<f32, 3>;
alias Tangent = vec3<f32>;      // a tangential slip or impulse, in the contact plane
alias TangentS = array<f32, 3>;
alias Orient = vec4<f32>;       // an orientation: the unit quaternion (w, x, y, z)
alias OrientS = vec4<f32>;      // 16 bytes, the layout of Rust's [f32; 4]
alias SegmentVel = array<f32, 3>;   // a face's velocity, m/s (zero: still walls)
alias CornerVel = array<f32, 3>;    // an edge's or vertex's velocity, m/s

fn vec_in(v: VecS) -> Vec { return vec3<f32>(v[0], v[1], v[2]); }
fn vec_out(v: Vec) -> VecS { return VecS(v.x, v.y, v.z); }
fn spin_in(w: SpinS) -> Spin { return vec3<f32>(w[0], w[1], w[2]); }
fn spin_out(w: Spin) -> SpinS { return SpinS(w.x, w.y, w.z); }
fn tangent_in(t: TangentS) -> Tangent { return vec3<f32>(t[0], t[1], t[2]); }
fn tangent_out(t: Tangent) -> TangentS { return TangentS(t.x, t.y, t.z); }
fn orient_in(o: OrientS) -> Orient { return o; }
fn orient_out(o: Orient) -> OrientS { return o; }
fn vec_zero() -> Vec { return vec3<f32>(0.0, 0.0, 0.0); }
fn spin_zero() -> Spin { return vec3<f32>(0.0, 0.0, 0.0); }
fn tangent_zero() -> Tangent { return vec3<f32>(0.0, 0.0, 0.0); }

// a . b, coordinate by coordinate in order (model::space::Space::dot).
fn dot_exact(a: Vec, b: Vec) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

// a x b (model::space::cross).
fn cross_exact(a: Vec, b: Vec) -> Vec {
    return vec3<f32>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// The unit vector along +x, negated for flip (cpu::detect::normal_along).
fn axis_x(flip: bool) -> Vec {
    return vec3<f32>(select(1.0, -1.0, flip), 0.0, 0.0);
}

// The inverse moment of inertia 1/I of a sphere, 5/2 im / r^2 (Space::inv_inertia).
fn inv_inertia(im: f32, r: f32) -> f32 {
    return 2.5 * im / (r * r);
}

// F_n n + F_t: the force of a contact on its grain (cpu::dem::force::contact_force).
fn contact_force(n: Vec, f_n: f32, f_t: Tangent) -> Vec {
    return f_n * n + f_t;
}

// n x F_t (Space::contact_moment).
fn contact_moment(n: Vec, f_t: Tangent) -> Spin {
    return cross_exact(n, f_t);
}

// v - (v . n) n: the part of v normal to unit n (Space::tangential).
fn tangential(v: Vec, n: Vec) -> Vec {
    return v - n * dot_exact(v, n);
}

// The slip of the contact points, the tangential part of (v_a - v_b) -
// (r_a w_a x n + r_b w_b x n) (Space::slip), rw = r w.
fn slip(n: Vec, v_a: Vec, v_b: Vec, rw_a: Spin, rw_b: Spin) -> Tangent {
    let spin = cross_exact(rw_a, n) + cross_exact(rw_b, n);
    return tangential((v_a - v_b) - spin, n);
}

// The tangent of a pair's second copy, seen from its own sphere
// (Space::mirror_tangent): the opposite vector.
fn mirror_tangent(t: Tangent) -> Tangent {
    return -t;
}

// |t| (Coords::norm).
fn tangent_norm(t: Tangent) -> f32 {
    return sqrt(t.x * t.x + t.y * t.y + t.z * t.z);
}

// t shortened to length bound if longer: the ball (Coords::cap).
fn tangent_cap(t: Tangent, bound: f32) -> Tangent {
    let len = tangent_norm(t);
    if len > bound {
        return t * (bound / len);
    }
    return t;
}

// A spin shortened to length bound if longer (Coords::cap).
fn spin_cap(w: Spin, bound: f32) -> Spin {
    return tangent_cap(w, bound);
}

// dw = -5/2 im m / r for the summed moments m = sum n x P_t
// (Space::spin_kick; 0 for r = 0).
fn spin_kick(im: f32, r: f32, m: Spin) -> Spin {
    if r > 0.0 {
        return m * (-2.5 * im / r);
    }
    return spin_zero();
}

// r w (Space::spin_scale).
fn spin_scale(w: Spin, r: f32) -> Spin {
    return w * r;
}

// The tangent as a vector: itself in 3D (Space::tangent_vec).
fn tangent_vec(n: Vec, t: Tangent) -> Vec {
    return t;
}

// The tangent step p - relax u / w, coordinate by coordinate (Space::tangent_step).
fn tangent_step(p: Tangent, u: Tangent, relax: f32, w: f32) -> Tangent {
    return p - relax * u / w;
}

// The unit quaternion q turned at spin w for dt: q + dt/2 (0, w) q,
// normalised; q itself where that has no finite nonzero length (Space::turn).
fn turn(q: Orient, w: Spin, dt: f32) -> Orient {
    let h = 0.5 * dt;
    let dq = vec4<f32>(
        -w.x * q.y - w.y * q.z - w.z * q.w,
        w.x * q.x + w.y * q.w - w.z * q.z,
        -w.x * q.w + w.y * q.x + w.z * q.y,
        w.x * q.z - w.y * q.y + w.z * q.x,
    );
    let p = vec4<f32>(q.x + h * dq.x, q.y + h * dq.y, q.z + h * dq.z, q.w + h * dq.w);
    let len = sqrt(p.x * p.x + p.y * p.y + p.z * p.z + p.w * p.w);
    if len > 0.0 && len <= 3.40282347e38 {
        return p / len;
    }
    return q;
}

// A stochastic kick's draws (x, y, z) as a velocity (free_velocity).
fn forcing_kick(w: vec3<f32>) -> Vec {
    return w;
}

// Last step's tangent carried into the contact plane of normal n
// (Space::carry_tangent).
fn carry_tangent(t: Tangent, n: Vec) -> Tangent {
    return tangential(t, n);
}

// Gravity, m/s^2: Params::gravity in the x-y plane (Space::in_plane).
fn gravity_of(params: Params) -> Vec {
    return vec3<f32>(params.gravity, 0.0);
}

// x + dt v (no periodic grid in 3D).
fn drift(x: Vec, v: Vec, dt: f32, params: Params) -> Vec {
    return x + dt * v;
}

// Cell coordinates of a point, clamped into the grid; NaN goes to 0
// (model::Grid::cell_coords).
fn cell_coords(p: Vec, params: Params) -> vec3<u32> {
    let f = floor((p - vec3<f32>(params.origin, params.origin_z)) / params.cell);
    let fx = min(select(0.0, f.x, f.x > 0.0), f32(params.nx - 1u));
    let fy = min(select(0.0, f.y, f.y > 0.0), f32(params.ny - 1u));
    let fz = min(select(0.0, f.z, f.z > 0.0), f32(params.nz - 1u));
    return vec3<u32>(u32(fx), u32(fy), u32(fz));
}

// The offset d itself: no periodic grid in 3D (model::Grid::min_image).
fn min_image(d: Vec, params: Params) -> Vec {
    return d;
}

// Keep in sync with gpu::space::Face (src/gpu/space.rs): what a contact
// names BODY_SEGMENT | k, the planes then the triangles of model::Walls3d.
struct Segment {
    a: VecS,       // a triangle's first vertex; a point of a plane
    kind: u32,     // FACE_PLANE or FACE_TRIANGLE
    b: VecS,
    owns: u32,     // bit k: the triangle owns its edge k (ab, bc, ca) (model::walls3d::Triangle::owns)
    c: VecS,
    side: f32,     // the side of n holding the inside: 1, -1; 0 two-sided (model::walls3d::Triangle::side)
    n: VecS,       // unit normal: the triangle's (b - a) x (c - a), the plane's towards the grains
    pad2: u32,
}

// Keep in sync with gpu::space::Ridge (src/gpu/space.rs): what a contact
// names BODY_CORNER | k, the edges then the vertices of model::Walls3d.
// A body's directions past the first SOLID_DIRS go on in records of kind
// RIDGE_MORE after every body, chained by `more`.
struct Corner {
    a: VecS,       // an edge's first end; a vertex
    kind: u32,     // RIDGE_EDGE, RIDGE_VERTEX or RIDGE_MORE
    b: VecS,       // an edge's second end (a vertex: its position again)
    count: u32,    // the body's directions in all
    more: u32,     // the record of its directions past these (0: none)
    pad: array<u32, 3>,
    dirs: array<VecS, SOLID_DIRS>,   // an edge's into its faces, a vertex's along its edges (model::walls3d)
}
