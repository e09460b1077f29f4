//! The core's errors as one small tree of Python exceptions, rooted at
//! `AnonError`; each core variant maps to one class.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;

use crate::error::AnonError;

create_exception!(
    _core,
    PyAnonError,
    PyException,
    "Base class of every polars-anon error."
);
create_exception!(
    _core,
    HierarchyError,
    PyAnonError,
    "A hierarchy that cannot be used."
);
create_exception!(
    _core,
    ConfigError,
    PyAnonError,
    "A request that does not fit the data."
);
create_exception!(
    _core,
    MissingValueError,
    PyAnonError,
    "Values (or nulls) in a quasi-identifier that its hierarchy does not cover."
);
create_exception!(
    _core,
    NotAnonymousError,
    PyAnonError,
    "The requested release would break the privacy model."
);

pub fn to_py(e: AnonError) -> PyErr {
    let msg = e.to_string();
    match e {
        AnonError::Hierarchy(_) => HierarchyError::new_err(msg),
        AnonError::MissingValues { .. } | AnonError::NullValues { .. } => {
            MissingValueError::new_err(msg)
        }
        AnonError::Config(_) => ConfigError::new_err(msg),
        AnonError::NotAnonymous(_) => NotAnonymousError::new_err(msg),
        AnonError::Interrupted => PyKeyboardInterrupt::new_err(msg),
        AnonError::Polars(_) => PyAnonError::new_err(msg),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("AnonError", py.get_type::<PyAnonError>())?;
    m.add("HierarchyError", py.get_type::<HierarchyError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("MissingValueError", py.get_type::<MissingValueError>())?;
    m.add("NotAnonymousError", py.get_type::<NotAnonymousError>())?;
    Ok(())
}
