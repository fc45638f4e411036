//! `hourglass study`: the NSCD solvers side by side on the same packed states
//! ("Jacobi or Gauss-Seidel?").
//!
//! ```text
//!   scene ──build──> grains ──settle: NLGS on the CPU, loose tol──> packed state
//!   packed state ──copy──> one fresh backend per (solver, omega):
//!     step 0 (cold, untimed): iterations to tol, residual after `budget`
//!                             iterations, residual after every iteration (CPU)
//!     steps 1..=steps (warm start from its own previous step, timed):
//!                             mean iterations, wall time per step
//! ```
//! Every solver starts from the same grains and the same (closed) walls, so
//! the rows differ only by the solver. Residual = the largest velocity
//! correction |dP| W of one iteration, m/s (Jacobi and Uzawa: unrelaxed), the
//! quantity every solver stops on (converged when < tol/dt).
//!
//! The table and the plot are in [`report`]. Settled states are kept in a
//! state directory ([`settle_cached`]), so a slow settle (50,000 grains) is
//! paid once for every later study of that state, CPU or GPU.

pub mod report;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::backend::{self, Backend, BackendKind, CpuBackend, Start};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::model::{DemParams, Grains, Grid, ImpulseParams, NSCD_SOLVERS, Region, SolverKind, StepParams, Walls};
use crate::scene::{Scene, Setup, build};

/// The packed states `--states` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StateKind {
    /// The bundled hourglass with 5,000 grains, settled behind its gate.
    Hourglass5k,
    /// The bundled hourglass with 50,000 grains (slow to settle on a few cores).
    Hourglass50k,
    /// A tall column: 400 grains in a box 10 mean diameters wide (about 40 grains high).
    Column,
}

impl StateKind {
    pub fn name(self) -> &'static str {
        match self {
            StateKind::Hourglass5k => "hourglass5k",
            StateKind::Hourglass50k => "hourglass50k",
            StateKind::Column => "column",
        }
    }

    /// The scene of this state, before settling.
    pub fn scene(self) -> Scene {
        let mut scene = Scene::default();
        // The solvers are compared at one fixed tolerance.
        scene.solver.tol = Some(crate::scene::DEFAULT_TOL);
        match self {
            StateKind::Hourglass5k => scene.grains.count = 5_000,
            StateKind::Hourglass50k => scene.grains.count = 50_000,
            StateKind::Column => {
                // 10 mean diameters wide; the fill packs ~10 grains a row.
                let (w, h) = (0.06, 0.6);
                scene.walls.segments = Some(vec![[0.0, h, 0.0, 0.0], [0.0, 0.0, w, 0.0], [w, 0.0, w, h]]);
                scene.grains.count = 400;
                scene.grains.region = Some([0.0, 0.0, w, h]);
            }
        }
        scene
    }
}

/// How a state is brought to rest before the solvers are compared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SettleConfig {
    /// Solver of the settle phase: NLGS, the fastest on the CPU.
    pub solver: SolverKind,
    /// Looser than the study's tol (1e-6 m): settling needs rest, not accuracy, m.
    pub tol: f32,
    /// Iteration cap per settle step.
    pub itmax: u32,
    /// Steps always taken (the fill starts at rest: speed alone would stop at once).
    pub min_steps: u64,
    /// Steps at most.
    pub max_steps: u64,
    /// Settled once every grain is slower than this, m/s (checked every 10 steps).
    pub speed: f32,
}

impl Default for SettleConfig {
    fn default() -> Self {
        SettleConfig {
            solver: SolverKind::Nlgs,
            tol: 1e-5,
            itmax: 300,
            min_steps: 200,
            max_steps: 2_000,
            speed: 0.05,
        }
    }
}

/// A settled state, the common start of every measured solver.
#[derive(Debug, Clone)]
pub struct Packed {
    pub name: String,
    /// The scene's step parameters (tol, dt, alert, omega as resolved).
    pub params: StepParams,
    pub capacity: usize,
    pub grains: Grains,
    /// The walls the grains rest on (gate closed).
    pub walls: Walls,
    pub grid: Grid,
    pub region: Region,
    /// Steps the settle phase took, its wall time (s), and the final max speed (m/s).
    pub settle_steps: u64,
    pub settle_seconds: f64,
    pub max_speed: f32,
}

