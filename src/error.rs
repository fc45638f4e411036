//! Typed errors of the library. Every variant names the file, field or line
//! it is about, so the binary can print it as one line.

use std::path::PathBuf;

use crate::scene::gmsh::MeshError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scene file could not be read.
    #[error("{path}: cannot read scene file: {source}")]
    SceneIo { path: PathBuf, source: std::io::Error },
    /// The TOML is malformed or has an unknown key / a value of the wrong type.
    #[error("{path}: {message}")]
    SceneSyntax { path: PathBuf, message: String },
    /// A field has a value outside its domain (negative radius, dt <= 0, NaN, ...).
    #[error("{origin}: field `{field}`: {problem}")]
    InvalidField {
        origin: String,
        field: String,
        problem: String,
    },
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// The grains do not fit in the fill region.
    #[error("{origin}: {requested} grains requested but only {placed} fit in the fill region ({hint})")]
    GrainsDoNotFit {
        origin: String,
        requested: usize,
        placed: usize,
        hint: String,
    },
    /// A feature the scene asks for is not built yet (see the README feature table).
    #[error("{what} is not implemented yet (see the feature table in README.md)")]
    NotImplemented { what: String },
    /// A result file (frames.pvd, a frame, walls.vtp, diagnostics.csv,
    /// summary.json) could not be read.
    #[error("{path}: cannot read result file: {source}")]
    ResultIo { path: PathBuf, source: std::io::Error },
    /// A result file is corrupt or not in the form our writer produces; the
    /// message says what is wrong and, for XML, on which line.
    #[error("{path}: {message}")]
    ResultFile { path: PathBuf, message: String },
    /// The result directory could not be written.
    #[error("{path}: cannot write output: {source}")]
    Output { path: PathBuf, source: std::io::Error },
    /// Numerical failure during the run (NaN velocities, grains lost, ...).
    #[error("step {step}: {problem}")]
    Diverged { step: u64, problem: String },
    /// No usable GPU adapter, or the scene exceeds the adapter's limits.
    #[error("gpu: {0}")]
    Gpu(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn field(origin: impl Into<String>, field: &str, problem: impl Into<String>) -> Self {
        Error::InvalidField {
            origin: origin.into(),
            field: field.to_string(),
            problem: problem.into(),
        }
    }
}
