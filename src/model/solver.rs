//! The facts of every solver, in one table ([`SOLVERS`]): what the backends,
//! the scene checks and the study ask of a solver reads from its row.
//!
//! ```text
//!   kind     name     nscd gpu friction threshold push-out colours sequential
//!   Nlgs     "nlgs"   yes  no  yes      1         0.8      no      yes
//!   Apgd     "apgd"   yes  yes yes      0.4       0.2      no      no
//!   ...
//! ```
//! Adding a solver: a `SolverKind` variant and one row here (docs/architecture.md,
//! "Adding a solver").

use super::params::{APGD_THRESHOLD, SolverKind, UZAWA_THRESHOLD};

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
        ..other(SolverKind::Jacobi, "jacobi", true)
    },
    SolverFacts {
        nscd: true,
        friction: true,
        colors: true,
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
        ..other(SolverKind::Uzawa, "uzawa", true)
    },
    SolverFacts {
        nscd: true,
        friction: true,
        threshold: APGD_THRESHOLD,
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
}
