//! What crosses back to Python, typed: a node's metrics, the metrics of many
//! nodes as columns, and a search's outcome with its statistics and trace.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::metrics::GroupStats;
use crate::metrics::Metrics;
use crate::search::{IterationTrace, Outcome, Stats};

/// One node's groups under the model and its utility metrics.
#[pyclass(name = "NodeMetrics", module = "polars_anon._core", frozen, get_all)]
pub struct PyNodeMetrics {
    /// Groups of the node, released or not.
    groups: u64,
    /// Groups released (not suppressed).
    released_groups: u64,
    min_group_size: u64,
    suppressed: u64,
    height: u32,
    precision: f64,
    discernibility: f64,
    cavg: f64,
    distortion: f64,
    /// ARX's loss, unweighted.
    loss: f64,
}

impl PyNodeMetrics {
    pub(super) fn new(stats: &GroupStats, m: &Metrics) -> Self {
        PyNodeMetrics {
            groups: stats.groups,
            released_groups: stats.kept_groups,
            min_group_size: stats.min_group,
            suppressed: m.suppressed,
            height: m.height,
            precision: m.precision,
            discernibility: m.discernibility,
            cavg: m.cavg,
            distortion: m.distortion,
            loss: m.loss,
        }
    }
}

/// A column of a `MetricTable`.
#[derive(IntoPyObject)]
pub enum Values {
    Int(Vec<u64>),
    Float(Vec<f64>),
}

/// The metrics of many nodes, one column each: the columns of a search's
/// `anonymous` frame after the levels. The one list of these columns, their
/// order and their Polars dtypes.
#[pyclass(name = "MetricTable", module = "polars_anon._core", frozen)]
pub struct PyMetricTable {
    metrics: Vec<Metrics>,
    /// Per node, each attribute's mean cost under ARX's loss.
    attribute_loss: Vec<Vec<f64>>,
    /// Per node, the objective it was valued by (`Problem.best_of`).
    values: Option<Vec<f64>>,
}

impl PyMetricTable {
    pub(super) fn new(metrics: Vec<Metrics>, attribute_loss: Vec<Vec<f64>>) -> Self {
        PyMetricTable {
            metrics,
            attribute_loss,
            values: None,
        }
    }

    /// The table with each node's value under the objective it was valued by.
    pub(super) fn with_values(mut self, values: Vec<f64>) -> Self {
        self.values = Some(values);
        self
    }
}

#[pymethods]
impl PyMetricTable {
    /// (name, Polars dtype name, values) per column.
    fn columns(&self) -> Vec<(&'static str, &'static str, Values)> {
        let ints = |f: fn(&Metrics) -> u64| Values::Int(self.metrics.iter().map(f).collect());
        let floats = |f: fn(&Metrics) -> f64| Values::Float(self.metrics.iter().map(f).collect());
        vec![
            ("height", "Int32", ints(|m| m.height as u64)),
            ("suppressed", "UInt64", ints(|m| m.suppressed)),
            ("groups", "UInt64", ints(|m| m.groups)),
            ("precision", "Float64", floats(|m| m.precision)),
            ("discernibility", "Float64", floats(|m| m.discernibility)),
            ("cavg", "Float64", floats(|m| m.cavg)),
            ("distortion", "Float64", floats(|m| m.distortion)),
            ("loss", "Float64", floats(|m| m.loss)),
        ]
    }
    /// ARX's loss of each node with per-attribute `weights` (in quasi-identifier
    /// order): (prod_i (1 + l_i)^w_i)^(1 / sum_i w_i) - 1.
    fn weighted_loss(&self, weights: Vec<f64>) -> PyResult<Vec<f64>> {
        if let Some(l) = self.attribute_loss.first() {
            if l.len() != weights.len() {
                return Err(super::error::ConfigError::new_err(format!(
                    "{} weights for {} quasi-identifiers",
                    weights.len(),
                    l.len()
                )));
            }
        }
        Ok(self
            .attribute_loss
            .iter()
            .map(|l| crate::metrics::loss::loss(l, Some(&weights)))
            .collect())
    }
    /// Each node's value under the objective it was valued by, when it was.
    fn values(&self) -> Option<Vec<f64>> {
        self.values.clone()
    }
    fn __len__(&self) -> usize {
        self.metrics.len()
    }
}

