//! Values to leaf codes: the lookup every value of a column goes through once,
//! while the table is read.

use std::collections::HashSet;

use super::int_leaves::{IntLeaves, NOT_A_LEAF};
use super::Hierarchy;
use crate::error::{show_values, AnonError, Result};
use crate::hash::{self, prefetch};

/// The most leaves a hierarchy may have: a short label's slot keeps its code
/// in 28 bits beside its bytes (a hierarchy that large would not fit in
/// memory as strings anyway).
pub const MAX_LEAVES: usize = 1 << 28;

/// Leaf label -> leaf code, the lookup every value of a column goes through.
///
/// A label of at most 12 bytes (most are) is keyed by its Arrow string view:
/// the length in the low 32 bits, then the bytes, zero-padded, which is two
/// 64-bit words. Polars and Arrow hand such strings over as exactly these 16
/// bytes, so a value is found by a hash of two words and one 16-byte compare,
/// without reading its bytes or branching on its length. The code sits in
/// bits 4..32 of the first word, where a view of at most 12 bytes has zeros,
/// so a slot is 16 bytes. Longer labels sit in a second table under their
/// length and first and last 8 bytes (which determine a label of up to 16
/// bytes), confirmed by their bytes beyond that.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LeafIndex {
    short: Vec<[u64; 2]>,
    short_bits: u32,
    n_short: usize,
    /// (first word, last word, length (0: empty slot), code)
    long: Vec<(u64, u64, u32, u32)>,
    long_bits: u32,
    n_long: usize,
    /// The bytes of each label over 16 bytes, by slot of `long` (empty when
    /// there is none).
    long_bytes: Vec<Box<[u8]>>,
}

/// The longest label keyed by its view.
const SHORT: usize = 12;
/// Bits 4..32 of a short slot's first word: the code.
const CODE_MASK: u64 = 0xFFFF_FFF0;
/// An empty short slot (length nibble 15, which no short label has).
const EMPTY: [u64; 2] = [0xF, 0];
/// Tables from this many slots up (32 KiB) are probed in prefetched batches.
const PREFETCH_SLOTS: usize = 2048;
/// Values whose slots are prefetched ahead of their probes.
const BATCH: usize = 16;

/// Up to 8 bytes as a little-endian word, zero-padded, from overlapping loads
/// (copying them into a zeroed buffer and loading it back stalls).
#[inline(always)]
fn padded(b: &[u8]) -> u64 {
    let n = b.len();
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes")) as u64;
    match n {
        8.. => u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
        // the two halves overlap on equal bytes, so OR puts each in place
        4..=7 => u32_at(0) | (u32_at(n - 4) << (8 * (n - 4))),
        1..=3 => {
            let at = |i: usize| (b[i] as u64) << (8 * i);
            at(0) | at(n / 2) | at(n - 1)
        }
        0 => 0,
    }
}

/// The Arrow string view of a string of at most 12 bytes, as two words.
#[inline(always)]
fn view_words(b: &[u8]) -> (u64, u64) {
    let n = b.len();
    let lo = n as u64 | (padded(&b[..n.min(4)]) << 32);
    (lo, if n > 4 { padded(&b[4..]) } else { 0 })
}

/// A 16-byte view as two little-endian words.
#[inline(always)]
fn words_of(v: &[u8; 16]) -> (u64, u64) {
    (
        u64::from_le_bytes(v[..8].try_into().expect("8 bytes")),
        u64::from_le_bytes(v[8..].try_into().expect("8 bytes")),
    )
}

/// A hash of the bytes of a label of more than 16 between its first and
/// last 8 (0 for a shorter one), in `middle_eq`'s words: labels that share
/// their ends (a month's datetimes, 2021-03-01 00:00:00.000000) shared one
/// chain of slots, and 80,000 of them took 10 s to encode.
#[inline(always)]
fn middle_hash(b: &[u8]) -> u64 {
    let n = b.len();
    if n <= 16 {
        return 0;
    }
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    (8..n - 8)
        .step_by(8)
        .fold(0, |h, i| hash::mix(h.rotate_left(23) ^ word(i)))
}

