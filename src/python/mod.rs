//! PyO3 bindings: the only place that knows Python. Built by maturin with the
//! `python` feature as `polars_anon._core`; one file per exposed class, the
//! error mapping in `error.rs`, Arrow input in `arrow.rs`.

use pyo3::prelude::*;

mod arrow;
mod batches;
mod criteria;
mod dp;
mod error;
mod hierarchy;
mod local;
mod mondrian;
mod pool;
mod problem;
mod pseudonym;
mod results;
mod risk;

/// The search algorithms as (name, variants, the default first), from the
/// core's registry: the package validates and documents with these.
fn algorithms() -> Vec<(&'static str, Vec<&'static str>)> {
    crate::search::ALGORITHMS
        .iter()
        .map(|e| (e.name, e.variants.to_vec()))
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(local::localpk, m)?)?;
    m.add_function(wrap_pyfunction!(mondrian::mondrian, m)?)?;
    m.add_function(wrap_pyfunction!(mondrian::mondrian_reapply, m)?)?;
    m.add_class::<mondrian::PyMondrianOutcome>()?;
    m.add_function(wrap_pyfunction!(risk::assess_risk, m)?)?;
    m.add_function(wrap_pyfunction!(pseudonym::pseudonyms, m)?)?;
    m.add_function(wrap_pyfunction!(dp::sampled, m)?)?;
    m.add_function(wrap_pyfunction!(dp::uniforms, m)?)?;
    m.add_function(wrap_pyfunction!(dp::dp_scores, m)?)?;
    m.add_class::<arrow::PyArrowColumn>()?;
    m.add_class::<risk::PyRiskFigures>()?;
    m.add_class::<hierarchy::PyHierarchy>()?;
    m.add_class::<problem::PyProblem>()?;
    m.add_class::<batches::PyF0Batches>()?;
    m.add_class::<criteria::PyCriterion>()?;
    m.add_class::<results::PyNodeMetrics>()?;
    m.add_class::<results::PyMetricTable>()?;
    m.add_class::<results::PySearchOutcome>()?;
    m.add_class::<results::PyStats>()?;
    m.add_class::<results::PyIterationTrace>()?;
    error::register(m)?;
    m.add("ALGORITHMS", algorithms())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
