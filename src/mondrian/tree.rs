//! Mondrian's split tree, and another table partitioned by it.
//!
//! Each split of a partition gives each part a test on the split attribute
//! that its records pass and its siblings' fail: an ordered cut's left part
//! holds the values at most the cut's key, its right part those above it;
//! a hierarchy split's parts hold the leaves under one child each (every
//! child of the node: those that held no records are empty leaves of the
//! tree, no partition of its table). Followed from the root, the tests
//! route any record of the same attributes to one leaf, except that a
//! relaxed cut divides the records of its key between both sides (a
//! relaxed tree routes no other table).
//!
//! In value space (`Recorded`) a tree outlives its table: an ordered key is
//! a number, or a set's value as text (sets are cut in the text order of
//! their values), a child is its label at its level. `reapply` partitions
//! another table by such a tree; its partitions' cells are those of the
//! records they now hold, and each must hold k records and meet the
//! criteria, or nothing is returned.

use super::{finished, Data, Kind, Mondrian, Partition};
use crate::check::Model;
use crate::error::{AnonError, Result};
use crate::freq::Problem;
use crate::hierarchy::Hierarchy;

/// What a part's records pass at its parent's split.
#[derive(Clone, Debug, PartialEq)]
pub enum Test {
    /// An ordered cut's left part: the value (a number, or a set's leaf
    /// code) at most `key`.
    AtMost { attr: usize, key: f64 },
    /// Its right part: the value above `key`.
    Above { attr: usize, key: f64 },
    /// A hierarchy split's part: the leaf's node at `level` is `code`.
    Under { attr: usize, level: u8, code: u32 },
}

impl Test {
    /// The two halves of an ordered cut after `key`.
    pub(super) fn halves(
        attr: usize,
        key: f64,
        left: Vec<u32>,
        right: Vec<u32>,
    ) -> Vec<(Test, Vec<u32>)> {
        vec![
            (Test::AtMost { attr, key }, left),
            (Test::Above { attr, key }, right),
        ]
    }
}

/// The empty parts a hierarchy split of tree node `at` on `attr` adds for
/// the values its partition's node (`level`, `code`) does not cover but
/// the tree node's region does (the node last split on `attr` above it, or
/// the whole hierarchy): the siblings of each node between them. Another
/// table's records there then reach an empty leaf, not a dead end.
pub(super) fn outside(
    tree: &[TreeNode],
    at: usize,
    h: &Hierarchy,
    attr: usize,
    level: u8,
    code: u32,
) -> Vec<Test> {
    let mut up = tree[at].parent;
    let mut region = None;
    let mut node = at;
    while let Some(p) = up {
        if let Some(Test::Under { attr: a, level, .. }) = tree[node].test {
            if a == attr {
                region = Some(level);
                break;
            }
        }
        node = p as usize;
        up = tree[node].parent;
    }
    let top = region.unwrap_or(h.height() + 1);
    let Some(leaf) = (0..h.domain_size(0)).find(|&l| h.leaf_map(level)[l] == code) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in level..top {
        let on_path = h.leaf_map(m)[leaf];
        let mut siblings: Vec<u32> = (0..h.domain_size(0))
            .filter(|&l| m == h.height() || h.leaf_map(m + 1)[l] == h.leaf_map(m + 1)[leaf])
            .map(|l| h.leaf_map(m)[l])
            .filter(|&c| c != on_path)
            .collect();
        siblings.sort_unstable();
        siblings.dedup();
        out.extend(siblings.into_iter().map(|code| Test::Under {
            attr,
            level: m,
            code,
        }));
    }
    out
}

/// A node of the split tree: its parent (none at the root), the test its
/// records passed there, and, at a leaf, its final partition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeNode {
    pub parent: Option<u32>,
    pub test: Option<Test>,
    pub partition: Option<u32>,
}

/// An ordered key in value space.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    Number(f64),
    Text(String),
}

/// A test in value space (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    AtMost {
        attr: usize,
        key: Key,
    },
    Above {
        attr: usize,
        key: Key,
    },
    Under {
        attr: usize,
        level: u8,
        label: String,
    },
}

