// Stage free_velocity: v_free = v + dt g for movable grains (im > 0), v otherwise;
// with stochastic forcing (sigma > 0, DESIGN §1e) movable grains also get
// sqrt(dt) sigma w, w two standard normals drawn from (seed, step, id).
// CPU twin: cpu::integrate::free_velocity, then cpu::integrate::forcing;
// the generator is model::noise (same arithmetic).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> vel: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> inv_mass: array<f32>;
@group(0) @binding(3) var<storage, read_write> vel_free: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> id: array<u32>;

// model::noise::pcg
fn pcg(x: u32) -> u32 {
    let state = x * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// model::noise::normal2: two independent standard normals (Box-Muller).
fn normal2(seed: u32, step: u32, gid: u32) -> vec2<f32> {
    let key = pcg(pcg(pcg(step) ^ gid) ^ seed);
    let u1 = f32((pcg(key) >> 8u) + 1u) * (1.0 / 16777216.0);
    let u2 = f32(pcg(key ^ NOISE_SALT) >> 8u) * (1.0 / 16777216.0);
    let r = sqrt(-2.0 * log(u1));
    let theta = NOISE_TAU * u2;
    return vec2<f32>(r * cos(theta), r * sin(theta));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= params.n_grains {
        return;
    }
    let v = vel[i];
    if inv_mass[i] > 0.0 {
        var vf = vec2<f32>(v.x + params.dt * params.gravity.x, v.y + params.dt * params.gravity.y);
        if params.sigma > 0.0 {
            let w = normal2(params.seed, params.step, id[i]);
            let s = sqrt(params.dt) * params.sigma;
            vf = vec2<f32>(vf.x + s * w.x, vf.y + s * w.y);
        }
        vel_free[i] = vf;
    } else {
        vel_free[i] = v;
    }
}
