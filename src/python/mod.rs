//! PyO3 bindings: the only place that knows Python. Built by maturin with the
//! `python` feature as `polars_anon._core`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

mod arrow;

use crate::criteria::{Criterion, Distance};
use crate::error::AnonError;
use crate::freq::{Engine, GroupStats, Model, Problem};
use crate::hierarchy::Hierarchy;
use crate::metrics::metrics;
use crate::search::{Algorithm, Config, Searcher};

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

fn to_py(e: AnonError) -> PyErr {
    let msg = e.to_string();
    match e {
        AnonError::Hierarchy(_) => HierarchyError::new_err(msg),
        AnonError::MissingValues { .. } | AnonError::NullValues { .. } => {
            MissingValueError::new_err(msg)
        }
        AnonError::Config(_) => ConfigError::new_err(msg),
        AnonError::NotAnonymous(_) => NotAnonymousError::new_err(msg),
        AnonError::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err(msg),
        AnonError::Polars(_) => PyAnonError::new_err(msg),
    }
}

#[pyclass(
    name = "Hierarchy",
    module = "polars_anon._core",
    frozen,
    eq,
    from_py_object
)]
#[derive(Clone, PartialEq)]
pub struct PyHierarchy {
    inner: Hierarchy,
}

#[pymethods]
impl PyHierarchy {
    #[staticmethod]
    #[pyo3(signature = (rows, source = None))]
    fn from_rows(rows: Vec<Vec<String>>, source: Option<String>) -> PyResult<Self> {
        let source = source.unwrap_or_else(|| "rows".into());
        Ok(PyHierarchy {
            inner: Hierarchy::from_rows(rows, &source).map_err(to_py)?,
        })
    }
    #[staticmethod]
    #[pyo3(signature = (path, sep = ";"))]
    fn from_csv(path: PathBuf, sep: &str) -> PyResult<Self> {
        Ok(PyHierarchy {
            inner: Hierarchy::from_csv_path(&path, sep_byte(sep)?).map_err(to_py)?,
        })
    }
    #[staticmethod]
    #[pyo3(signature = (text, sep = ";", source = None))]
    fn from_csv_text(text: &str, sep: &str, source: Option<String>) -> PyResult<Self> {
        let source = source.unwrap_or_else(|| "text".into());
        Ok(PyHierarchy {
            inner: Hierarchy::from_csv_str(text, sep_byte(sep)?, &source).map_err(to_py)?,
        })
    }
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        Ok(PyHierarchy {
            inner: Hierarchy::from_json(text, "json").map_err(to_py)?,
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
    #[getter]
    fn levels(&self) -> Vec<Vec<String>> {
        self.inner.levels().to_vec()
    }
    #[getter]
    fn leaves(&self) -> Vec<String> {
        self.inner.leaves().to_vec()
    }
    #[getter]
    fn rows(&self) -> Vec<Vec<String>> {
        self.inner.rows().to_vec()
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
    fn encode(&self, column: &str, values: Vec<Option<String>>) -> PyResult<Vec<u32>> {
        let v: Vec<Option<&str>> = values.iter().map(|s| s.as_deref()).collect();
        self.inner.encode(column, &v).map_err(to_py)
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

fn sep_byte(sep: &str) -> PyResult<u8> {
    match sep.as_bytes() {
        [b] => Ok(*b),
        _ => Err(ConfigError::new_err(format!(
            "sep must be one ASCII character, got {sep:?}"
        ))),
    }
}

#[pyclass(name = "Problem", module = "polars_anon._core", frozen)]
pub struct PyProblem {
    inner: Problem,
}

fn stats_dict<'py>(
    py: Python<'py>,
    p: &Problem,
    node: &[u8],
    st: &GroupStats,
    k: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let m = metrics(node, &p.heights(), st, p.rows, k);
    let d = PyDict::new(py);
    d.set_item("groups", st.groups)?;
    d.set_item("min_group_size", st.min_group)?;
    d.set_item("suppressed", st.suppressed)?;
    d.set_item("released_groups", st.kept_groups)?;
    d.set_item("height", m.height)?;
    d.set_item("precision", m.precision)?;
    d.set_item("discernibility", m.discernibility)?;
    d.set_item("cavg", m.cavg)?;
    d.set_item("distortion", m.distortion)?;
    Ok(d)
}

fn req<'py, T: for<'a> FromPyObject<'a, 'py>>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<T> {
    match d.get_item(key)? {
        Some(v) => v.extract::<T>().map_err(|_| {
            ConfigError::new_err(format!("criterion field {key:?} has the wrong type"))
        }),
        None => Err(ConfigError::new_err(format!(
            "criterion is missing {key:?}"
        ))),
    }
}

fn parse_criterion(d: &Bound<'_, PyDict>) -> PyResult<Criterion> {
    let kind: String = req(d, "kind")?;
    let attr: usize = req(d, "attr")?;
    Ok(match kind.as_str() {
        "p_sensitive" => Criterion::PSensitive {
            p: req(d, "p")?,
            attr,
        },
        "p_plus_sensitive" => Criterion::PPlusSensitive {
            p: req(d, "p")?,
            attr,
            category: req(d, "category")?,
        },
        "p_alpha_sensitive" => Criterion::PAlphaSensitive {
            p: req(d, "p")?,
            alpha: req(d, "alpha")?,
            attr,
            category: req(d, "category")?,
            categories: req(d, "categories")?,
        },
        "distinct_l" => Criterion::DistinctL {
            l: req(d, "l")?,
            attr,
        },
        "entropy_l" => Criterion::EntropyL {
            l: req(d, "l")?,
            attr,
        },
        "recursive_cl" => Criterion::RecursiveCL {
            c: req(d, "c")?,
            l: req(d, "l")?,
            attr,
        },
        "t_closeness" => {
            let distance: String = req(d, "distance")?;
            Criterion::TCloseness {
                t: req(d, "t")?,
                attr,
                distance: match distance.as_str() {
                    "equal" => Distance::Equal,
                    "ordered" => Distance::Ordered { rank: req(d, "rank")? },
                    "hierarchical" => Distance::Hierarchical {
                        leaf_of: req(d, "leaf_of")?,
                        parents: req(d, "parents")?,
                        height: req(d, "height")?,
                    },
                    other => {
                        return Err(ConfigError::new_err(format!(
                            "unknown distance {other:?}; expected \"equal\", \"ordered\" or \"hierarchical\""
                        )))
                    }
                },
            }
        }
        other => {
            return Err(ConfigError::new_err(format!(
                "unknown criterion kind {other:?}"
            )))
        }
    })
}

impl PyProblem {
    fn model(&self, k: u64, criteria: &[Bound<'_, PyDict>]) -> PyResult<Model> {
        let criteria = criteria
            .iter()
            .map(parse_criterion)
            .collect::<PyResult<Vec<_>>>()?;
        crate::criteria::validate(&criteria, self.inner.sensitive.len()).map_err(to_py)?;
        Ok(Model { k, criteria })
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
        Ok(())
    }
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
    #[pyo3(signature = (names, hierarchies, codes, counts, sensitive = Vec::new()))]
    fn new(
        py: Python<'_>,
        names: Vec<String>,
        hierarchies: Vec<PyHierarchy>,
        codes: Vec<Bound<'_, PyAny>>,
        counts: Option<Bound<'_, PyAny>>,
        sensitive: Vec<(String, Vec<String>, Bound<'_, PyAny>)>,
    ) -> PyResult<Self> {
        // without counts every row weighs 1 (nulls are counted so while
        // encoding) and the counts are made once the rows are known
        let given = counts.is_some();
        let mut counts = match &counts {
            Some(c) => arrow::column(c, 8)?.0,
            None => Vec::new(),
        };
        if codes.len() != names.len() || hierarchies.len() != names.len() {
            return Err(ConfigError::new_err(
                "one code column and one hierarchy per quasi-identifier",
            ));
        }
        // the columns leave Python first; then each is decoded and encoded
        // on the pool (measured on Adult's 9 columns of 30,162 rows: ~4 ms
        // on one thread)
        let taken = codes
            .iter()
            .map(|c| arrow::take(c, 4))
            .collect::<PyResult<Vec<_>>>()?;
        let encode = |((c, n), h): ((&arrow::Taken, &String), &PyHierarchy)| -> PyResult<Vec<u32>> {
            let mut e = h.inner.encoder(n, c.len());
            match c.decode(Some((&mut e, &counts)))? {
                Some(codes) => codes.u32s(&format!("codes of '{n}'")),
                None => e.finish().map_err(to_py),
            }
        };
        let columns = py.detach(|| {
            use rayon::prelude::*;
            taken
                .par_iter()
                .zip(names.par_iter())
                .zip(hierarchies.par_iter())
                .with_max_len(1)
                .map(encode)
                .collect::<PyResult<Vec<_>>>()
        })?;
        drop(taken);
        if !given {
            counts = vec![1; columns.first().map_or(0, Vec::len)];
        }
        let codes = columns;
        let hs = hierarchies.into_iter().map(|h| h.inner).collect();
        let sens = sensitive
            .into_iter()
            .map(|(n, v, c)| {
                let codes = arrow::column(&c, 4)?.u32s(&format!("codes of '{n}'"))?;
                Ok((n, v, codes))
            })
            .collect::<PyResult<_>>()?;
        Ok(PyProblem {
            inner: Problem::with_sensitive(names, hs, codes, sens, counts).map_err(to_py)?,
        })
    }
    #[getter]
    fn rows(&self) -> u64 {
        self.inner.rows
    }
    #[getter]
    fn distinct(&self) -> usize {
        self.inner.base.rows()
    }
    #[getter]
    fn heights(&self) -> Vec<u8> {
        self.inner.heights()
    }
    fn check_levels(&self, levels: Vec<u32>) -> PyResult<()> {
        self.levels_u8(levels).map(|_| ())
    }
    /// Group statistics and metrics of one node.
    #[pyo3(signature = (levels, k, engine = "auto", criteria = Vec::new()))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        levels: Vec<u32>,
        k: u64,
        engine: &str,
        criteria: Vec<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let levels = self.levels_u8(levels)?;
        let engine: Engine = engine.parse().map_err(to_py)?;
        let model = self.model(k, &criteria)?;
        let st = py
            .detach(|| self.inner.node_stats(&levels, &model, engine))
            .map_err(to_py)?;
        stats_dict(py, &self.inner, &levels, &st, k)
    }
    /// The groups of one node: (codes per attribute at the node's levels, counts).
    fn groups(&self, py: Python<'_>, levels: Vec<u32>) -> PyResult<(Vec<Vec<u32>>, Vec<u64>)> {
        let levels = self.levels_u8(levels)?;
        py.detach(|| -> crate::Result<_> {
            let fs = self.inner.node_set(&levels, Engine::Auto)?;
            let codes = fs
                .attrs
                .iter()
                .map(|&a| fs.codes(a))
                .collect::<crate::Result<Vec<_>>>()?;
            Ok((codes, fs.counts()?.into_owned()))
        })
        .map_err(to_py)
    }
    /// QI codes (at the node's levels) of the groups the model suppresses.
    #[pyo3(signature = (levels, k, criteria = Vec::new()))]
    fn suppressed_groups<'py>(
        &self,
        py: Python<'py>,
        levels: Vec<u32>,
        k: u64,
        criteria: Vec<Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Vec<u32>>> {
        let levels = self.levels_u8(levels)?;
        let model = self.model(k, &criteria)?;
        py.detach(|| self.inner.suppressed_groups(&levels, &model))
            .map_err(to_py)
    }
    /// Metrics of many nodes, as columns.
    #[pyo3(signature = (nodes, k, criteria = Vec::new()))]
    fn evaluate_many<'py>(
        &self,
        py: Python<'py>,
        nodes: Vec<Vec<u32>>,
        k: u64,
        criteria: Vec<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let model = self.model(k, &criteria)?;
        let nodes = nodes
            .into_iter()
            .map(|n| self.levels_u8(n))
            .collect::<PyResult<Vec<_>>>()?;
        let stats = py
            .detach(|| self.inner.stats_many(&nodes, &model, Engine::Auto))
            .map_err(to_py)?;
        let heights = self.inner.heights();
        let ms: Vec<_> = nodes
            .iter()
            .zip(&stats)
            .map(|(n, s)| metrics(n, &heights, s, self.inner.rows, k))
            .collect();
        let d = PyDict::new(py);
        d.set_item("height", ms.iter().map(|m| m.height).collect::<Vec<_>>())?;
        d.set_item(
            "suppressed",
            ms.iter().map(|m| m.suppressed).collect::<Vec<_>>(),
        )?;
        d.set_item("groups", ms.iter().map(|m| m.groups).collect::<Vec<_>>())?;
        d.set_item(
            "precision",
            ms.iter().map(|m| m.precision).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "discernibility",
            ms.iter().map(|m| m.discernibility).collect::<Vec<_>>(),
        )?;
        d.set_item("cavg", ms.iter().map(|m| m.cavg).collect::<Vec<_>>())?;
        d.set_item(
            "distortion",
            ms.iter().map(|m| m.distortion).collect::<Vec<_>>(),
        )?;
        Ok(d)
    }
    /// Run one search; returns plain Python data the package wraps.
    #[pyo3(signature = (algorithm, variant, k, max_suppression, engine = "auto", trace = false, progress = None, criteria = Vec::new(), infer_projections = true))]
    #[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
    fn search<'py>(
        &self,
        py: Python<'py>,
        algorithm: &str,
        variant: Option<&str>,
        k: u64,
        max_suppression: u64,
        engine: &str,
        trace: bool,
        progress: Option<Py<PyAny>>,
        criteria: Vec<Bound<'py, PyDict>>,
        infer_projections: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let model = self.model(k, &criteria)?;
        let alg = Algorithm::parse(algorithm, variant).map_err(to_py)?;
        let engine: Engine = engine.parse().map_err(to_py)?;
        let config = Config {
            k,
            criteria: model.criteria,
            max_suppression,
            engine,
            trace,
            infer_projections,
        };
        // Every 200 ms the search takes the GIL back for a moment: Ctrl-C stops
        // it, and the progress callable hears how many nodes were checked.
        let failure: Arc<Mutex<Option<PyErr>>> = Arc::new(Mutex::new(None));
        let seen = failure.clone();
        let start = Instant::now();
        let mut last = start;
        let tick = move |checked: u64| -> bool {
            if last.elapsed() < Duration::from_millis(200) {
                return true;
            }
            last = Instant::now();
            Python::attach(|py| {
                let result = py.check_signals().and_then(|_| match &progress {
                    Some(cb) => cb
                        .call1(py, (checked, start.elapsed().as_secs_f64()))
                        .map(|_| ()),
                    None => Ok(()),
                });
                match result {
                    Ok(()) => true,
                    Err(e) => {
                        *seen.lock().expect("progress lock") = Some(e);
                        false
                    }
                }
            })
        };
        let searcher = Searcher::new(&self.inner, config)
            .map_err(to_py)?
            .with_progress(Box::new(tick));
        let out = match py.detach(|| searcher.run(alg)) {
            Ok(out) => out,
            Err(AnonError::Interrupted) => {
                return Err(failure
                    .lock()
                    .expect("progress lock")
                    .take()
                    .unwrap_or_else(|| to_py(AnonError::Interrupted)))
            }
            Err(e) => return Err(to_py(e)),
        };
        let d = PyDict::new(py);
        d.set_item("anonymous", &out.anonymous)?;
        d.set_item("minimal", &out.minimal)?;
        d.set_item("rejected", &out.rejected)?;
        d.set_item("complete", out.complete)?;
        let s = PyDict::new(py);
        s.set_item("nodes_checked", out.stats.nodes_checked)?;
        s.set_item("nodes_marked", out.stats.nodes_marked)?;
        s.set_item("nodes_projected", out.stats.nodes_projected)?;
        s.set_item("table_scans", out.stats.table_scans)?;
        s.set_item("rows_scanned", out.stats.rows_scanned)?;
        s.set_item("rows_rolled_up", out.stats.rows_rolled_up)?;
        s.set_item("cuboids", out.stats.cuboids)?;
        s.set_item("intermediate_sets", out.stats.intermediate_sets)?;
        s.set_item(
            "candidates_per_iteration",
            &out.stats.candidates_per_iteration,
        )?;
        let phases = PyDict::new(py);
        for (name, ms) in &out.stats.phase_ms {
            phases.set_item(name, ms)?;
        }
        s.set_item("phase_ms", phases)?;
        d.set_item("stats", s)?;
        let trace = PyList::empty(py);
        for it in &out.trace {
            let t = PyDict::new(py);
            t.set_item("attrs", &it.attrs)?;
            t.set_item("levels", &it.levels)?;
            t.set_item("root", &it.root)?;
            t.set_item("checked", &it.checked)?;
            t.set_item("marked", &it.marked)?;
            t.set_item("anonymous", &it.anonymous)?;
            t.set_item("edges", &it.edges)?;
            trace.append(t)?;
        }
        d.set_item("trace", trace)?;
        Ok(d)
    }
}

/// Sun et al.'s top-down local recoding over individual tuples.
/// Returns (levels per attribute as bytes, codes per attribute, groups, distortion).
#[pyfunction]
#[pyo3(signature = (hierarchies, qi, sensitive, globals, k, criteria))]
#[allow(clippy::type_complexity)]
fn localpk<'py>(
    py: Python<'py>,
    hierarchies: Vec<PyHierarchy>,
    qi: Vec<Bound<'py, PyAny>>,
    sensitive: Vec<Bound<'py, PyAny>>,
    globals: Vec<Vec<f64>>,
    k: u64,
    criteria: Vec<Bound<'py, PyDict>>,
) -> PyResult<(Vec<Vec<u8>>, Vec<Vec<u32>>, usize, f64)> {
    let hs: Vec<Hierarchy> = hierarchies.into_iter().map(|h| h.inner).collect();
    let qi: Vec<Vec<u32>> = qi
        .iter()
        .map(|c| arrow::column(c, 4)?.u32s("quasi-identifier codes"))
        .collect::<PyResult<_>>()?;
    let sensitive: Vec<Vec<u32>> = sensitive
        .iter()
        .map(|c| arrow::column(c, 4)?.u32s("sensitive codes"))
        .collect::<PyResult<_>>()?;
    for (a, (h, col)) in hs.iter().zip(&qi).enumerate() {
        if col.iter().any(|&c| c as usize >= h.domain_size(0)) {
            return Err(ConfigError::new_err(format!(
                "codes of attribute #{a} out of range"
            )));
        }
    }
    let criteria = criteria
        .iter()
        .map(parse_criterion)
        .collect::<PyResult<Vec<_>>>()?;
    crate::criteria::validate(&criteria, sensitive.len()).map_err(to_py)?;
    let model = Model { k, criteria };
    let out = py
        .detach(|| {
            crate::local::localpk(
                &crate::local::Tuples {
                    hierarchies: &hs,
                    qi: &qi,
                    sensitive: &sensitive,
                    global: &globals,
                },
                &model,
            )
        })
        .map_err(to_py)?;
    Ok((out.levels, out.codes, out.groups, out.distortion))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(localpk, m)?)?;
    m.add_class::<PyHierarchy>()?;
    m.add_class::<PyProblem>()?;
    m.add("AnonError", py.get_type::<PyAnonError>())?;
    m.add("HierarchyError", py.get_type::<HierarchyError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("MissingValueError", py.get_type::<MissingValueError>())?;
    m.add("NotAnonymousError", py.get_type::<NotAnonymousError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
