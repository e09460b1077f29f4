"""The release whose quality is measured, as ARX's `StatisticsQuality` reads
it, from the frequency set: each distinct original quasi-identifier tuple
with its count, its released labels, and whether its group is suppressed
(as `apply` suppresses it: `release.build`). A suppressed record is ``*``
in every quasi-identifier, as an ARX output's outliers are."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import polars as pl

from polars_anon.criteria.base import Criteria
from polars_anon.inputs.nulls import text
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.build import _checked
from polars_anon.utility.attribute import STAR, Attribute, arx_type

# the release's columns besides c{i} (attribute i's input value, as its row
# in the hierarchy table) and y{i} (its output value): SUPPRESSED (an
# outlier), SAME (ARX's "row is suppressed" heuristic: an outlier, or every
# output value the same string) and COUNT (records)
SUPPRESSED = "suppressed"
SAME = "same"
COUNT = "n"


def c(i: int) -> str:
    return f"c{i}"


def y(i: int) -> str:
    return f"y{i}"


class Cell(NamedTuple):
    """An attribute's distinct input value (its row in the hierarchy table,
    and the value), output value, suppression and row heuristic, with the
    records that have them."""

    code: int
    value: str
    output: str
    suppressed: bool
    same: bool
    records: int


@dataclass(frozen=True)
class Release:
    """A release by distinct input tuple: ``rows`` (see the column names
    above), the quasi-identifiers (`Attribute`), the records (N), the
    suppressed records (S), and each attribute's cells."""

    rows: pl.DataFrame
    attributes: list[Attribute]
    records: int
    suppressed: int
    cells: list[list[Cell]]

    def gather(self, i: int, values: Sequence[float], starred: float | None = None) -> pl.Expr:
        """Attribute i's number per row: `values` by the input value's row in
        the hierarchy table; `starred` for a suppressed record, if given."""
        found = pl.lit(pl.Series(values, dtype=pl.Float64)).gather(pl.col(c(i)))
        if starred is None:
            return found
        return pl.when(pl.col(SUPPRESSED)).then(pl.lit(starred)).otherwise(found)


def cells_of(rows: pl.DataFrame, attributes: list[Attribute]) -> list[list[Cell]]:
    """Each attribute's cells, from the release's rows."""
    plans = []
    for i in range(len(attributes)):
        keys = [c(i), y(i), SUPPRESSED, SAME]
        plans.append(rows.lazy().group_by(keys).agg(pl.col(COUNT).sum()).sort(keys))
    out = []
    for a, grouped in zip(attributes, pl.collect_all(plans), strict=True):
        leaves = a.hierarchy.leaves
        out.append(
            [
                Cell(int(k), leaves[k], str(v), bool(s), bool(r), int(n))
                for k, v, s, r, n in grouped.iter_rows()
            ]
        )
    return out


def released(
    prep: Prepared,
    levels: Sequence[int],
    k: int,
    max_suppression: int | float,
    criteria: Criteria = None,
) -> Release:
    """The release of `prep`'s table at `levels`, its groups smaller than k
    or failing `criteria` suppressed as `apply` suppresses them (raising
    `NotAnonymousError` as it does when they are more than
    `max_suppression`)."""
    lv = list(levels)
    drop, _, _ = _checked(prep, lv, k, max_suppression, criteria)
    qis, count = prep.quasi_identifiers, prep.count
    schema = prep.native.schema if prep.native is not None else prep.lazy.collect_schema()
    attributes = [
        Attribute(q, lvl, arx_type(schema[q]), h)
        for q, lvl, h in zip(qis, lv, prep.hierarchies, strict=True)
    ]
    # one row per distinct input tuple (F0 has one per tuple and sensitive
    # values, when criteria read some), each value as its leaf's row
    rows = prep.f0.lazy().select(
        [
            text(pl.col(q)).cast(pl.Enum(a.hierarchy.leaves)).to_physical().alias(c(i))
            for i, (q, a) in enumerate(zip(qis, attributes, strict=True))
        ]
        + [pl.col(count).cast(pl.Int64).alias(COUNT)]
    )
    if prep.sensitive:
        rows = rows.group_by([c(i) for i in range(len(qis))]).agg(pl.col(COUNT).sum())
    labels = [
        pl.lit(pl.Series(a.hierarchy.leaf_labels(a.level), dtype=pl.String))
        .gather(pl.col(c(i)))
        .alias(y(i))
        for i, a in enumerate(attributes)
    ]
    rows = rows.with_columns(labels)
    if drop.height:
        keys = drop.select(
            [pl.col(q).cast(pl.String).alias(y(i)) for i, q in enumerate(qis)]
        ).with_columns(pl.lit(True).alias(SUPPRESSED))
        rows = rows.join(keys.lazy(), on=[y(i) for i in range(len(qis))], how="left")
        rows = rows.with_columns(pl.col(SUPPRESSED).fill_null(False))
    else:
        rows = rows.with_columns(pl.lit(False).alias(SUPPRESSED))
    rows = rows.with_columns(
        [
            pl.when(pl.col(SUPPRESSED)).then(pl.lit(STAR)).otherwise(pl.col(y(i))).alias(y(i))
            for i in range(len(qis))
        ]
    )
    same = pl.lit(True)
    for i in range(1, len(qis)):
        same = same & (pl.col(y(i)) == pl.col(y(i - 1)))
    frame = rows.with_columns((pl.col(SUPPRESSED) | same).alias(SAME)).collect()
    suppressed = int(frame.filter(pl.col(SUPPRESSED)).get_column(COUNT).sum())
    return Release(frame, attributes, prep.rows, suppressed, cells_of(frame, attributes))
