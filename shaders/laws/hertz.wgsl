// Hertz k_n delta^1.5 with damping, viscous friction (model::law::hertz).
fn hertz_pair(law: DemLaw, p: Pair, hist: ptr<function, Tangent>) -> LawForce {
    let f_n = law_normal(law, law.kn * p.delta * sqrt(p.delta), p.u);
    return LawForce(f_n, law_viscous(law, p, f_n));
}
