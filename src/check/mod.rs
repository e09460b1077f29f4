//! The checker: a node's groups under the model (k and the criteria), from a
//! rollup of a set the search already holds.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use crate::error::{AnonError, Result};
use crate::freq::aggregate::{with_table, Aggregator, Word};
use crate::freq::{Blocks, Engine, FreqSet, Layout, Problem, RollupJob};
use crate::lattice::node_height;
use crate::metrics::loss;

mod figures;
mod model;

use crate::metrics::GroupStats;
pub use model::Model;

/// Checks nodes of one problem under one model, rolling up with one engine.
#[derive(Clone, Debug)]
pub struct Checker<'p> {
    pub problem: &'p Problem,
    pub model: Model,
    pub engine: Engine,
    /// The figures evaluations work out beyond the loss (`Figures::NONE` by
    /// default: the loss and the group statistics only).
    pub figures: Figures,
}

/// Figures an evaluation can work out beyond the loss, each a pass over the
/// node's set (the KL divergence one over F0 too): a search asks only for
/// those its objective reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub entropy: bool,
    pub ambiguity: bool,
    pub kl_divergence: bool,
}

impl Figures {
    pub const NONE: Figures = Figures {
        entropy: false,
        ambiguity: false,
        kl_divergence: false,
    };
}

/// A node's group statistics, and each attribute's mean cost per record
/// under ARX's loss (suppressed records costing 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluated {
    pub stats: GroupStats,
    pub attribute_loss: Vec<f64>,
    /// Per attribute, what suppression adds to ARX's non-uniform entropy
    /// (`figures`), when the checker was asked for it.
    pub suppressed_entropy: Option<Vec<f64>>,
    /// ARX's ambiguity (`figures`), when the checker was asked for it.
    pub ambiguity: Option<f64>,
    /// ARX's KL divergence (`figures`), when the checker was asked for it.
    pub kl_divergence: Option<f64>,
}

/// One class of a node under the model (`Checker::verdicts`).
#[derive(Clone, Debug)]
pub struct Verdict {
    pub size: u64,
    /// Why it is suppressed: "k", a group criterion's name, or the models of
    /// the whole release that made it go; None when it is released.
    pub reason: Option<Cow<'static, str>>,
    /// Its rows in the node's frequency set: `Verdicts::order[rows]`.
    pub rows: std::ops::Range<usize>,
}

/// Every class of a node's set under the model, and the set's rows in class
/// order (each class's rows are a run of `order`).
#[derive(Clone, Debug)]
pub struct Verdicts {
    pub order: Vec<u32>,
    pub classes: Vec<Verdict>,
}

/// A checked node: the tuples its groups would suppress, and its frequency
/// set when the caller asked to keep it and the node failed.
pub type Checked = (u64, Option<FreqSet>);

impl<'p> Checker<'p> {
    /// A checker of `model` on `problem`; the criteria must name sensitive
    /// attributes the problem carries.
    pub fn new(problem: &'p Problem, model: Model, engine: Engine) -> Result<Self> {
        let values: Vec<usize> = problem.sensitive.iter().map(|s| s.values.len()).collect();
        crate::criteria::validate(&model.criteria, &values)?;
        for c in &model.population {
            c.fits(problem)?;
        }
        Ok(Checker {
            problem,
            model,
            engine,
            figures: Figures::NONE,
        })
    }

