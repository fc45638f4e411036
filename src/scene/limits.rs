//! Counts and lengths against what the machine holds: a scene asking for
//! more grains than memory can hold (the fill's, the emitters', or contact
//! lists too long for them) is refused before the fill draws a single
//! radius, not after minutes of swapping.
//!
//! ```text
//! bytes(n) = n * (GRAIN_STATE_BYTES + 2 * contact_capacity * size_of::<Contact>())
//! ```
//!
//! (two contact lists per grain: this step's and the previous one's, for the
//! warm start). The estimate is the GPU's floor (binning, output buffers and
//! the host copies come on top); the CPU's lists start smaller and grow
//! (`cpu::CpuStepper::growing`), so a CPU run needs less.

use crate::error::{Error, Result};
use crate::model::Contact;

/// Largest magnitude of a coordinate or radius in a scene, m. The steps run
/// in single precision, where the square of a distance must stay finite
/// (3.4e38) and the contact grid's cells countable; 1e9 m keeps both by
/// far, and anything near it is a unit mistake.
pub const MAX_LENGTH: f64 = 1e9;

/// Contact slots per grain below which the capacity is never blamed for a
/// lack of memory (the scene default).
pub const DEFAULT_CAPACITY: u32 = 32;

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

/// Refuse `fill` grains and the emitters' `emitted` counts, in order, when
/// they would not fit in `available` bytes with `capacity` contact slots
/// each. The fill is named by `fill_field`; emitter `k` by
/// `emitters[k].count` when it is the one that makes the sum too large;
/// `solver.contact_capacity` when the same grains would fit with the
/// default capacity.
pub fn check_scene_memory(
    fill: u64,
    emitted: &[u64],
    capacity: u32,
    available: Option<u64>,
    origin: &str,
    fill_field: &str,
) -> Result<()> {
    let Some(have) = available else { return Ok(()) };
    let check = |total: u64, field: &str, what: String| -> Result<()> {
        if grain_bytes(total, capacity) <= have {
            return Ok(());
        }
        if capacity > DEFAULT_CAPACITY && grain_bytes(total, DEFAULT_CAPACITY) <= have {
            let need = grain_bytes(total, capacity);
            return Err(Error::field(
                origin,
                "solver.contact_capacity",
                format!(
                    "{capacity} contact slots for each of {total} grains need at least {:.1} GB, more than the {:.1} GB of memory available (the default {DEFAULT_CAPACITY} fits)",
                    need as f64 / 1e9,
                    have as f64 / 1e9
                ),
            ));
        }
        let need = grain_bytes(total, capacity);
        Err(Error::field(
            origin,
            field,
            format!(
                "{what} need at least {:.1} GB ({} B each), more than the {:.1} GB of memory available",
                need as f64 / 1e9,
                need / total.max(1),
                have as f64 / 1e9
            ),
        ))
    };
    check(fill, fill_field, format!("{fill} grains"))?;
    let mut total = fill;
    for (k, &n) in emitted.iter().enumerate() {
        total = total.saturating_add(n);
        let what = if total == n {
            format!("{n} emitted grains")
        } else {
            format!("{total} grains ({n} emitted here, {} before)", total - n)
        };
        check(total, &format!("emitters[{k}].count"), what)?;
    }
    Ok(())
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

    #[test]
    fn emitters_beyond_memory_name_the_emitter_that_overflows() {
        let per_grain = grain_bytes(1, 32);
        let have = Some(1000 * per_grain);
        assert!(check_scene_memory(400, &[300, 300], 32, have, "s.toml", "grains.count").is_ok());
        let e = check_scene_memory(400, &[300, 301, 5], 32, have, "s.toml", "grains.count").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "s.toml: field `emitters[1].count`: 1001 grains (301 emitted here, 700 before) need at least {:.1} GB ({per_grain} B each), more than the {:.1} GB of memory available",
                1001.0 * per_grain as f64 / 1e9,
                1000.0 * per_grain as f64 / 1e9
            )
        );
        let e = check_scene_memory(0, &[1_000_000_000], 32, Some(4_000_000_000), "s.toml", "grains.count").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("s.toml: field `emitters[0].count`: 1000000000 emitted grains need at least"),
            "{e}"
        );
        assert!(check_scene_memory(0, &[u64::MAX], 32, None, "s.toml", "grains.count").is_ok());
    }

    #[test]
    fn a_capacity_that_alone_overflows_memory_is_named() {
        let have = Some(1000 * grain_bytes(1, 32));
        assert!(check_scene_memory(900, &[], 32, have, "s.toml", "grains.count").is_ok());
        let e = check_scene_memory(900, &[], 64, have, "s.toml", "grains.count").unwrap_err();
        assert!(
            e.to_string().starts_with(
                "s.toml: field `solver.contact_capacity`: 64 contact slots for each of 900 grains need at least"
            ),
            "{e}"
        );
        // Too many grains even at the default capacity: the count is at fault.
        let e = check_scene_memory(2000, &[], 64, have, "s.toml", "grains.count").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("s.toml: field `grains.count`: 2000 grains need"),
            "{e}"
        );
    }
}
