//! The criteria on Sun et al.'s hand-computed tables, and searches with them
//! against the exhaustive one.

use polars::prelude::*;

use crate::check::{Checker, Model};
use crate::freq::{Engine, Problem};
use crate::search::{Config, MinGen, Searcher};
use crate::testing::*;

use crate::criteria::{
    CriterionRef, DistinctL, EntropyL, PAlphaSensitive, PPlusSensitive, PSensitive, RecursiveCL,
    TCloseness,
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
        ..Default::default()
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
        ..Default::default()
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
        let on = |alg: &dyn crate::search::Algorithm, engine| {
            Searcher::new(
                &p,
                Config {
                    criteria: vec![criterion.clone()],
                    engine,
                    ..Config::new(3, sup)
                },
            )
            .unwrap()
            .run(alg)
            .unwrap()
            .anonymous
        };
        let run = |alg: &dyn crate::search::Algorithm| on(alg, Engine::Auto);
        let exhaustive = run(&MinGen);
        assert!(!exhaustive.is_empty(), "{criterion:?}");
        for alg in complete_searches() {
            assert_eq!(run(&*alg), exhaustive, "{alg:?} {criterion:?}");
        }
        // Polars' rollups key on the carried columns of a packed F0 too
        assert_eq!(on(&MinGen, Engine::Polars), exhaustive, "{criterion:?}");
    }
}
