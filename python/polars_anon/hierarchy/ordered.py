"""Ordered categories in groups: level 1 puts ``sizes[0]`` consecutive
categories of ``order`` together, level 2 ``sizes[1]`` consecutive groups of
level 1, and so on; a group is labelled by its first and last category
(``a..c``). Groups follow the whole order, whether or not the data has every
category, so labels stay the same from one file to the next. A value not in
``order`` is an error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.hierarchy._spec import Spec, as_text, option, sequence
from polars_anon.inputs.params import as_int
from polars_anon.reports.render import counted


@dataclass(frozen=True)
class Ordered(Spec):
    """The spec of `ordered`: groups of ``sizes`` consecutive categories of
    ``order`` at each level (see the module)."""

    order: tuple[str, ...] = option("every category, in order", "names")
    sizes: tuple[int, ...] = option("group sizes per level: 2,2", "numbers")

    builder = "ordered"
    summary = "groups of consecutive ordered categories"

    def __post_init__(self) -> None:
        order = tuple(str(v) for v in sequence("order", self.order))
        seen: set[str] = set()
        twice = [v for v in order if v in seen or seen.add(v)]  # type: ignore[func-returns-value]
        if twice:
            raise ConfigError(f"order names categories twice: {twice[:3]}")
        sizes = tuple(as_int("sizes", s) for s in sequence("sizes", self.sizes))
        if any(s < 2 for s in sizes):
            raise ConfigError(f"group sizes must be at least 2, got {list(sizes)}")
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "sizes", sizes)

    def rows(self, values: pl.Series) -> list[list[str]]:
        leaves = as_text(values)
        position = {v: i for i, v in enumerate(self.order)}
        unknown = [v for v in leaves if v not in position]
        if unknown:
            raise ConfigError(
                f"column '{values.name}': {counted(len(unknown), 'value')} not in the order, "
                f"first: {unknown[:3]}"
            )
        # the categories each group of each level spans, as (first, last) positions
        spans: list[list[tuple[int, int]]] = []
        width = 1
        for s in self.sizes:
            width *= s
            spans.append(
                [(i, min(i + width, len(self.order)) - 1) for i in range(0, len(self.order), width)]
            )
        rows = []
        for leaf in leaves:
            p = position[leaf]
            row = [leaf]
            for level, size in zip(spans, self._widths(), strict=True):
                first, last = level[p // size]
                a, b = self.order[first], self.order[last]
                row.append(a if first == last else f"{a}..{b}")
            rows.append(row)
        return rows

    def _widths(self) -> list[int]:
        out, width = [], 1
        for s in self.sizes:
            width *= s
            out.append(width)
        return out


def ordered(values: Any, order: list[str], sizes: list[int]) -> Hierarchy:
    """Groups of consecutive categories over ``values``.

    >>> h = ordered(["low", "high"], order=["none", "low", "mid", "high"], sizes=[2])
    >>> h.rows
    [['low', 'none..low', '*'], ['high', 'mid..high', '*']]
    """
    return Ordered(sequence("order", order), sequence("sizes", sizes)).build(values)
