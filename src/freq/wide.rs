//! Rollups for problems whose leaf codes do not pack into 63 bits (many
//! quasi-identifiers, or large hierarchies): the native kernel still runs
//! whenever the *target's* codes do. A target above the leaves needs fewer
//! bits than F0 (15 census attributes: 74 bits at the leaves, 30 to 60 at
//! the nodes a search checks), so each set made here is packed in a layout
//! of its own, sized for the codes at its levels, and carries it
//! (`SetData::Packed`); its source is read column by column (F0 as a Polars
//! frame) or field by field in the source's own layout. A job whose target
//! does not fit either, or that carries sensitive columns, goes to Polars.
//! Without this every rollup of such a problem was a Polars plan (about
//! 3 ms a node at 15 attributes, against 0.3 ms at 12 with the kernel).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use super::aggregate::{with_table, Aggregator, Word};
use super::rollup::in_halves;
use super::{code_col, values, FreqSet, Layout, Problem, RollupJob, SetData};
use crate::error::Result;

/// Rows whose keys are assembled at once, attribute by attribute, before
/// they go into the table (the buffer stays in the first-level cache).
const CHUNK: usize = 1024;

/// A code column in the narrowest integers that hold its codes: F0 read
/// as a Polars frame's `u32` columns moves four times the bytes of the
/// byte-sized codes most categories need, and a search reads F0 thousands
/// of times (census, 15 attributes: 60 bytes a row as `u32`, 16 narrowed).
#[derive(Clone, Debug)]
pub(crate) enum Codes {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Codes {
    fn new(codes: Vec<u32>, domain: usize) -> Self {
        if domain <= 1 << 8 {
            Codes::U8(codes.into_iter().map(|c| c as u8).collect())
        } else if domain <= 1 << 16 {
            Codes::U16(codes.into_iter().map(|c| c as u16).collect())
        } else {
            Codes::U32(codes)
        }
    }

