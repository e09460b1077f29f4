//! Privacy models on the whole release rather than on each group (ARX's
//! sample-based models, and estimated k-map): they read the sizes of the
//! classes that every group criterion kept, and when one fails, more whole
//! classes are suppressed, the smallest first, until it holds (ARX's
//! `enforce`).
//!
//! - [`AverageRisk`]: the average prosecutor re-identification risk of the
//!   released records, u / n (classes over records: the reciprocal of the
//!   average class size), at most `max`.
//! - [`SampleUniqueness`]: the share of released records alone in their
//!   class, c_1 / n, at most `max`.
//! - [`PopulationUniqueness`]: the share of the population's records
//!   estimated unique in it from the release's classes (`crate::risk`'s
//!   models), at most `max`; held when no released record is unique.
//! - [`KMap`] with a population size: every released class matches at
//!   least k individuals of the population, taken (El Emam and Dankar 2008,
//!   as ARX does) as every class holding at least k' records, k' from a
//!   Poisson model of sampling at the table's sampling fraction.
//!
//! Suppressed records are out of every figure (ARX never forms a class of
//! them), and an empty release passes. The least suppression that makes
//! them hold is taken to be a prefix of the classes by size and found by
//! bisection, as ARX does: exact for the models monotone under
//! suppression (all but population uniqueness, whose estimate can rise as
//! classes go).

use std::sync::Arc;

use super::bad_parameter;
use crate::error::Result;
use crate::risk::{self, Histogram};

/// The classes a release keeps: their sizes, smallest first, and the
/// table's records (released or not).
#[derive(Clone, Copy, Debug)]
pub struct Release<'a> {
    pub sizes: &'a [u64],
    pub records: u64,
    pub uniques: u64,
    pub table: u64,
}

impl Release<'_> {
    pub fn classes(&self) -> u64 {
        self.sizes.len() as u64
    }
}

/// A requirement on the whole release.
pub trait DatasetCriterion: std::fmt::Debug + Send + Sync {
    /// The name users know it by (the Python class).
    fn name(&self) -> &'static str;
    /// Does a release of these classes pass?
    fn holds(&self, release: &Release<'_>) -> bool;
    /// A coarser release (classes merged) passes when a finer one did.
    fn monotone(&self) -> bool;
    /// Still so when the classes it fails on are suppressed.
    fn monotone_with_suppression(&self) -> bool;
}

/// Shared by the model, the checker and the searches' threads.
pub type DatasetRef = Arc<dyn DatasetCriterion>;

/// How many of `sizes` (the kept classes' sizes, smallest first: the order
/// they would be suppressed in) must go for every criterion to hold, in a
/// table of `table` records: the least such prefix, by bisection.
pub fn to_suppress(criteria: &[DatasetRef], sizes: &[u64], table: u64) -> usize {
    debug_assert!(sizes.windows(2).all(|w| w[0] <= w[1]));
    // records and uniques after the first j classes, for every j
    let mut records = vec![0u64; sizes.len() + 1];
    let mut uniques = vec![0u64; sizes.len() + 1];
    for j in (0..sizes.len()).rev() {
        records[j] = records[j + 1] + sizes[j];
        uniques[j] = uniques[j + 1] + u64::from(sizes[j] == 1);
    }
    let holds = |j: usize| {
        let r = Release {
            sizes: &sizes[j..],
            records: records[j],
            uniques: uniques[j],
            table,
        };
        criteria.iter().all(|c| c.holds(&r))
    };
    if holds(0) {
        return 0;
    }
    let (mut lo, mut hi) = (0usize, sizes.len()); // holds(hi), not holds(lo)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

fn share(name: &str, param: &str, value: f64) -> Result<f64> {
    if !(0.0..=1.0).contains(&value) {
        return Err(bad_parameter(name, param, value, "in [0, 1]"));
    }
    Ok(value)
}

/// Average re-identification risk of the released records at most `max`.
#[derive(Clone, Debug)]
pub struct AverageRisk {
    pub max: f64,
}

impl AverageRisk {
    /// A bound of 0 is refused: only a release of no record meets it.
    pub fn new(max: f64) -> Result<Self> {
        if !(max > 0.0 && max <= 1.0) {
            return Err(bad_parameter(
                "AverageRisk",
                "max_risk",
                max,
                "in (0, 1] (a risk of 0 is met only by releasing no record)",
            ));
        }
        Ok(AverageRisk { max })
    }
}

impl DatasetCriterion for AverageRisk {
    fn name(&self) -> &'static str {
        "AverageRisk"
    }
    fn holds(&self, r: &Release<'_>) -> bool {
        // as ARX computes it: the reciprocal of the average class size, in
        // doubles (so that a bound written as 1/3 is met by 3 classes of 9)
        r.records == 0 || 1.0 / (r.records as f64 / r.classes() as f64) <= self.max
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        true
    }
}

/// Share of released records unique in the release at most `max`.
#[derive(Clone, Debug)]
pub struct SampleUniqueness {
    pub max: f64,
}

impl SampleUniqueness {
    pub fn new(max: f64) -> Result<Self> {
        Ok(SampleUniqueness {
            max: share("SampleUniqueness", "max_share", max)?,
        })
    }
}

impl DatasetCriterion for SampleUniqueness {
    fn name(&self) -> &'static str {
        "SampleUniqueness"
    }
    fn holds(&self, r: &Release<'_>) -> bool {
        r.records == 0 || r.uniques as f64 / r.records as f64 <= self.max
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        true
    }
}

