//! Mondrian multidimensional k-anonymity (LeFevre, DeWitt and Ramakrishnan,
//! ICDE 2006), strict or relaxed partitioning, over F0: the distinct
//! quasi-identifier combinations (with the sensitive values) and their
//! counts. No row is read: a partition is a set of F0's rows (in relaxed
//! mode, of parts of them: a row's records divided between two rows).
//!
//! A partition is split on the attribute of the widest normalised range
//! (numeric: `(max - min) / (table max - table min)` of the values it holds;
//! categorical: its distinct values over the table's), and when that
//! attribute allows no split, on the next widest, and so on:
//! - a numeric attribute (ranges) or a categorical one without a hierarchy
//!   (value sets, in the values' sorted order) is cut in two at the weighted
//!   median: the left part holds the values up to the first whose cumulative
//!   count reaches half the partition; where that cut is not allowed, the
//!   allowed cut nearest to it (by the left part's size) is taken. Records of
//!   one value never go to both sides (strict). In relaxed mode the records,
//!   in value order (ties by their codes), are cut at the median record
//!   instead: the first half to the left, those of the median value divided
//!   between the sides as that needs (any partition of 2k records or more
//!   holding two values can be cut so); when that cut fails the criteria,
//!   the strict cuts are tried;
//! - a categorical attribute with a hierarchy is split along the children of
//!   the partition's node (the lowest node covering the values it holds), one
//!   part per child holding values (the paper's categorical extension; the
//!   tree also keeps the children holding none, as empty leaves).
//!
//! A split is allowed when every part has at least k records and satisfies
//! the criteria. A partition is final when no attribute allows a split.
//!
//! The splits made are kept as a tree (`tree`), which another table can be
//! partitioned by (`tree::reapply`).

pub mod tree;

pub use tree::{Test, TreeNode};

use crate::check::Model;
use crate::error::{AnonError, Result};
use crate::freq::Problem;
use crate::hierarchy::Hierarchy;

/// How an attribute is partitioned.
#[derive(Clone, Debug)]
pub enum Kind {
    /// Ranges, ordered by a number per leaf code.
    Numeric(Vec<f64>),
    /// Along the attribute's hierarchy.
    Hierarchy,
    /// Value sets, in leaf-code order.
    Set,
}

/// A partition's value of one attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// The leaf codes of the smallest and the largest value it holds.
    Range { low: u32, high: u32 },
    /// The lowest node of the hierarchy covering the values it holds.
    Node { level: u8, code: u32 },
    /// The leaf codes it holds, ascending.
    Set(Vec<u32>),
}

/// A final partition: F0's rows, its records and its cells.
#[derive(Clone, Debug)]
pub struct Partition {
    pub rows: Vec<u32>,
    pub count: u64,
    pub cells: Vec<Cell>,
}

/// What `mondrian` returns: the final partitions (left to right, depth
/// first) and the cell-level loss (see `Data::cell_loss`).
#[derive(Clone, Debug)]
pub struct Mondrian {
    pub partitions: Vec<Partition>,
    /// Per attribute, per partition: the loss of its cell.
    pub cell_loss: Vec<Vec<f64>>,
    /// Per attribute: the loss of its cells averaged over the records.
    pub attribute_loss: Vec<f64>,
    /// The attribute losses averaged.
    pub loss: f64,
    /// Per row of the partitions, the row of F0 whose records it holds
    /// (F0's own rows first; relaxed mode adds rows for divided ones).
    pub origin: Vec<u32>,
    /// Per row of the partitions, its records.
    pub counts: Vec<u64>,
    /// The splits made: each node after its parent, the root first; a
    /// leaf names its final partition.
    pub tree: Vec<TreeNode>,
}

/// F0 as Mondrian reads it, with the table-wide figures it normalises by.
pub struct Data<'a> {
    hierarchies: &'a [Hierarchy],
    kinds: &'a [Kind],
    model: &'a Model,
    codes: Vec<Vec<u32>>,
    sensitive: Vec<Vec<u32>>,
    global: Vec<&'a [f64]>,
    counts: Vec<u64>,
    /// Per attribute: the table's smallest and largest value (numeric).
    range: Vec<(f64, f64)>,
    /// Per attribute: the distinct leaves the table holds.
    distinct: Vec<usize>,
    /// Records of one value may go to both parts of a cut.
    relaxed: bool,
    /// Per row, the row of F0 whose records it holds (a relaxed cut divides
    /// a row's records between it and a new row).
    origin: Vec<u32>,
    /// Per attribute, per leaf code: the stamp of the last pass that met it
    /// (`distinct_of`).
    seen: Vec<Vec<u32>>,
    stamp: u32,
}

