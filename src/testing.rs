//! What the core's tests share: tables of raw values (the papers' examples,
//! Adult), F0 made from them by a plain Polars group-by, and the brute-force
//! oracle, which generalizes the raw values through the hierarchies' labels
//! and counts them in a plain hash map (no codes, no rollups). The searches
//! compared with it come from the registry (`complete_searches`), so a new
//! algorithm reaches the brute-force tests by its registry line alone.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use polars::prelude::*;

use crate::check::{Checker, Model};
use crate::error::Result;
use crate::freq::{Engine, FreqSet, Problem, RollupJob, COUNT};
use crate::hierarchy::Hierarchy;
use crate::lattice::{Lattice, Node};
use crate::metrics::GroupStats;
use crate::search::{registry::ALGORITHMS, Algorithm, Config, Outcome, Searcher};

/// A chain up the lattice from the bottom that raises the attributes in
/// turn (not only the one a search would pick): the nodes, bottom first,
/// ending at the top.
pub(crate) fn chain_in_turn(heights: &[u8]) -> Vec<Vec<u8>> {
    let mut node = vec![0u8; heights.len()];
    let mut chain = vec![node.clone()];
    for step in 0.. {
        let Some(a) = (0..heights.len())
            .map(|i| (i + step) % heights.len())
            .find(|&a| node[a] < heights[a])
        else {
            break;
        };
        node[a] += 1;
        chain.push(node.clone());
    }
    chain
}

/// A search given by value or boxed (the registry's).
pub(crate) trait AsSearch {
    fn as_search(&self) -> &dyn Algorithm;
}
impl<T: Algorithm> AsSearch for T {
    fn as_search(&self) -> &dyn Algorithm {
        self
    }
}
impl AsSearch for Box<dyn Algorithm> {
    fn as_search(&self) -> &dyn Algorithm {
        &**self
    }
}

/// Every registered search that finds the complete set of anonymous nodes,
/// in each of its variants.
pub(crate) fn complete_searches() -> Vec<Box<dyn Algorithm>> {
    ALGORITHMS
        .iter()
        .flat_map(|e| {
            let variants = if e.variants.is_empty() {
                &[""][..]
            } else {
                e.variants
            };
            variants.iter().map(|v| (e.build)(v))
        })
        .filter(|a| a.complete())
        .collect()
}

pub(crate) fn node_stats(
    p: &Problem,
    node: &[u8],
    model: &Model,
    engine: Engine,
) -> Result<GroupStats> {
    Checker::new(p, model.clone(), engine)?.node_stats(node)
}

pub(crate) fn rollup(
    p: &Problem,
    from: &FreqSet,
    attrs: &[usize],
    levels: &[u8],
    engine: Engine,
) -> Result<FreqSet> {
    p.rollup(
        RollupJob::new(from, attrs.to_vec(), levels.to_vec()),
        engine,
    )
}

/// F0 from a frame of raw values by a Polars group-by (the quasi-identifiers
/// cast to strings), then each distinct value encoded through its hierarchy;
/// a missing hierarchy means "no generalization" (height 0). The package does
/// this in Python; the core's tests do it here.
pub(crate) fn from_frame(
    data: LazyFrame,
    names: &[&str],
    hierarchies: Vec<Option<Hierarchy>>,
    sensitive: &[&str],
) -> Result<Problem> {
    let all: Vec<&str> = names.iter().chain(sensitive).copied().collect();
    let keys: Vec<Expr> = all.iter().map(|&n| col(n).cast(DataType::String)).collect();
    let grouped = data
        .select(keys)
        .group_by(all.iter().map(|&n| col(n)).collect::<Vec<_>>())
        .agg([len().alias(COUNT)])
        .collect()?;
    let mut codes = Vec::with_capacity(names.len());
    let mut hs = Vec::with_capacity(names.len());
    for (name, h) in names.iter().zip(hierarchies) {
        let values: Vec<Option<&str>> = grouped.column(name)?.str()?.iter().collect();
        let h = match h {
            Some(h) => h,
            None => Hierarchy::identity(&distinct(&values))?,
        };
        codes.push(h.encode(name, &values)?);
        hs.push(h);
    }
    let mut sens = Vec::with_capacity(sensitive.len());
    for name in sensitive {
        let values: Vec<Option<&str>> = grouped.column(name)?.str()?.iter().collect();
        let domain = distinct(&values);
        let h = Hierarchy::identity(&domain)?;
        sens.push((
            name.to_string(),
            h.leaves().to_vec(),
            h.encode(name, &values)?,
        ));
    }
    let counts: Vec<u64> = grouped
        .column(COUNT)?
        .cast(&DataType::UInt64)?
        .u64()?
        .into_no_null_iter()
        .collect();
    Problem::with_sensitive(
        names.iter().map(|s| s.to_string()).collect(),
        hs,
        codes,
        sens,
        counts,
    )
}

pub(crate) fn distinct<'a>(values: &[Option<&'a str>]) -> Vec<&'a str> {
    let mut d: Vec<&str> = values.iter().flatten().copied().collect();
    d.sort_unstable();
    d.dedup();
    d
}

pub(crate) fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/polars_anon/data")
}

