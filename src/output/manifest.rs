//! `DIR/.hourglass-result`: the list of what hourglass wrote into a result
//! directory, so that a later run (or `render`, `plot`) removes only that.
//!
//! ```text
//!   # hourglass result directory: the files and folders below were written by
//!   # hourglass; a later run removes these and nothing else.
//!   scene.toml
//!   frames/
//!   frames/frame_000000.partial
//!   frames/frame_000000.vtp
//! ```
//!
//! One path per line, relative to the directory, `/`-separated; a folder
//! ends in `/` and is removed only when it is empty. A name is appended
//! (and flushed) *before* its file is created, so a crash leaves at worst a
//! listed name with no file; a last line without its newline is ignored.
//!
//! The rules:
//! - a missing or empty directory is claimed (the list is created);
//! - a non-empty directory without the list is refused, unless forced: then
//!   the list starts empty and nothing already there is removed;
//! - a file that exists and is not listed is never overwritten
//!   ([`Manifest::file`] refuses it) nor removed;
//! - removal never goes through a symbolic link (a link is removed as a link).

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// The file name of the list.
pub const MANIFEST: &str = ".hourglass-result";

const HEADER: &str = "# hourglass result directory: the files and folders below were written by\n# hourglass; a later run removes these and nothing else.\n";

/// An open list of a result directory.
pub struct Manifest {
    dir: PathBuf,
    listed: BTreeSet<String>,
    file: File,
}

fn fail(path: &Path, message: String) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        source: std::io::Error::other(message),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Output {
        path: path.to_path_buf(),
        source,
    }
}

/// A listed name is a plain relative path: no `..`, no root, no `.`.
fn valid(entry: &str) -> bool {
    let name = entry.trim_end_matches('/');
    !name.is_empty() && name != MANIFEST && Path::new(name).components().all(|c| matches!(c, Component::Normal(_)))
}

/// True when `entry`'s parent folders inside `dir` are real folders (no link).
fn parents_are_real(dir: &Path, entry: &str) -> bool {
    let mut at = dir.to_path_buf();
    let parts: Vec<&str> = entry.trim_end_matches('/').split('/').collect();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_dir() => {}
            _ => return false,
        }
    }
    true
}

impl Manifest {
    /// The names listed in `dir`'s manifest; `None` when it has none.
    pub fn read(dir: &Path) -> Result<Option<BTreeSet<String>>> {
        let path = dir.join(MANIFEST);
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(Error::Output { path, source }),
        };
        // Only whole lines: a crash may have cut the last one short.
        let complete = match text.rfind('\n') {
            Some(end) => &text[..end],
            None => "",
        };
        Ok(Some(
            complete
                .lines()
                .filter(|l| !l.starts_with('#') && valid(l))
                .map(str::to_string)
                .collect(),
        ))
    }

    /// Claim `dir` for a run: create it, or open its manifest. A non-empty
    /// directory without one is refused unless `force`.
    pub fn claim(dir: &Path, force: bool) -> Result<Manifest> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        if let Some(m) = Manifest::open(dir)? {
            return Ok(m);
        }
        let empty = std::fs::read_dir(dir).map_err(io(dir))?.next().is_none();
        if !empty && !force {
            return Err(fail(
                dir,
                format!(
                    "not a result directory (it is not empty and has no {MANIFEST}); \
                     choose another --out, empty it, or pass --force to write into it \
                     (files hourglass did not write are kept)"
                ),
            ));
        }
        let path = dir.join(MANIFEST);
        crate::output::vtk::write_atomic(&path, HEADER).map_err(io(&path))?;
        Manifest::open(dir)?.ok_or_else(|| fail(&path, "vanished after writing".into()))
    }

    /// `dir`'s manifest, to add to; `None` when `dir` has none (a directory
    /// from an older version, or not a result directory).
    pub fn open(dir: &Path) -> Result<Option<Manifest>> {
        let Some(listed) = Manifest::read(dir)? else {
            return Ok(None);
        };
        let path = dir.join(MANIFEST);
        let mut file = OpenOptions::new().append(true).open(&path).map_err(io(&path))?;
        // End a line a crash cut short, so the next name starts its own.
        let len = file.metadata().map_err(io(&path))?.len();
        if len > 0 {
            let bytes = std::fs::read(&path).map_err(io(&path))?;
            if bytes.last() != Some(&b'\n') {
                file.write_all(b"\n").map_err(io(&path))?;
            }
        }
        Ok(Some(Manifest {
            dir: dir.to_path_buf(),
            listed,
            file,
        }))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn contains(&self, entry: &str) -> bool {
        self.listed.contains(entry)
    }

    fn record(&mut self, entry: &str) -> Result<()> {
        if self.listed.contains(entry) {
            return Ok(());
        }
        let path = self.dir.join(MANIFEST);
        writeln!(self.file, "{entry}")
            .and_then(|_| self.file.flush())
            .map_err(io(&path))?;
        self.listed.insert(entry.to_string());
        Ok(())
    }

    /// The path of `name` (relative, `/`-separated) to write: listed first.
    /// Refused when a file of that name exists that hourglass did not write.
    pub fn file(&mut self, name: &str) -> Result<PathBuf> {
        let path = self.dir.join(name);
        if !valid(name) || name.ends_with('/') {
            return Err(fail(&path, "not a plain relative file name".into()));
        }
        if !parents_are_real(&self.dir, name) {
            return Err(fail(
                &path,
                "lies under a link or a file where hourglass expects its own folder; move it away (hourglass never writes through a link)".into(),
            ));
        }
        if !self.listed.contains(name) {
            if std::fs::symlink_metadata(&path).is_ok() {
                return Err(fail(
                    &path,
                    "exists and was not written by hourglass; move it away (a run never overwrites a file it did not write)".into(),
                ));
            }
            self.record(name)?;
        }
        Ok(path)
    }

    /// The path of `name` and of the temporary file [`vtk::write_atomic`]
    /// writes first, both listed.
    ///
    /// [`vtk::write_atomic`]: crate::output::vtk::write_atomic
    pub fn atomic_file(&mut self, name: &str) -> Result<PathBuf> {
        let tmp = Path::new(name).with_extension("partial");
        self.file(&tmp.to_string_lossy())?;
        self.file(name)
    }

    /// The folder `name`, created (and listed) when missing. An existing real
    /// folder is used as it is (not listed unless hourglass made it).
    pub fn folder(&mut self, name: &str) -> Result<PathBuf> {
        let path = self.dir.join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_dir() => Ok(path),
            Ok(_) => Err(fail(
                &path,
                "exists and is not a folder hourglass wrote; move it away".into(),
            )),
            Err(_) => {
                self.record(&format!("{name}/"))?;
                std::fs::create_dir_all(&path).map_err(io(&path))?;
                Ok(path)
            }
        }
    }

    /// Remove every listed name for which `which` holds (files and links
    /// first, then folders that are left empty, deepest first), and rewrite
    /// the list without what is gone. Nothing unlisted is touched, and
    /// nothing is reached through a symbolic link.
    pub fn remove(&mut self, which: impl Fn(&str) -> bool) -> Result<()> {
        let chosen: Vec<String> = self.listed.iter().filter(|e| which(e)).cloned().collect();
        if chosen.is_empty() {
            return Ok(());
        }
        let (folders, files): (Vec<_>, Vec<_>) = chosen.into_iter().partition(|e| e.ends_with('/'));
        let mut gone = BTreeSet::new();
        for entry in files {
            let path = self.dir.join(&entry);
            if !parents_are_real(&self.dir, &entry) {
                continue;
            }
            match std::fs::symlink_metadata(&path) {
                Err(_) => {
                    gone.insert(entry);
                }
                // A folder where a file was: someone else's now.
                Ok(m) if m.file_type().is_dir() => {
                    gone.insert(entry);
                }
                Ok(_) => {
                    std::fs::remove_file(&path).map_err(io(&path))?;
                    gone.insert(entry);
                }
            }
        }
        let mut folders = folders;
        folders.sort_by_key(|f| std::cmp::Reverse(f.matches('/').count()));
        for entry in folders {
            let path = self.dir.join(entry.trim_end_matches('/'));
            if !parents_are_real(&self.dir, &entry) {
                continue;
            }
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.file_type().is_dir() => {
                    // Not empty: it holds something hourglass did not write; keep it listed.
                    if std::fs::remove_dir(&path).is_ok() {
                        gone.insert(entry);
                    }
                }
                // Missing, or no longer a folder: not ours to remove.
                _ => {
                    gone.insert(entry);
                }
            }
        }
        self.listed.retain(|e| !gone.contains(e));
        self.rewrite()
    }

    /// Replace the list on disk by `self.listed` (atomically), and reopen it.
    fn rewrite(&mut self) -> Result<()> {
        let path = self.dir.join(MANIFEST);
        let mut text = HEADER.to_string();
        for e in &self.listed {
            text.push_str(e);
            text.push('\n');
        }
        crate::output::vtk::write_atomic(&path, &text).map_err(io(&path))?;
        self.file = OpenOptions::new().append(true).open(&path).map_err(io(&path))?;
        Ok(())
    }
}

