//! The grains' speeds as a histogram of binary orders of magnitude: what a
//! step's solve tolerance follows ([`super::params::StepParams::solve_tol`]).
//!
//! A pile at rest solves to a tolerance set by its fast grains. Following
//! the fastest grain alone lets a few grains rocking in place (a surface
//! grain and its supports, 1-3 mm/s) loosen the solve of the whole pile,
//! and a loose solve lags the contact forces behind the motion, which feeds
//! the rocking (docs/nscd.md, "Rest"). The tolerance of the solvers whose
//! resting solve converges slowly therefore follows the speed that at most
//! [`FAST_SHARE`] of the grains exceed. A histogram
//! gives it in one pass, with integer counts that the GPU adds with
//! atomics in any order and gets the same answer as the CPU; its bins are
//! a factor of 2 in the squared speed (sqrt 2 in the speed), as fine as a
//! rule of thumb of 1 % needs.

/// Bins of the histogram.
pub const BINS: usize = 64;

/// Binary exponent of the squared speed (m^2/s^2) at the top of bin 0:
/// bin 0 holds every grain slower than 2^(LOW/2) m/s (9.5e-7 m/s, below
/// the solve's rest floor), bin b >= 1 those with |v|^2 in
/// [2^(LOW+b-1), 2^(LOW+b)), the last bin every faster one (from
/// 2^((LOW + BINS - 2)/2) = 2,048 m/s) and any non-finite speed.
pub const LOW: i32 = -40;

/// Share of the grains whose speed the tolerance of Jacobi, coloured NLGS
/// and APGD ignores (`SolverFacts::fast_share`): the fastest 1 %, when
/// that is at least one grain (100 grains or more).
pub const FAST_SHARE: f32 = 0.01;

/// The bin of a grain moving at squared speed `v2` (m^2/s^2): the binary
/// exponent of the f32 `v2` (a sum of squares: never negative; NaN
/// falls in the last bin), read from its bits as the GPU does
/// (shaders/residual_max.wgsl).
#[inline]
pub fn bin(v2: f32) -> usize {
    let exponent = ((v2.to_bits() >> 23) & 0xff) as i32 - 127;
    (exponent + 1 - LOW).clamp(0, BINS as i32 - 1) as usize
}

/// The speed (m/s) at the top of bin `b`: every grain in it is slower.
pub fn top(b: usize) -> f32 {
    2f32.powf((LOW + b as i32) as f32 / 2.0)
}

/// The speed the solve's tolerance follows for `count` grains binned in
/// `hist`, the fastest of them at `max_speed`, ignoring the fastest
/// `share` of them: the top of the bin that holds the slowest of those, at
/// most `max_speed` (`max_speed` itself when `share` of `count` is less
/// than one grain).
pub fn followed(hist: &[u32; BINS], count: u32, max_speed: f32, share: f32) -> f32 {
    let ignored = (share * count as f32) as u32;
    if ignored == 0 {
        return max_speed;
    }
    // The slowest grain that at most `ignored` others outrun.
    let rank = count - ignored.min(count);
    let mut seen = 0u32;
    for (b, &n) in hist.iter().enumerate() {
        seen += n;
        if seen >= rank {
            return top(b).min(max_speed);
        }
    }
    max_speed
}

/// The histogram of `vel` (m/s).
pub fn histogram(vel: &[[f32; 2]]) -> [u32; BINS] {
    histogram_in::<super::Dim2>(vel)
}

/// [`histogram`] in either space.
pub fn histogram_in<S: super::Space>(vel: &[S::Vec]) -> [u32; BINS] {
    let mut hist = [0u32; BINS];
    for &v in vel {
        hist[bin(S::dot(v, v))] += 1;
    }
    hist
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_octaves_of_the_squared_speed() {
        assert_eq!(bin(0.0), 0);
        assert_eq!(bin(f32::NAN), BINS - 1);
        assert_eq!(bin(f32::INFINITY), BINS - 1);
        // |v|^2 = 1 has exponent 0: bin 1 - LOW, whose top is 2^(1/2) m/s.
        assert_eq!(bin(1.0), 41);
        assert_eq!(bin(1.999), 41);
        assert_eq!(bin(2.0), 42);
        assert_eq!(bin(0.5), 40);
        assert!((top(41) - 2f32.sqrt()).abs() < 1e-6);
        for v2 in [1e-12f32, 3e-9, 1e-6, 0.04, 1.0, 30.0] {
            let b = bin(v2);
            assert!(v2.sqrt() < top(b) && v2.sqrt() >= top(b - 1), "{v2}: bin {b}");
        }
    }

    #[test]
    fn a_few_fast_grains_do_not_set_the_speed() {
        // 990 grains at 1e-5 m/s, 10 rocking at 3e-3 m/s: the 1 % ignored.
        let mut vel = vec![[1e-5f32, 0.0]; 990];
        vel.extend(vec![[0.0, 3e-3f32]; 10]);
        let hist = histogram(&vel);
        let s = followed(&hist, 1000, 3e-3, FAST_SHARE);
        assert!((1e-5..=1e-5 * 2f32.sqrt()).contains(&s), "{s}");
        // One more fast grain than the share: the speed is theirs.
        vel[0] = [3e-3, 0.0];
        let hist = histogram(&vel);
        let s = followed(&hist, 1000, 3e-3, FAST_SHARE);
        assert_eq!(s, 3e-3);
        // No share, or fewer than 100 grains: the fastest.
        assert_eq!(followed(&hist, 1000, 3e-3, 0.0), 3e-3);
        let few = histogram(&vel[..99]);
        assert_eq!(followed(&few, 99, 3e-3, FAST_SHARE), 3e-3);
    }
}
