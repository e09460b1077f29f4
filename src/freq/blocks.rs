//! F0 in blocks: its rows sorted along one attribute's hierarchy, so that
//! the rows of each value of that attribute, at any level, are one run. A
//! node's groups never cross the runs of its level of that attribute, so
//! once a run is in the table the groups it made are final, and the tuples
//! in groups smaller than k counted so far can only grow. A check that reads
//! F0 stops between runs as soon as they pass the suppression budget: a
//! failing node (most of those an optimal search checks) costs the rows up
//! to its first bad runs, not all of F0. The runs are read smallest first: a
//! rare value is the likeliest to make a small group.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::aggregate::{own_table, with_table, Aggregator, Tables, Word};
use super::rollup::SPLIT_ROWS;
use super::wide::Codes;
use super::{FreqSet, Layout, Problem, RollupJob, SetData};
use crate::error::Result;

/// F0 sorted along `attr`'s hierarchy, and each level's runs.
#[derive(Clone, Debug)]
pub struct Blocks {
    pub attr: usize,
    rows: Sorted,
    /// For each level of `attr`: the runs of rows with one value at that
    /// level, smallest first.
    runs: Vec<Vec<Range<u32>>>,
}

/// Rows fed between two looks at the count (at the first run boundary past
/// this many rows since the last look): a look is one atomic add. Before
/// that, each feed (the smallest runs, then each share of the rest) looks
/// whenever the rows it fed since its last look are as many as those
/// before (after 1, 2, 4, ... rows, at run boundaries): a failing check
/// most often meets its small group in the first few (the smallest) runs,
/// and stops there instead of 512 rows on, without a look after every run
/// where runs are tiny.
const LOOK_ROWS: usize = 512;

/// Groups a table is started for: it grows past them as it fills. Most
/// checks stop early or have few groups; a table sized for all of F0's rows
/// would not stay in cache.
const START_GROUPS: usize = 4096;

impl Blocks {
    /// The runs a node's level of `attr` makes (1 when the level has one
    /// value): the more, the sooner a failing check can stop.
    pub fn count(&self, level: u8) -> usize {
        self.runs[level as usize].len()
    }

    pub fn bytes(&self) -> usize {
        let rows = match &self.rows {
            Sorted::Packed(set) => set.bytes(),
            Sorted::Narrow {
                columns, counts, ..
            } => 8 * counts.len() + columns.iter().map(Codes::bytes).sum::<usize>(),
        };
        rows + self.runs.iter().map(|e| 8 * e.len()).sum::<usize>()
    }
}

/// F0's rows in a blocks' order, as the kernel that reads them wants them.
/// Their levels are F0's, or the search's floors (`floors.rs`), below which
/// a node fails without a read.
#[derive(Clone, Debug)]
enum Sorted {
    /// Packed keys and counts (F0 packs in the problem's layout).
    Packed(FreqSet),
    /// Narrowed code columns and counts (it does not: `wide.rs`); `shell`
    /// names F0's attributes and levels for the rollup jobs, its data empty.
    Narrow {
        shell: FreqSet,
        columns: Vec<Codes>,
        counts: Vec<u64>,
    },
}

impl Sorted {
    /// The levels of the rows.
    fn levels(&self) -> &[u8] {
        match self {
            Sorted::Packed(set) | Sorted::Narrow { shell: set, .. } => &set.levels,
        }
    }
}

