//! `Problem`: a table's quasi-identifiers, hierarchies and F0 in the core, and
//! what can be asked of it (a node's metrics and groups, a search).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use polars_arrow::array::{Array, PrimitiveArray};
use polars_arrow::datatypes::ArrowDataType;
use pyo3::prelude::*;

use super::arrow;
use super::arrow::PyArrowColumn;
use super::criteria::{datasets, groups_of, populations, PyCriterion};
use super::error::{run, to_py, ConfigError};
use super::hierarchy::PyHierarchy;
use super::pool::{in_pool, on_pool};
use super::results::{PyMetricTable, PyNodeMetrics, PySearchOutcome};
use crate::check::{Checker, Model};
use crate::freq::{Engine, Problem};
use crate::hierarchy::Column;
use crate::metrics::metrics;
use crate::search::{Config, Searcher};

/// How often a running search takes the GIL back to hear Ctrl-C and report
/// progress: often enough to feel immediate, rarely enough to cost nothing.
const TICK: Duration = Duration::from_millis(200);

/// Nodes given to the core: lists of levels, or a search outcome's
/// anonymous nodes as the core holds them (thousands of lists cost
/// milliseconds each way).
#[derive(FromPyObject)]
pub enum NodesArg<'py> {
    Outcome(Bound<'py, PySearchOutcome>),
    Lists(Vec<Vec<u32>>),
}

#[pyclass(name = "Problem", module = "polars_anon._core", frozen)]
pub struct PyProblem {
    pub(super) inner: Problem,
}

impl PyProblem {
    /// The groups of one node: codes per attribute at its levels, and counts.
    fn node_groups(&self, py: Python<'_>, levels: Vec<u32>) -> PyResult<(Vec<Vec<u32>>, Vec<u64>)> {
        let levels = self.levels_u8(levels)?;
        run(py, || -> crate::Result<_> {
            let fs = self.inner.node_set(&levels, Engine::Auto)?;
            let codes = fs
                .attrs
                .iter()
                .map(|&a| fs.codes(a))
                .collect::<crate::Result<Vec<_>>>()?;
            Ok((codes, fs.counts()?.into_owned()))
        })
    }
    /// A checker of k and `criteria` on this problem.
    fn checker(&self, k: u64, criteria: Vec<PyCriterion>, engine: Engine) -> PyResult<Checker<'_>> {
        let model = Model {
            k,
            dataset: datasets(&criteria),
            population: populations(&criteria),
            criteria: groups_of(criteria),
        };
        Checker::new(&self.inner, model, engine).map_err(to_py)
    }
    pub(super) fn nodes_u8(&self, nodes: Vec<Vec<u32>>) -> PyResult<Vec<Vec<u8>>> {
        nodes.into_iter().map(|n| self.levels_u8(n)).collect()
    }
    /// The answer's columns for evaluated nodes (`evaluated[i]` of `nodes[i]`).
    fn metric_table<'a>(
        &self,
        nodes: impl Iterator<Item = &'a Vec<u8>>,
        evaluated: Vec<crate::check::Evaluated>,
        k: u64,
    ) -> PyMetricTable {
        let heights = self.inner.heights();
        let metrics = nodes
            .zip(&evaluated)
            .map(|(n, e)| metrics(n, &heights, &e.stats, self.inner.rows, k, &e.attribute_loss))
            .collect();
        let attribute_loss = evaluated.into_iter().map(|e| e.attribute_loss).collect();
        PyMetricTable::new(metrics, attribute_loss)
    }
    fn levels_u8(&self, levels: Vec<u32>) -> PyResult<Vec<u8>> {
        self.levels_unchecked(&levels)?;
        Ok(levels.into_iter().map(|l| l as u8).collect())
    }
    fn levels_unchecked(&self, levels: &[u32]) -> PyResult<()> {
        if levels.len() != self.inner.n_attrs() {
            return Err(ConfigError::new_err(format!(
                "{} levels for {} quasi-identifiers",
                levels.len(),
                self.inner.n_attrs()
            )));
        }
        for (i, (&l, h)) in levels.iter().zip(self.inner.heights()).enumerate() {
            if l > h as u32 {
                return Err(ConfigError::new_err(format!(
                    "level {l} for '{}' is above its hierarchy's height {h}",
                    self.inner.names[i]
                )));
            }
        }
        let node: Vec<u8> = levels.iter().map(|&l| l as u8).collect();
        self.inner.check_floors(&node).map_err(to_py)
    }
}

