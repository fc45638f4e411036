//! Writing a file of a result directory without ever writing through a
//! symbolic link: whatever file or link stands at the name is removed first
//! (a link as a link, its target untouched), and the new file is created with
//! `create_new` (`O_CREAT | O_EXCL`), which fails rather than follow a link
//! that appeared in between. Every writer of a result directory (run,
//! resume, plot, render, screenshots) goes through here.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// `path` created empty for writing, as described in the module doc. A
/// folder at `path` is an error (`remove_file` refuses it).
pub fn create(path: &Path) -> std::io::Result<File> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Write `bytes` to `path` ([`create`]).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = create(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// Write `bytes` to `path` through the temporary file `path.partial` and a
/// rename, so a reader never sees half a file; `rename` replaces a link at
/// `path` by the file, never writing through it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("partial");
    write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// [`write_atomic`] with the contents written by `fill` into a buffered
/// writer on the temporary file, so that a large file (a million grains'
/// state) is never held in memory whole.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = path.with_extension("partial");
    let mut out = std::io::BufWriter::new(create(&tmp)?);
    fill(&mut out)?;
    out.into_inner().map_err(std::io::IntoInnerError::into_error)?.flush()?;
    std::fs::rename(&tmp, path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_link_at_the_name_is_replaced_and_its_target_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("mine.txt");
        std::fs::write(&mine, b"my thesis").unwrap();
        for (name, atomic) in [("plot.png", false), ("state.json", true)] {
            let path = dir.path().join(name);
            std::os::unix::fs::symlink(&mine, &path).unwrap();
            if atomic {
                // The temporary name a link too.
                std::os::unix::fs::symlink(&mine, path.with_extension("partial")).unwrap();
                write_atomic(&path, b"new").unwrap();
            } else {
                write(&path, b"new").unwrap();
            }
            assert_eq!(std::fs::read(&mine).unwrap(), b"my thesis");
            assert!(!std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read(&path).unwrap(), b"new");
        }
    }
}
