//! Re-identification risk from the equivalence classes' sizes alone.
//!
//! A release's records fall into classes of equal quasi-identifiers; a class
//! of `f` records in the sample (of `n` records, `u` classes) and `F` in the
//! population (of `N`). The figures (El Emam 2013, "Guide to the
//! De-Identification of Personal Health Information"; Dankar & El Emam 2010
//! for the marketer):
//!
//! - prosecutor (the attacker knows the target is in the sample): a record's
//!   risk is 1/f; highest 1 / min f, average u / n; records (and classes) at
//!   risk are those whose 1/f exceeds the threshold; sample uniques c_1 / n;
//! - journalist (the target is only known to be in the population): a
//!   record's risk is 1/F, highest 1 / min F over the sample's classes;
//! - marketer (the attacker matches everyone): the expected share of records
//!   re-identified, (1/n) Σ f/F, which is u / n when the sample is the
//!   population.
//!
//! Without a population table, F is estimated as f / π (π = n / N). The
//! share of population records that are unique in the population is
//! estimated from the sample by [`pitman`], [`zayatz`] and [`snb`], one of
//! them chosen by Dankar et al.'s rule (Dankar, El Emam, Neisa, Roffey 2012,
//! "Estimating the re-identification risk of clinical data sets"; as ARX
//! applies it): Pitman when π <= 0.1 (Zayatz if Pitman has no fit), else the
//! smaller of Zayatz and SNB (Zayatz if SNB has no solution).

pub mod pitman;
pub mod snb;
pub mod special;
pub mod zayatz;

use crate::error::{AnonError, Result};

/// Sizes of classes and how many classes have each, by increasing size.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram(pub Vec<(u64, u64)>);

impl Histogram {
    pub fn from_sizes(sizes: impl IntoIterator<Item = u64>) -> Self {
        let mut map = std::collections::BTreeMap::new();
        for s in sizes {
            *map.entry(s).or_insert(0u64) += 1;
        }
        Histogram(map.into_iter().collect())
    }
    pub fn records(&self) -> u64 {
        self.0.iter().map(|&(s, c)| s * c).sum()
    }
    pub fn classes(&self) -> u64 {
        self.0.iter().map(|&(_, c)| c).sum()
    }
    pub fn of_size(&self, size: u64) -> u64 {
        self.0
            .iter()
            .find(|&&(s, _)| s == size)
            .map_or(0, |&(_, c)| c)
    }
}

/// What is known of the population the sample was drawn from.
pub enum Population<'a> {
    /// Nothing: the sample is all there is (π = 1).
    Sample,
    /// Its number of records.
    Size(f64),
    /// A table of it: the population size of each sample class (aligned with
    /// the sample's sizes), and the sizes of all its classes.
    Table {
        matched: &'a [u64],
        all: &'a Histogram,
    },
}

/// Which estimate of population uniqueness a report gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uniqueness {
    /// The sample is the population (a census): its uniques are the
    /// population's.
    Sample,
    /// Counted in the population table.
    Table,
    /// No record of the sample is unique, so no population record can be
    /// shown unique from it.
    NoSampleUniques,
    Pitman,
    Zayatz,
    Snb,
}

impl Uniqueness {
    pub fn name(self) -> &'static str {
        match self {
            Uniqueness::Sample => "census",
            Uniqueness::Table => "population table",
            Uniqueness::NoSampleUniques => "none (no sample uniques)",
            Uniqueness::Pitman => "pitman",
            Uniqueness::Zayatz => "zayatz",
            Uniqueness::Snb => "snb",
        }
    }
}

/// The figures of one release; shares are of records unless named otherwise.
#[derive(Clone, Debug)]
pub struct Risk {
    pub records: u64,
    pub classes: u64,
    pub threshold: f64,
    pub highest_prosecutor_risk: f64,
    pub average_prosecutor_risk: f64,
    pub records_at_risk: f64,
    pub classes_at_risk: f64,
    pub sample_uniques: f64,
    pub marketer_risk: f64,
    pub highest_journalist_risk: f64,
    pub journalist_records_at_risk: f64,
    pub population_size: f64,
    pub sampling_fraction: f64,
    /// Share of the population's records unique in it, by `population_model`.
    pub population_uniques: f64,
    pub population_model: Uniqueness,
    /// Each model's estimate (share of population records), None where it
    /// has no fit or was not needed.
    pub pitman: Option<f64>,
    pub zayatz: Option<f64>,
    pub snb: Option<f64>,
}

