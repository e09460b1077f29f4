"""Each attribute's leaves and their labels at a level, as a release and
the floors map them: built once per table, attribute and level and kept on
the `Prepared` table."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_anon._core import Hierarchy
from polars_anon.inputs.nulls import NULL_LABEL, text
from polars_anon.prepare.prepared import Prepared

# A release maps a hierarchy of at most this many leaves through all of them,
# and a mapping of at most this many values is built in Python lists (each
# Polars call on a Series costs ~0.1 ms, a query of its own: more than the
# loop); larger ones through the leaves the table holds, in Polars.
SMALL = 1024


def mapping(prep: Prepared, i: int, level: int) -> tuple[pl.Series, pl.Series, list[str]]:
    """Attribute `i`'s leaves, their labels at `level`, and those labels'
    distinct values (the leaves' first); see `build`."""
    build(prep, [(i, level)])
    return prep.mappings[(i, level)]


def build(prep: Prepared, keys: Sequence[tuple[int, int]]) -> None:
    """The mappings (attribute, level) -> leaves, labels and distinct labels
    that `keys` lack, into `prep.mappings`. A hierarchy of at most SMALL
    leaves maps all of them; a larger one only the leaves the table holds
    (cup's ZIP codes: 13,294 of 100,000; copying every leaf into Python and
    building an Enum of them cost more than the release): those the core
    counted in F0, read off it, or else (F0 grouped at floors, a table the
    core did not count) the table's distinct values. The labels are read off
    the hierarchy's rows either way, so a release's check does not share the
    lookup that encoded the table: a value the core took for another leaf
    fails the cast to the Enum of the leaves and is refused, and so is a
    value a source gains later."""
    todo = [key for key in dict.fromkeys(keys) if key not in prep.mappings]
    asked = []
    for i, level in todo:
        h = prep.hierarchies[i]
        large = h.sizes[0] > SMALL
        codes = prep.problem.present_leaves(i) if large and prep.counted else None
        if codes is not None:
            leaves, labels, names = h.leaf_mapping(level, codes)
            prep.mappings[(i, level)] = (
                pl.Series(leaves, dtype=pl.String),
                _by_code(names, labels),
                names,
            )
        elif large:
            asked.append((i, level))
        else:
            prep.mappings[(i, level)] = _all_leaves(h, level)
    present = _present(prep, sorted({i for i, _ in asked}))
    for i, level in asked:
        h, values = prep.hierarchies[i], present[i]
        prep.mappings[(i, level)] = (
            _all_leaves(h, level) if values is None else present_labels(h, level, values)
        )


def _all_leaves(h: Hierarchy, level: int) -> tuple[pl.Series, pl.Series, list[str]]:
    leaves = pl.Series(h.leaves, dtype=pl.String)
    return leaves, pl.Series(h.leaf_labels(level), dtype=pl.String), h.labels_at(level)


def _present(prep: Prepared, attributes: Sequence[int]) -> dict[int, pl.Series | None]:
    """The distinct values, as text, that the table holds of each attribute
    (None when only the leaves are known): from F0, or the rows the core
    grouped, in one query for all; at floor levels, F0 holds one value per
    label, and the values are kept apart from the column's counts."""
    qis = prep.quasi_identifiers
    out: dict[int, pl.Series | None] = {}
    if not attributes:
        return out
    if prep.values is not None:
        for i in attributes:
            out[i] = prep.values[qis[i]].unique().cast(pl.String).fill_null(NULL_LABEL)
        return out
    held = prep.grouped if prep.grouped is not None else prep.table
    if held is None:
        return dict.fromkeys(attributes)
    # the distinct values first, then as text (fewer casts)
    lists = held.select([text(pl.col(qis[i]).unique()).implode() for i in attributes])
    return {i: lists.get_column(qis[i]).explode() for i in attributes}


def present_labels(
    h: Hierarchy, level: int, values: pl.Series
) -> tuple[pl.Series, pl.Series, list[str]]:
    """The leaves among `values` (text), in leaf order, their labels at
    `level`, and those labels' distinct values (in order of first use);
    values that are no leaf are left out."""
    listed = values.to_list()
    positions, codes, names = h.leaf_positions(level, listed)
    if len(listed) <= SMALL:
        leaves = pl.Series([listed[p] for p in positions], dtype=pl.String)
    else:
        leaves = values.gather(pl.Series(positions, dtype=pl.UInt32))
    return leaves, _by_code(names, codes), names


def _by_code(names: list[str], codes: list[int]) -> pl.Series:
    """The label of each code into the distinct labels `names`."""
    if len(codes) <= SMALL:
        return pl.Series([names[c] for c in codes], dtype=pl.String)
    return pl.Series(names, dtype=pl.String).gather(pl.Series(codes, dtype=pl.UInt32))


def as_enum(prep: Prepared, i: int, level: int) -> tuple[pl.Series, pl.Series]:
    """`mapping`'s leaves as a Series of an Enum of them, and their labels
    in its order."""
    key = (i, level)
    if key not in prep.enums:
        leaves, labels, _ = mapping(prep, i, level)
        prep.enums[key] = (leaves.cast(pl.Enum(leaves)), labels)
    return prep.enums[key]


def by_value(prep: Prepared, i: int, level: int) -> tuple[int, pl.Series] | None:
    """`mapping` as a table by value, from the smallest leaf on (nulls where
    no leaf is), when there are at most SMALL leaves, each an integer as
    Polars writes it, and they span at most 8 values per leaf (or 4,096): an
    integer column is then labelled without casting each of its values to
    text (a millisecond a column on cup)."""
    key = (i, level)
    if key not in prep.dense:
        prep.dense[key] = None
        leaves, labels, _ = mapping(prep, i, level)
        listed = leaves.to_list() if 0 < len(leaves) <= SMALL else []
        try:
            values = [int(v) for v in listed]
        except ValueError:
            values = []
        # "+5", " 5" or "05" read as 5, but Polars writes 5 as "5"
        if values and all(str(v) == leaf for v, leaf in zip(values, listed, strict=True)):
            low, span = min(values), max(values) - min(values) + 1
            if span <= max(4096, 8 * len(values)):
                table: list[str | None] = [None] * span
                for v, label in zip(values, labels.to_list(), strict=True):
                    table[v - low] = label
                prep.dense[key] = (low, pl.Series(table, dtype=pl.String))
    return prep.dense[key]