/// Which estimate of population uniqueness a model uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimator {
    Dankar,
    Pitman,
    Zayatz,
    Snb,
}

impl std::str::FromStr for Estimator {
    type Err = crate::error::AnonError;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "dankar" => Estimator::Dankar,
            "pitman" => Estimator::Pitman,
            "zayatz" => Estimator::Zayatz,
            "snb" => Estimator::Snb,
            _ => {
                return Err(bad_parameter(
                    "PopulationUniqueness",
                    "model",
                    format!("'{s}'"),
                    "one of dankar, pitman, zayatz, snb",
                ))
            }
        })
    }
}

/// The estimated share of population uniques at most `max`, the population
/// `population` records (the table's sampling fraction is the released
/// records over it, as ARX takes it).
#[derive(Clone, Debug)]
pub struct PopulationUniqueness {
    pub max: f64,
    pub population: f64,
    pub model: Estimator,
}

impl PopulationUniqueness {
    pub fn new(max: f64, population: f64, model: Estimator) -> Result<Self> {
        if !(population.is_finite() && population >= 1.0) {
            return Err(bad_parameter(
                "PopulationUniqueness",
                "population",
                population,
                "a number of records >= 1",
            ));
        }
        Ok(PopulationUniqueness {
            max: share("PopulationUniqueness", "max_share", max)?,
            population,
            model,
        })
    }

    /// The estimated share of population uniques for a release with sample
    /// uniques (None: no estimate, which fails).
    pub fn estimate(&self, sizes: &[u64]) -> Option<f64> {
        let hist = Histogram::from_sizes(sizes.iter().copied());
        let total = self.population;
        let n = hist.records() as f64;
        if n >= total {
            // a census: the sample's uniques are the population's
            return Some(hist.of_size(1) as f64 / total);
        }
        let pitman =
            || risk::pitman::fit(&hist).map(|(t, a)| risk::pitman::expected_uniques(t, a, total));
        let count = match self.model {
            Estimator::Pitman => pitman(),
            Estimator::Zayatz => risk::zayatz::uniques(&hist, total),
            Estimator::Snb => risk::snb::uniques(&hist, total),
            // Dankar et al.'s rule, as ARX's model applies it: Pitman up to
            // a sampling fraction of 0.1 (no estimate when it has no fit),
            // else the smaller of Zayatz and SNB (Zayatz when SNB has none)
            Estimator::Dankar if n / total <= 0.1 => pitman(),
            Estimator::Dankar => {
                let z = risk::zayatz::uniques(&hist, total);
                match (risk::snb::uniques(&hist, total), z) {
                    (Some(s), Some(z)) if s < z => Some(s),
                    (Some(s), None) => Some(s),
                    _ => z,
                }
            }
        };
        count
            .map(|c| c / total)
            .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1.0)
    }
}

