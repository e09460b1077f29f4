//! Privacy models on the whole release rather than on each group (ARX's
//! sample-based models): they read the sizes of the classes that every
//! group criterion kept, and when one fails, more whole classes are
//! suppressed, the smallest first, until it holds (ARX's `enforce`).
//!
//! - [`AverageRisk`]: the average prosecutor re-identification risk of the
//!   released records, u / n (classes over records: the reciprocal of the
//!   average class size), at most `max`.
//! - [`SampleUniqueness`]: the share of released records alone in their
//!   class, c_1 / n, at most `max`.
//!
//! Suppressed records are out of both figures (ARX never forms a class of
//! them), and an empty release passes. Suppressing the smallest class
//! never raises either figure, so the least suppression that makes them
//! hold is a prefix of the classes by size, found by bisection; both are
//! monotone under generalization and with suppression (ARX).

use std::sync::Arc;

use super::bad_parameter;
use crate::error::Result;

/// The classes a release keeps, as (size, how many classes have it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Release {
    /// Records released.
    pub records: u64,
    /// Classes released.
    pub classes: u64,
    /// Classes of one record.
    pub uniques: u64,
}

impl Release {
    pub fn of_sizes(sizes: impl IntoIterator<Item = u64>) -> Self {
        let mut r = Release::default();
        for s in sizes {
            r.add(s);
        }
        r
    }
    pub fn add(&mut self, size: u64) {
        self.records += size;
        self.classes += 1;
        self.uniques += u64::from(size == 1);
    }
    pub fn remove(&mut self, size: u64) {
        self.records -= size;
        self.classes -= 1;
        self.uniques -= u64::from(size == 1);
    }
}

/// A requirement on the whole release.
pub trait DatasetCriterion: std::fmt::Debug + Send + Sync {
    /// The name users know it by (the Python class).
    fn name(&self) -> &'static str;
    /// Does a release of these classes pass?
    fn holds(&self, release: &Release) -> bool;
    /// A coarser release (classes merged) passes when a finer one did.
    fn monotone(&self) -> bool;
    /// Still so when the classes it fails on are suppressed.
    fn monotone_with_suppression(&self) -> bool;
}

/// Shared by the model, the checker and the searches' threads.
pub type DatasetRef = Arc<dyn DatasetCriterion>;

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
    pub fn new(max: f64) -> Result<Self> {
        Ok(AverageRisk {
            max: share("AverageRisk", "max_risk", max)?,
        })
    }
}

impl DatasetCriterion for AverageRisk {
    fn name(&self) -> &'static str {
        "AverageRisk"
    }
    fn holds(&self, r: &Release) -> bool {
        // as ARX computes it: the reciprocal of the average class size, in
        // doubles (so that a bound written as 1/3 is met by 3 classes of 9)
        r.records == 0 || 1.0 / (r.records as f64 / r.classes as f64) <= self.max
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
    fn holds(&self, r: &Release) -> bool {
        r.records == 0 || r.uniques as f64 / r.records as f64 <= self.max
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        true
    }
}

/// How many of `sizes` (the kept classes' sizes, in the order they would
/// be suppressed: smallest first) must go for every criterion to hold: the
/// least such prefix, by bisection (suppressing more never breaks them).
pub fn to_suppress(criteria: &[DatasetRef], sizes: &[u64]) -> usize {
    let all = Release::of_sizes(sizes.iter().copied());
    let holds = |j: usize| {
        let mut r = all;
        for &s in &sizes[..j] {
            r.remove(s);
        }
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
        assert_eq!(to_suppress(&avg(0.4), &sizes), 0);
        assert_eq!(to_suppress(&avg(0.3), &sizes), 2);
        assert_eq!(to_suppress(&avg(0.25), &sizes), 3);
        assert_eq!(to_suppress(&avg(0.0), &sizes), 4);
        // one unique record of ten: 0.1 holds, 0.05 suppresses it
        let uniq = |t| vec![arc(SampleUniqueness::new(t).unwrap())];
        assert_eq!(to_suppress(&uniq(0.1), &sizes), 0);
        assert_eq!(to_suppress(&uniq(0.05), &sizes), 1);
        // both: the longer prefix
        let both = vec![
            arc(AverageRisk::new(0.3).unwrap()),
            arc(SampleUniqueness::new(0.0).unwrap()),
        ];
        assert_eq!(to_suppress(&both, &sizes), 2);
        assert_eq!(to_suppress(&avg(0.3), &[]), 0);
        assert!(AverageRisk::new(1.5).is_err() && SampleUniqueness::new(-0.1).is_err());
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
                        let r = Release::of_sizes(sizes[j..].iter().copied());
                        cs[0].holds(&r)
                    })
                    .unwrap();
                assert_eq!(to_suppress(&cs, &sizes), scan, "{sizes:?} {t}");
            }
        }
    }
}
