//! Value generalization hierarchies: the tree over a column's values.
//!
//! Inside, every level is a dense code space: `labels[l][c]` is the label of code
//! `c` at level `l`, `leaf_to[l][leaf]` maps a leaf code to its code at level `l`
//! and `parent[l][c]` maps a level-`l` code one level up. These arrays are what a
//! rollup gathers through. Reading and writing (ARX's CSV layout, JSON) is in
//! [`io`]; turning a column's values into leaf codes is in [`encode`].

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Result;
use crate::hash::FoldedBuild;

mod build;
mod column;
mod encode;
mod int_leaves;
mod io;
mod labels;
mod order;

use build::Builder;
pub use column::Column;
pub use encode::Encoder;
use encode::LeafIndex;
pub use labels::Labels;
pub use order::TopDown;

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

#[derive(Debug)]
struct Tree {
    // the rows are not kept: row r is `labels[l][leaf_to[l][r]]` for each
    // level l (a ZIP hierarchy's 600,000 cells as strings cost more to
    // allocate and free than building the tree)
    labels: Vec<Labels>,
    leaf_to: Vec<Vec<u32>>,
    parent: Vec<Vec<u32>>,
    /// Leaf label bytes -> leaf code.
    leaf_index: LeafIndex,
    /// `under[l][c]`: the leaves code c of level l stands for, counted once
    /// on first use (every node's loss reads it: a ZIP hierarchy's 100,000
    /// leaves counted again per node cost more than rolling the node up).
    under: std::sync::OnceLock<Vec<Vec<u32>>>,
    /// `between[from * (height + 1) + to]`: `map_between(from, to)`, made on
    /// first use (every rollup of a node reads one per attribute that goes
    /// up: ZIP's 100,000 leaves walked up per rollup cost as much as the
    /// rollup of cup's 63,000 rows).
    between: Vec<std::sync::OnceLock<Arc<[u32]>>>,
    /// The leaves in top-down order (`order.rs`), made on first use.
    top_down: std::sync::OnceLock<Arc<TopDown>>,
    /// The integer leaves by value (`int_leaves.rs`), made when an integer
    /// column is first encoded through the hierarchy.
    by_value: std::sync::OnceLock<Option<int_leaves::IntLeaves>>,
}

/// Trees are equal when their labels and leaves' codes are: the rest is
/// derived from them (the leaf index's size depends on how it grew).
impl PartialEq for Tree {
    fn eq(&self, other: &Self) -> bool {
        self.labels == other.labels && self.leaf_to == other.leaf_to
    }
}

