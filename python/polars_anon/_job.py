"""Job files: one TOML file says how a release is made (its input, the
quasi-identifiers and their hierarchies or builder specs, the model, the
search and the output), and every run writes the resolved job beside its
output: the chosen levels, the library's version and the checksums of what
it read and wrote. Running that file again on another input applies the same
levels, re-checked on the new data, instead of searching.

::

    [input]
    path = "patients.csv"          # relative to the job file
    separator = ","
    encoding = "utf8"

    [model]
    quasi_identifiers = ["age", "zip"]
    k = 5
    max_suppression = "1%"         # a count (300), a fraction (0.01) or a percentage
    criteria = [{ type = "distinct_l", l = 2, attribute = "diagnosis" }]

    [hierarchies.age]
    builder = "interval"
    widths = [5, 10, 20]

    [hierarchies.zip]
    path = "hierarchies/zip.csv"

    [search]
    algorithm = "incognito"
    preference = "min_loss"

    [output]
    path = "release.parquet"
"""

from __future__ import annotations

import codecs
import datetime
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon import _api, _criteria, engines
from polars_anon._core import ConfigError, Hierarchy, __version__
from polars_anon._criteria import Criterion
from polars_anon._frames import read_hierarchies
from polars_anon._results import CRITERIA, CheckReport
from polars_anon.hierarchy import from_dict

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the tests run 3.11
    import tomli as tomllib

# criterion type in a job file -> (class, its parameters in order)
CRITERION_TYPES: dict[str, tuple[type[Criterion], tuple[str, ...]]] = {
    "p_sensitive": (_criteria.PSensitive, ("p", "attribute")),
    "distinct_l": (_criteria.DistinctLDiversity, ("l", "attribute")),
    "entropy_l": (_criteria.EntropyLDiversity, ("l", "attribute")),
    "recursive_cl": (_criteria.RecursiveCLDiversity, ("c", "l", "attribute")),
    "t_closeness": (_criteria.TCloseness, ("t", "attribute", "distance")),
}


def suppression(value: Any) -> int | float:
    """A count of tuples (``300``) or a fraction of the rows (``0.01``, ``"1e-2"``,
    ``"1%"``)."""
    if isinstance(value, bool):
        raise ConfigError(f"max_suppression must be a count or a fraction, got {value!r}")
    if isinstance(value, (int, float)):
        return value
    t = str(value).strip()
    try:
        if t.endswith("%"):
            return float(t[:-1]) / 100
        if any(c in t for c in ".eE"):
            return float(t)
        return int(t)
    except ValueError:
        raise ConfigError(
            f"{value!r} is neither a count of tuples (300) nor a fraction of the rows "
            "(0.01, 1e-2, 1%)"
        ) from None


def criterion(spec: dict[str, Any]) -> Criterion:
    """The criterion a job file's ``{type = ..., ...}`` describes."""
    spec = dict(spec)
    kind = spec.pop("type", None)
    if kind not in CRITERION_TYPES:
        raise ConfigError(
            f"unknown criterion type {kind!r}; expected one of {sorted(CRITERION_TYPES)}"
        )
    cls, params = CRITERION_TYPES[kind]
    unknown = sorted(set(spec) - set(params))
    missing = [p for p in params if p not in spec and p != "distance"]
    if unknown or missing:
        raise ConfigError(
            f"criterion {kind} takes {list(params)}; unknown {unknown}, missing {missing}"
        )
    return cls(*[spec[p] for p in params if p in spec])


def criterion_spec(c: Criterion) -> dict[str, Any]:
    for kind, (cls, params) in CRITERION_TYPES.items():
        if type(c) is cls:
            return {"type": kind, **{p: getattr(c, p) for p in params}}
    raise ConfigError(f"{type(c).__name__} cannot be written to a job file")


def sha256(path: Path) -> str:
    """Of a file, or of a folder's files in name order (Spark writes parts)."""
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        with file.open("rb") as f:
            for block in iter(lambda f=f: f.read(1 << 20), b""):  # type: ignore[misc]
                h.update(block)
    return h.hexdigest()


