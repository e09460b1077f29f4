"""The step from values to the core's codes: a column as u32 codes, and the
core problem built with a hint when a value misses its hierarchy only by
its Unicode form."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import polars as pl

from polars_anon._core import Hierarchy, MissingValueError, Problem
from polars_anon.inputs.nulls import NULL_LABEL

T = TypeVar("T")


def hinted(
    table: Mapping[str, pl.Series],
    hs: Mapping[str, Hierarchy],
    qis: list[str],
    *args: Any,
) -> Problem:
    """``Problem(*args)`` over `table`'s columns `qis`; a value missing from a
    hierarchy in another Unicode form is reported with a hint to normalize
    (see `_normalization_hint`)."""
    return with_hint(table, hs, qis, lambda: Problem(*args))


def with_hint(
    table: Mapping[str, pl.Series],
    hs: Mapping[str, Hierarchy],
    qis: list[str],
    make: Callable[[], T],
    note: str = "",
) -> T:
    """``make()``, which encodes `table`'s columns `qis`; a value missing from
    a hierarchy in another Unicode form is reported with a hint to normalize
    (see `_normalization_hint`), and `note` is added to any missing value's
    error."""
    try:
        return make()
    except MissingValueError as e:
        hint = (
            _normalization_hint(table, hs, qis)
            or _zone_hint(table, hs, qis)
            or _midnight_hint(table, hs, qis)
            or _spelling_hint(table, hs, qis)
        )
        if hint or note:
            raise MissingValueError(f"{e}{note}" + (f"; {hint}" if hint else "")) from None
        raise


def _missing(
    table: Mapping[str, pl.Series], hs: Mapping[str, Hierarchy], qis: list[str]
) -> Iterator[tuple[str, Hierarchy, pl.Series]]:
    """Each quasi-identifier given a hierarchy, with its distinct texts that
    are no leaf of it, when there are any (the hints' subject; nulls read
    as a value are no misspelt leaf)."""
    for q in qis:
        h = hs.get(q)
        if h is None:
            continue
        text = table[q].drop_nulls().cast(pl.String).unique()
        missing = text.filter(text.is_in(h.leaves).not_() & (text != NULL_LABEL))
        if not missing.is_empty():
            yield q, h, missing


def _normalization_hint(
    table: Mapping[str, pl.Series], hs: Mapping[str, Hierarchy], qis: list[str]
) -> str:
    """When values missing from a hierarchy are there in another Unicode form
    (NFC against NFD, say), say so: they look the same and differ by bytes."""
    for q, h, missing in _missing(table, hs, qis):
        normal = {unicodedata.normalize("NFC", v) for v in h.leaves}
        for v in missing.to_list():
            if unicodedata.normalize("NFC", v) in normal:
                return (
                    f"column '{q}': {v!r} is in its hierarchy in another Unicode normalization "
                    "form (the same letters as other bytes); normalize both, e.g. "
                    "pl.col(c).str.normalize('NFC') and the hierarchy's labels"
                )
    return ""


def _zone_hint(table: Mapping[str, pl.Series], hs: Mapping[str, Hierarchy], qis: list[str]) -> str:
    """When a column's date-times with an offset (its text) are in its
    hierarchy as the same instants at another offset (DuckDB and Spark give
    zoned date-times in UTC, or in the session's zone), say so."""

    def instants(texts: pl.Series) -> pl.Series:
        return texts.str.to_datetime(ZONED, time_zone="UTC", strict=False)

    for q, h, missing in _missing(table, hs, qis):
        at = instants(missing)
        if at.null_count():
            continue
        if at.is_in(instants(pl.Series(h.leaves)).drop_nulls().implode()).all():
            return (
                f"column '{q}' holds date-times that its hierarchy names as the same instants "
                f"at another offset ({missing[0]!r}): DuckDB and Spark give zoned date-times in "
                "UTC or their session's zone; build the hierarchy from this table, or convert "
                "the column to the hierarchy's zone first"
            )
    return ""


# a day's midnight as a date-time's text, with any fraction of zeros and offset
MIDNIGHT = r"^(\d{4}-\d{2}-\d{2})[ T]00:00:00(?:\.0+)?(?:Z|[+-]\d{2}:?\d{2})?$"


def _midnight_hint(
    table: Mapping[str, pl.Series], hs: Mapping[str, Hierarchy], qis: list[str]
) -> str:
    """When a column's date-times are all at midnight and their days are the
    hierarchy's leaves, say so: a date column read through pandas (which has
    no date type) arrives as date-times."""
    for q, h, missing in _missing(table, hs, qis):
        days = missing.str.extract(MIDNIGHT)
        if days.null_count() or not days.is_in(pl.Series(h.leaves).implode()).all():
            continue
        return (
            f"column '{q}' holds date-times at midnight ({missing[0]!r}) whose days are its "
            "hierarchy's leaves: make them dates first (Polars: pl.col(...).dt.date(); "
            "pandas, which has no date type and reads a date column as date-times: "
            "df[c].dt.date; text: its first 10 characters)"
        )
    return ""


def _spelling_hint(
    table: Mapping[str, pl.Series], hs: Mapping[str, Hierarchy], qis: list[str]
) -> str:
    """When a value missing from a hierarchy is a leaf in other case
    (``true``, ``True``) or the same number written otherwise (``12.50``,
    ``12.5``; ``-0.0``, ``0.0``), say so: a leaf matches the column's text
    exactly."""
    for q, h, missing in _missing(table, hs, qis):
        leaves = pl.DataFrame({"leaf": h.leaves}).with_columns(
            folded=pl.col("leaf").str.to_lowercase(),
            number=pl.col("leaf").cast(pl.Float64, strict=False),
        )
        found = pl.DataFrame({"value": missing}).with_columns(
            folded=pl.col("value").str.to_lowercase(),
            number=pl.col("value").cast(pl.Float64, strict=False),
        )
        for key, how in (
            ("folded", "in other case"),
            ("number", "as the same number written otherwise"),
        ):
            pair = found.drop_nulls(key).join(leaves.drop_nulls(key), on=key).head(1)
            if pair.height:
                value, leaf = pair.get_column("value")[0], pair.get_column("leaf")[0]
                return (
                    f"column '{q}': {value!r} is in its hierarchy {how} ({leaf!r}); a leaf "
                    "matches the column's text exactly: write the leaves as the column's text "
                    "(or build the hierarchy from the column; the command line reads a column "
                    "whose hierarchy is a file as the file's text)"
                )
    return ""


# a date-time with its offset, as Polars writes a zoned one as text
ZONED = "%Y-%m-%d %H:%M:%S%.f%:z"


def encode_values(col: pl.Series, values: list[str], codes: list[int] | None = None) -> pl.Series:
    """`col` (strings, each one of `values`) as u32 codes for the core:
    ``codes[i]`` for ``values[i]`` (by default the position in `values`). The
    Series crosses to the core through the Arrow C stream interface."""
    # an Enum's physical values are the positions in its categories: a fast lookup
    position = col.cast(pl.Enum(values)).to_physical()
    if codes is None:
        return position.cast(pl.UInt32)
    return pl.Series(codes, dtype=pl.UInt32).gather(position)
