// Stage integrate: x += dt v with the solved velocity, then on a grid periodic
// along x the new x wrapped into [xmin, xmax) (wrap_x; nothing otherwise).
// CPU twin: cpu::integrate::integrate, then cpu::integrate::wrap.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let v = vel[i];
    let x = pos[i];
    pos[i] = vec2<f32>(wrap_x(x.x + params.dt * v.x, params), x.y + params.dt * v.y);
}

// Entry point shift (the split push-out's pseudo-velocity): x += dt v, never
// wrapped: the integration that follows in the same step wraps, as on the
// CPU. CPU twin: cpu::integrate::integrate.

@compute @workgroup_size(WORKGROUP_SIZE)
fn shift(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let v = vel[i];
    let x = pos[i];
    pos[i] = vec2<f32>(x.x + params.dt * v.x, x.y + params.dt * v.y);
}

// Entry point integrate_angle (NSCD with friction): theta += dt w, rad.
// CPU twin: cpu::integrate::integrate_angle.

@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate_angle(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    angle[i] = angle[i] + params.dt * spin[i];
}
