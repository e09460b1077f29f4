"""A Mondrian release (`polars_anon.mondrian`) as the quality measures read a
release (`release.Release`): each distinct input tuple with the cells of a
partition holding its records (relaxed, a tuple whose records two
partitions divide has a row for each), from the core's pieces, so strict
and relaxed alike. A Mondrian release has no levels: each quasi-identifier
is a `MondrianAttribute`, which answers the lookups the measures make of an
`Attribute` (`share`, `lowest`, `intervals`) from its cells.

Suppressed and ``same``: Mondrian suppresses no record, so no row is
suppressed; and no row is ``same``. ARX's heuristic (a row whose outputs all
read alike counts as suppressed) is how ARX spots the outliers of its own
output; a Mondrian release has none, and the heuristic would cost 1 to a
record whose cells happen to read alike (``[1-2]`` in two columns), so
granularity would no longer be 1 - the core's attribute loss."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import polars as pl

from polars_anon._core import MondrianOutcome
from polars_anon.prepare.prepared import Prepared
from polars_anon.results.mondrian_cuts import instants
from polars_anon.utility.attribute import STRING, Attribute, arx_type, parse
from polars_anon.utility.release import COUNT, SAME, SUPPRESSED, Release, c, cells_of, y

# how Mondrian splits a quasi-identifier (`MondrianResult.kinds`)
NUMERIC, HIERARCHY, SET = "numeric", "hierarchy", "set"


class Recoded(NamedTuple):
    """One output cell of an attribute, as the measures need it.

    - ``share``: the share of the domain it stands for (granularity's
      `QualityDomainShare`): a range ``[lo-hi]`` its width over the table's,
      (hi - lo) / (max - min), as ARX's interval domain share
      (`DomainShareInterval`: an interval's width over the domain's); a node
      its leaves over D; a set its values over D.
    - ``leaves``: the domain's values it may stand for (ambiguity's share *
      D): a node's leaves, a set's values, and a range's values of the table
      within [lo, hi] (not its width share * D, which gives a single value
      none).
    - ``level``: a node's level in the hierarchy; None for a range or set.
    - ``interval``: the cell as numbers, as the squared errors read it: a
      range its [lo, hi]; a node or set (read as ARX's ``String``) the
      hierarchy table's rows it spans."""

    share: float
    leaves: float
    level: int | None
    interval: tuple[float, float]


@dataclass(frozen=True)
class MondrianAttribute(Attribute):
    """A quasi-identifier of a Mondrian release: `Attribute`'s name, data
    type and hierarchy (a numeric or set attribute's: the table's distinct
    values), with ``level`` 0 (unused: it has none), how Mondrian split it
    (``split``) and its output cells by label (``recoded``)."""

    split: str = SET
    recoded: dict[str, Recoded] = field(default_factory=dict)

    def share(self, value: str) -> float:
        found = self.recoded.get(value)
        return super().share(value) if found is None else found.share

    @cached_property
    def missing_root(self) -> str | None:
        """None for a range or a set: its table's root is a one-value
        domain's value, released as it is, not missing."""
        return super().missing_root if self.split == HIERARCHY else None

    @cached_property
    def lowest(self) -> dict[str, int]:
        """Each node's level (generalization intensity's lookup); no entry
        for a range or a set, which have none."""
        return {v: r.level for v, r in self.recoded.items() if r.level is not None}

    @cached_property
    def numbers(self) -> tuple[list[float], list[float], float]:
        """A numeric attribute's number per leaf code, the numbers sorted,
        and the table's range max - min (what the core reads its cells'
        widths against)."""
        leaves = self.hierarchy.leaves
        moments = instants(leaves)
        numbers = [parse(v) for v in leaves] if moments is None else [float(m) for m in moments]
        ordered = sorted(numbers)
        return numbers, ordered, ordered[-1] - ordered[0]

    @cached_property
    def under(self) -> list[Counter[str]]:
        """Per column of the hierarchy table, the leaves under each node."""
        return [Counter(row[lv] for row in self.table) for lv in range(self.columns)]

    def intervals(
        self, cells: list[tuple[str, str]]
    ) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]]:
        """Each input value's interval (a number's itself; a categorical
        value's rows of the hierarchy table) and each output cell's
        (`Recoded.interval`)."""
        if self.split == NUMERIC:
            number = dict(zip(self.hierarchy.leaves, self.numbers[0], strict=True))
            inputs = {a: (number[a], number[a]) for a, _ in cells}
        else:
            inputs = {a: self.spans[a] for a, _ in cells}
        return inputs, {b: self.recoded[b].interval for _, b in cells}


