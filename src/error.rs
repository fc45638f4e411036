//! Typed errors of the library. Every variant names the file, field or line
//! it is about, so the binary can print it as one line.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scene file could not be read.
    #[error("{path}: cannot read scene file: {source}")]
    SceneIo { path: PathBuf, source: std::io::Error },
    /// A sweep file could not be read.
    #[error("{path}: cannot read sweep file: {source}")]
    SweepIo { path: PathBuf, source: std::io::Error },
    /// A scene file longer than the cap (`scene::MAX_SCENE_BYTES`), refused before parsing.
    #[error("{path}: scene file is larger than the limit of {} MiB for scene files", limit >> 20)]
    SceneTooLarge { path: PathBuf, limit: u64 },
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
    /// A grain is too fast for the step: even `max` substeps
    /// (`backend::substep`) would let two grains close by more than the alert
    /// distance, so contacts would be missed and grains lost.
    #[error(
        "dt = {dt:e} s is too long for grains at {speed:.2} m/s: two could close {closing:.3e} m in one step, more than {max} substeps of the alert distance {alert:e} m can catch (lower solver.dt or raise solver.alert)"
    )]
    StepTooLong {
        /// The step, s.
        dt: f32,
        /// The fastest grain, m/s.
        speed: f32,
        /// How far two grains could close in one step (with the safety margin), m.
        closing: f32,
        /// solver.alert, m.
        alert: f32,
        /// The substep cap.
        max: u32,
    },
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

// The gmsh reader's errors (src/scene/gmsh): here, at the bottom of the
// crate, so that `Error` depends on no module above it.

/// Where in the file an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// 1-based line number (ASCII files, and the text header of binary files).
    Line(usize),
    /// Byte offset from the start of the file (binary files).
    Byte(usize),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(line) => write!(f, "line {line}"),
            Location::Byte(offset) => write!(f, "byte {offset}"),
        }
    }
}

/// Why a mesh could not be read. Display is one line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{}: unsupported MSH version {version} (supported: 4.1 ASCII/binary, 2.2 ASCII)",
        path.display()
    )]
    UnsupportedVersion { path: PathBuf, version: String },
    #[error("{}, {at}: file ends inside the ${section} section", path.display())]
    Truncated {
        path: PathBuf,
        /// Section name without the `$`, e.g. `Nodes`.
        section: String,
        at: Location,
    },
    #[error("{}, {at}: {message}", path.display())]
    Parse {
        path: PathBuf,
        at: Location,
        message: String,
    },
    #[error("{}: no 2-node line elements (type 1)", path.display())]
    NoLines { path: PathBuf },
    /// A mesh read for walls in 3D with no triangle elements.
    #[error("{}: no 3-node triangle elements (type 2)", path.display())]
    NoTriangles { path: PathBuf },
    /// A mesh file longer than the cap (`gmsh::MAX_MESH_BYTES`), refused while reading.
    #[error("{}: mesh file is larger than the limit of {} MiB for mesh files", path.display(), limit >> 20)]
    TooLarge { path: PathBuf, limit: u64 },
    /// The lines were read but cannot be walls (all gate, all of zero length, too wide).
    #[error("{}: {problem}", path.display())]
    Walls { path: PathBuf, problem: String },
    #[error(
        "{}, {at}: element {element} refers to node {node}, which $Nodes does not define",
        path.display()
    )]
    UnknownNode {
        path: PathBuf,
        at: Location,
        element: u64,
        node: u64,
    },
}
