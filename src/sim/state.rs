//! What a run saves at every diagnostics row (DIR/state.json, replaced
//! atomically) and `run --resume` goes on from: the grains in the backend's
//! order with their spins and angles, the step counts, the emitters'
//! progress, the run's tallies, and where the backend keeps them, the last
//! step's contact lists with their impulses (warm start) and the cell order
//! of its last binning (the CPU's next reorder), so a resumed CPU run takes
//! the very steps the uninterrupted run takes.

use std::path::Path;

use super::Tally;
use crate::error::{Error, Result};
use crate::model::Space;
use crate::scene::{Scene, Setup};

/// Where a run stands at a diagnostics row: state.json in the result
/// directory, replaced at every row, from which `run --resume` goes on
/// (grains in the backend's order, with their spins and angles).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(bound = "")]
pub struct State<S: crate::model::Space = crate::model::Dim2> {
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
    pub grains: crate::model::Grains<S>,
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
/// listed contacts of every grain one after the other, each as the first
/// [`saved_words`] u32 words of its `Contact` (bit for bit), in either space.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SavedContacts {
    capacity: usize,
    count: Vec<u32>,
    words: Vec<u32>,
    /// The cell order of the last binning (the CPU reorders the grains into it).
    pub(super) order: Vec<u32>,
}

impl SavedContacts {
    /// The cell order of the last binning.
    pub(super) fn order(&self) -> &[u32] {
        &self.order
    }

    /// The lists hold whole contacts of their own grains, the cell order is
    /// a permutation, every impulse is finite (see [`State::check`]).
    fn check<S: Space>(&self) -> std::result::Result<(), (String, String)> {
        use crate::model::Body;
        let fail = |field: &str, problem: String| Err((field.to_string(), problem));
        let per = saved_words::<S>();
        let grains = self.count.len();
        let listed = self.count.iter().try_fold(0usize, |a, &c| {
            a.checked_add((c as usize).min(self.capacity).checked_mul(per)?)
        });
        if listed != Some(self.words.len()) {
            let take = listed.map_or("more than fit in memory".to_string(), |k| k.to_string());
            return fail(
                "contacts.words",
                format!(
                    "has {} words, the contacts of contacts.count take {take}",
                    self.words.len()
                ),
            );
        }
        for (k, c) in self.words.chunks_exact(per).enumerate() {
            // The first word names the other body; every other word is an
            // f32 (gap, W, impulse, normal, tangential impulse, bounce).
            let other_ok = match Body::decode(c[0]) {
                Body::Grain(j) => (j as usize) < grains,
                _ => true,
            };
            if !other_ok || c[1..].iter().any(|&w| !f32::from_bits(w).is_finite()) {
                return fail(
                    "contacts.words",
                    format!("contact {k} names a grain not listed or holds a value that is not finite"),
                );
            }
        }
        let mut seen = vec![false; self.order.len()];
        for &o in &self.order {
            match seen.get_mut(o as usize) {
                Some(s) if !*s => *s = true,
                _ => {
                    return fail(
                        "contacts.order",
                        format!("is not an order of {} grains (entry {o})", self.order.len()),
                    );
                }
            }
        }
        Ok(())
    }

    /// The contacts of `lists` that carry over to the next step
    /// (`Contact::carries_over`), with the cell order.
    pub(crate) fn of<S: Space>(lists: &crate::model::ContactLists<S>, order: &[u32]) -> SavedContacts
    where
        crate::model::Contact<S>: bytemuck::Pod,
    {
        let kept = |c: &&crate::model::Contact<S>| c.carries_over();
        let count: Vec<u32> = (0..lists.grains())
            .map(|i| lists.of(i).iter().filter(kept).count() as u32)
            .collect();
        let total: usize = count.iter().map(|&c| c as usize).sum();
        let per = saved_words::<S>();
        let mut words = Vec::with_capacity(total * per);
        for i in 0..lists.grains() {
            for c in lists.of(i).iter().filter(kept) {
                let all: &[u32] = bytemuck::cast_slice(std::slice::from_ref(c));
                words.extend_from_slice(&all[..per]);
            }
        }
        SavedContacts {
            capacity: lists.capacity,
            count,
            words,
            order: order.to_vec(),
        }
    }

