//! Value generalization hierarchies in ARX's CSV layout (one row per leaf value,
//! one column per level, most general last) and a JSON form that round-trips.
//!
//! Inside, every level is a dense code space: `labels[l][c]` is the label of code
//! `c` at level `l`, `leaf_to[l][leaf]` maps a leaf code to its code at level `l`
//! and `parent[l][c]` maps a level-`l` code one level up. These arrays are what a
//! rollup gathers through.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::{show_values, AnonError, Result};

#[derive(Clone, Debug, PartialEq)]
pub struct Hierarchy {
    rows: Vec<Vec<String>>,
    labels: Vec<Vec<String>>,
    leaf_to: Vec<Vec<u32>>,
    parent: Vec<Vec<u32>>,
    /// Leaf label bytes -> leaf code.
    leaf_index: LeafIndex,
}

/// Leaf label -> leaf code, the lookup every value of a column goes through.
/// A label of at most 16 bytes (most are) is its length and two overlapping
/// little-endian words, which together determine it: such labels sit in a
/// small open-addressed table and are found by comparing three integers,
/// with no byte loop and no `memcmp`. A longer label sits in the same table
/// under its length and first and last 8 bytes, and a match is confirmed by
/// comparing its bytes. Measured on Adult's columns: ~27 ns a value through a
/// hash map of every label; ~3-6 ns here (a map for the labels over 16 bytes
/// left marital-status at ~15 ns).
#[derive(Clone, Debug, PartialEq)]
struct LeafIndex {
    /// (first word, last word, length + 1 (0: empty slot), code)
    short: Vec<(u64, u64, u32, u32)>,
    bits: u32,
    /// The bytes of each label over 16 bytes, by code (empty for the others).
    long: Vec<Box<[u8]>>,
}

impl LeafIndex {
    fn new(mut leaves: Vec<(String, u32)>) -> Self {
        // in code order, so that equal hierarchies have equal tables
        leaves.sort_unstable_by_key(|&(_, code)| code);
        let cap = (2 * leaves.len()).max(8).next_power_of_two();
        let codes = leaves
            .iter()
            .map(|&(_, c)| c as usize + 1)
            .max()
            .unwrap_or(0);
        let mut index = LeafIndex {
            short: vec![(0, 0, 0, 0); cap],
            bits: cap.trailing_zeros(),
            long: vec![Box::default(); codes],
        };
        for (label, code) in leaves {
            let b = label.as_bytes();
            if b.len() > 16 {
                index.long[code as usize] = b.into();
            }
            let (x, y) = Self::words(b);
            let mut i = index.slot(x, y, b.len());
            while index.short[i].2 != 0 {
                i = (i + 1) & (cap - 1);
            }
            index.short[i] = (x, y, b.len() as u32 + 1, code);
        }
        index
    }

    /// The first and last 8 bytes (zero-padded below 8): with the length,
    /// they are the whole label when it has at most 16 bytes.
    /// Short labels are assembled from overlapping loads (copying them into a
    /// zeroed buffer and loading it back stalled on every value).
    #[inline(always)]
    fn words(b: &[u8]) -> (u64, u64) {
        let n = b.len();
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes")) as u64;
        match n {
            8.. => (u64_at(0), u64_at(n - 8)),
            // the two halves overlap on equal bytes, so OR puts each in place
            4..=7 => (u32_at(0) | (u32_at(n - 4) << (8 * (n - 4))), 0),
            1..=3 => {
                let at = |i: usize| (b[i] as u64) << (8 * i);
                (at(0) | at(n / 2) | at(n - 1), 0)
            }
            0 => (0, 0),
        }
    }