impl<'a> Data<'a> {
    pub fn new(
        problem: &'a Problem,
        kinds: &'a [Kind],
        model: &'a Model,
        relaxed: bool,
    ) -> Result<Self> {
        if problem.floors.is_some() {
            return Err(AnonError::Config(
                "Mondrian needs F0 of the raw values, not one grouped at floor levels".into(),
            ));
        }
        let n = problem.n_attrs();
        if kinds.len() != n {
            return Err(AnonError::Config(format!(
                "{} kinds for {n} quasi-identifiers",
                kinds.len()
            )));
        }
        let base = &problem.base;
        let codes: Vec<Vec<u32>> = (0..n).map(|a| base.codes(a)).collect::<Result<_>>()?;
        let sensitive: Vec<Vec<u32>> = base
            .carry
            .iter()
            .map(|&a| base.codes(a))
            .collect::<Result<_>>()?;
        let mut range = vec![(0.0, 0.0); n];
        let mut distinct = vec![0; n];
        for (a, kind) in kinds.iter().enumerate() {
            let h = &problem.hierarchies[a];
            let mut present = codes[a].clone();
            present.sort_unstable();
            present.dedup();
            distinct[a] = present.len();
            if let Kind::Numeric(values) = kind {
                if values.len() != h.domain_size(0) {
                    return Err(AnonError::Config(format!(
                        "'{}': {} numbers for {} values",
                        problem.names[a],
                        values.len(),
                        h.domain_size(0)
                    )));
                }
                if let Some(&bad) = present.iter().find(|&&c| !values[c as usize].is_finite()) {
                    return Err(AnonError::Config(format!(
                        "'{}': value {:?} is not a finite number",
                        problem.names[a],
                        h.leaves().get(bad as usize)
                    )));
                }
                let vs = present.iter().map(|&c| values[c as usize]);
                range[a] = vs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v), hi.max(v))
                });
            }
        }
        Ok(Data {
            hierarchies: &problem.hierarchies,
            kinds,
            model,
            codes,
            sensitive,
            global: problem.sensitive.iter().map(|s| &s.global[..]).collect(),
            counts: base.counts()?.into_owned(),
            range,
            distinct,
            relaxed,
            origin: (0..base.rows() as u32).collect(),
            seen: (problem.hierarchies.iter())
                .map(|h| vec![0; h.domain_size(0)])
                .collect(),
            stamp: 0,
        })
    }

    /// Divide row `r`'s records: `left` stay, the rest go to a new row of
    /// the same values, returned.
    fn divide(&mut self, r: u32, left: u64) -> u32 {
        let i = r as usize;
        let new = self.counts.len() as u32;
        for col in self.codes.iter_mut().chain(self.sensitive.iter_mut()) {
            let v = col[i];
            col.push(v);
        }
        self.origin.push(self.origin[i]);
        self.counts.push(self.counts[i] - left);
        self.counts[i] = left;
        new
    }

    /// Undo the last `divide`, of row `r`.
    fn undivide(&mut self, r: u32) {
        for col in self.codes.iter_mut().chain(self.sensitive.iter_mut()) {
            col.pop();
        }
        self.origin.pop();
        let n = self.counts.pop().expect("a divided row");
        self.counts[r as usize] += n;
    }

    fn count(&self, rows: &[u32]) -> u64 {
        rows.iter().map(|&r| self.counts[r as usize]).sum()
    }

    /// At least k records, and every criterion holds on their histograms.
    pub fn passes(&self, rows: &[u32]) -> bool {
        self.count(rows) >= self.model.k && self.failing(rows).is_none()
    }

    /// The first criterion the records of `rows` break, if any (k apart).
    fn failing(&self, rows: &[u32]) -> Option<&'static str> {
        let c = self.model.criteria.iter().find(|c| {
            let col = &self.sensitive[c.attr()];
            let mut values: Vec<(u32, u64)> = rows
                .iter()
                .map(|&r| (col[r as usize], self.counts[r as usize]))
                .collect();
            values.sort_unstable();
            let mut hist: Vec<(u32, u64)> = Vec::new();
            for (v, n) in values {
                match hist.last_mut() {
                    Some((last, m)) if *last == v => *m += n,
                    _ => hist.push((v, n)),
                }
            }
            !c.holds(&hist, self.global[c.attr()])
        });
        c.map(|c| c.name())
    }

    /// `present`, in one pass over the rows rather than a sort of them: each
    /// code is marked with the pass's stamp the first time it is met (what
    /// every partition asks of every attribute, so most of the run).
    fn distinct_of(&mut self, a: usize, rows: &[u32]) -> Vec<u32> {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // the stamps wrapped: start the marks again
            self.seen.iter_mut().for_each(|s| s.fill(0));
            self.stamp = 1;
        }
        let (codes, seen, stamp) = (&self.codes[a], &mut self.seen[a], self.stamp);
        let mut out = Vec::new();
        for &r in rows {
            let c = codes[r as usize] as usize;
            if seen[c] != stamp {
                seen[c] = stamp;
                out.push(c as u32);
            }
        }
        out.sort_unstable();
        out
    }

    fn present(&self, a: usize, rows: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> = rows.iter().map(|&r| self.codes[a][r as usize]).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn value(&self, a: usize, code: u32) -> f64 {
        match &self.kinds[a] {
            Kind::Numeric(values) => values[code as usize],
            _ => code as f64,
        }
    }

    /// The partition's cell of attribute `a`.
    pub fn cell(&self, a: usize, rows: &[u32]) -> Cell {
        self.cell_of(a, self.present(a, rows))
    }

    /// The cell of attribute `a` over the leaves a partition holds.
    fn cell_of(&self, a: usize, present: Vec<u32>) -> Cell {
        match &self.kinds[a] {
            Kind::Numeric(_) => {
                let by_value = |&c: &u32| self.value(a, c);
                let low = *present
                    .iter()
                    .min_by(|x, y| by_value(x).total_cmp(&by_value(y)))
                    .expect("a partition holds a row");
                let high = *present
                    .iter()
                    .max_by(|x, y| by_value(x).total_cmp(&by_value(y)))
                    .expect("a partition holds a row");
                Cell::Range { low, high }
            }
            Kind::Set => Cell::Set(present),
            Kind::Hierarchy => {
                let h = &self.hierarchies[a];
                let level = (0..=h.height())
                    .find(|&l| {
                        let map = h.leaf_map(l);
                        present
                            .iter()
                            .all(|&c| map[c as usize] == map[present[0] as usize])
                    })
                    .expect("the top covers every leaf");
                Cell::Node {
                    level,
                    code: h.leaf_map(level)[present[0] as usize],
                }
            }
        }
    }

    /// Attribute `a`'s normalised range in a partition holding `distinct`
    /// of its leaves.
    fn width(&self, a: usize, distinct: usize, cell: &Cell) -> f64 {
        match cell {
            Cell::Range { low, high } => {
                let (lo, hi) = self.range[a];
                if hi > lo {
                    (self.value(a, *high) - self.value(a, *low)) / (hi - lo)
                } else {
                    0.0
                }
            }
            Cell::Set(_) | Cell::Node { .. } => distinct as f64 / self.distinct[a] as f64,
        }
    }

    /// The loss of a cell of attribute `a`: a range's width over the
    /// table's; a node's leaves less one over the hierarchy's leaves less
    /// one; a set's values less one over the table's distinct values less one.
    pub fn cell_loss(&self, a: usize, cell: &Cell) -> f64 {
        let share = |part: f64, whole: f64| if whole > 0.0 { part / whole } else { 0.0 };
        match cell {
            Cell::Range { low, high } => {
                let (lo, hi) = self.range[a];
                share(self.value(a, *high) - self.value(a, *low), hi - lo)
            }
            Cell::Set(s) => share(s.len() as f64 - 1.0, self.distinct[a] as f64 - 1.0),
            Cell::Node { level, code } => {
                let h = &self.hierarchies[a];
                let under = h.leaf_map(*level).iter().filter(|&&c| c == *code).count();
                share(under as f64 - 1.0, h.domain_size(0) as f64 - 1.0)
            }
        }
    }

    /// The parts of an allowed split of `rows` on attribute `a`, if any,
    /// each with the test that tells its records from the others'.
    pub fn split(&mut self, a: usize, rows: &[u32], cell: &Cell) -> Option<Vec<(Test, Vec<u32>)>> {
        match cell {
            Cell::Node { level: 0, .. } => None,
            Cell::Node { level, .. } => {
                let map = self.hierarchies[a].leaf_map(level - 1);
                // the children's records first: most splits fail on k alone
                let mut sizes: std::collections::BTreeMap<u32, u64> = Default::default();
                for &r in rows {
                    let child = map[self.codes[a][r as usize] as usize];
                    *sizes.entry(child).or_default() += self.counts[r as usize];
                }
                if sizes.values().any(|&n| n < self.model.k) {
                    return None;
                }
                let mut parts: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
                for &r in rows {
                    let child = map[self.codes[a][r as usize] as usize];
                    parts.entry(child).or_default().push(r);
                }
                if !parts.values().all(|p| self.passes(p)) {
                    return None;
                }
                // the node's children that hold no records are parts too,
                // empty ones: no partition here, but the tree routes another
                // table's records under them to a part of their own
                let h = &self.hierarchies[a];
                let (up, down) = (h.leaf_map(*level), h.leaf_map(level - 1));
                let node = up[self.codes[a][rows[0] as usize] as usize];
                for leaf in 0..up.len() {
                    if up[leaf] == node {
                        parts.entry(down[leaf]).or_default();
                    }
                }
                let level = level - 1;
                let parts = (parts.into_iter())
                    .map(|(code, p)| {
                        (
                            Test::Under {
                                attr: a,
                                level,
                                code,
                            },
                            p,
                        )
                    })
                    .collect();
                Some(parts)
            }
            _ if self.relaxed => self.median_cut(a, rows).or_else(|| self.cut(a, rows)),
            _ => self.cut(a, rows),
        }
    }

    /// Cut an ordered attribute at the median record (relaxed mode, see the
    /// module docs), dividing the row that straddles it.
    fn median_cut(&mut self, a: usize, rows: &[u32]) -> Option<Vec<(Test, Vec<u32>)>> {
        let total = self.count(rows);
        if total < 2 * self.model.k || self.present(a, rows).len() < 2 {
            return None;
        }
        let mut order = rows.to_vec();
        let key = |r: u32| {
            let i = r as usize;
            let codes: Vec<u32> = (self.codes.iter().chain(&self.sensitive))
                .map(|col| col[i])
                .collect();
            (self.value(a, self.codes[a][i]), codes, r)
        };
        order.sort_by_cached_key(|&r| {
            let (v, codes, r) = key(r);
            (OrderedF64(v), codes, r)
        });
        let half = total / 2;
        let (mut left, mut right) = (Vec::new(), Vec::new());
        let (mut upto, mut divided) = (0, None);
        for &r in &order {
            let c = self.counts[r as usize];
            if upto + c <= half {
                left.push(r);
            } else if upto >= half {
                right.push(r);
            } else {
                left.push(r);
                divided = Some((r, half - upto));
            }
            upto += c;
        }
        // the last value on the left (a divided one is on both sides: a
        // relaxed tree routes no other table)
        let key = self.value(
            a,
            self.codes[a][*left.last().expect("a left half") as usize],
        );
        if let Some((r, n)) = divided {
            right.push(self.divide(r, n));
        }
        if self.model.criteria.is_empty() || (self.passes(&left) && self.passes(&right)) {
            return Some(Test::halves(a, key, left, right));
        }
        if let Some((r, _)) = divided {
            self.undivide(r);
        }
        None
    }

    /// Cut an ordered attribute in two: the weighted median, or the allowed
    /// cut nearest to it.
    fn cut(&self, a: usize, rows: &[u32]) -> Option<Vec<(Test, Vec<u32>)>> {
        let mut keyed: Vec<(f64, u64)> = rows
            .iter()
            .map(|&r| {
                (
                    self.value(a, self.codes[a][r as usize]),
                    self.counts[r as usize],
                )
            })
            .collect();
        keyed.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        // distinct values and the records up to each
        let mut keys: Vec<f64> = Vec::new();
        let mut upto: Vec<u64> = Vec::new();
        let mut total = 0;
        for (v, n) in keyed {
            total += n;
            if keys.last() == Some(&v) {
                *upto.last_mut().expect("a value before") = total;
            } else {
                keys.push(v);
                upto.push(total);
            }
        }
        let k = self.model.k;
        // cuts after each value but the last; the median's first (the first
        // whose left part reaches half), then outwards by the left part's size
        let mut cuts: Vec<usize> = (0..keys.len().saturating_sub(1))
            .filter(|&i| upto[i] >= k && total - upto[i] >= k)
            .collect();
        let median = upto.iter().position(|&n| 2 * n >= total).unwrap_or(0);
        cuts.sort_by_key(|&i| (upto[i].abs_diff(upto[median]), i));
        for i in cuts {
            let (left, right): (Vec<u32>, Vec<u32>) = rows
                .iter()
                .partition(|&&r| self.value(a, self.codes[a][r as usize]) <= keys[i]);
            if self.model.criteria.is_empty() || (self.passes(&left) && self.passes(&right)) {
                return Some(Test::halves(a, keys[i], left, right));
            }
        }
        None
    }

    /// The parts of a partition split on the widest attribute that allows
    /// it, or, when it is final, its cells.
    pub fn step(&mut self, rows: &[u32]) -> std::result::Result<Vec<(Test, Vec<u32>)>, Vec<Cell>> {
        let n = self.codes.len();
        let mut cells = Vec::with_capacity(n);
        let mut widths = Vec::with_capacity(n);
        for a in 0..n {
            let present = self.distinct_of(a, rows);
            let distinct = present.len();
            cells.push(self.cell_of(a, present));
            widths.push(self.width(a, distinct, &cells[a]));
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&x, &y| widths[y].total_cmp(&widths[x]).then(x.cmp(&y)));
        for a in order {
            if let Some(parts) = self.split(a, rows, &cells[a]) {
                return Ok(parts);
            }
        }
        Err(cells)
    }
}

