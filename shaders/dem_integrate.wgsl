// Stage dem_integrate: velocity Verlet's half kicks and drift.
//   kick_drift: v += dt/2 (g + im F); w += dt/2 (1/I) T; x += dt v, then x
//               wrapped into [xmin, xmax) on a grid periodic along x (wrap_x)
//   kick:       v += dt/2 (g + im F); w += dt/2 (1/I) T; stats[STAT_SPEED2] = max |v|^2
// 1/I = 2 im / r^2 of a disk, 5/2 im / r^2 of a sphere (inv_inertia); a fixed
// grain (im = 0) keeps v, w and drifts.
// CPU twin: cpu::dem::integrate::{kick_drift, kick} (and cpu::integrate::wrap).

var<workgroup> wg_speed2: atomic<u32>;

// The half kick of grain i; returns its new velocity.
fn half_kick(i: u32) -> Vec {
    let h = 0.5 * params.dt;
    let im = inv_mass[i];
    var v = vec_in(vel[i]);
    if im > 0.0 {
        let f = vec_in(force[i]);
        let r = radius[i];
        v = v + h * (gravity_of(params) + im * f);
        vel[i] = vec_out(v);
        ang_vel[i] = spin_out(spin_in(ang_vel[i]) + h * inv_inertia(im, r) * spin_in(torque[i]));
    }
    return v;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn kick_drift(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let v = half_kick(i);
    pos[i] = vec_out(drift(vec_in(pos[i]), v, params.dt, params));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn kick(inv: Invocation) {
    if inv.lid == 0u {
        atomicStore(&wg_speed2, 0u);
    }
    workgroupBarrier();
    let i = flat_index(inv);
    if i < params.n_grains {
        let v = half_kick(i);
        atomicMax(&wg_speed2, bitcast<u32>(max(dot_exact(v, v), 0.0)));
    }
    workgroupBarrier();
    if inv.lid == 0u {
        atomicMax(&stats[STAT_SPEED2], atomicLoad(&wg_speed2));
    }
}