    #[inline(always)]
    fn slot(&self, x: u64, y: u64, len: usize) -> usize {
        let h = (x ^ y.rotate_left(29) ^ ((len as u64) << 56)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - self.bits)) as usize
    }

    #[inline(always)]
    fn get(&self, b: &[u8]) -> Option<u32> {
        let (x, y) = Self::words(b);
        let len = b.len() as u32 + 1;
        let mask = self.short.len() - 1;
        let mut i = self.slot(x, y, b.len());
        loop {
            let e = self.short[i];
            if e.2 == len
                && e.0 == x
                && e.1 == y
                && (b.len() <= 16 || *self.long[e.3 as usize] == *b)
            {
                return Some(e.3);
            }
            if e.2 == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }
}

#[derive(Serialize, Deserialize)]
struct HierarchyJson {
    format: String,
    rows: Vec<Vec<String>>,
}

const JSON_FORMAT: &str = "polars-anon/hierarchy-v1";

impl Hierarchy {
    /// Build from rows (leaf first, most general last). `source` names the
    /// origin (a file path, or "rows") in error messages.
    pub fn from_rows(rows: Vec<Vec<String>>, source: &str) -> Result<Self> {
        let err = |msg: String| AnonError::Hierarchy(format!("{source}: {msg}"));
        if rows.is_empty() {
            return Err(err("empty hierarchy: it has no rows".into()));
        }
        let width = rows[0].len();
        if width == 0 {
            return Err(err("row 1 has no values".into()));
        }
        for (r, row) in rows.iter().enumerate() {
            if row.len() != width {
                return Err(err(format!(
                    "row {} has {} value(s), expected {} like row 1 (ragged rows: every leaf needs a value at every level): {}",
                    r + 1,
                    row.len(),
                    width,
                    show_values(row, 8)
                )));
            }
            if let Some(c) = row.iter().position(|v| v.is_empty()) {
                return Err(err(format!(
                    "row {} has an empty value at level {}",
                    r + 1,
                    c
                )));
            }
        }
        let mut labels: Vec<Vec<String>> = vec![Vec::new(); width];
        let mut index: Vec<HashMap<String, u32>> = vec![HashMap::new(); width];
        let mut leaf_to: Vec<Vec<u32>> = vec![Vec::with_capacity(rows.len()); width];
        // first row at which each level-l code was seen, to name both rows on conflict
        let mut first_row: Vec<Vec<usize>> = vec![Vec::new(); width];
        for (r, row) in rows.iter().enumerate() {
            for (l, value) in row.iter().enumerate() {
                let code = match index[l].get(value) {
                    Some(&c) => {
                        if l == 0 {
                            return Err(err(format!(
                                "leaf value {:?} appears twice, in rows {} and {}",
                                value,
                                first_row[0][c as usize] + 1,
                                r + 1
                            )));
                        }
                        c
                    }
                    None => {
                        let c = labels[l].len() as u32;
                        labels[l].push(value.clone());
                        index[l].insert(value.clone(), c);
                        first_row[l].push(r);
                        c
                    }
                };
                leaf_to[l].push(code);
            }
        }
        // tree check: each value on level l has exactly one parent on level l+1
        let mut parent: Vec<Vec<u32>> = Vec::with_capacity(width.saturating_sub(1));
        for l in 0..width - 1 {
            let mut up = vec![u32::MAX; labels[l].len()];
            let mut seen_at = vec![0usize; labels[l].len()];
            for (r, (&c, &p)) in leaf_to[l].iter().zip(&leaf_to[l + 1]).enumerate() {
                let c = c as usize;
                if up[c] == u32::MAX {
                    up[c] = p;
                    seen_at[c] = r;
                } else if up[c] != p {
                    return Err(err(format!(
                        "not a tree: value {:?} at level {} has two parents at level {}: {:?} (row {}) and {:?} (row {})",
                        labels[l][c],
                        l,
                        l + 1,
                        labels[l + 1][up[c] as usize],
                        seen_at[c] + 1,
                        labels[l + 1][p as usize],
                        r + 1
                    )));
                }
            }
            parent.push(up);
        }
        let top = &labels[width - 1];
        if width > 1 && top.len() > 1 {
            return Err(err(format!(
                "the top level {} has {} values ({}); a hierarchy needs exactly one value at its top (ARX uses '*')",
                width - 1,
                top.len(),
                show_values(top, 8)
            )));
        }
        let leaf_index = LeafIndex::new(index.swap_remove(0).into_iter().collect());
        Ok(Hierarchy {
            rows,
            labels,
            leaf_to,
            parent,
            leaf_index,
        })
    }

