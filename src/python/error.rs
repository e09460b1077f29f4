//! The core's errors as one small tree of Python exceptions, rooted at
//! `AnonError`; each core variant maps to one class. Their qualified names
//! are public (`polars_anon.exceptions.ConfigError`): the module a traceback
//! names is one a user can import, and pickles of them load.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;

use crate::error::AnonError as CoreError;

create_exception!(
    polars_anon.exceptions,
    AnonError,
    PyException,
    "Base class of every polars-anon error."
);
create_exception!(
    polars_anon.exceptions,
    HierarchyError,
    AnonError,
    "A hierarchy that cannot be used."
);
create_exception!(
    polars_anon.exceptions,
    ConfigError,
    AnonError,
    "A request that does not fit the data."
);
create_exception!(
    polars_anon.exceptions,
    SearchTooLargeError,
    ConfigError,
    "A search that would hold more than its memory budget; nothing was searched."
);
create_exception!(
    polars_anon.exceptions,
    MissingValueError,
    AnonError,
    "Values (or nulls) in a quasi-identifier that its hierarchy does not cover."
);
create_exception!(
    polars_anon.exceptions,
    NotAnonymousError,
    AnonError,
    "The requested release would break the privacy model."
);

// A `ConfigError` that is also a `TypeError`: defined in Python, where a
// class may have both bases, and looked up only when the error is raised
// (with the GIL held), so that a pool thread can make one without it.
pyo3::import_exception!(polars_anon.exceptions, ParameterError);

/// A parameter of the wrong type: `polars_anon.exceptions.ParameterError`.
pub fn parameter_error(msg: String) -> PyErr {
    ParameterError::new_err(msg)
}

pub fn to_py(e: CoreError) -> PyErr {
    let msg = e.to_string();
    match e {
        CoreError::Hierarchy(_) => HierarchyError::new_err(msg),
        CoreError::MissingValues { .. } | CoreError::NullValues { .. } => {
            MissingValueError::new_err(msg)
        }
        CoreError::Config(_) => ConfigError::new_err(msg),
        CoreError::NotAnonymous(_) => NotAnonymousError::new_err(msg),
        CoreError::TooLarge(_) => SearchTooLargeError::new_err(msg),
        CoreError::Column(_) => parameter_error(msg),
        CoreError::Interrupted => PyKeyboardInterrupt::new_err(msg),
        // a search answers its time limit with a partial outcome; this is
        // reached only if a caller lets the error through
        CoreError::TimeLimit => AnonError::new_err(msg),
        CoreError::Polars(_) => AnonError::new_err(msg),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("AnonError", py.get_type::<AnonError>())?;
    m.add("HierarchyError", py.get_type::<HierarchyError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("MissingValueError", py.get_type::<MissingValueError>())?;
    m.add("SearchTooLargeError", py.get_type::<SearchTooLargeError>())?;
    m.add("NotAnonymousError", py.get_type::<NotAnonymousError>())?;
    Ok(())
}

/// Run `f` (core work) with the GIL released; a panic in it becomes an
/// `AnonError` naming it instead of unwinding into Python, where it would
/// surface as pyo3's `PanicException` (not an `Exception`). The core's own
/// errors are left to the caller.
pub fn without_gil<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> crate::Result<T> + Send,
) -> PyResult<crate::Result<T>> {
    py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)))
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            AnonError::new_err(format!(
                "internal error in polars-anon's core (please report it with the call that \
                 caused it): {what}"
            ))
        })
}

/// `without_gil`, with the core's errors mapped to their exceptions.
pub fn run<T: Send>(py: Python<'_>, f: impl FnOnce() -> crate::Result<T> + Send) -> PyResult<T> {
    without_gil(py, f)?.map_err(to_py)
}