impl Packed {
    /// What a backend measuring `solver` starts from: these grains and walls.
    pub fn start(&self, solver: SolverKind) -> Start<'_> {
        Start {
            grains: &self.grains,
            walls: &self.walls,
            grid: self.grid,
            capacity: self.capacity,
            solver,
            dem: DemParams::default(),
            impulse: ImpulseParams::default(),
        }
    }
}

fn max_speed(g: &Grains) -> f32 {
    g.vel
        .iter()
        .map(|v| v[0] * v[0] + v[1] * v[1])
        .fold(0.0f32, f32::max)
        .sqrt()
}

/// Settle `setup`'s grains behind its gate with `cfg` (CPU).
pub fn settle(name: &str, setup: &Setup, cfg: &SettleConfig) -> Result<Packed> {
    settle_with_progress(name, setup, cfg, &mut |_, _| {})
}

/// [`settle`], calling `progress(step, max speed)` every 100 steps.
pub fn settle_with_progress(
    name: &str,
    setup: &Setup,
    cfg: &SettleConfig,
    progress: &mut dyn FnMut(u64, f32),
) -> Result<Packed> {
    let grid = backend::grid_for(setup)?;
    let walls = setup.walls(true).clone();
    let capacity = setup.scene.solver.contact_capacity as usize;
    let mut be = CpuBackend::new(setup.grains.clone(), walls, grid, capacity);
    let mut p = setup.params;
    (p.solver, p.tol, p.itmax) = (cfg.solver, cfg.tol, cfg.itmax);
    let start = Instant::now();
    let mut steps = 0;
    while steps < cfg.max_steps {
        be.step(&p)?;
        steps += 1;
        if steps % 100 == 0 {
            progress(steps, max_speed(&be.grains));
        }
        if steps >= cfg.min_steps && steps % 10 == 0 && max_speed(&be.grains) < cfg.speed {
            break;
        }
    }
    let speed = max_speed(&be.grains);
    packed_from(name, setup, be.grains, steps, start.elapsed().as_secs_f64(), speed)
}

/// A packed state of `setup`'s walls holding `grains`.
fn packed_from(name: &str, setup: &Setup, grains: Grains, steps: u64, seconds: f64, speed: f32) -> Result<Packed> {
    let walls = setup.walls(true).clone();
    Ok(Packed {
        name: name.to_string(),
        params: setup.params,
        capacity: setup.scene.solver.contact_capacity as usize,
        max_speed: speed,
        grains,
        region: setup.region(),
        walls,
        grid: backend::grid_for(setup)?,
        settle_steps: steps,
        settle_seconds: seconds,
    })
}

/// Format tag of a state file; a file with another tag is settled again.
const STATE_FORMAT: &str = "hourglass settled state 1";

/// A settled state on disk (`<dir>/<name>.json`). It names the scene and the
/// settle configuration it came from, so a changed scene or configuration
/// is never answered with an old state.
#[derive(Serialize, Deserialize)]
struct StateFile {
    format: String,
    name: String,
    /// The scene, as `Scene::to_toml` writes it.
    scene: String,
    settle: SettleConfig,
    settle_steps: u64,
    settle_seconds: f64,
    max_speed: f32,
    grains: Grains,
}

/// What [`settle_cached`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum StateSource {
    /// Loaded from this file.
    Loaded(PathBuf),
    /// Settled now and saved to the file; the string says why no saved state was used.
    Settled { saved: PathBuf, reason: String },
}

