// Stage free_velocity: v_free = v + dt g for movable grains (im > 0), v otherwise.
// CPU twin: cpu::integrate::free_velocity.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> vel: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> inv_mass: array<f32>;
@group(0) @binding(3) var<storage, read_write> vel_free: array<vec2<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= params.n_grains {
        return;
    }
    let v = vel[i];
    if inv_mass[i] > 0.0 {
        vel_free[i] = vec2<f32>(v.x + params.dt * params.gravity.x, v.y + params.dt * params.gravity.y);
    } else {
        vel_free[i] = v;
    }
}