/// A float ordered totally (sort keys).
#[derive(Clone, Copy, PartialEq)]
struct OrderedF64(f64);

impl Eq for OrderedF64 {}

impl PartialOrd for OrderedF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderedF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Partition F0 as Mondrian does (see the module docs), strict or
/// `relaxed`. `tick` is called between partitions; returning false stops
/// with `Interrupted`.
pub fn mondrian(
    problem: &Problem,
    kinds: &[Kind],
    model: &Model,
    relaxed: bool,
    tick: &mut dyn FnMut() -> bool,
) -> Result<Mondrian> {
    let mut data = Data::new(problem, kinds, model, relaxed)?;
    let all: Vec<u32> = (0..data.counts.len() as u32).collect();
    if !data.passes(&all) {
        return Err(AnonError::NotAnonymous(format!(
            "the whole table ({} records) breaks the model (k = {}{}): no partition can \
             protect it",
            data.count(&all),
            model.k,
            if model.criteria.is_empty() {
                ""
            } else {
                " and the criteria"
            }
        )));
    }
    let mut tree = vec![TreeNode::default()];
    let mut stack = vec![(all, 0)];
    let mut partitions = Vec::new();
    while let Some((rows, node)) = stack.pop() {
        if !tick() {
            return Err(AnonError::Interrupted);
        }
        match data.step(&rows) {
            Ok(parts) => {
                let first = tree.len();
                for (test, _) in &parts {
                    tree.push(TreeNode {
                        parent: Some(node as u32),
                        test: Some(test.clone()),
                        partition: None,
                    });
                }
                if let Some((Test::Under { attr, level, code }, _)) = parts.first() {
                    // the partition's node, above its children
                    let h = &problem.hierarchies[*attr];
                    let leaf = (0..h.domain_size(0)).find(|&l| h.leaf_map(*level)[l] == *code);
                    let above = leaf.map(|l| h.leaf_map(level + 1)[l]);
                    let extra = above.map(|n| tree::outside(&tree, node, h, *attr, level + 1, n));
                    for test in extra.unwrap_or_default() {
                        tree.push(TreeNode {
                            parent: Some(node as u32),
                            test: Some(test),
                            partition: None,
                        });
                    }
                }
                // the leftmost part is taken next; an empty one is a leaf
                // of the tree and no partition
                let parts = parts.into_iter().enumerate().map(|(i, p)| (p.1, first + i));
                stack.extend(parts.rev().filter(|p| !p.0.is_empty()));
            }
            Err(cells) => {
                tree[node].partition = Some(partitions.len() as u32);
                partitions.push(Partition {
                    count: data.count(&rows),
                    rows,
                    cells,
                })
            }
        }
    }
    Ok(finished(problem, data, partitions, tree))
}