def read_table(
    path: Path, separator: str = ",", encoding: str = "utf8", engine: str = "polars"
) -> Any:
    """A CSV (with its separator and encoding) or Parquet file: lazily with
    Polars, or as a DuckDB relation or Spark DataFrame (``engine``), so the
    table is read and grouped where that engine runs."""
    if not path.exists():
        raise ConfigError(f"cannot read {path}: no such file")
    parquet = path.suffix.lower() == ".parquet"
    if engine == "duckdb":
        import duckdb

        return (
            duckdb.read_parquet(str(path)) if parquet else duckdb.read_csv(str(path), sep=separator)
        )
    if engine == "spark":
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.getOrCreate()
        if parquet:
            return spark.read.parquet(str(path))
        charset = codecs.lookup(encoding).name.replace("iso8859", "iso-8859")
        return (
            spark.read.option("header", True)
            .option("sep", separator)
            .option("encoding", charset)
            .option("inferSchema", True)
            .csv(str(path))
        )
    if engine != "polars":
        raise ConfigError(f"unknown engine {engine!r}; expected polars, duckdb or spark")
    if path.is_dir():
        return pl.scan_parquet(path / "*.parquet")
    if parquet:
        return pl.scan_parquet(path)
    plain = encoding.lower().replace("-", "").replace("_", "")
    if plain == "utf8":
        return pl.scan_csv(path, separator=separator)
    if plain == "utf8lossy":
        return pl.scan_csv(path, separator=separator, encoding="utf8-lossy")
    try:
        text = path.read_bytes().decode(encoding)
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not {encoding}: {e}") from None
    return pl.read_csv(text.encode(), separator=separator).lazy()


def write_table(release: Any, path: Path, separator: str = ",") -> int:
    """Write a release (Polars, a DuckDB relation, a Spark DataFrame, which
    writes a folder of parts) as Parquet or CSV; its rows."""
    parquet = path.suffix.lower() == ".parquet"
    if isinstance(release, pl.LazyFrame):
        release = release.collect()
    if isinstance(release, pl.DataFrame):
        if parquet:
            release.write_parquet(path)
        else:
            release.write_csv(path, separator=separator)
        return release.height
    module = type(release).__module__
    if module.startswith("duckdb"):
        if parquet:
            release.write_parquet(str(path))
        else:
            release.write_csv(str(path), sep=separator)
        return int(release.aggregate("count(*)").fetchall()[0][0])
    writer = release.write.mode("overwrite")
    if parquet:
        writer.parquet(str(path))
    else:
        writer.option("header", True).option("sep", separator).csv(str(path))
    return int(release.count())


def hierarchy_source(column: str, file: str | Path, separator: str = ";") -> dict[str, Any]:
    """A job's entry for a hierarchy file: a builder spec if the file is one
    (JSON with a ``builder`` key), else the file (ARX CSV or hierarchy JSON)."""
    path = Path(file)
    if path.suffix.lower() == ".json" and path.is_file():
        text = path.read_text(encoding="utf8")
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError(f"hierarchy of '{column}': {path} is not JSON: {e}") from None
        if isinstance(doc, dict) and "builder" in doc:
            return from_dict(doc).to_dict()
    return {"path": str(path), "separator": separator}


def folder_sources(folder: Path, separator: str = ";") -> dict[str, dict[str, Any]]:
    """A folder of ``<column>.csv`` (or ARX's ``*_hierarchy_<column>.csv``) files
    as job entries, after reading them all once (a bad folder fails here)."""
    if not folder.is_dir():
        raise ConfigError(f"cannot read hierarchies from {folder}: no such folder")
    read_hierarchies(folder)
    return {
        f.stem.rsplit("_hierarchy_", 1)[-1]: {"path": str(f), "separator": separator}
        for f in sorted(folder.glob("*.csv"))
    }


def distinct_values(data: Any, column: str, what: str = "the data") -> pl.Series:
    """A column's distinct values, found where the data lives."""
    where = engines.engine_of(data)
    schema = data.collect_schema() if where == "polars" else engines.schema(data, where)
    if column not in schema:
        raise ConfigError(f"{what}: the data has no column '{column}'")
    if where == "polars":
        return data.select(pl.col(column).unique()).collect().get_column(column)  # type: ignore[no-any-return]
    return engines.group(data, where, [column], "__n").get_column(column)


def resolve_hierarchies(
    sources: dict[str, dict[str, Any]], data: pl.LazyFrame
) -> dict[str, Hierarchy]:
    """Each hierarchy read from its file or built from the data's column."""
    out = {}
    for col, h in sources.items():
        if "path" in h:
            path = Path(h["path"])
            if not path.is_file():
                raise ConfigError(f"hierarchy of '{col}': cannot read {path}: no such file")
            if path.suffix.lower() == ".json":
                out[col] = Hierarchy.from_json(path.read_text(encoding="utf8"))
            else:
                out[col] = Hierarchy.from_csv(path, h.get("separator", ";"))
        else:
            out[col] = from_dict(h).build(distinct_values(data, col, f"hierarchy of '{col}'"))
    return out


