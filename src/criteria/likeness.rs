//! The two models that bound how far a group's distribution of the sensitive
//! attribute may move from the table's, value by value, beside t-closeness:
//!
//! - beta-likeness (Cao and Karras, "Publishing Microdata with a Robust
//!   Privacy Guarantee", VLDB 2012): for every value s in the group, the
//!   relative gain (q_s - p_s) / p_s is at most beta (basic), or at most
//!   min(beta, -ln p_s) (enhanced), q_s the value's share of the group and p_s
//!   its share of the table;
//! - delta-disclosure privacy (Brickell and Shmatikov, "The Cost of Privacy",
//!   KDD 2008): for every value s in the group, |log2(q_s / p_s)| < delta.
//!
//! Both as ARX 3.9 checks them (`criteria/BasicBLikeness.java` l. 88-113,
//! `EnhancedBLikeness.java` l. 87-112, `DDisclosurePrivacy.java` l. 98-123):
//! only the values present in the group are checked, p is the distribution
//! over the whole input table (`DataManager.getDistribution`, suppressed
//! records included), beta's bound is not strict and delta's is strict, and
//! delta's logarithm is base 2 (`DDisclosurePrivacy.log2`). Comparisons allow
//! a relative 1e-9 for rounding, so that a group exactly on the bound is
//! decided as exact arithmetic decides it.
//!
//! Monotonicity, as ARX declares it (`ExplicitPrivacyCriterion(attribute,
//! monotonicWithSuppression, monotonicWithGeneralization)`):
//! - beta-likeness, basic and enhanced: monotone under generalization, not
//!   with suppression (`super(attribute, false, true)`, BasicBLikeness.java
//!   l. 54, EnhancedBLikeness.java l. 53). The bound on q_s depends on s
//!   alone, and a merged group's q_s is a weighted mean of its parts' (0 in a
//!   part without s), so it stays under the bound; with suppression a failing
//!   part can push a merged group over it.
//! - delta-disclosure: monotone in neither case (`super(attribute, false,
//!   false)`, DDisclosurePrivacy.java l. 67): a value present in one part
//!   only can fall far below its table share in the merged group, e.g. one
//!   "Cancer" (table share 0.3) merged with nineteen "Flu": 1/20 / 0.3 = 1/6,
//!   |log2| = 2.58 though both parts are within delta = 2 (see the tests).
//!   Only an exhaustive search (mingen) is exact for it.

use super::{bad_parameter, Criterion};
use crate::error::Result;

/// Relative slack for rounding in the comparisons.
const SLACK: f64 = 1e-9;

/// Basic or enhanced beta-likeness on one sensitive attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct BetaLikeness {
    pub beta: f64,
    pub enhanced: bool,
    pub attr: usize,
}

impl BetaLikeness {
    pub fn new(beta: f64, attr: usize, enhanced: bool) -> Result<Self> {
        // ARX: "Beta must be > 0" (BasicBLikeness.java l. 55)
        if !(beta > 0.0 && beta.is_finite()) {
            return Err(bad_parameter(
                "BetaLikeness",
                "beta",
                beta,
                "a finite number > 0",
            ));
        }
        Ok(BetaLikeness {
            beta,
            enhanced,
            attr,
        })
    }

    /// The bound on value s's relative gain, given its table share `p`.
    pub fn bound(&self, p: f64) -> f64 {
        if self.enhanced {
            self.beta.min(-p.ln())
        } else {
            self.beta
        }
    }
}

impl Criterion for BetaLikeness {
    fn name(&self) -> &'static str {
        "BetaLikeness"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], global: &[f64]) -> bool {
        let n: u64 = hist.iter().map(|&(_, c)| c).sum();
        hist.iter().all(|&(v, c)| {
            let p = global.get(v as usize).copied().unwrap_or(0.0);
            // (q - p) / p <= bound, i.e. q <= (1 + bound) p, as p > 0 for a
            // value of the table (a value outside it fails)
            p > 0.0 && c as f64 / n as f64 <= (1.0 + self.bound(p)) * p * (1.0 + SLACK)
        })
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        false
    }
}

