//! Stage `residual_max`: the convergence measure of a Jacobi iteration (the
//! largest per-grain residual, m/s) and the largest squared speed, m^2/s^2.
//! CPU twin of shaders/residual_max.wgsl; with it, per-grain
//! `jacobi_contact` + `residual_max` equals [`super::jacobi::jacobi_contact`].
//! The shader also counts the grains' speed histogram, whose twin is
//! [`crate::model::speeds::histogram`].

/// `(max_i residual[i], max_i |v_i|^2)`, both 0 when there are no grains.
pub fn residual_max(residual: &[f32], vel: &[[f32; 2]]) -> (f32, f32) {
    residual_max_in::<crate::model::Dim2>(residual, vel)
}

/// [`residual_max`] in either space (|v|^2 = `Space::dot(v, v)`).
pub fn residual_max_in<S: crate::model::Space>(residual: &[f32], vel: &[S::Vec]) -> (f32, f32) {
    let r = residual.iter().copied().fold(0.0f32, f32::max);
    let s = vel.iter().map(|&v| S::dot(v, v)).fold(0.0f32, f32::max);
    (r, s)
}
