//! Keyed pseudonyms of a column (`crate::pseudonym`), for the Polars release
//! plan: a column in through its Arrow stream, hashed with the GIL released,
//! and handed back as an object exporting an Arrow stream, which
//! `polars.Series` reads without a copy through Python.

use std::sync::Mutex;

use polars_arrow::array::Array;
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi::export_iterator;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use super::arrow::arrays;
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

/// Arrays of one type handed to Python once, through the Arrow C stream
/// interface.
#[pyclass(name = "ArrowColumn", module = "polars_anon._core", frozen)]
pub struct PyArrowColumn {
    name: &'static str,
    dtype: ArrowDataType,
    chunks: Mutex<Option<Vec<Box<dyn Array>>>>,
}

impl PyArrowColumn {
    pub fn new(name: &'static str, dtype: ArrowDataType, chunks: Vec<Box<dyn Array>>) -> Self {
        PyArrowColumn {
            name,
            dtype,
            chunks: Mutex::new(Some(chunks)),
        }
    }
}

#[pymethods]
impl PyArrowColumn {
    /// The column as an Arrow C stream capsule (once: it is moved out).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema; // one type only, the column's
        let chunks = self
            .chunks
            .lock()
            .map_err(|_| PyValueError::new_err("the column's lock is poisoned"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("this column was already exported"))?;
        let field = Field::new(self.name.into(), self.dtype.clone(), true);
        let stream = export_iterator(Box::new(chunks.into_iter().map(Ok)), field);
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}