/// Where `render`, `plot` and screenshots write in a result directory: through
/// its manifest when it has one, by plain name (removing nothing) when it has
/// none (a directory from an older version).
pub struct Outputs {
    dir: PathBuf,
    manifest: Option<Manifest>,
}

impl Outputs {
    pub fn open(dir: &Path) -> Result<Outputs> {
        Ok(Outputs {
            dir: dir.to_path_buf(),
            manifest: Manifest::open(dir)?,
        })
    }

    /// Remove the listed names for which `which` holds (nothing without a manifest).
    pub fn remove(&mut self, which: impl Fn(&str) -> bool) -> Result<()> {
        match &mut self.manifest {
            Some(m) => m.remove(which),
            None => Ok(()),
        }
    }

    /// The path of `name` to write. Without a manifest, a name under a
    /// folder that is a link is refused; the writers replace a link at the
    /// name itself rather than write through it (`output::fresh`).
    pub fn file(&mut self, name: &str) -> Result<PathBuf> {
        match &mut self.manifest {
            Some(m) => m.file(name),
            None => {
                let path = self.dir.join(name);
                if !valid(name) || !parents_are_real(&self.dir, name) {
                    return Err(fail(
                        &path,
                        "lies under a link or a file, not a folder; move it away (hourglass never writes through a link)".into(),
                    ));
                }
                Ok(path)
            }
        }
    }

    pub fn folder(&mut self, name: &str) -> Result<PathBuf> {
        match &mut self.manifest {
            Some(m) => m.folder(name),
            None => {
                let path = self.dir.join(name);
                match std::fs::symlink_metadata(&path) {
                    Ok(m) if m.file_type().is_dir() => Ok(path),
                    Ok(_) => Err(fail(
                        &path,
                        "exists and is not a folder (a link or a file); move it away (hourglass never writes through a link)".into(),
                    )),
                    Err(_) => {
                        std::fs::create_dir_all(&path).map_err(io(&path))?;
                        Ok(path)
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_the_directory_are_never_listed() {
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "./x", MANIFEST, "/"] {
            assert!(!valid(bad), "{bad}");
        }
        for good in ["scene.toml", "frames/", "render/frame_000000.png"] {
            assert!(valid(good), "{good}");
        }
    }
}
