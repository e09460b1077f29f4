"""Tables as they are handed in: a Polars frame, or anything with
``__arrow_c_stream__`` (pandas, pyarrow, DuckDB)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.hierarchies import similar
from polars_anon.reports.render import listing

SIGNED = (pl.Int8, pl.Int16, pl.Int32, pl.Int64)


def fresh_name(base: str, taken: Iterable[str]) -> str:
    """`base`, or `base` with a numeric suffix, so that it is none of `taken`:
    the library's own columns never collide with the user's."""
    names = set(taken)
    name, i = base, 0
    while name in names:
        i += 1
        name = f"{base}_{i}"
    return name


def unknown_columns(unknown: Sequence[str], columns: Sequence[str]) -> str:
    """The message for names the data has no column of: the columns it has,
    and for a name close to one of them (a case or a typing slip: ``Sex``
    for ``sex``, ``agee`` for ``age``) that column."""
    msg = f"{listing('unknown column', unknown)}; the data has {listing('column', columns)}"
    near = [(u, c) for u in unknown if (c := nearest(u, columns)) is not None]
    if near:
        msg += "; did you mean " + ", ".join(f"{c!r} for {u!r}" for u, c in near) + "?"
        if any("," in c for _, c in near):
            msg += " (on the command line a comma inside a name is written \\, in quotes)"
    return msg


def nearest(name: str, columns: Sequence[str]) -> str | None:
    """The column `name` is most likely a slip for: one equal to it but for
    case and punctuation, or one of them lengthened, else the closest by
    spelling (at least 80% alike), else none."""
    for c in columns:
        if similar(name, c) or similar(c, name):
            return c
    close = difflib.get_close_matches(name, list(columns), n=1, cutoff=0.8)
    return close[0] if close else None


def as_lazy(data: Any) -> pl.LazyFrame:
    """A LazyFrame over `data`: a Polars frame or anything with `__arrow_c_stream__`."""
    if isinstance(data, pl.LazyFrame):
        return data
    return as_frame(data).lazy()


def as_frame(data: Any) -> pl.DataFrame:
    """`data` in memory: a Polars DataFrame, or anything with `__arrow_c_stream__`."""
    if isinstance(data, pl.DataFrame):
        return data
    if hasattr(data, "__arrow_c_stream__"):
        return pl.DataFrame(data)
    raise ParameterError(
        "data must be a polars DataFrame or LazyFrame, a DuckDB relation, a Spark "
        "DataFrame, a FrequencySet, or an object exposing __arrow_c_stream__ (pandas, "
        f"pyarrow); got {type(data).__name__}"
    )


def check_groupable(schema: pl.Schema, columns: list[str], qis: list[str]) -> None:
    """Each of `columns` holds values a group can be made of, or an error
    naming it (`qis` tells a quasi-identifier from a sensitive attribute)."""
    for c in columns:
        if not groupable(schema[c]):
            role = "quasi-identifier" if c in qis else "sensitive attribute"
            if isinstance(schema[c], pl.Time):
                raise ConfigError(
                    f"column '{c}' is of type Time, which cannot be a {role} as it is: its "
                    "values are grouped as text, and Polars writes a time as text without its "
                    "fraction of a second (10:00:00.1 and 10:00:00.2 would be one value); cast "
                    f"it to text first, e.g. pl.col('{c}').dt.to_string('%H:%M:%S%.f')"
                )
            raise ConfigError(
                f"column '{c}' is of type {schema[c]}, which cannot be a {role}: its values "
                "must be strings, numbers, booleans or dates (cast or extract a value first"
                + (f", e.g. pl.col('{c}').dt.total_days())" if duration(schema[c]) else ")")
            )


def groupable(dtype: pl.DataType) -> bool:
    """Values a quasi-identifier or sensitive column can hold: they are grouped
    and compared as text (a duration has no text in Polars, and a time's
    leaves out its fraction of a second)."""
    return not (
        dtype.is_nested()
        or duration(dtype)
        or isinstance(dtype, (pl.Binary, pl.Object, pl.Null, pl.Time))
    )


def duration(dtype: pl.DataType) -> bool:
    return isinstance(dtype, pl.Duration)


def by_position(schema: pl.Schema) -> dict[str, pl.Expr]:
    """Each column of `schema` as an expression reading it by position: a
    user's column may be named `*` or `^...$`, which pl.col reads as every
    column or as a pattern."""
    return {c: pl.nth(i) for i, c in enumerate(schema.names())}


def zeros_folded(lazy: pl.LazyFrame, columns: Sequence[str]) -> pl.LazyFrame:
    """`lazy` with every -0.0 of its float `columns` made 0.0 (`one_zero`),
    as `prepare` reads a table: for the paths that read a table's rows
    again without it (a Mondrian release of a table given again, local
    recoding, a population)."""
    schema = lazy.collect_schema()
    floats = [c for c in columns if c in schema and schema[c].is_float()]
    return lazy.with_columns(one_zero(c, schema[c]) for c in floats) if floats else lazy


def one_zero(column: str, dtype: pl.DataType) -> pl.Expr:
    """`column` (a float) with every -0.0 made 0.0, other values as they are:
    one number, as every engine reads it (Polars' text tells them apart)."""
    c = pl.col(column)
    return pl.when(c == 0).then(pl.lit(0.0, dtype)).otherwise(c).alias(column)


def misread(columns: list[str]) -> str:
    """A hint for a table of one column whose name holds a separator: a
    CSV read with another separator than its own."""
    if len(columns) != 1:
        return ""
    found = [sep for sep in (";", "\t", "|", ",") if sep in columns[0]]
    if not found:
        return ""
    return f": was it read with the wrong separator (its header holds {found[0]!r})?"
