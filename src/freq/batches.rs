//! F0 built a batch of rows at a time, for a table read as a stream (a
//! LazyFrame too large to hold): each batch's codes are packed into keys of
//! as many 64-bit words as the codes need and summed into one table of the
//! distinct keys, so memory holds F0 and one batch, whatever the rows read.
//! (Polars' group-by of the raw columns held far more than F0 on wide tables:
//! 9 GiB for 2M rows of 100 string columns, growing with the rows read.)

use crate::error::{AnonError, Result};
use crate::hash::mix;

/// Distinct rows of codes and their counts, gathered batch by batch.
pub struct Batches {
    /// Each attribute's name (errors name the column).
    names: Vec<String>,
    /// Each attribute's domain size (codes must be below it).
    sizes: Vec<usize>,
    /// Each attribute's (word, shift, mask) in a key: a field never spans
    /// two words.
    fields: Vec<(usize, u32, u64)>,
    /// Words per key.
    words: usize,
    /// The distinct keys, `words` each, in the order first seen.
    keys: Vec<u64>,
    hashes: Vec<u64>,
    counts: Vec<u64>,
    /// Open addressing over the groups: group + 1, 0 for an empty slot; at
    /// most half full.
    slots: Vec<u32>,
    bits: u32,
    rows: u64,
}

/// Slots of a fresh table (grown by doubling as groups arrive).
const START_BITS: u32 = 10;
/// Rows packed at a time by `add_all`.
const ROWS_AT_ONCE: usize = 1 << 16;

impl Batches {
    /// For attributes of these names and domain sizes (the QIs' leaves,
    /// then any sensitive attribute's values).
    pub fn new(names: Vec<String>, sizes: Vec<usize>) -> Self {
        let mut fields = Vec::with_capacity(sizes.len());
        let (mut word, mut at) = (0usize, 0u32);
        for &size in &sizes {
            let bits = 64 - (size.max(1) as u64 - 1).leading_zeros();
            if at + bits > 64 {
                word += 1;
                at = 0;
            }
            let mask = if bits == 0 {
                0
            } else {
                u64::MAX >> (64 - bits)
            };
            fields.push((word, at, mask));
            at += bits;
        }
        Batches {
            names,
            sizes,
            fields,
            words: word + 1,
            keys: Vec::new(),
            hashes: Vec::new(),
            counts: Vec::new(),
            slots: vec![0; 1 << START_BITS],
            bits: START_BITS,
            rows: 0,
        }
    }

    /// Distinct rows so far.
    pub fn groups(&self) -> usize {
        self.counts.len()
    }

    /// Tuples added so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Bytes held (keys, hashes, counts, slots).
    pub fn bytes(&self) -> usize {
        (self.keys.capacity() + self.hashes.capacity() + self.counts.capacity()) * 8
            + self.slots.capacity() * 4
    }

    /// One batch: a column of codes per attribute (all of one length) and
    /// a count per row (`None`: one each). A code outside its domain is an
    /// error naming the column; the batch is then not added.
    pub fn add<C: AsRef<[u32]>>(&mut self, columns: &[C], counts: Option<&[u64]>) -> Result<()> {
        let columns: Vec<&[u32]> = columns.iter().map(AsRef::as_ref).collect();
        if columns.len() != self.sizes.len() {
            return Err(AnonError::Config(format!(
                "{} code columns for {} attributes",
                columns.len(),
                self.sizes.len()
            )));
        }
        let height = columns.first().map_or(0, |c| c.len());
        if let Some((a, c)) = columns.iter().enumerate().find(|(_, c)| c.len() != height) {
            return Err(AnonError::Config(format!(
                "column '{}' has {} rows, the first {height}",
                self.names[a],
                c.len()
            )));
        }
        if counts.is_some_and(|c| c.len() != height) {
            return Err(AnonError::Config(format!(
                "{} counts for {height} rows",
                counts.map_or(0, <[u64]>::len)
            )));
        }
        let w = self.words;
        let mut keys = vec![0u64; height * w];
        for (a, column) in columns.iter().enumerate() {
            let (word, shift, _) = self.fields[a];
            let size = self.sizes[a];
            let mut outside = false;
            for (key, &v) in keys.chunks_exact_mut(w).zip(column.iter()) {
                key[word] |= (v as u64) << shift;
                outside |= v as usize >= size;
            }
            if outside {
                let bad = column.iter().find(|&&v| v as usize >= size).copied();
                return Err(AnonError::Config(format!(
                    "column '{}': code {} is outside its {size} values",
                    self.names[a],
                    bad.unwrap_or(0)
                )));
            }
        }
        for (r, key) in keys.chunks_exact(w).enumerate() {
            let c = counts.map_or(1, |c| c[r]);
            self.insert(key, c);
            self.rows += c;
        }
        Ok(())
    }