    /// A hierarchy of height 0: the values themselves and no generalization.
    pub fn identity<S: AsRef<str>>(values: &[S]) -> Result<Self> {
        let rows = values
            .iter()
            .map(|v| vec![v.as_ref().to_string()])
            .collect();
        Self::from_rows(rows, "identity hierarchy")
    }

    /// Parse ARX's CSV layout: no header, one row per leaf, `sep` between levels.
    pub fn from_csv_str(text: &str, sep: u8, source: &str) -> Result<Self> {
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
            rows.push(record.iter().map(|f| f.to_string()).collect());
        }
        Self::from_rows(rows, source)
    }

    pub fn from_csv_path(path: &std::path::Path, sep: u8) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| AnonError::Hierarchy(format!("{}: cannot read: {e}", path.display())))?;
        Self::from_csv_str(&text, sep, &path.display().to_string())
    }

    pub fn to_csv_string(&self, sep: u8) -> String {
        let mut w = csv::WriterBuilder::new().delimiter(sep).from_writer(vec![]);
        for row in &self.rows {
            // writing to a Vec cannot fail
            w.write_record(row).expect("in-memory csv write");
        }
        String::from_utf8(w.into_inner().expect("in-memory csv flush")).expect("utf-8")
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(&HierarchyJson {
            format: JSON_FORMAT.into(),
            rows: self.rows.clone(),
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

    /// Number of generalization steps above the leaves.
    pub fn height(&self) -> u8 {
        (self.labels.len() - 1) as u8
    }
    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }
    /// Distinct labels per level, in order of first appearance.
    pub fn levels(&self) -> &[Vec<String>] {
        &self.labels
    }
    pub fn leaves(&self) -> &[String] {
        &self.labels[0]
    }
    /// Number of distinct values at `level`.
    pub fn domain_size(&self, level: u8) -> usize {
        self.labels[level as usize].len()
    }
    /// Leaf code -> code at `level`.
    pub fn leaf_map(&self, level: u8) -> &[u32] {
        &self.leaf_to[level as usize]
    }
    /// Label of every leaf at `level` (aligned with `leaves()`).
    pub fn leaf_labels(&self, level: u8) -> Vec<&str> {
        let l = level as usize;
        self.leaf_to[l]
            .iter()
            .map(|&c| self.labels[l][c as usize].as_str())
            .collect()
    }
    /// Map from codes at level `from` to codes at level `to` (`from <= to`).
    pub fn map_between(&self, from: u8, to: u8) -> Vec<u32> {
        assert!(
            from <= to && to <= self.height(),
            "bad level pair {from}->{to}"
        );
        let mut map: Vec<u32> = (0..self.domain_size(from) as u32).collect();
        for l in from..to {
            let up = &self.parent[l as usize];
            for c in map.iter_mut() {
                *c = up[*c as usize];
            }
        }
        map
    }

    /// Leaf codes of `values`; nulls and values the hierarchy lacks are errors
    /// naming `column` and the values.
    pub fn encode(&self, column: &str, values: &[Option<&str>]) -> Result<Vec<u32>> {
        let mut e = self.encoder(column, values.len());
        for v in values {
            e.push(*v, 1);
        }
        e.finish()
    }

    /// Encodes values one at a time (from Arrow buffers, say); see `Encoder`.
    pub fn encoder(&self, column: &str, capacity: usize) -> Encoder<'_> {
        Encoder {
            h: self,
            column: column.to_string(),
            out: Vec::with_capacity(capacity),
            missing: Vec::new(),
            nulls: 0,
            ints: Vec::new(),
            views: Vec::new(),
            views_n: 0,
        }
    }
}

