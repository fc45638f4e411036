//! Reading a result directory back (for `hourglass view`, `render`, `plot`):
//! the inverse of [`super::vtk`] and [`super::ResultDir`].
//!
//! ```text
//!   frames.pvd      <DataSet timestep="t" ... file="frames/frame_NNNNNN.vtp"/>   -> (t, path)
//!   frame_*.vtp     Points (x y 0), radius, velocity (vx vy 0), id            -> Grains
//!   walls.vtp       Points (2 per segment), Lines                             -> Walls
//!   diagnostics.csv DIAGNOSTICS_HEADER + rows                                 -> Row
//! ```
//! Only what our writer produces is understood (ASCII DataArrays); anything
//! else is an error naming the file, never a panic.

use std::path::{Path, PathBuf};

use super::{DIAGNOSTICS_HEADER, Row, Summary};
use crate::error::{Error, Result};
use crate::model::{Grains, Walls};

fn bad(path: &Path, message: impl Into<String>) -> Error {
    Error::SceneSyntax {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::SceneIo {
        path: path.to_path_buf(),
        source,
    })
}

/// The value of `name="..."` inside one XML tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// The frames of DIR/frames.pvd: (time in s, path of the .vtp), in order.
pub fn frames(dir: &Path) -> Result<Vec<(f64, PathBuf)>> {
    let path = dir.join("frames.pvd");
    let text = read_text(&path)?;
    let mut out = Vec::new();
    for tag in text.split('<').filter(|t| t.starts_with("DataSet ")) {
        let t = attr(tag, "timestep")
            .and_then(|t| t.parse::<f64>().ok())
            .ok_or_else(|| bad(&path, "a DataSet has no numeric timestep"))?;
        let file = attr(tag, "file").ok_or_else(|| bad(&path, "a DataSet has no file"))?;
        out.push((t, dir.join(file)));
    }
    Ok(out)
}

/// Every DataArray of a .vtp: (Name, or "Points" for the points, numbers).
fn arrays(path: &Path, text: &str) -> Result<Vec<(String, Vec<f64>)>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("<DataArray") {
        let after = &rest[open..];
        let end_tag = after.find('>').ok_or_else(|| bad(path, "unterminated DataArray tag"))?;
        let tag = &after[..end_tag];
        let close = after
            .find("</DataArray>")
            .ok_or_else(|| bad(path, "a DataArray is not closed"))?;
        let name = attr(tag, "Name").unwrap_or("Points").to_string();
        let body = &after[end_tag + 1..close];
        let values = body
            .split_ascii_whitespace()
            .map(|w| w.parse::<f64>())
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| bad(path, format!("DataArray `{name}`: {e}")))?;
        out.push((name, values));
        rest = &after[close..];
    }
    Ok(out)
}

fn array<'a>(path: &Path, all: &'a [(String, Vec<f64>)], name: &str, len: usize) -> Result<&'a [f64]> {
    let (_, v) = all
        .iter()
        .find(|(n, _)| n == name)
        .ok_or_else(|| bad(path, format!("no DataArray `{name}`")))?;
    if v.len() != len {
        return Err(bad(
            path,
            format!("DataArray `{name}` has {} values, expected {len}", v.len()),
        ));
    }
    Ok(v)
}

/// The grains of one frame. Frames store no masses: `inv_mass` is 0.
pub fn grains(path: &Path) -> Result<Grains> {
    let text = read_text(path)?;
    let all = arrays(path, &text)?;
    let n = all
        .iter()
        .find(|(n, _)| n == "radius")
        .map(|(_, v)| v.len())
        .ok_or_else(|| bad(path, "no DataArray `radius`"))?;
    let pts = array(path, &all, "Points", 3 * n)?;
    let radius = array(path, &all, "radius", n)?;
    let vel = array(path, &all, "velocity", 3 * n)?;
    let id = array(path, &all, "id", n)?;
    Ok(Grains {
        pos: pts.chunks_exact(3).map(|p| [p[0] as f32, p[1] as f32]).collect(),
        vel: vel.chunks_exact(3).map(|v| [v[0] as f32, v[1] as f32]).collect(),
        radius: radius.iter().map(|&r| r as f32).collect(),
        inv_mass: vec![0.0; n],
        ang_vel: vec![0.0; n],
        id: id.iter().map(|&i| i as u32).collect(),
    })
}

/// The walls of DIR/walls.vtp (segments in file order).
pub fn walls(dir: &Path) -> Result<Walls> {
    let path = dir.join("walls.vtp");
    let text = read_text(&path)?;
    let all = arrays(&path, &text)?;
    let (_, pts) = all
        .iter()
        .find(|(n, _)| n == "Points")
        .ok_or_else(|| bad(&path, "no points"))?;
    if pts.len() % 6 != 0 {
        return Err(bad(&path, "points do not pair into segments"));
    }
    let lines: Vec<[[f64; 2]; 2]> = pts.chunks_exact(6).map(|p| [[p[0], p[1]], [p[3], p[4]]]).collect();
    Ok(Walls::new(&lines))
}

/// The rows of DIR/diagnostics.csv.
pub fn diagnostics(dir: &Path) -> Result<Vec<Row>> {
    let path = dir.join("diagnostics.csv");
    let text = read_text(&path)?;
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(DIAGNOSTICS_HEADER) {
        return Err(bad(&path, "the header is not the diagnostics header"));
    }
    let mut rows = Vec::new();
    for (k, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f: Vec<f64> = line
            .split(',')
            .map(|w| w.trim().parse::<f64>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| bad(&path, format!("line {}: {e}", k + 2)))?;
        if f.len() != 12 {
            return Err(bad(&path, format!("line {}: {} fields, expected 12", k + 2, f.len())));
        }
        rows.push(Row {
            step: f[0] as u64,
            time: f[1],
            grains: f[2] as u64,
            passed: f[3] as u64,
            kinetic_energy: f[4],
            potential_energy: f[5],
            momentum: [f[6], f[7]],
            contacts: f[8] as u64,
            iterations: f[9],
            residual: f[10],
            max_overlap: f[11],
        });
    }
    Ok(rows)
}

/// DIR/summary.json (absent for an interrupted run).
pub fn summary(dir: &Path) -> Result<Summary> {
    let path = dir.join("summary.json");
    let text = read_text(&path)?;
    serde_json::from_str(&text).map_err(|e| bad(&path, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grains_round_trip_through_vtp() {
        let mut g = Grains::new(
            vec![[0.5, -1.25], [3.0, 4.0]],
            vec![[1.0, 2.0], [-0.5, 0.0]],
            vec![0.25, 0.125],
            1000.0,
        );
        g.id = vec![7, 3];
        let dir = std::env::temp_dir().join(format!("hourglass-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.vtp");
        std::fs::write(&path, super::super::vtk::grains_vtp(&g)).unwrap();
        let back = grains(&path).unwrap();
        assert_eq!(back.pos, g.pos);
        assert_eq!(back.vel, g.vel);
        assert_eq!(back.radius, g.radius);
        assert_eq!(back.id, g.id);
        std::fs::remove_dir_all(&dir).ok();
    }
}
