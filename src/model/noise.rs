//! Stochastic forcing (DESIGN §1e): a counter-based normal generator that the
//! CPU and the GPU (`noise` in shaders/free_velocity.wgsl) compute with the
//! same integer and float arithmetic.
//!
//! ```text
//!   key    = pcg(pcg(pcg(step) ^ id) ^ seed)          (id: the grain's original id)
//!   u1     = (pcg(key)        >> 8 + 1) / 2^24   in (0, 1]
//!   u2     = (pcg(key ^ SALT) >> 8)     / 2^24   in [0, 1)
//!   w      = sqrt(-2 ln u1) (cos 2 pi u2, sin 2 pi u2)  (Box-Muller: two
//!            independent standard normals, one per component)
//!   v_free += sqrt(dt) sigma w                         (movable grains)
//! ```
//! A draw depends on (seed, step, id) only: not on the thread that computes
//! it, nor on the order the GPU keeps its grains in (which it permutes for
//! locality; the id travels with the grain). `pcg` is the 32-bit
//! permuted-congruential hash of Jarzynski and Olano (JCGT 2020, "Hash
//! functions for GPU rendering"). The integer part is exact on both sides;
//! ln, cos and sin are the platform's, so a GPU draw may differ from the CPU
//! twin's in the last bits (tests/gpu_forcing.rs measures by how much).

/// The PCG hash of one 32-bit word.
#[inline]
pub fn pcg(x: u32) -> u32 {
    let state = x.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

/// Decorrelates the second uniform of a pair from the first.
pub const SALT: u32 = 0x9e37_79b9;

/// The scene's 64-bit seed folded into the generator's 32 bits.
pub fn fold_seed(seed: u64) -> u32 {
    (seed as u32) ^ ((seed >> 32) as u32)
}

/// Two independent standard normal draws (x and y components) for grain
/// `id` at step `step` of a run seeded with `seed`.
#[inline]
pub fn normal2(seed: u32, step: u32, id: u32) -> [f32; 2] {
    let key = pcg(pcg(pcg(step) ^ id) ^ seed);
    let u1 = ((pcg(key) >> 8) + 1) as f32 * (1.0 / 16_777_216.0);
    let u2 = (pcg(key ^ SALT) >> 8) as f32 * (1.0 / 16_777_216.0);
    let r = (-2.0 * u1.ln()).sqrt();
    let theta = std::f32::consts::TAU * u2;
    [r * theta.cos(), r * theta.sin()]
}

/// The stochastic forcing of one step (`[forcing]`): standard deviation
/// `sigma` of the velocity noise (m s^-3/2; 0 = off), the seed and the
/// step's index.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Forcing {
    pub sigma: f32,
    pub seed: u32,
    pub step: u32,
}

impl Forcing {
    /// The velocity kick of grain `id` this step: sqrt(dt) sigma w, m/s.
    #[inline]
    pub fn kick(&self, id: u32, dt: f32) -> [f32; 2] {
        let w = normal2(self.seed, self.step, id);
        let s = dt.sqrt() * self.sigma;
        [s * w[0], s * w[1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal2_has_zero_mean_and_unit_variance() {
        let n = 200_000u32;
        let (mut s, mut s2, mut sxy) = ([0.0f64; 2], [0.0f64; 2], 0.0f64);
        for id in 0..n {
            let w = normal2(7, 3, id);
            for c in 0..2 {
                s[c] += f64::from(w[c]);
                s2[c] += f64::from(w[c]) * f64::from(w[c]);
            }
            sxy += f64::from(w[0]) * f64::from(w[1]);
        }
        let n = f64::from(n);
        for c in 0..2 {
            let mean = s[c] / n;
            assert!(mean.abs() < 4.0 / n.sqrt(), "mean {mean}");
            let var = s2[c] / n - mean * mean;
            assert!((var - 1.0).abs() < 0.02, "variance {var}");
        }
        assert!((sxy / n).abs() < 4.0 / n.sqrt(), "x-y correlation {}", sxy / n);
    }

    #[test]
    fn draws_change_with_every_counter() {
        let a = normal2(1, 2, 3);
        assert_ne!(a, normal2(2, 2, 3));
        assert_ne!(a, normal2(1, 3, 3));
        assert_ne!(a, normal2(1, 2, 4));
        assert_eq!(a, normal2(1, 2, 3));
    }
}