/// Leaf codes of a column's values, gathering what is wrong (nulls, weighted
/// by the tuples they stand for, and distinct values the hierarchy lacks) for
/// one error at the end.
pub struct Encoder<'h> {
    h: &'h Hierarchy,
    column: String,
    out: Vec<u32>,
    missing: Vec<String>,
    nulls: u64,
    /// Leaf code of each small integer value seen (`push_int`).
    ints: Vec<u32>,
    /// (view words, leaf code) of the short strings seen (`push_view`).
    views: Vec<(u64, u64, u32)>,
    views_n: usize,
}

/// Slots of `Encoder::views` (a power of two); up to half are filled.
const VIEW_SLOTS: usize = 256;
/// A code standing for "not a leaf" (the value was reported missing).
const MISSING: u32 = u32::MAX - 1;
/// An empty slot of `Encoder::views`.
const UNSEEN: u32 = u32::MAX;

/// Integer values below this are remembered by value (`Encoder::push_int`).
const SMALL_INTS: usize = 4096;

impl Encoder<'_> {
    /// One value standing for `weight` tuples.
    pub fn push(&mut self, value: Option<&str>, weight: u64) {
        self.push_bytes(value.map(str::as_bytes), weight)
    }

    /// One value as bytes (UTF-8 is not checked: invalid bytes match no leaf
    /// and are reported, lossily decoded, as missing).
    #[inline(always)]
    pub fn push_bytes(&mut self, value: Option<&[u8]>, weight: u64) {
        match value {
            None => self.nulls += weight,
            Some(b) => {
                self.lookup(b);
            }
        }
    }

    /// Push the leaf code of `b`, or note it missing; returns the code or
    /// `MISSING`.
    #[inline(always)]
    fn lookup(&mut self, b: &[u8]) -> u32 {
        match self.h.leaf_index.get(b) {
            Some(c) => {
                self.out.push(c);
                c
            }
            None => {
                let s = String::from_utf8_lossy(b);
                if !self.missing.iter().any(|m| *m == s) {
                    self.missing.push(s.into_owned())
                }
                MISSING
            }
        }
    }

    /// A string of at most 12 bytes from an Arrow string view: `lo` and `hi`
    /// are the view's 16 bytes (its length, then the string inline), which
    /// determine the string, so a value seen before is found by them alone,
    /// without looking at its length (measured on Adult's short columns:
    /// ~8-15 -> ~3-4 ns a value).
    #[inline(always)]
    pub fn push_view(&mut self, lo: u64, hi: u64, b: &[u8]) {
        if self.views.is_empty() {
            self.views = vec![(0, 0, UNSEEN); VIEW_SLOTS];
        }
        let h = (lo ^ hi.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut i = (h >> (64 - VIEW_SLOTS.trailing_zeros())) as usize;
        loop {
            let (x, y, c) = self.views[i];
            if c == UNSEEN {
                break;
            }
            if x == lo && y == hi {
                if c != MISSING {
                    self.out.push(c);
                }
                return;
            }
            i = (i + 1) & (VIEW_SLOTS - 1);
        }
        let c = self.lookup(b);
        if self.views_n < VIEW_SLOTS / 2 {
            self.views[i] = (lo, hi, c);
            self.views_n += 1;
        }
    }

    /// One integer value, which stands for its decimal string. Small
    /// non-negative values (ages, years) are looked up once each and then
    /// found by value.
    #[inline(always)]
    pub fn push_int(&mut self, v: i64, weight: u64) {
        if !(0..SMALL_INTS as i64).contains(&v) {
            let mut text = [0u8; 20];
            return self.push_bytes(Some(decimal(v, &mut text)), weight);
        }
        if self.ints.is_empty() {
            self.ints = vec![UNSEEN; SMALL_INTS];
        }
        match self.ints[v as usize] {
            MISSING => {} // reported once, as every missing value
            UNSEEN => {
                let mut text = [0u8; 20];
                self.ints[v as usize] = self.lookup(decimal(v, &mut text));
            }
            c => self.out.push(c),
        }
    }

    pub fn finish(self) -> Result<Vec<u32>> {
        if self.nulls > 0 {
            return Err(AnonError::NullValues {
                column: self.column,
                count: self.nulls,
            });
        }
        if !self.missing.is_empty() {
            return Err(AnonError::MissingValues {
                column: self.column,
                count: self.missing.len(),
                shown: show_values(&self.missing, 10),
            });
        }
        Ok(self.out)
    }
}

