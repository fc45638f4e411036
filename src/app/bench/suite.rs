//! `hourglass bench --suite`: the GPU's table for BENCHMARKS.md in one
//! command and a time budget.
//!
//! Rows: the solvers of [`SOLVERS`] times the grain counts, smallest N first
//! (every solver at one N before the next N). The bundled hourglass with N
//! grains is filled once for the rows of that N ([`Placement`]); each row
//! builds its solver's setup on that fill, steps it [`WARMUP`] times untimed (the last of
//! them gives the row's cost per step), then times as many steps as its
//! share of the budget left holds (at least 1, at most [`MAX_STEPS`]; fewer
//! when the steps grow dearer and the share runs out). NSCD
//! iterates to the scene's tolerance, so each row gives speed and accuracy
//! together: mean iterations and the deepest overlap reached.
//!
//! A row is skipped, with its reason in the table, when it cannot run
//! (beyond the adapter's buffer limits, 32-bit indexing or host memory, or
//! out of GPU memory) or cannot fit in the budget left (predicted from the
//! same solver's row at a smaller N, scaled linearly in N, times
//! [`PREDICTION_MARGIN`]).

use std::time::Instant;

use crate::backend::{self, Backend, Device};
use crate::error::{Error, Result};
use crate::gpu::{AdapterChoice, GpuContext};
use crate::model::{Contact, SolverKind};
use crate::scene::{BackendChoice, DEFAULT_TOL, Placement, Scene, build, limits};

/// The solvers of the suite, in the table's order.
pub const SOLVERS: [SolverKind; 4] = [
    SolverKind::Apgd,
    SolverKind::Jacobi,
    SolverKind::Colored,
    SolverKind::Dem,
];
/// Grain counts when none are given.
pub const DEFAULT_SIZES: [u64; 4] = [10_000, 100_000, 1_000_000, 10_000_000];
/// Wall seconds of the suite when no budget is given: 9 minutes, so one
/// command fits a 10-minute slot with the adapter's start.
pub const DEFAULT_BUDGET: f64 = 540.0;
/// Untimed steps of a row (the first also builds the pipelines).
pub const WARMUP: u64 = 2;
/// Timed steps of a row at most.
pub const MAX_STEPS: u64 = 100;

/// What to measure.
#[derive(Debug, Clone)]
pub struct SuiteConfig {
    /// `Gpu` (any adapter), `Auto` (a real GPU only) or `Cpu`.
    pub backend: BackendChoice,
    pub sizes: Vec<u64>,
    /// Wall seconds the whole suite may take.
    pub budget: f64,
    /// The command line, as the table quotes it.
    pub command: String,
}

/// One measured row.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteRow {
    pub solver: SolverKind,
    pub grains: u64,
    /// Timed steps.
    pub steps: u64,
    pub steps_per_second: f64,
    /// Solver iterations per step (NSCD); None for the DEM.
    pub mean_iterations: Option<f64>,
    /// Deepest overlap over the timed steps, % of the mean radius.
    pub max_overlap_pct: f64,
    /// Distinct contacts (a pair once) per grain, mean over the timed steps
    /// (at their end on a backend whose steps do not count them).
    pub contacts_per_grain: f64,
    /// Bytes of the GPU's grain and contact buffers ([`gpu_buffer_bytes`]); None on the CPU.
    pub buffer_bytes: Option<u64>,
    /// Host read-backs per step over the timed steps (the GPU's; None on the CPU).
    pub read_backs: Option<f64>,
    /// Share of the timed steps' wall time the host spent waiting for the
    /// device, % (the GPU's; None on the CPU). The rest is host work:
    /// recording and submitting the passes, and the host stages.
    pub device_wait_pct: Option<f64>,
}

/// The suite's outcome.
#[derive(Debug, Clone)]
pub struct SuiteTable {
    pub config: SuiteConfig,
    /// "gpu" or "cpu".
    pub backend: String,
    pub adapter: String,
    /// YYYY-MM-DD, UTC.
    pub date: String,
    /// The source's commit, or "unknown".
    pub commit: String,
    pub rows: Vec<SuiteRow>,
    /// (solver, N, why) of each row not measured.
    pub skipped: Vec<(SolverKind, u64, String)>,
    /// Wall seconds the suite took.
    pub wall: f64,
}

