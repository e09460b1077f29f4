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
        // rows, at most (a guess from the first line's length could ask for
        // a leaf table many times too large: a short first line)
        let hint = text.bytes().filter(|&b| b == b'\n').count() + 1;
        let mut b = Builder::new(source, hint);
        if !sep.is_ascii() || !read_plain(text, sep, &mut b)? {
            b = Builder::new(source, hint);
            read_quoted(text, sep, source, &mut b)?;
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
        // a first leaf starting with U+FEFF is quoted: readers take it,
        // unquoted, for a byte-order mark and drop it
        let rows = self.rows();
        let mark = rows
            .first()
            .and_then(|r| r.first())
            .is_some_and(|f| f.starts_with('\u{feff}'));
        let style = match mark {
            true => csv::QuoteStyle::Always,
            false => csv::QuoteStyle::Necessary,
        };
        let mut w = csv::WriterBuilder::new()
            .delimiter(sep)
            .quote_style(style)
            .from_writer(vec![]);
        for row in rows {
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

/// Reads `text` into `b` split at line ends and `sep` (an ASCII byte), in
/// one pass over its bytes (`str::split` searched and compared each byte
/// through calls: a third of a ZIP hierarchy's load). That is how the csv
/// reader reads it (after a leading byte-order mark, with lines ended by LF
/// or CRLF) unless it holds a quote or a lone CR: then false, and `b` is
/// to be dropped. (The rows before the first quote or lone CR read alike
/// either way, so their errors stand.)
fn read_plain<'t>(text: &'t str, sep: u8, b: &mut Builder<'_>) -> Result<bool> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bytes = text.as_bytes();
    let (mut cells, mut held): (Vec<&'t str>, Vec<&'t str>) = (Vec::new(), Vec::new());
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
                // a row is pushed once the next is read, whose leaf's slot
                // is fetched meanwhile (a large hierarchy's leaf table
                // misses the caches on nearly every row)
                b.prefetch(cells[0]);
                if !held.is_empty() {
                    b.push(&held)?;
                }
                std::mem::swap(&mut held, &mut cells);
            }
            cells.clear();
        } else if c == b'"' || (c == b'\r' && !matches!(bytes.get(i + 1), None | Some(b'\n'))) {
            return Ok(false);
        }
    }
    let end = if bytes.last() == Some(&b'\r') {
        bytes.len() - 1
    } else {
        bytes.len()
    };
    cells.push(&text[start.min(end)..end]);
    for row in [held, cells] {
        if !row.is_empty() && !blank(&row) {
            b.push(&row)?;
        }
    }
    Ok(true)
}

/// Reads `text` into `b` through the csv reader (quotes, lone CRs).
fn read_quoted(text: &str, sep: u8, source: &str, b: &mut Builder<'_>) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(sep)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut record = csv::StringRecord::new();
    let mut i = 0;
    loop {
        i += 1;
        let more = (reader.read_record(&mut record))
            .map_err(|e| AnonError::Hierarchy(format!("{source}: line {i}: {e}")))?;
        if !more {
            return Ok(());
        }
        let cells: Vec<&str> = record.iter().collect();
        if !blank(&cells) {
            b.push(&cells)?;
        }
    }
}

/// A row whose cells are all blank (the csv reader's files end with one).
fn blank(cells: &[&str]) -> bool {
    cells.iter().all(|f| f.trim().is_empty())
}
