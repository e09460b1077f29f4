//! Hierarchies in and out: ARX's CSV layout (no header, one row per leaf value,
//! one column per level, most general last) and a JSON form that round-trips.

use serde::{Deserialize, Serialize};

use super::Hierarchy;
use crate::error::{AnonError, Result};

#[derive(Serialize, Deserialize)]
struct HierarchyJson {
    format: String,
    rows: Vec<Vec<String>>,
}

const JSON_FORMAT: &str = "polars-anon/hierarchy-v1";

/// Separators ARX and spreadsheets write, checked when a file reads as one column.
const SEPARATORS: [u8; 4] = [b';', b',', b'\t', b'|'];

impl Hierarchy {
    /// Parse ARX's CSV layout: no header, one row per leaf, `sep` between levels.
    /// A file without quotes is split in place (its cells borrowed, only the
    /// distinct labels copied); one with quotes goes through the csv reader.
    pub fn from_csv_str(text: &str, sep: u8, source: &str) -> Result<Self> {
        if let Some((cells, ends)) = split_plain(text, sep) {
            let mut start = 0;
            let rows: Vec<&[&str]> = (ends.iter())
                .map(|&end| {
                    let row = &cells[start..end];
                    start = end;
                    row
                })
                .collect();
            return Self::csv_rows(&rows, sep, source);
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .delimiter(sep)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut rows = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let record = record
                .map_err(|e| AnonError::Hierarchy(format!("{source}: line {}: {e}", i + 1)))?;
            if record.iter().all(|f| f.trim().is_empty()) {
                continue;
            }
            rows.push(
                record
                    .iter()
                    .map(|f| f.to_string())
                    .collect::<Vec<String>>(),
            );
        }
        Self::csv_rows(&rows, sep, source)
    }

    fn csv_rows<R: AsRef<[S]>, S: AsRef<str>>(rows: &[R], sep: u8, source: &str) -> Result<Self> {
        // one column whose values hold another separator: read with the wrong sep
        if !rows.is_empty() && rows.iter().all(|r| r.as_ref().len() == 1) {
            let other = SEPARATORS.iter().filter(|&&c| c != sep).find(|&&c| {
                rows.iter()
                    .all(|r| r.as_ref()[0].as_ref().as_bytes().contains(&c))
            });
            if let Some(&c) = other {
                return Err(AnonError::Hierarchy(format!(
                    "{source}: every row is one value containing {:?}, as if the file were \
                     separated by {:?} but read with sep={:?}; pass sep={:?}",
                    c as char, c as char, sep as char, c as char
                )));
            }
        }
        Self::build(rows, source)
    }

    pub fn from_csv_path(path: &std::path::Path, sep: u8) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| AnonError::Hierarchy(format!("{}: cannot read: {e}", path.display())))?;
        Self::from_csv_str(&text, sep, &path.display().to_string())
    }

    pub fn to_csv_string(&self, sep: u8) -> String {
        let mut w = csv::WriterBuilder::new().delimiter(sep).from_writer(vec![]);
        for row in self.rows() {
            // writing to a Vec cannot fail
            w.write_record(row).expect("in-memory csv write");
        }
        String::from_utf8(w.into_inner().expect("in-memory csv flush")).expect("utf-8")
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(&HierarchyJson {
            format: JSON_FORMAT.into(),
            rows: self.owned_rows(),
        })
        .expect("serialising strings cannot fail")
    }

    pub fn from_json(text: &str, source: &str) -> Result<Self> {
        let parsed: HierarchyJson = serde_json::from_str(text)
            .map_err(|e| AnonError::Hierarchy(format!("{source}: not a hierarchy JSON: {e}")))?;
        if parsed.format != JSON_FORMAT {
            return Err(AnonError::Hierarchy(format!(
                "{source}: unknown hierarchy format {:?}, expected {:?}",
                parsed.format, JSON_FORMAT
            )));
        }
        Self::from_rows(parsed.rows, source)
    }
}

/// The cells of a CSV text without quotes and the end of each row among
/// them (one buffer, not a vector a row), as the csv reader reads them: a
/// leading byte-order mark dropped, lines ended by LF or CRLF, rows whose
/// cells are all blank skipped. None where that reading could differ (a
/// quote, a lone CR, a separator that is not ASCII).
fn split_plain(text: &str, sep: u8) -> Option<(Vec<&str>, Vec<usize>)> {
    if !sep.is_ascii() || text.contains('"') {
        return None;
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut cells = Vec::new();
    let mut ends = Vec::new();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.contains('\r') {
            return None;
        }
        let start = cells.len();
        cells.extend(line.split(sep as char));
        if cells[start..].iter().all(|f| f.trim().is_empty()) {
            cells.truncate(start);
            continue;
        }
        ends.push(cells.len());
    }
    Some((cells, ends))
}