/// The outcome of final `partitions`: their cells' losses.
fn finished(
    problem: &Problem,
    data: Data<'_>,
    partitions: Vec<Partition>,
    tree: Vec<TreeNode>,
) -> Mondrian {
    let n = data.kinds.len();
    let records = problem.rows.max(1) as f64;
    let cell_loss: Vec<Vec<f64>> = (0..n)
        .map(|a| {
            partitions
                .iter()
                .map(|p| data.cell_loss(a, &p.cells[a]))
                .collect()
        })
        .collect();
    let attribute_loss: Vec<f64> = cell_loss
        .iter()
        .map(|ls| {
            ls.iter()
                .zip(&partitions)
                .map(|(l, p)| l * p.count as f64)
                .sum::<f64>()
                / records
        })
        .collect();
    let loss = attribute_loss.iter().sum::<f64>() / n as f64;
    Mondrian {
        partitions,
        cell_loss,
        attribute_loss,
        loss,
        origin: data.origin,
        counts: data.counts,
        tree,
    }
}

/// A cell as text: a range `[low-high]` (`[low, high]` when a bound holds
/// a '-'; or its one value), a node's label,
/// a set `{a,b}` (or its one value). In a set, a value holding a comma, a
/// brace or a double quote, or starting or ending with a space, is written
/// in double quotes (its own doubled), so that `{x,"a,b"}` is two values;
/// a set's one value is written as it is unless it reads as a set (`alone`).
pub fn label(h: &Hierarchy, cell: &Cell, kind: &Kind) -> String {
    let leaf = |c: u32| h.leaves().get(c as usize).to_string();
    match cell {
        Cell::Range { low, high } => {
            let same = match kind {
                Kind::Numeric(v) => v[*low as usize] == v[*high as usize],
                _ => low == high,
            };
            if same {
                return leaf(*low);
            }
            // a bound holding a '-' (a negative number, a date) is set off
            // by a comma, as the interval hierarchies write negative bins:
            // [-17, -12], not [-17--12]
            let (low, high) = (leaf(*low), leaf(*high));
            let sep = match low.contains('-') || high.contains('-') {
                true => ", ",
                false => "-",
            };
            format!("[{low}{sep}{high}]")
        }
        Cell::Node { level, code } => h.levels()[*level as usize].get(*code as usize).to_string(),
        Cell::Set(codes) if codes.len() == 1 => alone(&leaf(codes[0])),
        Cell::Set(codes) => {
            let shown: Vec<String> = codes.iter().map(|&c| in_set(&leaf(c))).collect();
            format!("{{{}}}", shown.join(","))
        }
    }
}