/// The risk of a sample whose classes have `sizes` (one entry per class).
pub fn assess(sizes: &[u64], population: Population<'_>, threshold: f64) -> Result<Risk> {
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(AnonError::Config(format!(
            "threshold must be a probability in (0, 1], got {threshold}"
        )));
    }
    if sizes.is_empty() || sizes.contains(&0) {
        return Err(AnonError::Config(
            "the risk of an empty table is undefined: it has no records".into(),
        ));
    }
    let hist = Histogram::from_sizes(sizes.iter().copied());
    let (n, u) = (hist.records() as f64, hist.classes() as f64);
    let total = match &population {
        Population::Sample => n,
        Population::Size(total) => *total,
        Population::Table { all, .. } => all.records() as f64,
    };
    if total.is_nan() || total < n || !total.is_finite() {
        return Err(AnonError::Config(format!(
            "the population ({total} records) must hold the sample ({n} records)"
        )));
    }
    // the population size of each class: known, or estimated as f / π
    let big: Vec<f64> = match &population {
        Population::Table { matched, .. } => {
            if matched.len() != sizes.len() {
                return Err(AnonError::Config("one population size per class".into()));
            }
            if let Some((f, big)) = sizes.iter().zip(*matched).find(|(f, big)| big < f) {
                return Err(AnonError::Config(format!(
                    "a class of {f} sample records has only {big} in the population table: \
                     the population must contain the sample"
                )));
            }
            matched.iter().map(|&x| x as f64).collect()
        }
        _ => sizes.iter().map(|&f| f as f64 * total / n).collect(),
    };
    let share_at_risk = |risks: &mut dyn Iterator<Item = (f64, u64)>| {
        // a fold from +0.0: an empty f64 sum is -0.0, which prints as "-0.00%"
        risks
            .filter(|&(r, _)| r > threshold)
            .fold(0.0, |acc, (_, f)| acc + f as f64)
            / n
    };
    let smallest = hist.0[0].0 as f64;
    let pi = n / total;
    let mut risk = Risk {
        records: n as u64,
        classes: u as u64,
        threshold,
        highest_prosecutor_risk: 1.0 / smallest,
        average_prosecutor_risk: u / n,
        records_at_risk: share_at_risk(&mut sizes.iter().map(|&f| (1.0 / f as f64, f))),
        classes_at_risk: sizes
            .iter()
            .filter(|&&f| 1.0 / f as f64 > threshold)
            .count() as f64
            / u,
        sample_uniques: hist.of_size(1) as f64 / n,
        marketer_risk: sizes
            .iter()
            .zip(&big)
            .map(|(&f, b)| f as f64 / b)
            .sum::<f64>()
            / n,
        highest_journalist_risk: 1.0 / big.iter().copied().fold(f64::INFINITY, f64::min),
        journalist_records_at_risk: share_at_risk(
            &mut sizes.iter().zip(&big).map(|(&f, b)| (1.0 / b, f)),
        ),
        population_size: total,
        sampling_fraction: pi,
        population_uniques: 0.0,
        population_model: Uniqueness::Sample,
        pitman: None,
        zayatz: None,
        snb: None,
    };
    let (share, model) = match &population {
        Population::Table { all, .. } => (all.of_size(1) as f64 / total, Uniqueness::Table),
        _ if pi >= 1.0 => (risk.sample_uniques, Uniqueness::Sample),
        _ if hist.of_size(1) == 0 => (0.0, Uniqueness::NoSampleUniques),
        _ => {
            let share = |x: Option<f64>| x.map(|x| x / total).filter(|s| (0.0..=1.0).contains(s));
            risk.pitman =
                share(pitman::fit(&hist).map(|(t, a)| pitman::expected_uniques(t, a, total)));
            risk.zayatz = share(zayatz::uniques(&hist, total));
            risk.snb = share(snb::uniques(&hist, total));
            dankar(pi, risk.pitman, risk.zayatz, risk.snb)
        }
    };
    risk.population_uniques = share;
    risk.population_model = model;
    Ok(risk)
}