    /// Rows of many columns added a slice at a time (`ROWS_AT_ONCE`), so the
    /// keys being packed stay small beside the columns.
    pub fn add_all(&mut self, columns: &[Vec<u32>], counts: &[u64]) -> Result<()> {
        for start in (0..counts.len()).step_by(ROWS_AT_ONCE) {
            let end = (start + ROWS_AT_ONCE).min(counts.len());
            let part: Vec<&[u32]> = columns.iter().map(|c| &c[start..end]).collect();
            self.add(&part, Some(&counts[start..end]))?;
        }
        Ok(())
    }

    fn insert(&mut self, key: &[u64], count: u64) {
        let h = key.iter().fold(0u64, |h, &v| mix(h ^ v).rotate_left(29));
        let mask = self.slots.len() - 1;
        let mut s = (mix(h) >> (64 - self.bits)) as usize;
        let w = self.words;
        loop {
            let g = self.slots[s];
            if g == 0 {
                break;
            }
            let g = g as usize - 1;
            if self.hashes[g] == h && self.keys[g * w..(g + 1) * w] == *key {
                self.counts[g] += count;
                return;
            }
            s = (s + 1) & mask;
        }
        self.keys.extend_from_slice(key);
        self.hashes.push(h);
        self.counts.push(count);
        self.slots[s] = self.counts.len() as u32;
        if self.counts.len() * 2 > self.slots.len() {
            self.grow();
        }
    }

    fn grow(&mut self) {
        self.bits += 1;
        self.slots = vec![0; 1 << self.bits];
        let mask = self.slots.len() - 1;
        for (g, &h) in self.hashes.iter().enumerate() {
            let mut s = (mix(h) >> (64 - self.bits)) as usize;
            while self.slots[s] != 0 {
                s = (s + 1) & mask;
            }
            self.slots[s] = g as u32 + 1;
        }
    }

    /// The distinct rows as a column of codes per attribute, and their counts.
    pub fn finish(self) -> (Vec<Vec<u32>>, Vec<u64>) {
        let w = self.words;
        let columns = self
            .fields
            .iter()
            .map(|&(word, shift, mask)| {
                self.keys
                    .chunks_exact(w)
                    .map(|k| ((k[word] >> shift) & mask) as u32)
                    .collect()
            })
            .collect();
        (columns, self.counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The rows' distinct combinations and their counts, by a sorted map.
    fn brute(columns: &[Vec<u32>], counts: &[u64]) -> BTreeMap<Vec<u32>, u64> {
        let mut m = BTreeMap::new();
        for (r, &c) in counts.iter().enumerate() {
            *m.entry(columns.iter().map(|col| col[r]).collect())
                .or_insert(0) += c;
        }
        m
    }

    #[test]
    fn batches_sum_to_one_grouping_of_all_rows_in_narrow_and_wide_keys() {
        // 3 attributes in one word; 40 attributes of 20 bits: 14 words
        for sizes in [vec![3, 1, 1000], vec![1 << 20; 40]] {
            let mut state = 7u64;
            let mut next = |m: usize| {
                state = mix(state.wrapping_add(1));
                (state >> 20) as usize % m
            };
            let n = 5000;
            // few distinct values each, so rows repeat within and across batches
            let columns: Vec<Vec<u32>> = sizes
                .iter()
                .map(|&s| {
                    (0..n)
                        .map(|_| (next(3.min(s)) * (s / 3).max(1)) as u32)
                        .collect()
                })
                .collect();
            let counts: Vec<u64> = (0..n).map(|_| next(4) as u64 + 1).collect();
            let names = (0..sizes.len()).map(|a| format!("a{a}")).collect();
            let mut b = Batches::new(names, sizes.clone());
            for at in (0..n).step_by(777) {
                let end = (at + 777).min(n);
                let part: Vec<Vec<u32>> = columns.iter().map(|c| c[at..end].to_vec()).collect();
                b.add(&part, Some(&counts[at..end])).unwrap();
            }
            assert_eq!(b.rows(), counts.iter().sum::<u64>());
            let (cols, cs) = b.finish();
            assert_eq!(brute(&cols, &cs), brute(&columns, &counts));
            assert_eq!(
                cs.len(),
                brute(&columns, &counts).len(),
                "rows are distinct"
            );
        }
    }

    #[test]
    fn a_code_outside_its_domain_is_refused_and_the_batch_not_added() {
        let mut b = Batches::new(vec!["x".into(), "y".into()], vec![2, 5]);
        b.add(&[vec![0, 1], vec![4, 4]], None).unwrap();
        let err = b.add(&[vec![0, 1], vec![4, 5]], None).unwrap_err();
        assert!(
            err.to_string()
                .contains("column 'y': code 5 is outside its 5 values"),
            "{err}"
        );
        assert_eq!((b.rows(), b.groups()), (2, 2));
        let err = b.add(&[vec![0, 1], vec![4]], None).unwrap_err();
        assert!(err.to_string().contains("column 'y' has 1 rows"), "{err}");
    }
}
