//! `CoreCriterion`: a privacy model on a sensitive attribute as the core
//! checks it. The package's criterion classes (`PSensitive`, ...) resolve
//! their attribute and categories against the data and build one of these
//! through the constructor of their kind.

use std::sync::Arc;

use pyo3::prelude::*;

use super::error::{to_py, ConfigError};
use super::problem::PyProblem;
use crate::criteria::{
    AverageRisk, BetaLikeness, CriterionRef, DatasetRef, DeltaDisclosure, Distance, DistinctL,
    EntropyL, Estimator, KMap, PAlphaSensitive, PPlusSensitive, PSensitive, Population,
    PopulationCriterion, PopulationRef, PopulationUniqueness, RecursiveCL, SampleUniqueness,
    TCloseness,
};

#[pyclass(
    name = "CoreCriterion",
    module = "polars_anon._core",
    frozen,
    from_py_object
)]
#[derive(Clone)]
pub struct PyCriterion {
    pub(super) inner: Kind,
}

/// A model of every group, of every class against a population table, or
/// of the whole release.
#[derive(Clone)]
pub(super) enum Kind {
    Group(CriterionRef),
    Population(PopulationRef),
    Dataset(DatasetRef),
}

/// A population table counted through the data's hierarchies (`population`,
/// a problem over the same quasi-identifiers), with `outside` records whose
/// values no level of them matches.
fn population(population: &PyProblem, outside: u64) -> Arc<Population> {
    Arc::new(Population {
        problem: population.inner.clone(),
        outside,
    })
}

fn wrap_population(c: crate::Result<PopulationCriterion>) -> PyResult<PyCriterion> {
    Ok(PyCriterion {
        inner: Kind::Population(Arc::new(c.map_err(to_py)?)),
    })
}

fn wrap<C: crate::criteria::Criterion + 'static>(c: crate::Result<C>) -> PyResult<PyCriterion> {
    Ok(PyCriterion {
        inner: Kind::Group(Arc::new(c.map_err(to_py)?)),
    })
}

fn wrap_dataset<C: crate::criteria::DatasetCriterion + 'static>(
    c: crate::Result<C>,
) -> PyResult<PyCriterion> {
    Ok(PyCriterion {
        inner: Kind::Dataset(Arc::new(c.map_err(to_py)?)),
    })
}