/// Whether two byte strings of one length over 16, whose first and last 8
/// bytes are equal, are equal: the words between, compared inline (a call to
/// `memcmp` for each value cost more than the lookup).
#[inline(always)]
fn middle_eq(a: &[u8], b: &[u8]) -> bool {
    let n = b.len();
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    a.len() == n && (8..n - 8).step_by(8).all(|i| word(a, i) == word(b, i))
}

/// Slots for `n` labels: a lookup that leaves after its first probe is
/// predicted, one that probes on is not, so small tables are kept sparse (at
/// most 1/8 full) and large ones at most half full, to stay in the caches.
fn slots_for(n: usize) -> usize {
    match n {
        0..=4096 => (8 * n).max(8).next_power_of_two(),
        _ => (2 * n).next_power_of_two(),
    }
}

impl LeafIndex {
    /// An empty index sized for about `hint` short labels; it grows as
    /// labels are inserted, so the hint only spares rehashing.
    pub(super) fn with_capacity(hint: usize) -> Self {
        let short = slots_for(hint.min(MAX_LEAVES));
        LeafIndex {
            short: vec![EMPTY; short],
            short_bits: short.trailing_zeros(),
            n_short: 0,
            long: vec![(0, 0, 0, 0); slots_for(0)],
            long_bits: slots_for(0).trailing_zeros(),
            n_long: 0,
            long_bytes: Vec::new(),
        }
    }

    /// The index of `leaves`, each coded by its position.
    #[cfg(test)]
    pub(super) fn new(leaves: &super::Labels) -> Self {
        let mut index = Self::with_capacity(leaves.len());
        for (label, code) in leaves.iter().zip(0u32..) {
            assert_eq!(
                index.insert(label.as_bytes(), code),
                None,
                "distinct leaves"
            );
        }
        index
    }

    /// Files `b` under `code`, unless it is there already: then its code.
    /// Building a hierarchy goes through this once a row, so the table that
    /// finds its repeated leaves is the one that encodes columns later.
    pub(super) fn insert(&mut self, b: &[u8], code: u32) -> Option<u32> {
        debug_assert!((code as usize) < MAX_LEAVES);
        if b.len() <= SHORT {
            let (lo, hi) = view_words(b);
            let i = match self.find_short(lo, hi) {
                Ok(code) => return Some(code),
                Err(_) if slots_for(self.n_short + 1) > self.short.len() => {
                    self.grow_short();
                    self.find_short(lo, hi).expect_err("absent before growing")
                }
                Err(i) => i,
            };
            self.short[i] = [lo | ((code as u64) << 4), hi];
            self.n_short += 1;
        } else {
            let (x, y) = Self::long_words(b);
            let i = match self.find_long(b, x, y) {
                Ok(code) => return Some(code),
                Err(_) if slots_for(self.n_long + 1) > self.long.len() => {
                    self.grow_long();
                    self.find_long(b, x, y).expect_err("absent before growing")
                }
                Err(i) => i,
            };
            self.long[i] = (x, y, b.len() as u32, code);
            if b.len() > 16 {
                if self.long_bytes.is_empty() {
                    self.long_bytes = vec![Box::default(); self.long.len()];
                }
                self.long_bytes[i] = b.into();
            }
            self.n_long += 1;
        }
        None
    }

