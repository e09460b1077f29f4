"""The DuckDB engine: F0 by one SQL aggregate over the relation; the release
as SQL over it, each quasi-identifier joined null-safely to a small
dimension table (native value -> label) and the suppressed groups removed
by a null-safe anti-join; its groups are counted in DuckDB and must be the
checked ones; then it is snapshotted into a temporary table, so that what is
handed back (a relation over that table) cannot change with its source."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import polars as pl

_names = itertools.count()


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _frame(rel: Any) -> pl.DataFrame:
    frame = pl.from_arrow(rel.to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


def schema(rel: Any) -> pl.Schema:
    return _frame(rel.limit(0)).schema


def group(rel: Any, columns: list[str], count: str, maps: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """F0: one aggregate; a column in `maps` is first joined null-safely to
    its table of representatives and grouped by them."""
    if not maps:
        cols = ", ".join(_q(c) for c in columns)
        agg = rel.aggregate(f"{cols}, count(*) AS {_q(count)}", cols)
        return _frame(agg).with_columns(pl.col(count).cast(pl.UInt64))
    tables = {c: _temp(rel, m.select("v", "r")) for c, m in maps.items()}
    joins = _joins(list(tables), list(tables.values()))
    keys = [f"m{list(tables).index(c)}.r" if c in tables else f"base.{_q(c)}" for c in columns]
    select = ", ".join(f"{key} AS {_q(c)}" for key, c in zip(keys, columns, strict=True))
    sql = f"SELECT {select}, count(*) AS {_q(count)} FROM base {joins} GROUP BY {', '.join(keys)}"
    try:
        frame = _frame(rel.query("base", sql))
    finally:
        for t in tables.values():
            rel.query("__polars_anon_base", f"DROP TABLE {t}")
    return frame.with_columns(pl.col(count).cast(pl.UInt64))


def marginals(rel: Any, columns: list[str], count: str) -> dict[str, pl.DataFrame]:
    return {c: group(rel, [c], count, {}) for c in columns}


def _joins(columns: list[str], tables: list[str]) -> str:
    """SQL joining each of `columns` of ``base`` null-safely to its small
    table (``m0``, ``m1``, ... by position), on the table's column ``v``."""
    return " ".join(
        f"LEFT JOIN {t} m{i} ON base.{_q(c)} IS NOT DISTINCT FROM m{i}.v"
        for i, (c, t) in enumerate(zip(columns, tables, strict=True))
    )


def _temp(rel: Any, frame: pl.DataFrame) -> str:
    """`frame` as a temporary table on `rel`'s connection."""
    name = f"__polars_anon_{next(_names)}"
    arrow = frame.to_arrow()  # noqa: F841 - read by DuckDB's replacement scan
    rel.query("__polars_anon_base", f"CREATE TEMP TABLE {name} AS SELECT * FROM arrow")
    return name


def release(
    rel: Any,
    qis: list[str],
    mappings: list[pl.DataFrame],
    generalized: list[bool],
    drop: pl.DataFrame,
    sensitive: list[str],
) -> tuple[Any, pl.DataFrame]:
    """The release of `rel`, snapshotted, and its groups (the released
    quasi-identifiers and sensitive values, native where not generalized,
    with their counts ``n``) counted in DuckDB on the snapshot.
    `mappings[i]` has columns ``v`` (native value) and ``l`` (label)."""
    tables = [_temp(rel, m) for m in mappings]
    joins = _joins(qis, tables)
    where = ""
    drop_table = None
    if drop.height:
        keyed = drop.rename({q: f"k{i}" for i, q in enumerate(qis)})
        drop_table = _temp(rel, keyed)
        match = " AND ".join(f"d.k{i} IS NOT DISTINCT FROM m{i}.l" for i in range(len(qis)))
        where = f"WHERE NOT EXISTS (SELECT 1 FROM {drop_table} d WHERE {match})"
    columns = rel.columns
    select = ", ".join(
        f"m{qis.index(c)}.l AS {_q(c)}"
        if c in qis and generalized[qis.index(c)]
        else f"base.{_q(c)}"
        for c in columns
    )
    out = f"__polars_anon_release_{next(_names)}"
    rel.query("base", f"CREATE TEMP TABLE {out} AS SELECT {select} FROM base {joins} {where}")
    for t in [*tables, *([drop_table] if drop_table else [])]:
        rel.query("__polars_anon_base", f"DROP TABLE {t}")
    released = rel.query("__polars_anon_base", f"SELECT * FROM {out}")
    # the groups of what is handed back, counted in DuckDB
    by = ", ".join(_q(c) for c in [*qis, *sensitive])
    groups = _frame(released.aggregate(f"{by}, count(*) AS n", by))
    return released, groups


def write(rel: Any, path: Path, separator: str) -> int:
    """The release as Parquet or CSV (by `path`'s suffix); its rows."""
    if path.suffix.lower() == ".parquet":
        rel.write_parquet(str(path))
    else:
        rel.write_csv(str(path), sep=separator)
    return int(rel.aggregate("count(*)").fetchall()[0][0])


def read(path: Path, separator: str, encoding: str) -> Any:
    """A CSV (with its separator) or Parquet file as a relation."""
    import duckdb

    if path.suffix.lower() == ".parquet":
        return duckdb.read_parquet(str(path))
    return duckdb.read_csv(str(path), sep=separator)