#[pymethods]
impl PyCriterion {
    #[staticmethod]
    fn p_sensitive(p: usize, attr: usize) -> PyResult<Self> {
        wrap(PSensitive::new(p, attr))
    }
    #[staticmethod]
    fn p_plus_sensitive(p: usize, attr: usize, category: Vec<u32>) -> PyResult<Self> {
        wrap(PPlusSensitive::new(p, attr, category))
    }
    #[staticmethod]
    fn p_alpha_sensitive(
        p: usize,
        alpha: f64,
        attr: usize,
        category: Vec<u32>,
        categories: usize,
    ) -> PyResult<Self> {
        wrap(PAlphaSensitive::new(p, alpha, attr, category, categories))
    }
    #[staticmethod]
    fn distinct_l(l: usize, attr: usize) -> PyResult<Self> {
        wrap(DistinctL::new(l, attr))
    }
    #[staticmethod]
    fn entropy_l(l: f64, attr: usize) -> PyResult<Self> {
        wrap(EntropyL::new(l, attr))
    }
    #[staticmethod]
    fn recursive_cl(c: f64, l: usize, attr: usize) -> PyResult<Self> {
        wrap(RecursiveCL::new(c, l, attr))
    }
    /// t-closeness with every two values at distance 1.
    #[staticmethod]
    fn t_closeness_equal(t: f64, attr: usize) -> PyResult<Self> {
        wrap(TCloseness::new(t, attr, Distance::Equal))
    }
    /// t-closeness over values ranked by `rank[code]`.
    #[staticmethod]
    fn t_closeness_ordered(t: f64, attr: usize, rank: Vec<u32>) -> PyResult<Self> {
        wrap(TCloseness::new(t, attr, Distance::Ordered { rank }))
    }
    /// t-closeness over the leaves of a hierarchy (`parents[l][c]` maps a
    /// level-l code one level up; `leaf_of[code]` is each value's leaf).
    #[staticmethod]
    fn t_closeness_hierarchical(
        t: f64,
        attr: usize,
        leaf_of: Vec<u32>,
        parents: Vec<Vec<u32>>,
        height: u32,
    ) -> PyResult<Self> {
        let distance = Distance::Hierarchical {
            leaf_of,
            parents,
            height,
        };
        wrap(TCloseness::new(t, attr, distance))
    }
    /// Basic (or `enhanced`) beta-likeness.
    #[staticmethod]
    fn beta_likeness(beta: f64, attr: usize, enhanced: bool) -> PyResult<Self> {
        wrap(BetaLikeness::new(beta, attr, enhanced))
    }
    /// Delta-disclosure privacy.
    #[staticmethod]
    fn delta_disclosure(delta: f64, attr: usize) -> PyResult<Self> {
        wrap(DeltaDisclosure::new(delta, attr))
    }
    /// Average re-identification risk of the release at most `max_risk`.
    #[staticmethod]
    fn average_risk(max_risk: f64) -> PyResult<Self> {
        wrap_dataset(AverageRisk::new(max_risk))
    }
    /// Share of the release's records unique in it at most `max_share`.
    #[staticmethod]
    fn sample_uniqueness(max_share: f64) -> PyResult<Self> {
        wrap_dataset(SampleUniqueness::new(max_share))
    }
    /// The estimated share of population uniques at most `max_share`.
    #[staticmethod]
    fn population_uniqueness(max_share: f64, population: f64, model: &str) -> PyResult<Self> {
        let model: Estimator = model.parse().map_err(to_py)?;
        wrap_dataset(PopulationUniqueness::new(max_share, population, model))
    }
    /// k-map against a population of `population` records, estimated.
    #[staticmethod]
    fn kmap(k: u64, population: f64, significance: f64, truncated: bool) -> PyResult<Self> {
        wrap_dataset(KMap::new(k, population, significance, truncated))
    }
    /// k-map against a population table, exact: every released class
    /// matches at least `k` of its records.
    #[staticmethod]
    fn kmap_table(k: u64, population: PyRef<'_, PyProblem>, outside: u64) -> PyResult<Self> {
        let p = self::population(&population, outside);
        wrap_population(PopulationCriterion::k_map(k, p))
    }
    /// (d_min, d_max)-presence against a population table.
    #[staticmethod]
    fn d_presence(
        d_min: f64,
        d_max: f64,
        population: PyRef<'_, PyProblem>,
        outside: u64,
    ) -> PyResult<Self> {
        let p = self::population(&population, outside);
        wrap_population(PopulationCriterion::d_presence(d_min, d_max, p))
    }
    #[getter]
    fn name(&self) -> &'static str {
        match &self.inner {
            Kind::Group(c) => c.name(),
            Kind::Population(c) => c.name(),
            Kind::Dataset(c) => c.name(),
        }
    }
    #[getter]
    fn monotone(&self) -> bool {
        match &self.inner {
            Kind::Group(c) => c.monotone(),
            Kind::Population(c) => c.monotone(),
            Kind::Dataset(c) => c.monotone(),
        }
    }
    #[getter]
    fn monotone_with_suppression(&self) -> bool {
        match &self.inner {
            Kind::Group(c) => c.monotone_with_suppression(),
            Kind::Population(c) => c.monotone_with_suppression(),
            Kind::Dataset(c) => c.monotone_with_suppression(),
        }
    }
    /// Whether it is a model of the whole release (checked after the groups').
    #[getter]
    fn whole_release(&self) -> bool {
        matches!(self.inner, Kind::Dataset(_))
    }
    /// Whether it judges each class against a population table.
    #[getter]
    fn against_population(&self) -> bool {
        matches!(self.inner, Kind::Population(_))
    }
    fn __repr__(&self) -> String {
        match &self.inner {
            Kind::Group(c) => format!("{c:?}"),
            Kind::Population(c) => format!("{}({:?})", c.name(), c.rule),
            Kind::Dataset(c) => format!("{c:?}"),
        }
    }
}

/// The group criteria of a list of `CoreCriterion`, for a check that knows
/// no models of the whole release (local recoding, Mondrian): one of those
/// is refused, naming it.
pub(super) fn unwrap(criteria: Vec<PyCriterion>) -> PyResult<Vec<CriterionRef>> {
    criteria
        .into_iter()
        .map(|c| match c.inner {
            Kind::Group(c) => Ok(c),
            Kind::Population(p) => Err(ConfigError::new_err(format!(
                "{} against a population table is a model this check does not support; \
                 use a search or generalize",
                p.name()
            ))),
            Kind::Dataset(d) => Err(ConfigError::new_err(format!(
                "{} is a model of the whole release, which this check does not support; \
                 use a search or generalize",
                d.name()
            ))),
        })
        .collect()
}

/// The group criteria of a list of `CoreCriterion`.
pub(super) fn groups_of(criteria: Vec<PyCriterion>) -> Vec<CriterionRef> {
    criteria
        .into_iter()
        .filter_map(|c| match c.inner {
            Kind::Group(c) => Some(c),
            Kind::Population(_) | Kind::Dataset(_) => None,
        })
        .collect()
}

/// The models of the whole release in a list of `CoreCriterion`.
pub(super) fn datasets(criteria: &[PyCriterion]) -> Vec<DatasetRef> {
    criteria
        .iter()
        .filter_map(|c| match &c.inner {
            Kind::Dataset(d) => Some(d.clone()),
            Kind::Group(_) | Kind::Population(_) => None,
        })
        .collect()
}

/// The models against a population table in a list of `CoreCriterion`.
pub(super) fn populations(criteria: &[PyCriterion]) -> Vec<PopulationRef> {
    criteria
        .iter()
        .filter_map(|c| match &c.inner {
            Kind::Population(p) => Some(p.clone()),
            Kind::Group(_) | Kind::Dataset(_) => None,
        })
        .collect()
}