impl Recorded {
    pub fn attr(&self) -> usize {
        match self {
            Recorded::AtMost { attr, .. }
            | Recorded::Above { attr, .. }
            | Recorded::Under { attr, .. } => *attr,
        }
    }
}

/// `tree`'s tests in value space, for `problem` partitioned with `kinds`.
pub fn recorded(problem: &Problem, kinds: &[Kind], tree: &[TreeNode]) -> Vec<Option<Recorded>> {
    let key = |attr: usize, key: f64| match kinds[attr] {
        Kind::Numeric(_) => Key::Number(key),
        _ => Key::Text(
            problem.hierarchies[attr]
                .leaves()
                .get(key as usize)
                .to_string(),
        ),
    };
    (tree.iter())
        .map(|n| {
            n.test.as_ref().map(|t| match *t {
                Test::AtMost { attr, key: k } => Recorded::AtMost {
                    attr,
                    key: key(attr, k),
                },
                Test::Above { attr, key: k } => Recorded::Above {
                    attr,
                    key: key(attr, k),
                },
                Test::Under { attr, level, code } => Recorded::Under {
                    attr,
                    level,
                    label: problem.hierarchies[attr].levels()[level as usize]
                        .get(code as usize)
                        .to_string(),
                },
            })
        })
        .collect()
}

/// Rows routed between two calls of `reapply`'s tick.
const TICK_ROWS: usize = 1 << 14;

/// Partition `problem`'s F0 by a recorded tree (`parents[i]`, `tests[i]`:
/// node i's parent, before it, and its test; node 0 is the root, with
/// neither), strict: each row routed from the root to a leaf. Leaves that
/// no row reaches are no partition; the outcome's tree has the recorded
/// nodes with the partitions they now hold (and no tests). Refused when a row reaches no leaf (a
/// hierarchy node this table's hierarchy lacks), or a partition holds fewer
/// than k records or breaks the criteria, unless `coarsen`: then a split
/// whose parts do not all hold (as Mondrian allows a split only when they
/// do), or that has no part for a row, is undone, its parts' records (and
/// that row) one partition at its node, from the leaves up; only a table
/// that breaks the model whole is refused. `tick` is called between
/// blocks of rows, nodes coarsened and partitions; returning false stops
/// with `Interrupted`.
pub fn reapply(
    problem: &Problem,
    kinds: &[Kind],
    model: &Model,
    parents: &[Option<u32>],
    tests: &[Option<Recorded>],
    coarsen: bool,
    tick: &mut dyn FnMut() -> bool,
) -> Result<Mondrian> {
    let data = Data::new(problem, kinds, model, false)?;
    let route = Route::new(problem, kinds, parents, tests)?;
    let rows = data.counts.len();
    let mut at_leaf: Vec<Vec<u32>> = vec![Vec::new(); parents.len()];
    for r in 0..rows {
        if r % TICK_ROWS == 0 && !tick() {
            return Err(AnonError::Interrupted);
        }
        let leaf = route.leaf(&data, r, coarsen)?;
        at_leaf[leaf].push(r as u32);
    }
    // nodes made leaves by undoing their split (`coarsen`)
    let mut merged = vec![false; parents.len()];
    if coarsen {
        coarsened(&data, &route.children, &mut at_leaf, &mut merged, tick)?;
    }
    // the leaves depth first, children in order: the order `mondrian`
    // numbers its partitions in, so a table re-applied to itself numbers
    // them as its run did
    let mut tree: Vec<TreeNode> = (parents.iter())
        .map(|&parent| TreeNode {
            parent,
            test: None,
            partition: None,
        })
        .collect();
    let mut order = Vec::new();
    let mut stack = vec![0];
    while let Some(node) = stack.pop() {
        if route.children[node].is_empty() || merged[node] {
            if !at_leaf[node].is_empty() {
                tree[node].partition = Some(order.len() as u32);
                order.push(node);
            }
        } else {
            stack.extend(route.children[node].iter().rev());
        }
    }
    let mut partitions = Vec::new();
    let (mut first, mut failing) = (None, 0);
    for rows in order
        .into_iter()
        .map(|leaf| std::mem::take(&mut at_leaf[leaf]))
    {
        if !tick() {
            return Err(AnonError::Interrupted);
        }
        let count = data.count(&rows);
        let cells = (0..kinds.len()).map(|a| data.cell(a, &rows)).collect();
        let part = Partition { rows, count, cells };
        if !data.passes(&part.rows) {
            failing += 1;
            if first.is_none() {
                let shown: Vec<String> = (0..kinds.len())
                    .map(|a| {
                        let cell = super::label(&problem.hierarchies[a], &part.cells[a], &kinds[a]);
                        format!("{}={cell}", problem.names[a])
                    })
                    .collect();
                let why = if count < model.k {
                    format!("holds {count} records, fewer than k = {}", model.k)
                } else {
                    let name = data.failing(&part.rows).unwrap_or("the criteria");
                    format!("holds {count} records that break {name}")
                };
                first = Some(format!("partition {} {why}", shown.join(", ")));
            }
        }
        partitions.push(part);
    }
    if let Some(first) = first {
        return Err(AnonError::NotAnonymous(format!(
            "re-applied to this table, {failing} of the {} recorded partitions that hold its \
             records fail the model; the first: {first}. Partition the table again, or undo \
             the recorded splits where their parts fail (coarsen=True)",
            partitions.len()
        )));
    }
    Ok(finished(problem, data, partitions, tree))
}