/// Delta-disclosure privacy on one sensitive attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct DeltaDisclosure {
    pub delta: f64,
    pub attr: usize,
}

impl DeltaDisclosure {
    pub fn new(delta: f64, attr: usize) -> Result<Self> {
        // |log2(q / p)| < delta cannot hold for delta <= 0 (ARX takes any)
        if !(delta > 0.0 && delta.is_finite()) {
            return Err(bad_parameter(
                "DeltaDisclosure",
                "delta",
                delta,
                "a finite number > 0",
            ));
        }
        Ok(DeltaDisclosure { delta, attr })
    }
}

impl Criterion for DeltaDisclosure {
    fn name(&self) -> &'static str {
        "DeltaDisclosure"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], global: &[f64]) -> bool {
        let n: u64 = hist.iter().map(|&(_, c)| c).sum();
        hist.iter().all(|&(v, c)| {
            let p = global.get(v as usize).copied().unwrap_or(0.0);
            let q = c as f64 / n as f64;
            // strict: on the bound fails
            p > 0.0 && (q / p).log2().abs() < self.delta - SLACK
        })
    }
    fn monotone(&self) -> bool {
        false
    }
    fn monotone_with_suppression(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use polars::prelude::*;

    use super::*;
    use crate::check::Model;
    use crate::criteria::CriterionRef;
    use crate::freq::{Engine, Problem};
    use crate::search::{Config, MinGen, Searcher};
    use crate::testing::*;

    // A hand-made table of ten patients: Flu 5, HIV 2, Cancer 3, so the
    // table's shares are p = (0.5, 0.2, 0.3). Three groups:
    //   A (4): HIV 2, Flu 1, Cancer 1  q = (0.25, 0.5, 0.25)
    //   B (2): Flu 2                   q = (1, 0, 0)
    //   C (4): Flu 2, Cancer 2         q = (0.5, 0, 0.5)
    const GLOBAL: [f64; 3] = [0.5, 0.2, 0.3];
    const FLU: u32 = 0;
    const HIV: u32 = 1;
    const CANCER: u32 = 2;
    const A: [(u32, u64); 3] = [(FLU, 1), (HIV, 2), (CANCER, 1)];
    const B: [(u32, u64); 1] = [(FLU, 2)];
    const C: [(u32, u64); 2] = [(FLU, 2), (CANCER, 2)];

    fn basic(beta: f64) -> BetaLikeness {
        BetaLikeness::new(beta, 0, false).unwrap()
    }
    fn enhanced(beta: f64) -> BetaLikeness {
        BetaLikeness::new(beta, 0, true).unwrap()
    }
    fn delta(d: f64) -> DeltaDisclosure {
        DeltaDisclosure::new(d, 0).unwrap()
    }

    #[test]
    fn basic_beta_likeness_by_hand() {
        // A: HIV (0.5 - 0.2) / 0.2 = 1.5; Flu (0.25 - 0.5) / 0.5 = -0.5;
        //    Cancer (0.25 - 0.3) / 0.3 = -1/6: the largest gain is 1.5
        // B: Flu (1 - 0.5) / 0.5 = 1
        // C: Cancer (0.5 - 0.3) / 0.3 = 2/3; Flu 0
        let g = &GLOBAL;
        assert!(basic(1.5).holds(&A, g), "the bound is not strict");
        assert!(!basic(1.49).holds(&A, g));
        assert!(basic(1.0).holds(&B, g) && !basic(0.99).holds(&B, g));
        assert!(basic(0.67).holds(&C, g) && !basic(0.66).holds(&C, g));
        // the whole table is one group with gain 0
        let all = [(FLU, 5), (HIV, 2), (CANCER, 3)];
        assert!(basic(1e-6).holds(&all, g));
    }

    #[test]
    fn enhanced_beta_likeness_by_hand() {
        // bounds min(beta, -ln p): Flu -ln 0.5 = 0.693, HIV -ln 0.2 = 1.609,
        // Cancer -ln 0.3 = 1.204
        let g = &GLOBAL;
        // A's HIV gain 1.5 is under min(1.5, 1.609) = 1.5 and min(2, 1.609)
        assert!(enhanced(1.5).holds(&A, g) && enhanced(2.0).holds(&A, g));
        assert!(!enhanced(1.49).holds(&A, g));
        // B's Flu gain 1 passes basic 1.5, but exceeds min(1.5, 0.693)
        assert!(basic(1.5).holds(&B, g) && !enhanced(1.5).holds(&B, g));
        // C's Cancer gain 2/3 is under min(1.5, 1.204)
        assert!(enhanced(1.5).holds(&C, g));
        // a value that is the whole table: -ln 1 = 0, gain 0
        assert!(enhanced(0.5).holds(&[(0, 3)], &[1.0]));
        assert!((enhanced(5.0).bound(0.2) - 5f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn delta_disclosure_by_hand() {
        // A: |log2(0.5 / 0.2)| = log2 2.5 = 1.3219; |log2(0.25 / 0.5)| = 1;
        //    |log2(0.25 / 0.3)| = 0.263: the largest is 1.3219
        // B: log2(1 / 0.5) = 1, exactly
        // C: log2(0.5 / 0.3) = 0.737; log2(0.5 / 0.5) = 0
        let g = &GLOBAL;
        assert!(delta(1.33).holds(&A, g) && !delta(1.32).holds(&A, g));
        assert!(!delta(1.0).holds(&B, g), "the bound is strict");
        assert!(delta(1.0001).holds(&B, g));
        assert!(delta(0.74).holds(&C, g) && !delta(0.73).holds(&C, g));
        // values absent from a group are not checked (C has no HIV)
        assert!(delta(0.74).holds(&C, g));
    }

    #[test]
    fn merging_can_break_delta_disclosure_but_not_beta_likeness() {
        let g = &GLOBAL;
        // one Cancer: log2(1 / 0.3) = 1.737; nineteen Flu: log2(1 / 0.5) = 1
        let cancer = [(CANCER, 1)];
        let flu = [(FLU, 19)];
        let merged = [(FLU, 19), (CANCER, 1)];
        assert!(delta(2.0).holds(&cancer, g) && delta(2.0).holds(&flu, g));
        // merged: Cancer 1/20 / 0.3 = 1/6, |log2| = 2.585
        assert!(!delta(2.0).holds(&merged, g));
        assert!(!delta(2.0).monotone() && !delta(2.0).monotone_with_suppression());
        // beta-likeness: gains 2.333 (Cancer) and 1 (Flu); merged 0.9 and -0.833
        assert!(basic(2.34).holds(&cancer, g) && basic(2.34).holds(&merged, g));
        for b in [basic(1.0), enhanced(1.0)] {
            assert!(b.monotone() && !b.monotone_with_suppression());
        }
    }

    #[test]
    fn parameters_out_of_range_are_refused_by_name() {
        for beta in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = BetaLikeness::new(beta, 0, false).unwrap_err().to_string();
            assert!(e.contains("BetaLikeness") && e.contains("beta ="), "{e}");
        }
        for d in [0.0, -0.5, f64::NAN, f64::INFINITY] {
            let e = DeltaDisclosure::new(d, 0).unwrap_err().to_string();
            assert!(
                e.contains("DeltaDisclosure") && e.contains("delta ="),
                "{e}"
            );
        }
    }

    /// The hand-made table with a QI that separates the three groups at level
    /// 0 and merges A with B at level 1 ("AB") and all at level 2.
    fn table() -> Problem {
        let (qi, disease): (Vec<&str>, Vec<&str>) = [
            ("a", "HIV"),
            ("a", "HIV"),
            ("a", "Flu"),
            ("a", "Cancer"),
            ("b", "Flu"),
            ("b", "Flu"),
            ("c", "Flu"),
            ("c", "Flu"),
            ("c", "Cancer"),
            ("c", "Cancer"),
        ]
        .into_iter()
        .unzip();
        let df = DataFrame::new(
            10,
            vec![
                Column::new("G".into(), qi),
                Column::new("Disease".into(), disease),
            ],
        )
        .unwrap();
        let rows = [["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]]
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect();
        let h = crate::hierarchy::Hierarchy::from_rows(rows, "test").unwrap();
        from_frame(df.lazy(), &["G"], vec![Some(h)], &["Disease"]).unwrap()
    }

    fn suppressed(p: &Problem, level: u8, c: CriterionRef) -> u64 {
        let m = Model {
            k: 1,
            criteria: vec![c],
            ..Default::default()
        };
        node_stats(p, &[level], &m, Engine::Auto)
            .unwrap()
            .suppressed
    }

    #[test]
    fn the_hand_table_through_the_checker() {
        let p = table();
        let b = |beta| -> CriterionRef { Arc::new(basic(beta)) };
        let e = |beta| -> CriterionRef { Arc::new(enhanced(beta)) };
        let d = |x| -> CriterionRef { Arc::new(delta(x)) };
        // level 0: A (4 tuples) has gain 1.5 and |log2| 1.32, B (2) gain 1
        assert_eq!(suppressed(&p, 0, b(1.5)), 0);
        assert_eq!(suppressed(&p, 0, b(1.4)), 4);
        assert_eq!(suppressed(&p, 0, b(0.9)), 6);
        assert_eq!(suppressed(&p, 0, e(1.5)), 2);
        assert_eq!(suppressed(&p, 0, d(1.33)), 0);
        assert_eq!(suppressed(&p, 0, d(1.2)), 4);
        assert_eq!(suppressed(&p, 0, d(1.0)), 6);
        // level 1: AB (6) = HIV 2, Flu 3, Cancer 1: gains 2/3, 0, -4/9;
        // |log2| 0.737, 0, 0.848; C unchanged (gain 2/3, |log2| 0.737)
        assert_eq!(suppressed(&p, 1, b(0.67)), 0);
        assert_eq!(suppressed(&p, 1, e(0.67)), 0);
        assert_eq!(suppressed(&p, 1, b(0.66)), 10);
        assert_eq!(suppressed(&p, 1, d(0.85)), 0);
        assert_eq!(suppressed(&p, 1, d(0.8)), 6);
        // level 2: the table itself
        assert_eq!(suppressed(&p, 2, b(1e-6)), 0);
        assert_eq!(suppressed(&p, 2, d(1e-6)), 0);
    }

    #[test]
    fn searches_agree_with_the_exhaustive_one_on_adult() {
        let f = Fixture::adult();
        let qis = ["sex", "age", "race", "marital-status"];
        let hs = qis
            .iter()
            .map(|q| Some(f.hierarchies[*q].clone()))
            .collect();
        let p = from_frame(f.frame().lazy(), &qis, hs, &["occupation"]).unwrap();
        let run = |alg: &dyn crate::search::Algorithm, c: &CriterionRef, sup: u64| {
            Searcher::new(
                &p,
                Config {
                    criteria: vec![c.clone()],
                    ..Config::new(3, sup)
                },
            )
            .unwrap()
            .run(alg)
        };
        let beta: CriterionRef = Arc::new(basic(1.0));
        let exhaustive = run(&MinGen, &beta, 0).unwrap().anonymous;
        assert!(!exhaustive.is_empty());
        for alg in complete_searches() {
            let got = run(&*alg, &beta, 0).unwrap().anonymous;
            assert_eq!(got, exhaustive, "{alg:?}");
        }
        // not monotone: the inferring searches refuse, mingen runs
        let delta: CriterionRef = Arc::new(delta(1.0));
        for (c, sup) in [(&beta, 100), (&delta, 0), (&delta, 100)] {
            assert!(run(&MinGen, c, sup).is_ok());
            for alg in complete_searches().iter().filter(|a| a.infers()) {
                let e = run(&**alg, c, sup).unwrap_err().to_string();
                assert!(e.contains("not monotone"), "{e}");
            }
        }
    }
}
