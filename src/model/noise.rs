//! Stochastic forcing (docs/nscd.md#stochastic-forcing): a counter-based normal generator that the
//! CPU and the GPU (`normal2` in shaders/free_velocity.wgsl) compute with the
//! same integer arithmetic, so their draws are bit-identical.
//!
//! ```text
//!   key    = pcg(pcg(pcg(step) ^ id) ^ seed)
//!   key_c  = pcg(key ^ salt_c)     salt = 0 (x), SALT (y), SALT_Z (z, in 3D)
//!   h_j    = pcg(h_{j-1}), h_0 = key_c,  k_j = h_j >> 12     12 uniforms of 20 bits
//!   w_c    = (2 sum_j k_j - 12 (2^20 - 1)) / 2^21            (Irwin-Hall: 12 uniforms - 6)
//!   v_free += sqrt(dt) sigma w                                (movable grains)
//! ```
//! w has mean 0 and variance 1 (1 - 2^-40) exactly; it is the sum of 12
//! uniforms, so its tails stop at 6 (a normal passes 6 with probability
//! 2e-9) and its kurtosis is 2.9 instead of 3; over many steps the kicks
//! add up to a normal anyway. Box-Muller would be exactly normal, but its
//! ln, cos and sin are the platform's: lavapipe's cos differed from the
//! CPU's by 1.5e-6 (absolute), far more than an ulp of a small draw. Here
//! every operation is an exact integer one: the sum is below 2^24, so its
//! conversion to f32 is exact, and so is the scaling by 2^-21.
//!
//! A draw depends on (seed, step, id) only: not on the thread that computes
//! it, nor on the order the GPU keeps its grains in (which it permutes for
//! locality; the id travels with the grain). `pcg` is the 32-bit
//! permuted-congruential hash of Jarzynski and Olano (JCGT 2020, "Hash
//! functions for GPU rendering").

/// The PCG hash of one 32-bit word.
#[inline]
pub fn pcg(x: u32) -> u32 {
    let state = x.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

/// Decorrelates the second uniform of a pair from the first.
pub const SALT: u32 = 0x9e37_79b9;
/// Decorrelates the third draw (z, in 3D) from the first two.
pub const SALT_Z: u32 = 0x85eb_ca6b;

/// The scene's 64-bit seed folded into the generator's 32 bits.
pub fn fold_seed(seed: u64) -> u32 {
    (seed as u32) ^ ((seed >> 32) as u32)
}

/// Uniforms summed per draw (Irwin-Hall).
pub const TERMS: u32 = 12;
/// Bits of each uniform: 12 of them sum below 2^24, exact in f32.
pub const BITS: u32 = 20;

/// One standard draw from `key` (see the module doc).
#[inline]
pub fn standard(key: u32) -> f32 {
    let mut h = key;
    let mut sum = 0u32;
    for _ in 0..TERMS {
        h = pcg(h);
        sum += h >> (32 - BITS);
    }
    let centred = (2 * sum) as i32 - (TERMS * ((1 << BITS) - 1)) as i32;
    centred as f32 * (1.0 / (1u32 << (BITS + 1)) as f32)
}

/// Two independent standard draws (x and y components) for grain `id` at
/// step `step` of a run seeded with `seed`.
#[inline]
pub fn normal2(seed: u32, step: u32, id: u32) -> [f32; 2] {
    normal::<2>(seed, step, id)
}

/// `D` independent standard draws (x, y and, for D = 3, z) for grain `id`
/// at step `step` of a run seeded with `seed`: the first two are
/// [`normal2`]'s, so a sphere's x and y draws are a disk's.
#[inline]
pub fn normal<const D: usize>(seed: u32, step: u32, id: u32) -> [f32; D] {
    let key = pcg(pcg(pcg(step) ^ id) ^ seed);
    let salts = [0, SALT, SALT_Z];
    std::array::from_fn(|c| standard(pcg(key ^ salts[c])))
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
    /// The standard deviation of a kick per component, sqrt(dt) sigma (m/s;
    /// computed once on the host for the GPU as well).
    pub fn scale(&self, dt: f32) -> f32 {
        dt.sqrt() * self.sigma
    }

    /// The velocity kick of grain `id` this step: `scale` w, m/s.
    #[inline]
    pub fn kick(&self, id: u32, scale: f32) -> [f32; 2] {
        self.kick_in::<2>(id, scale)
    }

    /// [`Forcing::kick`] in `D` dimensions.
    #[inline]
    pub fn kick_in<const D: usize>(&self, id: u32, scale: f32) -> [f32; D] {
        normal::<D>(self.seed, self.step, id).map(|w| scale * w)
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

    /// The z draw is a third independent normal; x and y are the plane's.
    #[test]
    fn the_third_draw_is_independent_and_the_first_two_are_the_planes() {
        let n = 200_000u32;
        let (mut s, mut s2, mut sxz, mut syz) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for id in 0..n {
            let w = normal::<3>(7, 3, id);
            assert_eq!([w[0], w[1]], normal2(7, 3, id));
            let z = f64::from(w[2]);
            (s, s2) = (s + z, s2 + z * z);
            sxz += f64::from(w[0]) * z;
            syz += f64::from(w[1]) * z;
        }
        let n = f64::from(n);
        let mean = s / n;
        assert!(mean.abs() < 4.0 / n.sqrt(), "mean {mean}");
        assert!((s2 / n - mean * mean - 1.0).abs() < 0.02, "variance {}", s2 / n);
        assert!((sxz / n).abs() < 4.0 / n.sqrt() && (syz / n).abs() < 4.0 / n.sqrt());
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
