//! Value generalization hierarchies: the tree over a column's values.
//!
//! Inside, every level is a dense code space: `labels[l][c]` is the label of code
//! `c` at level `l`, `leaf_to[l][leaf]` maps a leaf code to its code at level `l`
//! and `parent[l][c]` maps a level-`l` code one level up. These arrays are what a
//! rollup gathers through. Reading and writing (ARX's CSV layout, JSON) is in
//! [`io`]; turning a column's values into leaf codes is in [`encode`].

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{show_values, AnonError, Result};
use crate::hash::FxBuild;

mod encode;
mod io;
mod labels;

pub use encode::Encoder;
use encode::LeafIndex;
pub use labels::Labels;

/// Levels a hierarchy may have: heights are `u8`, and the searches keep the
/// value 255 to mean "no level" (an attribute absent from a node).
pub const MAX_LEVELS: usize = 255;

/// A hierarchy shares its tree: cloning one (as every call that takes it
/// from Python does) costs a reference count, not a copy of its labels, which
/// for a large hierarchy (ZIP codes) costs more than the search.
#[derive(Clone, Debug, PartialEq)]
pub struct Hierarchy {
    t: Arc<Tree>,
}

#[derive(Debug, PartialEq)]
struct Tree {
    // the rows are not kept: row r is `labels[l][leaf_to[l][r]]` for each
    // level l (a ZIP hierarchy's 600,000 cells as strings cost more to
    // allocate and free than building the tree)
    labels: Vec<Labels>,
    leaf_to: Vec<Vec<u32>>,
    parent: Vec<Vec<u32>>,
    /// Leaf label bytes -> leaf code.
    leaf_index: LeafIndex,
}

impl Hierarchy {
    /// Build from rows (leaf first, most general last). `source` names the
    /// origin (a file path, or "rows") in error messages.
    pub fn from_rows(rows: Vec<Vec<String>>, source: &str) -> Result<Self> {
        Self::build(&rows, source)
    }

