//! `F0Batches`: F0 gathered from a table read in batches (`freq/batches.rs`),
//! each batch's values encoded through the hierarchies as `Problem` encodes
//! a whole table's.

use pyo3::prelude::*;

use super::arrow;
use super::error::{to_py, ConfigError};
use super::hierarchy::PyHierarchy;
use super::problem::{encode_columns, take_columns, PyProblem};
use crate::freq::{Batches, Problem};

#[pyclass(name = "F0Batches", module = "polars_anon._core")]
pub struct PyF0Batches {
    names: Vec<String>,
    hierarchies: Vec<PyHierarchy>,
    sensitive: Vec<(String, Vec<String>)>,
    /// `None` once `problem` has taken the rows.
    inner: Option<Batches>,
}

impl PyF0Batches {
    fn batches(&mut self) -> PyResult<&mut Batches> {
        self.inner
            .as_mut()
            .ok_or_else(|| ConfigError::new_err("these batches were made into a problem already"))
    }
}

#[pymethods]
impl PyF0Batches {
    /// For the quasi-identifiers `names` with their `hierarchies`, and the
    /// sensitive attributes as (name, values).
    #[new]
    #[pyo3(signature = (names, hierarchies, sensitive = Vec::new()))]
    fn new(
        names: Vec<String>,
        hierarchies: Vec<PyHierarchy>,
        sensitive: Vec<(String, Vec<String>)>,
    ) -> PyResult<Self> {
        if hierarchies.len() != names.len() {
            return Err(ConfigError::new_err("one hierarchy per quasi-identifier"));
        }
        let sizes = hierarchies
            .iter()
            .map(|h| h.inner.domain_size(0))
            .chain(sensitive.iter().map(|(_, v)| v.len()))
            .collect();
        let all = names.iter().chain(sensitive.iter().map(|(n, _)| n));
        crate::alloc::mark();
        let inner = Batches::new(all.cloned().collect(), sizes);
        Ok(PyF0Batches {
            names,
            hierarchies,
            sensitive,
            inner: Some(inner),
        })
    }

    /// One batch of rows, each counting once: a column per quasi-identifier
    /// as `Problem` takes them (values encoded here through its hierarchy,
    /// or leaf codes), and the sensitive attributes' codes.
    #[pyo3(signature = (codes, sensitive = Vec::new()))]
    fn add(
        &mut self,
        py: Python<'_>,
        codes: Vec<Bound<'_, PyAny>>,
        sensitive: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if codes.len() != self.names.len() || sensitive.len() != self.sensitive.len() {
            return Err(ConfigError::new_err(format!(
                "{} quasi-identifier and {} sensitive columns for {} and {}",
                codes.len(),
                sensitive.len(),
                self.names.len(),
                self.sensitive.len()
            )));
        }
        let taken = take_columns(&codes)?;
        let (names, hierarchies) = (&self.names, &self.hierarchies);
        let encoded = py.detach(|| encode_columns(names, hierarchies, taken, None));
        let mut columns = encoded?;
        for (c, (n, _)) in sensitive.iter().zip(&self.sensitive) {
            let codes = arrow::take(c, 4)?.u32s(&format!("codes of '{n}'"));
            columns.push(codes.map_err(to_py)?);
        }
        let batches = self.batches()?;
        py.detach(|| batches.add(&columns, None)).map_err(to_py)
    }

    /// Tuples added so far.
    #[getter]
    fn rows(&mut self) -> PyResult<u64> {
        Ok(self.batches()?.rows())
    }

    /// Distinct rows so far.
    #[getter]
    fn groups(&mut self) -> PyResult<usize> {
        Ok(self.batches()?.groups())
    }

    /// The core problem over the distinct rows gathered (the batches are
    /// spent).
    fn problem(&mut self, py: Python<'_>) -> PyResult<PyProblem> {
        let batches = self.inner.take().ok_or_else(|| {
            ConfigError::new_err("these batches were made into a problem already")
        })?;
        let names = self.names.clone();
        let hs = self.hierarchies.iter().map(|h| h.inner.clone()).collect();
        let sensitive = self.sensitive.clone();
        let inner = py.detach(move || {
            let n = names.len();
            let (mut columns, counts) = batches.finish();
            let sens_codes = columns.split_off(n);
            let sens = sensitive
                .into_iter()
                .zip(sens_codes)
                .map(|((name, values), codes)| (name, values, codes))
                .collect();
            let problem = Problem::from_distinct(names, hs, columns, sens, counts);
            crate::alloc::give_back();
            problem
        });
        Ok(PyProblem {
            inner: inner.map_err(to_py)?,
        })
    }
}
