//! Frequency sets against the brute-force oracle (`crate::testing`): rollups
//! equal rescans on both engines, F0 at floor levels, codes too wide to pack,
//! checks that read F0 in blocks, and the errors that name columns and values.

use std::collections::HashMap;

use polars::prelude::*;

use crate::check::{Checker, Model};
use crate::freq::{Engine, FreqSet, Problem};
use crate::hierarchy::Hierarchy;
use crate::lattice::Lattice;
use crate::metrics::GroupStats;
use crate::search::{Algorithm, Config, Samarati, Searcher};
use crate::testing::*;

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
        for alg in complete_searches()
            .into_iter()
            .chain([Box::new(Samarati) as Box<dyn Algorithm>])
        {
            let out = search(&p, &alg, k, sup);
            if alg.label() == "samarati" {
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
            trace: true,
            ..Config::new(7, 0)
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

/// The leaves F0 holds of each attribute, read off F0 whether its keys pack
/// (3 attributes of 8 leaves) or not (24: 72 bits), with its marginals or
/// without.
#[test]
fn present_leaves_are_the_leaves_f0_holds() {
    let eight = Hierarchy::from_rows(
        (0..8).map(|v| vec![v.to_string(), "*".into()]).collect(),
        "eight",
    )
    .unwrap();
    for n in [3usize, 24] {
        // leaf 7 never, and attribute 6 only leaf 0
        let codes: Vec<Vec<u32>> = (0..n as u32)
            .map(|a| (0..100u32).map(|r| (r * (a + 1)) % 7).collect())
            .collect();
        let mut p = Problem::from_codes(
            (0..n).map(|a| format!("a{a}")).collect(),
            vec![eight.clone(); n],
            codes.clone(),
            vec![1; 100],
        )
        .unwrap();
        assert_eq!(p.layout.is_some(), n == 3);
        for marginals in [true, false] {
            if !marginals {
                p.marginals = None;
            }
            for (a, column) in codes.iter().enumerate() {
                let mut want = column.clone();
                want.sort_unstable();
                want.dedup();
                assert_eq!(p.present_leaves(a), Some(want), "n = {n}, {a}, {marginals}");
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
    for alg in complete_searches() {
        assert_eq!(search(&p, &alg, 3, 4).anonymous, brute, "{alg:?}");
    }
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
    let mut floored = 0;
    for (k, budget) in [
        (2u64, 0u64),
        (5, 0),
        (5, 3_000),
        (20, 40_000),
        (300, 0),
        (300, 9_000),
        (1_000, 0),
        (1_000, 30_000),
    ] {
        let checker = Checker::new(&p, Model::k(k), Engine::Auto).unwrap();
        // from F0, and from F0 grouped at the search's floors where some is
        // above the leaves (a node below them stops at once: early_agrees
        // holds it to the full set's count)
        let floors = crate::freq::floors::lowest(&p, k, budget).unwrap();
        let at_floors = checker.at_floors(&floors).unwrap();
        if let Some(set) = &at_floors {
            assert!(set.rows() < p.base.rows(), "k={k} {budget}: {floors:?}");
            floored += 1;
        }
        for from in std::iter::once(&p.base).chain(&at_floors) {
            let blocks: Vec<_> = (0..domains.len())
                .map(|a| (checker.blocks(a, from).unwrap()).expect("plain k on packed keys"))
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
    assert!(
        floored >= 2,
        "{floored} models with floors above the leaves"
    );
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
                    .blocks(i % 24, &p.base)
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
