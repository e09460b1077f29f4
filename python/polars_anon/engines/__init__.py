"""Where a table lives: Polars (the default), DuckDB or Spark, or nowhere
(a frequency set of counts). Only two steps touch the table (DESIGN.md):
F0, the distinct values of the quasi-identifiers with their counts, computed
where the data lives and brought back small; and the release, built there
from the chosen levels. Each engine is one module with ``schema`` (its
columns as a Polars schema), ``group`` (F0 as a Polars frame of native
values and counts, nulls kept as a group) and, where it holds rows,
``marginals``, ``release`` and ``write`` (a release as Parquet or CSV);
Polars groups and releases in `polars_anon.prepare` and
`polars_anon.release`, and writes here. The engine is picked from the
data's type (`engine_of`), or named with ``engine=``."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.inputs.counts import FrequencySet
from polars_anon.reports.render import one_of

# engine -> the prefix of the module its data's type comes from (one line
# per engine outside Polars); a table of any other type is read by Polars
PREFIXES = {"duckdb": "duckdb", "spark": "pyspark"}
ENGINES = ("polars", *PREFIXES, "counts")


def engine_of(data: Any, engine: str | None = None) -> str:
    """The engine of `data`, or `engine` after checking it fits."""
    if engine is not None and not isinstance(engine, str):
        raise ConfigError(f"engine must be a string, one of {list(ENGINES)}; got {engine!r:.60}")
    module = type(data).__module__
    if isinstance(data, FrequencySet):
        found = "counts"
    else:
        # DuckDB 1.4 names its classes' module "_duckdb"
        bare = module.lstrip("_")
        found = next((e for e, p in PREFIXES.items() if bare.startswith(p)), "polars")
    if engine not in (None, "auto") and engine != found:
        if engine not in ENGINES:
            raise ConfigError(f"unknown engine {engine!r}; expected {one_of(ENGINES)}")
        raise ConfigError(f"engine={engine!r} does not fit data of type {type(data).__name__}")
    return found


def module(engine: str) -> ModuleType:
    """The module of an engine."""
    if engine not in ENGINES:
        raise ConfigError(f"engine {engine!r} has no module")
    return importlib.import_module(f"polars_anon.engines.{engine}")


def schema(data: Any, engine: str) -> pl.Schema:
    """`data`'s columns and types on `engine`. On DuckDB and Spark a table
    with two names that differ only in case is refused: one name to their
    SQL (Spark's unless `spark.sql.caseSensitive`), DuckDB's release read a
    join's ``zip`` for its ``ZIP`` and gave a quasi-identifier's raw values
    under the other's name, and Spark fails on an ambiguous reference."""
    if engine in PREFIXES:
        seen: dict[str, str] = {}
        for c in data.columns:
            other = seen.get(c.casefold())
            seen[c.casefold()] = c
            if other is not None:
                alike = f"two columns named {c!r}" if other == c else f"columns {other!r} and {c!r}"
                raise ConfigError(
                    f"the table has {alike}, which {module(engine).NAME}'s SQL does not tell apart "
                    "(names differing only in case are one): rename one first"
                )
    return module(engine).schema(data)  # type: ignore[no-any-return]


def group(
    data: Any,
    engine: str,
    columns: list[str],
    count: str,
    maps: dict[str, pl.DataFrame] | None = None,
) -> pl.DataFrame:
    """F0 of `columns`: native values, nulls as a value, and `count` (UInt64);
    a column in `maps` grouped by its value's ``r`` there (``v`` -> ``r``,
    both native, every value of the column listed: see `prepare.floors`)."""
    return module(engine).group(data, columns, count, maps or {})  # type: ignore[no-any-return]


def marginals(data: Any, engine: str, columns: list[str], count: str) -> dict[str, pl.DataFrame]:
    """Each column's own distinct native values (nulls as a value) and
    `count` (UInt64), computed where the data lives."""
    return module(engine).marginals(data, columns, count)  # type: ignore[no-any-return]
