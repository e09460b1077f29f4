//! The native kernel's table: sums counts by packed key.

use std::sync::Arc;

use super::{FreqSet, Layout, SetData};
use crate::hash::{self, prefetch};

/// Sums counts by key (keys below `W::EMPTY`) in an open-addressing table of
/// (key, count) slots of `W` (`u32` where the keys and counts fit: the table
/// is half the size, so more of it stays in cache).
/// One aggregator serves many rollups in turn: its slots are allocated once,
/// each rollup uses a window of them sized at twice its input rows (a rollup
/// never has more groups than input rows, so the window never fills past
/// half), and the slots it filled are listed, so emptying the table for the
/// next rollup costs its output, not the window: a fresh table per rollup
/// (allocated, filled, scanned) costs more than the hashing when most
/// rollups have small outputs.
pub(crate) struct Aggregator<W: Word = u64> {
    slots: Vec<(W, W)>,
    mask: usize,
    bits: u32,
    /// Slots filled, in order: the first `n` entries (the vector is kept
    /// longer than half the table, so `add_many` records a slot whether or
    /// not it was new and keeps the record only if it was, without a branch).
    used: Vec<u32>,
    n: usize,
    /// Groups with fewer tuples than this are suppressed (0: none are) ...
    pub(crate) below: u64,
    /// ... and this many tuples are in them, kept as rows arrive.
    pub(crate) suppressed: u64,
}

/// A key or count in a slot: stored narrowed, read and added as `u64`.
pub(crate) trait Word: Copy + Eq + Send + 'static {
    const EMPTY: Self;
    const ZERO: Self;
    /// `v`, which fits (the layout and the table's tuples were checked).
    fn of(v: u64) -> Self;
    fn get(self) -> u64;
}

impl Word for u64 {
    const EMPTY: Self = u64::MAX;
    const ZERO: Self = 0;
    #[inline(always)]
    fn of(v: u64) -> Self {
        v
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self
    }
}

impl Word for u32 {
    const EMPTY: Self = u32::MAX;
    const ZERO: Self = 0;
    #[inline(always)]
    fn of(v: u64) -> Self {
        v as u32
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self as u64
    }
}

/// The smallest window: a cache line's worth of probing room for tiny rollups.
const MIN_SLOTS: usize = 64;
/// The largest window allocated before any row arrives (64 MiB of 64-bit
/// slots): a rollup's input bounds its groups, but a large input usually
/// collapses, so a table beyond this grows only if the groups need it.
const MAX_START_SLOTS: usize = 1 << 22;
/// A table held for later rollups is dropped when it is over this size
/// (16 MiB of 64-bit slots) and 8 times what the rollup needs.
const KEEP_SLOTS: usize = 1 << 20;

/// Keys hashed and prefetched ahead of their inserts (`Aggregator::add_many`).
const PROBES: usize = 32;

/// Tables from this many slots up (32 KiB) are fed in prefetched batches.
const PREFETCH_SLOTS: usize = 2048;

/// A thread's table of one slot width.
pub(crate) type Tables<W> = std::thread::LocalKey<std::cell::RefCell<Aggregator<W>>>;

thread_local! {
    /// The rollup tables of this thread (see `Aggregator`), kept warm between
    /// rollups: 64-bit slots, and 32-bit ones for keys and counts that fit.
    pub(crate) static WIDE: std::cell::RefCell<Aggregator<u64>> = std::cell::RefCell::new(Aggregator::new());
    pub(crate) static NARROW: std::cell::RefCell<Aggregator<u32>> = std::cell::RefCell::new(Aggregator::new());
}

/// `f` on this thread's table of `tables`, or on a new one when that is in
/// use: a thread waiting in a `rayon::join` holds its table and may run
/// other work meanwhile (the other half of the join, another search's job),
/// which must not take the table from under it.
pub(crate) fn own_table<W: Word, T>(
    tables: &'static Tables<W>,
    f: impl FnOnce(&mut Aggregator<W>) -> T,
) -> T {
    tables.with(|t| match t.try_borrow_mut() {
        Ok(mut agg) => f(&mut agg),
        Err(_) => f(&mut Aggregator::new()),
    })
}

