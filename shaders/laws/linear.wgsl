// Linear spring k_s delta with dashpot k_d, viscous friction (model::law::linear).
fn linear_pair(law: DemLaw, p: Pair, hist: ptr<function, Tangent>) -> LawForce {
    let f_n = law_normal(law, law.kn * p.delta, p.u);
    return LawForce(f_n, law_viscous(law, p, f_n));
}
