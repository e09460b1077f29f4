//! `CoreCriterion`: a privacy model on a sensitive attribute as the core
//! checks it. The package's criterion classes (`PSensitive`, ...) resolve
//! their attribute and categories against the data and build one of these
//! through the constructor of their kind.

use std::sync::Arc;

use pyo3::prelude::*;

use super::error::to_py;
use crate::criteria::{
    BetaLikeness, CriterionRef, DeltaDisclosure, Distance, DistinctL, EntropyL, PAlphaSensitive,
    PPlusSensitive, PSensitive, RecursiveCL, TCloseness,
};

#[pyclass(
    name = "CoreCriterion",
    module = "polars_anon._core",
    frozen,
    from_py_object
)]
#[derive(Clone)]
pub struct PyCriterion {
    pub(super) inner: CriterionRef,
}

fn wrap<C: crate::criteria::Criterion + 'static>(c: crate::Result<C>) -> PyResult<PyCriterion> {
    Ok(PyCriterion {
        inner: Arc::new(c.map_err(to_py)?),
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
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    #[getter]
    fn monotone(&self) -> bool {
        self.inner.monotone()
    }
    #[getter]
    fn monotone_with_suppression(&self) -> bool {
        self.inner.monotone_with_suppression()
    }
    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}

/// The core's criteria of a list of `CoreCriterion`.
pub(super) fn unwrap(criteria: Vec<PyCriterion>) -> Vec<CriterionRef> {
    criteria.into_iter().map(|c| c.inner).collect()
}
