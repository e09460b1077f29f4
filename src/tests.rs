//! Core tests on the papers' worked examples and on Adult, against a brute-force
//! check that generalizes the raw values through the hierarchies' labels and
//! counts them in a plain hash map (no codes, no rollups).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use polars::prelude::*;

use crate::check::{Checker, GroupStats, Model};
use crate::error::Result;
use crate::freq::{Engine, FreqSet, Problem, RollupJob, COUNT};
use crate::hierarchy::Hierarchy;
use crate::lattice::{Lattice, Node};
use crate::search::{BottomUp, Config, Incognito, MinGen, Samarati, Searcher, Variant};

/// The searches by name, for tables of cases.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Algorithm {
    Incognito(Variant),
    BottomUp { rollup: bool },
    MinGen,
    Samarati,
}

impl Algorithm {
    fn boxed(self) -> Box<dyn crate::search::Algorithm> {
        match self {
            Algorithm::Incognito(v) => Box::new(Incognito(v)),
            Algorithm::BottomUp { rollup } => Box::new(BottomUp { rollup }),
            Algorithm::MinGen => Box::new(MinGen),
            Algorithm::Samarati => Box::new(Samarati),
        }
    }
}

fn node_stats(p: &Problem, node: &[u8], model: &Model, engine: Engine) -> Result<GroupStats> {
    Checker::new(p, model.clone(), engine)?.node_stats(node)
}

fn rollup(
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
fn from_frame(
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

fn distinct<'a>(values: &[Option<&'a str>]) -> Vec<&'a str> {
    let mut d: Vec<&str> = values.iter().flatten().copied().collect();
    d.sort_unstable();
    d.dedup();
    d
}

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/polars_anon/data")
}

