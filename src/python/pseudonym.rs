//! Keyed pseudonyms of a column (`crate::pseudonym`), for the Polars release
//! plan: a column in through its Arrow stream, hashed with the GIL released,
//! and handed back as an object exporting an Arrow stream, which
//! `polars.Series` reads without a copy through Python.

use polars_arrow::datatypes::ArrowDataType;
use pyo3::prelude::*;

use super::arrow::{arrays, PyArrowColumn};
use super::error::to_py;
use crate::pseudonym::Pseudonymizer;

/// The HMAC-SHA-256 pseudonyms of `column`'s values (text) under `key`, as
/// `length` lowercase hex digits; nulls stay null.
#[pyfunction]
pub fn pseudonyms(
    py: Python<'_>,
    key: &[u8],
    column: &Bound<'_, PyAny>,
    length: usize,
) -> PyResult<PyArrowColumn> {
    let p = Pseudonymizer::new(key, length).map_err(to_py)?;
    let chunks = arrays(column, "the column")?;
    let out = py
        .detach(|| {
            chunks
                .iter()
                .map(|c| p.column(c.as_ref()))
                .collect::<Result<Vec<_>, _>>()
                .map(|parts| parts.into_iter().flatten().collect::<Vec<_>>())
        })
        .map_err(to_py)?;
    Ok(PyArrowColumn::new(
        "pseudonym",
        ArrowDataType::Utf8View,
        out,
    ))
}
