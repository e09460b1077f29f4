"""A job's hierarchies: each column's entry (an ARX CSV or hierarchy JSON
file, or a builder spec) and the hierarchy it resolves to over the data."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import ConfigError, Hierarchy, HierarchyError
from polars_anon.hierarchy import from_dict
from polars_anon.inputs.frames import fresh_name, misread
from polars_anon.inputs.hierarchies import column_of, read_hierarchies
from polars_anon.inputs.nulls import Nulls
from polars_anon.jobs import toml
from polars_anon.jobs.tables import sha256


def hierarchy_source(column: str, file: str | Path, separator: str = ";") -> dict[str, Any]:
    """A job's entry for a hierarchy file: a builder spec if the file is one
    (JSON with a ``builder`` key), else the file (ARX CSV or hierarchy JSON)."""
    path = Path(file)
    if path.suffix.lower() == ".json" and path.is_file():
        _, doc = _json_doc(column, path)
        if isinstance(doc, dict) and "builder" in doc:
            try:
                return from_dict(doc).to_dict()
            except ConfigError as e:
                raise ConfigError(f"hierarchy of '{column}' in {str(path)!r}: {e}") from None
    return {"path": str(path), "separator": separator}


def _json_doc(column: str, path: Path) -> tuple[str, Any]:
    """A hierarchy file's text and JSON document, its column and path named
    if it is not UTF-8 JSON."""
    try:
        text = path.read_bytes().decode("utf8")
        return text, json.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(
            f"hierarchy of '{column}': {str(path)!r} is not UTF-8 (JSON files are)"
        ) from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"hierarchy of '{column}': {str(path)!r} is not JSON: {e}") from None


def folder_sources(
    folder: Path, separator: str = ";", columns: Collection[str] | None = None
) -> dict[str, dict[str, Any]]:
    """A folder of ``<column>.csv`` (or ARX's ``*_hierarchy_<column>.csv``) files
    as job entries, those of `columns` if given (the folder may hold other
    CSV files), after reading them once (a bad file fails here)."""
    if not folder.is_dir():
        what = "it is a file, not a folder" if folder.exists() else "no such folder"
        raise ConfigError(f"cannot read hierarchies from {str(folder)!r}: {what}")
    read = read_hierarchies(folder, separator, columns)
    return {
        column: {"path": str(f), "separator": separator}
        for f in sorted(folder.glob("*.csv"))
        if (column := column_of(f, columns)) in read
    }


def schema_of(data: Any) -> pl.Schema:
    """The data's columns, where it lives."""
    where = engines.engine_of(data)
    return data.collect_schema() if where == "polars" else engines.schema(data, where)


def has_column(schema: pl.Schema, column: str, what: str | None = None) -> None:
    """Refuse a `column` the data lacks, naming it (after `what`, the
    entry that names it) and the data's columns."""
    if column not in schema:
        names = ", ".join(repr(c) for c in schema.names()[:30])
        more = ", ..." if len(schema) > 30 else ""
        head = f"{what}: " if what else ""
        hint = misread(schema.names())
        raise ConfigError(
            f"{head}the data has no column {column!r}; its columns: {names}{more}{hint}"
        )


def distinct_values(
    data: Any, column: str, what: str | None = None, nulls: Nulls = "error"
) -> pl.Series:
    """A column's distinct values, found where the data lives (nulls left
    out with ``nulls="value"``: the search places them); a float column's,
    one per text on Polars (which reads -0.0 and 0.0 apart, and whose
    unique takes them for one)."""
    where = engines.engine_of(data)
    schema = schema_of(data)
    has_column(schema, column, what)
    if where != "polars":
        values = engines.group(data, where, [column], "__n").get_column(column)
    else:
        c = pl.col(column)
        if schema[column].is_float():
            by = fresh_name("__polars_anon_text", schema.names())
            distinct = data.group_by(c.cast(pl.String).alias(by)).agg(c.first()).select(column)
        else:
            distinct = data.select(c.unique())
        values = distinct.collect(engine="streaming").get_column(column)
    return values.drop_nulls() if nulls == "value" else values


def resolve_hierarchies(
    sources: dict[str, dict[str, Any]], data: pl.LazyFrame, nulls: Nulls = "error"
) -> dict[str, Hierarchy]:
    """Each hierarchy read from its file or built from the data's column
    (its values but nulls, with ``nulls="value"``: the search places them)."""
    out = {}
    schema = schema_of(data) if sources else pl.Schema()
    for col, h in sources.items():
        has_column(schema, col, f"hierarchy of '{col}'")
        if "path" in h:
            path = Path(h["path"])
            if not path.is_file():
                what = "it is a folder, not a hierarchy file" if path.is_dir() else "no such file"
                raise ConfigError(f"hierarchy of '{col}': cannot read {path}: {what}")
            unchanged(col, path, h.get("sha256"))
            if path.suffix.lower() == ".json":
                out[col] = _json_file(col, path)
            else:
                out[col] = Hierarchy.from_csv(path, h.get("separator", ";"))
        else:
            try:
                spec = from_dict(h)
            except ConfigError as e:
                raise ConfigError(f"hierarchy of '{col}': {e}") from None
            values = distinct_values(data, col, f"hierarchy of '{col}'", nulls)
            out[col] = spec.build(values)
    return out


def _json_file(column: str, path: Path) -> Hierarchy:
    """A job's hierarchy JSON file: a hierarchy, not a builder's spec (which
    the job holds inline, as `hierarchy_source` writes it)."""
    text, doc = _json_doc(column, path)
    if isinstance(doc, dict) and "builder" in doc:
        spec = hierarchy_source(column, path)
        raise ConfigError(
            f"job file: [hierarchies.{column}] path {str(path)!r} is a builder's spec, not a "
            "hierarchy: write the hierarchy itself to a CSV file (hierarchy build ... --out "
            "FILE.csv), or the spec into the job in place of the path:\n"
            + toml.dumps({"hierarchies": {column: spec}})
        )
    try:
        return Hierarchy.from_json(text)
    except HierarchyError as e:
        raise HierarchyError(f"hierarchy of '{column}' in {str(path)!r}: {e}") from None


def unchanged(column: str, path: Path, recorded: str | None) -> None:
    """A job's hierarchy file, refused when its content changed since the
    job was resolved (its recorded checksum, if any), as a changed splits
    file is (`jobs.mondrian.read_splits`)."""
    if recorded is None:
        return
    current = sha256(path)
    if current != recorded:
        raise ConfigError(
            f"job file: [hierarchies.{column}] {str(path)!r} changed since the job was "
            f"resolved: its recorded sha256 ({recorded[:16]}...) and its current one "
            f"({current[:16]}...) differ; refusing to apply another hierarchy than the one "
            "recorded (to use the file as it is now, delete its sha256 from the job file)"
        )


# how a column is given a hierarchy: on the command line, in a job file
CLI_HOW = (
    "with --hierarchy {c}=FILE (an ARX CSV, a hierarchy JSON or a builder spec JSON) or a "
    "--hierarchies folder holding {c}.csv"
)
JOB_HOW = (
    "under [hierarchies.{c}] (path = an ARX CSV or JSON file, or builder = interval, date, "
    "masking or ordered)"
)


def refuse_levels_without_hierarchy(
    levels: dict[str, int] | None,
    quasi_identifiers: Collection[str],
    with_hierarchy: Collection[str],
    where: str,
    how: str = JOB_HOW,
) -> None:
    """A level above 0 for a quasi-identifier that has no hierarchy (none of
    `with_hierarchy`), refused naming it, `where` it was given (an option, a
    job file's key) and `how` it is given one (a quasi-identifier without a
    hierarchy is kept as it is, at level 0). A column that is no
    quasi-identifier is left to the check that names those."""
    for col, level in (levels or {}).items():
        if level > 0 and col in quasi_identifiers and col not in with_hierarchy:
            raise ConfigError(
                f"{where} {col}={level}: column {col!r} has no hierarchy, so it stays at "
                f"level 0 (its values as they are); give it one {how.format(c=col)}"
            )