impl Hierarchy {
    /// Build from rows (leaf first, most general last). `source` names the
    /// origin (a file path, or "rows") in error messages.
    pub fn from_rows(rows: Vec<Vec<String>>, source: &str) -> Result<Self> {
        let mut b = Builder::new(source, rows.len());
        for row in &rows {
            b.push(row)?;
        }
        b.finish()
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
    pub fn leaves_under(&self, level: u8) -> &[u32] {
        let under = self.t.under.get_or_init(|| {
            (0..self.t.leaf_to.len())
                .map(|l| {
                    let mut under = vec![0u32; self.domain_size(l as u8)];
                    for &c in &self.t.leaf_to[l] {
                        under[c as usize] += 1;
                    }
                    under
                })
                .collect()
        });
        &under[level as usize]
    }
    /// Which of `values` are leaves, as their positions in `values` in leaf
    /// order, and the labels of those leaves at `level` (`labels_of`). What a
    /// release maps the values a table holds through. (Matched by a plain
    /// set of the values, not through the leaf index that encoded them, so
    /// that a release's check does not share its lookup.)
    pub fn leaf_positions<S: AsRef<str>>(
        &self,
        level: u8,
        values: &[S],
    ) -> (Vec<u32>, Vec<u32>, Vec<String>) {
        // every leaf is asked for (a ZIP hierarchy's 100,000), so the set's
        // hash is a cheap one that still spreads strings over its low bits
        let wanted: HashMap<&str, u32, FoldedBuild> = (values.iter().zip(0u32..))
            .map(|(v, i)| (v.as_ref(), i))
            .collect();
        let (positions, leaves): (Vec<u32>, Vec<u32>) = (self.leaves().iter().zip(0u32..))
            .filter_map(|(leaf, code)| Some((*wanted.get(leaf)?, code)))
            .unzip();
        let (codes, names) = self.labels_of(level, &leaves);
        (positions, codes, names)
    }

    /// The labels at `level` of the leaves `leaves` (codes): each as a code
    /// into the distinct labels, which come last, in order of first use.
    pub fn labels_of(&self, level: u8, leaves: &[u32]) -> (Vec<u32>, Vec<String>) {
        let labels = &self.t.labels[level as usize];
        let to = self.leaf_map(level);
        let mut code_of = vec![u32::MAX; labels.len()];
        let mut names = Vec::new();
        let codes = (leaves.iter())
            .map(|&leaf| {
                let c = to[leaf as usize] as usize;
                if code_of[c] == u32::MAX {
                    code_of[c] = names.len() as u32;
                    names.push(labels[c].to_string());
                }
                code_of[c]
            })
            .collect();
        (codes, names)
    }

    /// The leaves in top-down order (`order.rs`), made once.
    pub fn top_down(&self) -> Arc<TopDown> {
        (self.t.top_down.get_or_init(|| Arc::new(TopDown::of(self)))).clone()
    }

    /// Map from codes at level `from` to codes at level `to` (`from <= to`).
    pub fn map_between(&self, from: u8, to: u8) -> Arc<[u32]> {
        assert!(
            from <= to && to <= self.height(),
            "bad level pair {from}->{to}"
        );
        let levels = self.height() as usize + 1;
        let made = &self.t.between[from as usize * levels + to as usize];
        made.get_or_init(|| {
            let mut map: Vec<u32> = (0..self.domain_size(from) as u32).collect();
            for l in from..to {
                let up = &self.t.parent[l as usize];
                for c in map.iter_mut() {
                    *c = up[*c as usize];
                }
            }
            map.into()
        })
        .clone()
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
    fn labels_that_share_their_ends_spread_over_the_slots() {
        // a month's datetimes agree in their first and last 8 bytes and their
        // length: they shared one chain of slots (80,000 took 10 s to encode)
        let labels: Vec<String> = (0..2000)
            .map(|i| {
                format!(
                    "2021-03-{:02} {:02}:{:02}:00.000000",
                    1 + i / 96,
                    i / 4 % 24,
                    i % 4 * 15
                )
            })
            .collect();
        let index = LeafIndex::new(&labels.iter().collect());
        for (code, l) in labels.iter().enumerate() {
            assert_eq!(index.get(l.as_bytes()), Some(code as u32), "{l:?}");
        }
        assert_eq!(index.get(b"2021-03-01 00:00:01.000000"), None);
        let slots: std::collections::HashSet<usize> = labels
            .iter()
            .map(|l| index.home_slot(l.as_bytes()))
            .collect();
        assert!(
            slots.len() > 1800,
            "{} home slots for 2,000 labels",
            slots.len()
        );
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
        // sized for them, and grown from empty one label at a time (each
        // insert of a second copy gives the first's code)
        let sized = LeafIndex::new(&labels.iter().collect());
        let mut grown = LeafIndex::with_capacity(0);
        for (code, l) in labels.iter().enumerate() {
            assert_eq!(grown.insert(l.as_bytes(), code as u32), None, "{l:?}");
        }
        for (code, l) in labels.iter().enumerate() {
            assert_eq!(grown.insert(l.as_bytes(), 99), Some(code as u32), "{l:?}");
        }
        for index in [&sized, &grown] {
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
        }
    }

    #[test]
    fn leaf_positions_find_the_leaves_among_values_in_leaf_order() {
        let h = zipcode();
        let values = ["53703", "x", "53715", "53703", "53706"];
        let (positions, codes, names) = h.leaf_positions(1, &values);
        // leaves 53715, 53706, 53703 (in the file's order); a value given
        // twice is found once, at one of its positions
        assert_eq!(positions.len(), 3);
        let found: Vec<&str> = positions.iter().map(|&p| values[p as usize]).collect();
        assert_eq!(found, ["53715", "53706", "53703"]);
        assert_eq!(names, ["5371*", "5370*"]);
        assert_eq!(codes, [0, 1, 1]);
        assert_eq!(
            h.leaf_positions(2, &["53710"]),
            (vec![0], vec![0], vec!["537**".into()])
        );
    }

    #[test]
    fn parses_levels_and_maps() {
        let h = zipcode();
        assert_eq!(h.height(), 2);
        assert_eq!(h.levels()[1], vec!["5371*", "5370*"]);
        assert_eq!(h.leaf_map(1), &[0, 0, 1, 1]);
        assert_eq!(*h.map_between(1, 2), [0, 0]);
        assert_eq!(*h.map_between(0, 1), [0, 0, 1, 1]);
        assert_eq!(*h.map_between(0, 2), [0, 0, 0, 0]);
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
    fn a_first_leaf_starting_with_a_byte_order_mark_survives_a_csv_round_trip() {
        let h = Hierarchy::from_rows(
            vec![
                vec!["\u{feff}a".to_string(), "*".to_string()],
                vec!["b".to_string(), "*".to_string()],
            ],
            "t",
        )
        .unwrap();
        let text = h.to_csv_string(b';');
        assert_eq!(Hierarchy::from_csv_str(&text, b';', "t").unwrap(), h);
        // a file's own mark is still dropped
        let marked = format!("\u{feff}{}", h.to_csv_string(b';'));
        assert_eq!(Hierarchy::from_csv_str(&marked, b';', "t").unwrap(), h);
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
        // a quote or a lone CR after plain rows: read again by the csv reader
        let late = Hierarchy::from_csv_str("a b;x;*\nc;x;*\n\"d\";y;*\n", b';', "l").unwrap();
        assert_eq!(late, want);
        let late_cr = Hierarchy::from_csv_str("a b;x;*\nc;x;*\rd;y;*\n", b';', "l").unwrap();
        assert_eq!(late_cr, want);
        // a last line ended by CR alone, and cells blank but for spaces
        let end = Hierarchy::from_csv_str("a b;x;*\nc;x;*\n \n ; ;\nd;y;*\r", b';', "e").unwrap();
        assert_eq!(end, want);
        // errors name the row as before
        let e = Hierarchy::from_csv_str("a;x;*\nb;x\n", b';', "f.csv").unwrap_err();
        assert!(
            e.to_string().contains("row 2 has 2 values, expected 3"),
            "{e}"
        );
        let e = Hierarchy::from_csv_str("a;x;*\na;y;*\n", b';', "f.csv").unwrap_err();
        assert!(e.to_string().contains("appears twice"), "{e}");
    }

    #[test]
    fn levels_of_many_labels_are_coded_as_the_rows_give_them() {
        // 6,000 leaves in an order that keeps no group together, a level of
        // 3,000 labels (short and over 16 bytes: both tables grow while the
        // rows are read), and the same file read again with its rows repeated
        let rows: Vec<Vec<String>> = (0..6000)
            .map(|i| {
                let leaf = (i * 7919) % 6000;
                let mid = match leaf % 2 {
                    0 => format!("m{}", leaf / 4),
                    _ => format!("a-label-longer-than-16-{}", leaf / 4),
                };
                vec![
                    format!("{leaf}"),
                    mid,
                    format!("t{}", leaf / 4 % 3),
                    "*".into(),
                ]
            })
            .collect();
        let text: String = rows.iter().map(|r| r.join(";") + "\n").collect();
        let h = Hierarchy::from_csv_str(&text, b';', "big.csv").unwrap();
        assert_eq!(h.rows(), rows);
        assert_eq!(
            (0..4).map(|l| h.domain_size(l)).collect::<Vec<_>>(),
            [6000, 3000, 3, 1]
        );
        for (l, level) in h.levels().iter().enumerate() {
            let distinct: std::collections::HashSet<&str> = level.iter().collect();
            assert_eq!(distinct.len(), level.len(), "level {l} holds a label twice");
        }
        let twice = format!("{text}{text}");
        assert_eq!(
            Hierarchy::from_csv_str(&twice, b';', "twice.csv").unwrap(),
            h
        );
        for (r, row) in rows.iter().enumerate() {
            assert_eq!(h.encode("v", &[Some(&row[0])]).unwrap(), [r as u32]);
        }
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