def mondrian_release(
    prep: Prepared, kinds: dict[str, str], outcome: MondrianOutcome
) -> tuple[Release, list[MondrianAttribute]]:
    """The release Mondrian's `outcome` makes of `prep`'s table (`kinds`:
    how each quasi-identifier was split), and its attributes."""
    qis = prep.quasi_identifiers
    pieces = pl.DataFrame(
        {
            "row": pl.Series(outcome.rows, dtype=pl.UInt32),
            "part": pl.Series(outcome.partition, dtype=pl.UInt32),
            COUNT: pl.Series(outcome.counts, dtype=pl.Int64),
        }
    )
    columns = [pl.Series(c(i), codes, dtype=pl.UInt32) for i, codes in enumerate(outcome.codes)]
    labels = [pl.Series(y(i), cells, dtype=pl.String) for i, cells in enumerate(outcome.labels)]
    keys = [c(i) for i in range(len(qis))] + [y(i) for i in range(len(qis))]
    rows = (
        pieces.select(
            *[pl.lit(s).gather(pl.col("row")) for s in columns],
            *[pl.lit(s).gather(pl.col("part")) for s in labels],
            pl.col(COUNT),
        )
        .group_by(keys)
        .agg(pl.col(COUNT).sum())
        .sort(keys)
        .with_columns(pl.lit(False).alias(SUPPRESSED), pl.lit(False).alias(SAME))
    )
    schema = prep.native.schema if prep.native is not None else prep.lazy.collect_schema()
    attributes: list[MondrianAttribute] = []
    for i, (q, h) in enumerate(zip(qis, prep.hierarchies, strict=True)):
        split = kinds[q]
        # categorical values are read as ARX's String: Mondrian orders them
        # by the hierarchy table's rows (sets: their sorted values), as ARX
        # numbers a String's values
        kind = arx_type(schema[q]) if split == NUMERIC else STRING
        bare = MondrianAttribute(q, 0, kind, h, split)
        held = rows.group_by(y(i)).agg(pl.col(c(i)).unique()).iter_rows()
        recoded = {label: _recoded(bare, codes) for label, codes in held}
        attributes.append(MondrianAttribute(q, 0, kind, h, split, recoded))
    measured: list[Attribute] = list(attributes)
    return Release(rows, measured, prep.rows, 0, cells_of(rows, measured)), attributes


def _recoded(a: MondrianAttribute, codes: Sequence[int]) -> Recoded:
    """The cell of attribute `a` holding the leaves `codes`: a range of
    their numbers, the lowest node covering them (as the core finds it), or
    their set."""
    leaves = a.hierarchy.leaves
    d = float(a.size)
    if a.split == NUMERIC:
        numbers, ordered, width = a.numbers
        lo, hi = min(numbers[k] for k in codes), max(numbers[k] for k in codes)
        within = bisect.bisect_right(ordered, hi) - bisect.bisect_left(ordered, lo)
        return Recoded((hi - lo) / width if width > 0 else 0.0, within, None, (lo, hi))
    if a.split == SET:
        rows = [a.spans[leaves[k]][0] for k in codes]
        return Recoded(len(codes) / d, len(codes), None, (min(rows), max(rows)))
    table = a.table
    level = next(lv for lv in range(a.columns) if len({table[k][lv] for k in codes}) == 1)
    node = table[codes[0]][level]
    under = a.under[level][node]
    return Recoded(under / d, under, level, a.spans[node])
