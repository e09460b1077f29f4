//! Columns taken out of Python, and handed to it (`PyArrowColumn`).
//! In: little-endian bytes, or any object exporting
//! the Arrow PyCapsule stream interface (`__arrow_c_stream__`: Polars Series,
//! pyarrow arrays, DuckDB results, pandas through its capsule). The stream is
//! moved out of its capsule and read by polars-arrow's C stream reader into a
//! core `Column` (`src/hierarchy/column.rs`), which decodes it; so the Python
//! side needs neither numpy nor pyarrow (importing either is a noticeable
//! part of a short run), and no Arrow struct is declared here.

use std::sync::Mutex;

use polars_arrow::array::Array;
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi::{export_iterator, ArrowArrayStream, ArrowArrayStreamReader};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyCapsule, PyCapsuleMethods};

use super::error::{parameter_error, to_py};
use crate::error::AnonError;
use crate::hierarchy::Column;

/// `obj`'s values, taken out of Python: bytes as `width`-byte little-endian
/// values, or the chunks of its Arrow stream (opened once).
pub fn take(obj: &Bound<'_, PyAny>, width: usize) -> PyResult<Column> {
    if let Ok(b) = obj.extract::<PyBackedBytes>() {
        return Column::from_le_bytes(&b, width).map_err(to_py);
    }
    let stream = stream(obj)?;
    // SAFETY: a stream its producer exported under the C stream interface
    unsafe { Column::from_stream(stream) }.map_err(to_py)
}

/// `obj`'s Arrow C stream, moved out of the capsule its
/// `__arrow_c_stream__` returns.
pub fn stream(obj: &Bound<'_, PyAny>) -> PyResult<Box<ArrowArrayStream>> {
    if !obj.hasattr("__arrow_c_stream__")? {
        return Err(parameter_error(format!(
            "expected bytes or an Arrow-exporting column (e.g. a polars Series), got {}",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let ptr = capsule
        .pointer_checked(Some(c"arrow_array_stream"))?
        .cast::<ArrowArrayStream>()
        .as_ptr();
    // SAFETY: the capsule holds an ArrowArrayStream (checked by its name); it
    // is moved out and the capsule keeps a released (empty) one, as the
    // protocol asks of a consumer
    Ok(Box::new(unsafe {
        std::ptr::replace(ptr, ArrowArrayStream::empty())
    }))
}

/// The Arrow arrays of `obj`'s stream (`what` names it in an error).
pub fn arrays(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Box<dyn Array>>> {
    let input = stream(obj)?;
    let unreadable = |e| to_py(AnonError::Column(format!("could not read {what}: {e}")));
    // SAFETY: a stream its producer exported under the C stream interface
    let mut reader = unsafe { ArrowArrayStreamReader::try_new(input) }.map_err(unreadable)?;
    let mut out = Vec::new();
    // SAFETY: the reader's stream is valid until it is dropped here
    while let Some(chunk) = unsafe { reader.next() } {
        out.push(chunk.map_err(unreadable)?);
    }
    Ok(out)
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