/// Where the suite runs.
enum Target {
    Cpu,
    Gpu(Box<GpuContext>),
}

/// What one row's measurement cost at `n` grains, s: its setup (the
/// backend, after the fill) and one step.
#[derive(Debug, Clone, Copy)]
struct Cost {
    n: u64,
    setup: f64,
    step: f64,
}

/// The last fill made: its grain count and seconds.
#[derive(Debug, Clone, Copy)]
struct FillCost {
    n: u64,
    secs: f64,
}

/// Open the device: with `Gpu` any adapter, with `Auto` a real GPU; no
/// adapter is an [`Error::Gpu`] (the suite measures the GPU, never falls back).
fn open(choice: BackendChoice) -> Result<Target> {
    let adapters = match choice {
        BackendChoice::Cpu => return Ok(Target::Cpu),
        BackendChoice::Gpu => AdapterChoice::Any,
        BackendChoice::Auto => AdapterChoice::Auto,
    };
    match GpuContext::new(adapters)? {
        Some(ctx) => Ok(Target::Gpu(Box::new(ctx))),
        None => Err(Error::Gpu(
            "bench --suite: no GPU adapter found (a real GPU for --backend auto; --backend gpu takes lavapipe too, --backend cpu measures the CPU)".to_string(),
        )),
    }
}

/// Run the suite; `progress` hears one line per row as it goes.
pub fn run(cfg: &SuiteConfig, progress: &mut dyn FnMut(&str)) -> Result<SuiteTable> {
    let target = open(cfg.backend)?;
    let start = Instant::now();
    let (backend, adapter) = match &target {
        Target::Cpu => ("cpu".to_string(), cpu_name()),
        Target::Gpu(ctx) => (
            "gpu".to_string(),
            format!("{} ({:?})", ctx.adapter_name(), ctx.info.backend),
        ),
    };
    let mut table = SuiteTable {
        config: cfg.clone(),
        backend,
        adapter,
        date: today(),
        commit: commit(),
        rows: Vec::new(),
        skipped: Vec::new(),
        wall: 0.0,
    };
    let plan: Vec<(u64, SolverKind)> = cfg.sizes.iter().flat_map(|&n| SOLVERS.map(|s| (n, s))).collect();
    let blocked: Vec<Option<String>> = plan.iter().map(|&(n, _)| cannot_run(&target, n)).collect();
    let mut costs: [Option<Cost>; SOLVERS.len()] = [None; SOLVERS.len()];
    // The fill of the current N, made once for its rows, and the last fill's cost.
    let mut placement: Option<(u64, Placement)> = None;
    let mut fill_cost: Option<FillCost> = None;
    for (i, &(n, solver)) in plan.iter().enumerate() {
        let slot = SOLVERS.iter().position(|&s| s == solver).unwrap_or(0);
        let filled = placement.as_ref().is_some_and(|(m, _)| *m == n);
        let pending_fill = (!filled).then_some(fill_cost).flatten();
        let left = cfg.budget - start.elapsed().as_secs_f64();
        let skip = blocked[i]
            .clone()
            .or_else(|| cannot_fit(costs[slot], pending_fill, n, left));
        let outcome = match skip {
            Some(why) => Err(why),
            None => {
                let placed = match &mut placement {
                    Some((m, placed)) if *m == n => &*placed,
                    slot => {
                        // The last N's fill goes before this one is made.
                        drop(slot.take());
                        let t = Instant::now();
                        let made = Placement::new(&suite_scene(n, solver))?;
                        let secs = t.elapsed().as_secs_f64();
                        progress(&format!("bench --suite: the fill of N = {n}: {secs:.1} s"));
                        fill_cost = Some(FillCost { n, secs });
                        &slot.insert((n, made)).1
                    }
                };
                let left = cfg.budget - start.elapsed().as_secs_f64();
                // This row's share: the budget left over the rows left that can run.
                let rows_left = blocked[i..].iter().filter(|b| b.is_none()).count().max(1);
                measure(&target, placed, solver, n, left / rows_left as f64)?
            }
        };
        match outcome {
            Ok((row, cost)) => {
                progress(&format!(
                    "bench --suite: {} N = {n}: {} steps, {:.2} steps/s",
                    solver.name(),
                    row.steps,
                    row.steps_per_second
                ));
                costs[slot] = Some(cost);
                table.rows.push(row);
            }
            Err(why) => {
                progress(&format!("bench --suite: {} N = {n}: skipped: {why}", solver.name()));
                table.skipped.push((solver, n, why));
            }
        }
    }
    table.wall = start.elapsed().as_secs_f64();
    Ok(table)
}