/// Undo, from the leaves up, each split one of whose parts holding records
/// fails the model (its records merged into the node's, `at_leaf[node]`,
/// and `merged[node]` set); nodes come after their parents. `tick` is
/// called per node.
fn coarsened(
    data: &Data<'_>,
    children: &[Vec<usize>],
    at_leaf: &mut [Vec<u32>],
    merged: &mut [bool],
    tick: &mut dyn FnMut() -> bool,
) -> Result<()> {
    let n = children.len();
    // per node: its records hold the model where they are (a leaf's, or
    // its kept parts'), or it holds none (an empty one holds)
    let mut holds = vec![true; n];
    for node in (0..n).rev() {
        if !tick() {
            return Err(AnonError::Interrupted);
        }
        if children[node].is_empty() {
            holds[node] = at_leaf[node].is_empty() || data.passes(&at_leaf[node]);
            continue;
        }
        // rows that stopped here (no child took them) undo the split too
        if at_leaf[node].is_empty() && children[node].iter().all(|&c| holds[c]) {
            continue;
        }
        // gather the subtree's records here
        let mut rows = std::mem::take(&mut at_leaf[node]);
        let mut stack = children[node].clone();
        while let Some(c) = stack.pop() {
            rows.append(&mut at_leaf[c]);
            stack.extend(&children[c]);
        }
        holds[node] = data.passes(&rows);
        at_leaf[node] = rows;
        merged[node] = true;
    }
    if !holds[0] {
        return Err(AnonError::NotAnonymous(format!(
            "the whole table ({} records) breaks the model (k = {}{}): no partition can protect \
             it",
            data.count(&at_leaf[0]),
            data.model.k,
            if data.model.criteria.is_empty() {
                ""
            } else {
                " and the criteria"
            }
        )));
    }
    Ok(())
}

/// A recorded tree in `problem`'s codes.
struct Route<'a> {
    problem: &'a Problem,
    children: Vec<Vec<usize>>,
    tests: Vec<Option<Coded>>,
}

/// A test in codes: an ordered one on the attribute's number or rank, a
/// hierarchy one on the leaf's node (none: a label this hierarchy lacks,
/// which no record passes).
enum Coded {
    AtMost(usize, f64),
    Above(usize, f64),
    Under(usize, u8, Option<u32>),
}