/// A `;`-separated table with a header, as string columns.
pub(crate) fn read_table(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_path(path)
        .unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

pub(crate) struct Fixture {
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
    pub(crate) hierarchies: HashMap<String, Hierarchy>,
}

impl Fixture {
    pub(crate) fn load(name: &str, table: &str, columns: &[&str]) -> Self {
        let dir = data_dir().join(name);
        let (header, rows) = read_table(&dir.join(table));
        let hierarchies = columns
            .iter()
            .map(|c| {
                let h = Hierarchy::from_csv_path(
                    &dir.join("hierarchies").join(format!("{c}.csv")),
                    b';',
                )
                .unwrap();
                (c.to_string(), h)
            })
            .collect();
        Fixture {
            header,
            rows,
            hierarchies,
        }
    }
    pub(crate) fn adult() -> Self {
        Self::load(
            "adult",
            "adult.csv",
            &[
                "sex",
                "age",
                "race",
                "marital-status",
                "education",
                "native-country",
                "workclass",
                "occupation",
                "salary-class",
            ],
        )
    }
    pub(crate) fn frame(&self) -> DataFrame {
        let cols: Vec<Column> = self
            .header
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let v: Vec<&str> = self.rows.iter().map(|r| r[i].as_str()).collect();
                Column::new(h.as_str().into(), v)
            })
            .collect();
        DataFrame::new(self.rows.len(), cols).unwrap()
    }
    pub(crate) fn problem(&self, qis: &[&str]) -> Problem {
        let hs = qis
            .iter()
            .map(|q| Some(self.hierarchies[*q].clone()))
            .collect();
        from_frame(self.frame().lazy(), qis, hs, &[]).unwrap()
    }
    /// Brute force: the frequency set of `node`, by labels, from the raw rows.
    pub(crate) fn brute_counts(&self, qis: &[&str], node: &[u8]) -> BTreeMap<Vec<String>, u64> {
        let idx: Vec<usize> = qis
            .iter()
            .map(|q| self.header.iter().position(|h| h == q).unwrap())
            .collect();
        let label_maps: Vec<HashMap<&str, &str>> = qis
            .iter()
            .zip(node)
            .map(|(q, &l)| {
                let h = &self.hierarchies[*q];
                h.leaves().iter().zip(h.leaf_labels(l)).collect()
            })
            .collect();
        let mut out = BTreeMap::new();
        for row in &self.rows {
            let key: Vec<String> = idx
                .iter()
                .zip(&label_maps)
                .map(|(&i, m)| m[row[i].as_str()].to_string())
                .collect();
            *out.entry(key).or_insert(0) += 1;
        }
        out
    }
    pub(crate) fn brute_anonymous(&self, qis: &[&str], k: u64, max_sup: u64) -> Vec<Node> {
        let heights: Vec<u8> = qis.iter().map(|q| self.hierarchies[*q].height()).collect();
        Lattice::new(heights)
            .all()
            .filter(|n| {
                let counts: Vec<u64> = self.brute_counts(qis, n).into_values().collect();
                GroupStats::of_counts(&counts, k).suppressed <= max_sup
            })
            .collect()
    }
}

/// A frequency set as labels -> count, for comparison with brute force.
pub(crate) fn labelled(problem: &Problem, fs: &crate::freq::FreqSet) -> BTreeMap<Vec<String>, u64> {
    let cols: Vec<Vec<u32>> = fs.attrs.iter().map(|&a| fs.codes(a).unwrap()).collect();
    let counts = fs.counts().unwrap();
    let mut out = BTreeMap::new();
    for r in 0..counts.len() {
        let key = fs
            .attrs
            .iter()
            .zip(&fs.levels)
            .zip(&cols)
            .map(|((&a, &l), c)| {
                problem.hierarchies[a].levels()[l as usize][c[r] as usize].to_string()
            })
            .collect();
        *out.entry(key).or_insert(0) += counts[r];
    }
    out
}

pub(crate) fn search(problem: &Problem, alg: &impl AsSearch, k: u64, sup: u64) -> Outcome {
    search_with(problem, alg, k, sup, true)
}

pub(crate) fn search_with(
    problem: &Problem,
    alg: &impl AsSearch,
    k: u64,
    sup: u64,
    infer_projections: bool,
) -> Outcome {
    Searcher::new(
        problem,
        Config {
            trace: true,
            infer_projections,
            ..Config::new(k, sup)
        },
    )
    .unwrap()
    .run(alg.as_search())
    .unwrap()
}

/// A table of `n` attributes of height 3 each (four levels, leaves 0..8),
/// `rows` rows drawn by a fixed generator.
pub(crate) fn wide_problem(n: usize, rows: usize) -> Problem {
    let h = Hierarchy::from_rows(
        (0..8)
            .map(|v| {
                vec![
                    format!("{v}"),
                    format!("{}x", v / 2),
                    format!("{}y", v / 4),
                    "*".into(),
                ]
            })
            .collect(),
        "wide",
    )
    .unwrap();
    let mut x = 7u64;
    let codes = (0..n)
        .map(|_| {
            (0..rows)
                .map(|_| {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    ((x >> 33) % 8) as u32
                })
                .collect()
        })
        .collect();
    Problem::from_codes(
        (0..n).map(|a| format!("a{a}")).collect(),
        vec![h; n],
        codes,
        vec![1; rows],
    )
    .unwrap()
}

/// A node's id in the problem's lattice.
pub(crate) fn p_id(p: &Problem, n: &[u8]) -> u128 {
    Lattice::new(p.heights()).id(n)
}
