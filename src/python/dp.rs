//! SafePub's core (`crate::dp`): which rows of a batch are sampled, the
//! exponential mechanism's uniform draws, and the nodes' scores.

use polars_arrow::array::{Array, BooleanArray, PrimitiveArray};
use polars_arrow::datatypes::ArrowDataType;
use pyo3::prelude::*;

use super::arrow::arrays;
use super::arrow::PyArrowColumn;
use super::error::{run, to_py};
use super::problem::PyProblem;
use crate::dp::{score_nodes, Keystream, Score, MECHANISM};
use crate::error::AnonError;

/// Whether each row of `index` (a column of row numbers, UInt64, no nulls)
/// is in the sample that `key` draws with probability `beta`, as a Boolean
/// column exporting an Arrow stream.
#[pyfunction]
pub fn sampled(
    py: Python<'_>,
    key: &[u8],
    index: &Bound<'_, PyAny>,
    beta: f64,
) -> PyResult<PyArrowColumn> {
    let mut keys = Keystream::new(key).map_err(to_py)?;
    let mut chunks: Vec<Box<dyn Array>> = Vec::new();
    for chunk in arrays(index, "the row numbers")? {
        let rows = chunk
            .as_any()
            .downcast_ref::<PrimitiveArray<u64>>()
            .filter(|a| a.null_count() == 0)
            .ok_or_else(|| {
                to_py(AnonError::Column(format!(
                    "row numbers are UInt64 without nulls, not {:?}",
                    chunk.dtype()
                )))
            })?;
        let kept = py
            .detach(|| keys.sampled(rows.values().iter().copied(), beta))
            .map_err(to_py)?;
        chunks.push(Box::new(BooleanArray::from_slice(kept)));
    }
    Ok(PyArrowColumn::new(
        "sampled",
        ArrowDataType::Boolean,
        chunks,
    ))
}

/// `n` uniform numbers in [0, 1) from word `start` on of the key's
/// mechanism stream.
#[pyfunction]
pub fn uniforms(key: &[u8], start: u64, n: usize) -> PyResult<Vec<f64>> {
    let mut keys = Keystream::new(key).map_err(to_py)?;
    Ok(keys.uniforms(MECHANISM, start, n))
}

/// SafePub's scores of `nodes` of `problem` (its F0 the sample's), each
/// divided by the metric's sensitivity; `unsampled` records of the table
/// count as suppressed.
#[pyfunction]
pub fn dp_scores(
    py: Python<'_>,
    problem: PyRef<'_, PyProblem>,
    nodes: Vec<Vec<u32>>,
    k: u64,
    metric: &str,
    unsampled: u64,
) -> PyResult<Vec<f64>> {
    let score: Score = metric.parse().map_err(to_py)?;
    let nodes = problem.nodes_u8(nodes)?;
    let inner = &problem.inner;
    run(py, || score_nodes(inner, &nodes, k, score, unsampled))
}
