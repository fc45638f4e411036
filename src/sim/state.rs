//! What a run saves at every diagnostics row (DIR/state.json, replaced
//! atomically) and `run --resume` goes on from: the grains in the backend's
//! order with their spins and angles, the step counts, the emitters'
//! progress, the run's tallies, and where the backend keeps them, the last
//! step's contact lists with their impulses (warm start) and the cell order
//! of its last binning (the CPU's next reorder), so a resumed CPU run takes
//! the very steps the uninterrupted run takes.

use super::Tally;
use crate::error::{Error, Result};

/// Where a run stands at a diagnostics row: state.json in the result
/// directory, replaced at every row, from which `run --resume` goes on
/// (grains in the backend's order, with their spins and angles).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct State {
    /// Format version of this file.
    pub version: u32,
    /// Steps taken (settle phase included); the row this state belongs to.
    pub step: u64,
    /// The backend's own step count (substeps included).
    pub backend_steps: u64,
    pub settling: bool,
    pub settle_steps: u64,
    pub discharge_steps: u64,
    /// Time the gate opened, s.
    pub discharge_start: f64,
    /// Fastest grain after the last step, m/s (sets the next step's substeps).
    pub speed: f32,
    pub grains: crate::model::Grains,
    /// Grains each emitter has added, whether its next one waits, and the emissions that waited.
    pub emitted: Vec<usize>,
    pub waiting: Vec<bool>,
    pub emissions_waited: u64,
    pub(super) tally: Tally,
    /// Each row's time (s) and grains passed, for the flow-rate fit.
    pub(super) times: Vec<f64>,
    pub(super) passed: Vec<u64>,
    /// The overlap histogram's non-empty bins.
    pub(super) overlaps: Vec<(u32, u64)>,
    /// The frames written: (time, name).
    pub frames: Vec<(f64, String)>,
    /// The last step's contacts with their impulses, where the backend
    /// warm-starts from them (CPU NSCD); absent otherwise.
    #[serde(default)]
    pub(super) contacts: Option<SavedContacts>,
}

/// Contact lists as saved in state.json: per grain the count, then the
/// listed contacts of every grain one after the other, each as the u32 words
/// of its `Contact` (bit for bit).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct SavedContacts {
    capacity: usize,
    count: Vec<u32>,
    words: Vec<u32>,
    /// The cell order of the last binning (the CPU reorders the grains into it).
    pub(super) order: Vec<u32>,
}

impl SavedContacts {
    pub(super) fn of((lists, order): &(crate::model::ContactLists, Vec<u32>)) -> SavedContacts {
        let mut words = Vec::new();
        for i in 0..lists.grains() {
            words.extend_from_slice(bytemuck::cast_slice(lists.of(i)));
        }
        SavedContacts {
            capacity: lists.capacity,
            count: lists.count.clone(),
            words,
            order: order.clone(),
        }
    }

    /// The lists again, or None when they do not fit `grains` grains of `capacity` slots.
    pub(super) fn lists(&self, grains: usize, capacity: usize) -> Option<crate::model::ContactLists> {
        use crate::model::{Contact, ContactLists};
        let per = std::mem::size_of::<Contact>() / 4;
        if self.capacity != capacity || self.count.len() != grains {
            return None;
        }
        let mut lists = ContactLists::new(grains, capacity);
        let mut at = 0;
        for (i, &c) in self.count.iter().enumerate() {
            let n = (c as usize).min(capacity);
            let words = self.words.get(at..at + n * per)?;
            lists.slots[i * capacity..i * capacity + n].copy_from_slice(bytemuck::cast_slice(words));
            lists.count[i] = c;
            at += n * per;
        }
        (at == self.words.len()).then_some(lists)
    }
}

/// The version of state.json this build writes and reads.
pub const STATE_VERSION: u32 = 1;

impl State {
    /// DIR/state.json, or an error naming it.
    pub fn read(dir: &std::path::Path) -> Result<State> {
        let path = dir.join(crate::output::STATE);
        let bad = |message: String| Error::ResultFile {
            path: path.clone(),
            message,
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            bad(format!(
                "cannot be read ({e}): {} is not a result directory with a saved state to resume from",
                dir.display()
            ))
        })?;
        let state: State = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if state.version != STATE_VERSION {
            return Err(bad(format!(
                "state version {} (this build reads {STATE_VERSION})",
                state.version
            )));
        }
        let n = state.grains.len();
        let g = &state.grains;
        if [
            g.vel.len(),
            g.radius.len(),
            g.inv_mass.len(),
            g.id.len(),
            g.ang_vel.len(),
            g.angle.len(),
        ]
        .iter()
        .any(|&l| l != n)
        {
            return Err(bad("the grain arrays have different lengths".to_string()));
        }
        Ok(state)
    }
}