    /// Roll many jobs up and check each under `model`: the tuples it would
    /// suppress, and its set only when `keep` says so and it is not anonymous
    /// (more than `max_suppressed` tuples to suppress), the only sets a search
    /// reads again. With the native kernel and no sensitive criteria the
    /// count is kept while the rows go into the table (no second pass over
    /// the groups) and the other sets never leave the table.
    pub fn check_many(
        &self,
        jobs: &[RollupJob<'_>],
        keep: &[bool],
        max_suppressed: u64,
    ) -> Result<Vec<Checked>> {
        let p = self.problem;
        let counted = self.model.only_k() && jobs.iter().all(|j| j.from.carry.is_empty());
        let layout = match p.native_layout(self.engine)? {
            Some(layout) if counted => layout,
            _ => {
                let sets = p.rollup_many(jobs, self.engine)?;
                return sets
                    .into_iter()
                    .zip(keep)
                    .map(|(fs, &keep)| {
                        let suppressed = self.group_stats(&fs)?.suppressed;
                        let keep = keep && suppressed > max_suppressed;
                        Ok((suppressed, keep.then_some(fs)))
                    })
                    .collect();
            }
        };
        jobs.iter().for_each(RollupJob::assert_up);
        let k = self.model.k;
        with_table!(layout, p.rows, |tables| {
            p.native_jobs(jobs, tables, |i, j, agg| {
                let below = self.below_floors(&j.attrs, &j.levels);
                check_one(p, j, keep[i], k, max_suppressed, below, agg, layout)
            })
        })
    }

    /// F0 sorted along `attr`'s hierarchy for `fails_early`, when a check of
    /// this model can stop between runs: the native kernel (F0 packed, or
    /// its targets packed one by one), and k the only criterion (a group's
    /// fate then depends on its count alone).
    pub fn blocks(&self, attr: usize, from: &FreqSet) -> Result<Option<Blocks>> {
        let p = self.problem;
        if !self.stops_early() {
            return Ok(None);
        }
        match p.native_layout(self.engine)? {
            Some(layout) => Ok(Some(p.blocks(from, attr, Some(layout))?)),
            None if p.wide(self.engine) => Ok(Some(p.blocks(&p.base, attr, None)?)),
            None => Ok(None),
        }
    }

    /// F0 grouped at `floors` (the search's, `freq/floors.rs`), for the
    /// reads of F0 a walk makes: `None` where it would be F0 itself (every
    /// floor at F0's levels) or could not be read in blocks (see `blocks`).
    pub fn at_floors(&self, floors: &[u8]) -> Result<Option<FreqSet>> {
        let p = self.problem;
        if !self.stops_early()
            || floors == p.base.levels.as_slice()
            || p.native_layout(self.engine)?.is_none()
        {
            return Ok(None);
        }
        let job = RollupJob::new(&p.base, p.base.attrs.clone(), floors.to_vec());
        Ok(Some(p.rollup(job, self.engine)?))
    }

    /// Whether a check of this model can stop between runs of F0 in
    /// blocks: k the only criterion (a group's fate then depends on its
    /// count alone) and no carried columns.
    fn stops_early(&self) -> bool {
        self.model.only_k() && self.problem.base.carry.is_empty()
    }

    /// A full-lattice node's set from F0 in `blocks`, or `None` when it fails
    /// with more than `max_suppressed` tuples to suppress: known at the
    /// first block boundary where that many are in groups smaller than k,
    /// without reading the rest (or at once below the floors).
    pub fn fails_early(
        &self,
        blocks: &Blocks,
        node: &[u8],
        max_suppressed: u64,
    ) -> Result<Option<FreqSet>> {
        let p = self.problem;
        let all: Vec<usize> = (0..node.len()).collect();
        if self.below_floors(&all, node) {
            return Ok(None);
        }
        p.rollup_until(blocks, node, self.model.k, max_suppressed)
    }

    /// Is a node below the problem's floors (`freq/floors.rs`)? It fails
    /// whatever its rows: they stand for values above its levels.
    fn below_floors(&self, attrs: &[usize], levels: &[u8]) -> bool {
        (self.problem.floors.as_ref()).is_some_and(|f| f.below(attrs, levels))
    }

    /// Group statistics of a full-lattice node under the model.
    pub fn node_stats(&self, node: &[u8]) -> Result<GroupStats> {
        self.problem.check_floors(node)?;
        self.group_stats(&self.problem.node_set(node, self.engine)?)
    }

    /// The QI groups of a set (rows sharing the quasi-identifier part of the
    /// key), as runs of row indices, with the packed keys.
    #[allow(clippy::type_complexity)]
    fn qi_groups<'a>(&self, fs: &'a FreqSet) -> Result<(Cow<'a, [u64]>, Vec<u32>, Vec<usize>)> {
        let layout = self
            .problem
            .layout
            .as_ref()
            .ok_or_else(|| AnonError::Config(too_wide(self.problem)))?;
        let (keys, _) = fs.packed(layout)?;
        let qi_mask = fs.attrs.iter().fold(0u64, |m, &a| m | layout.field(a));
        let mut order: Vec<u32> = (0..keys.len() as u32).collect();
        order.sort_unstable_by_key(|&r| keys[r as usize] & qi_mask);
        let mut starts = Vec::new();
        for (i, &r) in order.iter().enumerate() {
            if i == 0 || keys[r as usize] & qi_mask != keys[order[i - 1] as usize] & qi_mask {
                starts.push(i);
            }
        }
        starts.push(order.len());
        Ok((keys, order, starts))
    }

