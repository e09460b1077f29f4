"""F0 of a LazyFrame too large to read whole, grouped by the core a batch
at a time (`_core.F0Batches`): memory holds F0's codes and one batch, where
Polars' streaming group-by of the raw columns grew with the rows read on
wide tables (9 GiB for 2M rows of 100 string columns; bench/README)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from polars_anon._core import AnonError, F0Batches, Hierarchy
from polars_anon.inputs.frames import SIGNED
from polars_anon.inputs.hierarchies import own_values
from polars_anon.inputs.nulls import NULL_LABEL, Nulls, no_nulls, null_as_value
from polars_anon.prepare.encode import encode_values, with_hint
from polars_anon.prepare.prepared import Prepared

# Values (rows x columns) a batch holds: large enough that a batch's call
# into the core costs nothing beside its rows, small enough that the batch
# is small beside F0 (4M values of 100 string columns: 42,000 rows).
BATCH_VALUES = 1 << 22


def in_batches(
    lazy: pl.LazyFrame,
    schema: pl.Schema,
    qis: list[str],
    sens: list[str],
    hs_by_col: Mapping[str, Hierarchy],
    nulls: Nulls,
    count: str,
) -> Prepared:
    """`lazy` prepared from one read in batches, as `prepare` prepares a
    table read whole: the hierarchies are the given ones, identity where none
    is given, with a row for nulls under ``nulls="value"``; the sensitive
    values sorted; the Polars F0 that releases are checked on is made when
    first asked for (`Prepared.f0`). A quasi-identifier without a hierarchy, a
    sensitive attribute, or nulls kept as a value need one streaming pass
    over those columns first (their distinct values and nulls)."""
    plain = [q for q in qis if q not in hs_by_col]
    listed = plain + sens
    facts = _facts(lazy, listed, qis if nulls == "value" else [])
    filled: set[str] = set()
    hs: list[Hierarchy] = []
    values_of: dict[str, list[str]] = {}
    for q in qis:
        h = hs_by_col.get(q)
        has_nulls = facts.get(f"n:{q}", 0) > 0
        if nulls == "value" and has_nulls:
            if facts[f"label:{q}"]:
                # the error of a column holding both (which these two stand for)
                null_as_value(q, pl.Series([None, NULL_LABEL]), h)
            filled.add(q)
            h = null_as_value(q, pl.Series([None], dtype=pl.String), h)[1]
        elif has_nulls and q in plain:
            _no_nulls(facts[f"n:{q}"], q, "a quasi-identifier")
        if h is None:
            values_of[q] = _values(facts[f"v:{q}"], q in filled)
            h = own_values(q, values_of[q])
        hs.append(h)
    for s in sens:
        _no_nulls(facts[f"n:{s}"], s, "a sensitive attribute")
        values_of[s] = _values(facts[f"v:{s}"], False)
    batches = F0Batches(qis, hs, [(s, values_of[s]) for s in sens])
    rows = max(1, BATCH_VALUES // len(qis + sens))
    for batch in lazy.select(qis + sens).collect_batches(chunk_size=rows, maintain_order=False):
        codes: list[pl.Series] = []
        for q in qis:
            col = batch.get_column(q)
            if q in filled:
                col = col.cast(pl.String).fill_null(NULL_LABEL)
            elif not (q in hs_by_col and isinstance(schema[q], (pl.String, *SIGNED))):
                col = col.cast(pl.String)
            codes.append(encode_values(col, values_of[q]) if q in plain else col)
        sensitive = [encode_values(batch.get_column(s).cast(pl.String), values_of[s]) for s in sens]
        note = (
            f" (counted in a batch of {batch.height:,} rows: the table is read in batches, "
            "and the others were not counted)"
        )
        table = {q: batch.get_column(q) for q in qis}
        with_hint(table, hs_by_col, qis, lambda: batches.add(codes, sensitive), note)  # noqa: B023
    # Polars' streaming engine handles SIGINT itself: seen once here, an
    # interrupted read ended its batches early with no error. F0 from part
    # of the table would be wrong silently, so the rows are counted apart
    # (from a Parquet scan's metadata; for other plans, one more pass)
    counted = lazy.select(pl.len()).collect(engine="streaming").item()
    if counted != batches.rows:
        raise AnonError(
            f"the table was read short: {batches.rows:,} rows in batches, {counted:,} counted "
            "(an interrupted read?); nothing was prepared from it"
        )
    sensitive_values = {s: values_of[s] for s in sens}
    return Prepared(lazy, qis, hs, None, batches.problem(), sens, sensitive_values, count, nulls)


def _facts(lazy: pl.LazyFrame, listed: list[str], nullable: list[str]) -> dict[str, Any]:
    """One streaming pass: the distinct values (as text) and nulls of the
    `listed` columns, and the nulls of `nullable` ones with whether they
    hold NULL_LABEL; none when there is nothing to ask."""
    exprs: list[pl.Expr] = []
    for c in listed:
        exprs.append(pl.col(c).cast(pl.String).drop_nulls().unique().implode().alias(f"v:{c}"))
    for c in dict.fromkeys(listed + nullable):
        exprs.append(pl.col(c).null_count().alias(f"n:{c}"))
    for c in nullable:
        exprs.append((pl.col(c).cast(pl.String) == NULL_LABEL).any().alias(f"label:{c}"))
    if not exprs:
        return {}
    return lazy.select(exprs).collect(engine="streaming").row(0, named=True)


def _values(distinct: object, with_null_label: bool) -> list[str]:
    """A column's distinct values, sorted (NULL_LABEL among them when its
    nulls are read as it)."""
    assert isinstance(distinct, list)
    return sorted(distinct + ([NULL_LABEL] if with_null_label else []))


def _no_nulls(count: object, column: str, role: str) -> None:
    """`no_nulls`' error for a column with `count` nulls, if any."""
    assert isinstance(count, int)
    no_nulls(pl.Series([None], dtype=pl.String), pl.Series([count]), column, role)