/// A `;`-separated table with a header, as string columns.
fn read_table(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
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

struct Fixture {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    hierarchies: HashMap<String, Hierarchy>,
}

impl Fixture {
    fn load(name: &str, table: &str, columns: &[&str]) -> Self {
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
    fn adult() -> Self {
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
    fn frame(&self) -> DataFrame {
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
    fn problem(&self, qis: &[&str]) -> Problem {
        let hs = qis
            .iter()
            .map(|q| Some(self.hierarchies[*q].clone()))
            .collect();
        from_frame(self.frame().lazy(), qis, hs, &[]).unwrap()
    }
    /// Brute force: the frequency set of `node`, by labels, from the raw rows.
    fn brute_counts(&self, qis: &[&str], node: &[u8]) -> BTreeMap<Vec<String>, u64> {
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
    fn brute_anonymous(&self, qis: &[&str], k: u64, max_sup: u64) -> Vec<Node> {
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
fn labelled(problem: &Problem, fs: &crate::freq::FreqSet) -> BTreeMap<Vec<String>, u64> {
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

fn search(problem: &Problem, alg: Algorithm, k: u64, sup: u64) -> crate::search::Outcome {
    search_with(problem, alg, k, sup, true)
}

fn search_with(
    problem: &Problem,
    alg: Algorithm,
    k: u64,
    sup: u64,
    infer_projections: bool,
) -> crate::search::Outcome {
    Searcher::new(
        problem,
        Config {
            k,
            criteria: vec![],
            max_suppression: sup,
            engine: Engine::Auto,
            trace: true,
            infer_projections,
            time_limit: None,
            memory_budget: crate::search::budget::DEFAULT_BYTES,
            objective: Default::default(),
            seed: 0,
        },
    )
    .unwrap()
    .run(&*alg.boxed())
    .unwrap()
}

const ALL: [Algorithm; 6] = [
    Algorithm::Incognito(Variant::Basic),
    Algorithm::Incognito(Variant::SuperRoots),
    Algorithm::Incognito(Variant::Cube),
    Algorithm::BottomUp { rollup: true },
    Algorithm::BottomUp { rollup: false },
    Algorithm::MinGen,
];

#[test]
fn patients_statements_of_the_paper() {
    let f = Fixture::load("patients", "patients.csv", &["Birthdate", "Sex", "Zipcode"]);
    let p = f.problem(&["Sex", "Zipcode"]);
    let anon = |node: &[u8]| {
        node_stats(&p, node, &Model::k(2), Engine::Auto)
            .unwrap()
            .suppressed
            == 0
    };
    // 2-anonymous w.r.t. <S1, Z0> and <S0, Z2>, not w.r.t. <S0, Z0>, <S0, Z1>
    assert!(anon(&[1, 0]) && anon(&[0, 2]));
    assert!(!anon(&[0, 0]) && !anon(&[0, 1]));
    for q in ["Birthdate", "Sex", "Zipcode"] {
        let p1 = f.problem(&[q]);
        assert_eq!(
            node_stats(&p1, &[0], &Model::k(2), Engine::Polars)
                .unwrap()
                .suppressed,
            0,
            "{q}"
        );
    }
}

#[test]
fn incognito_reproduces_figures_5_and_7() {
    let f = Fixture::load("patients", "patients.csv", &["Birthdate", "Sex", "Zipcode"]);
    let p = f.problem(&["Birthdate", "Sex", "Zipcode"]);
    // as the paper: every candidate with a failed or no direct specialization
    // is checked, also those with Sex at its one value
    let out = search_with(&p, Algorithm::Incognito(Variant::Basic), 2, 0, false);
    assert_eq!(out.trace.len(), 3);
    // Figure 5(a): the <Sex, Zipcode> graph
    let it2 = &out.trace[1];
    let status = |attrs: &[usize], levels: &[u8]| {
        let v = (0..it2.attrs.len())
            .find(|&v| it2.attrs[v] == attrs && it2.levels[v] == levels)
            .unwrap();
        (it2.checked[v], it2.marked[v], it2.anonymous[v])
    };
    assert_eq!(status(&[1, 2], &[0, 0]), (true, false, false));
    assert_eq!(status(&[1, 2], &[1, 0]), (true, false, true));
    assert_eq!(status(&[1, 2], &[0, 1]), (true, false, false));
    assert_eq!(status(&[1, 2], &[1, 1]), (false, true, true));
    assert_eq!(status(&[1, 2], &[0, 2]), (true, false, true));
    assert_eq!(status(&[1, 2], &[1, 2]), (false, true, true));
    // Figure 7(a): five candidates, roots <B1,S1,Z0>, <B1,S0,Z2>, <B0,S1,Z2>
    let it3 = &out.trace[2];
    let mut nodes: Vec<Vec<u8>> = it3.levels.clone();
    nodes.sort();
    assert_eq!(
        nodes,
        vec![
            vec![0, 1, 2],
            vec![1, 0, 2],
            vec![1, 1, 0],
            vec![1, 1, 1],
            vec![1, 1, 2]
        ]
    );
    let mut roots: Vec<Vec<u8>> = (0..it3.levels.len())
        .filter(|&v| it3.root[v])
        .map(|v| it3.levels[v].clone())
        .collect();
    roots.sort();
    assert_eq!(roots, vec![vec![0, 1, 2], vec![1, 0, 2], vec![1, 1, 0]]);
    // edges: <1,1,0> -> <1,1,1> -> <1,1,2>, <1,0,2> -> <1,1,2>, <0,1,2> -> <1,1,2>
    let mut edges: Vec<(Vec<u8>, Vec<u8>)> = it3
        .edges
        .iter()
        .map(|&(a, b)| (it3.levels[a].clone(), it3.levels[b].clone()))
        .collect();
    edges.sort();
    assert_eq!(
        edges,
        vec![
            (vec![0, 1, 2], vec![1, 1, 2]),
            (vec![1, 0, 2], vec![1, 1, 2]),
            (vec![1, 1, 0], vec![1, 1, 1]),
            (vec![1, 1, 1], vec![1, 1, 2]),
        ]
    );
    let brute = f.brute_anonymous(&["Birthdate", "Sex", "Zipcode"], 2, 0);
    for alg in ALL {
        assert_eq!(search(&p, alg, 2, 0).anonymous, brute, "{alg:?}");
    }
}

#[test]
fn survey_race_zip_with_suppression() {
    let f = Fixture::load("race_zip", "race_zip.csv", &["Race", "ZIP"]);
    let p = f.problem(&["Race", "ZIP"]);
    for alg in ALL {
        let out = search(&p, alg, 2, 2);
        assert_eq!(out.minimal, vec![vec![1, 0], vec![0, 1]], "{alg:?}");
    }
    let sam = search(&p, Algorithm::Samarati, 2, 2);
    assert_eq!(sam.minimal, vec![vec![1, 0], vec![0, 1]]);
    // each suppresses exactly two tuples; <R0, Z0> would need six
    for (node, sup) in [(vec![1u8, 0], 2), (vec![0, 1], 2), (vec![0, 0], 6)] {
        assert_eq!(
            node_stats(&p, &node, &Model::k(2), Engine::Auto)
                .unwrap()
                .suppressed,
            sup
        );
    }
}

#[test]
fn rollup_equals_rescan_on_adult_for_both_engines() {
    let f = Fixture::adult();
    let qis = ["age", "education", "marital-status", "occupation"];
    let p = f.problem(&qis);
    assert_eq!(p.rows, 30162);
    let all = vec![0, 1, 2, 3];
    for engine in [Engine::Polars, Engine::Native] {
        // chains F0 -> a -> b, and a projection onto a subset
        for (a, b) in [
            (vec![1u8, 0, 0, 0], vec![2u8, 1, 0, 1]),
            (vec![0, 2, 1, 0], vec![4, 3, 2, 2]),
            (vec![3, 0, 0, 1], vec![3, 1, 0, 2]),
        ] {
            let fa = rollup(&p, &p.base, &all, &a, engine).unwrap();
            assert_eq!(
                labelled(&p, &fa),
                f.brute_counts(&qis, &a),
                "{engine:?} {a:?}"
            );
            let fb = rollup(&p, &fa, &all, &b, engine).unwrap();
            assert_eq!(
                labelled(&p, &fb),
                f.brute_counts(&qis, &b),
                "{engine:?} {b:?}"
            );
            let proj = rollup(&p, &fa, &[0, 2], &[b[0], b[2]], engine).unwrap();
            assert_eq!(
                labelled(&p, &proj),
                f.brute_counts(&["age", "marital-status"], &[b[0], b[2]]),
            );
        }
    }
    // the two engines give the same rows
    let x = rollup(&p, &p.base, &all, &[1, 1, 1, 1], Engine::Polars).unwrap();
    let y = rollup(&p, &p.base, &all, &[1, 1, 1, 1], Engine::Native).unwrap();
    assert_eq!(x.sorted_rows().unwrap(), y.sorted_rows().unwrap());
}

#[test]
fn a_large_rollup_split_over_two_cores_sums_like_one() {
    // a source of F0's rows repeated past the size at which one rollup is
    // split over two cores: each group's count is its count in F0 times the
    // copies, whichever half of the source its rows fell in
    let f = Fixture::adult();
    let qis = ["age", "education", "marital-status", "occupation"];
    let p = f.problem(&qis);
    let layout = p.layout.clone().expect("Adult's codes pack");
    let (keys, counts) = p.base.packed(&layout).unwrap();
    let copies = 40_000 / keys.len() + 1;
    let big = FreqSet {
        attrs: p.base.attrs.clone(),
        levels: p.base.levels.clone(),
        carry: Vec::new(),
        data: crate::freq::SetData::Packed {
            layout,
            keys: keys.repeat(copies),
            counts: counts.repeat(copies),
        },
    };
    assert!(big.rows() >= 40_000);
    let all = vec![0, 1, 2, 3];
    for node in [[0u8, 0, 0, 0], [1, 1, 1, 1], [3, 0, 2, 1], [4, 3, 2, 2]] {
        let one = rollup(&p, &p.base, &all, &node, Engine::Native).unwrap();
        let want: Vec<(Vec<u32>, u64)> = one
            .sorted_rows()
            .unwrap()
            .into_iter()
            .map(|(codes, c)| (codes, c * copies as u64))
            .collect();
        let got = rollup(&p, &big, &all, &node, Engine::Native).unwrap();
        assert_eq!(got.sorted_rows().unwrap(), want, "{node:?}");
    }
}

#[test]
fn every_search_agrees_with_brute_force_on_adult() {
    let f = Fixture::adult();
    let cols = ["sex", "age", "race", "marital-status", "education"];
    for n in [3usize, 5] {
        let qis = &cols[..n];
        let p = f.problem(qis);
        for k in [2u64, 5, 10] {
            for sup in [0u64, 150] {
                let brute = f.brute_anonymous(qis, k, sup);
                let lat = Lattice::new(p.heights());
                for alg in ALL {
                    let out = search(&p, alg, k, sup);
                    assert_eq!(out.anonymous, brute, "{alg:?} n={n} k={k} sup={sup}");
                    // minimal: anonymous with no anonymous direct specialization
                    for m in &out.minimal {
                        assert!(lat.predecessors(m).iter().all(|q| !brute.contains(q)));
                    }
                }
                let sam = search(&p, Algorithm::Samarati, k, sup);
                let min_h = brute.iter().map(|n| crate::lattice::node_height(n)).min();
                assert_eq!(
                    sam.minimal
                        .iter()
                        .map(|n| crate::lattice::node_height(n))
                        .min(),
                    min_h
                );
                assert!(sam.minimal.iter().all(|m| brute.contains(m)));
            }
        }
    }
}

#[test]
fn a_frequency_set_grouped_at_floor_levels_answers_like_the_leaves() {
    // Each value stands for its label at its attribute's floor (the lowest
    // level at which the attribute alone is k-anonymous within the budget),
    // represented by the first leaf under that label in row order; nodes
    // below the floors fail unread. Every search must answer as on the raw
    // rows, and nothing below the floors may be asked.
    let f = Fixture::adult();
    let qis = ["sex", "age", "race", "marital-status", "education"];
    for (k, sup) in [(5u64, 0u64), (100, 300), (2, 0)] {
        let brute = f.brute_anonymous(&qis, k, sup);
        let mut floored = Fixture {
            header: f.header.clone(),
            rows: f.rows.clone(),
            hierarchies: f.hierarchies.clone(),
        };
        let mut floors = Vec::new();
        for q in qis {
            let h = &f.hierarchies[q];
            let floor = (0..=h.height())
                .find(|&g| {
                    let counts: Vec<u64> = f.brute_counts(&[q], &[g]).into_values().collect();
                    GroupStats::of_counts(&counts, k).suppressed <= sup
                })
                .unwrap();
            floors.push(floor);
            let labels: HashMap<&str, &str> = h.leaves().iter().zip(h.leaf_labels(floor)).collect();
            let i = f.header.iter().position(|c| c == q).unwrap();
            let mut first: HashMap<&str, String> = HashMap::new();
            for row in &f.rows {
                first
                    .entry(labels[row[i].as_str()])
                    .or_insert_with(|| row[i].clone());
            }
            for row in floored.rows.iter_mut() {
                row[i] = first[labels[row[i].as_str()]].clone();
            }
        }
        let mut p = floored.problem(&qis);
        if k > 2 {
            assert!(floors.iter().any(|&l| l > 0), "k={k} sup={sup}: {floors:?}");
            assert!(p.base.rows() < f.problem(&qis).base.rows());
        }
        p.set_floors(crate::freq::Floors {
            levels: floors.clone(),
            k,
            max_suppressed: sup,
        })
        .unwrap();
        for alg in ALL.into_iter().chain([Algorithm::Samarati]) {
            let out = search(&p, alg, k, sup);
            if alg == Algorithm::Samarati {
                assert!(out.anonymous.iter().all(|n| brute.contains(n)), "{alg:?}");
            } else {
                assert_eq!(out.anonymous, brute, "{alg:?} k={k} sup={sup}");
            }
        }
        // above the floors every node's set is the raw one, label for label
        let model = Model::k(k);
        for node in &brute {
            let fs = p.node_set(node, Engine::Auto).unwrap();
            assert_eq!(labelled(&p, &fs), f.brute_counts(&qis, node));
        }
        let low: Vec<u8> = floors.iter().map(|&l| l.saturating_sub(1)).collect();
        let err = node_stats(&p, &low, &model, Engine::Auto).unwrap_err();
        assert!(err.to_string().contains("below level"), "{err}");
        // a weaker model than the floors were found for is refused
        let weaker = Searcher::new(&p, Config::new(k, sup + 1));
        assert!(weaker.is_err_and(|e| e.to_string().contains("floor levels")));
    }
}

#[test]
fn incognito_prunes_and_counts_scans() {
    let f = Fixture::adult();
    let qis = [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
    ];
    let p = f.problem(&qis);
    let basic = search(&p, Algorithm::Incognito(Variant::Basic), 2, 0);
    let sr = search(&p, Algorithm::Incognito(Variant::SuperRoots), 2, 0);
    let cube = search(&p, Algorithm::Incognito(Variant::Cube), 2, 0);
    let bu = search(&p, Algorithm::BottomUp { rollup: true }, 2, 0);
    assert_eq!(basic.anonymous, cube.anonymous);
    assert_eq!(sr.anonymous, cube.anonymous);
    assert_eq!(bu.anonymous, cube.anonymous);
    // the same nodes are checked, only where their sets come from differs
    assert_eq!(basic.stats.nodes_checked, cube.stats.nodes_checked);
    assert!(sr.stats.table_scans < basic.stats.table_scans);
    // F0 is read once, for the full cuboid at iteration 1's floor (the
    // one-attribute cuboids are counted with F0 itself)
    assert_eq!(cube.stats.table_scans, 1);
    // the cuboids of two or more attributes are built as graphs need them,
    // not all up front
    assert!(cube.stats.cuboids > qis.len() as u64);
    assert!(cube.stats.cuboids < (1 << qis.len()) - 1);
    // bottom-up with rollup scans the table once, for the bottom node
    assert_eq!(bu.stats.table_scans, 1);
    assert!(basic.stats.nodes_checked < bu.stats.nodes_checked);
}

#[test]
fn one_value_candidates_are_left_out_and_answered_by_their_projections() {
    // The paper's example: <S1, Z0> has Sex at its one value (*), so it is
    // <Z0> of iteration 1 and the graph of iteration 2 leaves it out.
    let f = Fixture::load("patients", "patients.csv", &["Birthdate", "Sex", "Zipcode"]);
    let p = f.problem(&["Birthdate", "Sex", "Zipcode"]);
    let out = search(&p, Algorithm::Incognito(Variant::Basic), 2, 0);
    let it2 = &out.trace[1];
    assert!(!(0..it2.attrs.len()).any(|v| it2.attrs[v] == [1, 2] && it2.levels[v] == [1, 0]));
    // <B1, S1, Z0> is <Z0> (Birthdate and Sex at *), 2-anonymous
    assert!(out.anonymous.contains(&vec![1, 1, 0]));
    // the five of Figure 7 all have Birthdate or Sex at its top: every one is
    // taken from an earlier iteration
    assert_eq!(out.anonymous.len(), 5);
    assert_eq!(out.stats.nodes_projected, 5);

    // Adult: the same answers and, node for node, the same search of every
    // node that has no attribute at its top level; the answer's other nodes
    // are all taken from earlier iterations.
    let f = Fixture::adult();
    let qis = [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "workclass",
    ];
    let p = f.problem(&qis);
    let heights = p.heights();
    let lifted =
        |attrs: &[usize], levels: &[u8]| attrs.iter().zip(levels).any(|(&a, &l)| l == heights[a]);
    for variant in [Variant::Basic, Variant::SuperRoots, Variant::Cube] {
        for (k, sup) in [(2u64, 0u64), (5, 300), (10, 1500)] {
            let alg = Algorithm::Incognito(variant);
            let on = search_with(&p, alg, k, sup, true);
            let off = search_with(&p, alg, k, sup, false);
            let ctx = format!("{variant:?} k={k} sup={sup}");
            assert_eq!(on.anonymous, off.anonymous, "{ctx}");
            assert!(on.trace.len() <= off.trace.len(), "{ctx}");
            let mut checked_off = 0;
            for (i, b) in off.trace.iter().enumerate() {
                let kept: Vec<usize> = (0..b.attrs.len())
                    .filter(|&v| i == 0 || !lifted(&b.attrs[v], &b.levels[v]))
                    .collect();
                let Some(a) = on.trace.get(i) else {
                    // a graph the inference never built: no node to search
                    assert!(kept.is_empty(), "{ctx} iteration {}", i + 1);
                    continue;
                };
                checked_off += kept.iter().filter(|&&v| b.checked[v]).count() as u64;
                let flags = |t: &crate::search::IterationTrace, v: usize| {
                    (
                        t.attrs[v].clone(),
                        t.levels[v].clone(),
                        t.root[v],
                        t.checked[v],
                        t.marked[v],
                        t.anonymous[v],
                    )
                };
                let mut x: Vec<_> = (0..a.attrs.len()).map(|v| flags(a, v)).collect();
                let mut y: Vec<_> = kept.iter().map(|&v| flags(b, v)).collect();
                x.sort();
                y.sort();
                assert_eq!(x, y, "{ctx} iteration {}", i + 1);
            }
            assert_eq!(on.stats.nodes_checked, checked_off, "{ctx}");
            assert!(on.stats.nodes_checked < off.stats.nodes_checked, "{ctx}");
            let projected = on
                .anonymous
                .iter()
                .filter(|n| lifted(&(0..n.len()).collect::<Vec<_>>(), n))
                .count() as u64;
            assert!(projected > 0);
            assert_eq!(on.stats.nodes_projected, projected, "{ctx}");
        }
    }
    let brute = f.brute_anonymous(&qis, 5, 300);
    let cube = search(&p, Algorithm::Incognito(Variant::Cube), 5, 300);
    assert_eq!(cube.anonymous, brute);
}

#[test]
fn one_value_levels_below_the_top_and_at_the_leaves() {
    // a and b: leaf -> pair -> *; c: one value from level 1 on, twice; d: a
    // single value already at the leaves
    let rows = |r: &[&[&str]]| {
        r.iter()
            .map(|x| x.iter().map(|s| s.to_string()).collect())
            .collect::<Vec<Vec<String>>>()
    };
    let ha = Hierarchy::from_rows(
        rows(&[
            &["1", "12", "*"],
            &["2", "12", "*"],
            &["3", "34", "*"],
            &["4", "34", "*"],
        ]),
        "a",
    )
    .unwrap();
    let hb = Hierarchy::from_rows(
        rows(&[&["x", "xy", "*"], &["y", "xy", "*"], &["z", "z", "*"]]),
        "b",
    )
    .unwrap();
    let hc = Hierarchy::from_rows(rows(&[&["p", "*", "*"], &["q", "*", "*"]]), "c").unwrap();
    let hd = Hierarchy::from_rows(rows(&[&["only", "*"]]), "d").unwrap();
    // 40 rows from a fixed pseudo-random sequence
    let mut seed = 7u64;
    let mut next = |m: u32| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % m as u64) as u32
    };
    let rows_n = 40;
    let codes: Vec<Vec<u32>> = [4u32, 3, 2, 1]
        .iter()
        .map(|&m| (0..rows_n).map(|_| next(m)).collect())
        .collect();
    let p = Problem::from_codes(
        vec!["a".into(), "b".into(), "c".into(), "d".into()],
        vec![ha, hb, hc, hd],
        codes,
        vec![1; rows_n],
    )
    .unwrap();
    for (k, sup) in [(2u64, 0u64), (3, 4), (5, 10), (12, 3), (40, 0)] {
        let every = search(&p, Algorithm::MinGen, k, sup).anonymous;
        if k == 40 {
            // one group of all 40 rows: a and b at *, c at either *, d at either
            assert_eq!(
                every,
                vec![
                    vec![2, 2, 1, 0],
                    vec![2, 2, 2, 0],
                    vec![2, 2, 1, 1],
                    vec![2, 2, 2, 1]
                ]
            );
        }
        for variant in [Variant::Basic, Variant::SuperRoots, Variant::Cube] {
            let alg = Algorithm::Incognito(variant);
            assert_eq!(
                search_with(&p, alg, k, sup, true).anonymous,
                every,
                "{variant:?} k={k} sup={sup}"
            );
            assert_eq!(
                search_with(&p, alg, k, sup, false).anonymous,
                every,
                "{variant:?} k={k} sup={sup}"
            );
        }
    }
}

#[test]
fn errors_name_the_column_and_values() {
    let f = Fixture::load("patients", "patients.csv", &["Birthdate", "Sex", "Zipcode"]);
    let df = df!("Zipcode" => ["53715", "99999", "00000"]).unwrap();
    let e = from_frame(
        df.lazy(),
        &["Zipcode"],
        vec![Some(f.hierarchies["Zipcode"].clone())],
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("'Zipcode'") && e.contains("\"99999\"") && e.contains("\"00000\""),
        "{e}"
    );
    let p = f.problem(&["Sex"]);
    let e = Searcher::new(
        &p,
        Config {
            k: 7,
            criteria: vec![],
            max_suppression: 0,
            engine: Engine::Auto,
            trace: true,
            infer_projections: true,
            time_limit: None,
            memory_budget: crate::search::budget::DEFAULT_BYTES,
            objective: Default::default(),
            seed: 0,
        },
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("k = 7") && e.contains("6 rows"), "{e}");
    // codes given to the core outside their hierarchy's leaves, whether the
    // codes pack (checked while the keys are packed, the bad code in a later
    // block of rows) or not (24 attributes of 8 leaves: 72 bits)
    for n in [3usize, 24] {
        let leaves = Hierarchy::from_rows(
            (0..8).map(|v| vec![v.to_string(), "*".into()]).collect(),
            "eight",
        )
        .unwrap();
        let mut codes = vec![vec![1u32; 5_000]; n];
        codes[n - 1][4_321] = 8;
        let e = Problem::from_codes(
            (0..n).map(|a| format!("a{a}")).collect(),
            vec![leaves; n],
            codes,
            vec![1; 5_000],
        )
        .unwrap_err()
        .to_string();
        let last = format!("'a{}'", n - 1);
        assert!(
            e.contains(&last) && e.contains("code 8") && e.contains("8 leaves"),
            "{e}"
        );
    }
}

mod sensitive {
    use super::*;
    use crate::criteria::{
        CriterionRef, DistinctL, EntropyL, PAlphaSensitive, PPlusSensitive, PSensitive,
        RecursiveCL, TCloseness,
    };
    use std::sync::Arc;

    const CATEGORIES: [(&str, u32); 8] = [
        ("HIV", 0),
        ("Cancer", 0),
        ("Phthisis", 1),
        ("Hepatitis", 1),
        ("Obesity", 2),
        ("Asthma", 2),
        ("Flu", 3),
        ("Indigestion", 3),
    ];

    /// One of Sun et al.'s released tables: QI columns as printed, and Disease.
    fn table(rows: &[[&str; 4]]) -> Problem {
        let col = |i: usize, name: &str| {
            Column::new(
                name.into(),
                rows.iter().map(|r| r[i]).collect::<Vec<&str>>(),
            )
        };
        let df = DataFrame::new(
            rows.len(),
            vec![
                col(0, "Age"),
                col(1, "Country"),
                col(2, "Zip"),
                col(3, "Disease"),
            ],
        )
        .unwrap();
        from_frame(
            df.lazy(),
            &["Age", "Country", "Zip"],
            vec![None, None, None],
            &["Disease"],
        )
        .unwrap()
    }

    fn category(p: &Problem) -> Vec<u32> {
        p.sensitive[0]
            .values
            .iter()
            .map(|v| CATEGORIES.iter().find(|(n, _)| n == v).unwrap().1)
            .collect()
    }

    fn passes(p: &Problem, k: u64, c: CriterionRef) -> bool {
        let m = Model {
            k,
            criteria: vec![c],
        };
        node_stats(p, &[0, 0, 0], &m, Engine::Auto)
            .unwrap()
            .suppressed
            == 0
    }

    const T5: [[&str; 4]; 12] = [
        ["<30", "America", "142**", "HIV"],
        ["<30", "America", "142**", "HIV"],
        ["<30", "America", "142**", "Cancer"],
        ["<30", "America", "142**", "Cancer"],
        [">40", "Asia", "130**", "Hepatitis"],
        [">40", "Asia", "130**", "Phthisis"],
        [">40", "Asia", "130**", "Asthma"],
        [">40", "Asia", "130**", "Obesity"],
        ["3*", "America", "142**", "Flu"],
        ["3*", "America", "142**", "Flu"],
        ["3*", "America", "142**", "Flu"],
        ["3*", "America", "142**", "Indigestion"],
    ];
    const T6: [[&str; 4]; 12] = [
        ["<40", "America", "1424*", "HIV"],
        ["<40", "America", "1424*", "Cancer"],
        ["<40", "America", "1424*", "Flu"],
        ["<40", "America", "1424*", "Indigestion"],
        [">40", "Asia", "130**", "Hepatitis"],
        [">40", "Asia", "130**", "Phthisis"],
        [">40", "Asia", "130**", "Asthma"],
        [">40", "Asia", "130**", "Obesity"],
        ["<40", "America", "1420*", "HIV"],
        ["<40", "America", "1420*", "Cancer"],
        ["<40", "America", "1420*", "Flu"],
        ["<40", "America", "1420*", "Flu"],
    ];
    const T7: [[&str; 4]; 12] = [
        ["<40", "America", "142**", "HIV"],
        ["<40", "America", "142**", "HIV"],
        ["<40", "America", "142**", "Cancer"],
        ["<40", "America", "142**", "Flu"],
        [">40", "Asia", "130**", "Hepatitis"],
        [">40", "Asia", "130**", "Phthisis"],
        [">40", "Asia", "130**", "Asthma"],
        [">40", "Asia", "130**", "Obesity"],
        ["<40", "America", "14***", "Cancer"],
        ["<40", "America", "14***", "Flu"],
        ["<40", "America", "14***", "Flu"],
        ["<40", "America", "14***", "Indigestion"],
    ];

    #[test]
    fn sun_tables_5_6_7() {
        let (t5, t6, t7) = (table(&T5), table(&T6), table(&T7));
        let ps = |p| -> CriterionRef { Arc::new(PSensitive::new(p, 0).unwrap()) };
        let pplus = |t: &Problem, p| -> CriterionRef {
            Arc::new(PPlusSensitive::new(p, 0, category(t)).unwrap())
        };
        let palpha = |t: &Problem, p, alpha| -> CriterionRef {
            Arc::new(PAlphaSensitive::new(p, alpha, 0, category(t), 4).unwrap())
        };
        // Table 5 is 2-sensitive 4-anonymous, but not 3-sensitive, not 2+-sensitive
        assert!(passes(&t5, 4, ps(2)));
        assert!(!passes(&t5, 4, ps(3)) && !passes(&t5, 5, ps(2)));
        assert!(!passes(&t5, 4, pplus(&t5, 2)));
        // Table 6 is 2+-sensitive 4-anonymous, not 3+-sensitive
        assert!(passes(&t6, 4, pplus(&t6, 2)) && !passes(&t6, 4, pplus(&t6, 3)));
        // Table 7 is (3, 1)-sensitive 4-anonymous: group weights 1, 2, 3
        assert!(passes(&t7, 4, palpha(&t7, 3, 1.0)));
        assert!(!passes(&t7, 4, palpha(&t7, 3, 1.5)));
        assert!(!passes(&t5, 4, palpha(&t5, 3, 1.0)));
        // the suppressed groups are reported by their QI codes
        let m = Model {
            k: 4,
            criteria: vec![pplus(&t5, 2)],
        };
        // both American groups hold a single category (One; Four)
        let checker = Checker::new(&t5, m, Engine::Auto).unwrap();
        assert_eq!(checker.suppressed_groups(&[0, 0, 0]).unwrap().len(), 2);
    }

    #[test]
    fn incognito_with_criteria_matches_the_exhaustive_search() {
        let f = Fixture::adult();
        let qis = ["sex", "age", "race", "marital-status"];
        let hs = qis
            .iter()
            .map(|q| Some(f.hierarchies[*q].clone()))
            .collect();
        let p = from_frame(f.frame().lazy(), &qis, hs, &["occupation"]).unwrap();
        for (criterion, sup) in [
            (
                Arc::new(PSensitive::new(3, 0).unwrap()) as CriterionRef,
                100,
            ),
            (Arc::new(DistinctL::new(5, 0).unwrap()), 0),
            (Arc::new(EntropyL::new(3.0, 0).unwrap()), 0),
            (Arc::new(RecursiveCL::new(3.0, 3, 0).unwrap()), 0),
            (
                Arc::new(TCloseness::new(0.2, 0, crate::criteria::Distance::Equal).unwrap()),
                0,
            ),
        ] {
            let run = |alg: Algorithm| {
                Searcher::new(
                    &p,
                    Config {
                        k: 3,
                        criteria: vec![criterion.clone()],
                        max_suppression: sup,
                        engine: Engine::Auto,
                        trace: false,
                        infer_projections: true,
                        time_limit: None,
                        memory_budget: crate::search::budget::DEFAULT_BYTES,
                        objective: Default::default(),
                        seed: 0,
                    },
                )
                .unwrap()
                .run(&*alg.boxed())
                .unwrap()
                .anonymous
            };
            let exhaustive = run(Algorithm::MinGen);
            assert!(!exhaustive.is_empty(), "{criterion:?}");
            for alg in ALL {
                assert_eq!(run(alg), exhaustive, "{alg:?} {criterion:?}");
            }
        }
    }
}

/// Codes too wide to pack into 64 bits: F0 is a Polars frame; a rollup whose
/// target packs runs in the native kernel with a layout of its own (read
/// from the frame's columns, or from another such set's fields), the others
/// as Polars plans, with the same rows and the same answers.
#[test]
fn wide_domains_pack_each_target_or_fall_back_to_polars_plans() {
    let n_attrs = 5;
    let leaves = 20_000; // 15 bits each: 75 bits in all
    let hs: Vec<Hierarchy> = (0..n_attrs)
        .map(|a| {
            let rows = (0..leaves)
                .map(|i| vec![format!("v{i}"), format!("g{}", i % 3), "*".to_string()])
                .collect();
            Hierarchy::from_rows(rows, &format!("h{a}")).unwrap()
        })
        .collect();
    let rows: Vec<Vec<String>> = (0..80u32)
        .map(|r| {
            (0..n_attrs as u32)
                .map(|a| format!("v{}", (r * (a + 3) * 7919) % 9))
                .collect()
        })
        .collect();
    let names: Vec<String> = (0..n_attrs).map(|a| format!("c{a}")).collect();
    let cols: Vec<Column> = names
        .iter()
        .enumerate()
        .map(|(a, n)| {
            Column::new(
                n.as_str().into(),
                rows.iter().map(|r| r[a].as_str()).collect::<Vec<_>>(),
            )
        })
        .collect();
    let df = DataFrame::new(rows.len(), cols).unwrap();
    let qis: Vec<&str> = names.iter().map(String::as_str).collect();
    let p = from_frame(df.lazy(), &qis, hs.iter().cloned().map(Some).collect(), &[]).unwrap();
    assert!(p.layout.is_none());
    let fixture = Fixture {
        header: names.clone(),
        rows,
        hierarchies: names.iter().cloned().zip(hs).collect(),
    };
    let all: Vec<usize> = (0..n_attrs).collect();
    let packed = |fs: &FreqSet| matches!(fs.data, crate::freq::SetData::Packed { .. });
    // (target, whether it packs): 75 bits at the leaves, 2 bits a field at
    // level 1 and 0 at the top
    for (node, packs) in [
        (vec![0u8, 0, 0, 0, 0], false),
        (vec![1, 1, 1, 1, 1], true),
        (vec![0, 0, 0, 1, 2], true),
        (vec![0, 0, 0, 0, 1], true),
        (vec![2, 1, 0, 2, 1], true),
    ] {
        let auto = rollup(&p, &p.base, &all, &node, Engine::Auto).unwrap();
        let plan = rollup(&p, &p.base, &all, &node, Engine::Polars).unwrap();
        assert_eq!(packed(&auto), packs, "{node:?}");
        assert!(!packed(&plan));
        assert_eq!(auto.sorted_rows().unwrap(), plan.sorted_rows().unwrap());
        assert_eq!(labelled(&p, &auto), fixture.brute_counts(&qis, &node));
        // up again from the set just made (its own fields), and onto a subset
        let up: Vec<u8> = node.iter().map(|&l| (l + 1).min(2)).collect();
        let a2 = rollup(&p, &auto, &all, &up, Engine::Auto).unwrap();
        assert!(packed(&a2));
        assert_eq!(labelled(&p, &a2), fixture.brute_counts(&qis, &up));
        let sub = rollup(&p, &auto, &[1, 3], &[up[1], up[3]], Engine::Auto).unwrap();
        assert_eq!(
            labelled(&p, &sub),
            fixture.brute_counts(&[qis[1], qis[3]], &[up[1], up[3]])
        );
    }
    let brute = fixture.brute_anonymous(&qis, 3, 4);
    assert!(!brute.is_empty());
    for alg in ALL {
        assert_eq!(search(&p, alg, 3, 4).anonymous, brute, "{alg:?}");
    }
}

/// A table of `n` attributes of height 3 each (four levels, leaves 0..8),
/// `rows` rows drawn by a fixed generator.
fn wide_problem(n: usize, rows: usize) -> Problem {
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

#[test]
fn searches_past_the_memory_budget_are_refused_before_they_start() {
    // 25 attributes: a lattice of 4^25 ~ 1.1e15 nodes
    let p = wide_problem(25, 200);
    for alg in [
        Algorithm::MinGen,
        Algorithm::BottomUp { rollup: true },
        Algorithm::Samarati,
        Algorithm::Incognito(Variant::Cube),
    ] {
        let mut config = Config::new(2, 10);
        config.memory_budget = 64 << 20;
        let t = std::time::Instant::now();
        let e = Searcher::new(&p, config)
            .unwrap()
            .run(&*alg.boxed())
            .unwrap_err();
        assert!(matches!(e, crate::AnonError::TooLarge(_)), "{alg:?}: {e}");
        let e = e.to_string();
        assert!(
            e.contains("1.13e15") && e.contains("memory budget"),
            "{alg:?}: {e}"
        );
        // Incognito walks its first iterations before a graph is refused
        assert!(t.elapsed().as_secs() < 30, "{alg:?} took {:?}", t.elapsed());
    }
    // a small lattice under the same budget runs
    let small = wide_problem(3, 200);
    let mut config = Config::new(2, 10);
    config.memory_budget = 64 << 20;
    assert!(Searcher::new(&small, config).unwrap().run(&MinGen).is_ok());
}

#[test]
fn a_search_at_its_time_limit_answers_with_confirmed_nodes_only() {
    let f = Fixture::adult();
    let qis = [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
    ];
    let p = f.problem(&qis);
    let t = std::time::Instant::now();
    let every = search(&p, Algorithm::MinGen, 5, 300).anonymous;
    // a fifth of MinGen's own time: it cannot finish in it on any day
    let limit = t.elapsed() / 5;
    for alg in [
        Algorithm::MinGen,
        Algorithm::BottomUp { rollup: false },
        Algorithm::Incognito(Variant::Basic),
        Algorithm::Samarati,
    ] {
        let mut config = Config::new(5, 300);
        config.time_limit = Some(limit);
        let out = Searcher::new(&p, config)
            .unwrap()
            .run(&*alg.boxed())
            .unwrap();
        if out.stopped.is_some() {
            assert!(!out.complete, "{alg:?}");
            assert!(out.stopped.as_deref().unwrap().contains("time limit"));
            // every node it answers with is anonymous, checked or inferred
            for n in &out.anonymous {
                assert!(
                    every
                        .binary_search_by_key(&p_id(&p, n), |m| p_id(&p, m))
                        .is_ok(),
                    "{alg:?} {n:?}"
                );
            }
            assert!(out.anonymous.len() < every.len(), "{alg:?}");
        }
    }
    // MinGen checks 2,700 nodes from the table
    let mut config = Config::new(5, 300);
    config.time_limit = Some(limit);
    let out = Searcher::new(&p, config).unwrap().run(&MinGen).unwrap();
    assert!(out.stopped.is_some() && out.stats.nodes_checked < 2_700);
}

fn p_id(p: &Problem, n: &[u8]) -> u128 {
    Lattice::new(p.heights()).id(n)
}

#[test]
fn a_check_from_f0_in_blocks_fails_exactly_where_the_full_set_fails() {
    // Leaves coded out of hierarchy order (a parent's leaves are not
    // adjacent codes), skewed values so that groups of every size occur, and
    // enough distinct rows (about 70,000) that a check shares its larger
    // runs with a second core after the smallest ones on its own.
    let hierarchy = |leaves: u32, parents: u32| {
        Hierarchy::from_rows(
            (0..leaves)
                .map(|v| {
                    let p = v % parents;
                    vec![
                        format!("{v}"),
                        format!("p{p}"),
                        format!("g{}", p % 3),
                        "*".into(),
                    ]
                })
                .collect(),
            "blocks",
        )
        .unwrap()
    };
    let domains = [(300u32, 40u32), (40, 8), (24, 6), (12, 4)];
    let rows = 90_000;
    let mut x = 11u64;
    let mut draw = |d: u32| {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        // the square of a uniform draw: low codes far more frequent
        let u = ((x >> 33) % 1_000_000) as f64 / 1e6;
        ((u * u) * d as f64) as u32
    };
    let codes: Vec<Vec<u32>> = domains
        .iter()
        .map(|&(d, _)| (0..rows).map(|_| draw(d)).collect())
        .collect();
    let counts = (0..rows as u64).map(|r| 1 + r % 3).collect();
    let p = Problem::from_codes(
        (0..domains.len()).map(|a| format!("a{a}")).collect(),
        domains.iter().map(|&(d, p)| hierarchy(d, p)).collect(),
        codes,
        counts,
    )
    .unwrap();
    assert!(p.base.rows() > 60_000, "{}", p.base.rows());
    let lattice = Lattice::new(p.heights());
    for (k, budget) in [(2u64, 0u64), (5, 0), (5, 3_000), (20, 40_000)] {
        let checker = Checker::new(&p, Model::k(k), Engine::Auto).unwrap();
        let blocks: Vec<_> = (0..domains.len())
            .map(|a| checker.blocks(a).unwrap().expect("plain k on packed keys"))
            .collect();
        let passed: Vec<bool> = (lattice.all().enumerate())
            .map(|(i, node)| early_agrees(&checker, &blocks[i % blocks.len()], &node, budget))
            .collect();
        assert!(
            passed.contains(&true) && passed.contains(&false),
            "k={k} {budget}"
        );
    }
}

/// Whether `node` passes, read from F0 in `blocks`, after asserting that the
/// check stopped early exactly when the full set fails, and otherwise gave
/// the full set.
fn early_agrees(
    checker: &Checker<'_>,
    blocks: &crate::freq::Blocks,
    node: &[u8],
    budget: u64,
) -> bool {
    let full = checker.problem.node_set(node, Engine::Auto).unwrap();
    let suppressed = checker.group_stats(&full).unwrap().suppressed;
    let k = checker.model.k;
    match checker.fails_early(blocks, node, budget).unwrap() {
        None => {
            assert!(suppressed > budget, "k={k} {budget} {node:?}");
            false
        }
        Some(fs) => {
            assert!(suppressed <= budget, "k={k} {budget} {node:?}");
            assert_eq!(fs.sorted_rows().unwrap(), full.sorted_rows().unwrap());
            true
        }
    }
}

#[test]
fn a_check_from_f0_in_blocks_fails_alike_when_f0_does_not_pack() {
    // 24 attributes of 8 leaves: 72 bits of leaf codes, so F0 is read as
    // narrowed columns and each target packed in a layout of its own
    let p = wide_problem(24, 70_000);
    assert!(p.layout.is_none());
    let mut x = 5u64;
    let mut node = || -> Vec<u8> {
        (0..24)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                [1u8, 2, 2, 3, 3, 3][((x >> 33) % 6) as usize]
            })
            .collect()
    };
    let nodes: Vec<Vec<u8>> = (0..150).map(|_| node()).collect();
    for (k, budget) in [(2u64, 0u64), (5, 500)] {
        let checker = Checker::new(&p, Model::k(k), Engine::Auto).unwrap();
        let passed: Vec<bool> = (nodes.iter().enumerate())
            .map(|(i, node)| {
                let b = checker
                    .blocks(i % 24)
                    .unwrap()
                    .expect("plain k in the kernel");
                early_agrees(&checker, &b, node, budget)
            })
            .collect();
        assert!(
            passed.contains(&true) && passed.contains(&false),
            "k={k} {budget}"
        );
    }
}
