// The contact laws' shared part (src/model/law.rs), composed into
// shaders/dem_force.wgsl by model::law::wgsl after shaders/dem_shared.wgsl.

// One contact as a law sees it (model::law::Pair).
struct Pair {
    delta: f32,          // overlap -gap > 0, m
    u: f32,              // normal relative velocity, m/s (< 0: approaching)
    vt: Tangent,         // tangential slip velocity, m/s (a number along t in the plane, a vector in 3D)
    inv_mass_sum: f32,   // W = im_a + im_b, 1/kg
}

// max(0, elastic - gamma v_n) (model::law::normal).
fn law_normal(law: DemLaw, elastic: f32, u: f32) -> f32 {
    return max(elastic - law.gamma * u, 0.0);
}

// What a law returns: the normal force F_n and the tangential force F_t.
struct LawForce {
    n: f32,
    t: Tangent,
}

// Implicit viscous friction capped by Coulomb (model::law::viscous).
fn law_viscous(law: DemLaw, p: Pair, f_n: f32) -> Tangent {
    let cap = law.mu * f_n;
    return tangent_cap(-law.kt * p.vt / (1.0 + law.kt * TANGENT_MASS_RATIO * p.inv_mass_sum * law.dt), cap);
}