    /// The lists again, in as many slots per grain as the fullest list
    /// needs, or None when they do not fit `grains` grains of `capacity` slots.
    pub(crate) fn lists<S: Space>(&self, grains: usize, capacity: usize) -> Option<crate::model::ContactLists<S>>
    where
        crate::model::Contact<S>: bytemuck::Pod,
    {
        use crate::model::ContactLists;
        let per = saved_words::<S>();
        let saved = |c: u32| (c as usize).min(self.capacity);
        let fullest = self.count.iter().map(|&c| saved(c)).max().unwrap_or(0);
        if self.count.len() != grains || fullest > capacity {
            return None;
        }
        let capacity = fullest.max(1);
        let mut lists = ContactLists::new(grains, capacity);
        let mut at = 0;
        for (i, &c) in self.count.iter().enumerate() {
            let n = saved(c);
            let words = self.words.get(at..at + n * per)?;
            for (slot, w) in lists.slots[i * capacity..i * capacity + n]
                .iter_mut()
                .zip(words.chunks_exact(per))
            {
                *slot = unpack(w);
            }
            lists.count[i] = c;
            at += n * per;
        }
        (at == self.words.len()).then_some(lists)
    }
}

/// The words of a saved contact of space `S`: every field of
/// [`crate::model::Contact`] up to `bounce`, all but its last, the wall's
/// velocity (`S::DIM` words). A moving wall's velocity is not saved:
/// detection sets it again at the next step.
fn saved_words<S: Space>() -> usize {
    std::mem::size_of::<crate::model::Contact<S>>() / 4 - S::DIM
}
// The wall velocity is the last field of either space's contact.
const _: () = assert!(
    std::mem::offset_of!(crate::model::Contact, wall_vel) + 4 * 2 == std::mem::size_of::<crate::model::Contact>()
);
const _: () = assert!(
    std::mem::offset_of!(crate::model::Contact<crate::model::space::Dim3>, wall_vel) + 4 * 3
        == std::mem::size_of::<crate::model::Contact<crate::model::space::Dim3>>()
);

/// A contact from its [`saved_words`] saved words (a still wall's).
fn unpack<S: Space>(words: &[u32]) -> crate::model::Contact<S>
where
    crate::model::Contact<S>: bytemuck::Pod,
{
    let mut all = vec![0u32; std::mem::size_of::<crate::model::Contact<S>>() / 4];
    all[..words.len()].copy_from_slice(words);
    bytemuck::pod_read_unaligned(bytemuck::cast_slice(&all))
}

/// The version of state.json this build writes and reads.
pub const STATE_VERSION: u32 = 1;

/// Each value's coordinates are finite.
fn first_not_finite<T: bytemuck::Pod>(values: &[T]) -> Option<usize> {
    values.iter().position(|v| {
        let parts: &[f32] = bytemuck::cast_slice(std::slice::from_ref(v));
        !parts.iter().all(|x| x.is_finite())
    })
}

impl<S: super::RunSpace> State<S> {
    /// DIR/state.json, checked ([`State::load`] then [`State::check`]), or
    /// an error naming it and the key at fault.
    pub fn read(dir: &Path) -> Result<State<S>> {
        let state = State::load(dir)?;
        state.validate(dir)?;
        Ok(state)
    }

    /// [`State::check`] as an error naming DIR/state.json and the key.
    pub fn validate(&self, dir: &Path) -> Result<()> {
        self.check().map_err(|(field, problem)| Error::ResultFile {
            path: dir.join(crate::output::STATE),
            message: format!("field `{field}`: {problem}"),
        })
    }

    /// DIR/state.json as it is written (read and of this version, its values
    /// not checked), or an error naming it.
    pub fn load(dir: &Path) -> Result<State<S>> {
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
        let state: State<S> = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if state.version != STATE_VERSION {
            return Err(bad(format!(
                "state version {} (this build reads {STATE_VERSION})",
                state.version
            )));
        }
        Ok(state)
    }

    /// Every value of the state within its domain and consistent with the
    /// others, as a scene file's are checked: the grain arrays of one length
    /// with finite positions, velocities, spins and angles, radii > 0,
    /// inverse masses finite and >= 0, ids 0..n each once; the step counts
    /// adding up; the rows, frames and emitters' lists of matching lengths;
    /// the saved contact lists within their grains. On failure, the key at
    /// fault and what is wrong with it.
    pub fn check(&self) -> std::result::Result<(), (String, String)> {
        self.check_grains()?;
        self.check_counts()?;
        self.check_rows()?;
        match &self.contacts {
            Some(c) => c.check::<S>(),
            None => Ok(()),
        }
    }

