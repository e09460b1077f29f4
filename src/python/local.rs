//! `localpk`: Sun et al.'s local recoding over the rows of a table.

use pyo3::prelude::*;

use super::arrow;
use super::criteria::{unwrap, PyCriterion};
use super::error::{run, to_py, ConfigError};
use super::hierarchy::PyHierarchy;
use crate::check::Model;
use crate::hierarchy::Hierarchy;

/// Sun et al.'s top-down local recoding over individual tuples.
/// Returns (levels per attribute as bytes, codes per attribute, groups, distortion).
#[pyfunction]
#[pyo3(signature = (hierarchies, qi, sensitive, globals, k, criteria))]
#[allow(clippy::type_complexity)]
pub fn localpk<'py>(
    py: Python<'py>,
    hierarchies: Vec<PyHierarchy>,
    qi: Vec<Bound<'py, PyAny>>,
    sensitive: Vec<Bound<'py, PyAny>>,
    globals: Vec<Vec<f64>>,
    k: u64,
    criteria: Vec<PyCriterion>,
) -> PyResult<(Vec<Vec<u8>>, Vec<Vec<u32>>, usize, f64)> {
    let hs: Vec<Hierarchy> = hierarchies.into_iter().map(|h| h.inner).collect();
    let qi: Vec<Vec<u32>> = qi
        .iter()
        .map(|c| {
            arrow::take(c, 4)?
                .u32s("quasi-identifier codes")
                .map_err(to_py)
        })
        .collect::<PyResult<_>>()?;
    let sensitive: Vec<Vec<u32>> = sensitive
        .iter()
        .map(|c| arrow::take(c, 4)?.u32s("sensitive codes").map_err(to_py))
        .collect::<PyResult<_>>()?;
    if hs.len() != qi.len() || globals.len() != sensitive.len() {
        return Err(ConfigError::new_err(
            "one hierarchy per quasi-identifier and one distribution per sensitive attribute",
        ));
    }
    let rows = qi.first().map_or(0, Vec::len);
    if qi.iter().chain(&sensitive).any(|c| c.len() != rows) {
        return Err(ConfigError::new_err("every column needs one code per row"));
    }
    for (a, (h, col)) in hs.iter().zip(&qi).enumerate() {
        if col.iter().any(|&c| c as usize >= h.domain_size(0)) {
            return Err(ConfigError::new_err(format!(
                "codes of attribute #{a} out of range"
            )));
        }
    }
    for (j, (g, col)) in globals.iter().zip(&sensitive).enumerate() {
        if col.iter().any(|&c| c as usize >= g.len()) {
            return Err(ConfigError::new_err(format!(
                "codes of sensitive attribute #{j} out of range"
            )));
        }
    }
    let criteria = unwrap(criteria)?;
    let values: Vec<usize> = globals.iter().map(Vec::len).collect();
    crate::criteria::validate(&criteria, &values).map_err(to_py)?;
    let model = Model {
        k,
        criteria,
        ..Default::default()
    };
    let out = run(py, || {
        crate::local::localpk(
            &crate::local::Tuples {
                hierarchies: &hs,
                qi: &qi,
                sensitive: &sensitive,
                global: &globals,
            },
            &model,
        )
    })?;
    Ok((out.levels, out.codes, out.groups, out.distortion))
}
