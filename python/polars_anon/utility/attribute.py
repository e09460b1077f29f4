"""One quasi-identifier as ARX's quality models see it: its hierarchy table
(as ARX fixes it), the lookups they make in it, its data type, and its
values as intervals of numbers (`QualityModel.getColumnsAsNumbers`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import polars as pl

from polars_anon._core import Hierarchy

# ARX's label of a suppressed cell (`DataType.ANY_VALUE`), and of a missing
# value (`DataType.NULL_VALUE`)
STAR = "*"
NULL = "NULL"

# Polars dtypes that ARX would declare `Integer` or `Decimal`, the ratio-scale
# types whose values its models parse as numbers; anything else is `String`
INTEGER = "Integer"
DECIMAL = "Decimal"
STRING = "String"


def arx_type(dtype: pl.DataType) -> str:
    """The ARX data type a column of this Polars dtype is treated as."""
    if dtype.is_integer():
        return INTEGER
    if dtype.is_float() or dtype.is_decimal():
        return DECIMAL
    return STRING


def parse(value: str) -> float:
    """A numeric cell as ARX parses it (`QualityConfigurationValueParser`):
    ``NULL`` in any case is read as null, then silently as 0."""
    return 0.0 if value.upper() == NULL else float(value)


def fixed_table(hierarchy: Hierarchy) -> list[list[str]]:
    """The hierarchy table as `StatisticsQuality.getHierarchy` fixes it: its
    rows in order, with a column of ``*`` appended when its last column has
    more than one value (a column without a hierarchy gets its values and
    ``*``, as ARX's trivial hierarchy)."""
    rows = [list(r) for r in hierarchy.rows]
    if len({r[-1] for r in rows}) > 1:
        rows = [[*r, STAR] for r in rows]
    return rows


def single_root(rows: Iterable[list[str]]) -> str | None:
    """The value of the last column when it has only one (`getRoot`)."""
    roots = {r[-1] for r in rows}
    return next(iter(roots)) if len(roots) == 1 else None


@dataclass(frozen=True)
class Attribute:
    """A quasi-identifier: its name, its level in the release, its ARX data
    type and its hierarchy (the table as given, and as ARX fixes it)."""

    name: str
    level: int
    kind: str
    hierarchy: Hierarchy

    @cached_property
    def table(self) -> list[list[str]]:
        return fixed_table(self.hierarchy)

    @property
    def size(self) -> int:
        """D: the rows of the hierarchy table (not the values in the data)."""
        return len(self.table)

    @property
    def columns(self) -> int:
        """L: the columns of the fixed table (levels 0 to L - 1)."""
        return len(self.table[0])

    @cached_property
    def missing_root(self) -> str | None:
        """The root that counts as missing: the given table's single root
        (`StatisticsQuality.getMissings`), not the fixed one's."""
        return single_root(self.hierarchy.rows)

    @cached_property
    def root(self) -> str | None:
        """The fixed table's single root (`QualityModel.getRoot`)."""
        return single_root(self.table)

    def is_suppressed_value(self, value: str) -> bool:
        """`QualityModel.isSuppressed(column, value)`."""
        return value == STAR or value == self.root

    @cached_property
    def lowest(self) -> dict[str, int]:
        """Each string's lowest column in the fixed table (the first found
        scanning column by column: `getPrecisions`,
        `getInverseGeneralizationFunction`)."""
        out: dict[str, int] = {}
        for c in range(self.columns):
            for row in self.table:
                out.setdefault(row[c], c)
        return out

    @cached_property
    def shares(self) -> dict[str, float]:
        """`QualityDomainShareRaw.getShares`: a leaf is 1/D, a label the
        rows under it over D, a string at several levels keeping its
        highest level's share (later levels overwrite earlier ones)."""
        d = float(self.size)
        out = {row[0]: 1.0 / d for row in self.table}
        for c in range(1, self.columns):
            counts = Counter(row[c] for row in self.table)
            out.update({v: n / d for v, n in counts.items()})
        return out

    def share(self, value: str) -> float:
        """`QualityDomainShareRaw.getShare`: unknown values count as a leaf,
        an unknown ``*`` as the whole domain."""
        found = self.shares.get(value)
        if found is not None:
            return found
        return 1.0 if value == STAR else 1.0 / self.size

    def generalized(self, column: int) -> dict[str, str]:
        """Each leaf's value in a column of the fixed table
        (`getGeneralizationFunctions`)."""
        return {row[0]: row[column] for row in self.table}

    @cached_property
    def spans(self) -> dict[str, tuple[float, float]]:
        """`QualityModel.getNumbersFromHierarchy`: each string as the first
        and last row (0-based, in the table's order) it appears in, at any
        level; ``*`` as the whole table when it is not in it."""
        out: dict[str, tuple[float, float]] = {}
        for c in range(self.columns):
            for i, row in enumerate(self.table):
                lo, hi = out.get(row[c], (i, i))
                out[row[c]] = (min(lo, i), max(hi, i))
        out.setdefault(STAR, (0.0, float(self.size - 1)))
        return {v: (float(lo), float(hi)) for v, (lo, hi) in out.items()}

    def intervals(
        self, cells: list[tuple[str, str]]
    ) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]]:
        """`QualityModel.getColumnsAsNumbers` for this column, from its
        distinct (input value, output value) pairs: each input value's
        interval, and each output value's (a suppressed record's is ``*``).

        - Integer or Decimal: an input value is itself, ``*`` (a suppressed
          record) the input's [min, max]. At level 0 (the output keeps the
          declared type) any other output value is itself; above it (the
          output is text) a label spans the input values released as it,
          and the root the input's [min, max]
          (`getNumbersFromNumericColumnAndHierarchy`): ARX never parses
          interval labels for its own releases.
        - String: both sides through the hierarchy's row numbers
          (`getNumbersFromHierarchy`)."""
        if self.kind == STRING:
            spans = self.spans
            return {a: spans[a] for a, _ in cells}, {b: spans[b] for _, b in cells}
        numbers = {a: parse(a) for a, _ in cells}
        whole = (min(numbers.values()), max(numbers.values()))
        ranges: dict[str, tuple[float, float]] = {}
        for a, b in cells:
            v = numbers[a]
            lo, hi = ranges.get(b, (v, v))
            ranges[b] = (min(lo, v), max(hi, v))
        outputs: dict[str, tuple[float, float]] = {}
        for _, b in cells:
            if b == STAR or (self.level > 0 and self.is_suppressed_value(b)):
                outputs[b] = whole
            elif self.level == 0:
                outputs[b] = (parse(b), parse(b))
            else:
                outputs[b] = ranges[b]
        return {a: (v, v) for a, v in numbers.items()}, outputs
