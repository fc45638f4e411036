// Stage free_velocity: v_free = v + dt g for movable grains (im > 0), v otherwise;
// with stochastic forcing (kick = sqrt(dt) sigma > 0, docs/nscd.md#stochastic-forcing) movable grains
// also get kick w, w DIM standard draws from (seed, step, id) (x and y, and
// z in 3D). Written over the space.
// CPU twin: cpu::integrate::free_velocity, then cpu::integrate::forcing;
// the generator is model::noise (same arithmetic).

// model::noise::pcg
fn pcg(x: u32) -> u32 {
    let state = x * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// model::noise::standard: 12 uniforms of 20 bits summed, centred, scaled (exact).
fn standard(key: u32) -> f32 {
    var h = key;
    var sum = 0u;
    for (var j = 0u; j < NOISE_TERMS; j++) {
        h = pcg(h);
        sum += h >> (32u - NOISE_BITS);
    }
    let centred = i32(2u * sum) - i32(NOISE_TERMS * ((1u << NOISE_BITS) - 1u));
    return f32(centred) * (1.0 / f32(1u << (NOISE_BITS + 1u)));
}

// model::noise::normal: the draws of grain `gid` at `step`, x, y and (in
// 3D; 0 in the plane) z.
fn normal3(seed: u32, step: u32, gid: u32) -> vec3<f32> {
    let key = pcg(pcg(pcg(step) ^ gid) ^ seed);
    var z = 0.0;
    if DIM == 3u {
        z = standard(pcg(key ^ NOISE_SALT_Z));
    }
    return vec3<f32>(standard(pcg(key)), standard(pcg(key ^ NOISE_SALT)), z);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let v = vec_in(vel[i]);
    if inv_mass[i] > 0.0 {
        var vf = v + params.dt * gravity_of(params);
        if params.kick > 0.0 {
            let w = forcing_kick(normal3(params.seed, params.step, id[i]));
            vf = vf + params.kick * w;
        }
        vel_free[i] = vec_out(vf);
    } else {
        vel_free[i] = vec_out(v);
    }
}