    /// The grain arrays ([`State::check`]).
    fn check_grains(&self) -> std::result::Result<(), (String, String)> {
        let fail = |field: &str, problem: String| Err((field.to_string(), problem));
        let g = &self.grains;
        let n = g.pos.len();
        let lengths = [
            ("grains.vel", g.vel.len()),
            ("grains.radius", g.radius.len()),
            ("grains.inv_mass", g.inv_mass.len()),
            ("grains.id", g.id.len()),
            ("grains.ang_vel", g.ang_vel.len()),
            ("grains.angle", g.angle.len()),
        ];
        for (field, len) in lengths {
            if len != n {
                return fail(field, format!("has {len} entries, grains.pos has {n}"));
            }
        }
        if let Some(i) = first_not_finite(&g.pos) {
            return fail(
                "grains.pos",
                format!("entry {i} is {:?}: positions must be finite", g.pos[i]),
            );
        }
        if let Some(i) = first_not_finite(&g.vel) {
            return fail(
                "grains.vel",
                format!("entry {i} is {:?}: velocities must be finite", g.vel[i]),
            );
        }
        if let Some(i) = g.radius.iter().position(|&r| !(r.is_finite() && r > 0.0)) {
            return fail(
                "grains.radius",
                format!("entry {i} is {}: a radius must be finite and > 0", g.radius[i]),
            );
        }
        if let Some(i) = g.inv_mass.iter().position(|&m| !(m.is_finite() && m >= 0.0)) {
            return fail(
                "grains.inv_mass",
                format!(
                    "entry {i} is {}: an inverse mass must be finite and >= 0",
                    g.inv_mass[i]
                ),
            );
        }
        if let Some(i) = first_not_finite(&g.ang_vel) {
            return fail(
                "grains.ang_vel",
                format!("entry {i} is {:?}: it must be finite", g.ang_vel[i]),
            );
        }
        for (field, values) in [("grains.angle", &g.angle)] {
            if let Some(i) = first_not_finite(values) {
                return fail(field, format!("entry {i} is {:?}: it must be finite", values[i]));
            }
        }
        let mut seen = vec![false; n];
        for (i, &id) in g.id.iter().enumerate() {
            match seen.get_mut(id as usize) {
                None => {
                    return fail(
                        "grains.id",
                        format!(
                            "entry {i} is {id}: ids are 0 to {} (one per grain)",
                            n.saturating_sub(1)
                        ),
                    );
                }
                Some(true) => return fail("grains.id", format!("entry {i}: id {id} appears twice")),
                Some(s) => *s = true,
            }
        }
        Ok(())
    }