/// The state file `path` when it stands for (`scene_toml`, `cfg`) and the
/// grains `fresh` of that scene's fill, else why not.
fn load_state(
    path: &Path,
    scene_toml: &str,
    cfg: &SettleConfig,
    fresh: &Grains,
) -> std::result::Result<StateFile, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err("no saved state".into()),
        Err(e) => return Err(format!("cannot read it: {e}")),
    };
    let f: StateFile = serde_json::from_str(&text).map_err(|e| format!("unreadable: {e}"))?;
    if f.format != STATE_FORMAT {
        return Err(format!("format `{}`, expected `{STATE_FORMAT}`", f.format));
    }
    if f.scene != scene_toml {
        return Err("its scene differs".into());
    }
    if f.settle != *cfg {
        return Err("its settle configuration differs".into());
    }
    let n = f.grains.pos.len();
    let g = &f.grains;
    let consistent = [
        g.vel.len(),
        g.radius.len(),
        g.inv_mass.len(),
        g.id.len(),
        g.ang_vel.len(),
    ]
    .iter()
    .all(|&l| l == n);
    if !consistent || n != fresh.pos.len() {
        return Err(format!(
            "it holds {n} grains (or arrays of unequal length), the scene {}",
            fresh.pos.len()
        ));
    }
    // The same grains as the scene builds now (a changed fill would not show in the scene text).
    let same = g.id.iter().zip(&g.radius).zip(&g.inv_mass).all(|((&id, &r), &im)| {
        let i = id as usize;
        i < n && fresh.radius[i] == r && fresh.inv_mass[i] == im
    });
    if !same {
        return Err("its grains differ from the scene's fill".into());
    }
    Ok(f)
}

/// Settle `scene` with `cfg`, or load the state a previous call saved in
/// `dir` for the same scene and configuration. A missing, unreadable or
/// stale file is replaced by a fresh settle; the file is written whole to a
/// temporary name and then renamed, so an interrupted save leaves no state.
pub fn settle_cached(
    name: &str,
    scene: &Scene,
    cfg: &SettleConfig,
    dir: &Path,
    progress: &mut dyn FnMut(u64, f32),
) -> Result<(Packed, StateSource)> {
    let setup = build(scene)?;
    let path = dir.join(format!("{name}.json"));
    let scene_toml = scene.to_toml();
    match load_state(&path, &scene_toml, cfg, &setup.grains) {
        Ok(f) => {
            let packed = packed_from(name, &setup, f.grains, f.settle_steps, f.settle_seconds, f.max_speed)?;
            Ok((packed, StateSource::Loaded(path)))
        }
        Err(reason) => {
            let io = |path: &Path| {
                let path = path.to_path_buf();
                move |source| Error::Output { path, source }
            };
            // Before the settle, which can take long: a directory that cannot be made fails now.
            std::fs::create_dir_all(dir).map_err(io(dir))?;
            let packed = settle_with_progress(name, &setup, cfg, progress)?;
            let file = StateFile {
                format: STATE_FORMAT.to_string(),
                name: name.to_string(),
                scene: scene_toml,
                settle: *cfg,
                settle_steps: packed.settle_steps,
                settle_seconds: packed.settle_seconds,
                max_speed: packed.max_speed,
                grains: packed.grains.clone(),
            };
            // A name of this process's own, so concurrent studies never share one.
            let tmp = dir.join(format!("{name}.json.{}.partial", std::process::id()));
            let json = serde_json::to_string(&file).map_err(|e| Error::Output {
                path: path.clone(),
                source: std::io::Error::other(e),
            })?;
            std::fs::write(&tmp, json).map_err(io(&tmp))?;
            std::fs::rename(&tmp, &path).map_err(io(&path))?;
            Ok((packed, StateSource::Settled { saved: path, reason }))
        }
    }
}

/// One measured solver: NLGS, Jacobi at one relaxation, ...
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variant {
    pub solver: SolverKind,
    /// Jacobi's relaxation factor; None for the others.
    pub omega: Option<f32>,
}

impl Variant {
    /// "jacobi 0.5", "nlgs", ...
    pub fn label(&self) -> String {
        match self.omega {
            Some(w) => format!("{} {w}", self.solver.name()),
            None => self.solver.name().to_string(),
        }
    }
    /// The GPU backend runs it (`SolverFacts::gpu`).
    pub fn on_gpu(&self) -> bool {
        self.solver.facts().gpu
    }
}

/// Every NSCD solver, in table order (`model::solver::SOLVERS`).
pub const STUDY_SOLVERS: [SolverKind; NSCD_SOLVERS.len()] = NSCD_SOLVERS;