/// Why `n` grains cannot run on `target` at all, checked before anything is built.
fn cannot_run(target: &Target, n: u64) -> Option<String> {
    let capacity = Scene::default().solver.contact_capacity;
    if n > build::MAX_GRAINS {
        return Some(format!("more than this build handles ({})", build::MAX_GRAINS));
    }
    let need = limits::grain_bytes(n, capacity);
    if let Some(have) = limits::available_memory().filter(|&have| need > have) {
        return Some(format!(
            "the host needs about {:.1} GB to build it, {:.1} GB available",
            need as f64 / 1e9,
            have as f64 / 1e9
        ));
    }
    let Target::Gpu(ctx) = target else { return None };
    let slots = n * u64::from(capacity);
    let bytes = slots * std::mem::size_of::<Contact>() as u64;
    let l = &ctx.limits;
    let limit = [
        ("max_buffer_size", l.max_buffer_size),
        ("max_storage_buffer_binding_size", l.max_storage_buffer_binding_size),
    ]
    .into_iter()
    .find(|&(_, max)| bytes > max);
    if let Some((name, max)) = limit {
        return Some(format!(
            "a contact list ({n} grains x {capacity} slots) is a {:.2} GB buffer, {name} is {:.2} GB",
            bytes as f64 / 1e9,
            max as f64 / 1e9
        ));
    }
    (slots > u64::from(u32::MAX)).then(|| format!("{n} grains x {capacity} slots exceed 32-bit indexing"))
}

/// How much dearer than linear in N a row may turn out: the fill's cost
/// per grain grows from small N to large (0.07 s at 500 grains, 10.5 s at
/// 200,000 with `bench --sizes`), and so may the iterations per step.
pub const PREDICTION_MARGIN: f64 = 2.0;

/// Why a row of `n` grains cannot fit in `left` seconds: its setup and
/// [`WARMUP`] + 1 steps, scaled linearly from the same solver's last row,
/// and the fill of `n` grains when it is still to make (`fill`: the last
/// fill's cost), scaled likewise; all times [`PREDICTION_MARGIN`].
fn cannot_fit(last: Option<Cost>, fill: Option<FillCost>, n: u64, left: f64) -> Option<String> {
    if left <= 0.0 {
        return Some("the budget is spent".to_string());
    }
    let fill = fill.map_or(0.0, |f| f.secs * n as f64 / f.n as f64);
    if PREDICTION_MARGIN * fill > left {
        return Some(format!(
            "about {:.0} s predicted for the fill alone (from the last fill, twice linear), {left:.0} s of the budget left",
            PREDICTION_MARGIN * fill
        ));
    }
    let c = last?;
    let linear = (c.setup + (WARMUP + 1) as f64 * c.step) * n as f64 / c.n as f64 + fill;
    let predicted = PREDICTION_MARGIN * linear;
    let with_fill = if fill > 0.0 { "the fill, " } else { "" };
    (predicted > left).then(|| {
        format!(
            "about {predicted:.0} s predicted ({with_fill}setup and {} steps, from the {}-grain row, twice linear), {left:.0} s of the budget left",
            WARMUP + 1,
            c.n
        )
    })
}

/// The suite's scene: the bundled hourglass with `n` grains and `solver`.
fn suite_scene(n: u64, solver: SolverKind) -> Scene {
    let mut scene = Scene::default();
    scene.grains.count = n;
    scene.solver.kind = solver;
    // The steps are timed outside a run, whose loop would adapt the tolerance: a fixed one.
    scene.solver.tol = Some(DEFAULT_TOL);
    scene
}