/// `v` in decimal, written at the end of `text` (20 bytes hold any i64).
pub(crate) fn decimal(v: i64, text: &mut [u8; 20]) -> &[u8] {
    let mut n = v.unsigned_abs();
    let mut at = text.len();
    loop {
        at -= 1;
        text[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        at -= 1;
        text[at] = b'-';
    }
    &text[at..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(spec: &[&[&str]]) -> Vec<Vec<String>> {
        spec.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    fn zipcode() -> Hierarchy {
        Hierarchy::from_csv_str(
            "53715;5371*;537**\n53710;5371*;537**\n53706;5370*;537**\n53703;5370*;537**\n",
            b';',
            "zip.csv",
        )
        .unwrap()
    }

    #[test]
    fn leaf_index_finds_every_label_and_nothing_else() {
        // lengths around the 8- and 16-byte words, shared prefixes and
        // suffixes, a NUL byte, and long labels that agree in their length and
        // first and last 8 bytes
        let labels: Vec<String> = [
            "",
            "a",
            "a\0",
            "ab",
            "abc",
            "abd",
            "abcd",
            "abce",
            "abcde",
            "abcdef",
            "bbcdef",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "xbcdefghi",
            "abcdefgxi",
            "0123456789abcdef",
            "0123456789abcdeF",
            "0123456789abcdefg",
            "Married-civ-spouse",
            "Married-AF-spouse",
            "Married-XX-spouse",
            "Married-civ-spouse-too",
            "United-States",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let index = LeafIndex::new(labels.iter().cloned().zip(0u32..).collect());
        for (code, l) in labels.iter().enumerate() {
            assert_eq!(index.get(l.as_bytes()), Some(code as u32), "{l:?}");
        }
        for absent in [
            "b",
            "ab\0",
            "acb",
            "abcdf",
            "a\0\0",
            "abcdefgh\0",
            "abcdefghij",
            "0123456789abcde",
            "Married-civ-spous",
            "Married-AB-spouse",
            "Married-civ-Spouse",
            "Married-civ-spouse-to",
        ] {
            assert_eq!(index.get(absent.as_bytes()), None, "{absent:?}");
        }
        // the same labels in another order give an equal index
        let mut shuffled: Vec<(String, u32)> = labels.iter().cloned().zip(0u32..).collect();
        shuffled.reverse();
        assert_eq!(LeafIndex::new(shuffled), index);
    }

    #[test]
    fn parses_levels_and_maps() {
        let h = zipcode();
        assert_eq!(h.height(), 2);
        assert_eq!(h.levels()[1], vec!["5371*", "5370*"]);
        assert_eq!(h.leaf_map(1), &[0, 0, 1, 1]);
        assert_eq!(h.map_between(1, 2), vec![0, 0]);
        assert_eq!(h.map_between(0, 1), vec![0, 0, 1, 1]);
        assert_eq!(h.leaf_labels(2), vec!["537**"; 4]);
    }

    #[test]
    fn json_and_csv_round_trip() {
        let h = zipcode();
        assert_eq!(Hierarchy::from_json(&h.to_json(), "j").unwrap(), h);
        assert_eq!(
            Hierarchy::from_csv_str(&h.to_csv_string(b','), b',', "c").unwrap(),
            h
        );
    }

    #[test]
    fn rejects_bad_hierarchies_naming_the_problem() {
        let e = Hierarchy::from_rows(vec![], "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("f.csv") && e.contains("empty"), "{e}");
        let e = Hierarchy::from_rows(rows(&[&["a", "*"], &["b"]]), "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 2") && e.contains("ragged"), "{e}");
        let e = Hierarchy::from_rows(rows(&[&["a", "*"], &["a", "*"]]), "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"a\"") && e.contains("rows 1 and 2"), "{e}");
        let e = Hierarchy::from_rows(
            rows(&[
                &["a", "x", "*"],
                &["b", "y", "*"],
                &["c", "x", "*"],
                &["d", "x", "+"],
            ]),
            "f.csv",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("not a tree") && e.contains("\"x\"") && e.contains("row 4"),
            "{e}"
        );
        let e = Hierarchy::from_rows(rows(&[&["a", "*"], &["b", "+"]]), "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("top level") && e.contains("\"+\""), "{e}");
    }

    #[test]
    fn encode_names_missing_values_and_nulls() {
        let h = zipcode();
        assert_eq!(
            h.encode("zip", &[Some("53703"), Some("53715")]).unwrap(),
            vec![3, 0]
        );
        let e = h
            .encode("zip", &[Some("99999"), Some("53703"), Some("11111")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'zip'") && e.contains("\"99999\"") && e.contains("\"11111\""),
            "{e}"
        );
        let e = h.encode("zip", &[None]).unwrap_err().to_string();
        assert!(e.contains("'zip'") && e.contains("null"), "{e}");
    }

    #[test]
    fn short_strings_encode_by_their_views() {
        // 300 leaves: more than the views remembered, so later ones are
        // looked up every time
        let leaves: Vec<String> = (0..300).map(|i| format!("v{i}")).collect();
        let h = Hierarchy::from_rows(
            leaves.iter().map(|l| vec![l.clone(), "*".into()]).collect(),
            "v",
        )
        .unwrap();
        let view = |s: &str| {
            let mut v = [0u8; 16];
            v[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
            v[4..4 + s.len()].copy_from_slice(s.as_bytes());
            (
                u64::from_le_bytes(v[..8].try_into().unwrap()),
                u64::from_le_bytes(v[8..].try_into().unwrap()),
            )
        };
        let values: Vec<String> = (0..2000)
            .map(|i| format!("v{}", (i * 7919) % 300))
            .collect();
        let mut e = h.encoder("v", values.len());
        for v in &values {
            let (lo, hi) = view(v);
            e.push_view(lo, hi, v.as_bytes());
        }
        let by_text: Vec<Option<&str>> = values.iter().map(|v| Some(v.as_str())).collect();
        assert_eq!(e.finish().unwrap(), h.encode("v", &by_text).unwrap());
        // values that are no leaf are reported once each, also when seen again
        let mut e = h.encoder("v", 4);
        for v in ["v1", "x", "v1", "x", "y", "x"] {
            let (lo, hi) = view(v);
            e.push_view(lo, hi, v.as_bytes());
        }
        let err = e.finish().unwrap_err().to_string();
        assert!(
            err.contains("2 distinct value") && err.contains("\"x\", \"y\""),
            "{err}"
        );
    }

    #[test]
    fn integers_encode_as_their_decimal_strings() {
        let h = Hierarchy::from_rows(
            rows(&[&["-3", "*"], &["7", "*"], &["4095", "*"], &["53703", "*"]]),
            "ints",
        )
        .unwrap();
        let values = [7i64, 53703, -3, 4095, 7, 7, 53703];
        let mut e = h.encoder("n", values.len());
        for &v in &values {
            e.push_int(v, 1);
        }
        let texts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let as_text: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
        assert_eq!(e.finish().unwrap(), h.encode("n", &as_text).unwrap());
        // a missing small value is remembered and reported once, with the others
        let mut e = h.encoder("n", 4);
        for v in [8i64, 7, 8, 4096, i64::MIN] {
            e.push_int(v, 1);
        }
        let err = e.finish().unwrap_err().to_string();
        assert!(
            err.contains("'n'")
                && err.contains("3 distinct value")
                && err.contains("\"8\"")
                && err.contains("\"4096\"")
                && err.contains("\"-9223372036854775808\""),
            "{err}"
        );
    }
}
