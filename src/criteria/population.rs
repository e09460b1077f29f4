//! Privacy models against a population table: the data is a research
//! subset of it, and each class of a node is judged by its f records in the
//! data and its F records in the population at the same levels.
//!
//! - k-map, exact ([`Rule::KMap`]): F >= k for every released class (El Emam
//!   and Dankar 2008's k-map, with the population known rather than
//!   estimated).
//! - delta-presence ([`Rule::DPresence`], Nergiz et al., SIGMOD 2007):
//!   d_min <= f / F <= d_max for every class, the probability that an
//!   individual of the population matched to it is in the data.
//!
//! A class failing one is suppressed (its f records), as ARX does. A class of
//! the population holding no record of the data (f = 0) cannot be: under
//! delta-presence with d_min > 0 it fails and nothing can mend it, so every
//! record is suppressed (ARX refuses such a node outright: the same answer
//! unless the whole table may go; an empty release reveals no one). k-map
//! ignores those classes.
//!
//! Monotonicity: merging classes adds up F, so k-map holds on a coarser node
//! when it held on a finer one, and with failing classes suppressed a merged
//! class passes as soon as one of its parts did (monotone in both cases, as
//! ARX declares it). Under delta-presence a merged class's f / F lies between
//! its parts' (the mediant), so it is monotone when nothing is suppressed;
//! with suppression a passing class merged with a failing one may fail, and
//! more records go: not monotone then (ARX declares it monotone in neither
//! case).

use std::collections::HashMap;
use std::sync::Arc;

use super::bad_parameter;
use crate::error::{AnonError, Result};
use crate::freq::{Engine, Problem, RollupJob};

/// The population: its records counted through the data's hierarchies (a
/// problem over the same quasi-identifiers), and how many of its records hold
/// a value that no level of the data's hierarchies can match (values of an
/// attribute without a hierarchy that the data lacks: their classes never
/// hold a record of the data).
#[derive(Debug)]
pub struct Population {
    pub problem: Problem,
    pub outside: u64,
}

/// What each class must satisfy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    KMap { k: u64 },
    DPresence { d_min: f64, d_max: f64 },
}

/// A model of each class against a population table.
#[derive(Clone, Debug)]
pub struct PopulationCriterion {
    pub rule: Rule,
    pub population: Arc<Population>,
}

/// Shared by the model, the checker and the searches' threads.
pub type PopulationRef = Arc<PopulationCriterion>;

impl PopulationCriterion {
    /// k-map: every released class matches at least `k` individuals.
    pub fn k_map(k: u64, population: Arc<Population>) -> Result<Self> {
        if k < 1 {
            return Err(bad_parameter("KMap", "k", k, "at least 1"));
        }
        Ok(PopulationCriterion {
            rule: Rule::KMap { k },
            population,
        })
    }

    /// (d_min, d_max)-presence.
    pub fn d_presence(d_min: f64, d_max: f64, population: Arc<Population>) -> Result<Self> {
        if !(0.0..=1.0).contains(&d_min) {
            return Err(bad_parameter("DPresence", "d_min", d_min, "in [0, 1]"));
        }
        if !(d_min..=1.0).contains(&d_max) {
            return Err(bad_parameter(
                "DPresence",
                "d_max",
                d_max,
                &format!("in [d_min, 1] = [{d_min}, 1]"),
            ));
        }
        Ok(PopulationCriterion {
            rule: Rule::DPresence { d_min, d_max },
            population,
        })
    }

    /// The name users know it by (the Python class).
    pub fn name(&self) -> &'static str {
        match self.rule {
            Rule::KMap { .. } => "KMap",
            Rule::DPresence { .. } => "DPresence",
        }
    }

    /// Does a class of `f` records of the data and `big_f` of the
    /// population pass? (f >= 1.)
    pub fn holds(&self, f: u64, big_f: u64) -> bool {
        match self.rule {
            Rule::KMap { k } => big_f >= k,
            Rule::DPresence { d_min, d_max } => {
                let delta = f as f64 / big_f as f64;
                big_f > 0 && delta >= d_min && delta <= d_max
            }
        }
    }

    /// Does a class of the population without records of the data fail?
    pub fn fails_absent(&self) -> bool {
        matches!(self.rule, Rule::DPresence { d_min, .. } if d_min > 0.0)
    }

    /// See the module docs.
    pub fn monotone(&self) -> bool {
        true
    }

    /// See the module docs.
    pub fn monotone_with_suppression(&self) -> bool {
        matches!(self.rule, Rule::KMap { .. })
    }

    /// The population's classes at `levels` of `attrs`: codes -> records.
    pub fn classes(
        &self,
        attrs: &[usize],
        levels: &[u8],
        engine: Engine,
    ) -> Result<HashMap<Vec<u32>, u64>> {
        let p = &self.population.problem;
        let fs = p.rollup(
            RollupJob::new(&p.base, attrs.to_vec(), levels.to_vec()),
            engine,
        )?;
        let cols: Vec<Vec<u32>> = attrs.iter().map(|&a| fs.codes(a)).collect::<Result<_>>()?;
        let counts = fs.counts()?;
        let mut out = HashMap::with_capacity(counts.len());
        for (r, &c) in counts.iter().enumerate() {
            *out.entry(cols.iter().map(|col| col[r]).collect())
                .or_insert(0) += c;
        }
        Ok(out)
    }

    /// The population is counted through hierarchies like the data's.
    pub fn fits(&self, data: &Problem) -> Result<()> {
        let p = &self.population.problem;
        let same = p.names == data.names
            && p.hierarchies.len() == data.hierarchies.len()
            && (p.hierarchies.iter().zip(&data.hierarchies))
                .all(|(a, b)| a.height() == b.height() && a.domain_size(0) == b.domain_size(0));
        if !same {
            return Err(AnonError::Config(format!(
                "{}: the population table was not counted through this table's hierarchies",
                self.name()
            )));
        }
        if data.floors.is_some() {
            return Err(AnonError::Config(format!(
                "{}: a table grouped at floor levels cannot be matched to a population",
                self.name()
            )));
        }
        Ok(())
    }
}