/// Dankar et al.'s choice among the estimates (shares of the population).
fn dankar(
    pi: f64,
    pitman: Option<f64>,
    zayatz: Option<f64>,
    snb: Option<f64>,
) -> (f64, Uniqueness) {
    let zayatz = (zayatz.unwrap_or(0.0), Uniqueness::Zayatz);
    if pi <= 0.1 {
        return pitman.map_or(zayatz, |p| (p, Uniqueness::Pitman));
    }
    match snb {
        Some(s) if s < zayatz.0 => (s, Uniqueness::Snb),
        _ => zayatz,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small seeded generator for the models' tests (SplitMix64).
    pub struct Rng(pub u64);
    impl Rng {
        pub fn unit(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn hand_computed_sample_figures() {
        // classes of 1, 1, 2, 4, 4 records: n = 12, u = 5
        let r = assess(&[1, 1, 2, 4, 4], Population::Sample, 0.3).unwrap();
        assert_eq!((r.records, r.classes), (12, 5));
        assert_eq!(r.highest_prosecutor_risk, 1.0);
        assert!((r.average_prosecutor_risk - 5.0 / 12.0).abs() < 1e-15);
        // risks 1, 1, 1/2 exceed 0.3: 4 records, 3 classes
        assert!((r.records_at_risk - 4.0 / 12.0).abs() < 1e-15);
        assert!((r.classes_at_risk - 3.0 / 5.0).abs() < 1e-15);
        assert!((r.sample_uniques - 2.0 / 12.0).abs() < 1e-15);
        // the sample is the population: marketer = u / n, journalist = prosecutor
        assert!((r.marketer_risk - 5.0 / 12.0).abs() < 1e-15);
        assert_eq!(r.highest_journalist_risk, 1.0);
        assert_eq!(r.population_model, Uniqueness::Sample);
        assert!((r.population_uniques - 2.0 / 12.0).abs() < 1e-15);
        // no record at risk is +0, not -0
        let none = assess(&[1, 2], Population::Sample, 1.0).unwrap();
        assert!(none.records_at_risk == 0.0 && none.records_at_risk.is_sign_positive());
    }

    #[test]
    fn a_population_table_gives_journalist_and_marketer() {
        // sample classes 1, 2 matched to population classes 4, 2; the
        // population also has classes 1 and 3 that the sample missed
        let all = Histogram::from_sizes([4, 2, 1, 3]);
        let pop = Population::Table {
            matched: &[4, 2],
            all: &all,
        };
        let r = assess(&[1, 2], pop, 0.3).unwrap();
        assert_eq!(r.highest_journalist_risk, 0.5);
        // (1/3) (1/4 + 2/2)
        assert!((r.marketer_risk - 1.25 / 3.0).abs() < 1e-15);
        // risk 1/2 > 0.3 for the 2 records of the second class
        assert!((r.journalist_records_at_risk - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(r.population_model, Uniqueness::Table);
        assert!((r.population_uniques - 1.0 / 10.0).abs() < 1e-15);
        assert!((r.sampling_fraction - 0.3).abs() < 1e-15);
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(assess(&[], Population::Sample, 0.2).is_err());
        assert!(assess(&[2], Population::Sample, 0.0).is_err());
        assert!(assess(&[2], Population::Sample, f64::NAN).is_err());
        assert!(assess(&[2, 3], Population::Size(4.0), 0.2).is_err());
        let all = Histogram::from_sizes([1]);
        let pop = Population::Table {
            matched: &[1],
            all: &all,
        };
        assert!(assess(&[2], pop, 0.2).is_err());
    }

    #[test]
    fn dankar_picks_by_sampling_fraction() {
        let sizes: Vec<u64> = (0..400).map(|i| [1, 1, 2, 3, 5, 8][i % 6]).collect();
        let n = sizes.iter().sum::<u64>() as f64;
        let small = assess(&sizes, Population::Size(n * 50.0), 0.2).unwrap();
        assert_eq!(small.population_model, Uniqueness::Pitman);
        assert_eq!(Some(small.population_uniques), small.pitman);
        let large = assess(&sizes, Population::Size(n * 2.0), 0.2).unwrap();
        let (z, s) = (large.zayatz.unwrap(), large.snb);
        let want = s.filter(|&s| s < z).unwrap_or(z);
        assert_eq!(large.population_uniques, want);
        // without sample uniques nothing is estimated
        let none = assess(&[2, 3, 3], Population::Size(1e6), 0.2).unwrap();
        assert_eq!(none.population_model, Uniqueness::NoSampleUniques);
        assert_eq!(none.population_uniques, 0.0);
    }
}