/// The columns, out of Python (before any work is done without the GIL).
pub(super) fn take_columns(codes: &[Bound<'_, PyAny>]) -> PyResult<Vec<Column>> {
    codes.iter().map(|c| arrow::take(c, 4)).collect()
}

/// Each column's leaf codes: its values encoded through its hierarchy
/// (nulls and unknown values are errors naming the column), or the codes it
/// holds; `counts`, when given, weigh the nulls in an error.
pub(super) fn encode_columns(
    names: &[String],
    hierarchies: &[PyHierarchy],
    taken: Vec<Column>,
    counts: Option<&Vec<u64>>,
) -> PyResult<Vec<Vec<u32>>> {
    let no_counts = Vec::new();
    let weights = counts.unwrap_or(&no_counts);
    let encode = |((c, n), h): ((&Column, &String), &PyHierarchy)| -> PyResult<Vec<u32>> {
        if counts.is_some() && c.len() != weights.len() {
            return Err(ConfigError::new_err(format!(
                "column '{n}' has {} values for {} counts",
                c.len(),
                weights.len()
            )));
        }
        if !c.holds_values() {
            return c.u32s(&format!("codes of '{n}'")).map_err(to_py);
        }
        let mut e = h.inner.encoder(n, c.len());
        c.encode(&mut e, weights).map_err(to_py)?;
        e.finish().map_err(to_py)
    };
    // a column a task on the pool, the largest hierarchies first (the
    // slowest to look up, ZIP codes against a handful of categories), so the
    // other core is not left idle while one of them finishes last
    let mut order: Vec<usize> = (0..taken.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(hierarchies[i].inner.domain_size(0)));
    let encoded = {
        use rayon::prelude::*;
        order
            .par_iter()
            .with_max_len(1)
            .map(|&i| encode(((&taken[i], &names[i]), &hierarchies[i])))
            .collect::<PyResult<Vec<_>>>()?
    };
    let mut columns = vec![Vec::new(); taken.len()];
    for (i, c) in order.into_iter().zip(encoded) {
        columns[i] = c;
    }
    Ok(columns)
}

#[pymethods]
impl PyProblem {
    /// `codes`: one column per attribute: its values as a string column (a
    /// Polars String Series or any Arrow string column) or a signed integer
    /// one (read as its decimal strings), encoded here through the
    /// attribute's hierarchy (nulls and unknown values are errors naming the
    /// column); or leaf codes as an unsigned Series (or any Arrow-exporting
    /// column) or little-endian u32 bytes. Rows may repeat: they are grouped.
    /// `counts`: one such column (bytes: little-endian u64), or `None`: each
    /// row counts once.
    /// `sensitive`: (name, values, codes column) per sensitive attribute.
    #[new]
    /// `floors`: (levels, k, max suppressed tuples) when each row stands for
    /// its values at those levels (see `freq/floors.rs`).
    #[pyo3(signature = (names, hierarchies, codes, counts, sensitive = Vec::new(), floors = None))]
    fn new(
        py: Python<'_>,
        names: Vec<String>,
        hierarchies: Vec<PyHierarchy>,
        codes: Vec<Bound<'_, PyAny>>,
        counts: Option<Bound<'_, PyAny>>,
        sensitive: Vec<(String, Vec<String>, Bound<'_, PyAny>)>,
        floors: Option<(Vec<u8>, u64, u64)>,
    ) -> PyResult<Self> {
        crate::alloc::mark();
        let built = build(py, names, hierarchies, codes, counts, sensitive, floors);
        // given back on an error too: what encoding held is freed either way
        py.detach(crate::alloc::give_back);
        Ok(PyProblem { inner: built? })
    }
    #[getter]
    fn rows(&self) -> u64 {
        self.inner.rows
    }
    #[getter]
    fn distinct(&self) -> usize {
        self.inner.base.rows()
    }
    /// A list of ints (a `Vec<u8>` would cross as bytes).
    #[getter]
    fn heights(&self) -> Vec<u32> {
        self.inner.heights().into_iter().map(u32::from).collect()
    }
    fn check_levels(&self, levels: Vec<u32>) -> PyResult<()> {
        self.levels_u8(levels).map(|_| ())
    }
    /// The leaf codes of quasi-identifier `attr` that the table holds, read
    /// off F0 (None when F0 was grouped at floors).
    fn present_leaves(&self, attr: usize) -> PyResult<Option<Vec<u32>>> {
        if attr >= self.inner.n_attrs() {
            return Err(ConfigError::new_err(format!(
                "attribute {attr} of {}",
                self.inner.n_attrs()
            )));
        }
        Ok(self.inner.present_leaves(attr))
    }
    /// Group statistics and metrics of one node.
    #[pyo3(signature = (levels, k, engine = "auto", criteria = Vec::new()))]
    fn evaluate(
        &self,
        py: Python<'_>,
        levels: Vec<u32>,
        k: u64,
        engine: &str,
        criteria: Vec<PyCriterion>,
    ) -> PyResult<PyNodeMetrics> {
        let levels = self.levels_u8(levels)?;
        let engine: Engine = engine.parse().map_err(to_py)?;
        let checker = self.checker(k, criteria, engine)?;
        let e = run(py, || checker.evaluate(&levels))?;
        let heights = self.inner.heights();
        let m = metrics(
            &levels,
            &heights,
            &e.stats,
            self.inner.rows,
            k,
            &e.attribute_loss,
        );
        Ok(PyNodeMetrics::new(&e.stats, &m))
    }
    /// The groups of one node: (codes per attribute at the node's levels, counts).
    fn groups(&self, py: Python<'_>, levels: Vec<u32>) -> PyResult<(Vec<Vec<u32>>, Vec<u64>)> {
        self.node_groups(py, levels)
    }
    /// `groups` as Arrow columns (codes per attribute, UInt32; counts,
    /// UInt64), which Polars reads without making a Python integer of each:
    /// a node of a million groups was nine million of them.
    fn group_columns(
        &self,
        py: Python<'_>,
        levels: Vec<u32>,
    ) -> PyResult<(Vec<PyArrowColumn>, PyArrowColumn)> {
        let (codes, counts) = self.node_groups(py, levels)?;
        let column =
            |name, dtype, array: Box<dyn Array>| PyArrowColumn::new(name, dtype, vec![array]);
        Ok((
            codes
                .into_iter()
                .map(|c| {
                    column(
                        "code",
                        ArrowDataType::UInt32,
                        PrimitiveArray::from_vec(c).boxed(),
                    )
                })
                .collect(),
            column(
                "count",
                ArrowDataType::UInt64,
                PrimitiveArray::from_vec(counts).boxed(),
            ),
        ))
    }
    /// QI codes (at the node's levels) of the groups the model suppresses.
    #[pyo3(signature = (levels, k, criteria = Vec::new()))]
    fn suppressed_groups(
        &self,
        py: Python<'_>,
        levels: Vec<u32>,
        k: u64,
        criteria: Vec<PyCriterion>,
    ) -> PyResult<Vec<Vec<u32>>> {
        let levels = self.levels_u8(levels)?;
        let checker = self.checker(k, criteria, Engine::Auto)?;
        run(py, || checker.suppressed_groups(&levels))
    }
    /// The groups the model suppresses at a node: their QI codes (at the
    /// node's levels, one list per group), tuples, and why each goes ("k",
    /// a group criterion's name, or the models of the whole release).
    #[pyo3(signature = (levels, k, criteria = Vec::new()))]
    #[allow(clippy::type_complexity)]
    fn suppression_reasons(
        &self,
        py: Python<'_>,
        levels: Vec<u32>,
        k: u64,
        criteria: Vec<PyCriterion>,
    ) -> PyResult<(Vec<Vec<u32>>, Vec<u64>, Vec<String>)> {
        let levels = self.levels_u8(levels)?;
        let checker = self.checker(k, criteria, Engine::Auto)?;
        let found = run(py, || checker.suppression_reasons(&levels))?;
        let mut codes = Vec::with_capacity(found.len());
        let mut tuples = Vec::with_capacity(found.len());
        let mut reasons = Vec::with_capacity(found.len());
        for (c, t, r) in found {
            codes.push(c);
            tuples.push(t);
            reasons.push(r);
        }
        Ok((codes, tuples, reasons))
    }
    /// Metrics of many nodes, as columns.
    #[pyo3(signature = (nodes, k, criteria = Vec::new()))]
    fn evaluate_many(
        &self,
        py: Python<'_>,
        nodes: Vec<Vec<u32>>,
        k: u64,
        criteria: Vec<PyCriterion>,
    ) -> PyResult<PyMetricTable> {
        let checker = self.checker(k, criteria, Engine::Auto)?;
        let nodes = self.nodes_u8(nodes)?;
        let evaluated = run(py, || checker.evaluate_many(&nodes))?;
        Ok(self.metric_table(nodes.iter(), evaluated, k))
    }
    /// The best of `nodes` (anonymous ones) by `metric` (one of the searches'
    /// objectives, the loss and the entropy optionally weighted), valuing
    /// them in order of its lower bound
    /// until none left can do better (`search::best`): the indices of the
    /// nodes valued and their figures, every node of the best value among
    /// them. `max_suppression`: the records the search that found them could
    /// suppress (none: the bound is then the value of the loss, Prec and the
    /// entropy); unknown, any.
    #[pyo3(signature = (nodes, k, criteria, metric, weights = None, max_suppression = None))]
    #[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
    fn best_of(
        &self,
        py: Python<'_>,
        nodes: NodesArg<'_>,
        k: u64,
        criteria: Vec<PyCriterion>,
        metric: &str,
        weights: Option<Vec<f64>>,
        max_suppression: Option<u64>,
    ) -> PyResult<(Vec<usize>, PyMetricTable)> {
        let objective: crate::search::Objective = metric.parse().map_err(to_py)?;
        let checker = self.checker(k, criteria, Engine::Auto)?;
        let (owned, outcome);
        let nodes: &[Vec<u8>] = match nodes {
            NodesArg::Lists(lists) => {
                owned = self.nodes_u8(lists)?;
                &owned
            }
            NodesArg::Outcome(given) => {
                outcome = given;
                let nodes = outcome.get().anonymous_nodes();
                for n in nodes {
                    self.levels_unchecked(&n.iter().map(|&l| u32::from(l)).collect::<Vec<_>>())?;
                }
                nodes
            }
        };
        let mut bounds = crate::search::Bounds::new(&self.inner, objective).map_err(to_py)?;
        if let Some(w) = weights {
            if w.len() != self.inner.n_attrs() {
                return Err(ConfigError::new_err(format!(
                    "{} weights for {} quasi-identifiers",
                    w.len(),
                    self.inner.n_attrs()
                )));
            }
            bounds = bounds.weighted(w);
        }
        let (valued, evaluated, values) = run(py, || {
            crate::search::best::best_of(
                &checker,
                &bounds,
                nodes,
                max_suppression.unwrap_or(u64::MAX),
            )
        })?;
        let table = self.metric_table(valued.iter().map(|&i| &nodes[i]), evaluated, k);
        Ok((valued, table.with_values(values)))
    }
    /// Run one search (`algorithm` and `variant` as in `ALGORITHMS`).
    #[pyo3(signature = (algorithm, variant, k, max_suppression, engine = "auto", trace = false, progress = None, criteria = Vec::new(), infer_projections = true, time_limit = None, memory_budget = crate::search::budget::DEFAULT_BYTES, metric = "loss", seed = 0))]
    #[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
    fn search(
        &self,
        py: Python<'_>,
        algorithm: &str,
        variant: Option<&str>,
        k: u64,
        max_suppression: u64,
        engine: &str,
        trace: bool,
        progress: Option<Py<PyAny>>,
        criteria: Vec<PyCriterion>,
        infer_projections: bool,
        time_limit: Option<f64>,
        memory_budget: u64,
        metric: &str,
        seed: u64,
    ) -> PyResult<PySearchOutcome> {
        let alg = crate::search::algorithm(algorithm, variant).map_err(to_py)?;
        let engine: Engine = engine.parse().map_err(to_py)?;
        let time_limit = match time_limit {
            None => None,
            Some(t) if t.is_finite() && t >= 0.0 => Some(Duration::from_secs_f64(t)),
            Some(t) => {
                return Err(ConfigError::new_err(format!(
                    "time_limit must be a number of seconds >= 0, got {t}"
                )))
            }
        };
        let config = Config {
            k,
            dataset: datasets(&criteria),
            population: populations(&criteria),
            criteria: groups_of(criteria),
            max_suppression,
            engine,
            trace,
            infer_projections,
            time_limit,
            memory_budget,
            objective: metric.parse().map_err(to_py)?,
            seed,
        };
        // Every TICK the search takes the GIL back for a moment: the progress
        // callable hears how many nodes were checked; Ctrl-C, heard by the
        // caller's thread while the search runs on the pool (`on_pool`),
        // stops it there.
        let failure: Arc<Mutex<Option<PyErr>>> = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen, stopped) = (failure.clone(), stop.clone());
        let start = Instant::now();
        let mut last = start;
        let tick = move |checked: u64, best: Option<f64>| -> bool {
            if stopped.load(Ordering::Relaxed) {
                return false;
            }
            if last.elapsed() < TICK {
                return true;
            }
            last = Instant::now();
            Python::attach(|py| {
                let result = py.check_signals().and_then(|_| match &progress {
                    Some(cb) => cb
                        .call1(py, (checked, start.elapsed().as_secs_f64(), best))
                        .map(|_| ()),
                    None => Ok(()),
                });
                match result {
                    Ok(()) => true,
                    Err(e) => {
                        // a Ctrl-C the caller's thread heard meanwhile stays
                        seen.lock().expect("progress lock").get_or_insert(e);
                        false
                    }
                }
            })
        };
        let searcher = Searcher::new(&self.inner, config)
            .map_err(to_py)?
            .with_progress(Box::new(tick));
        crate::alloc::mark();
        let run = on_pool(py, TICK, &stop, &failure, || {
            let out = searcher.run(&*alg);
            crate::alloc::give_back();
            out
        });
        let run = run?;
        // a signal heard as the search ended is raised all the same
        if let Some(e) = failure.lock().expect("progress lock").take() {
            return Err(e);
        }
        PySearchOutcome::new(py, run.map_err(to_py)?)
    }
}

/// `PyProblem::new`'s problem, built from what Python passed.
fn build(
    py: Python<'_>,
    names: Vec<String>,
    hierarchies: Vec<PyHierarchy>,
    codes: Vec<Bound<'_, PyAny>>,
    counts: Option<Bound<'_, PyAny>>,
    sensitive: Vec<(String, Vec<String>, Bound<'_, PyAny>)>,
    floors: Option<(Vec<u8>, u64, u64)>,
) -> PyResult<Problem> {
    // without counts every row weighs 1 (nulls are counted so while
    // encoding) and the counts are made once the rows are known
    let given = counts.is_some();
    let mut counts = match &counts {
        Some(c) => arrow::take(c, 8)?.uints().map_err(to_py)?,
        None => Vec::new(),
    };
    if codes.len() != names.len() || hierarchies.len() != names.len() {
        return Err(ConfigError::new_err(
            "one code column and one hierarchy per quasi-identifier",
        ));
    }
    let taken = take_columns(&codes)?;
    let sens = sensitive
        .into_iter()
        .map(|(n, v, c)| {
            let codes = arrow::take(&c, 4)?
                .u32s(&format!("codes of '{n}'"))
                .map_err(to_py)?;
            Ok((n, v, codes))
        })
        .collect::<PyResult<_>>()?;
    // encoding and grouping in one visit to the pool (see `in_pool`)
    let work = || -> PyResult<Problem> {
        let columns = encode_columns(&names, &hierarchies, taken, given.then_some(&counts))?;
        if !given {
            counts = crate::alloc::filled(columns.first().map_or(0, Vec::len), 1);
        }
        let hs = hierarchies.into_iter().map(|h| h.inner).collect();
        Problem::with_sensitive(names, hs, columns, sens, counts).map_err(to_py)
    };
    let mut inner = run(py, || Ok(in_pool(work)))??;
    if let Some((levels, k, max_suppressed)) = floors {
        inner
            .set_floors(crate::freq::Floors {
                levels,
                k,
                max_suppressed,
            })
            .map_err(to_py)?;
    }
    Ok(inner)
}