impl<'a> Route<'a> {
    fn new(
        problem: &'a Problem,
        kinds: &[Kind],
        parents: &[Option<u32>],
        tests: &[Option<Recorded>],
    ) -> Result<Self> {
        fn bad<T>(why: String) -> Result<T> {
            Err(AnonError::Config(format!("the recorded splits: {why}")))
        }
        if parents.is_empty() || parents.len() != tests.len() {
            return bad(format!(
                "{} parents and {} tests; a tree has a root",
                parents.len(),
                tests.len()
            ));
        }
        if parents[0].is_some() || tests[0].is_some() {
            return bad("the first node must be the root, with no parent and no test".into());
        }
        let mut children = vec![Vec::new(); parents.len()];
        for (i, p) in parents.iter().enumerate().skip(1) {
            match (p, &tests[i]) {
                (Some(p), Some(_)) if (*p as usize) < i => children[*p as usize].push(i),
                _ => {
                    return bad(format!(
                        "node {i} needs a test and a parent listed before it"
                    ))
                }
            }
        }
        let n = problem.n_attrs();
        let name = |a: usize| &problem.names[a];
        // per set attribute: are its leaves in text order (checked once)
        let mut in_text_order: Vec<Option<bool>> = vec![None; n];
        let mut coded = Vec::with_capacity(tests.len());
        for t in tests {
            let Some(t) = t else {
                coded.push(None);
                continue;
            };
            let attr = t.attr();
            if attr >= n {
                return bad(format!("attribute {attr} of {n}"));
            }
            // the key as a number of this table's order: a set's text key
            // as the count of leaves at most it, less a half (a set is cut
            // in its leaves' order, which must then be their text order)
            let mut ordered = |key: &Key| match (key, &kinds[attr]) {
                (Key::Number(x), Kind::Numeric(_)) => Ok(*x),
                (Key::Text(s), Kind::Set) => {
                    let leaves = problem.hierarchies[attr].leaves();
                    let sorted = *in_text_order[attr].get_or_insert_with(|| {
                        (1..leaves.len()).all(|c| leaves.get(c - 1) < leaves.get(c))
                    });
                    if !sorted {
                        return bad(format!(
                            "'{}' is a set of values whose order is not their text order \
                             (numbers split as sets?); its recorded cuts, kept as text, \
                             cannot be placed",
                            name(attr)
                        ));
                    }
                    let at_most = partition_point(leaves.len(), |c| leaves.get(c) <= s.as_str());
                    Ok(at_most as f64 - 0.5)
                }
                (key, kind) => bad(format!(
                    "'{}' was cut as {} and is {} here",
                    name(attr),
                    match key {
                        Key::Number(_) => "a number",
                        Key::Text(_) => "a set of values",
                    },
                    kind_name(kind)
                )),
            };
            coded.push(Some(match t {
                Recorded::AtMost { key, .. } => Coded::AtMost(attr, ordered(key)?),
                Recorded::Above { key, .. } => Coded::Above(attr, ordered(key)?),
                Recorded::Under { level, label, .. } => {
                    let h = &problem.hierarchies[attr];
                    if !matches!(kinds[attr], Kind::Hierarchy) || *level > h.height() {
                        return bad(format!(
                            "'{}' was split along a hierarchy of at least {} levels and is {} \
                             here",
                            name(attr),
                            u32::from(*level) + 1,
                            kind_name(&kinds[attr])
                        ));
                    }
                    let labels = &h.levels()[*level as usize];
                    let code = (0..labels.len()).find(|&c| labels.get(c) == label.as_str());
                    Coded::Under(attr, *level, code.map(|c| c as u32))
                }
            }));
        }
        Ok(Route {
            problem,
            children,
            tests: coded,
        })
    }