    /// Does one QI group (rows `rows` of a set) pass the model? Its size first.
    fn group_passes(&self, keys: &[u64], counts: &[u64], rows: &[u32]) -> bool {
        self.group_verdict(keys, counts, rows).is_none()
    }

    /// Why one QI group fails the model: "k" when it is smaller than k, else
    /// the first criterion it fails; None when it passes.
    fn group_verdict(&self, keys: &[u64], counts: &[u64], rows: &[u32]) -> Option<&'static str> {
        let size: u64 = rows.iter().map(|&r| counts[r as usize]).sum();
        if size < self.model.k {
            return Some("k");
        }
        let p = self.problem;
        let layout = p.layout.as_ref().expect("checked by qi_groups");
        let n = p.n_attrs();
        let failed = self.model.criteria.iter().find(|c| {
            let j = c.attr();
            let mut hist: Vec<(u32, u64)> = rows
                .iter()
                .map(|&r| (layout.get(keys[r as usize], n + j), counts[r as usize]))
                .collect();
            hist.sort_unstable();
            hist.dedup_by(|b, a| {
                if a.0 == b.0 {
                    a.1 += b.1;
                    true
                } else {
                    false
                }
            });
            !c.holds(&hist, &p.sensitive[j].global)
        });
        failed.map(|c| c.name())
    }

    /// Group statistics of a frequency set under the model: tuples of groups
    /// smaller than k or failing a criterion are the suppressed ones.
    /// Below the floors every tuple counts as suppressed (see `below_floors`).
    pub fn group_stats(&self, fs: &FreqSet) -> Result<GroupStats> {
        let mut stats = self.grouped(fs, None)?;
        if self.below_floors(&fs.attrs, &fs.levels) {
            stats.suppressed = self.problem.rows;
        }
        Ok(stats)
    }

    /// `group_stats`, telling `kept` (one flag per row of the set) whether
    /// each row's QI group is released: one grouping pass serves both.
    fn grouped(&self, fs: &FreqSet, mut kept: Option<&mut [bool]>) -> Result<GroupStats> {
        if self.model.beyond_groups() {
            return self.grouped_release(fs, kept);
        }
        let counts = fs.counts()?;
        if fs.carry.is_empty() {
            if let Some(kept) = kept {
                for (k, &c) in kept.iter_mut().zip(counts.iter()) {
                    *k = c >= self.model.k;
                }
            }
            return Ok(GroupStats::of_counts(&counts, self.model.k));
        }
        let (keys, order, starts) = self.qi_groups(fs)?;
        let mut s = GroupStats {
            min_group: u64::MAX,
            ..Default::default()
        };
        for w in starts.windows(2) {
            let rows = &order[w[0]..w[1]];
            let size: u64 = rows.iter().map(|&r| counts[r as usize]).sum();
            s.groups += 1;
            s.min_group = s.min_group.min(size);
            let pass = self.group_passes(&keys, &counts, rows);
            if pass {
                s.kept_groups += 1;
                s.kept_sum_sq += (size as u128) * (size as u128);
            } else {
                s.suppressed += size;
            }
            if let Some(kept) = kept.as_deref_mut() {
                for &r in rows {
                    kept[r as usize] = pass;
                }
            }
        }
        if s.groups == 0 {
            s.min_group = 0;
        }
        Ok(s)
    }

    /// Every class of a set under the model: its size, why it is suppressed
    /// (None: released) and its rows. Each group's verdict first (k, then
    /// the group criteria in order, then those against a population table,
    /// `criteria::population`); then, under models of the whole
    /// release, the kept classes suppressed smallest first (ties by their
    /// codes, attribute by attribute) until every one holds
    /// (`criteria::dataset`), those named by the models that failed.
    pub fn verdicts(&self, fs: &FreqSet) -> Result<Verdicts> {
        let counts = fs.counts()?;
        let mut classes: Vec<Verdict> = Vec::new();
        let order = if fs.carry.is_empty() {
            for (r, &c) in counts.iter().enumerate() {
                classes.push(Verdict {
                    size: c,
                    reason: (c < self.model.k).then_some(Cow::Borrowed("k")),
                    rows: r..r + 1,
                });
            }
            (0..counts.len() as u32).collect()
        } else {
            let (keys, order, starts) = self.qi_groups(fs)?;
            for w in starts.windows(2) {
                let rows = &order[w[0]..w[1]];
                classes.push(Verdict {
                    size: rows.iter().map(|&r| counts[r as usize]).sum(),
                    reason: self.group_verdict(&keys, &counts, rows).map(Cow::Borrowed),
                    rows: w[0]..w[1],
                });
            }
            order
        };
        if !self.model.beyond_groups() {
            return Ok(Verdicts { order, classes });
        }
        // each class's QI codes, once for every model below
        let cols: Vec<Vec<u32>> = fs
            .attrs
            .iter()
            .map(|&a| fs.codes(a))
            .collect::<Result<_>>()?;
        let codes: Vec<Vec<u32>> = classes
            .iter()
            .map(|v| {
                let r = order[v.rows.start] as usize;
                cols.iter().map(|col| col[r]).collect()
            })
            .collect();
        drop(cols);
        for c in &self.model.population {
            let mut found = c.classes(&fs.attrs, &fs.levels, self.engine)?;
            for (v, codes) in classes.iter_mut().zip(&codes) {
                let big_f = found.remove(codes).unwrap_or(0);
                if v.reason.is_none() && !c.holds(v.size, big_f) {
                    v.reason = Some(Cow::Borrowed(c.name()));
                }
            }
            // what is left are the population's classes without records of
            // the data (see `criteria::population`)
            let absent = !found.is_empty() || c.population.outside > 0;
            if absent && c.fails_absent() {
                for v in classes.iter_mut().filter(|v| v.reason.is_none()) {
                    v.reason = Some(Cow::Borrowed(c.name()));
                }
            }
        }
        if self.model.dataset.is_empty() {
            return Ok(Verdicts { order, classes });
        }
        let mut by_size: Vec<usize> = (0..classes.len())
            .filter(|&i| classes[i].reason.is_none())
            .collect();
        by_size.sort_unstable_by(|&i, &j| {
            (classes[i].size, &codes[i]).cmp(&(classes[j].size, &codes[j]))
        });
        let sizes: Vec<u64> = by_size.iter().map(|&i| classes[i].size).collect();
        let dataset = &self.model.dataset;
        let drop = crate::criteria::dataset::to_suppress(dataset, &sizes, self.problem.rows);
        if drop > 0 {
            // the models that fail before any class of the release goes
            let failing: Vec<&str> = dataset
                .iter()
                .filter(|c| {
                    crate::criteria::dataset::to_suppress(
                        &[(*c).clone()],
                        &sizes,
                        self.problem.rows,
                    ) > 0
                })
                .map(|c| c.name())
                .collect();
            let reason = failing.join("+");
            for &i in &by_size[..drop] {
                classes[i].reason = Some(Cow::Owned(reason.clone()));
            }
        }
        Ok(Verdicts { order, classes })
    }

    /// `grouped` under models of the whole release (see `verdicts`).
    fn grouped_release(&self, fs: &FreqSet, kept: Option<&mut [bool]>) -> Result<GroupStats> {
        let Verdicts { order, classes } = self.verdicts(fs)?;
        let mut s = GroupStats {
            min_group: u64::MAX,
            ..Default::default()
        };
        for v in &classes {
            s.groups += 1;
            s.min_group = s.min_group.min(v.size);
            if v.reason.is_none() {
                s.kept_groups += 1;
                s.kept_sum_sq += (v.size as u128) * (v.size as u128);
            } else {
                s.suppressed += v.size;
            }
        }
        if s.groups == 0 {
            s.min_group = 0;
        }
        if let Some(kept) = kept {
            for v in &classes {
                for &r in &order[v.rows.clone()] {
                    kept[r as usize] = v.reason.is_none();
                }
            }
        }
        Ok(s)
    }

    /// The suppressed groups of a full-lattice node: their QI codes (at the
    /// node's levels), tuples and why each is suppressed (`verdicts`).
    #[allow(clippy::type_complexity)]
    pub fn suppression_reasons(&self, node: &[u8]) -> Result<Vec<(Vec<u32>, u64, String)>> {
        self.problem.check_floors(node)?;
        let fs = self.problem.node_set(node, self.engine)?;
        let cols: Vec<Vec<u32>> = fs
            .attrs
            .iter()
            .map(|&a| fs.codes(a))
            .collect::<Result<_>>()?;
        let Verdicts { order, classes } = self.verdicts(&fs)?;
        Ok(classes
            .into_iter()
            .filter_map(|v| {
                let r = order[v.rows.start] as usize;
                let codes = cols.iter().map(|col| col[r]).collect();
                v.reason.map(|why| (codes, v.size, why.into_owned()))
            })
            .collect())
    }

    /// The QI codes (at the node's levels) of the groups the model
    /// suppresses: those `suppression_reasons` gives, so that a release
    /// drops exactly the groups its report explains.
    pub fn suppressed_groups(&self, node: &[u8]) -> Result<Vec<Vec<u32>>> {
        Ok(self
            .suppression_reasons(node)?
            .into_iter()
            .map(|(codes, _, _)| codes)
            .collect())
    }

    /// A full-lattice node's group statistics and each attribute's mean cost
    /// under ARX's loss (see `metrics::loss`).
    pub fn evaluate(&self, node: &[u8]) -> Result<Evaluated> {
        self.problem.check_floors(node)?;
        self.evaluate_set(&self.problem.node_set(node, self.engine)?)
    }

    /// `evaluate` of a node whose set is `fs`.
    pub fn evaluate_set(&self, fs: &FreqSet) -> Result<Evaluated> {
        let mut kept = vec![true; fs.rows()];
        let stats = self.grouped(fs, Some(&mut kept))?;
        let extra = self.released_extra(fs, &kept)?;
        let leaves: Vec<usize> = fs
            .attrs
            .iter()
            .map(|&a| self.problem.hierarchies[a].domain_size(0))
            .collect();
        let attribute_loss =
            loss::attribute_loss(&extra, &leaves, stats.suppressed, self.problem.rows);
        let (p, want) = (self.problem, self.figures);
        let suppressed = stats.suppressed;
        Ok(Evaluated {
            attribute_loss,
            suppressed_entropy: want
                .entropy
                .then(|| figures::suppressed_entropy(p, fs, &kept, suppressed))
                .transpose()?,
            ambiguity: want
                .ambiguity
                .then(|| figures::ambiguity(p, fs, &kept))
                .transpose()?,
            kl_divergence: want
                .kl_divergence
                .then(|| figures::kl_divergence(p, fs, &kept, suppressed))
                .transpose()?,
            stats,
        })
    }

    /// Per attribute, the sum over the set's rows that are `kept` (released)
    /// of count x (leaves under the row's value - 1) (see `metrics::loss`).
    /// An attribute at its leaves adds nothing (one leaf under each value);
    /// a packed set's keys are read once for the others.
    fn released_extra(&self, fs: &FreqSet, kept: &[bool]) -> Result<Vec<u128>> {
        let counts = fs.counts()?;
        let mut out = vec![0u128; fs.attrs.len()];
        let read: Vec<(usize, usize, &[u32])> = (fs.attrs.iter().zip(&fs.levels))
            .enumerate()
            .filter(|(_, (_, &level))| level > 0)
            .map(|(i, (&a, &level))| (i, a, self.problem.hierarchies[a].leaves_under(level)))
            .collect();
        if let crate::freq::SetData::Packed { layout, keys, .. } = &fs.data {
            for ((&key, &c), _) in keys.iter().zip(counts.iter()).zip(kept).filter(|(_, &k)| k) {
                for &(i, a, under) in &read {
                    out[i] += c as u128 * (under[layout.get(key, a) as usize] as u128 - 1);
                }
            }
            return Ok(out);
        }
        for (i, a, under) in read {
            let codes = fs.codes(a)?;
            out[i] = codes
                .iter()
                .zip(counts.iter())
                .zip(kept)
                .filter(|(_, &k)| k)
                .map(|((&code, &c), _)| c as u128 * (under[code as usize] as u128 - 1))
                .sum();
        }
        Ok(out)
    }

    /// `evaluate` of many full-lattice nodes. Nodes are taken in order of
    /// height and each is rolled up from a direct specialization computed in the
    /// previous layer when there is one (else from F0), so the sets read shrink as
    /// the nodes grow more general.
    pub fn evaluate_many(&self, nodes: &[Vec<u8>]) -> Result<Vec<Evaluated>> {
        let p = self.problem;
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_by_key(|&i| node_height(&nodes[i]));
        let all: Vec<usize> = (0..p.n_attrs()).collect();
        let mut out = vec![Evaluated::default(); nodes.len()];
        // the nodes a level at a time, each rolled up from the smallest set
        // of a node one step below it, else from F0; a level's nodes are
        // independent of each other, so they share both cores (most of them
        // are small sets, each too small to split)
        let mut prev: HashMap<Vec<u8>, FreqSet> = HashMap::new();
        let mut prev_h = None;
        for level in order.chunk_by(|&a, &b| node_height(&nodes[a]) == node_height(&nodes[b])) {
            let h = node_height(&nodes[level[0]]);
            if prev_h.map(|c| c + 1) != Some(h) {
                prev.clear();
            }
            let done = (level.par_iter())
                .map(|&i| {
                    let node = &nodes[i];
                    let src = (0..node.len())
                        .filter(|&a| node[a] > 0)
                        .filter_map(|a| {
                            let mut below = node.clone();
                            below[a] -= 1;
                            prev.get(&below)
                        })
                        .min_by_key(|fs| fs.rows())
                        .unwrap_or(&p.base);
                    let job = RollupJob::new(src, all.clone(), node.clone());
                    let fs = p.rollup(job, self.engine)?;
                    Ok((i, self.evaluate_set(&fs)?, fs))
                })
                .collect::<Result<Vec<_>>>()?;
            prev = HashMap::with_capacity(done.len());
            for (i, e, fs) in done {
                out[i] = e;
                prev.insert(nodes[i].clone(), fs);
            }
            prev_h = Some(h);
        }
        Ok(out)
    }
}