/// The backend of `setup` on `target`; `Err(why)` (the row is skipped)
/// when the device refuses it.
fn backend_on(target: &Target, setup: &build::Setup) -> Result<std::result::Result<Box<dyn Backend>, String>> {
    let grid = backend::grid_for(setup)?;
    let mut notices = Vec::new();
    let ctx = match target {
        Target::Cpu => return Ok(Ok(backend::cpu_backend(setup, grid))),
        Target::Gpu(ctx) => ctx.as_ref(),
    };
    match backend::select(setup, grid, BackendChoice::Gpu, Device::Shared(ctx), &mut notices) {
        Err(Error::Gpu(why)) => Ok(Err(why)),
        made => made.map(Ok),
    }
}

/// Error scopes over a row's first device work (its buffers, and the
/// solvers' own, made on the first step), so that running out of GPU
/// memory, and the errors that follow from it, skip the row instead of
/// reaching wgpu's default handler, which panics.
struct Scopes(Option<[wgpu::ErrorScopeGuard; 2]>);

impl Scopes {
    fn push(target: &Target) -> Scopes {
        Scopes(match target {
            Target::Cpu => None,
            Target::Gpu(ctx) => Some([
                ctx.device.push_error_scope(wgpu::ErrorFilter::Validation),
                ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
            ]),
        })
    }

    /// The error the scopes caught, if any.
    fn pop(self) -> Option<String> {
        let [validation, oom] = self.0?;
        let oom = pollster::block_on(oom.pop());
        let validation = pollster::block_on(validation.pop());
        oom.map(|e| format!("out of GPU memory: {e}"))
            .or_else(|| validation.map(|e| format!("GPU error: {e}")))
    }
}

/// Measure one row of `placed`'s grains with about `share` seconds (its
/// setup included, the fill not); `Err(why)` when it was skipped after all
/// (the device refused it, or a step failed on it).
fn measure(
    target: &Target,
    placed: &Placement,
    solver: SolverKind,
    n: u64,
    share: f64,
) -> Result<std::result::Result<(SuiteRow, Cost), String>> {
    let t0 = Instant::now();
    let setup = placed.setup(solver)?;
    let scopes = Scopes::push(target);
    let mut backend = match backend_on(target, &setup)? {
        Ok(b) => b,
        Err(why) => return Ok(Err(why)),
    };
    let setup_secs = t0.elapsed().as_secs_f64();
    let p = setup.params;
    let mut step = 0.0;
    for _ in 0..WARMUP {
        let t = Instant::now();
        match backend.step(&p) {
            Ok(_) => step = t.elapsed().as_secs_f64(),
            Err(e @ (Error::Gpu(_) | Error::Diverged { .. })) => return Ok(Err(e.to_string())),
            Err(e) => return Err(e),
        }
    }
    if let Some(why) = scopes.pop() {
        return Ok(Err(why));
    }
    let left = share - t0.elapsed().as_secs_f64();
    let steps = ((left / step.max(1e-9)).floor() as u64).clamp(1, MAX_STEPS);
    let before = backend.transfers();
    let timed = match timed_steps(backend.as_mut(), &setup, steps, left) {
        Ok(t) => t,
        Err(e @ (Error::Gpu(_) | Error::Diverged { .. })) => return Ok(Err(e.to_string())),
        Err(e) => return Err(e),
    };
    let (steps, nscd) = (timed.steps, solver != SolverKind::Dem);
    let radius = setup.grains.radius.iter().map(|&r| f64::from(r)).sum::<f64>() / n as f64;
    let row = SuiteRow {
        solver,
        grains: n,
        steps,
        steps_per_second: steps as f64 / timed.secs,
        mean_iterations: nscd.then(|| timed.iterations as f64 / steps as f64),
        max_overlap_pct: 100.0 * timed.max_overlap / radius.max(f64::MIN_POSITIVE),
        contacts_per_grain: timed.contacts as f64 / (steps * n) as f64,
        buffer_bytes: match target {
            Target::Cpu => None,
            Target::Gpu(_) => Some(gpu_buffer_bytes(&setup)?),
        },
        read_backs: backend
            .transfers()
            .zip(before)
            .map(|(after, before)| (after.readbacks - before.readbacks) as f64 / steps as f64),
        device_wait_pct: backend
            .transfers()
            .zip(before)
            .map(|(after, before)| 100.0 * (after.wait_ns - before.wait_ns) as f64 / (timed.secs * 1e9)),
    };
    let cost = Cost {
        n,
        setup: setup_secs,
        step,
    };
    Ok(Ok((row, cost)))
}