/// Runs `$body` with `$tables` bound to this thread's 32-bit tables when the
/// layout's keys and the table's counts fit them (`layout::narrow`), else to
/// its 64-bit ones: the one place that makes the choice. A macro because the
/// body is compiled once per slot type.
macro_rules! with_table {
    ($layout:expr, $rows:expr, |$tables:ident| $body:expr) => {
        if $crate::freq::layout::narrow($layout, $rows) {
            let $tables = &$crate::freq::aggregate::NARROW;
            $body
        } else {
            let $tables = &$crate::freq::aggregate::WIDE;
            $body
        }
    };
}
pub(crate) use with_table;

/// The tuples in groups under `below` after a group of `old` tuples gains
/// `c` (a new group has `old` 0): without branches, as it runs for every row.
#[inline(always)]
fn tracked(suppressed: u64, below: u64, old: u64, c: u64) -> u64 {
    let new = old + c;
    suppressed
        .wrapping_add((new < below) as u64 * c)
        .wrapping_sub(((old < below) & (new >= below)) as u64 * old)
}

/// The slot holding `key`, or the empty one where it goes, from `i` on.
/// Both ends of the search are one test (the lesser of the slot's
/// difference from each is zero): two tests were two branches, mispredicted
/// whenever new groups and repeated ones mixed, as they do in most rollups.
#[inline(always)]
fn probe<W: Word>(slots: &[(W, W)], mut i: usize, key: W, mask: usize) -> usize {
    let (key, empty) = (key.get(), W::EMPTY.get());
    loop {
        let k = slots[i].0.get();
        if (k ^ key).min(k ^ empty) == 0 {
            return i;
        }
        i = (i + 1) & mask;
    }
}

impl<W: Word> Aggregator<W> {
    pub(crate) fn new() -> Self {
        Aggregator {
            slots: Vec::new(),
            mask: 0,
            bits: 1,
            used: Vec::new(),
            n: 0,
            below: 0,
            suppressed: 0,
        }
    }

    /// Start a rollup of `input` rows (at most `MAX_START_SLOTS` up front; a
    /// larger one grows as it fills).
    pub(crate) fn start(&mut self, input: usize) {
        debug_assert!(self.n == 0, "finish the previous rollup first");
        self.suppressed = 0;
        let cap = (2 * input)
            .clamp(MIN_SLOTS, MAX_START_SLOTS)
            .next_power_of_two();
        if self.slots.len() > KEEP_SLOTS.max(8 * cap) {
            // do not hold a large table for small rollups
            self.slots = Vec::new();
            self.used = Vec::new();
        }
        self.size_to(cap);
    }

    /// Use the first `cap` slots (a power of two), growing the vectors when
    /// they are shorter; `used` is kept longer than half of them.
    fn size_to(&mut self, cap: usize) {
        if self.slots.len() < cap {
            self.slots.resize(cap, (W::EMPTY, W::ZERO));
        }
        if self.used.len() < cap / 2 + 1 {
            self.used.resize(cap / 2 + 1, 0);
        }
        self.mask = cap - 1;
        self.bits = cap.trailing_zeros();
    }

    /// Multiplicative hashing: the slot is the product's top bits, which
    /// depend on every bit of the key (the fields packed highest included).
    #[inline(always)]
    fn slot(k: u64, bits: u32, mask: usize) -> usize {
        hash::slot(k ^ (k >> 31), bits) & mask
    }

    /// Add every source row under `remap`. A table that fits in the first
    /// level cache takes rows one by one; a larger one takes them in batches
    /// whose slots are prefetched (`add_many`), so the loads of a batch
    /// overlap; a small table gains nothing from it.
    #[inline(always)]
    pub(crate) fn feed(&mut self, src: &[u64], counts: &[u64], remap: impl Fn(u64) -> u64) {
        if self.mask < PREFETCH_SLOTS {
            return self.add_each(src, counts, remap);
        }
        let mut out = [0u64; PROBES];
        for (keys, counts) in src.chunks(PROBES).zip(counts.chunks(PROBES)) {
            for (o, &k) in out.iter_mut().zip(keys) {
                *o = remap(k);
            }
            self.add_many(&out[..keys.len()], counts);
        }
    }

