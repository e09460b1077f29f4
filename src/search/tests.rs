//! Every search against the brute-force oracle (`crate::testing`), on the
//! papers' figures and on Adult; pruning, scans, budgets and time limits.

use crate::check::Model;
use crate::freq::{Engine, Problem};
use crate::hierarchy::Hierarchy;
use crate::lattice::Lattice;
use crate::search::{Algorithm, BottomUp, Config, Incognito, MinGen, Samarati, Searcher, Variant};
use crate::testing::*;

#[test]
fn incognito_reproduces_figures_5_and_7() {
    let f = Fixture::load("patients", "patients.csv", &["Birthdate", "Sex", "Zipcode"]);
    let p = f.problem(&["Birthdate", "Sex", "Zipcode"]);
    // as the paper: every candidate with a failed or no direct specialization
    // is checked, also those with Sex at its one value
    let out = search_with(&p, &Incognito(Variant::Basic), 2, 0, false);
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
    for alg in complete_searches() {
        assert_eq!(search(&p, &alg, 2, 0).anonymous, brute, "{alg:?}");
    }
}

#[test]
fn survey_race_zip_with_suppression() {
    let f = Fixture::load("race_zip", "race_zip.csv", &["Race", "ZIP"]);
    let p = f.problem(&["Race", "ZIP"]);
    for alg in complete_searches() {
        let out = search(&p, &alg, 2, 2);
        assert_eq!(out.minimal, vec![vec![1, 0], vec![0, 1]], "{alg:?}");
    }
    let sam = search(&p, &Samarati, 2, 2);
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
fn every_search_agrees_with_brute_force_on_adult() {
    let f = Fixture::adult();
    let cols = ["sex", "age", "race", "marital-status", "education"];
    for n in [3usize, 5] {
        let qis = &cols[..n];
        let p = f.problem(qis);
        for k in [2u64, 5, 10] {
            for sup in [0u64, 150] {
                let brute = f.brute_anonymous(qis, k, sup);
                for alg in complete_searches() {
                    let out = search(&p, &alg, k, sup);
                    assert_eq!(out.anonymous, brute, "{alg:?} n={n} k={k} sup={sup}");
                    // minimal: anonymous with no anonymous node anywhere below
                    for m in &out.minimal {
                        assert!(brute
                            .iter()
                            .all(|q| q == m || !crate::lattice::generalizes(m, q)));
                    }
                }
                let sam = search(&p, &Samarati, k, sup);
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
    let basic = search(&p, &Incognito(Variant::Basic), 2, 0);
    let sr = search(&p, &Incognito(Variant::SuperRoots), 2, 0);
    let cube = search(&p, &Incognito(Variant::Cube), 2, 0);
    let bu = search(&p, &BottomUp { rollup: true }, 2, 0);
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
fn cube_builds_its_cuboids_on_demand_without_suppression_even_where_every_leaf_is_frequent() {
    // Adult's attributes whose every leaf is held by two records or more:
    // iteration 1's floor at k = 2 is the leaves. Without suppression the
    // graphs end early and the cuboids are built as they need them; under
    // suppression, where the graphs grow, all of them up front.
    let f = Fixture::adult();
    let qis = [
        "sex",
        "race",
        "marital-status",
        "education",
        "workclass",
        "occupation",
    ];
    let p = f.problem(&qis);
    let all = (1u64 << qis.len()) - 1;
    for (sup, up_front) in [(0u64, false), (300, true)] {
        let basic = search(&p, &Incognito(Variant::Basic), 2, sup);
        let cube = search(&p, &Incognito(Variant::Cube), 2, sup);
        assert_eq!(basic.anonymous, cube.anonymous, "{sup}");
        assert!(!cube.anonymous.is_empty());
        assert_eq!(
            cube.stats.cuboids == all,
            up_front,
            "{sup}: {}",
            cube.stats.cuboids
        );
    }
}

#[test]
fn one_value_candidates_are_left_out_and_answered_by_their_projections() {
    // The paper's example: <S1, Z0> has Sex at its one value (*), so it is
    // <Z0> of iteration 1 and the graph of iteration 2 leaves it out.
    let f = Fixture::load("patients", "patients.csv", &["Birthdate", "Sex", "Zipcode"]);
    let p = f.problem(&["Birthdate", "Sex", "Zipcode"]);
    let out = search(&p, &Incognito(Variant::Basic), 2, 0);
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
            let alg = Incognito(variant);
            let on = search_with(&p, &alg, k, sup, true);
            let off = search_with(&p, &alg, k, sup, false);
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
    let cube = search(&p, &Incognito(Variant::Cube), 5, 300);
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
        let every = search(&p, &MinGen, k, sup).anonymous;
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
            let alg = Incognito(variant);
            assert_eq!(
                search_with(&p, &alg, k, sup, true).anonymous,
                every,
                "{variant:?} k={k} sup={sup}"
            );
            assert_eq!(
                search_with(&p, &alg, k, sup, false).anonymous,
                every,
                "{variant:?} k={k} sup={sup}"
            );
        }
    }
}

#[test]
fn searches_past_the_memory_budget_are_refused_before_they_start() {
    // 25 attributes: a lattice of 4^25 ~ 1.1e15 nodes
    let p = wide_problem(25, 200);
    let algs: [Box<dyn Algorithm>; 4] = [
        Box::new(MinGen),
        Box::new(BottomUp { rollup: true }),
        Box::new(Samarati),
        Box::new(Incognito(Variant::Cube)),
    ];
    for alg in algs {
        let mut config = Config::new(2, 10);
        config.memory_budget = 64 << 20;
        let t = std::time::Instant::now();
        let e = Searcher::new(&p, config)
            .unwrap()
            .run(alg.as_search())
            .unwrap_err();
        assert!(matches!(e, crate::AnonError::TooLarge(_)), "{alg:?}: {e}");
        let e = e.to_string();
        // Incognito walks its first iterations, and is stopped by what it
        // holds or refused by its next graph's estimate, whichever first
        let lattice = e.contains("1.13e15") || alg.label().starts_with("incognito");
        assert!(lattice && e.contains("memory budget"), "{alg:?}: {e}");
        // the way out: Incognito holds less than the lattice or a layer of
        // it, and the optimal walk less still (it lists no other node)
        let incognito = alg.label().starts_with("incognito");
        assert_eq!(e.contains("algorithm=\"incognito\""), !incognito, "{e}");
        assert!(e.contains("algorithm=\"optimal\" holds far less"), "{e}");
        assert!(t.elapsed().as_secs() < 30, "{alg:?} took {:?}", t.elapsed());
    }
    // a small lattice under the same budget runs
    let small = wide_problem(3, 200);
    let mut config = Config::new(2, 10);
    config.memory_budget = 64 << 20;
    assert!(Searcher::new(&small, config).unwrap().run(&MinGen).is_ok());
}

#[test]
fn incognito_refuses_an_answer_of_more_projected_nodes_than_the_budget_holds() {
    // 12 two-value columns, each at its one value from level 1 of six, on
    // 30 rows in five groups of six: every one of the 7^12 ~ 1.4e10 nodes is
    // 2-anonymous, the empty projection alone standing for 6^12 of them,
    // about 1.8 TiB as a list. Refused from the count, before any is listed.
    let rows = |r: &[&[&str]]| {
        r.iter()
            .map(|x| x.iter().map(|s| s.to_string()).collect())
            .collect::<Vec<Vec<String>>>()
    };
    let tall = |name: &str| {
        Hierarchy::from_rows(
            rows(&[
                &["p", "*", "*", "*", "*", "*", "*"],
                &["q", "*", "*", "*", "*", "*", "*"],
            ]),
            name,
        )
        .unwrap()
    };
    let names: Vec<String> = (0..12).map(|i| format!("c{i}")).collect();
    let n_rows = 30;
    let codes: Vec<Vec<u32>> = (0..12)
        .map(|a| {
            (0..n_rows)
                .map(|r| ((r * 7 + a * 3) % 5 % 2) as u32)
                .collect()
        })
        .collect();
    let p = Problem::from_codes(
        names.clone(),
        names.iter().map(|n| tall(n)).collect(),
        codes,
        vec![1; n_rows],
    )
    .unwrap();
    for variant in [Variant::Basic, Variant::SuperRoots, Variant::Cube] {
        let mut config = Config::new(2, 0);
        config.memory_budget = 64 << 20;
        let t = std::time::Instant::now();
        let e = Searcher::new(&p, config)
            .unwrap()
            .run(&Incognito(variant))
            .unwrap_err();
        assert!(
            matches!(e, crate::AnonError::TooLarge(_)),
            "{variant:?}: {e}"
        );
        let e = e.to_string();
        assert!(
            e.contains("Incognito's answer would hold 1.38e10 nodes"),
            "{e}"
        );
        assert!(t.elapsed().as_secs() < 10, "{variant:?}: {:?}", t.elapsed());
    }
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
    let every = search(&p, &MinGen, 5, 300).anonymous;
    // a fifth of MinGen's own time, and at most 5 ms: it cannot finish in
    // it on any day (a fifth alone failed once: tests run side by side, so
    // the first run was slowed and the later ones were not)
    let limit = (t.elapsed() / 5).min(std::time::Duration::from_millis(5));
    let algs: [Box<dyn Algorithm>; 4] = [
        Box::new(MinGen),
        Box::new(BottomUp { rollup: false }),
        Box::new(Incognito(Variant::Basic)),
        Box::new(Samarati),
    ];
    for alg in algs {
        let mut config = Config::new(5, 300);
        config.time_limit = Some(limit);
        let out = Searcher::new(&p, config)
            .unwrap()
            .run(alg.as_search())
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

/// The minimal nodes of any set of nodes (not only an up-closed one): those
/// with no predecessor in the set, found by hash against a plain scan.
#[test]
fn minimal_nodes_by_hash_are_those_with_no_predecessor_in_the_set() {
    let lat = Lattice::new(vec![2, 3, 1, 2]);
    let all: Vec<Vec<u8>> = lat.all().collect();
    let mut state = 11u64;
    for round in 0..200 {
        // subsets of every density, in lattice order as the searches give them
        let mut set: Vec<Vec<u8>> = all
            .iter()
            .filter(|_| {
                state = crate::hash::mix(state.wrapping_add(1));
                state % 200 < round
            })
            .cloned()
            .collect();
        Lattice::sort(&mut set);
        let plain: Vec<Vec<u8>> = set
            .iter()
            .filter(|n| lat.predecessors(n).iter().all(|p| !set.contains(p)))
            .cloned()
            .collect();
        assert_eq!(super::context::minimal_of_complete(&set), plain, "{set:?}");
    }
}