impl Problem {
    /// `from` (F0, or F0 grouped at floors; without carried columns) sorted
    /// along `attr`'s hierarchy: leaves ordered by their values from the
    /// top level down (so each value at any level covers a run of leaves),
    /// rows by their leaf's rank (a value above the leaves by its first
    /// leaf's). Packed in `layout` when F0 packs, else (F0 only) as
    /// narrowed columns.
    pub fn blocks(
        &self,
        from: &FreqSet,
        attr: usize,
        layout: Option<&Arc<Layout>>,
    ) -> Result<Blocks> {
        let h = &self.hierarchies[attr];
        let order = h.top_down();
        debug_assert!(layout.is_some() || std::ptr::eq(from, &self.base));
        let packed = layout.map(|l| from.packed(l)).transpose()?;
        let floor = from.levels[attr];
        let by_value;
        let rank = if floor == 0 {
            &order.rank
        } else {
            let map = h.leaf_map(floor);
            let mut first = vec![u32::MAX; h.domain_size(floor)];
            for (leaf, &r) in order.rank.iter().enumerate() {
                let v = &mut first[map[leaf] as usize];
                *v = (*v).min(r);
            }
            by_value = first;
            &by_value
        };
        // each row's rank, looked up once for both passes
        let ranks: Vec<u32> = match (layout, &packed) {
            (Some(layout), Some((keys, _))) => (keys.iter())
                .map(|&k| rank[layout.get(k, attr) as usize])
                .collect(),
            _ => (self.base.codes(attr)?.iter())
                .map(|&c| rank[c as usize])
                .collect(),
        };
        // a counting sort by rank: stable, one pass to count, one to place
        let mut starts = vec![0usize; order.rank.len() + 1];
        for &r in &ranks {
            starts[r as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        // rank r's rows are first[r]..first[r + 1]
        let first = starts.clone();
        let runs = runs(&order.split, &first, h.height() as usize);
        let counts = from.counts()?;
        let set = |data| FreqSet {
            attrs: from.attrs.clone(),
            levels: from.levels.clone(),
            carry: Vec::new(),
            data,
        };
        let rows = match (layout, &packed) {
            (Some(layout), Some((keys, _))) => {
                // placed where they go: no list of rows to gather through
                let mut sorted_keys = vec![0u64; keys.len()];
                let mut sorted_counts = vec![0u64; keys.len()];
                for ((&r, &key), &count) in ranks.iter().zip(keys.iter()).zip(counts.iter()) {
                    let at = &mut starts[r as usize];
                    sorted_keys[*at] = key;
                    sorted_counts[*at] = count;
                    *at += 1;
                }
                Sorted::Packed(set(SetData::Packed {
                    layout: layout.clone(),
                    keys: sorted_keys,
                    counts: sorted_counts,
                }))
            }
            _ => {
                let mut order = vec![0u32; ranks.len()];
                for (row, &r) in ranks.iter().enumerate() {
                    let at = &mut starts[r as usize];
                    order[*at] = row as u32;
                    *at += 1;
                }
                Sorted::Narrow {
                    shell: set(SetData::Frame(polars::prelude::DataFrame::empty())),
                    columns: self.narrow_base()?.iter().map(|c| c.take(&order)).collect(),
                    counts: order.iter().map(|&r| counts[r as usize]).collect(),
                }
            }
        };
        Ok(Blocks { attr, rows, runs })
    }

    /// The set of a full-lattice `node` from F0 in `blocks`, or `None` as soon
    /// as more than `max_suppressed` tuples are known to be in groups smaller
    /// than `k` (the node fails whatever the rest of the rows hold), or at
    /// once when it is below the blocks' floors. A node of a problem whose
    /// F0 does not pack, and whose own codes do not either, is rolled up
    /// from F0 whole.
    pub fn rollup_until(
        &self,
        blocks: &Blocks,
        node: &[u8],
        k: u64,
        max_suppressed: u64,
    ) -> Result<Option<FreqSet>> {
        if super::floors::under(node, blocks.rows.levels()) {
            return Ok(None);
        }
        let runs = &blocks.runs[node[blocks.attr] as usize];
        match &blocks.rows {
            Sorted::Packed(from) => {
                let SetData::Packed { layout, .. } = &from.data else {
                    unreachable!("blocks of a packed F0 are packed")
                };
                let job = RollupJob::new(from, from.attrs.clone(), node.to_vec());
                job.assert_up();
                let remap = self.remap(&job, layout, from.rows());
                let (keys, counts) = from.packed(layout)?;
                let limits = (k, self.groups_bound(&job), max_suppressed);
                with_table!(layout, self.rows, |tables| {
                    let feed = |agg: &mut Aggregator<_>, rows: Range<usize>| {
                        remap.feed(agg, &keys[rows.clone()], &counts[rows])
                    };
                    Ok(until(tables, &feed, runs, limits).map(|g| set(&job, layout, g)))
                })
            }
            Sorted::Narrow {
                shell,
                columns,
                counts,
            } => {
                let job = RollupJob::new(shell, shell.attrs.clone(), node.to_vec());
                job.assert_up();
                let Some(out) = self.wide_layout(&job) else {
                    return Ok(Some(self.node_set(node, super::Engine::Auto)?));
                };
                let out = Arc::new(out);
                let prepared = self.prepare_wide(&job, &out, Some((columns, counts)))?;
                let limits = (k, self.groups_bound(&job), max_suppressed);
                with_table!(&out, self.rows, |tables| {
                    let feed = |agg: &mut Aggregator<_>, rows| prepared.feed(agg, rows);
                    Ok(until(tables, &feed, runs, limits).map(|g| set(&job, &out, g)))
                })
            }
        }
    }
}

/// Each level's runs (up to `height`), smallest first, from the rows' starts
/// by rank (`first`, in the order of `TopDown`) and where the leaves'
/// values change (`split`): found from the ranks that hold rows, not the
/// rows, and between two of them a level's value changes when a split
/// between them reaches it.
fn runs(split: &[u8], first: &[usize], height: usize) -> Vec<Vec<Range<u32>>> {
    let mut runs: Vec<Vec<Range<u32>>> = vec![Vec::new(); height + 1];
    let mut open = vec![0u32; height + 1];
    let rows = first[first.len() - 1] as u32;
    // the highest level whose value changed since the last rank with rows
    let mut changed = 0usize;
    let mut any = false;
    for (r, &s) in split.iter().enumerate() {
        changed = changed.max(s as usize);
        if first[r] == first[r + 1] {
            continue;
        }
        let at = first[r] as u32;
        if any {
            for (level, start) in open.iter_mut().enumerate().take(changed + 1) {
                runs[level].push(*start..at);
                *start = at;
            }
        }
        any = true;
        changed = 0;
    }
    if any {
        for (level, &start) in open.iter().enumerate() {
            runs[level].push(start..rows);
        }
    }
    runs.into_iter().map(smallest_first).collect()
}

/// Runs (in the order of their starts) by length, shortest first, ties by
/// start: a counting sort by length when there are many (ZIP's leaves make
/// tens of thousands, which a comparison sort took milliseconds over).
fn smallest_first(mut runs: Vec<Range<u32>>) -> Vec<Range<u32>> {
    let longest = runs.iter().map(|r| r.len()).max().unwrap_or(0);
    if runs.len() < 256 || longest > 4 * runs.len() {
        runs.sort_by_key(|r| (r.len(), r.start));
        return runs;
    }
    let mut starts = vec![0usize; longest + 2];
    for r in &runs {
        starts[r.len() + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut out = vec![0..0; runs.len()];
    for r in runs {
        let at = &mut starts[r.len()];
        out[*at] = r;
        *at += 1;
    }
    out
}

/// A job's target set from its groups.
fn set(job: &RollupJob<'_>, layout: &Arc<Layout>, (keys, counts): (Vec<u64>, Vec<u64>)) -> FreqSet {
    FreqSet {
        attrs: job.attrs.clone(),
        levels: job.levels.clone(),
        carry: Vec::new(),
        data: SetData::Packed {
            layout: layout.clone(),
            keys,
            counts,
        },
    }
}

/// Puts a range of F0's rows (in a blocks' order) into a table.
type Feed<'a, W> = dyn Fn(&mut Aggregator<W>, Range<usize>) + Sync + 'a;

/// `rollup_until` in the tables of one slot width: the groups, or `None`
/// once the node fails. The smallest runs go into this thread's table
/// first, where most failing checks stop; the rest, when large, is shared
/// with a second core, each run to one of them.
fn until<W: Word>(
    tables: &'static Tables<W>,
    feed: &Feed<'_, W>,
    runs: &[Range<u32>],
    (k, bound, max_suppressed): (u64, usize, u64),
) -> Option<(Vec<u64>, Vec<u64>)> {
    let watch = Watch {
        feed,
        k,
        groups: bound.min(START_GROUPS),
        max_suppressed,
        seen: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    };
    // off the pool (a caller of the Rust API) every share waits for a
    // worker to wake: share only large reads
    let (alone_rows, share_rows) = match rayon::current_thread_index() {
        Some(_) => (ALONE_ROWS, SHARE_ROWS),
        None => (OFF_POOL_ALONE_ROWS, SPLIT_ROWS),
    };
    let mut fed = 0;
    let alone = runs
        .iter()
        .take_while(|r| {
            let before = fed;
            fed += r.len();
            before < alone_rows
        })
        .count();
    let (first, rest) = runs.split_at(alone);
    let rest_rows: usize = rest.iter().map(|r| r.len()).sum();
    own_table(tables, |agg| {
        let mut told = watch.start(agg);
        if !watch.feed(agg, first.iter(), &mut told) {
            return watch.done(agg, false);
        }
        if rest_rows < share_rows || rayon::current_num_threads() < 2 {
            let ok = watch.feed(agg, rest.iter(), &mut told);
            return watch.done(agg, ok);
        }
        let (a, b) = rayon::join(
            || {
                let ok = watch.feed(agg, rest.iter().step_by(2), &mut told);
                watch.done(agg, ok)
            },
            || {
                own_table(tables, |agg| {
                    let mut told = watch.start(agg);
                    let ok = watch.feed(agg, rest.iter().skip(1).step_by(2), &mut told);
                    watch.done(agg, ok)
                })
            },
        );
        let ((mut keys, mut counts), (kb, cb)) = (a?, b?);
        // no group crosses runs: the two tables' groups are disjoint
        keys.extend(kb);
        counts.extend(cb);
        Some((keys, counts))
    })
}

/// Rows of the smallest runs a check reads on its own thread before it
/// shares the rest with another core: a share costs a push on the pool
/// thread's queue (searches run on the pool: `python/pool.rs`) and a second
/// table, more than a failing check that stops in them.
const ALONE_ROWS: usize = 1024;

/// Rows left after those from which the rest is shared: on the pool a share
/// pays for itself from about a thousand rows (from a thread outside it,
/// each would wait tens of microseconds for a worker to wake).
const SHARE_ROWS: usize = 1024;

/// `ALONE_ROWS` off the pool, where the rest is shared from `SPLIT_ROWS`.
const OFF_POOL_ALONE_ROWS: usize = 16_384;

/// What the tables of one check share: the rows, the model, and the tuples
/// in small groups counted by each (`seen`), to stop both at once.
struct Watch<'a, W: Word> {
    feed: &'a Feed<'a, W>,
    k: u64,
    groups: usize,
    max_suppressed: u64,
    seen: AtomicU64,
    stop: AtomicBool,
}

impl<W: Word> Watch<'_, W> {
    /// Start a table for this check; its count told so far (none).
    fn start(&self, agg: &mut Aggregator<W>) -> u64 {
        agg.below = self.k;
        agg.start(self.groups);
        0
    }

    /// Feed `runs` into `agg`, looking at the count between runs (as the
    /// rows this call fed double, then every `LOOK_ROWS` rows, and after
    /// the last): false at the first look where the tuples in small groups
    /// of both tables pass `max_suppressed`, or the other table stopped.
    /// `told` is what `agg` has added to `seen`.
    fn feed<'r>(
        &self,
        agg: &mut Aggregator<W>,
        runs: impl Iterator<Item = &'r Range<u32>>,
        told: &mut u64,
    ) -> bool {
        let mut runs = runs.peekable();
        let (mut fed, mut all) = (0usize, 0usize);
        while let Some(run) = runs.next() {
            let run = run.start as usize..run.end as usize;
            (self.feed)(agg, run.clone());
            fed += run.len();
            all += run.len();
            if fed < LOOK_ROWS && 2 * fed < all && runs.peek().is_some() {
                continue;
            }
            fed = 0;
            let now = agg.suppressed;
            let total = self.seen.fetch_add(now - *told, Ordering::Relaxed) + (now - *told);
            *told = now;
            if total > self.max_suppressed || self.stop.load(Ordering::Relaxed) {
                self.stop.store(true, Ordering::Relaxed);
                return false;
            }
        }
        true
    }

    /// The table's groups if `ok`, else nothing; the table is left empty.
    fn done(&self, agg: &mut Aggregator<W>, ok: bool) -> Option<(Vec<u64>, Vec<u64>)> {
        agg.below = 0;
        if ok {
            Some(agg.finish())
        } else {
            agg.clear();
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::Hierarchy;

    #[test]
    fn each_levels_runs_tile_the_rows_one_value_each() {
        // leaves coded out of hierarchy order (a parent's leaves are not
        // adjacent codes), and some leaves without rows
        let h = Hierarchy::from_rows(
            (0..40u32)
                .map(|v| {
                    let p = v % 7;
                    vec![
                        format!("{v}"),
                        format!("p{p}"),
                        format!("g{}", p % 3),
                        "*".into(),
                    ]
                })
                .collect(),
            "runs",
        )
        .unwrap();
        let flat = Hierarchy::from_rows(
            (0..10).map(|v| vec![format!("{v}"), "*".into()]).collect(),
            "b",
        )
        .unwrap();
        let rows: Vec<u32> = (0..5000u32)
            .filter(|i| (i * 7919 % 97) % 40 % 5 != 3)
            .collect();
        let a: Vec<u32> = rows.iter().map(|i| (i * 7919 % 97) % 40).collect();
        let b: Vec<u32> = rows.iter().map(|i| i % 10).collect();
        let n = a.len();
        let p = Problem::from_codes(
            vec!["a".into(), "b".into()],
            vec![h.clone(), flat],
            vec![a, b],
            vec![1; n],
        )
        .unwrap();
        let layout = p.layout.clone().expect("two small attributes pack");
        let blocks = p.blocks(&p.base, 0, Some(&layout)).unwrap();
        let Sorted::Packed(set) = &blocks.rows else {
            panic!("packed")
        };
        let (keys, _) = set.packed(&layout).unwrap();
        let leaf: Vec<u32> = keys.iter().map(|&k| layout.get(k, 0)).collect();
        assert!(leaf.len() > 200, "{} rows", leaf.len());
        for level in 0..=h.height() {
            let map = h.leaf_map(level);
            let mut runs = blocks.runs[level as usize].clone();
            let key = |r: &Range<u32>| (r.len(), r.start);
            assert!(
                runs.windows(2).all(|w| key(&w[0]) < key(&w[1])),
                "smallest first"
            );
            runs.sort_by_key(|r| r.start);
            let mut seen = std::collections::HashSet::new();
            let mut end = 0;
            for run in &runs {
                assert_eq!(run.start, end, "level {level}: runs tile the rows");
                end = run.end;
                let value = map[leaf[run.start as usize] as usize];
                assert!(run.clone().all(|r| map[leaf[r as usize] as usize] == value));
                assert!(seen.insert(value), "level {level}: one run a value");
            }
            assert_eq!(end as usize, leaf.len());
        }
    }

    #[test]
    fn many_runs_come_shortest_first_ties_by_start() {
        // past the size where the counting sort takes over, against a
        // comparison sort; lengths from 1 up, some repeated
        let mut runs = Vec::new();
        let mut at = 0u32;
        for i in 0..3000u32 {
            let len = 1 + (i * 7919) % 13;
            runs.push(at..at + len);
            at += len;
        }
        let mut want = runs.clone();
        want.sort_by_key(|r| (r.len(), r.start));
        assert_eq!(smallest_first(runs), want);
        // one long run among them: a comparison sort
        let long = vec![0..10_000, 10_000..10_001];
        assert_eq!(smallest_first(long), vec![10_000..10_001, 0..10_000]);
    }
}
