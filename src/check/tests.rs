//! The checker on the papers' worked examples.

use crate::check::Model;
use crate::freq::Engine;
use crate::testing::*;

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

/// Two nodes whose classes differ only in their labels (b's level 1 renames
/// its leaves one for one) have the same figures to the last bit, in every
/// evaluation: a sum's order must not depend on labels or on a hash map's
/// state, or ties are decided by noise.
#[test]
fn figures_of_nodes_alike_but_for_labels_are_equal_to_the_bit() {
    use crate::check::{Checker, Figures};
    use crate::hierarchy::Hierarchy;
    use polars::prelude::*;
    let a: Vec<String> = (0..145u32)
        .map(|r| format!("a{}", (r * 7919) % 5))
        .collect();
    let b: Vec<String> = (0..145u32)
        .map(|r| format!("b{}", (r * 104_729 / 3) % 4))
        .collect();
    let df = DataFrame::new(
        145,
        vec![Column::new("a".into(), a), Column::new("b".into(), b)],
    )
    .unwrap();
    let ha =
        Hierarchy::from_csv_str("a0,x,*\na1,x,*\na2,y,*\na3,y,*\na4,y,*\n", b',', "a").unwrap();
    let hb = Hierarchy::from_csv_str("b0,B0,*\nb1,B1,*\nb2,B2,*\nb3,B3,*\n", b',', "b").unwrap();
    let p = from_frame(df.lazy(), &["a", "b"], vec![Some(ha), Some(hb)], &[]).unwrap();
    for _ in 0..30 {
        let mut checker = Checker::new(&p, Model::k(10), crate::freq::Engine::Auto).unwrap();
        checker.figures = Figures {
            entropy: true,
            ambiguity: true,
            kl_divergence: true,
        };
        let e = checker.evaluate_many(&[vec![1, 0], vec![1, 1]]).unwrap();
        assert_eq!(e[0].kl_divergence, e[1].kl_divergence);
        assert_eq!(e[0].ambiguity, e[1].ambiguity);
        assert_eq!(e[0].suppressed_entropy, e[1].suppressed_entropy);
    }
}