    /// `feed` into a small table, row by row. The group count and the
    /// suppressed tuples are kept in locals while rows arrive and written
    /// back once (in `self`, the compiler must assume the table's stores
    /// may change them, and reloads them for every row).
    #[inline(always)]
    fn add_each(&mut self, src: &[u64], counts: &[u64], remap: impl Fn(u64) -> u64) {
        let mut rows = src.iter().zip(counts);
        loop {
            let (below, bits, mask) = (self.below, self.bits, self.mask);
            let (mut n, mut suppressed) = (self.n, self.suppressed);
            let (slots, used) = (&mut self.slots[..=mask], &mut self.used[..]);
            let mut full = false;
            for (&k, &c) in rows.by_ref() {
                let k = remap(k);
                let i = probe(slots, Self::slot(k, bits, mask), W::of(k), mask);
                let s = &mut slots[i];
                // an empty slot's count is zero, so a new group is one more
                // add, without a branch on which it is
                let (new, old) = (s.0 == W::EMPTY, s.1.get());
                *s = (W::of(k), W::of(old + c));
                suppressed = tracked(suppressed, below, old, c);
                used[n] = i as u32;
                n += new as usize;
                if n * 2 > mask {
                    full = true;
                    break;
                }
            }
            (self.n, self.suppressed) = (n, suppressed);
            if !full {
                return;
            }
            self.grow_cold();
        }
    }

    /// Add a batch of (key, count) pairs, at most `PROBES` (the counts kept
    /// in locals as in `add_each`).
    #[inline(always)]
    fn add_many(&mut self, keys: &[u64], counts: &[u64]) {
        debug_assert!(keys.len() <= PROBES && counts.len() == keys.len());
        // room for every key of the batch at most half full, so the slots
        // found first stay valid through the batch
        while (self.n + keys.len()) * 2 > self.mask + 1 {
            self.grow_cold();
        }
        let (below, bits, mask) = (self.below, self.bits, self.mask);
        let (mut n, mut suppressed) = (self.n, self.suppressed);
        let (slots, used) = (&mut self.slots[..=mask], &mut self.used[..]);
        // find every slot first and ask for its cache line, then insert:
        // the loads of a batch overlap instead of waiting one by one
        let mut at = [0usize; PROBES];
        for (a, &k) in at.iter_mut().zip(keys) {
            *a = Self::slot(k, bits, mask);
            prefetch(&slots[*a]);
        }
        for ((&a, &k), &c) in at.iter().zip(keys).zip(counts) {
            let k = W::of(k);
            let i = probe(slots, a, k, mask);
            let s = &mut slots[i];
            let new = s.0 == W::EMPTY;
            let old = s.1.get();
            *s = (k, W::of(old + c));
            suppressed = tracked(suppressed, below, old, c);
            used[n] = i as u32;
            n += new as usize;
        }
        (self.n, self.suppressed) = (n, suppressed);
    }