/// A set's one value as its label: as it is, unless it would read as a
/// set (or as a quoted value), then quoted: `{a,b}` alone is `"{a,b}"`.
fn alone(value: &str) -> String {
    if value.starts_with(['{', '"']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

/// A value as a set's label writes it (see `label`).
fn in_set(value: &str) -> String {
    let special = |c: char| matches!(c, ',' | '{' | '}' | '"');
    if value.contains(special) || value.starts_with(' ') || value.ends_with(' ') {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use polars::prelude::IntoLazy;

    use super::*;
    use crate::criteria::DistinctL;
    use crate::testing::{from_frame, Fixture};

    /// A number per leaf of `h` (its labels parsed).
    pub(super) fn numbers(h: &Hierarchy) -> Vec<f64> {
        (0..h.domain_size(0))
            .map(|c| h.leaves().get(c).parse().unwrap())
            .collect()
    }

    fn run(p: &Problem, kinds: &[Kind], model: &Model) -> Mondrian {
        mondrian(p, kinds, model, false, &mut || true).unwrap()
    }

    /// Every cut of an ordered attribute between two of the values a
    /// partition holds, and the split along a node's children, tried by
    /// brute force: none may leave every part at least k records.
    fn final_by_brute_force(data: &Data, p: &Problem, rows: &[u32], k: u64) {
        for (a, kind) in data.kinds.iter().enumerate() {
            let codes = &data.codes[a];
            let mut by_code: std::collections::BTreeMap<u32, u64> = Default::default();
            for &r in rows {
                *by_code.entry(codes[r as usize]).or_default() += data.counts[r as usize];
            }
            match kind {
                Kind::Hierarchy => {
                    let h = &p.hierarchies[a];
                    let leaves: Vec<u32> = by_code.keys().copied().collect();
                    let Some(level) = (1..=h.height()).find(|&l| {
                        leaves.iter().all(|&c| {
                            h.leaf_map(l)[c as usize] == h.leaf_map(l)[leaves[0] as usize]
                        })
                    }) else {
                        continue;
                    };
                    if leaves.len() < 2 {
                        continue;
                    }
                    let mut children: std::collections::BTreeMap<u32, u64> = Default::default();
                    for (&c, &n) in &by_code {
                        *children
                            .entry(h.leaf_map(level - 1)[c as usize])
                            .or_default() += n;
                    }
                    assert!(children.values().any(|&n| n < k), "a node split was left");
                }
                _ => {
                    let mut ordered: Vec<(f64, u64)> = by_code
                        .iter()
                        .map(|(&c, &n)| (data.value(a, c), n))
                        .collect();
                    ordered.sort_by(|x, y| x.0.total_cmp(&y.0));
                    let total: u64 = ordered.iter().map(|x| x.1).sum();
                    let mut left = 0;
                    for w in ordered.windows(2) {
                        left += w[0].1;
                        if w[0].0 < w[1].0 {
                            assert!(left < k || total - left < k, "attribute {a} could be cut");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn eight_values_split_at_the_medians() {
        let h = Hierarchy::identity(&["1", "2", "3", "4", "5", "6", "7", "8"]).unwrap();
        let kinds = [Kind::Numeric(numbers(&h))];
        let p = Problem::from_codes(
            vec!["x".into()],
            vec![h],
            vec![(0..8).collect()],
            vec![1; 8],
        )
        .unwrap();
        let out = run(&p, &kinds, &Model::k(2));
        let labels: Vec<String> = out
            .partitions
            .iter()
            .map(|q| label(&p.hierarchies[0], &q.cells[0], &kinds[0]))
            .collect();
        assert_eq!(labels, ["[1-2]", "[3-4]", "[5-6]", "[7-8]"]);
        // each cell spans 1 of the table's 7
        assert!((out.loss - 1.0 / 7.0).abs() < 1e-12);
        // k = 3: the median cut leaves 4 and 4, then no cut leaves 3 and 3
        let out = run(&p, &kinds, &Model::k(3));
        assert_eq!(out.partitions.len(), 2);
        assert!((out.loss - 3.0 / 7.0).abs() < 1e-12);
    }

    #[test]
    fn a_cut_away_from_the_median_when_the_median_is_not_allowed() {
        // weights 1, 1, 10: the median's cut leaves nothing on the right;
        // the cut after the second value leaves 2 and 10
        let h = Hierarchy::identity(&["1", "2", "3"]).unwrap();
        let kinds = [Kind::Numeric(numbers(&h))];
        let p = Problem::from_codes(
            vec!["x".into()],
            vec![h],
            vec![vec![0, 1, 2]],
            vec![1, 1, 10],
        )
        .unwrap();
        let out = run(&p, &kinds, &Model::k(2));
        let sizes: Vec<u64> = out.partitions.iter().map(|q| q.count).collect();
        assert_eq!(sizes, [2, 10]);
    }

    #[test]
    fn categorical_values_split_along_the_hierarchy_or_as_sets() {
        let h = Hierarchy::from_csv_str("a;ab;*\nb;ab;*\nc;cd;*\nd;cd;*\n", b';', "h").unwrap();
        let codes = vec![vec![0, 1, 2, 3]];
        let counts = vec![2, 1, 1, 1];
        let p = Problem::from_codes(vec!["x".into()], vec![h.clone()], codes, counts).unwrap();
        let out = run(&p, &[Kind::Hierarchy], &Model::k(2));
        let labels: Vec<String> = out
            .partitions
            .iter()
            .map(|q| label(&h, &q.cells[0], &Kind::Hierarchy))
            .collect();
        assert_eq!(labels, ["ab", "cd"]);
        // a node of 2 of the 4 leaves: (2 - 1) / (4 - 1)
        assert!((out.loss - 1.0 / 3.0).abs() < 1e-12);
        let out = run(&p, &[Kind::Set], &Model::k(2));
        let labels: Vec<String> = out
            .partitions
            .iter()
            .map(|q| label(&h, &q.cells[0], &Kind::Set))
            .collect();
        // the weighted median of 2, 1, 1, 1 records is b: {a,b} has 3
        assert_eq!(labels, ["{a,b}", "{c,d}"]);
        // values that would read as more than one are quoted
        let odd = Hierarchy::identity(&["a,b", "c", " d", "e\"f"]).unwrap();
        let all = Cell::Set(vec![0, 1, 2, 3]);
        let shown = label(&odd, &all, &Kind::Set);
        assert_eq!(shown, "{\"a,b\",c,\" d\",\"e\"\"f\"}");
        assert_eq!(label(&odd, &Cell::Set(vec![0]), &Kind::Set), "a,b");
        // one value that reads as a set is quoted, apart from the set
        let braces = Hierarchy::identity(&["a", "b", "{a,b}", "\"x"]).unwrap();
        let one = |c| label(&braces, &Cell::Set(vec![c]), &Kind::Set);
        assert_eq!(one(2), "\"{a,b}\"");
        assert_eq!(one(3), "\"\"\"x\"");
        assert_eq!(label(&braces, &Cell::Set(vec![0, 1]), &Kind::Set), "{a,b}");
        assert!((out.loss - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn adult_partitions_hold_k_meet_the_criteria_and_are_final() {
        let f = Fixture::adult();
        let qis = ["age", "sex", "race", "education", "marital-status"];
        let hs = qis
            .iter()
            .map(|&q| (q != "age").then(|| f.hierarchies[q].clone()))
            .collect();
        let p = from_frame(f.frame().lazy(), &qis, hs, &["occupation"]).unwrap();
        let kinds: Vec<Kind> = qis
            .iter()
            .enumerate()
            .map(|(a, &q)| match q {
                "age" => Kind::Numeric(numbers(&p.hierarchies[a])),
                "race" => Kind::Set,
                _ => Kind::Hierarchy,
            })
            .collect();
        for k in [2, 5, 50] {
            let model = Model::k(k);
            let out = run(&p, &kinds, &model);
            let data = Data::new(&p, &kinds, &model, false).unwrap();
            let mut seen = vec![false; p.base.rows()];
            for part in &out.partitions {
                assert!(part.count >= k);
                final_by_brute_force(&data, &p, &part.rows, k);
                for &r in &part.rows {
                    assert!(!std::mem::replace(&mut seen[r as usize], true));
                }
            }
            assert!(seen.iter().all(|&s| s), "every row of F0 in one partition");
            let total: u64 = out.partitions.iter().map(|q| q.count).sum();
            assert_eq!(total, p.rows);
            assert!(out.loss > 0.0 && out.loss < 1.0);
        }
        let model = Model {
            k: 5,
            criteria: vec![Arc::new(DistinctL::new(3, 0).unwrap())],
            ..Default::default()
        };
        let out = run(&p, &kinds, &model);
        let mut data = Data::new(&p, &kinds, &model, false).unwrap();
        assert!(out.partitions.len() > 10);
        for part in &out.partitions {
            assert!(data.passes(&part.rows));
            assert!(
                data.step(&part.rows).is_err(),
                "a final partition splits no more"
            );
        }
    }

    /// Relaxed partitions on Adult: each of at least k records (and the
    /// criteria), the divided rows' records adding up to F0's, and none
    /// left that a median cut could split: fewer than 2k records, or one
    /// value of every ordered attribute. (Not better than strict at every k:
    /// a cut at the median record may leave two ranges sharing a value where
    /// a strict cut next to it would have left none.)
    #[test]
    fn relaxed_partitions_divide_rows_and_stop_below_2k() {
        let f = Fixture::adult();
        let qis = ["age", "sex", "race", "education"];
        let p = f.problem(&qis);
        let kinds: Vec<Kind> = qis
            .iter()
            .enumerate()
            .map(|(a, &q)| match q {
                "age" => Kind::Numeric(numbers(&p.hierarchies[a])),
                _ => Kind::Set,
            })
            .collect();
        for k in [2, 10, 50] {
            let model = Model::k(k);
            let out = mondrian(&p, &kinds, &model, true, &mut || true).unwrap();
            let mut records = vec![0u64; p.base.rows()];
            let data = Data::new(&p, &kinds, &model, false).unwrap();
            for part in &out.partitions {
                let n: u64 = part.rows.iter().map(|&r| out.counts[r as usize]).sum();
                assert_eq!(n, part.count);
                assert!(part.count >= k);
                for &r in &part.rows {
                    records[out.origin[r as usize] as usize] += out.counts[r as usize];
                }
                let origins: Vec<u32> = part.rows.iter().map(|&r| out.origin[r as usize]).collect();
                let ordered_values = |a: usize| data.present(a, &origins).len();
                assert!(
                    part.count < 2 * k || (0..qis.len()).all(|a| ordered_values(a) == 1),
                    "a partition of {} records with two values could be cut",
                    part.count
                );
            }
            assert_eq!(records, p.base.counts().unwrap().into_owned());
            assert!(out.origin.len() > p.base.rows(), "some row was divided");
        }
    }

    #[test]
    fn a_table_that_breaks_the_model_whole_is_refused() {
        let h = Hierarchy::identity(&["1", "2"]).unwrap();
        let p = Problem::with_sensitive(
            vec!["x".into()],
            vec![h],
            vec![vec![0, 1]],
            vec![("s".into(), vec!["u".into()], vec![0, 0])],
            vec![3, 3],
        )
        .unwrap();
        let model = Model {
            k: 2,
            criteria: vec![Arc::new(DistinctL::new(2, 0).unwrap())],
            ..Default::default()
        };
        let err = mondrian(&p, &[Kind::Set], &model, false, &mut || true).unwrap_err();
        assert!(matches!(err, AnonError::NotAnonymous(_)), "{err}");
    }
}
