//! Fixed-length arrays read strictly: serde's `[f64; N]` stops after N values
//! and drops the rest, so `gravity = [0, -9.81, 0]` would pass as 2D gravity.
//! Each array is read whole and its length checked; the error names the key
//! and, for a list of rows, the row (toml adds the line and column).

use serde::de::{Deserialize, Deserializer, Error};

/// `values` as `[f64; N]`, or an error naming `key` and what the values mean.
fn exact<const N: usize>(key: &str, meaning: &str, values: Vec<f64>) -> Result<[f64; N], String> {
    let found = values.len();
    values.try_into().map_err(|_| {
        let s = if found == 1 { "" } else { "s" };
        format!("`{key}` has {found} value{s}, expected {N} ({meaning})")
    })
}

fn row<'de, D: Deserializer<'de>, const N: usize>(d: D, key: &str, meaning: &str) -> Result<[f64; N], D::Error> {
    exact(key, meaning, Vec::deserialize(d)?).map_err(D::Error::custom)
}

fn rows<'de, D: Deserializer<'de>, const N: usize>(
    d: D,
    key: &str,
    meaning: &str,
) -> Result<Option<Vec<[f64; N]>>, D::Error> {
    let rows: Vec<Vec<f64>> = Vec::deserialize(d)?;
    let checked = rows
        .into_iter()
        .enumerate()
        .map(|(i, values)| exact(&format!("{key}[{i}]"), meaning, values))
        .collect::<Result<Vec<_>, _>>();
    checked.map(Some).map_err(D::Error::custom)
}

pub fn gravity<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
    row(d, "gravity", "[gx, gy] in m/s^2")
}

pub fn region<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f64; 4]>, D::Error> {
    row(d, "grains.region", "[xmin, ymin, xmax, ymax] in m").map(Some)
}

pub fn segments<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<[f64; 4]>>, D::Error> {
    rows(d, "walls.segments", "[x0, y0, x1, y1] in m")
}

pub fn periodic_x<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f64; 2]>, D::Error> {
    row(d, "walls.periodic_x", "[xmin, xmax] in m").map(Some)
}

pub fn bounds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f64; 4]>, D::Error> {
    row(d, "walls.bounds", "[xmin, ymin, xmax, ymax] in m").map(Some)
}

/// `walls.solid_side`: "left", "right" or "both", or a list of them.
pub fn solid_side<'de, D: Deserializer<'de>>(d: D) -> Result<Option<super::SolidSide>, D::Error> {
    use crate::model::walls::Side;
    let expected = "`walls.solid_side` must be \"left\", \"right\" or \"both\" (the side that holds the grains, walking each segment from its first end), or a list of them, one per segment";
    let side = |v: &toml::Value| match v.as_str() {
        Some("left") => Ok(Side::Left),
        Some("right") => Ok(Side::Right),
        Some("both") => Ok(Side::Both),
        _ => Err(D::Error::custom(format!("{expected}; found {v}"))),
    };
    let value = toml::Value::deserialize(d)?;
    match &value {
        toml::Value::Array(list) => list
            .iter()
            .map(side)
            .collect::<Result<Vec<_>, _>>()
            .map(|s| Some(super::SolidSide::Each(s))),
        v => side(v).map(|s| Some(super::SolidSide::All(s))),
    }
}

/// `walls.closed_side`: the side of the closed surfaces that holds the spheres.
pub fn closed_side<'de, D: Deserializer<'de>>(d: D) -> Result<Option<crate::model::inside::Hold>, D::Error> {
    let v = toml::Value::deserialize(d)?;
    crate::model::inside::Hold::deserialize(v.clone()).map(Some).map_err(|_| {
        D::Error::custom(format!(
            "`walls.closed_side` must be \"inside\", \"outside\" or \"both\" (the side of the closed surfaces that holds the spheres); found {v}"
        ))
    })
}

pub fn gate<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<[f64; 4]>>, D::Error> {
    rows(d, "walls.gate", "[x0, y0, x1, y1] in m")
}

/// `grains.list`: rows of 5 values, or 6 with the grain's mass.
pub fn grains<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Vec<f64>>>, D::Error> {
    let rows: Vec<Vec<f64>> = Vec::deserialize(d)?;
    for (i, values) in rows.iter().enumerate() {
        let found = values.len();
        if found != 5 && found != 6 {
            let s = if found == 1 { "" } else { "s" };
            return Err(D::Error::custom(format!(
                "`grains.list[{i}]` has {found} value{s}, expected 5 or 6 ([x, y, vx, vy, r] in m and m/s, then optionally the mass m in kg)"
            )));
        }
    }
    Ok(Some(rows))
}

/// A [`super::Point`]: 2 values, or 3 (a 3D scene's).
fn point<'de, D: Deserializer<'de>>(d: D, key: &str, meaning: &str) -> Result<super::Point, D::Error> {
    let values = Vec::<f64>::deserialize(d)?;
    let given = values.len();
    match values[..] {
        [x, y] => Ok(super::Point::plane(x, y)),
        [x, y, z] => Ok(super::Point { xyz: [x, y, z], given }),
        _ => {
            let s = if given == 1 { "" } else { "s" };
            Err(D::Error::custom(format!(
                "`{key}` has {given} value{s}, expected 2 ({meaning}) or 3 in a 3D scene"
            )))
        }
    }
}

pub fn position<'de, D: Deserializer<'de>>(d: D) -> Result<super::Point, D::Error> {
    point(d, "emitters.position", "[x, y] in m")
}

pub fn velocity<'de, D: Deserializer<'de>>(d: D) -> Result<super::Point, D::Error> {
    point(d, "emitters.velocity", "[vx, vy] in m/s")
}

pub fn door<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f64; 4]>, D::Error> {
    row(d, "crowd.door", "[x0, y0, x1, y1] in m").map(Some)
}

pub fn box3d<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f64; 6]>, D::Error> {
    row(d, "walls.box", "[xmin, ymin, zmin, xmax, ymax, zmax] in m").map(Some)
}

pub fn planes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<[f64; 6]>>, D::Error> {
    rows(
        d,
        "walls.planes",
        "[px, py, pz, nx, ny, nz]: a point in m and the normal towards the grains",
    )
}
