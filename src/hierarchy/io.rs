//! Hierarchies in and out: ARX's CSV layout (no header, one row per leaf value,
//! one column per level, most general last) and a JSON form that round-trips.

use serde::{Deserialize, Serialize};

use super::{Builder, Hierarchy};
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
    /// A file without quotes is split in place, row by row; one with quotes
    /// goes through the csv reader. Rows whose cells are all blank are skipped.
    pub fn from_csv_str(text: &str, sep: u8, source: &str) -> Result<Self> {
        let hint = text.bytes().filter(|&b| b == b'\n').count() + 1;
        let mut b = Builder::new(source, hint);
        if plain(text, sep) {
            let mut cells: Vec<&str> = Vec::new();
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            let bytes = text.as_bytes();
            // one pass over the bytes (splitting lines and then cells with
            // `str::split` searched and compared each ASCII byte through
            // calls: a third of a ZIP hierarchy's load)
            let mut start = 0;
            for (i, &c) in bytes.iter().enumerate() {
                if c == sep {
                    cells.push(&text[start..i]);
                    start = i + 1;
                } else if c == b'\n' {
                    let end = if i > start && bytes[i - 1] == b'\r' {
                        i - 1
                    } else {
                        i
                    };
                    cells.push(&text[start..end]);
                    start = i + 1;
                    if !blank(&cells) {
                        b.push(&cells)?;
                    }
                    cells.clear();
                }
            }
            let end = if bytes.last() == Some(&b'\r') {
                bytes.len() - 1
            } else {
                bytes.len()
            };
            cells.push(&text[start.min(end)..end]);
            if !blank(&cells) {
                b.push(&cells)?;
            }
        } else {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .delimiter(sep)
                .flexible(true)
                .from_reader(text.as_bytes());
            let mut record = csv::StringRecord::new();
            let mut i = 0;
            loop {
                i += 1;
                let more = reader
                    .read_record(&mut record)
                    .map_err(|e| AnonError::Hierarchy(format!("{source}: line {i}: {e}")))?;
                if !more {
                    break;
                }
                let cells: Vec<&str> = record.iter().collect();
                if !blank(&cells) {
                    b.push(&cells)?;
                }
            }
        }
        // one column whose values hold another separator: read with the wrong sep
        if b.width() == 1 {
            let other = SEPARATORS
                .iter()
                .filter(|&&c| c != sep)
                .find(|&&c| b.leaves().iter().all(|l| l.as_bytes().contains(&c)));
            if let Some(&c) = other {
                return Err(AnonError::Hierarchy(format!(
                    "{source}: every row is one value containing {:?}, as if the file were \
                     separated by {:?} but read with sep={:?}; pass sep={:?}",
                    c as char, c as char, sep as char, c as char
                )));
            }
        }
        b.finish()
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

/// Whether splitting `text` at line ends and `sep` reads it as the csv
/// reader does (after a leading byte-order mark is dropped, lines ended by LF
/// or CRLF): not when it holds a quote, a lone CR or a separator that is not
/// ASCII.
fn plain(text: &str, sep: u8) -> bool {
    if !sep.is_ascii() || text.contains('"') {
        return false;
    }
    let bytes = text.as_bytes();
    (text.match_indices('\r')).all(|(i, _)| matches!(bytes.get(i + 1), None | Some(b'\n')))
}

/// A row whose cells are all blank (the csv reader's files end with one).
fn blank(cells: &[&str]) -> bool {
    cells.iter().all(|f| f.trim().is_empty())
}