@dataclass
class Job:
    """A release's recipe (see the module doc for the file)."""

    input: Path
    quasi_identifiers: list[str]
    k: int
    output: Path
    hierarchies: dict[str, dict[str, Any]] = field(default_factory=dict)
    max_suppression: int | float = 0
    criteria: list[dict[str, Any]] = field(default_factory=list)
    algorithm: str = "incognito"
    variant: str | None = None
    preference: str = "min_loss"
    time_limit: float | None = None
    separator: str = ","
    encoding: str = "utf8"
    # where the table is read, grouped and released: polars, duckdb or spark
    engine: str = "polars"
    # from a previous run: apply these levels (re-checked) instead of searching
    levels: dict[str, int] | None = None

    @classmethod
    def from_toml(cls, path: str | Path) -> Job:
        """The job in a TOML file; its relative paths are relative to the file."""
        path = Path(path)
        try:
            doc = tomllib.loads(path.read_text(encoding="utf8"))
        except FileNotFoundError:
            raise ConfigError(f"cannot read job file {path}: no such file") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"job file {path} is not valid TOML: {e}") from None
        return cls.from_dict(doc, path.parent)

    @classmethod
    def from_dict(cls, doc: dict[str, Any], base: Path = Path()) -> Job:
        known = {"input", "model", "hierarchies", "search", "output", "result"}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise ConfigError(f"job file: unknown table(s) {unknown}; expected {sorted(known)}")

        def table(name: str) -> dict[str, Any]:
            t = doc.get(name, {})
            if not isinstance(t, dict):
                raise ConfigError(f"job file: [{name}] must be a table")
            return t

        def need(t: dict[str, Any], name: str, key: str) -> Any:
            if key not in t:
                raise ConfigError(f"job file: [{name}] needs {key}")
            return t[key]

        inp, model, search, out = table("input"), table("model"), table("search"), table("output")
        hierarchies = {}
        for col, h in table("hierarchies").items():
            if not isinstance(h, dict) or ("path" in h) == ("builder" in h):
                raise ConfigError(
                    f"job file: [hierarchies.{col}] needs either path = (an ARX CSV or JSON "
                    "file) or builder = (interval, date, masking, ordered)"
                )
            h = dict(h)
            h.pop("sha256", None)
            if "path" in h:
                h["path"] = str(base / h["path"])
            hierarchies[col] = h
        result = table("result")
        preference = search.get("preference", "min_loss")
        if preference not in CRITERIA:
            raise ConfigError(
                f"job file: unknown preference {preference!r}; expected one of {CRITERIA}"
            )
        return cls(
            input=base / need(inp, "input", "path"),
            separator=inp.get("separator", ","),
            encoding=inp.get("encoding", "utf8"),
            engine=inp.get("engine", "polars"),
            quasi_identifiers=list(need(model, "model", "quasi_identifiers")),
            k=need(model, "model", "k"),
            max_suppression=suppression(model.get("max_suppression", 0)),
            criteria=list(model.get("criteria", [])),
            hierarchies=hierarchies,
            algorithm=search.get("algorithm", "incognito"),
            variant=search.get("variant"),
            preference=preference,
            time_limit=search.get("time_limit"),
            output=base / need(out, "output", "path"),
            levels=dict(result["levels"]) if "levels" in result else None,
        )

    def resolve_hierarchies(self, data: pl.LazyFrame) -> dict[str, Hierarchy]:
        """Each hierarchy read from its file or built from the data's column."""
        return resolve_hierarchies(self.hierarchies, data)

    def run(self, write_job: bool = True, progress: bool = False) -> JobRun:
        """Read, search (or apply the recorded levels), write the release and
        the resolved job beside it (``<output>.job.toml``)."""
        data = read_table(self.input, self.separator, self.encoding, self.engine)
        hs = self.resolve_hierarchies(data)
        criteria = [criterion(c) for c in self.criteria]
        qis = self.quasi_identifiers
        if self.levels is None:
            result = _api.search(
                data,
                qis,
                hs,
                self.k,
                self.max_suppression,
                self.algorithm,
                self.variant,
                criteria=criteria,
                time_limit=self.time_limit,
                progress=progress,
            )
            levels = result.best(self.preference)
            searched = True
        else:
            unknown = sorted(set(self.levels) - set(qis))
            if unknown:
                raise ConfigError(
                    f"job file: [result] levels name unknown quasi-identifier(s) {unknown}"
                )
            levels, searched = dict(self.levels), False
        release = _api.generalize(
            data, hs, levels, self.k, self.max_suppression, qis, criteria=criteria
        )
        if isinstance(release, pl.LazyFrame):
            release = release.collect()
        report = _api.check(data, qis, self.k, hs, levels, self.max_suppression, criteria)
        if self.output.parent and not self.output.parent.is_dir():
            raise ConfigError(
                f"cannot write {self.output}: the folder {self.output.parent} does not exist"
            )
        written = write_table(release, self.output, self.separator)
        run = JobRun(self, levels, searched, report, written, Path(str(self.output) + ".job.toml"))
        if write_job:
            run.job_file.write_text(run.resolved_toml(), encoding="utf8")
        return run

    def to_dict(self, relative_to: Path | None = None) -> dict[str, Any]:
        def rel(p: Path | str) -> str:
            p = Path(p).resolve()
            if relative_to is not None:
                try:
                    return str(p.relative_to(relative_to.resolve()))
                except ValueError:
                    pass
            return str(p)

        hierarchies = {}
        for col, h in self.hierarchies.items():
            if "path" in h:
                h = {**h, "sha256": sha256(Path(h["path"])), "path": rel(h["path"])}
            else:
                # every parameter, defaults included: the spec as it was applied
                h = from_dict(h).to_dict()
            hierarchies[col] = h
        search: dict[str, Any] = {"algorithm": self.algorithm, "preference": self.preference}
        if self.variant is not None:
            search["variant"] = self.variant
        if self.time_limit is not None:
            search["time_limit"] = self.time_limit
        model: dict[str, Any] = {
            "quasi_identifiers": list(self.quasi_identifiers),
            "k": self.k,
            "max_suppression": self.max_suppression,
        }
        if self.criteria:
            model["criteria"] = [criterion_spec(criterion(c)) for c in self.criteria]
        doc: dict[str, Any] = {
            "input": {
                "path": rel(self.input),
                "separator": self.separator,
                "encoding": self.encoding,
                "engine": self.engine,
            },
            "model": model,
            "hierarchies": hierarchies,
            "search": search,
            "output": {"path": rel(self.output)},
        }
        return doc