    /// The codes of rows `order`, in that order.
    pub(crate) fn take(&self, order: &[u32]) -> Self {
        fn take<C: Copy>(c: &[C], order: &[u32]) -> Vec<C> {
            order.iter().map(|&r| c[r as usize]).collect()
        }
        match self {
            Codes::U8(c) => Codes::U8(take(c, order)),
            Codes::U16(c) => Codes::U16(take(c, order)),
            Codes::U32(c) => Codes::U32(take(c, order)),
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        match self {
            Codes::U8(c) => c.len(),
            Codes::U16(c) => 2 * c.len(),
            Codes::U32(c) => 4 * c.len(),
        }
    }
}

/// A code that indexes a table.
trait Code: Copy {
    fn index(self) -> usize;
}
impl Code for u8 {
    fn index(self) -> usize {
        self as usize
    }
}
impl Code for u16 {
    fn index(self) -> usize {
        self as usize
    }
}
impl Code for u32 {
    fn index(self) -> usize {
        self as usize
    }
}

/// Add each row's shifted target code to its key.
#[inline(always)]
fn or_into<C: Code>(buf: &mut [u64], codes: &[C], shifted: &[u64]) {
    for (b, &c) in buf.iter_mut().zip(codes) {
        *b |= shifted[c.index()];
    }
}

/// Where one attribute's source code is read from.
enum Source<'a> {
    /// F0's narrowed column.
    Narrow(&'a Codes),
    /// A code column (a Polars frame's `q{attr}`).
    Column(Cow<'a, [u32]>),
    /// A field of the source's packed keys.
    Field { shift: u32, mask: u64 },
}

impl Problem {
    /// The layout of a job's target, when the codes at its levels fit 63
    /// bits and it carries nothing: a field per attribute of the job (the
    /// others take no bits).
    pub(super) fn wide_layout(&self, job: &RollupJob<'_>) -> Option<Layout> {
        if !job.from.carry.is_empty() {
            return None;
        }
        let mut sizes = vec![1usize; self.n_attrs()];
        for (&a, &l) in job.attrs.iter().zip(&job.levels) {
            sizes[a] = self.hierarchies[a].domain_size(l);
        }
        Layout::new(&sizes)
    }

    /// Rollups of a problem without a packed layout: the native kernel for
    /// each job whose target packs (`wide_layout`), one Polars `collect_all`
    /// for the others; results in the jobs' order.
    pub(super) fn rollup_wide_many(&self, jobs: &[RollupJob<'_>]) -> Result<Vec<FreqSet>> {
        let layouts: Vec<Option<Layout>> = jobs.iter().map(|j| self.wide_layout(j)).collect();
        let rest: Vec<RollupJob<'_>> = jobs
            .iter()
            .zip(&layouts)
            .filter(|(_, l)| l.is_none())
            .map(|(j, _)| j.clone())
            .collect();
        let mut polars = self.rollup_polars(&rest)?.into_iter();
        jobs.iter()
            .zip(layouts)
            .map(|(job, layout)| match layout {
                Some(layout) => self.rollup_wide(job, Arc::new(layout)),
                None => Ok(polars.next().expect("one set per Polars job")),
            })
            .collect()
    }

    /// F0's code columns narrowed (`Codes`), made on first use.
    pub(super) fn narrow_base(&self) -> Result<&Vec<Codes>> {
        if let Some(columns) = self.narrow_base.get() {
            return Ok(columns);
        }
        let columns = self
            .base
            .attrs
            .iter()
            .map(|&a| {
                Ok(Codes::new(
                    self.base.codes(a)?,
                    self.hierarchies[a].domain_size(0),
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(self.narrow_base.get_or_init(|| columns))
    }

    /// One rollup into a target packed in `out` (on two cores when large;
    /// the source is prepared once for both halves).
    fn rollup_wide(&self, job: &RollupJob<'_>, out: Arc<Layout>) -> Result<FreqSet> {
        job.assert_up();
        let prepared = self.prepare_wide(job, &out, None)?;
        with_table!(&out, self.rows, |tables| in_halves(
            tables,
            job.from.rows(),
            |agg, rows| {
                prepared.aggregate(agg, rows);
                Ok(())
            },
            |agg| agg.take_set(&job.attrs, &job.levels, &[], &out),
        ))
    }

    /// What a wide rollup reads: each changing attribute's source and its
    /// table of shifted target codes, the source's keys and counts; `rows`
    /// gives F0's narrowed columns and counts in another order (`blocks.rs`)
    /// for a job whose source names F0's attributes at its levels.
    pub(super) fn prepare_wide<'a>(
        &'a self,
        job: &'a RollupJob<'_>,
        out: &Layout,
        rows: Option<(&'a [Codes], &'a [u64])>,
    ) -> Result<Prepared<'a>> {
        let from = job.from;
        let narrow = match (&from.data, rows) {
            (_, Some((columns, _))) => Some(columns),
            (SetData::Frame(_), None) if std::ptr::eq(from, &self.base) => {
                Some(&self.narrow_base()?[..])
            }
            _ => None,
        };
        let mut fields = Vec::with_capacity(job.attrs.len());
        for (&a, &l) in job.attrs.iter().zip(&job.levels) {
            if self.hierarchies[a].domain_size(l) == 1 {
                continue; // one value: code 0, no bits to set
            }
            let pos = from
                .attrs
                .iter()
                .position(|&x| x == a)
                .expect("rollup target attribute must be in the source set");
            let (h, src_level) = (&self.hierarchies[a], from.levels[pos]);
            let shifted: Vec<u64> = if src_level == l {
                (0..h.domain_size(l) as u64)
                    .map(|c| c << out.shift[a])
                    .collect()
            } else {
                let map = h.map_between(src_level, l);
                map.iter().map(|&c| (c as u64) << out.shift[a]).collect()
            };
            let source = match (&from.data, narrow) {
                (_, Some(columns)) => Source::Narrow(&columns[pos]),
                (SetData::Frame(df), None) => {
                    Source::Column(values(df.column(&code_col(a))?.u32()?))
                }
                (SetData::Packed { layout, .. }, None) => Source::Field {
                    shift: layout.shift[a],
                    mask: layout.mask[a],
                },
            };
            fields.push((source, shifted));
        }
        let keys: &[u64] = match &from.data {
            SetData::Packed { keys, .. } => keys,
            SetData::Frame(_) => &[],
        };
        Ok(Prepared {
            fields,
            keys,
            counts: match rows {
                Some((_, counts)) => Cow::Borrowed(counts),
                None => from.counts()?,
            },
            bound: self.groups_bound(job),
        })
    }
}

/// A wide rollup's source, ready to read (`Problem::prepare_wide`).
pub(super) struct Prepared<'a> {
    fields: Vec<(Source<'a>, Vec<u64>)>,
    keys: &'a [u64],
    counts: Cow<'a, [u64]>,
    /// The product of the target's domains: no more groups than this.
    bound: usize,
}

impl Prepared<'_> {
    /// Each source row in `rows` to its target key, built a chunk of rows
    /// at a time one attribute after another through its table of shifted
    /// target codes, and its count summed in `agg`.
    fn aggregate<W: Word>(&self, agg: &mut Aggregator<W>, rows: Range<usize>) {
        agg.start(rows.len().min(self.bound));
        self.feed(agg, rows);
    }

    /// `aggregate` into a table already started.
    pub(super) fn feed<W: Word>(&self, agg: &mut Aggregator<W>, rows: Range<usize>) {
        let mut buf = [0u64; CHUNK];
        for start in rows.clone().step_by(CHUNK) {
            let end = (start + CHUNK).min(rows.end);
            let buf = &mut buf[..end - start];
            buf.fill(0);
            for (source, shifted) in &self.fields {
                match source {
                    Source::Narrow(Codes::U8(c)) => or_into(buf, &c[start..end], shifted),
                    Source::Narrow(Codes::U16(c)) => or_into(buf, &c[start..end], shifted),
                    Source::Narrow(Codes::U32(c)) => or_into(buf, &c[start..end], shifted),
                    Source::Column(c) => or_into(buf, &c[start..end], shifted),
                    Source::Field { shift, mask } => {
                        for (b, &k) in buf.iter_mut().zip(&self.keys[start..end]) {
                            *b |= shifted[((k >> shift) & mask) as usize];
                        }
                    }
                }
            }
            agg.feed(buf, &self.counts[start..end], |k| k);
        }
    }
}