    /// `from_rows` over any rows of text (a CSV file's cells borrowed from
    /// its text): only the distinct labels are copied.
    pub(crate) fn build<R, S>(rows: &[R], source: &str) -> Result<Self>
    where
        R: AsRef<[S]>,
        S: AsRef<str>,
    {
        let err = |msg: String| AnonError::Hierarchy(format!("{source}: {msg}"));
        let same = |a: &R, b: &R| {
            let (a, b) = (a.as_ref(), b.as_ref());
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.as_ref() == y.as_ref())
        };
        if rows.is_empty() {
            return Err(err("empty hierarchy: it has no rows".into()));
        }
        let width = rows[0].as_ref().len();
        if width == 0 {
            return Err(err("row 1 has no values".into()));
        }
        if width > MAX_LEVELS {
            return Err(err(format!(
                "{width} levels (height {}); at most {MAX_LEVELS} levels (height {}) are supported",
                width - 1,
                MAX_LEVELS - 1
            )));
        }
        let mut level_bytes = vec![0usize; width];
        for (r, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            if row.len() != width {
                return Err(err(format!(
                    "row {} has {} value(s), expected {} like row 1 (ragged rows: every leaf needs a value at every level): {}",
                    r + 1,
                    row.len(),
                    width,
                    show_values(row, 8)
                )));
            }
            if let Some(c) = row.iter().position(|v| v.as_ref().is_empty()) {
                return Err(err(format!(
                    "row {} has an empty value at level {}",
                    r + 1,
                    c
                )));
            }
            for (bytes, v) in level_bytes.iter_mut().zip(row) {
                *bytes += v.as_ref().len();
            }
        }
        // a level's labels sit in one buffer addressed by u32 (`Labels`)
        if let Some(l) = level_bytes.iter().position(|&b| b > labels::MAX_BYTES) {
            return Err(err(format!(
                "the labels of level {l} hold more than {} bytes",
                labels::MAX_BYTES
            )));
        }
        // A row repeated exactly (ARX writes such files, and users keep them)
        // is taken once; a leaf with two different rows is an error.
        let mut first: HashMap<&str, usize, FxBuild> =
            HashMap::with_capacity_and_hasher(rows.len(), FxBuild::default());
        let mut line: Vec<usize> = Vec::with_capacity(rows.len());
        for (r, row) in rows.iter().enumerate() {
            let leaf = row.as_ref()[0].as_ref();
            // one lookup a row: a new leaf, or a repeat that must be the same row
            let f = match first.entry(leaf) {
                Entry::Vacant(v) => {
                    v.insert(r);
                    line.push(r + 1);
                    continue;
                }
                Entry::Occupied(o) => *o.get(),
            };
            if !same(&rows[f], row) {
                return Err(err(format!(
                    "leaf value {:?} appears twice with different generalizations, in rows {} ({}) and {} ({})",
                    leaf,
                    f + 1,
                    show_values(rows[f].as_ref(), 8),
                    r + 1,
                    show_values(row.as_ref(), 8)
                )));
            }
        }
        drop(first);
        let rows: Vec<&[S]> = line.iter().map(|&l| rows[l - 1].as_ref()).collect();
        let mut labels: Vec<Labels> = vec![Labels::default(); width];
        // labels by their text, borrowed from the rows (a ZIP hierarchy has
        // 600,000 cells: SipHash and a copy of each key were most of a load);
        // leaves are distinct once repeated rows are gone, so a leaf's code is
        // its row, and a label the row above had (files list the leaves of a
        // group together) is taken without a lookup
        let mut index: Vec<HashMap<&str, u32, FxBuild>> =
            vec![HashMap::with_hasher(FxBuild::default()); width];
        let mut leaf_to: Vec<Vec<u32>> = vec![Vec::with_capacity(rows.len()); width];
        let bytes = rows.iter().map(|r| r[0].as_ref().len()).sum();
        labels[0] = Labels::with_capacity(rows.len(), bytes);
        for r in &rows {
            labels[0].push(r[0].as_ref());
        }
        leaf_to[0] = (0..rows.len() as u32).collect();
        for (r, row) in rows.iter().enumerate() {
            for (l, value) in row.iter().enumerate().skip(1) {
                let value = value.as_ref();
                let code = match r {
                    1.. if rows[r - 1][l].as_ref() == value => leaf_to[l][r - 1],
                    _ => {
                        let next = labels[l].len() as u32;
                        *index[l].entry(value).or_insert_with(|| {
                            labels[l].push(value);
                            next
                        })
                    }
                };
                leaf_to[l].push(code);
            }
        }
        drop(index);
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
                        &labels[l][c],
                        l,
                        l + 1,
                        &labels[l + 1][up[c] as usize],
                        line[seen_at[c]],
                        &labels[l + 1][p as usize],
                        line[r]
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
                show_values(&top.to_vec(), 8)
            )));
        }
        if labels[0].len() > encode::MAX_LEAVES {
            return Err(err(format!(
                "{} leaves: a hierarchy may have at most {}",
                labels[0].len(),
                encode::MAX_LEAVES
            )));
        }
        let leaf_index = LeafIndex::new(&labels[0]);
        Ok(Hierarchy {
            t: Arc::new(Tree {
                labels,
                leaf_to,
                parent,
                leaf_index,
            }),
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

    /// Number of generalization steps above the leaves.
    pub fn height(&self) -> u8 {
        (self.t.labels.len() - 1) as u8
    }
    /// The rows, leaf first (repeated rows of the source taken once).
    pub fn rows(&self) -> Vec<Vec<&str>> {
        let t = &self.t;
        (0..t.labels[0].len())
            .map(|r| {
                (t.labels.iter().zip(&t.leaf_to))
                    .map(|(labels, to)| &labels[to[r] as usize])
                    .collect()
            })
            .collect()
    }
    /// `rows` as owned strings (JSON, Python).
    pub fn owned_rows(&self) -> Vec<Vec<String>> {
        (self.rows().into_iter())
            .map(|r| r.into_iter().map(str::to_string).collect())
            .collect()
    }
    /// Distinct labels per level, in order of first appearance.
    pub fn levels(&self) -> &[Labels] {
        &self.t.labels
    }
    pub fn leaves(&self) -> &Labels {
        &self.t.labels[0]
    }
    /// Number of distinct values at `level`.
    pub fn domain_size(&self, level: u8) -> usize {
        self.t.labels[level as usize].len()
    }
    /// Leaf code -> code at `level`.
    pub fn leaf_map(&self, level: u8) -> &[u32] {
        &self.t.leaf_to[level as usize]
    }
    /// Label of every leaf at `level` (aligned with `leaves()`).
    pub fn leaf_labels(&self, level: u8) -> Vec<&str> {
        let l = level as usize;
        self.t.leaf_to[l]
            .iter()
            .map(|&c| &self.t.labels[l][c as usize])
            .collect()
    }
    /// How many leaves each code at `level` stands for.
    pub fn leaves_under(&self, level: u8) -> Vec<u32> {
        let mut under = vec![0u32; self.domain_size(level)];
        for &c in &self.t.leaf_to[level as usize] {
            under[c as usize] += 1;
        }
        under
    }
    /// Map from codes at level `from` to codes at level `to` (`from <= to`).
    pub fn map_between(&self, from: u8, to: u8) -> Vec<u32> {
        assert!(
            from <= to && to <= self.height(),
            "bad level pair {from}->{to}"
        );
        let mut map: Vec<u32> = (0..self.domain_size(from) as u32).collect();
        for l in from..to {
            let up = &self.t.parent[l as usize];
            for c in map.iter_mut() {
                *c = up[*c as usize];
            }
        }
        map
    }
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
        let index = LeafIndex::new(&labels.iter().collect());
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
        // the same leaves give an equal index (hierarchies compare by it)
        assert_eq!(LeafIndex::new(&labels.iter().collect()), index);
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
    fn plain_csv_is_split_in_place_as_the_csv_reader_reads_it() {
        // the same cells: quoted (the csv reader), and plain with CRLF,
        // a byte-order mark, blank lines and repeated rows (split in place)
        let quoted = "\"a b\";\"x\";\"*\"\n\"c\";\"x\";\"*\"\n\"d\";\"y\";\"*\"\n";
        let plain = "\u{feff}a b;x;*\r\n\r\nc;x;*\r\n ; \nd;y;*\r\nc;x;*";
        let want = Hierarchy::from_csv_str(quoted, b';', "q").unwrap();
        let got = Hierarchy::from_csv_str(plain, b';', "p").unwrap();
        assert_eq!(got, want);
        assert_eq!(
            got.rows(),
            vec![
                vec!["a b", "x", "*"],
                vec!["c", "x", "*"],
                vec!["d", "y", "*"]
            ]
        );
        // a lone CR ends a line for the csv reader: read by it
        let cr = Hierarchy::from_csv_str("a b;x;*\rc;x;*\nd;y;*", b';', "r").unwrap();
        assert_eq!(cr, want);
        // errors name the row as before
        let e = Hierarchy::from_csv_str("a;x;*\nb;x\n", b';', "f.csv").unwrap_err();
        assert!(e.to_string().contains("row 2 has 2 value(s)"), "{e}");
        let e = Hierarchy::from_csv_str("a;x;*\na;y;*\n", b';', "f.csv").unwrap_err();
        assert!(e.to_string().contains("appears twice"), "{e}");
    }

    #[test]
    fn rejects_bad_hierarchies_naming_the_problem() {
        let e = Hierarchy::from_rows(Vec::new(), "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("f.csv") && e.contains("empty"), "{e}");
        let e = Hierarchy::from_rows(rows(&[&["a", "*"], &["b"]]), "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 2") && e.contains("ragged"), "{e}");
        // a row repeated exactly is taken once; two different rows for a
        // leaf are an error naming both, and later rows keep their numbers
        let h =
            Hierarchy::from_rows(rows(&[&["a", "*"], &["a", "*"], &["b", "*"]]), "f.csv").unwrap();
        assert_eq!(*h.leaves(), ["a", "b"]);
        assert_eq!(h.rows().len(), 2);
        let e = Hierarchy::from_rows(rows(&[&["a", "x", "*"], &["a", "y", "*"]]), "f.csv")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"a\"")
                && e.contains("rows 1")
                && e.contains("and 2")
                && e.contains("\"y\""),
            "{e}"
        );
        let e = Hierarchy::from_rows(
            rows(&[
                &["a", "x", "*"],
                &["a", "x", "*"],
                &["b", "y", "*"],
                &["c", "x", "+"],
            ]),
            "f.csv",
        )
        .unwrap_err()
        .to_string();
        // the row numbers are the file's, counting the repeated row
        assert!(
            e.contains("not a tree") && e.contains("\"+\" (row 4)"),
            "{e}"
        );
        let e = Hierarchy::from_rows(
            rows(&[
                &["a", "x", "*"],
                &["a", "x", "*"],
                &["c", "x", "*"],
                &["d", "y", "*"],
                &["c2", "y", "*"],
                &["e", "x", "-"],
            ]),
            "f.csv",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("not a tree") && e.contains("row 6"), "{e}");
        // a file separated by commas read with ';'
        let e = Hierarchy::from_csv_str("a,x,*\nb,x,*\n", b';', "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("pass sep=','"), "{e}");
        // deeper than the supported levels
        let deep: Vec<String> = (0..300).map(|l| format!("v{l}")).collect();
        let e = Hierarchy::from_rows(vec![deep], "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("300 levels") && e.contains("at most 255"), "{e}");
        let ok: Vec<String> = (0..255).map(|l| format!("v{l}")).collect();
        assert_eq!(
            Hierarchy::from_rows(vec![ok], "f.csv").unwrap().height(),
            254
        );
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
    fn string_views_encode_as_their_bytes() {
        // 3,000 leaves (a table probed in prefetched batches), short and
        // long; views as Arrow lays them out: up to 12 bytes inline, longer
        // ones as a prefix, a buffer index and an offset into `data`
        let leaves: Vec<String> = (0..3000)
            .map(|i| match i % 3 {
                0 => format!("v{i}"),
                1 => format!("value-{i}"),
                _ => format!("a-much-longer-label-{i}"),
            })
            .collect();
        let h = Hierarchy::from_rows(
            leaves.iter().map(|l| vec![l.clone(), "*".into()]).collect(),
            "v",
        )
        .unwrap();
        let mut data: Vec<u8> = Vec::new();
        let mut view = |s: &str| {
            let mut v = [0u8; 16];
            v[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
            if s.len() <= 12 {
                v[4..4 + s.len()].copy_from_slice(s.as_bytes());
            } else {
                v[4..8].copy_from_slice(&s.as_bytes()[..4]);
                v[12..].copy_from_slice(&(data.len() as u32).to_le_bytes());
                data.extend_from_slice(s.as_bytes());
            }
            v
        };
        let values: Vec<String> = (0..20000)
            .map(|i| leaves[(i * 7919) % 3000].clone())
            .collect();
        let views: Vec<[u8; 16]> = values.iter().map(|v| view(v)).collect();
        let long = |v: &[u8; 16]| {
            let n = u32::from_le_bytes(v[..4].try_into().unwrap()) as usize;
            let o = u32::from_le_bytes(v[12..].try_into().unwrap()) as usize;
            data.get(o..o + n)
        };
        let mut e = h.encoder("v", values.len());
        assert!(e.push_views(&views, long));
        let by_text: Vec<Option<&str>> = values.iter().map(|v| Some(v.as_str())).collect();
        let want = h.encode("v", &by_text).unwrap();
        assert_eq!(
            want.iter()
                .map(|&c| &h.leaves()[c as usize])
                .collect::<Vec<_>>(),
            values.iter().map(String::as_str).collect::<Vec<_>>()
        );
        assert_eq!(e.finish().unwrap(), want);
        // a short view with bytes after its string (Arrow pads with zeros,
        // a producer might not) is still found by its bytes
        let mut padded = views[0];
        let n = values[0].len();
        assert!(n < 12);
        padded[4 + n..].fill(0xAB);
        let mut e = h.encoder("v", 1);
        assert!(e.push_views(&[padded], long));
        assert_eq!(e.finish().unwrap(), vec![want[0]]);
        // values that are no leaf are reported once each, also when seen
        // again; a long view outside its buffer is refused
        let mut other: Vec<u8> = Vec::new();
        let missing: Vec<[u8; 16]> = ["v3", "x", "v3", "x", "a-much-longer-label-x", "x"]
            .iter()
            .map(|s| {
                let mut v = [0u8; 16];
                v[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
                if s.len() <= 12 {
                    v[4..4 + s.len()].copy_from_slice(s.as_bytes());
                } else {
                    v[12..].copy_from_slice(&(other.len() as u32).to_le_bytes());
                    other.extend_from_slice(s.as_bytes());
                }
                v
            })
            .collect();
        let long_other = |v: &[u8; 16]| {
            let n = u32::from_le_bytes(v[..4].try_into().unwrap()) as usize;
            let o = u32::from_le_bytes(v[12..].try_into().unwrap()) as usize;
            other.get(o..o + n)
        };
        let mut e = h.encoder("v", 4);
        assert!(e.push_views(&missing, long_other));
        let err = e.finish().unwrap_err().to_string();
        assert!(
            err.contains("2 distinct value") && err.contains("\"x\", \"a-much-longer-label-x\""),
            "{err}"
        );
        let mut e = h.encoder("v", 1);
        assert!(!e.push_views(&missing[4..5], |_| None));
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
            e.push_int(v);
        }
        let texts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let as_text: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
        assert_eq!(e.finish().unwrap(), h.encode("n", &as_text).unwrap());
        // more distinct values than are remembered (512): the later ones are
        // looked up every time, with the same codes
        let many = Hierarchy::from_rows(
            (0..2000)
                .map(|i| vec![(i * 1000 - 7).to_string(), "*".into()])
                .collect(),
            "many",
        )
        .unwrap();
        let values: Vec<i64> = (0..10_000).map(|i| (i * 7919 % 2000) * 1000 - 7).collect();
        let mut e = many.encoder("n", values.len());
        e.push_ints(&values);
        let texts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let as_text: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
        assert_eq!(e.finish().unwrap(), many.encode("n", &as_text).unwrap());
        // a missing value is remembered and reported once, with the others
        let mut e = h.encoder("n", 4);
        for v in [8i64, 7, 8, 4096, i64::MIN] {
            e.push_int(v);
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
        // a chunk of values in a range small beside its length goes through
        // a table by value: the same codes as one by one, values on both
        // sides of zero, and the missing ones reported alike
        let small = Hierarchy::from_rows(
            (-40..60)
                .filter(|i| i % 17 != 0)
                .map(|i: i64| vec![i.to_string(), "*".into()])
                .collect(),
            "small",
        )
        .unwrap();
        let values: Vec<i64> = (0..5_000).map(|i| (i * 37) % 100 - 40).collect();
        let mut e = small.encoder("n", values.len());
        e.push_ints(&values);
        let mut one = small.encoder("n", values.len());
        for &v in &values {
            one.push_int(v);
        }
        let (dense, single) = (e.finish().unwrap_err(), one.finish().unwrap_err());
        assert_eq!(dense.to_string(), single.to_string());
        assert!(dense.to_string().contains("6 distinct value"), "{dense}");
        let present: Vec<i64> = values.into_iter().filter(|v| v % 17 != 0).collect();
        let mut e = small.encoder("n", present.len());
        e.push_ints(&present);
        let texts: Vec<String> = present.iter().map(|v| v.to_string()).collect();
        let as_text: Vec<Option<&str>> = texts.iter().map(|t| Some(t.as_str())).collect();
        assert_eq!(e.finish().unwrap(), small.encode("n", &as_text).unwrap());
    }
}