/// What a search cost (see `Stats` in the core).
#[pyclass(name = "SearchStats", module = "polars_anon._core", frozen)]
pub struct PyStats {
    #[pyo3(get)]
    nodes_checked: u64,
    #[pyo3(get)]
    nodes_marked: u64,
    #[pyo3(get)]
    nodes_projected: u64,
    #[pyo3(get)]
    table_scans: u64,
    #[pyo3(get)]
    rows_scanned: u64,
    #[pyo3(get)]
    rows_rolled_up: u64,
    #[pyo3(get)]
    cuboids: u64,
    #[pyo3(get)]
    intermediate_sets: u64,
    #[pyo3(get)]
    candidates_per_iteration: Vec<u64>,
    phases: Vec<(String, f64)>,
}

#[pymethods]
impl PyStats {
    #[new]
    #[allow(clippy::too_many_arguments)] // one per counter
    fn new(
        nodes_checked: u64,
        nodes_marked: u64,
        nodes_projected: u64,
        table_scans: u64,
        rows_scanned: u64,
        rows_rolled_up: u64,
        cuboids: u64,
        intermediate_sets: u64,
        candidates_per_iteration: Vec<u64>,
        phases: Vec<(String, f64)>,
    ) -> Self {
        PyStats {
            nodes_checked,
            nodes_marked,
            nodes_projected,
            table_scans,
            rows_scanned,
            rows_rolled_up,
            cuboids,
            intermediate_sets,
            candidates_per_iteration,
            phases,
        }
    }
    /// Pickled by its fields.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, pyo3::types::PyType>,
        (
            u64,
            u64,
            u64,
            u64,
            u64,
            u64,
            u64,
            u64,
            Vec<u64>,
            Vec<(String, f64)>,
        ),
    ) {
        (
            py.get_type::<PyStats>(),
            (
                self.nodes_checked,
                self.nodes_marked,
                self.nodes_projected,
                self.table_scans,
                self.rows_scanned,
                self.rows_rolled_up,
                self.cuboids,
                self.intermediate_sets,
                self.candidates_per_iteration.clone(),
                self.phases.clone(),
            ),
        )
    }
    /// Milliseconds per phase, in the order they ran (`total` last).
    #[getter]
    fn phase_ms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, ms) in &self.phases {
            d.set_item(name, ms)?;
        }
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "SearchStats(nodes_checked={}, nodes_marked={}, nodes_projected={}, table_scans={}, \
             rows_scanned={}, rows_rolled_up={}, cuboids={}, intermediate_sets={})",
            self.nodes_checked,
            self.nodes_marked,
            self.nodes_projected,
            self.table_scans,
            self.rows_scanned,
            self.rows_rolled_up,
            self.cuboids,
            self.intermediate_sets
        )
    }
}

impl From<Stats> for PyStats {
    fn from(s: Stats) -> Self {
        PyStats {
            nodes_checked: s.nodes_checked,
            nodes_marked: s.nodes_marked,
            nodes_projected: s.nodes_projected,
            table_scans: s.table_scans,
            rows_scanned: s.rows_scanned,
            rows_rolled_up: s.rows_rolled_up,
            cuboids: s.cuboids,
            intermediate_sets: s.intermediate_sets,
            candidates_per_iteration: s.candidates_per_iteration,
            phases: s.phase_ms,
        }
    }
}

/// One graph a search walked: its nodes, edges and what it learnt of each.
#[pyclass(name = "IterationTrace", module = "polars_anon._core", frozen, get_all)]
pub struct PyIterationTrace {
    attrs: Vec<Vec<usize>>,
    levels: Vec<Vec<u32>>,
    root: Vec<bool>,
    checked: Vec<bool>,
    marked: Vec<bool>,
    anonymous: Vec<bool>,
    edges: Vec<(usize, usize)>,
}