/// One job of `check_many` in the native kernel: the suppressed tuples are
/// counted while the rows go into the table (all of them `below` the floors).
#[allow(clippy::too_many_arguments)]
fn check_one<W: Word>(
    p: &Problem,
    j: &RollupJob<'_>,
    keep: bool,
    k: u64,
    max_suppressed: u64,
    below: bool,
    agg: &mut Aggregator<W>,
    layout: &Arc<Layout>,
) -> Result<Checked> {
    agg.below = k;
    p.aggregate(j, agg, layout)?;
    agg.below = 0;
    let suppressed = if below { p.rows } else { agg.suppressed };
    if keep && suppressed > max_suppressed {
        Ok((
            suppressed,
            Some(agg.take_set(&j.attrs, &j.levels, &j.from.carry, layout)),
        ))
    } else {
        agg.clear();
        Ok((suppressed, None))
    }
}

/// Why a sensitive-attribute model cannot check this problem: the bits each
/// attribute's codes take, and the ways out.
fn too_wide(p: &Problem) -> String {
    let bits = |size: usize| 64 - (size.max(1) as u64 - 1).leading_zeros();
    let fields: Vec<(String, u32)> = (p.names.iter().zip(&p.hierarchies))
        .map(|(n, h)| (n.clone(), bits(h.domain_size(0))))
        .chain(
            p.sensitive
                .iter()
                .map(|s| (s.name.clone(), bits(s.values.len()))),
        )
        .collect();
    let total: u32 = fields.iter().map(|(_, b)| b).sum();
    let each: Vec<String> = fields.iter().map(|(n, b)| format!("'{n}' {b}")).collect();
    format!(
        "sensitive-attribute models pack every quasi-identifier's and sensitive attribute's \
         codes into 63 bits; these take {total} ({}): use fewer quasi-identifiers, or coarser \
         values in the widest (a hierarchy whose leaves are ranges, or the column rounded \
         first)",
        each.join(", ")
    )
}

#[cfg(test)]
mod tests;