    /// The code of a short label, or the empty slot where it would go.
    #[inline(always)]
    fn find_short(&self, lo: u64, hi: u64) -> std::result::Result<u32, usize> {
        let mask = self.short.len() - 1;
        let mut i = self.short_slot(lo, hi);
        loop {
            let [a, b] = self.short[i];
            if b == hi && a & !CODE_MASK == lo {
                return Ok(((a & CODE_MASK) >> 4) as u32);
            }
            if a & 0xF == 0xF {
                return Err(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The code of a label of more than 12 bytes, or the empty slot where it
    /// would go.
    #[inline(always)]
    fn find_long(&self, b: &[u8], x: u64, y: u64) -> std::result::Result<u32, usize> {
        let len = b.len() as u32;
        let mask = self.long.len() - 1;
        let mut i = self.long_slot(x, y, b.len());
        loop {
            let e = self.long[i];
            if e.2 == len
                && e.0 == x
                && e.1 == y
                && (b.len() <= 16 || middle_eq(&self.long_bytes[i], b))
            {
                return Ok(e.3);
            }
            if e.2 == 0 {
                return Err(i);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow_short(&mut self) {
        let slots = slots_for(self.n_short + 1);
        let old = std::mem::replace(&mut self.short, vec![EMPTY; slots]);
        self.short_bits = slots.trailing_zeros();
        for [a, hi] in old.into_iter().filter(|s| s[0] & 0xF != 0xF) {
            let i = self
                .find_short(a & !CODE_MASK, hi)
                .expect_err("distinct labels");
            self.short[i] = [a, hi];
        }
    }

    fn grow_long(&mut self) {
        let slots = slots_for(self.n_long + 1);
        let old = std::mem::replace(&mut self.long, vec![(0, 0, 0, 0); slots]);
        let mut bytes = std::mem::take(&mut self.long_bytes);
        if !bytes.is_empty() {
            self.long_bytes = vec![Box::default(); slots];
        }
        self.long_bits = slots.trailing_zeros();
        for (j, e) in old.into_iter().enumerate().filter(|(_, e)| e.2 != 0) {
            let mut i = self.long_slot(e.0, e.1, e.2 as usize);
            while self.long[i].2 != 0 {
                i = (i + 1) & (slots - 1);
            }
            self.long[i] = e;
            if !bytes.is_empty() {
                self.long_bytes[i] = std::mem::take(&mut bytes[j]);
            }
        }
    }

    #[inline(always)]
    fn short_slot(&self, lo: u64, hi: u64) -> usize {
        hash::slot2(lo, hi, self.short_bits)
    }

    /// The code of the label whose view words are `lo`, `hi` (a view of at
    /// most 12 bytes, zero-padded).
    #[inline(always)]
    fn get_short(&self, lo: u64, hi: u64) -> Option<u32> {
        self.find_short(lo, hi).ok()
    }

    /// The first 8 bytes of a label of more than 12 bytes, mixed with the
    /// hash of its middle, and its last 8. Equal first words of two labels of
    /// one length with equal middles mean equal first 8 bytes, so comparing
    /// these words and then the middles stays exact.
    #[inline(always)]
    fn long_words(b: &[u8]) -> (u64, u64) {
        let n = b.len();
        (
            u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) ^ middle_hash(b),
            u64::from_le_bytes(b[n - 8..].try_into().expect("8 bytes")),
        )
    }

    /// The slot where a label of more than 12 bytes is looked for first.
    #[cfg(test)]
    pub(super) fn home_slot(&self, b: &[u8]) -> usize {
        let (x, y) = Self::long_words(b);
        self.long_slot(x, y, b.len())
    }

    #[inline(always)]
    fn long_slot(&self, x: u64, y: u64, len: usize) -> usize {
        hash::slot2(x, y ^ len as u64, self.long_bits)
    }

    /// The code of a label of more than 12 bytes.
    #[inline(always)]
    fn get_long(&self, b: &[u8]) -> Option<u32> {
        let (x, y) = Self::long_words(b);
        self.find_long(b, x, y).ok()
    }

    /// Asks for the slot where `b` is looked for first (a hint).
    #[inline(always)]
    pub(super) fn prefetch(&self, b: &[u8]) {
        if b.len() <= SHORT {
            let (lo, hi) = view_words(b);
            prefetch(&self.short[self.short_slot(lo, hi)]);
        } else {
            let (x, y) = Self::long_words(b);
            prefetch(&self.long[self.long_slot(x, y, b.len())]);
        }
    }

    #[inline(always)]
    pub(super) fn get(&self, b: &[u8]) -> Option<u32> {
        if b.len() <= SHORT {
            let (lo, hi) = view_words(b);
            self.get_short(lo, hi)
        } else {
            self.get_long(b)
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

    /// Encodes values a chunk or one at a time (from Arrow buffers, say); see
    /// `Encoder`.
    pub fn encoder(&self, column: &str, capacity: usize) -> Encoder<'_> {
        Encoder {
            index: &self.t.leaf_index,
            hierarchy: self,
            column: column.to_string(),
            out: Vec::with_capacity(crate::alloc::capacity_for(capacity, 4)),
            missing: Vec::new(),
            missing_seen: HashSet::new(),
            nulls: 0,
            ints: Vec::new(),
            ints_n: 0,
        }
    }
}

/// Leaf codes of a column's values, gathering what is wrong (nulls, weighted
/// by the tuples they stand for, and distinct values the hierarchy lacks) for
/// one error at the end.
pub struct Encoder<'h> {
    /// The hierarchy's leaf index (read for every value), ...
    index: &'h LeafIndex,
    /// ... and the hierarchy, for its integer leaves by value.
    hierarchy: &'h Hierarchy,
    column: String,
    out: Vec<u32>,
    missing: Vec<String>,
    missing_seen: HashSet<Vec<u8>>,
    nulls: u64,
    /// (value, leaf code) of the integers seen (`push_int`), up to half of
    /// `INT_SLOTS`.
    ints: Vec<(i64, u32)>,
    ints_n: usize,
}

/// A code standing for "not a leaf" (the value was reported missing).
const MISSING: u32 = u32::MAX - 1;
/// Not looked up yet (`Encoder::ints`), or not found by the fast path.
const UNSEEN: u32 = u32::MAX;

/// A chunk of integers makes the hierarchy's table of integer leaves by
/// value (`IntLeaves`) when it has at least one value for this many leaves:
/// the table costs about as much to make as that many lookups.
const BY_VALUE_LEAVES_PER_VALUE: usize = 16;

/// Slots of `Encoder::ints` (a power of two).
const INT_SLOTS: usize = 1024;

/// Integers in a chunk from which `push_ints` looks at their range.
const DENSE_MIN_VALUES: usize = 1024;

impl<'h> Encoder<'h> {
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
                let c = self.lookup(b);
                self.out.push(c);
            }
        }
    }

    /// The leaf code of `b`, or `MISSING` after noting it missing.
    #[inline(always)]
    fn lookup(&mut self, b: &[u8]) -> u32 {
        match self.index.get(b) {
            Some(c) => c,
            None => self.note_missing(b),
        }
    }

    #[cold]
    fn note_missing(&mut self, b: &[u8]) -> u32 {
        if self.missing_seen.insert(b.to_vec()) {
            self.missing.push(String::from_utf8_lossy(b).into_owned());
        }
        MISSING
    }

    /// Every value of a chunk of Arrow string views without nulls. A view of
    /// at most 12 bytes is its own key in the leaf index; `long` gives the
    /// bytes a longer view points to (`None`: the view is malformed, and this
    /// returns false). Large indexes are probed in prefetched batches.
    pub fn push_views<'a>(
        &mut self,
        views: &[[u8; 16]],
        long: impl Fn(&[u8; 16]) -> Option<&'a [u8]>,
    ) -> bool {
        let index = self.index;
        let start = self.out.len();
        self.out.resize(start + views.len(), 0);
        let out = &mut self.out[start..];
        let prefetching = index.short.len() >= PREFETCH_SLOTS;
        let (mut unseen, mut ok) = (false, true);
        for (vs, os) in views.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            if prefetching {
                for v in vs {
                    let (lo, hi) = words_of(v);
                    prefetch(&index.short[index.short_slot(lo, hi)]);
                }
            }
            for (v, o) in vs.iter().zip(os.iter_mut()) {
                let (lo, hi) = words_of(v);
                let code = if lo as u32 as usize <= SHORT {
                    index.get_short(lo, hi)
                } else if let Some(b) = long(v) {
                    index.get_long(b)
                } else {
                    ok = false;
                    Some(MISSING)
                };
                *o = code.unwrap_or(UNSEEN);
                unseen |= code.is_none();
            }
        }
        if unseen {
            // values that are no leaf, or short views with bytes after the
            // string (Arrow pads with zeros, but a producer might not): by
            // their bytes, which report them
            for (i, v) in views.iter().enumerate() {
                if self.out[start + i] == UNSEEN {
                    let n = u32::from_le_bytes([v[0], v[1], v[2], v[3]]) as usize;
                    let code = match n <= SHORT {
                        true => self.lookup(&v[4..4 + n]),
                        false => self.note_missing(long(v).unwrap_or_default()),
                    };
                    self.out[start + i] = code;
                }
            }
        }
        ok
    }

    /// Every value of a chunk of integers without nulls, each standing for
    /// its decimal string. A chunk whose values span a range small beside
    /// its length (ages, counts, codes) goes through a table by value over
    /// that range, filled as values first appear: one load a value, and the
    /// one branch (a value not seen yet) rarely taken.
    pub fn push_ints<T: Copy + Into<i64>>(&mut self, values: &[T]) {
        if let Some(table) = self.by_value(values.len()) {
            return self.push_by_value(table, values);
        }
        if values.len() >= DENSE_MIN_VALUES {
            let (lo, hi) = values.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &v| {
                let v = v.into();
                (lo.min(v), hi.max(v))
            });
            let span = hi.abs_diff(lo);
            if span < (values.len() / 2) as u64 {
                return self.push_dense(values, lo, span as usize + 1);
            }
        }
        self.out.reserve(values.len());
        for &v in values {
            self.push_int(v.into());
        }
    }