#[pymethods]
impl PyIterationTrace {
    #[new]
    fn new(
        attrs: Vec<Vec<usize>>,
        levels: Vec<Vec<u32>>,
        root: Vec<bool>,
        checked: Vec<bool>,
        marked: Vec<bool>,
        anonymous: Vec<bool>,
        edges: Vec<(usize, usize)>,
    ) -> Self {
        PyIterationTrace {
            attrs,
            levels,
            root,
            checked,
            marked,
            anonymous,
            edges,
        }
    }
    /// Pickled by its fields.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, pyo3::types::PyType>,
        (
            Vec<Vec<usize>>,
            Vec<Vec<u32>>,
            Vec<bool>,
            Vec<bool>,
            Vec<bool>,
            Vec<bool>,
            Vec<(usize, usize)>,
        ),
    ) {
        (
            py.get_type::<PyIterationTrace>(),
            (
                self.attrs.clone(),
                self.levels.clone(),
                self.root.clone(),
                self.checked.clone(),
                self.marked.clone(),
                self.anonymous.clone(),
                self.edges.clone(),
            ),
        )
    }
}

impl From<IterationTrace> for PyIterationTrace {
    fn from(t: IterationTrace) -> Self {
        PyIterationTrace {
            attrs: t.attrs,
            levels: widen(t.levels),
            root: t.root,
            checked: t.checked,
            marked: t.marked,
            anonymous: t.anonymous,
            edges: t.edges,
        }
    }
}

/// Levels as lists of ints on the Python side (a `Vec<u8>` would cross as
/// `bytes`).
fn widen(nodes: Vec<Vec<u8>>) -> Vec<Vec<u32>> {
    nodes.iter().map(|n| widened(n)).collect()
}

fn widened(node: &[u8]) -> Vec<u32> {
    node.iter().map(|&l| u32::from(l)).collect()
}

/// A search's answer: the anonymous nodes (all of them when `complete`), the
/// minimal ones, the nodes found not anonymous (Samarati), whether it stopped
/// early, and its cost. The nodes stay the core's until asked for: at 500
/// attributes an anytime search's 30,000 nodes take a tenth of a second to
/// become lists, time its answer would spend past its limit.
#[pyclass(name = "SearchOutcome", module = "polars_anon._core", frozen)]
pub struct PySearchOutcome {
    anonymous: Vec<Vec<u8>>,
    /// Why the search stopped early (its time limit), if it did.
    #[pyo3(get)]
    stopped: Option<String>,
    minimal: Vec<Vec<u8>>,
    rejected: Vec<Vec<u8>>,
    #[pyo3(get)]
    complete: bool,
    #[pyo3(get)]
    proven_optimal: bool,
    #[pyo3(get)]
    stats: Py<PyStats>,
    #[pyo3(get)]
    trace: Vec<Py<PyIterationTrace>>,
}

#[pymethods]
impl PySearchOutcome {
    #[getter]
    fn anonymous(&self) -> Vec<Vec<u32>> {
        self.anonymous.iter().map(|n| widened(n)).collect()
    }
    #[getter]
    fn minimal(&self) -> Vec<Vec<u32>> {
        self.minimal.iter().map(|n| widened(n)).collect()
    }
    #[getter]
    fn rejected(&self) -> Vec<Vec<u32>> {
        self.rejected.iter().map(|n| widened(n)).collect()
    }
    /// The anonymous nodes at `indices` (those `Problem.best_of` valued).
    fn anonymous_at(&self, indices: Vec<usize>) -> PyResult<Vec<Vec<u32>>> {
        indices
            .iter()
            .map(|&i| match self.anonymous.get(i) {
                Some(n) => Ok(widened(n)),
                None => Err(pyo3::exceptions::PyIndexError::new_err(format!(
                    "no anonymous node {i} of {}",
                    self.anonymous.len()
                ))),
            })
            .collect()
    }
}

impl PySearchOutcome {
    /// The anonymous nodes as the core holds them.
    pub(super) fn anonymous_nodes(&self) -> &[Vec<u8>] {
        &self.anonymous
    }

    pub(super) fn new(py: Python<'_>, out: Outcome) -> PyResult<Self> {
        Ok(PySearchOutcome {
            anonymous: out.anonymous,
            stopped: out.stopped,
            minimal: out.minimal,
            rejected: out.rejected,
            complete: out.complete,
            proven_optimal: out.proven_optimal,
            stats: Py::new(py, PyStats::from(out.stats))?,
            trace: out
                .trace
                .into_iter()
                .map(|t| Py::new(py, PyIterationTrace::from(t)))
                .collect::<PyResult<_>>()?,
        })
    }
}