@dataclass
class JobRun:
    """What a job's run did: the levels it released (searched or recorded),
    the report on them, the rows written and the resolved job file."""

    job: Job
    levels: dict[str, int]
    searched: bool
    report: CheckReport
    rows_released: int
    job_file: Path

    def resolved_toml(self) -> str:
        base = self.job_file.parent
        doc = self.job.to_dict(relative_to=base)
        doc["input"]["sha256"] = sha256(self.job.input)
        doc["output"]["sha256"] = sha256(self.job.output)
        doc["result"] = {
            "levels": dict(self.levels),
            "searched": self.searched,
            "rows_in": self.report.rows,
            "rows_released": self.rows_released,
            "suppressed": self.report.suppressed,
            "loss": self.report.loss,
            "library_version": __version__,
            "written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        head = (
            f"# The resolved job of {self.job.output.name}, written by polars-anon {__version__}.\n"
            "# Run it again (polars-anon anonymize --config THIS_FILE [DATA --out FILE]) to apply\n"
            "# the same levels, re-checked, to another input.\n"
        )
        return head + dumps(doc)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return (
            "{ "
            + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items() if x is not None)
            + " }"
        )
    raise ConfigError(f"cannot write {v!r} to a job file")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def dumps(doc: dict[str, Any]) -> str:
    """TOML for a job: top-level tables of scalars, lists and inline tables,
    and the hierarchies' sub-tables."""
    lines: list[str] = []
    for name, table in doc.items():
        if name == "hierarchies":
            for col, h in table.items():
                lines += ["", f"[hierarchies.{_key(col)}]"]
                lines += [f"{_key(k)} = {_value(v)}" for k, v in h.items() if v is not None]
            continue
        lines += ["", f"[{name}]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]
    return "\n".join(lines).lstrip("\n") + "\n"
