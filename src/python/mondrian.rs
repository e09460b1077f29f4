//! `mondrian`: Mondrian's partitions of a problem's F0 (`crate::mondrian`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use super::criteria::{unwrap, PyCriterion};
use super::error::{to_py, without_gil, ConfigError};
use super::problem::PyProblem;
use crate::check::Model;
use crate::error::AnonError;
use crate::mondrian::{label, Cell, Kind};

/// How often the partitioning takes the GIL back to hear Ctrl-C.
const TICK: Duration = Duration::from_millis(200);

/// Mondrian's final partitions of F0, as columns.
#[pyclass(
    name = "MondrianOutcome",
    module = "polars_anon._core",
    frozen,
    get_all
)]
pub struct PyMondrianOutcome {
    /// Per piece (records of one F0 row in one partition; strict: one piece
    /// a row), its row of F0.
    rows: Vec<u32>,
    /// Per piece: its partition.
    partition: Vec<u32>,
    /// Per piece: its records.
    counts: Vec<u64>,
    /// Per quasi-identifier, per F0 row: its leaf code.
    codes: Vec<Vec<u32>>,
    /// Per sensitive attribute, per F0 row: its value's code.
    sensitive: Vec<Vec<u32>>,
    /// Per quasi-identifier, per partition: its cell as text.
    labels: Vec<Vec<String>>,
    /// Per quasi-identifier, per partition: its range's smallest and largest
    /// numbers (NaN for an attribute that is not numeric).
    ranges: Vec<Vec<(f64, f64)>>,
    /// Per partition: its records.
    sizes: Vec<u64>,
    /// Per quasi-identifier, per partition: the loss of its cell.
    cell_loss: Vec<Vec<f64>>,
    /// Per quasi-identifier: the loss of its cells averaged over the records.
    attribute_loss: Vec<f64>,
    /// The attribute losses averaged.
    loss: f64,
}

fn kinds(kinds: Vec<String>, mut values: Vec<Option<Vec<f64>>>) -> PyResult<Vec<Kind>> {
    if kinds.len() != values.len() {
        return Err(ConfigError::new_err(
            "one kind and one value list per quasi-identifier",
        ));
    }
    kinds
        .iter()
        .zip(values.iter_mut())
        .map(|(k, v)| match (k.as_str(), v.take()) {
            ("numeric", Some(v)) => Ok(Kind::Numeric(v)),
            ("hierarchy", None) => Ok(Kind::Hierarchy),
            ("set", None) => Ok(Kind::Set),
            _ => Err(ConfigError::new_err(format!(
                "kind {k:?}: expected \"numeric\" with numbers, or \"hierarchy\" or \"set\" without"
            ))),
        })
        .collect()
}

/// Partition `problem`'s F0 for k and `criteria`, strict or `relaxed`;
/// `kinds[i]` is "numeric" (with `values[i]`, a number per leaf code),
/// "hierarchy" or "set".
#[pyfunction]
#[pyo3(signature = (problem, kinds, values, k, criteria = Vec::new(), relaxed = false))]
pub fn mondrian(
    py: Python<'_>,
    problem: &PyProblem,
    kinds: Vec<String>,
    values: Vec<Option<Vec<f64>>>,
    k: u64,
    criteria: Vec<PyCriterion>,
    relaxed: bool,
) -> PyResult<PyMondrianOutcome> {
    let p = &problem.inner;
    let kinds = self::kinds(kinds, values)?;
    let model = Model {
        k,
        criteria: unwrap(criteria)?,
        ..Default::default()
    };
    let counts: Vec<usize> = p.sensitive.iter().map(|s| s.values.len()).collect();
    crate::criteria::validate(&model.criteria, &counts).map_err(to_py)?;
    let failure: Arc<Mutex<Option<PyErr>>> = Arc::new(Mutex::new(None));
    let seen = failure.clone();
    let mut last = Instant::now();
    let mut tick = move || -> bool {
        if last.elapsed() < TICK {
            return true;
        }
        last = Instant::now();
        Python::attach(|py| match py.check_signals() {
            Ok(()) => true,
            Err(e) => {
                *seen.lock().expect("signal lock") = Some(e);
                false
            }
        })
    };
    let out = match without_gil(py, || {
        crate::mondrian::mondrian(p, &kinds, &model, relaxed, &mut tick)
    })? {
        Ok(out) => out,
        Err(AnonError::Interrupted) => {
            return Err(failure
                .lock()
                .expect("signal lock")
                .take()
                .unwrap_or_else(|| to_py(AnonError::Interrupted)))
        }
        Err(e) => return Err(to_py(e)),
    };
    let (mut rows, mut partition, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    for (i, part) in out.partitions.iter().enumerate() {
        for &r in &part.rows {
            rows.push(out.origin[r as usize]);
            partition.push(i as u32);
            counts.push(out.counts[r as usize]);
        }
    }
    let codes = (0..p.n_attrs())
        .map(|a| p.base.codes(a))
        .collect::<crate::Result<Vec<_>>>()
        .map_err(to_py)?;
    let sensitive = (p.base.carry.iter())
        .map(|&a| p.base.codes(a))
        .collect::<crate::Result<Vec<_>>>()
        .map_err(to_py)?;
    let labels = (0..p.n_attrs())
        .map(|a| {
            out.partitions
                .iter()
                .map(|part| label(&p.hierarchies[a], &part.cells[a], &kinds[a]))
                .collect()
        })
        .collect();
    let ranges = (0..p.n_attrs())
        .map(|a| {
            out.partitions
                .iter()
                .map(|part| match (&part.cells[a], &kinds[a]) {
                    (Cell::Range { low, high }, Kind::Numeric(v)) => {
                        (v[*low as usize], v[*high as usize])
                    }
                    _ => (f64::NAN, f64::NAN),
                })
                .collect()
        })
        .collect();
    Ok(PyMondrianOutcome {
        ranges,
        rows,
        partition,
        counts,
        codes,
        sensitive,
        labels,
        sizes: out.partitions.iter().map(|part| part.count).collect(),
        cell_loss: out.cell_loss,
        attribute_loss: out.attribute_loss,
        loss: out.loss,
    })
}
