"""A CSV read by DuckDB (the DuckDB engine's `read`, kept apart from
`engines.duckdb`): typed as Polars types it (`engines.polars.read`)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.engines.csv_blank import trailing_blank_lines
from polars_anon.engines.polars import INTEGER, LEADING_ZERO


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def schema(rel: Any) -> pl.Schema:
    """`rel`'s columns as Polars types."""
    frame = pl.from_arrow(rel.limit(0).to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame.schema


def _is_number(column: str, dtype: pl.DataType, sql_type: Any) -> str:
    """SQL for `engines.polars.is_number`: whether the text `column` writes
    a number of `dtype` (DuckDB's `sql_type`)."""
    if dtype.is_integer():
        return f"regexp_matches({column}, '{INTEGER}')"
    return f"try_cast({column} AS {sql_type}) IS NOT NULL"


def read(path: Path, separator: str, encoding: str, numbers: Collection[str] | None = None) -> Any:
    """A CSV (with its separator) or Parquet file as a relation. A CSV's
    columns are read as Polars reads them (`engines.polars.numbers_checked`):
    numbers (of `numbers` only, if given), unless one of a column's values
    has a leading zero or is not a number of the type DuckDB inferred from
    its sample; every other column as the text it is; a quoted empty field
    as an empty text, not null; trailing blank lines as no records
    (`engines.csv_blank.trailing_blank_lines`). `encoding` must be UTF-8 (or
    ASCII), all DuckDB reads."""
    import codecs

    import duckdb

    if path.suffix.lower() == ".parquet":
        return duckdb.read_parquet(str(path))
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r}") from None
    if codec not in ("utf-8", "utf-8-sig", "ascii"):
        # DuckDB's read_csv takes UTF-8 only
        raise ConfigError(
            f"cannot read {path} as {encoding}: the duckdb engine reads a CSV as UTF-8 only; "
            f"convert the file to UTF-8 (iconv -f {encoding} -t utf-8), or read it with the "
            "polars engine"
        )

    def csv(**options: Any) -> Any:
        return duckdb.read_csv(str(path), sep=separator, allow_quoted_nulls=False, **options)

    rel = csv()
    types = dict(zip(rel.columns, rel.types, strict=True))
    inferred = schema(rel)
    wanted = set(inferred.names() if numbers is None else numbers)
    numeric = [c for c, t in inferred.items() if t.is_numeric() and c in wanted]
    # dates and times as the text they are; with `numbers`, every column
    # but those (a Boolean, TRUE, too)
    text = numbers is not None
    kept = [c for c, t in inferred.items() if c not in numeric and (t.is_temporal() or text)]
    if numeric:
        texts = csv(all_varchar=True)
        found = texts.aggregate(
            ", ".join(
                f"bool_or(regexp_matches({_q(c)}, '{LEADING_ZERO}') "
                f"OR ({_q(c)} IS NOT NULL AND NOT {_is_number(_q(c), inferred[c], types[c])}))"
                for c in numeric
            )
        ).fetchall()[0]
        kept += [c for c, text in zip(numeric, found, strict=True) if text]
    rel = csv(dtype=dict.fromkeys(kept, "VARCHAR")) if kept else rel
    return _blank_lines_cut(rel, path)


def _blank_lines_cut(rel: Any, path: Path) -> Any:
    """`rel` read from `path` without the records DuckDB makes of its
    trailing blank lines (`engines.csv_blank.trailing_blank_lines`): it skips
    blank lines in a file of several columns, and reads each as a null in a
    file of one, so its last null records, as many as there are such lines
    (a line of text, even a quoted empty one, is never null there)."""
    blank = trailing_blank_lines(path)
    if not blank or len(rel.columns) != 1:
        return rel
    rows = rel.aggregate("count(*)").fetchall()[0][0]
    tail = rel.limit(blank, offset=max(rows - blank, 0))
    nulls = tail.aggregate(f"count(*) FILTER ({_q(rel.columns[0])} IS NULL)").fetchall()[0][0]
    return rel.limit(rows - blank) if rows >= blank and nulls == blank else rel
