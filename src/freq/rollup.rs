//! Rollups: a frequency set from a less general one, by the native kernel
//! (rewrite each packed key through the level maps, sum counts by key) or by
//! Polars plans.

use std::ops::Range;
use std::sync::Arc;

use super::aggregate::{own_table, with_table, Aggregator, Tables, Word};
use super::{Engine, FreqSet, Layout, Problem};
use crate::error::Result;

/// One rollup: the set of `attrs` at `levels`, from `from` (which holds those
/// attributes at or below those levels).
#[derive(Clone, Debug)]
pub struct RollupJob<'a> {
    pub from: &'a FreqSet,
    pub attrs: Vec<usize>,
    pub levels: Vec<u8>,
}

impl<'a> RollupJob<'a> {
    pub fn new(from: &'a FreqSet, attrs: Vec<usize>, levels: Vec<u8>) -> Self {
        RollupJob {
            from,
            attrs,
            levels,
        }
    }

    /// Panics unless the target is above the source: a rollup goes up the
    /// hierarchy, never down (a search that asks otherwise is wrong).
    pub(crate) fn assert_up(&self) {
        debug_assert_eq!(self.attrs.len(), self.levels.len());
        for (a, l) in self.attrs.iter().zip(&self.levels) {
            let pos = self
                .from
                .attrs
                .iter()
                .position(|x| x == a)
                .expect("rollup target attribute must be in the source set");
            assert!(
                self.from.levels[pos] <= *l,
                "rollup goes up the hierarchy, never down"
            );
        }
    }
}

