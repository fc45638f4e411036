//! diagnostics.csv through the csv crate: one [`Record`] per line, whose
//! field names are the header's columns and whose fields are the row's
//! values, written with the number formats below.
//!
//! ```text
//!   step, grains, passed, contacts, collisions   integers
//!   time                                         fixed, 6 decimals (0.020000)
//!   iterations                                   fixed, 3 decimals (12.500)
//!   every other value                            shortest exponent form (1.5e0, -2.5e-1)
//! ```

use serde::{Deserialize, Serialize, Serializer};

use super::Row;

/// The columns every diagnostics.csv has (through `max_overlap`); later
/// ones were appended by later versions.
pub(super) const BASE_COLUMNS: usize = 12;

/// One line of diagnostics.csv, its fields in column order. Columns are only
/// ever appended, each appended one `#[serde(default)]`: a file of an older
/// version (a prefix of the columns) reads with them 0, its total energy the
/// sum of the parts it has ([`Row::from`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Record {
    step: u64,
    #[serde(serialize_with = "fixed6")]
    time: f64,
    grains: u64,
    passed: u64,
    #[serde(serialize_with = "exp")]
    kinetic_energy: f64,
    #[serde(serialize_with = "exp")]
    potential_energy: f64,
    #[serde(serialize_with = "exp")]
    momentum_x: f64,
    #[serde(serialize_with = "exp")]
    momentum_y: f64,
    contacts: u64,
    #[serde(serialize_with = "fixed3")]
    iterations: f64,
    #[serde(serialize_with = "exp")]
    residual: f64,
    #[serde(serialize_with = "exp")]
    max_overlap: f64,
    #[serde(default, serialize_with = "exp")]
    rotational_kinetic_energy: f64,
    #[serde(default, serialize_with = "exp")]
    elastic_energy: f64,
    /// `None` only when read from a file without the column.
    #[serde(default, serialize_with = "exp_or_empty")]
    total_energy: Option<f64>,
    #[serde(default, serialize_with = "exp")]
    barycentre_x: f64,
    #[serde(default, serialize_with = "exp")]
    barycentre_y: f64,
    #[serde(default)]
    grain_collisions: u64,
    #[serde(default)]
    wall_collisions: u64,
    #[serde(default, serialize_with = "exp")]
    momentum_z: f64,
    #[serde(default, serialize_with = "exp")]
    barycentre_z: f64,
}

fn exp<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{v:e}"))
}

fn exp_or_empty<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => exp(v, s),
        None => s.serialize_str(""),
    }
}

fn fixed6<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{v:.6}"))
}

fn fixed3<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{v:.3}"))
}

impl From<&Row> for Record {
    fn from(r: &Row) -> Record {
        Record {
            step: r.step,
            time: r.time,
            grains: r.grains,
            passed: r.passed,
            kinetic_energy: r.kinetic_energy,
            potential_energy: r.potential_energy,
            momentum_x: r.momentum[0],
            momentum_y: r.momentum[1],
            contacts: r.contacts,
            iterations: r.iterations,
            residual: r.residual,
            max_overlap: r.max_overlap,
            rotational_kinetic_energy: r.rotational_kinetic_energy,
            elastic_energy: r.elastic_energy,
            total_energy: Some(r.total_energy),
            barycentre_x: r.barycentre[0],
            barycentre_y: r.barycentre[1],
            grain_collisions: r.grain_collisions,
            wall_collisions: r.wall_collisions,
            momentum_z: r.momentum[2],
            barycentre_z: r.barycentre[2],
        }
    }
}

impl From<Record> for Row {
    fn from(r: Record) -> Row {
        Row {
            step: r.step,
            time: r.time,
            grains: r.grains,
            passed: r.passed,
            kinetic_energy: r.kinetic_energy,
            potential_energy: r.potential_energy,
            momentum: [r.momentum_x, r.momentum_y, r.momentum_z],
            contacts: r.contacts,
            iterations: r.iterations,
            residual: r.residual,
            max_overlap: r.max_overlap,
            rotational_kinetic_energy: r.rotational_kinetic_energy,
            elastic_energy: r.elastic_energy,
            total_energy: r
                .total_energy
                .unwrap_or(r.kinetic_energy + r.potential_energy + r.rotational_kinetic_energy),
            barycentre: [r.barycentre_x, r.barycentre_y, r.barycentre_z],
            grain_collisions: r.grain_collisions,
            wall_collisions: r.wall_collisions,
        }
    }
}

/// The header line of this version's diagnostics.csv (no line end): the
/// field names of [`Record`].
pub(super) fn header() -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Writing plain fields into memory has no failure to report: an
    // impossible one leaves an empty header, which no reader accepts.
    let _ = w.serialize(Record::default());
    let bytes = w.into_inner().unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    text.lines().next().unwrap_or_default().to_string()
}

/// Whether `columns` (a header as read) is a diagnostics header of this
/// version, of an older one (a prefix of at least [`BASE_COLUMNS`]) or of a
/// newer one (this version's columns first, more after them).
pub(super) fn readable(columns: &csv::StringRecord) -> bool {
    let ours = header();
    columns.len() >= BASE_COLUMNS && columns.iter().zip(ours.split(',')).all(|(a, b)| a == b)
}

/// A csv crate writer of rows (no header: [`super::ResultDir`] writes it
/// when it creates the file).
pub(super) fn writer<W: std::io::Write>(to: W) -> csv::Writer<W> {
    csv::WriterBuilder::new().has_headers(false).from_writer(to)
}

/// A csv crate reader of a diagnostics text: header first, fields trimmed.
pub(super) fn reader<R: std::io::Read>(from: R) -> csv::Reader<R> {
    csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(from)
}

/// What is wrong at which line, for an error naming the file.
pub(super) fn describe(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            pos: Some(pos),
            expected_len,
            len,
        } => format!("line {}: {len} fields, expected {expected_len}", pos.line()),
        csv::ErrorKind::Deserialize { pos: Some(pos), err } => format!("line {}: {err}", pos.line()),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_the_records_field_names_and_older_headers_its_prefixes() {
        assert_eq!(header(), super::super::DIAGNOSTICS_HEADER);
        for older in [
            super::super::DIAGNOSTICS_HEADER_BEFORE_LAB,
            super::super::DIAGNOSTICS_HEADER_BEFORE_ROTATION,
        ] {
            assert!(readable(&csv::StringRecord::from(older.split(',').collect::<Vec<_>>())));
        }
        let short = csv::StringRecord::from(vec!["step", "time"]);
        assert!(!readable(&short));
    }
}
