//! The grain count against memory: a scene asking for more grains than the
//! machine can hold is refused before the fill draws a single radius, not
//! after minutes of swapping.
//!
//! ```text
//! bytes(n) = n * (GRAIN_STATE_BYTES + 2 * contact_capacity * size_of::<Contact>())
//! ```
//!
//! (two contact lists per grain: this step's and the previous one's, for the
//! warm start). The estimate is a floor: binning, output buffers and the GPU
//! copies come on top.

use crate::error::{Error, Result};
use crate::model::Contact;

/// A grain's state outside its contact lists (position, velocity, radius,
/// masses, spin, bin entries, output), bytes; generous on purpose.
pub const GRAIN_STATE_BYTES: u64 = 256;

/// Bytes `count` grains with `capacity` contact slots each need at least.
pub fn grain_bytes(count: u64, capacity: u32) -> u64 {
    let per_grain = GRAIN_STATE_BYTES + 2 * u64::from(capacity) * std::mem::size_of::<Contact>() as u64;
    count.saturating_mul(per_grain)
}

/// Memory available to a new allocation, bytes (`MemAvailable` of
/// /proc/meminfo); `None` where that is unknown (the check is then skipped).
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Refuse `count` grains when they would not fit in `available` bytes.
pub fn check_memory(count: u64, capacity: u32, available: Option<u64>, origin: &str, field: &str) -> Result<()> {
    let need = grain_bytes(count, capacity);
    match available {
        Some(have) if need > have => Err(Error::field(
            origin,
            field,
            format!(
                "{count} grains need at least {:.1} GB ({} B each), more than the {:.1} GB of memory available",
                need as f64 / 1e9,
                need / count.max(1),
                have as f64 / 1e9
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grains_beyond_memory_are_refused_with_the_numbers() {
        let per_grain = grain_bytes(1, 32);
        assert_eq!(per_grain, 256 + 64 * std::mem::size_of::<Contact>() as u64);
        assert!(check_memory(1000, 32, Some(1000 * per_grain), "s.toml", "grains.count").is_ok());
        assert!(check_memory(1000, 32, None, "s.toml", "grains.count").is_ok());
        let e = check_memory(10_000_000, 32, Some(4_000_000_000), "s.toml", "grains.count").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "s.toml: field `grains.count`: 10000000 grains need at least {:.1} GB ({per_grain} B each), more than the 4.0 GB of memory available",
                10_000_000.0 * per_grain as f64 / 1e9
            )
        );
    }

    #[test]
    fn available_memory_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(available_memory().is_some_and(|b| b > 0));
        }
    }
}