    /// The leaf row `r` of `data` reaches.
    /// (`stop`: a row no child of a node takes stops there, as its leaf.)
    fn leaf(&self, data: &Data<'_>, r: usize, stop: bool) -> Result<usize> {
        let mut node = 0;
        'down: loop {
            if self.children[node].is_empty() {
                return Ok(node);
            }
            for &c in &self.children[node] {
                let passes = match self.tests[c].as_ref().expect("a child's test") {
                    Coded::AtMost(a, key) => self.key(data, *a, r) <= *key,
                    Coded::Above(a, key) => self.key(data, *a, r) > *key,
                    Coded::Under(a, level, code) => {
                        let leaf = data.codes[*a][r] as usize;
                        Some(self.problem.hierarchies[*a].leaf_map(*level)[leaf]) == *code
                    }
                };
                if passes {
                    node = c;
                    continue 'down;
                }
            }
            if stop {
                return Ok(node);
            }
            // only a hierarchy split can leave a record out (an ordered
            // cut's halves hold every finite value)
            let Some(Coded::Under(a, level, _)) = self.tests[self.children[node][0]].as_ref()
            else {
                return Err(AnonError::Config(format!(
                    "the recorded splits: a record passes none of the tests of node {node}'s \
                     children (are the splits cut short, or edited?)"
                )));
            };
            let h = &self.problem.hierarchies[*a];
            let leaf = data.codes[*a][r] as usize;
            let node = h.leaf_map(*level)[leaf] as usize;
            return Err(AnonError::Config(format!(
                "the recorded splits: '{}' = {:?} falls under {:?} of its hierarchy (level \
                 {level}), where the recorded partition has no part: the hierarchy it was \
                 recorded with had no such node; partition the table again, or undo that \
                 split (coarsen=True)",
                self.problem.names[*a],
                h.leaves().get(leaf),
                h.levels()[*level as usize].get(node),
            )));
        }
    }

    /// A numeric attribute's number, a set's leaf code (its rank in text
    /// order, checked in `new`).
    fn key(&self, data: &Data<'_>, a: usize, r: usize) -> f64 {
        data.value(a, data.codes[a][r])
    }
}

