"""Numeric ranges of nested widths: level i puts a value in the bin of width
``widths[i-1]`` counted from ``anchor`` ([20-25) for width 5), each width a
multiple of the one before so that the bins nest; values below ``bottom`` or
from ``top`` on fall into open bins (<18, >=90) at every level, and bins are
cut at those bounds. The top is ``*``."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.hierarchy._spec import Spec, as_text, finite, number, option, sequence


@dataclass(frozen=True)
class Interval(Spec):
    """The spec of `interval`: numeric ranges of nested ``widths`` from
    ``anchor``, open bins below ``bottom`` and from ``top`` (see the module)."""

    widths: tuple[float, ...] = option("nested widths: 5,10,20", "numbers")
    anchor: float = option("where bins start", default=0)
    bottom: float | None = option("values below: one open bin", default=None)
    top: float | None = option("values from here: one open bin", default=None)

    builder = "interval"
    summary = "numeric ranges of nested widths"

    def __post_init__(self) -> None:
        widths = sequence("widths", self.widths)
        for w in widths:
            finite("interval widths", w)
        for w in widths:
            if w <= 0:
                raise ConfigError(f"interval widths must be positive, got {list(self.widths)}")
        for a, b in itertools.pairwise(widths):
            ratio = b / a
            if b <= a or abs(ratio - round(ratio)) > 1e-9 * ratio:
                raise ConfigError(
                    f"interval widths must grow, each a multiple of the one before so the "
                    f"bins nest: {number(b)} after {number(a)} in {list(self.widths)}"
                )
        object.__setattr__(self, "widths", widths)
        finite("anchor", self.anchor)
        if self.bottom is not None:
            finite("bottom", self.bottom)
        if self.top is not None:
            finite("top", self.top)
        if self.bottom is not None and self.top is not None and self.bottom >= self.top:
            raise ConfigError(f"bottom ({self.bottom}) must be below top ({self.top})")

    def _label(self, v: float, width: float) -> str:
        if self.bottom is not None and v < self.bottom:
            return f"<{number(self.bottom)}"
        if self.top is not None and v >= self.top:
            return f">={number(self.top)}"
        lo = self.anchor + math.floor((v - self.anchor) / width) * width
        hi = lo + width
        if self.bottom is not None:
            lo = max(lo, self.bottom)
        if self.top is not None:
            hi = min(hi, self.top)
        sep = ", " if lo < 0 or hi < 0 else "-"
        return f"[{number(lo)}{sep}{number(hi)})"

    def rows(self, values: pl.Series) -> list[list[str]]:
        if values.dtype.is_numeric():
            numbers = values.cast(pl.Float64)
        else:
            numbers = values.cast(pl.String).cast(pl.Float64, strict=False)
            bad = values.filter(numbers.is_null())
            if bad.len():
                raise ConfigError(
                    f"column '{values.name}': interval hierarchies need numbers; "
                    f"{bad.len()} value(s) are not, first: {bad.head(3).to_list()}"
                )
        bad = values.filter(~numbers.is_finite())
        if bad.len():
            raise ConfigError(
                f"column '{values.name}': {bad.len()} value(s) are not finite numbers, "
                f"first: {bad.head(3).to_list()}"
            )
        return [
            [leaf, *(self._label(v, w) for w in self.widths)]
            for leaf, v in zip(as_text(values), numbers.to_list(), strict=True)
        ]


def interval(
    values: Any,
    widths: list[float],
    anchor: float = 0,
    bottom: float | None = None,
    top: float | None = None,
) -> Hierarchy:
    """A hierarchy of numeric ranges over ``values``.

    >>> h = interval([23, 37, 41, 95], widths=[5, 10, 20], bottom=20, top=90)
    >>> h.rows[0], h.rows[-1]
    (['23', '[20-25)', '[20-30)', '[20-40)', '*'], ['95', '>=90', '>=90', '>=90', '*'])
    """
    return Interval(sequence("widths", widths), anchor, bottom, top).build(values)
