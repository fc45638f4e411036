// Hertz with damping, Mindlin tangential spring k_t = kt sqrt(delta) on the
// history xi, clipped by Coulomb (a disk of radius mu F_n in 3D)
// (model::law::hertz_mindlin).
fn hertz_mindlin_pair(law: DemLaw, p: Pair, hist: ptr<function, Tangent>) -> LawForce {
    let root = sqrt(p.delta);
    let f_n = law_normal(law, law.kn * p.delta * root, p.u);
    let cap = law.mu * f_n;
    let kt = law.kt * root;
    let xi = *hist + p.vt * law.dt;
    let trial = -kt * xi;
    let slips = tangent_norm(trial) > cap;
    let f_t = tangent_cap(trial, cap);
    *hist = select(xi, -f_t / kt, slips);
    return LawForce(f_n, f_t);
}