/// The study's solvers in table order, Jacobi once per `omegas`: NLGS,
/// Jacobi at each omega, coloured NLGS, seed, Uzawa, APGD.
pub fn variants(omegas: &[f32]) -> Vec<Variant> {
    let mut v = Vec::new();
    for solver in NSCD_SOLVERS {
        if solver == SolverKind::Jacobi {
            v.extend(omegas.iter().map(|&w| Variant { solver, omega: Some(w) }));
        } else {
            v.push(Variant { solver, omega: None });
        }
    }
    v
}

/// What to measure from each packed state.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyConfig {
    /// Jacobi relaxation factors.
    pub omegas: Vec<f32>,
    /// The solvers measured, in any order (the table keeps its own order).
    pub solvers: Vec<SolverKind>,
    /// Iterations after which the cold step's residual is reported.
    pub budget: u32,
    /// Untimed warm steps after the cold one, so the timed steps measure the
    /// steady warm-started regime rather than the recovery from zero impulses.
    pub warmup: u32,
    /// Timed warm steps per solver.
    pub steps: u32,
    /// Iteration cap: large, so "itmax" means "did not converge", not "was cut".
    pub itmax: u32,
    /// Measure on the CPU / on the GPU (GPU-capable solvers only).
    pub cpu: bool,
    pub gpu: bool,
}

impl Default for StudyConfig {
    fn default() -> Self {
        StudyConfig {
            omegas: vec![0.3, 0.4, 0.5, 0.6],
            solvers: STUDY_SOLVERS.to_vec(),
            budget: 200,
            warmup: 10,
            steps: 5,
            itmax: 5_000,
            cpu: true,
            gpu: true,
        }
    }
}

/// One backend's figures for one (state, solver).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// Iterations of the cold step; None when it stopped at itmax.
    pub cold_iterations: Option<u32>,
    /// Residual after `budget` iterations of the cold step (its last one when it converged sooner), m/s.
    pub residual_budget: f32,
    /// Mean iterations of the warm steps.
    pub iterations: f64,
    /// Warm steps that stopped at itmax.
    pub itmax_steps: u32,
    /// Wall time per warm step, ms.
    pub ms_per_step: f64,
    /// Contact colours (coloured NLGS), else 0.
    pub colors: u32,
    /// Mean colouring time of the timed steps, ms (coloured NLGS; 0 otherwise).
    pub coloring_ms: f64,
    pub contacts: u64,
}

/// A row of the table: one (state, solver).
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRow {
    pub state: String,
    pub grains: usize,
    pub variant: Variant,
    pub cpu: Option<Measured>,
    pub gpu: Option<Measured>,
}

/// The rows of one state and, per CPU-measured solver, the cold step's residual after every iteration.
#[derive(Debug, Clone, Default)]
pub struct StateResult {
    pub rows: Vec<StudyRow>,
    pub histories: Vec<(Variant, Vec<f32>)>,
    /// The same from the GPU, per GPU-measured solver.
    pub gpu_histories: Vec<(Variant, Vec<f32>)>,
}

fn params_for(packed: &Packed, v: &Variant, cfg: &StudyConfig) -> StepParams {
    let mut p = packed.params;
    p.solver = v.solver;
    p.omega = v.omega.unwrap_or(p.omega);
    p.itmax = cfg.itmax;
    p.warm_start = true;
    p
}

/// The cold step's figures; the warm ones are filled by [`warm`].
fn cold(s: &crate::model::StepStats, residual_budget: f32) -> Measured {
    Measured {
        cold_iterations: s.converged.then_some(s.iterations),
        residual_budget,
        iterations: 0.0,
        itmax_steps: 0,
        ms_per_step: 0.0,
        colors: s.colors,
        coloring_ms: 0.0,
        contacts: s.contacts,
    }
}

/// `cfg.steps` timed warm steps on `be` (the cold step already taken), into `m`.
fn warm(be: &mut dyn Backend, packed: &Packed, p: &StepParams, cfg: &StudyConfig, m: &mut Measured) -> Result<()> {
    for _ in 0..cfg.warmup {
        be.step(p)?;
    }
    // A reduction waits for the GPU work queued so far, before and after the timed steps.
    be.totals(&packed.region)?;
    let start = Instant::now();
    let mut iterations = 0u64;
    let mut coloring = 0.0;
    for _ in 0..cfg.steps {
        let s = be.step(p)?;
        coloring += f64::from(s.coloring_ms);
        iterations += u64::from(s.iterations);
        m.itmax_steps += u32::from(!s.converged);
        m.colors = m.colors.max(s.colors);
    }
    be.totals(&packed.region)?;
    let n = f64::from(cfg.steps.max(1));
    m.ms_per_step = start.elapsed().as_secs_f64() * 1e3 / n;
    m.iterations = iterations as f64 / n;
    m.coloring_ms = coloring / n;
    Ok(())
}