/// The first of `0..n` where `at_most` stops holding (it holds on a prefix).
fn partition_point(n: usize, at_most: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if at_most(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Numeric(_) => "numeric",
        Kind::Hierarchy => "split along its hierarchy",
        Kind::Set => "a set of values",
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use polars::prelude::IntoLazy;

    use super::*;
    use crate::criteria::DistinctL;
    use crate::mondrian::tests::numbers;
    use crate::mondrian::{label, mondrian};
    use crate::testing::{from_frame, Fixture};

    /// The tree of a run, re-applied to `other`.
    fn routed(p: &Problem, kinds: &[Kind], model: &Model, other: &Problem) -> Result<Mondrian> {
        routed_as(p, kinds, model, other, false)
    }

    fn routed_as(
        p: &Problem,
        kinds: &[Kind],
        model: &Model,
        other: &Problem,
        coarsen: bool,
    ) -> Result<Mondrian> {
        let out = mondrian(p, kinds, model, false, &mut || true).unwrap();
        let parents: Vec<Option<u32>> = out.tree.iter().map(|n| n.parent).collect();
        let other_kinds: Vec<Kind> = (kinds.iter().enumerate())
            .map(|(a, k)| match k {
                Kind::Numeric(_) => Kind::Numeric(numbers(&other.hierarchies[a])),
                k => k.clone(),
            })
            .collect();
        reapply(
            other,
            &other_kinds,
            model,
            &parents,
            &recorded(p, kinds, &out.tree),
            coarsen,
            &mut || true,
        )
    }

    fn labels(p: &Problem, kinds: &[Kind], out: &Mondrian) -> Vec<(String, u64)> {
        let mut shown: Vec<(String, u64)> = (out.partitions.iter())
            .map(|q| {
                let cells: Vec<String> = (0..kinds.len())
                    .map(|a| label(&p.hierarchies[a], &q.cells[a], &kinds[a]))
                    .collect();
                (cells.join("|"), q.count)
            })
            .collect();
        shown.sort();
        shown
    }

    fn one_column(h: Hierarchy, codes: Vec<u32>, counts: Vec<u64>) -> Problem {
        Problem::from_codes(vec!["x".into()], vec![h], vec![codes], counts).unwrap()
    }

    #[test]
    fn adult_re_applied_to_itself_gives_its_partitions() {
        let f = Fixture::adult();
        let qis = ["age", "sex", "race", "education", "marital-status"];
        let hs = qis
            .iter()
            .map(|&q| (q != "age" && q != "race").then(|| f.hierarchies[q].clone()))
            .collect();
        let p = from_frame(f.frame().lazy(), &qis, hs, &["occupation"]).unwrap();
        let kinds: Vec<Kind> = (qis.iter().enumerate())
            .map(|(a, &q)| match q {
                "age" => Kind::Numeric(numbers(&p.hierarchies[a])),
                "race" => Kind::Set,
                _ => Kind::Hierarchy,
            })
            .collect();
        let diverse = Model {
            k: 5,
            criteria: vec![Arc::new(DistinctL::new(3, 0).unwrap())],
            ..Default::default()
        };
        for model in [Model::k(2), Model::k(10), diverse] {
            let out = mondrian(&p, &kinds, &model, false, &mut || true).unwrap();
            let again = routed(&p, &kinds, &model, &p).unwrap();
            assert_eq!(labels(&p, &kinds, &again), labels(&p, &kinds, &out));
            assert!((again.loss - out.loss).abs() < 1e-12);
            // the tree: each node after its parent, a leaf per partition
            // (and the empty children of hierarchy splits)
            let leaves = out.tree.iter().filter(|n| n.partition.is_some()).count();
            assert_eq!(leaves, out.partitions.len());
            assert!(
                (out.tree.iter().enumerate().skip(1)).all(|(i, n)| n.parent.unwrap() < i as u32)
            );
        }
    }

    /// A tick that answers false stops the re-application (Ctrl-C), whether
    /// it comes while rows are routed or while partitions are checked.
    #[test]
    fn a_false_tick_stops_the_re_application() {
        let f = Fixture::adult();
        let qis = ["education", "marital-status"];
        let hs = qis
            .iter()
            .map(|&q| Some(f.hierarchies[q].clone()))
            .collect();
        let p = from_frame(f.frame().lazy(), &qis, hs, &[]).unwrap();
        let kinds = vec![Kind::Hierarchy; 2];
        let model = Model::k(5);
        let out = mondrian(&p, &kinds, &model, false, &mut || true).unwrap();
        let parents: Vec<Option<u32>> = out.tree.iter().map(|n| n.parent).collect();
        let tests = recorded(&p, &kinds, &out.tree);
        let rows = p.base.rows().div_ceil(TICK_ROWS);
        for stop_at in [0, rows, rows + 1] {
            let mut calls = 0;
            let mut tick = || {
                calls += 1;
                calls <= stop_at
            };
            let got = reapply(&p, &kinds, &model, &parents, &tests, false, &mut tick);
            assert!(
                matches!(got, Err(AnonError::Interrupted)),
                "stop at {stop_at}"
            );
        }
        // coarsening: after the rows, a tick per node of the tree
        let mut calls = 0;
        let mut tick = || {
            calls += 1;
            calls <= rows
        };
        let got = reapply(&p, &kinds, &model, &parents, &tests, true, &mut tick);
        assert!(matches!(got, Err(AnonError::Interrupted)), "coarsening");
        let mut ticks = 0;
        let all = reapply(&p, &kinds, &model, &parents, &tests, false, &mut || {
            ticks += 1;
            true
        });
        assert_eq!(all.unwrap().partitions.len(), out.partitions.len());
        assert_eq!(ticks, rows + out.partitions.len());
    }

    #[test]
    fn new_numbers_fall_in_the_recorded_ranges_or_are_refused() {
        let leaves = ["1", "2", "3", "4", "5", "6", "7", "8"];
        let h = Hierarchy::identity(&leaves).unwrap();
        let kinds = [Kind::Numeric(numbers(&h))];
        let p = one_column(h, (0..8).collect(), vec![1; 8]);
        // cuts after 2, 4 and 6: 0 goes with [1-2], 9 with [7-8], 4.5 with [5-6]
        let other = Hierarchy::identity(&["0", "4.5", "9"]).unwrap();
        let q = one_column(other.clone(), vec![0, 1, 2], vec![2, 3, 2]);
        let out = routed(&p, &kinds, &Model::k(2), &q).unwrap();
        let got = labels(&q, &[Kind::Numeric(numbers(&other))], &out);
        assert_eq!(got, [("0".into(), 2), ("4.5".into(), 3), ("9".into(), 2)]);
        // one record of 9: its partition holds fewer than k
        let q = one_column(other.clone(), vec![0, 1, 2], vec![2, 3, 1]);
        let err = routed(&p, &kinds, &Model::k(2), &q)
            .unwrap_err()
            .to_string();
        assert!(err.contains("1 of the 3 recorded partitions") && err.contains("x=9 holds 1"));
        // coarsened: the cut after 6 undone, 4.5 and 9 one partition; the
        // cut after 4 kept (its other side, 0 and 0, holds)
        let out = routed_as(&p, &kinds, &Model::k(2), &q, true).unwrap();
        let got = labels(&q, &[Kind::Numeric(numbers(&other))], &out);
        assert_eq!(got, [("0".into(), 2), ("[4.5-9]".into(), 4)]);
        // a partition per effective leaf, the merged node (> 4) among them
        assert!(out.tree[2].partition.is_some() && out.tree[5].partition.is_none());
        // too few records for any partition: the whole table is refused
        let q = one_column(other, vec![0], vec![1]);
        let err = routed_as(&p, &kinds, &Model::k(2), &q, true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("the whole table (1 records)"), "{err}");
    }

    #[test]
    fn a_hierarchy_child_without_records_is_an_empty_leaf_that_routes() {
        let csv = "a;ab;*\nb;ab;*\nc;cd;*\nd;cd;*\ne;ef;*\nf;ef;*\n";
        let h = Hierarchy::from_csv_str(csv, b';', "h").unwrap();
        // a and c only: the root splits into ab, cd and an empty ef
        let p = one_column(h.clone(), vec![0, 2], vec![2, 2]);
        let out = mondrian(&p, &[Kind::Hierarchy], &Model::k(2), false, &mut || true).unwrap();
        assert_eq!(out.partitions.len(), 2);
        let empty: Vec<&TreeNode> = (out.tree.iter())
            .filter(|n| n.partition.is_none() && n.parent.is_some())
            .collect();
        assert_eq!(empty.len(), 1);
        assert_eq!(
            recorded(&p, &[Kind::Hierarchy], &out.tree)[3],
            Some(Recorded::Under {
                attr: 0,
                level: 1,
                label: "ef".into()
            })
        );
        // e and f now: their own partition, labelled by what it holds
        let q = one_column(h.clone(), vec![0, 3, 4, 5], vec![2, 2, 1, 1]);
        let again = routed(&p, &[Kind::Hierarchy], &Model::k(2), &q).unwrap();
        let got = labels(&q, &[Kind::Hierarchy], &again);
        assert_eq!(got, [("a".into(), 2), ("d".into(), 2), ("ef".into(), 2)]);
        // a lone e: refused
        let q = one_column(h.clone(), vec![0, 2, 4], vec![2, 2, 1]);
        assert!(routed(&p, &[Kind::Hierarchy], &Model::k(2), &q).is_err());
        // a hierarchy without ef: e cannot be placed
        let other = Hierarchy::from_csv_str("a;ab;*\nc;cd;*\ne;ee;*\n", b';', "h").unwrap();
        let q = one_column(other, vec![0, 1, 2], vec![2, 2, 2]);
        let err = routed(&p, &[Kind::Hierarchy], &Model::k(2), &q)
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"e\" falls under \"ee\""), "{err}");
        // coarsened: the split with no part for e undone, one partition
        let out = routed_as(&p, &[Kind::Hierarchy], &Model::k(2), &q, true).unwrap();
        assert_eq!(labels(&q, &[Kind::Hierarchy], &out), [("*".into(), 6)]);
    }

    #[test]
    fn sets_are_cut_in_text_order() {
        let h = Hierarchy::identity(&["a", "b", "c", "d"]).unwrap();
        let p = one_column(h, vec![0, 1, 2, 3], vec![2, 1, 1, 1]);
        // {a,b} and {c,d}; a new "ab" goes left ("bb" would not: it
        // follows "b"), "z" right
        let other = Hierarchy::identity(&["a", "ab", "c", "z"]).unwrap();
        let q = one_column(other, vec![0, 1, 2, 3], vec![1, 1, 1, 1]);
        let out = routed(&p, &[Kind::Set], &Model::k(2), &q).unwrap();
        let got = labels(&q, &[Kind::Set], &out);
        assert_eq!(got, [("{a,ab}".into(), 2), ("{c,z}".into(), 2)]);
        // leaves not in text order (numbers as sets): refused
        let odd = Hierarchy::identity(&["9", "10"]).unwrap();
        let q = one_column(odd, vec![0, 1], vec![2, 2]);
        let err = routed(&p, &[Kind::Set], &Model::k(2), &q)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not their text order"), "{err}");
    }
}
