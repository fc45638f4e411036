//! Scene files (TOML, SI units, `version = 1`) and their resolution into the
//! walls, grains and parameters a simulation starts from.
//!
//! Every key has a default, so an empty file (or no file) is the bundled
//! hourglass. Unknown keys are errors that name the key and the line.

pub mod bounds;
pub mod build;
pub mod build3d;
mod checks;
pub mod emit;
pub mod fill;
pub mod fill3d;
pub mod gmsh;
pub mod hourglass;
mod laws;
pub mod limits;
mod motion;
pub mod overrides;
mod placed;
pub mod revolved;
mod spec;
mod strict;
mod validate;

use std::path::{Path, PathBuf};

pub use build::{Placement, Setup, build};
pub use build3d::build3d;
pub use spec::*;
pub use validate::{CROWD_ON_GPU, GPU_SOLVERS_3D, IMPULSE_ON_GPU, SOLID_ON_GPU};

use crate::error::{Error, Result};

/// The only scene-file version this build reads.
pub const SCENE_VERSION: u32 = 1;

/// Largest scene file read, bytes (16 MiB: an explicit list of about 500,000
/// grains). Parsing a TOML array costs about 50 bytes of memory per byte of
/// text: a 16 MiB list of 540,000 grains is read and refused (all at one
/// point) in 3.4 s and 850 MB on 2 busy cores. A larger packing belongs in a
/// fill (`grains.count`).
pub const MAX_SCENE_BYTES: u64 = 16 << 20;

impl Scene {
    /// Read a scene file (at most [`MAX_SCENE_BYTES`]); mesh paths in it are
    /// taken relative to the file's folder.
    pub fn load(path: &Path) -> Result<Scene> {
        use std::io::Read;
        let io = |source| Error::SceneIo {
            path: path.to_path_buf(),
            source,
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_SCENE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        if bytes.len() as u64 > MAX_SCENE_BYTES {
            return Err(Error::SceneTooLarge {
                path: path.to_path_buf(),
                limit: MAX_SCENE_BYTES,
            });
        }
        let text = String::from_utf8(bytes)
            .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error())))?;
        let mut scene = Scene::parse(&text, path)?;
        if let Some(mesh) = &scene.walls.mesh
            && mesh.as_os_str().is_empty()
        {
            return Err(Error::field(
                path.display().to_string(),
                "walls.mesh",
                "is empty: give the path of a .msh file",
            ));
        }
        if let Some(mesh) = &scene.walls.mesh
            && mesh.is_relative()
        {
            let dir = path.parent().unwrap_or(Path::new("."));
            scene.walls.mesh = Some(dir.join(mesh));
        }
        scene.origin = path.display().to_string();
        Ok(scene)
    }

    /// Parse scene text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Scene> {
        let mut scene: Scene = toml::from_str(text).map_err(|e| Error::SceneSyntax {
            path: path.to_path_buf(),
            message: describe_toml_error(text, &e),
        })?;
        scene.origin = path.display().to_string();
        Ok(scene)
    }

    /// The scene as TOML with every default written out.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_else(|e| format!("# cannot serialise scene: {e}\n"))
    }
}

/// One line: "line L, column C: message" from a toml error.
pub(crate) fn describe_toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

/// Default result directory.
pub fn default_out() -> PathBuf {
    PathBuf::from("result")
}
