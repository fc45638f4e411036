// The contact laws' shared part (src/model/law.rs), composed into
// shaders/dem_force.wgsl by model::law::wgsl after shaders/dem_shared.wgsl.

// One contact as a law sees it (model::law::Pair).
struct Pair {
    delta: f32,          // overlap -gap > 0, m
    u: f32,              // normal relative velocity, m/s (< 0: approaching)
    vt: f32,             // tangential slip velocity, m/s
    inv_mass_sum: f32,   // W = im_a + im_b, 1/kg
}

// max(0, elastic - gamma v_n) (model::law::normal).
fn law_normal(law: DemLaw, elastic: f32, u: f32) -> f32 {
    return max(elastic - law.gamma * u, 0.0);
}

// Implicit viscous friction capped by Coulomb (model::law::viscous).
fn law_viscous(law: DemLaw, p: Pair, f_n: f32) -> f32 {
    let cap = law.mu * f_n;
    return min(max(-law.kt * p.vt / (1.0 + law.kt * 3.0 * p.inv_mass_sum * law.dt), -cap), cap);
}
