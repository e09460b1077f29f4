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
