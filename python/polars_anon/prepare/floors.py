"""F0 at each attribute's lowest useful level, for tables that live in
Spark or DuckDB (see ``src/freq/floors.rs`` for the rule and its proof).

With many quasi-identifiers F0 of the raw values can be nearly as large as
the table, and it has to cross to this process. An attribute at a level
where it alone leaves more tuples in groups smaller than k than may be
suppressed is in no k-anonymous node, so the search never needs F0 below
that level: each attribute's floor is found from its own counts (one
aggregate where the data lives), and F0 is grouped with each value
replaced by one value of the same floor-level label (a broadcast join
there). The core answers every node at or above the floors exactly and
refuses the rest; the release still maps each raw value, and its groups,
counted where it is built, must be the checked ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import AnonError, Hierarchy, Problem
from polars_anon.inputs.nulls import Nulls, null_as_value
from polars_anon.inputs.params import check_k, max_suppressed
from polars_anon.prepare.encode import hinted
from polars_anon.prepare.labels import present_labels
from polars_anon.reports.render import counted


@dataclass(frozen=True)
class Floored:
    """Each quasi-identifier's floor level, the model they were found for,
    the replacement of each floored column's values (``v`` -> ``r``, both
    native) and every quasi-identifier's distinct native values."""

    levels: list[int]
    k: int
    max_suppressed: int
    maps: dict[str, pl.DataFrame]
    values: dict[str, pl.Series]
    # tuples whose representative is null, by floored column (from its own
    # counts: the null itself, when it stands for its label)
    null_rows: dict[str, int]
    # with nulls="value", the hierarchies given a row for nulls (their
    # columns hold some): F0 is read through them, though at floor levels a
    # leaf may stand for the nulls (a level of one label in the given
    # hierarchy may hold two in the table)
    with_nulls: dict[str, Hierarchy]

    def check(self, f0: pl.DataFrame, count: str) -> None:
        """F0 as grouped where the data lives: a value that found no
        representative in the join would read as null there (a type that
        does not round-trip through the small table, say); the nulls must be
        those the representatives give, or F0 is refused."""
        for q in self.maps:
            got = int(f0.filter(pl.col(q).is_null()).get_column(count).sum())
            if got != self.null_rows[q]:
                raise AnonError(
                    f"internal check failed: column '{q}' has {counted(got, 'null tuple')} in the "
                    f"frequency set grouped at its floor level, where its own counts give "
                    f"{self.null_rows[q]:,}: some values did not meet their representatives in "
                    "the join; refusing to search it. A query that reads other rows each time "
                    "(random(), TABLESAMPLE, a LIMIT without ORDER BY) does this: store its "
                    "result as a table and search that"
                )


def find(
    data: Any,
    where: str,
    qis: list[str],
    hierarchies: dict[str, Hierarchy],
    nulls: Nulls,
    count: str,
    k: Any,
    max_suppression: Any,
) -> Floored | None:
    """The floors of `qis` for k and `max_suppression` on the table `data`
    (None when it is empty: the caller says so). Nulls and values missing
    from a hierarchy raise here with the errors F0 would give."""
    margins = engines.marginals(data, where, qis, count)
    rows = int(margins[qis[0]].get_column(count).sum())
    if rows == 0:
        return None
    k = check_k(k, rows)
    budget = max_suppressed(max_suppression, rows)
    levels: list[int] = []
    maps: dict[str, pl.DataFrame] = {}
    null_rows: dict[str, int] = {}
    with_nulls: dict[str, Hierarchy] = {}
    for q in qis:
        frame = margins[q]
        h = hierarchies.get(q)
        if h is None:
            # identity hierarchies are built from F0's values: nothing to skip
            levels.append(0)
            continue
        text = frame.get_column(q).cast(pl.String)
        counts = frame.get_column(count)
        if nulls == "value" and text.null_count():
            text, with_null = null_as_value(q, text, h)
            assert with_null is not None
            h = with_nulls[q] = with_null
        # the core encodes the values: nulls and unknown values are refused
        # naming the column, as they would be in F0
        alone = hinted({q: text}, hierarchies, [q], [q], [h], [text], counts)
        # none passing (a hierarchy without a one-value top): no node is
        # anonymous, and the top is as far as a floor can go
        passing = (g for g in range(h.height + 1) if _small(alone, g, k) <= budget)
        floor = next(passing, h.height)
        levels.append(floor)
        if floor:
            rep = _representatives(frame.get_column(q), text, counts, h, floor)
            maps[q] = rep.select("v", "r")
            null_rows[q] = int(rep.filter(pl.col("r").is_null()).get_column("n").sum())
    if not maps:
        return None
    values = {q: margins[q].get_column(q) for q in qis}
    return Floored(levels, k, budget, maps, values, null_rows, with_nulls)


def _small(problem: Problem, level: int, k: int) -> int:
    """Tuples in groups smaller than k of a one-attribute problem at `level`."""
    sizes = pl.Series(problem.groups([level])[1], dtype=pl.UInt64)
    return int(sizes.filter(sizes < k).sum())


def _representatives(
    native: pl.Series, text: pl.Series, counts: pl.Series, h: Hierarchy, level: int
) -> pl.DataFrame:
    """Each value (``v``), the value standing for its label at `level`
    (``r``: the least, as text, of the values under that label) and its
    tuples (``n``)."""
    leaves, labels, _ = present_labels(h, level, text.unique())
    label = pl.DataFrame({"t": leaves, "label": labels})
    frame = pl.DataFrame({"v": native, "t": text, "n": counts})
    frame = frame.join(label, on="t", how="left")
    first = (
        frame.sort("t").group_by("label", maintain_order=True).agg(pl.col("v").first().alias("r"))
    )
    return frame.join(first, on="label").select("v", "r", "n")