/// What the timed steps of a row gave.
struct Timed {
    steps: u64,
    secs: f64,
    iterations: u64,
    /// Sum over the steps.
    contacts: u64,
    /// Deepest, m.
    max_overlap: f64,
}

/// Time `steps` steps, or fewer (at least 1) when they run past `limit`
/// seconds (steps grow dearer as the bed packs), ended by a diagnostics
/// reduction so the device's work is finished inside the timed region.
fn timed_steps(backend: &mut dyn Backend, setup: &build::Setup, steps: u64, limit: f64) -> Result<Timed> {
    let region = setup.region();
    let mut t = Timed {
        steps: 0,
        secs: 0.0,
        iterations: 0,
        contacts: 0,
        max_overlap: 0.0,
    };
    let start = Instant::now();
    while t.steps < steps && (t.steps == 0 || start.elapsed().as_secs_f64() < limit) {
        t.steps += 1;
        let s = backend.step(&setup.params)?;
        t.iterations += u64::from(s.iterations);
        t.contacts += s.contacts;
        t.max_overlap = t.max_overlap.max(f64::from(s.max_overlap));
    }
    // A backend whose steps do not count contacts counts them at the end.
    if let Some(c) = backend.totals(&region)?.contacts {
        t.contacts = c * t.steps;
    }
    t.secs = start.elapsed().as_secs_f64().max(1e-9);
    Ok(t)
}

/// Bytes of the GPU buffers of `setup`'s solver, an estimate from the
/// buffer layouts (src/gpu/pipeline.rs, state.rs, apgd.rs, colored.rs,
/// coloring.rs, dem/backend.rs): the grain arrays and the contact lists,
/// without uniforms, reduction partials and staging buffers.
pub fn gpu_buffer_bytes(setup: &build::Setup) -> Result<u64> {
    let n = setup.grains.len() as u64;
    let slots = n * u64::from(setup.scene.solver.contact_capacity);
    let cells = backend::grid_for(setup)?.cells() as u64;
    let contact = std::mem::size_of::<Contact>() as u64;
    let dem = matches!(setup.params.solver, SolverKind::Dem | SolverKind::Spring);
    // NSCD keeps last step's lists for the warm start; the DEM, for its tangential history.
    let lists = if dem {
        1 + u64::from(crate::model::law::spec(setup.dem.law).history > 0)
    } else {
        2
    };
    // pos, vel (8 B), radius, inv_mass, id (4 B); cell_of, sorted; a count per list.
    let core = n * (28 + 8 + 4 * lists) + slots * contact * lists + 12 * cells;
    let extra = match setup.params.solver {
        // ang_vel, torque (4 B), force (8 B).
        SolverKind::Dem | SolverKind::Spring => n * 16,
        // vel_free, shift, zero (8 B), residual (4 B), the grains' reorder
        // scratch (28 B), spin, spin_free, angle and two scratch (4 B each).
        solver => {
            let per_slot = match solver {
                SolverKind::Apgd => 8,
                SolverKind::Colored => 12,
                _ => 0,
            };
            n * 76 + slots * per_slot
        }
    };
    Ok(core + extra)
}

/// The CPU's description: the threads the solvers use.
fn cpu_name() -> String {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    format!("CPU, {threads} threads")
}

