"""Nulls in the quasi-identifiers and sensitive attributes: an error naming
the column (``nulls="error"``), or a value of their own (``nulls="value"``)."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import polars as pl

from polars_anon._core import ConfigError, Hierarchy, MissingValueError
from polars_anon.reports.render import counted, one_of

# With nulls="value", a null quasi-identifier is this value (ARX's label for a
# missing value): a hierarchy row for it places it, else it generalizes
# straight to the top. Wherever quasi-identifiers are compared as strings
# (F0, the release's keys and its guard), null reads as this label.
NULL_LABEL = "NULL"
NULLS = ("error", "value")
Nulls: TypeAlias = 'Literal["error", "value"]'


def nulls_arg(value: Any, where: str = "nulls") -> Nulls:
    """`value` as a `Nulls` option, or an error naming `where`."""
    if value not in NULLS:
        raise ConfigError(f"{where} must be {one_of(NULLS)}, got {value!r}")
    return value  # type: ignore[no-any-return]


def text(column: pl.Expr) -> pl.Expr:
    """A quasi-identifier as the core sees it: text, null as NULL_LABEL (with
    nulls="error" a quasi-identifier has no nulls, and this changes nothing)."""
    return column.cast(pl.String).fill_null(NULL_LABEL)


def null_as_value(
    q: str, col: pl.Series, h: Hierarchy | None
) -> tuple[pl.Series, Hierarchy | None]:
    """`col` with its nulls as NULL_LABEL, and a hierarchy that has a leaf for
    it: the given one if it has a NULL row, else one extended by a row that
    takes NULL straight to the top."""
    as_text = col.cast(pl.String)
    if (as_text == NULL_LABEL).any():
        raise ConfigError(
            f"column '{q}' holds both nulls and the value {NULL_LABEL!r}, which nulls='value' "
            "reads nulls as; rename one of them first"
        )
    filled = as_text.fill_null(NULL_LABEL)
    if h is None or NULL_LABEL in h.leaves:
        return filled, h
    top = h.labels_at(h.height)[0]
    rows = [*h.rows, [NULL_LABEL] + [top] * h.height]
    return filled, Hierarchy.from_rows(rows, source=f"hierarchy of '{q}' with a row for nulls")


def no_nulls(col: pl.Series, counts: pl.Series | None, column: str, role: str) -> None:
    """`counts`: the tuples each row stands for (None: one each)."""
    if not col.null_count():
        return
    nulls = col.null_count() if counts is None else int(counts.filter(col.is_null()).sum())
    if nulls:
        them, their = ("it", "its") if nulls == 1 else ("them", "their")
        if role.startswith("a quasi-identifier"):
            way = "(a value the hierarchy knows: in the file, or by Polars' fill_null)"
            # (the command line says --nulls value for it: `cli.words`)
            way += ", or pass nulls='value'" if role == "a quasi-identifier" else ""
        else:
            way = (
                f"(a value of {their} own, such as '(missing)': in the file, or by Polars' "
                "fill_null; nulls='value' is for the quasi-identifiers)"
            )
        raise MissingValueError(
            f"column '{column}': {counted(nulls, 'null value')} in {role}; fill or drop "
            f"{them} first {way}"
        )