/// The residual after `budget` iterations of a step whose residual after
/// every iteration is `history` (its last one when it converged sooner).
fn at_budget(history: &[f32], budget: u32, last: f32) -> f32 {
    history
        .get((budget as usize).min(history.len()).saturating_sub(1))
        .copied()
        .unwrap_or(last)
}

/// A fresh backend of `kind` for `v`, holding `packed`'s grains and walls
/// (`ctx`: the device of a GPU backend).
pub fn backend_for(
    kind: BackendKind,
    packed: &Packed,
    v: &Variant,
    ctx: Option<&GpuContext>,
) -> Result<Box<dyn Backend>> {
    let start = packed.start(v.solver);
    match (kind, ctx) {
        (BackendKind::Cpu, _) => Ok(backend::cpu_backend_from(&start)),
        (BackendKind::Gpu, Some(ctx)) => backend::gpu_backend_from(&start, ctx.clone()),
        (BackendKind::Gpu, None) => Err(Error::Gpu("no GPU adapter found".to_string())),
    }
}

/// Measure `v` on `be`, a fresh backend holding `packed`: the cold step
/// records the residual after every iteration, then the warm steps are timed
/// (with the stages that time themselves profiled). Returns the figures and
/// the cold step's residuals.
pub fn measure(be: &mut dyn Backend, packed: &Packed, v: &Variant, cfg: &StudyConfig) -> Result<(Measured, Vec<f32>)> {
    let p = params_for(packed, v, cfg);
    be.set_profiling(true);
    // Only the cold step is recorded.
    be.record_residuals(true);
    let s = be.step(&p)?;
    let history = be.take_residuals();
    be.record_residuals(false);
    let mut m = cold(&s, at_budget(&history, cfg.budget, s.residual));
    warm(be, packed, &p, cfg, &mut m)?;
    Ok((m, history))
}

/// Every variant of `cfg` from `packed`, on the backends asked for (`gpu`:
/// the context when the GPU is measured and an adapter exists). `progress`
/// hears one line per measurement.
pub fn study_state(
    packed: &Packed,
    cfg: &StudyConfig,
    gpu: Option<&GpuContext>,
    progress: &mut dyn FnMut(&str),
) -> Result<StateResult> {
    let mut out = StateResult::default();
    for v in variants(&cfg.omegas)
        .into_iter()
        .filter(|v| cfg.solvers.contains(&v.solver))
    {
        let mut row = StudyRow {
            state: packed.name.clone(),
            grains: packed.grains.len(),
            variant: v,
            cpu: None,
            gpu: None,
        };
        let kinds = [
            (BackendKind::Cpu, cfg.cpu),
            (BackendKind::Gpu, cfg.gpu && gpu.is_some() && v.on_gpu()),
        ];
        for (kind, _) in kinds.into_iter().filter(|&(_, asked)| asked) {
            progress(&format!("{} {}: {}", packed.name, v.label(), kind.name()));
            let mut be = backend_for(kind, packed, &v, gpu)?;
            let (m, history) = measure(be.as_mut(), packed, &v, cfg)?;
            let (figures, histories) = match kind {
                BackendKind::Cpu => (&mut row.cpu, &mut out.histories),
                BackendKind::Gpu => (&mut row.gpu, &mut out.gpu_histories),
            };
            *figures = Some(m);
            histories.push((v, history));
        }
        out.rows.push(row);
    }
    Ok(out)
}

/// Build and settle `kind`, or load it from `dir` (see [`settle_cached`]).
pub fn packed_state(
    kind: StateKind,
    settle_cfg: &SettleConfig,
    dir: &Path,
    progress: &mut dyn FnMut(u64, f32),
) -> Result<(Packed, StateSource)> {
    settle_cached(kind.name(), &kind.scene(), settle_cfg, dir, progress)
}
