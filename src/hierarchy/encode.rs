//! Values to leaf codes: the lookup every value of a column goes through once,
//! while the table is read.

use super::Hierarchy;
use crate::error::{show_values, AnonError, Result};
use crate::hash;

/// Leaf label -> leaf code, the lookup every value of a column goes through.
/// A label of at most 16 bytes (most are) is its length and two overlapping
/// little-endian words, which together determine it: such labels sit in a
/// small open-addressed table and are found by comparing three integers,
/// with no byte loop and no `memcmp`. A longer label sits in the same table
/// under its length and first and last 8 bytes, and a match is confirmed by
/// comparing its bytes. This is several times faster per value than hashing
/// each label's bytes into a map (figures in bench/README.md).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LeafIndex {
    /// (first word, last word, length + 1 (0: empty slot), code)
    short: Vec<(u64, u64, u32, u32)>,
    bits: u32,
    /// The bytes of each label over 16 bytes, by code (empty for the others).
    long: Vec<Box<[u8]>>,
}

impl LeafIndex {
    pub(super) fn new(mut leaves: Vec<(String, u32)>) -> Self {
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
        hash::slot(x ^ y.rotate_left(29) ^ ((len as u64) << 56), self.bits)
    }

    #[inline(always)]
    pub(super) fn get(&self, b: &[u8]) -> Option<u32> {
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

impl Hierarchy {
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
        match self.h.t.leaf_index.get(b) {
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
    /// without the length-dependent loads of the leaf index.
    #[inline(always)]
    pub fn push_view(&mut self, lo: u64, hi: u64, b: &[u8]) {
        if self.views.is_empty() {
            self.views = vec![(0, 0, UNSEEN); VIEW_SLOTS];
        }
        let mut i = hash::slot(lo ^ hi.rotate_left(29), VIEW_SLOTS.trailing_zeros());
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
