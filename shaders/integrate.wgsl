// Stage integrate: x += dt v with the solved velocity, then on a grid periodic
// along x the new x wrapped into [xmin, xmax) (drift; the plane's wrap_x,
// no period in 3D). Written over the space.
// CPU twin: cpu::integrate::integrate, then cpu::integrate::wrap.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    pos[i] = vec_out(drift(vec_in(pos[i]), vec_in(vel[i]), params.dt, params));
}

// Entry point shift (the split push-out's pseudo-velocity): x += dt v, never
// wrapped: the integration that follows in the same step wraps, as on the
// CPU. CPU twin: cpu::integrate::integrate.

@compute @workgroup_size(WORKGROUP_SIZE)
fn shift(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    pos[i] = vec_out(vec_in(pos[i]) + params.dt * vec_in(vel[i]));
}

// Entry point integrate_angle (NSCD with friction): the orientation turned
// at the spin for dt (turn: theta += dt w in the plane, the unit quaternion
// in 3D). CPU twin: cpu::integrate::integrate_angle.

@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate_angle(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    angle[i] = orient_out(turn(orient_in(angle[i]), spin_in(spin[i]), params.dt));
}
