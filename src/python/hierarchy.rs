//! `Hierarchy`: a value generalization hierarchy, read, written and used to
//! encode values.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::error::{parameter_error, to_py, ConfigError};
use crate::hierarchy::Hierarchy;

#[pyclass(
    name = "Hierarchy",
    module = "polars_anon._core",
    frozen,
    eq,
    from_py_object
)]
#[derive(Clone, PartialEq)]
pub struct PyHierarchy {
    pub(super) inner: Hierarchy,
}

#[pymethods]
impl PyHierarchy {
    #[staticmethod]
    #[pyo3(signature = (rows, source = None))]
    fn from_rows(rows: &Bound<'_, PyAny>, source: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let source = text_param("source", source, "rows")?;
        let rows = text_rows(rows)?;
        Ok(PyHierarchy {
            inner: Hierarchy::from_rows(rows, &source).map_err(to_py)?,
        })
    }
    #[staticmethod]
    #[pyo3(signature = (path, sep = None))]
    fn from_csv(path: &Bound<'_, PyAny>, sep: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let path: PathBuf = path.extract().map_err(|_| {
            ConfigError::new_err(format!(
                "path must be a file path (str or os.PathLike), got {}",
                type_name(path)
            ))
        })?;
        let sep = text_param("sep", sep, ";")?;
        Ok(PyHierarchy {
            inner: Hierarchy::from_csv_path(&path, sep_byte(&sep)?).map_err(to_py)?,
        })
    }
    #[staticmethod]
    #[pyo3(signature = (text, sep = None, source = None))]
    fn from_csv_text(
        text: &Bound<'_, PyAny>,
        sep: Option<&Bound<'_, PyAny>>,
        source: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let text = text_param("text", Some(text), "")?;
        let sep = text_param("sep", sep, ";")?;
        let source = text_param("source", source, "text")?;
        Ok(PyHierarchy {
            inner: Hierarchy::from_csv_str(&text, sep_byte(&sep)?, &source).map_err(to_py)?,
        })
    }
    #[staticmethod]
    fn from_json(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = text_param("text", Some(text), "")?;
        Ok(PyHierarchy {
            inner: Hierarchy::from_json(&text, "json").map_err(to_py)?,
        })
    }
    fn to_json(&self) -> String {
        self.inner.to_json()
    }
    #[pyo3(signature = (sep = ";"))]
    fn to_csv(&self, sep: &str) -> PyResult<String> {
        Ok(self.inner.to_csv_string(sep_byte(sep)?))
    }
    #[getter]
    fn height(&self) -> u8 {
        self.inner.height()
    }
    /// How many distinct values each level has, leaves first (without
    /// copying them, as `levels` does).
    #[getter]
    fn sizes(&self) -> Vec<usize> {
        (0..=self.inner.height())
            .map(|l| self.inner.domain_size(l))
            .collect()
    }
    #[getter]
    fn levels(&self) -> Vec<Vec<String>> {
        self.inner.levels().iter().map(|l| l.to_vec()).collect()
    }
    #[getter]
    fn leaves(&self) -> Vec<String> {
        self.inner.leaves().to_vec()
    }
    #[getter]
    fn rows(&self) -> Vec<Vec<String>> {
        self.inner.owned_rows()
    }
    fn leaf_labels(&self, level: u8) -> PyResult<Vec<String>> {
        check_level(&self.inner, level)?;
        Ok(self
            .inner
            .leaf_labels(level)
            .into_iter()
            .map(String::from)
            .collect())
    }
    /// Which of `values` are leaves, as their positions in `values` in leaf
    /// order, and the labels of those leaves at `level`: each as a code into
    /// the distinct labels, which come last (in order of first use). The
    /// mapping a release needs for the values a table holds, without copying
    /// every leaf of a large hierarchy, or a label for each leaf, into
    /// Python. (Matched by a plain set of the values, not through the leaf
    /// index that encoded them, so that a release's check does not share its
    /// lookup.)
    fn leaf_positions(
        &self,
        level: u8,
        values: Vec<PyBackedStr>,
    ) -> PyResult<(Vec<u32>, Vec<u32>, Vec<String>)> {
        check_level(&self.inner, level)?;
        Ok(self.inner.leaf_positions(level, &values))
    }
    /// The leaves `codes` (as text) and their labels at `level`, as
    /// `leaf_positions` gives them.
    fn leaf_mapping(
        &self,
        level: u8,
        codes: Vec<u32>,
    ) -> PyResult<(Vec<String>, Vec<u32>, Vec<String>)> {
        check_level(&self.inner, level)?;
        let leaves = self.inner.leaves();
        if let Some(&c) = codes.iter().find(|&&c| c as usize >= leaves.len()) {
            return Err(ConfigError::new_err(format!(
                "leaf code {c} of a hierarchy of {} leaves",
                leaves.len()
            )));
        }
        let text = codes
            .iter()
            .map(|&c| leaves[c as usize].to_string())
            .collect();
        let (labels, names) = self.inner.labels_of(level, &codes);
        Ok((text, labels, names))
    }
    /// The distinct labels of `level`, by code (one level of `levels`,
    /// without copying the others: a ZIP hierarchy's leaves are 100,000).
    fn labels_at(&self, level: u8) -> PyResult<Vec<String>> {
        check_level(&self.inner, level)?;
        Ok(self.inner.levels()[level as usize].to_vec())
    }
    fn encode(&self, column: &str, values: Vec<Option<String>>) -> PyResult<Vec<u32>> {
        let v: Vec<Option<&str>> = values.iter().map(|s| s.as_deref()).collect();
        self.inner.encode(column, &v).map_err(to_py)
    }
    /// Pickled as its JSON form.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = py.get_type::<PyHierarchy>().getattr("from_json")?;
        Ok((from_json, (self.inner.to_json(),)))
    }
    fn __repr__(&self) -> String {
        let sizes: Vec<String> = self
            .inner
            .levels()
            .iter()
            .map(|l| l.len().to_string())
            .collect();
        format!(
            "Hierarchy(height={}, values per level=[{}])",
            self.inner.height(),
            sizes.join(", ")
        )
    }
}

