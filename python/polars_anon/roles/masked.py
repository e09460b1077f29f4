"""A masked identifier that still names each record: the rule for a column
with no role (`roles.undeclared`) put to an identifier's masked values. A
mask that keeps characters (``Mask(keep_last=4)`` of record numbers under
10,000, or of e-mail addresses) can leave every value distinct: the column
then identifies records as the unmasked one did, and the release is
refused, naming the column and the ways out. A mask that keeps nothing
leaves at most one value per length and is not counted."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import ConfigError
from polars_anon.inputs.frames import by_position
from polars_anon.reports.render import plural
from polars_anon.roles.polars import masked
from polars_anon.roles.spec import Mask, Roles
from polars_anon.roles.undeclared import (
    EXACT_ROWS,
    MIN_ROWS,
    Counted,
    described,
    identifying,
)


def masks_of(roles: Roles) -> dict[str, Mask]:
    """The identifiers masked with characters kept."""
    return {
        c: t
        for c, t in roles.identifiers.items()
        if isinstance(t, Mask) and t.keep_first + t.keep_last > 0
    }


def masked_counts(data: Any, engine: str, masks: dict[str, Mask], rows: int) -> dict[str, Counted]:
    """Each masked column's distinct masked values and non-null rows, as
    `undeclared.distinct_counts` counts a column: exactly up to
    `EXACT_ROWS` rows, else estimated."""
    exact = rows <= EXACT_ROWS
    if engine == "duckdb":
        from polars_anon.engines.duckdb import _masked, _q

        distinct = "count(DISTINCT {})" if exact else "approx_count_distinct({})"
        items = [
            f"{distinct.format(_masked(f'CAST({_q(c)} AS VARCHAR)', op))}, count({_q(c)})"
            for c, op in masks.items()
        ]
        row = data.aggregate(", ".join(items)).fetchall()[0]
    elif engine == "spark":
        from pyspark.sql import functions as F

        from polars_anon.engines.spark import _col, _masked

        count = F.count_distinct if exact else F.approx_count_distinct
        aggs = []
        for c, op in masks.items():
            aggs += [count(_masked(_col(c).cast("string"), op)), F.count(_col(c))]
        row = data.agg(*aggs).first()
    else:
        if engine != "polars":
            engines.module(engine)  # (an unknown engine named)
        lazy = data.lazy()
        at = by_position(lazy.collect_schema())
        exprs = []
        for i, (c, op) in enumerate(masks.items()):
            values = masked(at[c].cast(pl.String), op).drop_nulls()
            n = values.n_unique() if exact else values.approx_n_unique()
            exprs += [n.alias(f"n {i}"), at[c].count().alias(f"held {i}")]
        row = lazy.select(exprs).collect(engine="streaming").row(0)
    return {c: (int(row[2 * i]), int(row[2 * i + 1])) for i, c in enumerate(masks)}


def identifying_masks(data: Any, engine: str, roles: Roles, rows: int) -> dict[str, Counted]:
    """The masked identifiers that would still identify records
    (`undeclared.identifying` of their masked values), with their counts."""
    masks = masks_of(roles)
    if not masks or rows < MIN_ROWS:
        return {}
    return identifying(masked_counts(data, engine, masks, rows), rows)


def refuse_identifying_masks(data: Any, engine: str, roles: Roles, rows: int) -> None:
    """Refuses a release whose masked identifiers would still identify
    records."""
    found = identifying_masks(data, engine, roles, rows)
    if not found:
        return
    masks = masks_of(roles)
    listed = ", ".join(
        f"{c!r} ({masks[c].describe()}: {described(n, h, rows)})" for c, (n, h) in found.items()
    )
    raise ConfigError(
        f"{plural('masked identifier', list(found))} {listed} of this {rows:,}-row table "
        "would still identify records: more distinct masked values than half the rows that "
        "hold one. Keep fewer characters (a smaller keep_first or keep_last of pa.Mask; on "
        f"the command line COL=mask:N), or drop or pseudonymize the {plural('column', list(found))}"
    )