impl DatasetCriterion for PopulationUniqueness {
    fn name(&self) -> &'static str {
        "PopulationUniqueness"
    }
    fn holds(&self, r: &Release<'_>) -> bool {
        if r.records == 0 || r.uniques == 0 {
            return true;
        }
        self.estimate(r.sizes).is_some_and(|s| s <= self.max)
    }
    fn monotone(&self) -> bool {
        // ARX takes Zayatz's model as monotone under generalization, but its
        // estimate can rise as classes merge: classes of 1, 2 and 2 in a
        // population of 100 give a share of 0.0413, the 2s merged 0.0442
        false
    }
    fn monotone_with_suppression(&self) -> bool {
        false
    }
}

/// k-map against a population of `population` records, estimated: a class
/// of f released records is taken to match at least k individuals when f
/// reaches k' (see `threshold`).
#[derive(Clone, Debug)]
pub struct KMap {
    pub k: u64,
    pub population: f64,
    pub significance: f64,
    /// the zero-truncated Poisson model (D4) rather than the Poisson (D3)
    pub truncated: bool,
}

impl KMap {
    pub fn new(k: u64, population: f64, significance: f64, truncated: bool) -> Result<Self> {
        if k < 1 {
            return Err(bad_parameter("KMap", "k", k, "at least 1"));
        }
        if !(population.is_finite() && population >= 1.0) {
            return Err(bad_parameter(
                "KMap",
                "population",
                population,
                "a number of records >= 1",
            ));
        }
        Ok(KMap {
            k,
            population,
            significance: share("KMap", "significance", significance)?,
            truncated,
        })
    }

    /// k' for a table of `rows` records (El Emam and Dankar 2008, as ARX
    /// computes it): with lambda = k rows / population, the expected sample
    /// count of a population class of k, the least m whose Poisson
    /// probability P(X <= m) reaches 1 - significance gives k' = m + 2 (the
    /// zero-truncated model: the least m >= 1 with P(1 <= X <= m | X >= 1)
    /// reaching it gives m + 1), at most k and at most the rows.
    pub fn threshold(&self, rows: u64) -> u64 {
        let lambda = rows as f64 / self.population * self.k as f64;
        let target = 1.0 - self.significance;
        let cap = self.k.min(rows.max(1));
        if target <= 0.0 {
            return 1; // any class will do (ARX's threshold 0)
        }
        let mut term = (-lambda).exp(); // P(X = 0)
        let norm = if self.truncated { 1.0 - term } else { 1.0 };
        let mut cdf = if self.truncated { 0.0 } else { term };
        let mut m = 0u64;
        loop {
            if (!self.truncated || m >= 1) && cdf / norm >= target {
                break;
            }
            if m + 2 > cap + 1 {
                return cap;
            }
            m += 1;
            term *= lambda / m as f64;
            cdf += term;
        }
        (m + if self.truncated { 1 } else { 2 }).min(cap)
    }
}

