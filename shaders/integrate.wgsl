// Stage integrate: x += dt v with the solved velocity. CPU twin: cpu::integrate::integrate.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= params.n_grains {
        return;
    }
    let v = vel[i];
    let x = pos[i];
    pos[i] = vec2<f32>(x.x + params.dt * v.x, x.y + params.dt * v.y);
}

// Entry point integrate_angle (NSCD with friction): theta += dt w, rad.
// CPU twin: cpu::integrate::integrate_angle.

@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate_angle(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= params.n_grains {
        return;
    }
    angle[i] = angle[i] + params.dt * spin[i];
}