/// The commit of the source this binary was built from, when that tree is
/// still a git checkout; "unknown" otherwise.
fn commit() -> String {
    std::process::Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

/// Today's date, UTC, YYYY-MM-DD.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date `days` days after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The table's header and rule.
pub const SUITE_HEADER: &str = "| solver | N | steps | steps/s | grain-steps/s | mean iterations | max overlap % r | contacts/grain | buffers MB (est.) | read-backs/step | device wait % |\n|---|---|---|---|---|---|---|---|---|---|---|";

/// The suite's table as it pastes into BENCHMARKS.md: a line naming the
/// backend, adapter, date and commit, the command, what the columns are,
/// the rows, and the rows skipped with their reasons.
pub fn format_suite(t: &SuiteTable) -> String {
    let s = Scene::default().solver;
    let mut out = format!(
        "**backend {}, adapter {}, {}, commit {}**: budget {} s, took {:.0} s.\n\n`{}`\n\n",
        t.backend, t.adapter, t.date, t.commit, t.config.budget, t.wall, t.config.command
    );
    out += &format!(
        "The bundled hourglass with N grains, from its fill, {WARMUP} steps untimed then the steps timed. \
         NSCD iterates to the scene's tolerance (tol = {:e} m, itmax = {}); max overlap: the deepest over \
         the timed steps, % of the mean radius. Buffers: an estimate, the sizes of the grain and contact \
         buffers summed. Read-backs: the host's waits for the device per timed step; device wait: the share \
         of the timed steps' wall time spent in those waits, the rest being host work (n/a on the CPU).\n\n",
        DEFAULT_TOL, s.itmax
    );
    out += SUITE_HEADER;
    out.push('\n');
    for r in &t.rows {
        out += &format_suite_row(r);
        out.push('\n');
    }
    if !t.skipped.is_empty() {
        out += "\nSkipped:\n";
        for (solver, n, why) in &t.skipped {
            out += &format!("- {} at {n} grains: {why}\n", solver.name());
        }
    }
    out
}

/// One row of the suite's table.
fn format_suite_row(r: &SuiteRow) -> String {
    let or_na = |v: Option<String>| v.unwrap_or_else(|| "n/a".to_string());
    format!(
        "| {} | {} | {} | {:.2} | {:.3e} | {} | {:.2} | {:.2} | {} | {} | {} |",
        r.solver.name(),
        r.grains,
        r.steps,
        r.steps_per_second,
        r.steps_per_second * r.grains as f64,
        r.mean_iterations.map_or("-".to_string(), |i| format!("{i:.1}")),
        r.max_overlap_pct,
        r.contacts_per_grain,
        or_na(r.buffer_bytes.map(|b| format!("{:.1}", b as f64 / 1e6))),
        or_na(r.read_backs.map(|b| format!("{b:.2}"))),
        or_na(r.device_wait_pct.map(|w| format!("{w:.1}"))),
    )
}

/// Write the table to `path`: a new file, or with `force` one replacing
/// whatever file or link is there (a link is replaced, its target never
/// written). Without `force` anything at `path`, a dangling link included,
/// is refused.
pub fn write_table(path: &std::path::Path, text: &str, force: bool) -> Result<()> {
    use std::io::Write;
    let io = |source| Error::Output {
        path: path.to_path_buf(),
        source,
    };
    if force {
        return crate::output::fresh::write(path, text.as_bytes()).map_err(io);
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)?;
    file.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_of_known_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_417), (2025, 11, 25));
    }

    #[test]
    fn a_row_is_predicted_from_the_smaller_one_linearly() {
        let c = Cost {
            n: 1000,
            setup: 1.0,
            step: 0.5,
        };
        // (1 + 3 x 0.5) x 10 = 25 s, twice that with the margin.
        assert!(cannot_fit(Some(c), None, 10_000, 49.0).is_some());
        assert!(cannot_fit(Some(c), None, 10_000, 51.0).is_none());
        assert!(cannot_fit(None, None, 10_000, 1.0).is_none());
        assert!(cannot_fit(None, None, 10_000, 0.0).is_some());
        // A fill still to make, 2 s at 1,000 grains: 20 s more at 10,000, 90 s with the margin.
        let fill = Some(FillCost { n: 1000, secs: 2.0 });
        assert!(cannot_fit(Some(c), fill, 10_000, 89.0).is_some());
        assert!(cannot_fit(Some(c), fill, 10_000, 91.0).is_none());
        // No earlier row of this solver: the fill alone still counts (40 s with the margin).
        assert!(cannot_fit(None, fill, 10_000, 39.0).is_some());
        assert!(cannot_fit(None, fill, 10_000, 41.0).is_none());
    }
}
