//! Stage `residual_max`: the convergence measure of a Jacobi iteration (the
//! largest per-grain residual, m/s), the largest squared speed, m^2/s^2,
//! and the sum of the squared speeds.
//! CPU twin of shaders/residual_max.wgsl; with it, per-grain
//! `jacobi_contact` + `residual_max` equals [`super::jacobi::jacobi_contact`].

/// `(max_i residual[i], max_i |v_i|^2, sum_i min(|v_i|^2, SPEED2_CAP))`,
/// all 0 when there are no grains; the sum in f64 (the GPU's is exact over
/// its workgroups' f32 sums).
pub fn residual_max(residual: &[f32], vel: &[[f32; 2]]) -> (f32, f32, f64) {
    let r = residual.iter().copied().fold(0.0f32, f32::max);
    let speed2 = vel.iter().map(|v| v[0] * v[0] + v[1] * v[1]);
    let s = speed2.clone().fold(0.0f32, f32::max);
    let sum = speed2.map(|s| f64::from(s.min(crate::model::SPEED2_CAP))).sum();
    (r, s, sum)
}
