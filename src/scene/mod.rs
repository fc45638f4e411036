//! Scene files (TOML, SI units, `version = 1`) and their resolution into the
//! walls, grains and parameters a simulation starts from.
//!
//! Every key has a default, so an empty file (or no file) is the bundled
//! hourglass. Unknown keys are errors that name the key and the line.

pub mod build;
pub mod fill;
pub mod gmsh;
pub mod hourglass;
mod spec;
mod validate;

use std::path::{Path, PathBuf};

pub use build::{Setup, build};
pub use spec::*;

use crate::error::{Error, Result};

/// The only scene-file version this build reads.
pub const SCENE_VERSION: u32 = 1;

impl Scene {
    /// Read a scene file; mesh paths in it are taken relative to the file's folder.
    pub fn load(path: &Path) -> Result<Scene> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::SceneIo {
            path: path.to_path_buf(),
            source,
        })?;
        let mut scene = Scene::parse(&text, path)?;
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
fn describe_toml_error(text: &str, e: &toml::de::Error) -> String {
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
