//! The facts of every solver, in one table ([`SOLVERS`]): what the backends,
//! the scene checks and the study ask of a solver reads from its row.
//!
//! ```text
//!   kind     name     nscd gpu friction threshold (at rest) push-out colours sequential
//!   Nlgs     "nlgs"   yes  no  yes      1         (1)       0.8      no      yes
//!   Apgd     "apgd"   yes  yes yes      0.4       (1)       0.2      no      no
//!   ...
//! ```
//! Adding a solver: a `SolverKind` variant and one row here (docs/architecture.md,
//! "Adding a solver").

use super::params::{APGD_THRESHOLD, SolverKind, UZAWA_THRESHOLD};
use super::speeds::FAST_SHARE;

/// One solver's row of [`SOLVERS`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverFacts {
    pub kind: SolverKind,
    /// The name of `[solver] kind` and `--solver`.
    pub name: &'static str,
    /// An NSCD solver (a velocity-impulse solve each step, measured by the study).
    pub nscd: bool,
    /// The GPU backend runs it (`auto`: its GPU resolution, APGD, does).
    pub gpu: bool,
    /// It carries Coulomb friction (`solver.mu`, `solver.mu_wall`) on every
    /// backend that runs it.
    pub friction: bool,
    /// Its share of tol/dt in the convergence test ([`threshold`]).
    pub threshold: f32,
    /// Its share of the slow-grain bound (REST_SHARE of the speed the step
    /// follows, at least REST_FLOOR, m/s) in the convergence test near rest
    /// ([`super::params::StepParams::solve_tol`]). Uzawa keeps its share
    /// of tol/dt there too (at the full bound the settled 2,000-grain fill
    /// of `examples/rest_pile.rs` kept 4e-4 - 9e-4 m/s rms); APGD's
    /// 0.4 of tol/dt was set on a column landing at tol 2e-6, while at rest
    /// its correction stalls at 5e-7 - 9e-7 m/s on the fill's deepest
    /// contacts, one to a few units in the last place of their impulses,
    /// so that 0.4 of the floor sent its resting steps to itmax.
    pub rest_threshold: f32,
    /// The share of the fastest grains whose speed its step's tolerance
    /// ignores ([`super::speeds::followed`]): 0, the fastest grain sets it.
    pub fast_share: f32,
    /// The push-out fraction per step when the scene sets no
    /// `solver.overlap_relax` and no cohesion ([`SolverKind::overlap_relax`]).
    pub overlap_relax: f64,
    /// Its solve needs the contact colouring (cpu::coloring, shaders/coloring.wgsl).
    pub colors: bool,
    /// A sequential sweep (each contact sees the updates of those before it):
    /// no parallel GPU version.
    pub sequential: bool,
}

/// A row with the defaults of a solver that is not NSCD.
const fn other(kind: SolverKind, name: &'static str, gpu: bool) -> SolverFacts {
    SolverFacts {
        kind,
        name,
        nscd: false,
        gpu,
        friction: false,
        threshold: 1.0,
        rest_threshold: 1.0,
        fast_share: 0.0,
        overlap_relax: 0.2,
        colors: false,
        sequential: false,
    }
}

/// Every solver. The NSCD rows come in the study's table order (NLGS first).
pub const SOLVERS: [SolverFacts; 11] = [
    SolverFacts {
        nscd: false,
        gpu: true,
        friction: true,
        ..other(SolverKind::Auto, "auto", true)
    },
    SolverFacts {
        nscd: true,
        friction: true,
        overlap_relax: 0.8,
        sequential: true,
        ..other(SolverKind::Nlgs, "nlgs", false)
    },
    SolverFacts {
        nscd: true,
        friction: true,
        fast_share: FAST_SHARE,
        ..other(SolverKind::Jacobi, "jacobi", true)
    },
    SolverFacts {
        nscd: true,
        friction: true,
        colors: true,
        fast_share: FAST_SHARE,
        ..other(SolverKind::Colored, "colored", true)
    },
    SolverFacts {
        nscd: true,
        sequential: true,
        ..other(SolverKind::Seed, "seed", false)
    },
    SolverFacts {
        nscd: true,
        threshold: UZAWA_THRESHOLD,
        rest_threshold: UZAWA_THRESHOLD,
        ..other(SolverKind::Uzawa, "uzawa", true)
    },
    SolverFacts {
        nscd: true,
        friction: true,
        threshold: APGD_THRESHOLD,
        fast_share: FAST_SHARE,
        ..other(SolverKind::Apgd, "apgd", true)
    },
    other(SolverKind::Dem, "dem", true),
    other(SolverKind::Impulse, "impulse", false),
    other(SolverKind::Spring, "spring", true),
    other(SolverKind::Crowd, "crowd", false),
];

/// The NSCD solvers in table order (`hourglass study`).
pub const NSCD_SOLVERS: [SolverKind; nscd_count()] = nscd_solvers();

const fn nscd_count() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < SOLVERS.len() {
        n += SOLVERS[i].nscd as usize;
        i += 1;
    }
    n
}

const fn nscd_solvers() -> [SolverKind; nscd_count()] {
    let mut out = [SolverKind::Nlgs; nscd_count()];
    let (mut i, mut n) = (0, 0);
    while i < SOLVERS.len() {
        if SOLVERS[i].nscd {
            out[n] = SOLVERS[i].kind;
            n += 1;
        }
        i += 1;
    }
    out
}

/// The convergence threshold of `kind`'s solve, m/s: its share of tol/dt
/// (`tol` in m, `dt` in s). Every solver on both backends stops when its
/// largest correction falls below this.
#[inline]
pub fn threshold(kind: SolverKind, tol: f32, dt: f32) -> f32 {
    kind.facts().threshold * tol / dt
}