fn check_level(h: &Hierarchy, level: u8) -> PyResult<()> {
    if level > h.height() {
        return Err(ConfigError::new_err(format!(
            "level {level} is above the hierarchy's height {}",
            h.height()
        )));
    }
    Ok(())
}

/// A text argument (`default` when not given): anything else is a
/// `ConfigError` naming the parameter, in the library's words rather than
/// pyo3's.
fn text_param(name: &str, value: Option<&Bound<'_, PyAny>>, default: &str) -> PyResult<String> {
    match value {
        None => Ok(default.to_owned()),
        Some(v) => v.extract::<String>().map_err(|_| {
            ConfigError::new_err(format!("{name} must be text, got {}", type_name(v)))
        }),
    }
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an object".into())
}

fn sep_byte(sep: &str) -> PyResult<u8> {
    match sep.as_bytes() {
        [b] => Ok(*b),
        _ => Err(ConfigError::new_err(format!(
            "sep must be one ASCII character, got {sep:?}"
        ))),
    }
}

/// A hierarchy's rows from Python: a sequence of rows, each a sequence of
/// strings (leaf first). Anything else is a `ParameterError` naming the row and
/// the column, in the library's words rather than pyo3's.
fn text_rows(rows: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<String>>> {
    let kind = |v: &Bound<'_, PyAny>| -> String {
        v.get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into())
    };
    if rows.is_instance_of::<pyo3::types::PyString>() || rows.try_iter().is_err() {
        return Err(parameter_error(format!(
            "hierarchy rows must be a list of rows (each a list of strings, leaf first), got {}",
            kind(rows)
        )));
    }
    let mut out = Vec::new();
    for (r, row) in rows.try_iter()?.enumerate() {
        let row = row?;
        if row.is_instance_of::<pyo3::types::PyString>() || row.try_iter().is_err() {
            return Err(parameter_error(format!(
                "hierarchy row {r} must be a list of strings (leaf first), got {}: {}",
                kind(&row),
                row.repr()?
            )));
        }
        let mut cells = Vec::new();
        for (c, cell) in row.try_iter()?.enumerate() {
            let cell = cell?;
            match cell.extract::<String>() {
                Ok(s) => cells.push(s),
                Err(_) => {
                    return Err(parameter_error(format!(
                        "hierarchy row {r}, column {c}: labels must be strings, got {} {} \
                         (write numbers as text, e.g. str(v), and a missing label as a value)",
                        kind(&cell),
                        cell.repr()?
                    )))
                }
            }
        }
        out.push(cells);
    }
    Ok(out)
}
