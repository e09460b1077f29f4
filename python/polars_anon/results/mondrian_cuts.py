"""Mondrian's partitions of F0, cut in the core: each quasi-identifier's
kind (numeric, hierarchy, set) and, for a numeric one, its values as the
core compares them."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Literal

import polars as pl

from polars_anon import _core
from polars_anon._core import ConfigError, CoreCriterion, MondrianOutcome
from polars_anon.prepare.prepared import Prepared
from polars_anon.results import mondrian_splits


def partition(
    prep: Prepared,
    kinds: dict[str, str],
    k: int,
    model: list[CoreCriterion],
    relaxed: bool = False,
    splits: pl.DataFrame | None = None,
    coarsen: bool = False,
) -> MondrianOutcome:
    """Mondrian's final partitions of `prep`'s F0, in the core: `kinds` says
    how each quasi-identifier (in order) is split ("numeric": by the values
    of its leaves; "hierarchy"; "set"), strict or `relaxed`. Deterministic:
    the same F0, in any row order, gives the same partitions. With `splits`
    (`mondrian_splits`), F0 is partitioned by those instead."""
    values = [
        numbers(q, h.leaves) if kinds[q] == "numeric" else None
        for q, h in zip(prep.quasi_identifiers, prep.hierarchies, strict=True)
    ]
    order = [kinds[q] for q in prep.quasi_identifiers]
    if splits is not None:
        qis = prep.quasi_identifiers
        args = (prep.problem, qis, order, values, k, model, splits, coarsen)
        return mondrian_splits.reapplied(*args)
    return _core.mondrian(prep.problem, order, values, k, model, relaxed)


def numbers(column: str, leaves: list[str]) -> list[float]:
    """A numeric column's values as the core cuts them (binary floats),
    refused where two values become one float: integers past 2^53, decimals
    of more digits than a float holds. Merged, a cell would show a value its
    records lack. (-0.0 and 0.0 are one number and may merge.) A date or a
    datetime is its instant (`instants`)."""
    moments = instants(leaves)
    try:
        out = [float(v) for v in leaves] if moments is None else [float(m) for m in moments]
    except ValueError:
        bad = next(v for v in leaves if not _is_number(v))
        raise ConfigError(
            f"column '{column}': the value {bad!r} is neither a number nor a date or datetime "
            "of the years 1 to 9999 (as Polars writes them); leave the column out of "
            "numeric= to cut it as value sets"
        ) from None
    nan = next((v for v, f in zip(leaves, out, strict=True) if math.isnan(f)), None)
    if nan is not None:
        raise ConfigError(
            f"column '{column}' holds {nan}, which has no place in a range: drop those records "
            f"first (where pl.col('{column}').is_nan()), or leave the column out of numeric= "
            "to cut it as value sets"
        )
    exact: list[object] = [Decimal(v) for v in leaves] if moments is None else list(moments)
    seen: dict[float, int] = {}
    for i, f in enumerate(out):
        other = seen.setdefault(f, i)
        if exact[other] != exact[i]:
            fix = (
                "round them first (dt.truncate)"
                if moments
                else "subtract an origin or round them first"
            )
            raise ConfigError(
                f"column '{column}': the values {leaves[other]} and {leaves[i]} are one number in "
                f"binary floating point, where Mondrian's numeric cuts are made; {fix}, or pass "
                "the column as categorical (leave it out of numeric=)"
            )
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def unit_of(leaves: list[str]) -> str | None:
    """The unit of a numeric column's cut numbers (`numbers`): "d" (days)
    for dates, "us" or "ns" for datetimes, None for plain numbers."""
    if instants(leaves) is None:
        return None
    return "d" if _dates(leaves) else _unit(leaves)


def units_of(
    quasi_identifiers: list[str], kinds: list[str], leaves: list[list[str]]
) -> dict[str, str | None]:
    """Each numeric quasi-identifier's `unit_of`."""
    return {
        q: unit_of(values)
        for q, kind, values in zip(quasi_identifiers, kinds, leaves, strict=True)
        if kind == "numeric"
    }


def temporal(dtype: pl.DataType) -> bool:
    """A date or a datetime: cut by its instants."""
    return isinstance(dtype, (pl.Date, pl.Datetime))


def instants(leaves: list[str]) -> list[int] | None:
    """Dates and datetimes as Polars writes them as text, as the numbers
    Mondrian cuts: days since 1970-01-01, or microseconds since then in UTC
    (nanoseconds where a value has nine decimals of a second); None when
    the leaves are not all dates or all datetimes (numbers, then)."""
    if not leaves or not leaves[0][:1].isdigit() or "-" not in leaves[0][1:]:
        return None
    text = pl.Series(leaves, dtype=pl.String)
    try:
        parsed = (
            text.str.to_date("%Y-%m-%d")
            if _dates(leaves)
            else text.str.to_datetime(time_unit=_unit(leaves), time_zone="UTC")
        )
    except pl.exceptions.PolarsError:
        return None
    return parsed.to_physical().cast(pl.Int64).to_list()


def from_instants(values: pl.Series, dtype: pl.DataType, leaves: list[str]) -> pl.Series:
    """`instants`' numbers (`values`, of the column's `leaves`) as the
    column's `dtype` again."""
    whole = values.cast(pl.Int64)
    if _dates(leaves):
        return whole.cast(pl.Int32).cast(pl.Date)
    utc = whole.cast(pl.Datetime(_unit(leaves), "UTC"))
    zone = getattr(dtype, "time_zone", None)
    moments = utc.dt.replace_time_zone(None) if zone is None else utc.dt.convert_time_zone(zone)
    return moments.cast(dtype)


def _dates(leaves: list[str]) -> bool:
    return all(len(v) == 10 for v in leaves)


def _unit(leaves: list[str]) -> Literal["ns", "us"]:
    """Nanoseconds where Polars wrote nine decimals of a second."""
    return "ns" if any(re.search(r"\.\d{9}", v) for v in leaves) else "us"