    /// The groups in the table now.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    #[cold]
    #[inline(never)]
    fn grow_cold(&mut self) {
        let cap = (self.mask + 1) * 2;
        let entries: Vec<(W, W)> = self.used[..self.n]
            .iter()
            .map(|&i| std::mem::replace(&mut self.slots[i as usize], (W::EMPTY, W::ZERO)))
            .collect();
        self.size_to(cap);
        self.n = 0;
        for (k, c) in entries {
            let mut i = Self::slot(k.get(), self.bits, self.mask);
            while self.slots[i].0 != W::EMPTY {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = (k, c);
            self.used[self.n] = i as u32;
            self.n += 1;
        }
    }

    /// Empty the table without reading it out.
    pub(crate) fn clear(&mut self) {
        for &i in &self.used[..self.n] {
            self.slots[i as usize] = (W::EMPTY, W::ZERO);
        }
        self.n = 0;
    }

    /// The groups in the table as a packed frequency set; leaves it empty.
    pub(crate) fn take_set(
        &mut self,
        attrs: &[usize],
        levels: &[u8],
        carry: &[usize],
        layout: &Arc<Layout>,
    ) -> FreqSet {
        let (keys, counts) = self.finish();
        FreqSet {
            attrs: attrs.to_vec(),
            levels: levels.to_vec(),
            carry: carry.to_vec(),
            data: SetData::Packed {
                layout: layout.clone(),
                keys,
                counts,
            },
        }
    }

    /// The groups in the order they first appeared; leaves the table empty.
    /// Two passes over the groups' slots, each collected whole (no capacity
    /// check a push): the second finds in cache the slots the first read.
    pub(crate) fn finish(&mut self) -> (Vec<u64>, Vec<u64>) {
        let (slots, used) = (&mut self.slots[..], &self.used[..self.n]);
        let keys = used.iter().map(|&i| slots[i as usize].0.get()).collect();
        let counts = used
            .iter()
            .map(|&i| {
                std::mem::replace(&mut slots[i as usize], (W::EMPTY, W::ZERO))
                    .1
                    .get()
            })
            .collect();
        self.n = 0;
        (keys, counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Keys with repeats, drawn by a fixed linear congruential generator.
    fn rows(n: usize, distinct: u64) -> (Vec<u64>, Vec<u64>) {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                ((x >> 20) % distinct * 0x9e37, (x >> 8) % 5 + 1)
            })
            .unzip()
    }

    fn expected(keys: &[u64], counts: &[u64]) -> Vec<(u64, u64)> {
        let mut m: HashMap<u64, u64> = HashMap::new();
        for (&k, &c) in keys.iter().zip(counts) {
            *m.entry(k).or_default() += c;
        }
        let mut v: Vec<_> = m.into_iter().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn both_feeds_and_growth_count_every_row_and_the_suppressed() {
        // keys below 2^32: the same rows through 64- and 32-bit slots
        feeds_and_growth::<u64>();
        feeds_and_growth::<u32>();
    }

    fn feeds_and_growth<W: Word>() {
        // (rows, distinct keys, size the table is started for): a table in
        // the first-level cache, a prefetched one, and tables started too
        // small so that each path grows while it is fed
        for (n, distinct, start) in [
            (5_000, 300, 5_000),
            (50_000, 20_000, 50_000),
            (50_000, 20_000, 10),
            (50_000, 20_000, 1_500),
            (3_000, 900, 10),
        ] {
            let (keys, counts) = rows(n, distinct);
            let mut agg = Aggregator::<W>::new();
            // the tuples in groups under a threshold, counted as rows arrive
            for below in [1u64, 10, 60, 200] {
                agg.below = below;
                agg.start(start);
                agg.feed(&keys, &counts, |k| k ^ 1);
                let want: u64 = expected(&keys, &counts)
                    .iter()
                    .filter(|g| g.1 < below)
                    .map(|g| g.1)
                    .sum();
                assert_eq!(
                    agg.suppressed, want,
                    "{n} rows, {distinct} keys, below {below}"
                );
                agg.clear();
            }
            agg.below = 0;
            agg.start(start);
            agg.feed(&keys, &counts, |k| k ^ 1);
            assert_eq!(agg.suppressed, 0);
            let (got_k, got_c) = agg.finish();
            let mut got: Vec<(u64, u64)> = got_k.into_iter().map(|k| k ^ 1).zip(got_c).collect();
            got.sort_unstable();
            assert_eq!(got, expected(&keys, &counts), "{n} rows, {distinct} keys");
            // the table is left empty for the next rollup
            agg.start(10);
            agg.feed(&keys[..100], &counts[..100], |k| k);
            assert_eq!(
                agg.finish().0.len(),
                expected(&keys[..100], &counts[..100]).len()
            );
        }
    }
}
