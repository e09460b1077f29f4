"""Right-to-left redaction: level i masks the last ``masked[i-1]``
characters with ``char`` (53715, 5371*, 537**, ...; by default one more
character a level until all are). With ``width``, shorter values are padded
on the left with ``pad`` first (ZIP codes read as numbers, 2134 -> 02134), and
a longer one is an error. The top is one ``char``; a level that would mask
every value whole (values of one length) is left out, as it would be a
second top."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.hierarchy._spec import Spec, as_text, option, sequence
from polars_anon.inputs.params import as_int
from polars_anon.reports.render import counted


@dataclass(frozen=True)
class Masking(Spec):
    """The spec of `masking`: right-to-left redaction, ``masked`` characters
    a level, values padded to ``width`` with ``pad`` (see the module)."""

    masked: tuple[int, ...] | None = option(
        "characters masked per level: 1,2,3 (default: one more a level)", "numbers", default=None
    )
    char: str = option("the mask character", default="*")
    width: int | None = option("pad values to this width", default=None)
    pad: str = option("the padding character", default="0")

    builder = "masking"
    summary = "right-to-left redaction (ZIP codes, phone prefixes)"

    def __post_init__(self) -> None:
        if self.masked is not None:
            masked = tuple(as_int("masked", m) for m in self.masked)
            if not masked or masked[0] < 1 or any(b <= a for a, b in itertools.pairwise(masked)):
                raise ConfigError(
                    f"masked must count characters masked per level, growing from 1 or "
                    f"more: got {list(self.masked)}"
                )
            object.__setattr__(self, "masked", masked)
        for name in ("char", "pad"):
            if not isinstance(getattr(self, name), str) or len(getattr(self, name)) != 1:
                raise ConfigError(f"{name} must be one character, got {getattr(self, name)!r}")
        if self.width is not None and not 1 <= as_int("width", self.width) <= 10_000:
            raise ConfigError(f"width must be in [1, 10000], got {self.width}")

    def rows(self, values: pl.Series) -> list[list[str]]:
        leaves = as_text(values)
        texts = leaves
        if self.width is not None:
            long = [v for v in leaves if len(v) > self.width]
            if long:
                raise ConfigError(
                    f"column '{values.name}': {counted(len(long), 'value')} longer than width "
                    f"{self.width}, first: {long[:3]}"
                )
            texts = [v.rjust(self.width, self.pad) for v in leaves]
        longest = max(len(t) for t in texts)
        masked = self.masked or tuple(range(1, longest + 1))
        # a level that masks every value whole is one value, as the top is:
        # it and those above it give way to the top (`Spec.build` adds it)
        lengths = {len(t) for t in texts}
        if len(lengths) == 1:
            masked = tuple(m for m in masked if m < longest)
        rows = []
        for leaf, t in zip(leaves, texts, strict=True):
            row = [leaf]
            for m in masked:
                keep = max(len(t) - m, 0)
                row.append(t[:keep] + self.char * (len(t) - keep))
            rows.append(row)
        return rows

    def top_label(self) -> str:
        return self.char


def masking(
    values: Any,
    masked: list[int] | None = None,
    char: str = "*",
    width: int | None = None,
    pad: str = "0",
) -> Hierarchy:
    """A redaction hierarchy over ``values``.

    >>> masking(["53715", "53706", "1234"], masked=[1, 3], width=5).rows[1:]
    [['53706', '5370*', '53***', '*'], ['1234', '0123*', '01***', '*']]
    """
    chosen = None if masked is None else sequence("masked", masked)
    return Masking(chosen, char, width, pad).build(values)