    /// The step counts, tallies and emitters' lists ([`State::check`]).
    fn check_counts(&self) -> std::result::Result<(), (String, String)> {
        let fail = |field: &str, problem: String| Err((field.to_string(), problem));
        let n = self.grains.pos.len();
        if self.settle_steps.checked_add(self.discharge_steps) != Some(self.step) {
            return fail(
                "step",
                format!(
                    "{} is not settle_steps + discharge_steps ({} + {})",
                    self.step, self.settle_steps, self.discharge_steps
                ),
            );
        }
        if self.tally.steps != self.step {
            return fail(
                "tally.steps",
                format!("{} differs from step {}", self.tally.steps, self.step),
            );
        }
        if self.tally.since_row_steps > self.step {
            return fail(
                "tally.since_row_steps",
                format!("{} is more than step {}", self.tally.since_row_steps, self.step),
            );
        }
        if self.settling && self.discharge_steps > 0 {
            return fail(
                "discharge_steps",
                format!(
                    "{} while still settling (the discharge starts when the gate opens)",
                    self.discharge_steps
                ),
            );
        }
        if !(self.discharge_start.is_finite() && self.discharge_start >= 0.0) {
            return fail(
                "discharge_start",
                format!("is {}: it must be finite and >= 0", self.discharge_start),
            );
        }
        if !(self.speed.is_finite() && self.speed >= 0.0) {
            return fail("speed", format!("is {}: it must be finite and >= 0", self.speed));
        }
        if !(self.tally.max_overlap.is_finite() && self.tally.max_overlap >= 0.0) {
            return fail(
                "tally.max_overlap",
                format!("is {}: it must be finite and >= 0", self.tally.max_overlap),
            );
        }
        if let Some(tol) = self.tally.tol
            && !(tol.is_finite() && tol > 0.0)
        {
            return fail("tally.tol", format!("is {tol}: it must be finite and > 0"));
        }
        let t = &self.tally.tightening;
        for (key, value) in [
            ("tally.tightening.reference", t.reference),
            ("tally.tightening.from", t.from),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return fail(key, format!("is {value}: it must be finite and >= 0"));
            }
        }
        if self.waiting.len() != self.emitted.len() {
            return fail(
                "waiting",
                format!("has {} entries, emitted has {}", self.waiting.len(), self.emitted.len()),
            );
        }
        let emitted = self.emitted.iter().try_fold(0usize, |a, &k| a.checked_add(k));
        if emitted.is_none_or(|k| k > n) {
            return fail("emitted", format!("adds up to more than the {n} grains saved"));
        }
        Ok(())
    }

    /// The rows' times and counts and the frames ([`State::check`]).
    fn check_rows(&self) -> std::result::Result<(), (String, String)> {
        let fail = |field: &str, problem: String| Err((field.to_string(), problem));
        let rows = self.times.len();
        if self.passed.len() != rows {
            return fail("passed", format!("has {} entries, times has {rows}", self.passed.len()));
        }
        // Times only: with another dt a later row may come at an earlier time.
        if let Some(i) = self.times.iter().position(|t| !(t.is_finite() && *t >= 0.0)) {
            return fail(
                "times",
                format!("entry {i} is {}: a time must be finite and >= 0", self.times[i]),
            );
        }
        if self.frames.len() != rows {
            return fail("frames", format!("has {} entries, times has {rows}", self.frames.len()));
        }
        for (i, (time, name)) in self.frames.iter().enumerate() {
            if *name != crate::output::frame_name(i) || !time.is_finite() {
                return fail(
                    "frames",
                    format!(
                        "entry {i} is ({time}, {name:?}), expected a finite time and {:?}",
                        crate::output::frame_name(i)
                    ),
                );
            }
        }
        let total = self.overlaps.iter().try_fold(0u64, |a, &(_, c)| a.checked_add(c));
        if total.is_none() {
            return fail("overlaps", "the counts add up to more than 2^64".to_string());
        }
        Ok(())
    }

    /// `run --resume`: `setup` (the scene the run goes on with, built) may
    /// go on from this state (`state`: the path of state.json) of the run
    /// whose scene was `saved` (`saved_path`: DIR/scene.toml). Its walls,
    /// fill and emitters must be the saved run's (the solver, dt, contact law,
    /// tolerances and duration may change), and the state's grains must be
    /// that fill's (ids below the fill's count with its radii and masses)
    /// and as many as the emitters added. A difference in the scene names
    /// the scene's key, one in the state state.json's.
    pub fn fits(&self, setup: &Setup<S>, saved: &Scene, saved_path: &Path, state: &Path) -> Result<()> {
        unchanged(&setup.scene, saved, saved_path)?;
        self.fits_emitters(setup, saved_path, state)?;
        self.fits_walls(setup, state)?;
        self.fits_fill(setup, state)
    }

    /// As many emitters as `setup`'s, none past its last grain, and as many
    /// grains as the fill and the emitters added.
    fn fits_emitters(&self, setup: &Setup<S>, saved_path: &Path, state: &Path) -> Result<()> {
        if self.emitted.len() != setup.emitters.len() {
            return Err(bad_field(
                state,
                "emitted",
                format!(
                    "lists {} emitters, the scene ({}) has {}",
                    self.emitted.len(),
                    saved_path.display(),
                    setup.emitters.len()
                ),
            ));
        }
        for (e, (&k, emitter)) in self.emitted.iter().zip(&setup.emitters).enumerate() {
            if k > emitter.grains.len() {
                return Err(bad_field(
                    state,
                    "emitted",
                    format!("emitter {e} added {k} grains, it has {}", emitter.grains.len()),
                ));
            }
        }
        let fill = setup.grains.len();
        let emitted: usize = self.emitted.iter().sum();
        if fill.checked_add(emitted) != Some(self.grains.len()) {
            return Err(bad_field(
                state,
                "grains",
                format!(
                    "{} grains saved, the scene's fill has {fill} and its emitters added {emitted}",
                    self.grains.len()
                ),
            ));
        }
        Ok(())
    }

    /// A state is saved only while every grain is inside the walls (as
    /// the run's totals count it: within its radius of their bounding box).
    fn fits_walls(&self, setup: &Setup<S>, state: &Path) -> Result<()> {
        for (i, (&p, &r)) in self.grains.pos.iter().zip(&self.grains.radius).enumerate() {
            if !S::within(setup.walls_box, p, r) {
                let at: Vec<String> = S::xyz(p)[..S::DIM].iter().map(f32::to_string).collect();
                return Err(bad_field(
                    state,
                    "grains.pos",
                    format!(
                        "grain {} at ({}) m is outside the walls (a saved state has every grain inside)",
                        self.grains.id[i],
                        at.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The saved grains with an id of the fill have that fill grain's
    /// radius and inverse mass.
    fn fits_fill(&self, setup: &Setup<S>, state: &Path) -> Result<()> {
        let fill = &setup.grains;
        let mut at = vec![usize::MAX; fill.len()];
        for (k, &id) in fill.id.iter().enumerate() {
            if let Some(slot) = at.get_mut(id as usize) {
                *slot = k;
            }
        }
        // Equal but for the last bits of an f32 (a device may round-trip them).
        let same = |a: f32, b: f32| (a - b).abs() <= 1e-6 * a.abs().max(b.abs());
        let g = &self.grains;
        for i in 0..g.len() {
            let Some(&k) = at.get(g.id[i] as usize) else { continue };
            if k == usize::MAX {
                continue;
            }
            let id = g.id[i];
            let fields = [
                ("grains.radius", "radius", "m", g.radius[i], fill.radius[k]),
                (
                    "grains.inv_mass",
                    "inverse mass",
                    "1/kg",
                    g.inv_mass[i],
                    fill.inv_mass[k],
                ),
            ];
            for (field, what, unit, saved, filled) in fields {
                if !same(saved, filled) {
                    let problem =
                        format!("grain {id} has {what} {saved} {unit}, the scene's fill gives it {filled} {unit}");
                    return Err(bad_field(state, field, problem));
                }
            }
        }
        Ok(())
    }
}

/// The error about `field` of the state file `state`.
fn bad_field(state: &Path, field: &str, problem: String) -> Error {
    Error::ResultFile {
        path: state.to_path_buf(),
        message: format!("field `{field}`: {problem}"),
    }
}

/// `scene`'s walls, fill and emitters are those of `saved` (read from
/// `saved_path`), or an error naming `scene`'s key that differs.
fn unchanged(scene: &Scene, saved: &Scene, saved_path: &Path) -> Result<()> {
    let changed = |field: String, what: String| {
        Error::field(
            &scene.origin,
            &field,
            format!(
                "{what} ({}); walls, fill and emitters cannot change on resume",
                saved_path.display()
            ),
        )
    };
    let differs = "differs from the saved run's".to_string();
    if let Some(field) = difference(
        "walls",
        &comparable_walls(&saved.walls),
        &comparable_walls(&scene.walls),
    ) {
        return Err(changed(field, differs));
    }
    if let Some(field) = difference("grains", &saved.grains, &scene.grains) {
        return Err(changed(field, differs));
    }
    if saved.emitters.len() != scene.emitters.len() {
        return Err(changed(
            "emitters".to_string(),
            format!(
                "the saved run had {} emitters, this scene has {}",
                saved.emitters.len(),
                scene.emitters.len()
            ),
        ));
    }
    for (k, (a, b)) in saved.emitters.iter().zip(&scene.emitters).enumerate() {
        if let Some(field) = difference(&format!("emitters[{k}]"), a, b) {
            return Err(changed(field, differs));
        }
    }
    Ok(())
}

/// The walls with a mesh path made canonical, so that two paths to one file compare equal.
fn comparable_walls(walls: &crate::scene::WallsSpec) -> crate::scene::WallsSpec {
    let mut walls = walls.clone();
    if let Some(mesh) = &walls.mesh {
        walls.mesh = Some(std::fs::canonicalize(mesh).unwrap_or_else(|_| mesh.clone()));
    }
    walls
}

/// The first key (under `field`) at which `a` and `b` written as TOML differ.
fn difference<T: serde::Serialize>(field: &str, a: &T, b: &T) -> Option<String> {
    match (toml::Value::try_from(a), toml::Value::try_from(b)) {
        (Ok(a), Ok(b)) => first_difference(field, &a, &b),
        _ => Some(field.to_string()),
    }
}

fn first_difference(field: &str, a: &toml::Value, b: &toml::Value) -> Option<String> {
    use toml::Value::Table;
    match (a, b) {
        (Table(x), Table(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(u), Some(v)) => first_difference(&format!("{field}.{k}"), u, v),
                _ => Some(format!("{field}.{k}")),
            })
        }
        _ => (a != b).then(|| field.to_string()),
    }
}
