//! `mondrian`: Mondrian's partitions of a problem's F0 (`crate::mondrian`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use super::criteria::{unwrap, PyCriterion};
use super::error::{to_py, without_gil, ConfigError};
use super::problem::PyProblem;
use crate::check::Model;
use crate::error::AnonError;
use crate::freq::Problem;
use crate::mondrian::tree::{recorded, Key, Recorded};
use crate::mondrian::{label, Cell, Kind, Mondrian};

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
    /// The split tree (`crate::mondrian::tree`), a node a row, each after
    /// its parent (for partitions re-applied from a recorded tree, its
    /// nodes' parents and partitions only, no tests):
    /// its parent, the quasi-identifier (index) its test is on, the test
    /// ("<=", ">" or "under"; "" at the root), its key as a number (numeric
    /// cuts) or as text (a set's cut, a hierarchy node's label), the node's
    /// level (hierarchy splits), and a leaf's partition.
    tree_parent: Vec<Option<u32>>,
    tree_attribute: Vec<Option<u32>>,
    tree_test: Vec<String>,
    tree_number: Vec<Option<f64>>,
    tree_label: Vec<Option<String>>,
    tree_level: Vec<Option<u8>>,
    tree_partition: Vec<Option<u32>>,
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

/// The kinds and the model of a call, checked against the problem.
fn setup(
    p: &Problem,
    kinds: Vec<String>,
    values: Vec<Option<Vec<f64>>>,
    k: u64,
    criteria: Vec<PyCriterion>,
) -> PyResult<(Vec<Kind>, Model)> {
    let kinds = self::kinds(kinds, values)?;
    let model = Model {
        k,
        criteria: unwrap(criteria)?,
        ..Default::default()
    };
    let counts: Vec<usize> = p.sensitive.iter().map(|s| s.values.len()).collect();
    crate::criteria::validate(&model.criteria, &counts).map_err(to_py)?;
    Ok((kinds, model))
}

/// Run `work` without the GIL with a tick it calls between steps, which
/// takes the GIL back every `TICK` to hear Ctrl-C and answers false once
/// it has: the work then stops with `Interrupted`, and the signal's own
/// error (KeyboardInterrupt) is raised.
fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&mut dyn FnMut() -> bool) -> crate::Result<T> + Send,
) -> PyResult<T> {
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
    match without_gil(py, || work(&mut tick))? {
        Ok(out) => Ok(out),
        Err(AnonError::Interrupted) => Err(failure
            .lock()
            .expect("signal lock")
            .take()
            .unwrap_or_else(|| to_py(AnonError::Interrupted))),
        Err(e) => Err(to_py(e)),
    }
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
    let (kinds, model) = setup(p, kinds, values, k, criteria)?;
    let out = interruptible(py, |tick| {
        crate::mondrian::mondrian(p, &kinds, &model, relaxed, tick)
    })?;
    outcome(p, &kinds, out)
}

/// Partition `problem`'s F0 by a recorded split tree (see
/// `PyMondrianOutcome`'s tree columns; `attribute`, `number`, `label` and
/// `level` as there, `test` "<=", ">", "under", or "" at the root), strict,
/// and check each partition for k and `criteria` (`coarsen`: undo the
/// splits whose parts fail them, see `crate::mondrian::tree::reapply`).
#[pyfunction]
#[pyo3(signature = (problem, kinds, values, k, parent, attribute, test, number, label, level, criteria = Vec::new(), coarsen = false))]
#[allow(clippy::too_many_arguments)]
pub fn mondrian_reapply(
    py: Python<'_>,
    problem: &PyProblem,
    kinds: Vec<String>,
    values: Vec<Option<Vec<f64>>>,
    k: u64,
    parent: Vec<Option<u32>>,
    attribute: Vec<Option<u32>>,
    test: Vec<String>,
    number: Vec<Option<f64>>,
    label: Vec<Option<String>>,
    level: Vec<Option<u8>>,
    criteria: Vec<PyCriterion>,
    coarsen: bool,
) -> PyResult<PyMondrianOutcome> {
    let p = &problem.inner;
    let (kinds, model) = setup(p, kinds, values, k, criteria)?;
    let n = parent.len();
    if [
        attribute.len(),
        test.len(),
        number.len(),
        label.len(),
        level.len(),
    ]
    .iter()
    .any(|&m| m != n)
    {
        return Err(ConfigError::new_err(
            "the recorded splits: one attribute, test, number, label and level per node",
        ));
    }
    let mut tests = Vec::with_capacity(n);
    for i in 0..n {
        let bad = |why: &str| ConfigError::new_err(format!("the recorded splits, node {i}: {why}"));
        if test[i].is_empty() {
            tests.push(None);
            continue;
        }
        let Some(attr) = attribute[i].map(|a| a as usize) else {
            return Err(bad("a test needs its attribute"));
        };
        let key = match (number[i], &label[i]) {
            (Some(x), None) => Key::Number(x),
            (None, Some(s)) => Key::Text(s.clone()),
            _ => Key::Number(f64::NAN),
        };
        let ordered = |key: Key| match key {
            Key::Number(x) if x.is_nan() => Err(bad("an ordered test needs a number or a label")),
            key => Ok(key),
        };
        tests.push(Some(match test[i].as_str() {
            "<=" => Recorded::AtMost {
                attr,
                key: ordered(key)?,
            },
            ">" => Recorded::Above {
                attr,
                key: ordered(key)?,
            },
            "under" => match (&label[i], level[i]) {
                (Some(l), Some(lv)) => Recorded::Under {
                    attr,
                    level: lv,
                    label: l.clone(),
                },
                _ => return Err(bad("an \"under\" test needs a label and a level")),
            },
            other => {
                return Err(bad(&format!(
                    "unknown test {other:?}; expected \"<=\", \">\" or \"under\""
                )))
            }
        }));
    }
    let out = interruptible(py, |tick| {
        crate::mondrian::tree::reapply(p, &kinds, &model, &parent, &tests, coarsen, tick)
    })?;
    outcome(p, &kinds, out)
}

/// The outcome's columns.
fn outcome(p: &Problem, kinds: &[Kind], out: Mondrian) -> PyResult<PyMondrianOutcome> {
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
    let tests = recorded(p, kinds, &out.tree);
    let mut tree_attribute = Vec::new();
    let mut tree_test = Vec::new();
    let mut tree_number = Vec::new();
    let mut tree_label = Vec::new();
    let mut tree_level = Vec::new();
    for t in &tests {
        let (attr, test, key, level) = match t {
            None => (None, "", None, None),
            Some(Recorded::AtMost { attr, key }) => (Some(*attr as u32), "<=", Some(key), None),
            Some(Recorded::Above { attr, key }) => (Some(*attr as u32), ">", Some(key), None),
            Some(Recorded::Under { attr, level, .. }) => {
                (Some(*attr as u32), "under", None, Some(*level))
            }
        };
        tree_attribute.push(attr);
        tree_test.push(test.to_string());
        tree_level.push(level);
        let (number, text) = match (key, t) {
            (Some(Key::Number(x)), _) => (Some(*x), None),
            (Some(Key::Text(s)), _) => (None, Some(s.clone())),
            (None, Some(Recorded::Under { label, .. })) => (None, Some(label.clone())),
            _ => (None, None),
        };
        tree_number.push(number);
        tree_label.push(text);
    }
    Ok(PyMondrianOutcome {
        tree_parent: out.tree.iter().map(|n| n.parent).collect(),
        tree_partition: out.tree.iter().map(|n| n.partition).collect(),
        tree_attribute,
        tree_test,
        tree_number,
        tree_label,
        tree_level,
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
