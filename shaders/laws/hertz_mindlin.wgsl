// Hertz with damping, Mindlin tangential spring k_t = kt sqrt(delta) on the
// history xi, clipped by Coulomb (model::law::hertz_mindlin).
fn hertz_mindlin_pair(law: DemLaw, p: Pair, hist: ptr<function, f32>) -> vec2<f32> {
    let root = sqrt(p.delta);
    let f_n = law_normal(law, law.kn * p.delta * root, p.u);
    let cap = law.mu * f_n;
    let kt = law.kt * root;
    let xi = *hist + p.vt * law.dt;
    let trial = -kt * xi;
    let slips = abs(trial) > cap;
    let f_t = min(max(trial, -cap), cap);
    *hist = select(xi, -f_t / kt, slips);
    return vec2<f32>(f_n, f_t);
}