impl SolverKind {
    /// This solver's row of [`SOLVERS`].
    pub const fn facts(self) -> &'static SolverFacts {
        let mut i = 0;
        while i < SOLVERS.len() {
            if SOLVERS[i].kind as u8 == self as u8 {
                return &SOLVERS[i];
            }
            i += 1;
        }
        panic!("a SolverKind without a row in SOLVERS")
    }

    /// An NSCD solver on every backend (`auto` included: it resolves to one).
    pub fn nscd(self) -> bool {
        self.resolve(false).facts().nscd
    }
}

/// Over-relaxation of coloured NLGS far from convergence, the rule of both
/// backends. A step's first iteration is plain Gauss-Seidel (sor = 1); at
/// each [`colored_sor_due`] iteration `done` (the first after that one,
/// then every [`COLORED_SOR_EVERY`]) the iterations up to the next due one
/// update P_n' = max(0, P_n - sor t / W) with sor = [`SOR`] if the
/// largest correction `last` of the iteration before (m/s) exceeds `above`
/// ([`colored_sor_above`]: 8 thresholds or the speed gravity adds in one
/// step, as for NLGS), else 1. With friction only the normal rows are
/// relaxed (`contact::coulomb_sor`), and only within a step's first
/// [`COLORED_SOR_SWEEPS`] iterations. A resting pile, whose first
/// correction is under `above`, is solved as before; a lone contact is
/// solved exactly by the plain first iteration. The GPU reads the residual
/// at the due iterations, so both backends decide on the same residual.
pub fn colored_sor(done: u32, last: f32, above: f32, friction: bool) -> f32 {
    let capped = friction && done >= COLORED_SOR_SWEEPS;
    if done > 0 && last > above && !capped { SOR } else { 1.0 }
}

/// Whether [`colored_sor`] is decided anew before iteration `done` (0-based):
/// at 0, 1 and every multiple of [`COLORED_SOR_EVERY`].
pub fn colored_sor_due(done: u32) -> bool {
    done <= 1 || done.is_multiple_of(COLORED_SOR_EVERY)
}

/// The iterations from `done` to the next [`colored_sor_due`] one.
pub fn colored_sor_span(done: u32) -> u32 {
    if done == 0 {
        1
    } else {
        COLORED_SOR_EVERY - done % COLORED_SOR_EVERY
    }
}

/// Over-relaxation of the Gauss-Seidel solvers far from convergence (NLGS:
/// `cpu::nlgs`; coloured NLGS: [`colored_sor`]), of the normal rows alone
/// with friction. Relaxing far from convergence cuts the sweeps a step;
/// relaxing the tail of a solve holds it up, and without the |g| dt floor
/// of [`SOR_ABOVE`] a resting pile jitters (tests/rest.rs).
pub const SOR: f32 = 1.8;
/// A sweep is relaxed after one whose largest correction exceeded this many
/// thresholds and |g| dt. 8 gives the fewest contact visits with NLGS's hot
/// sweeps and push-out at 0.8 (docs/solvers.md#why-the-cpu-constants).
pub const SOR_ABOVE: f32 = 8.0;
/// See [`colored_sor`]: the GPU's convergence cadence (`gpu::CHECK_EVERY`).
pub const COLORED_SOR_EVERY: u32 = 10;
/// See [`colored_sor`]: 200 took the fewest iterations on the frictional
/// 2,000-grain discharge (of 30, 50, 100, 200, 400; relaxed to itmax, the
/// overlaps reached 4 %).
pub const COLORED_SOR_SWEEPS: u32 = 200;

/// [`colored_sor`]'s `above` (m/s) for a step with convergence threshold
/// `threshold` (m/s), gravity `g` (m/s^2) and time step `dt` (s).
pub fn colored_sor_above(threshold: f32, g: [f32; 2], dt: f32) -> f32 {
    (SOR_ABOVE * threshold).max(g[0].hypot(g[1]) * dt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_kind_has_one_row_named_as_the_flag() {
        for kind in SolverKind::value_variants() {
            let rows = SOLVERS.iter().filter(|f| f.kind == *kind).count();
            assert_eq!(rows, 1, "{kind:?}");
            let flag = kind.to_possible_value().unwrap();
            assert_eq!(kind.facts().name, flag.get_name());
        }
    }

    /// Plain first, relaxed while far (re-decided at 1, 10, 20, ...), plain
    /// near the threshold, and with friction plain from COLORED_SOR_SWEEPS on.
    #[test]
    fn colored_sor_relaxes_far_from_convergence_only() {
        let above = colored_sor_above(1e-3, [0.0, -9.81], 1e-3);
        assert_eq!(above, 9.81f32 * 1e-3);
        assert_eq!(colored_sor_above(2e-3, [0.0, -9.81], 1e-3), 8.0 * 2e-3);
        assert_eq!(colored_sor(0, f32::INFINITY, above, false), 1.0);
        assert_eq!(colored_sor(1, 1.0, above, false), SOR);
        assert_eq!(colored_sor(1, 9e-3, above, false), 1.0);
        assert_eq!(colored_sor(990, 1.0, above, false), SOR);
        assert_eq!(colored_sor(190, 1.0, above, true), SOR);
        assert_eq!(colored_sor(200, 1.0, above, true), 1.0);
        let due: Vec<u32> = (0..31).filter(|&d| colored_sor_due(d)).collect();
        assert_eq!(due, [0, 1, 10, 20, 30]);
        let spans: Vec<u32> = [0, 1, 5, 10, 19].map(colored_sor_span).to_vec();
        assert_eq!(spans, [1, 9, 5, 10, 1]);
    }
}
