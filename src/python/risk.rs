//! `assess_risk`: the risk figures of a release from its classes' sizes.

use pyo3::prelude::*;

use super::error::ConfigError;
use crate::risk::{assess, Histogram, Population, Risk};

/// The figures of `crate::risk::Risk`, as Python reads them.
#[pyclass(name = "RiskFigures", module = "polars_anon._core", frozen, get_all)]
pub struct PyRiskFigures {
    records: u64,
    classes: u64,
    highest_prosecutor_risk: f64,
    average_prosecutor_risk: f64,
    records_at_risk: f64,
    classes_at_risk: f64,
    sample_uniques: f64,
    marketer_risk: f64,
    highest_journalist_risk: f64,
    journalist_records_at_risk: f64,
    population_size: f64,
    sampling_fraction: f64,
    population_uniques: f64,
    population_model: &'static str,
    pitman: Option<f64>,
    zayatz: Option<f64>,
    snb: Option<f64>,
}

impl From<Risk> for PyRiskFigures {
    fn from(r: Risk) -> Self {
        PyRiskFigures {
            records: r.records,
            classes: r.classes,
            highest_prosecutor_risk: r.highest_prosecutor_risk,
            average_prosecutor_risk: r.average_prosecutor_risk,
            records_at_risk: r.records_at_risk,
            classes_at_risk: r.classes_at_risk,
            sample_uniques: r.sample_uniques,
            marketer_risk: r.marketer_risk,
            highest_journalist_risk: r.highest_journalist_risk,
            journalist_records_at_risk: r.journalist_records_at_risk,
            population_size: r.population_size,
            sampling_fraction: r.sampling_fraction,
            population_uniques: r.population_uniques,
            population_model: r.population_model.name(),
            pitman: r.pitman,
            zayatz: r.zayatz,
            snb: r.snb,
        }
    }
}

/// The risk of classes of `sizes` records; the population is the sample, or
/// of `population_size` records, or a table whose classes matching the
/// sample's have `matched` records and whose classes all have
/// `population_sizes`.
#[pyfunction]
#[pyo3(signature = (sizes, threshold, population_size = None, matched = None, population_sizes = None))]
pub fn assess_risk(
    sizes: Vec<u64>,
    threshold: f64,
    population_size: Option<f64>,
    matched: Option<Vec<u64>>,
    population_sizes: Option<Vec<u64>>,
) -> PyResult<PyRiskFigures> {
    let all = population_sizes.map(Histogram::from_sizes);
    let population = match (population_size, &matched, &all) {
        (None, None, None) => Population::Sample,
        (Some(n), None, None) => Population::Size(n),
        (None, Some(matched), Some(all)) => Population::Table { matched, all },
        _ => {
            return Err(ConfigError::new_err(
                "give a population size, or a population table's matched and all class sizes",
            ))
        }
    };
    assess(&sizes, population, threshold)
        .map(PyRiskFigures::from)
        .map_err(super::error::to_py)
}