impl Problem {
    /// Rollups of many jobs at once; with the Polars engine they run as one
    /// `collect_all`.
    pub fn rollup_many(&self, jobs: &[RollupJob<'_>], engine: Engine) -> Result<Vec<FreqSet>> {
        jobs.iter().for_each(RollupJob::assert_up);
        let Some(layout) = self.native_layout(engine)? else {
            if self.wide(engine) {
                return self.rollup_wide_many(jobs);
            }
            return self.rollup_polars(jobs);
        };
        if let [job] = jobs {
            let remap = self.remap(job, layout, job.from.rows());
            return with_table!(layout, self.rows, |tables| {
                let set = in_halves(
                    tables,
                    job.from.rows(),
                    |agg, rows| self.aggregate_rows(job, &remap, agg, layout, rows),
                    |agg| agg.take_set(&job.attrs, &job.levels, &job.from.carry, layout),
                )?;
                Ok(vec![set])
            });
        }
        with_table!(layout, self.rows, |tables| {
            self.native_jobs(jobs, tables, |_, j, agg| {
                self.aggregate(j, agg, layout)?;
                Ok(agg.take_set(&j.attrs, &j.levels, &j.from.carry, layout))
            })
        })
    }

    /// Runs `f` on every job (with its index) and the native kernel's table of
    /// the thread it lands on: independent rollups spread over rayon's pool one
    /// job at a time (they differ wildly in size: a root from a cuboid against a
    /// small child), each pool thread keeping its own table between rollups and
    /// batches; small batches stay on the calling thread.
    pub(crate) fn native_jobs<W: Word, T: Send>(
        &self,
        jobs: &[RollupJob<'_>],
        tables: &'static Tables<W>,
        f: impl Fn(usize, &RollupJob<'_>, &mut Aggregator<W>) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let one = |(i, j): (usize, &RollupJob<'_>)| own_table(tables, |agg| f(i, j, agg));
        if serial(jobs) {
            return jobs.iter().enumerate().map(one).collect();
        }
        use rayon::prelude::*;
        jobs.par_iter()
            .enumerate()
            .with_max_len(1)
            .map(one)
            .collect()
    }

    pub fn rollup(&self, job: RollupJob<'_>, engine: Engine) -> Result<FreqSet> {
        let mut v = self.rollup_many(std::slice::from_ref(&job), engine)?;
        Ok(v.pop().expect("one job, one result"))
    }

    /// The product of a job's target domains (carried columns included),
    /// which bounds its groups exactly: for general nodes it keeps the table
    /// small enough to stay in L1.
    pub(super) fn groups_bound(&self, job: &RollupJob<'_>) -> usize {
        let n = self.names.len();
        job.attrs
            .iter()
            .zip(&job.levels)
            .map(|(&a, &l)| self.hierarchies[a].domain_size(l))
            .chain(
                job.from
                    .carry
                    .iter()
                    .map(|&c| self.sensitive[c - n].values.len()),
            )
            .try_fold(1usize, |acc, d| acc.checked_mul(d.max(1)))
            .unwrap_or(usize::MAX)
    }

    /// The map taking `attr`'s codes in `from` up to level `to`, or `None`
    /// when they are at that level already (no identity map is built: most
    /// attributes of a rollup do not change).
    pub(crate) fn level_map(&self, from: &FreqSet, attr: usize, to: u8) -> Option<Arc<[u32]>> {
        let pos = from
            .attrs
            .iter()
            .position(|&x| x == attr)
            .expect("attr in source");
        let src = from.levels[pos];
        (src != to).then(|| self.hierarchies[attr].map_between(src, to))
    }

    /// The tight kernel: rewrite the packed key of each row of `from` (map the
    /// fields of the attributes that go up, clear those dropped) and sum counts
    /// in `agg`'s open-addressing table, where the groups are left.
    pub(crate) fn aggregate<W: Word>(
        &self,
        job: &RollupJob<'_>,
        agg: &mut Aggregator<W>,
        layout: &Arc<Layout>,
    ) -> Result<()> {
        let remap = self.remap(job, layout, job.from.rows());
        self.aggregate_rows(job, &remap, agg, layout, 0..job.from.rows())
    }

    /// `aggregate` of the source's rows in `rows` only.
    fn aggregate_rows<W: Word>(
        &self,
        job: &RollupJob<'_>,
        remap: &Remap,
        agg: &mut Aggregator<W>,
        layout: &Arc<Layout>,
        rows: Range<usize>,
    ) -> Result<()> {
        let (src, counts) = job.from.packed(layout)?;
        agg.start(rows.len().min(self.groups_bound(job)));
        remap.feed(agg, &src[rows.clone()], &counts[rows]);
        Ok(())
    }

    /// How a job rewrites its source's packed keys, prepared once for the
    /// `rows` it will read (however they are split).
    pub(crate) fn remap(&self, job: &RollupJob<'_>, layout: &Layout, rows: usize) -> Remap {
        let (from, attrs, levels) = (job.from, &job.attrs, &job.levels);
        let mut clear = 0u64;
        for &a in &from.attrs {
            if !attrs.contains(&a) {
                clear |= layout.field(a);
            }
        }
        let mut fields: Vec<Field> = Vec::new();
        for (&a, &l) in attrs.iter().zip(levels) {
            if self.hierarchies[a].domain_size(l) == 1 {
                // one value (code 0): the field is cleared, not looked up
                clear |= layout.field(a);
            } else if let Some(map) = self.level_map(from, a, l) {
                fields.push((layout.shift[a], layout.mask[a], map));
            }
        }
        let keep = !clear & !fields.iter().fold(0u64, |m, (sh, mk, _)| m | (mk << sh));
        // Many fields change: when the source is large enough to pay for it,
        // remap whole runs of adjacent fields with one lookup.
        if fields.len() > 1 {
            if let Some((keep, runs)) = chunk_maps(&fields, keep, rows) {
                return Remap {
                    keep,
                    lookups: Lookups::Runs(runs),
                };
            }
        }
        Remap {
            keep,
            lookups: Lookups::Fields(fields),
        }
    }
}

/// A field of a packed key that a rollup maps up: its shift, its mask and
/// the map of its codes (the hierarchy's own, shared).
type Field = (u32, u64, Arc<[u32]>);

/// A rollup's rewrite of packed keys: the bits kept as they are, and the
/// lookups that give the rest.
pub(crate) struct Remap {
    keep: u64,
    lookups: Lookups,
}

/// How the fields that go up are looked up: each field's code mapped and
/// shifted into place, or runs of adjacent fields looked up whole, each
/// run's table giving its fields already in place (`chunk_maps`).
enum Lookups {
    Fields(Vec<Field>),
    Runs(Vec<(u32, u64, Vec<u64>)>),
}

impl Remap {
    /// Rewrite each key and add its count into the table: one pass.
    pub(crate) fn feed<W: Word>(&self, agg: &mut Aggregator<W>, src: &[u64], counts: &[u64]) {
        let keep = self.keep;
        let field =
            |k: u64, &(sh, mk, ref map): &Field| (map[((k >> sh) & mk) as usize] as u64) << sh;
        match &self.lookups {
            Lookups::Fields(fields) => match fields.as_slice() {
                [] => agg.feed(src, counts, |k| k & keep),
                [one] => agg.feed(src, counts, |k| (k & keep) | field(k, one)),
                fields => agg.feed(src, counts, |k| {
                    fields.iter().fold(k & keep, |v, f| v | field(k, f))
                }),
            },
            Lookups::Runs(runs) => agg.feed(src, counts, |k| {
                runs.iter().fold(k & keep, |v, (sh, mk, table)| {
                    v | table[((k >> sh) & mk) as usize]
                })
            }),
        }
    }
}

/// Rows from which one rollup alone is split over two cores.
pub(super) const SPLIT_ROWS: usize = 32_768;

/// One rollup of a source of `n` rows: `fill` puts rows into a table and
/// `take` reads the set out. From `SPLIT_ROWS` rows it runs on two cores:
/// each half of the rows into its thread's table, then the two (smaller)
/// results summed into one; below, on this thread.
pub(super) fn in_halves<W: Word>(
    tables: &'static Tables<W>,
    n: usize,
    fill: impl Fn(&mut Aggregator<W>, Range<usize>) -> Result<()> + Sync,
    take: impl FnOnce(&mut Aggregator<W>) -> FreqSet,
) -> Result<FreqSet> {
    if n < SPLIT_ROWS || rayon::current_num_threads() < 2 {
        return own_table(tables, |agg| {
            fill(agg, 0..n)?;
            Ok(take(agg))
        });
    }
    let half = |rows: Range<usize>| {
        own_table(tables, |agg| {
            fill(agg, rows)?;
            Ok::<_, crate::error::AnonError>(agg.finish())
        })
    };
    let (a, b) = rayon::join(|| half(0..n / 2), || half(n / 2..n));
    let ((ka, ca), (kb, cb)) = (a?, b?);
    own_table(tables, |agg| {
        agg.start(ka.len() + kb.len());
        agg.feed(&ka, &ca, |k| k);
        agg.feed(&kb, &cb, |k| k);
        Ok(take(agg))
    })
}

/// Rows below which a batch of rollups runs on the calling thread: waking the
/// pool costs more than it saves for a few thousand rows.
const PARALLEL_MIN_ROWS: usize = 2_048;

pub(crate) fn serial(jobs: &[RollupJob<'_>]) -> bool {
    jobs.len() < 2
        || rayon::current_num_threads() < 2
        || jobs.iter().map(|j| j.from.rows()).sum::<usize>() < PARALLEL_MIN_ROWS
}

/// Widest run of key bits remapped by one lookup table (2^12 entries, 32 KiB).
const CHUNK_BITS: u32 = 12;

/// Remap tables over runs of adjacent bit fields instead of one per field:
/// each table takes a run of up to `CHUNK_BITS` bits of the source key (the
/// changing fields and any kept or dropped ones between them) to the run's
/// bits in the new key: fewer lookups per row when many fields change. `None`
/// when that saves nothing or the tables would cost more to fill than the
/// rows they serve.
#[allow(clippy::type_complexity)]
fn chunk_maps(
    fields: &[Field],
    keep: u64,
    rows: usize,
) -> Option<(u64, Vec<(u32, u64, Vec<u64>)>)> {
    let mut order: Vec<&Field> = fields.iter().collect();
    order.sort_by_key(|m| m.0);
    let width = |m: &Field| 64 - m.1.leading_zeros();
    let mut runs: Vec<Vec<&Field>> = Vec::new();
    for m in order {
        match runs.last_mut() {
            Some(run) if m.0 + width(m) - run[0].0 <= CHUNK_BITS => run.push(m),
            _ => runs.push(vec![m]),
        }
    }
    let cost: usize = runs
        .iter()
        .map(|r| {
            let last = r[r.len() - 1];
            1usize << (last.0 + width(last) - r[0].0)
        })
        .sum();
    if runs.len() >= fields.len() || rows < 2 * cost {
        return None;
    }
    let unchanged = keep;
    let mut keep = keep;
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let (lo, last) = (run[0].0, run[run.len() - 1]);
        let bits = last.0 + width(last) - lo;
        let span = ((1u64 << bits) - 1) << lo;
        keep &= !span;
        let table = (0..1u64 << bits)
            .map(|v| {
                let full = v << lo;
                // fields between the changing ones pass unchanged; fields
                // dropped from the set (cleared in `keep`) do not
                run.iter().fold(full & unchanged, |acc, (sh, mk, map)| {
                    let code = map.get(((full >> sh) & mk) as usize).copied();
                    acc | code.map_or(0, |c| (c as u64) << sh)
                })
            })
            .collect();
        out.push((lo, (1u64 << bits) - 1, table));
    }
    Some((keep, out))
}