    /// The hierarchy's integer leaves by value, if its leaves have such a
    /// table (`IntLeaves::of`): made for a chunk of `n` values when there
    /// are not too many leaves for them (`BY_VALUE_LEAVES_PER_VALUE`).
    fn by_value(&self, n: usize) -> Option<&'h IntLeaves> {
        let h = self.hierarchy;
        let (cell, leaves) = (&h.t.by_value, h.leaves());
        match cell.get() {
            Some(table) => table.as_ref(),
            None if n.saturating_mul(BY_VALUE_LEAVES_PER_VALUE) >= leaves.len() => {
                cell.get_or_init(|| IntLeaves::of(leaves)).as_ref()
            }
            None => None,
        }
    }

    /// `push_ints` through the hierarchy's integer leaves by value: one load
    /// a value; values that are no leaf go the way of `push_int`, which
    /// reports them.
    fn push_by_value<T: Copy + Into<i64>>(&mut self, table: &IntLeaves, values: &[T]) {
        let start = self.out.len();
        self.out
            .extend(values.iter().map(|&v| table.code(v.into())));
        if self.out[start..].contains(&NOT_A_LEAF) {
            for (i, &v) in values.iter().enumerate() {
                if self.out[start + i] == NOT_A_LEAF {
                    self.out[start + i] = self.int_code(v.into());
                }
            }
        }
    }

    /// `push_ints` through a table over `lo..lo + span`.
    fn push_dense<T: Copy + Into<i64>>(&mut self, values: &[T], lo: i64, span: usize) {
        let mut table = vec![UNSEEN; span];
        let start = self.out.len();
        self.out.resize(start + values.len(), 0);
        for (i, &v) in values.iter().enumerate() {
            let v = v.into();
            let slot = &mut table[(v - lo) as usize];
            if *slot == UNSEEN {
                *slot = self.int_code(v);
            }
            self.out[start + i] = *slot;
        }
    }

    /// One integer value, which stands for its decimal string.
    #[inline(always)]
    pub fn push_int(&mut self, v: i64) {
        let c = self.int_code(v);
        self.out.push(c);
    }

    /// The leaf code of an integer's decimal string. The first 512 distinct
    /// values are remembered (an integer column rarely has more) and then
    /// found by value, without writing their decimal strings. (An array by
    /// value for small ones, value by value, was faster for them alone, but a
    /// column of values on both sides of its bound mispredicted the branch
    /// between the two: `push_ints` chooses per chunk instead.)
    #[inline(always)]
    fn int_code(&mut self, v: i64) -> u32 {
        if self.ints.is_empty() {
            self.ints = vec![(0, UNSEEN); INT_SLOTS];
        }
        let mut i = hash::slot(v as u64, INT_SLOTS.trailing_zeros());
        loop {
            let (x, c) = self.ints[i];
            if c == UNSEEN {
                break;
            }
            if x == v {
                return c;
            }
            i = (i + 1) & (INT_SLOTS - 1);
        }
        let mut text = [0u8; 20];
        let c = self.lookup(decimal(v, &mut text));
        if self.ints_n < INT_SLOTS / 2 {
            self.ints[i] = (v, c);
            self.ints_n += 1;
        }
        c
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