impl DatasetCriterion for KMap {
    fn name(&self) -> &'static str {
        "KMap"
    }
    fn holds(&self, r: &Release<'_>) -> bool {
        r.sizes
            .first()
            .is_none_or(|&smallest| smallest >= self.threshold(r.table))
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arc<C: DatasetCriterion + 'static>(c: C) -> DatasetRef {
        Arc::new(c)
    }

    #[test]
    fn arx_examples() {
        // classes of 1, 2, 3 and 4 records (ARX's figures, by hand): average
        // risk 4/10; at 0.3 the classes of 1 and 2 go (2/7), at 0.25 also 3
        let sizes = [1, 2, 3, 4];
        let avg = |t| vec![arc(AverageRisk::new(t).unwrap())];
        assert_eq!(to_suppress(&avg(0.4), &sizes, 10), 0);
        assert_eq!(to_suppress(&avg(0.3), &sizes, 10), 2);
        assert_eq!(to_suppress(&avg(0.25), &sizes, 10), 3);
        // a bound of 0 is met only by suppressing every class: refused
        for bad in [0.0, -0.0, 1.5, f64::NAN] {
            let err = AverageRisk::new(bad).unwrap_err().to_string();
            assert!(err.contains("max_risk must be in (0, 1]"), "{err}");
        }
        // one unique record of ten: 0.1 holds, 0.05 suppresses it
        let uniq = |t| vec![arc(SampleUniqueness::new(t).unwrap())];
        assert_eq!(to_suppress(&uniq(0.1), &sizes, 10), 0);
        assert_eq!(to_suppress(&uniq(0.05), &sizes, 10), 1);
        // both: the longer prefix
        let both = vec![
            arc(AverageRisk::new(0.3).unwrap()),
            arc(SampleUniqueness::new(0.0).unwrap()),
        ];
        assert_eq!(to_suppress(&both, &sizes, 10), 2);
        assert_eq!(to_suppress(&avg(0.3), &[], 0), 0);
        // estimated k-map, k = 5, alpha = 0.05 at 10 records of 100: k' = 4
        // (D3) suppresses the classes of 1, 2 and 3; k' = 3 (D4) those of 1, 2
        let kmap = |t| vec![arc(KMap::new(5, 100.0, 0.05, t).unwrap())];
        assert_eq!(to_suppress(&kmap(false), &sizes, 10), 3);
        assert_eq!(to_suppress(&kmap(true), &sizes, 10), 2);
        assert!(AverageRisk::new(1.5).is_err() && SampleUniqueness::new(-0.1).is_err());
    }

    #[test]
    fn kmap_thresholds_are_arxs() {
        // (k, alpha, sampling fraction) -> (D3, D4), from ARX 3.9.2
        for (k, alpha, f, d3, d4) in [
            (5, 0.05, 0.1, 4, 3),
            (10, 0.05, 0.1, 5, 4),
            (10, 0.05, 0.01, 3, 2),
            (20, 0.05, 0.5, 17, 16),
            (5, 0.05, 0.5, 5, 5),
            (5, 0.1, 0.1, 3, 3),
        ] {
            let rows = 1000;
            let pop = rows as f64 / f;
            assert_eq!(KMap::new(k, pop, alpha, false).unwrap().threshold(rows), d3);
            assert_eq!(KMap::new(k, pop, alpha, true).unwrap().threshold(rows), d4);
        }
        assert_eq!(KMap::new(5, 100.0, 1.0, false).unwrap().threshold(10), 1);
    }

    #[test]
    fn population_uniqueness_examples() {
        // classes of 1, 2, 3 and 4 in a population of 20 (f = 0.5): Zayatz
        // estimates 0.59926 uniques (ARX), a share of 0.02996
        let z = PopulationUniqueness::new(0.05, 20.0, Estimator::Zayatz).unwrap();
        let share = z.estimate(&[1, 2, 3, 4]).unwrap();
        assert!((share * 20.0 - 0.59926).abs() < 1e-4, "{share}");
        let c = |t| {
            vec![arc(
                PopulationUniqueness::new(t, 20.0, Estimator::Dankar).unwrap()
            )]
        };
        assert_eq!(to_suppress(&c(0.05), &[1, 2, 3, 4], 10), 0);
        assert_eq!(to_suppress(&c(0.01), &[1, 2, 3, 4], 10), 1);
        assert!("laplace".parse::<Estimator>().is_err());
    }

    #[test]
    fn bisection_equals_a_scan() {
        let mut seed = 7u64;
        for _ in 0..500 {
            let mut sizes: Vec<u64> = (0..(seed % 12))
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    1 + (seed >> 60)
                })
                .collect();
            sizes.sort_unstable();
            let t = (seed >> 40) as f64 / (1u64 << 24) as f64;
            for c in [
                arc(AverageRisk::new(t).unwrap()),
                arc(SampleUniqueness::new(t / 2.0).unwrap()),
            ] {
                let cs = vec![c];
                let scan = (0..=sizes.len())
                    .find(|&j| {
                        let rest = &sizes[j..];
                        let r = Release {
                            sizes: rest,
                            records: rest.iter().sum(),
                            uniques: rest.iter().filter(|&&s| s == 1).count() as u64,
                            table: 100,
                        };
                        cs[0].holds(&r)
                    })
                    .unwrap();
                assert_eq!(to_suppress(&cs, &sizes, 100), scan, "{sizes:?} {t}");
            }
        }
    }
}
