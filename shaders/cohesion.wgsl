// Stage cohesion: capillary bridges (docs/cohesion.md) added to the free velocity
// before the NSCD projection. Each grain sums the bridges of its own contact
// list (a grain-grain contact is listed twice with opposite normals: equal
// and opposite forces, no atomics):
//   F = pi gamma r (exp(b - a max(d, 0)) + c) for d < rupture,
//   r = 2 r_i r_j / (r_i + r_j) (grain j), r_i (a wall, when law.walls = 1)
//   v_free_i -= dt im_i F n_c
// Written over the space. CPU twin: cpu::cohesion::cohesion.

// Keep in sync with model::cohesion::Cohesion (src/model/cohesion.rs);
// tests/gpu_cohesion.rs checks sizes and offsets.
struct Cohesion {
    gamma: f32,     // surface tension, N/m
    a: f32,         // decay rate, 1/m
    b: f32,
    c: f32,
    rupture: f32,   // rupture gap, m
    walls: u32,     // 1: grain-wall bridges too
}

const PI: f32 = 3.14159265358979;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    let im = inv_mass[i];
    if im <= 0.0 { return; }
    let ri = radius[i];
    let n = min(count[i], CAPACITY);
    var pull = vec_zero();
    for (var k = 0u; k < n; k++) {
        let c = slots[i * CAPACITY + k];
        var r = ri;
        if (c.other & (BODY_SEGMENT | BODY_CORNER)) == 0u {
            let rj = radius[c.other];
            r = 2.0 * ri * rj / (ri + rj);
        } else if law.walls == 0u {
            continue;
        }
        if c.gap >= law.rupture {
            continue;
        }
        let f = PI * law.gamma * r * (exp(law.b - law.a * max(c.gap, 0.0)) + law.c);
        pull = pull - f * vec_in(c.normal);
    }
    vel_free[i] = vec_out(vec_in(vel_free[i]) + params.dt * im * pull);
}
