"""Numeric ranges of nested widths: level i puts a value in the bin of width
``widths[i-1]`` counted from ``anchor`` ([20-25) for width 5), each width a
multiple of the one before so that the bins nest; values below ``bottom`` or
from ``top`` on fall into open bins (<18, >=90) at every level, and bins are
cut at those bounds. The top is ``*``."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal, InvalidOperation, localcontext
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.hierarchy._spec import Spec, as_text, finite, option, sequence
from polars_anon.reports.render import counted, names_text


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
            # in decimal, as the bins are cut (`rows`)
            ratio = Decimal(repr(float(b))) / Decimal(repr(float(a)))
            if b <= a or ratio != ratio.to_integral_value():
                raise ConfigError(
                    f"interval widths must grow, each a multiple of the one before so the "
                    f"bins nest: {b!r} after {a!r} in {names_text(self.widths)}"
                )
        object.__setattr__(self, "widths", widths)
        finite("anchor", self.anchor)
        if self.bottom is not None:
            finite("bottom", self.bottom)
        if self.top is not None:
            finite("top", self.top)
        if self.bottom is not None and self.top is not None and self.bottom >= self.top:
            raise ConfigError(f"bottom ({self.bottom}) must be below top ({self.top})")

    def rows(self, values: pl.Series) -> list[list[str]]:
        if values.dtype.is_numeric():
            numbers = values.cast(pl.Float64)
        else:
            numbers = values.cast(pl.String).cast(pl.Float64, strict=False)
            bad = values.filter(numbers.is_null())
            if bad.len():
                raise ConfigError(
                    f"column '{values.name}': interval hierarchies need numbers; "
                    f"{counted(bad.len(), 'value')} {'is' if bad.len() == 1 else 'are'} not, "
                    f"first: {bad.head(3).to_list()}"
                )
        bad = values.filter(~numbers.is_finite())
        if bad.len():
            raise ConfigError(
                f"column '{values.name}': {counted(bad.len(), 'value')} "
                + ("is not a finite number" if bad.len() == 1 else "are not finite numbers")
                + f", first: {bad.head(3).to_list()}"
            )
        # in decimal, as the values and bounds are written: in binary floats
        # 0.3 / 0.1 is 2.999..., which put 0.3 in [0.2-0.3), and 2^63 - 1
        # as a float is 2^63
        widths = [Decimal(repr(float(w))) for w in self.widths]
        anchor = Decimal(repr(float(self.anchor)))
        bottom, top = exact(self.bottom), exact(self.top)
        below = f"<{written(bottom)}" if bottom is not None else ""
        above = f">={written(top)}" if top is not None else ""

        bins: dict[tuple[Decimal, Decimal], str] = {}

        def label(v: Decimal, width: Decimal) -> str:
            if bottom is not None and v < bottom:
                return below
            if top is not None and v >= top:
                return above
            at = ((v - anchor) / width).to_integral_value(ROUND_FLOOR)
            known = bins.get((width, at))
            if known is not None:
                return known
            lo = anchor + at * width
            hi = lo + width
            if not lo <= v < hi:
                # a width more than 60 digits below the value: its bins
                # cannot be written apart at the value's magnitude
                raise ConfigError(
                    f"column '{values.name}': width {written(width)} is too fine for the "
                    f"value {written(v)}: bins of that width cannot be told apart there"
                )
            if bottom is not None:
                lo = max(lo, bottom)
            if top is not None:
                hi = min(hi, top)
            sep = ", " if lo < 0 or hi < 0 else "-"
            bins[width, at] = made = f"[{written(lo)}{sep}{written(hi)})"
            return made

        with localcontext(prec=60):
            return [
                [leaf, *(label(v, w) for w in widths)]
                for leaf, v in zip(as_text(values), decimals(values), strict=True)
            ]


def exact(x: float | None) -> Decimal | None:
    """A bound as the decimal it is written as (the shortest text that
    reads back as the float)."""
    return None if x is None else Decimal(repr(float(x)))


def decimals(values: pl.Series) -> list[Decimal]:
    """Finite numbers (or their text) as decimals: integers exactly, others
    as Polars writes them (a float as the shortest text that reads back as
    it, at its own width: a Float32 0.7 is 0.7; a Decimal exactly)."""
    if values.dtype.is_integer():
        return [Decimal(v) for v in values.to_list()]
    out = []
    for t, f in zip(
        values.cast(pl.String).to_list(),
        values.cast(pl.String).cast(pl.Float64, strict=False).to_list(),
        strict=True,
    ):
        try:
            out.append(Decimal(t))
        except InvalidOperation:
            out.append(Decimal(repr(f)))
    return out


def written(x: Decimal) -> str:
    """A bound as a label, exactly: integers without a decimal point."""
    if x == x.to_integral_value():
        return str(int(x))
    return format(x.normalize(), "f")


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
