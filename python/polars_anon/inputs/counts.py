"""A frequency set: the distinct values of the quasi-identifiers (and the
sensitive attributes the criteria read) with how many records have each.
Everything after the one scan needs only this, so it can be computed where
the data lives (Polars, DuckDB, Spark, a warehouse query) and searched here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.reports.render import levels_text, names_text


@dataclass(frozen=True)
class FrequencySet:
    """Distinct values (``frame``'s columns other than ``count``, nulls kept
    as a value) and the number of records with each (``count``). `check`,
    `search`, `incognito` and `risk` take one wherever they take data; a
    release needs the table itself (``result.apply(table)``)."""

    frame: pl.DataFrame
    count: str = "n"
    # whether `frame`'s rows are distinct (made by `from_counts`): a
    # preparation over all its columns then need not group them again
    distinct: bool = field(default=False, repr=False, compare=False)

    @classmethod
    def from_counts(cls, frame: Any, count: str = "n") -> FrequencySet:
        """A frequency set computed elsewhere (a warehouse's ``GROUP BY``):
        one row per distinct combination, its record count in ``count``.
        Rows with the same values are added up; counts must be positive
        integers.

        >>> import polars as pl
        >>> fs = FrequencySet.from_counts(pl.DataFrame({"zip": ["1", "2"], "n": [3, 4]}))
        >>> fs.rows
        7
        """
        if not isinstance(frame, pl.DataFrame):
            frame = pl.DataFrame(frame)
        if count not in frame.columns:
            raise ConfigError(
                f"the counts frame has no count column {count!r}; its columns are "
                f"{names_text(frame.columns)} (name it with count=)"
            )
        counts = frame.get_column(count)
        if not counts.dtype.is_integer():
            raise ConfigError(f"count column {count!r} must hold integers, got {counts.dtype}")
        if counts.null_count() or int(counts.min() or 0) < 1:
            bad = frame.filter(pl.col(count).is_null() | (pl.col(count) < 1)).head(1)
            raise ConfigError(
                f"count column {count!r} must hold counts of at least 1; first bad row: "
                f"{levels_text(bad.row(0, named=True), ', ') if bad.height else 'a null count'}"
            )
        keys = [c for c in frame.columns if c != count]
        if not keys:
            raise ConfigError("the counts frame has no columns besides its count")
        merged = frame.group_by(keys).agg(pl.col(count).sum().cast(pl.UInt64))
        return cls(merged, count, distinct=True)

    @property
    def rows(self) -> int:
        """Records counted."""
        return int(self.frame.get_column(self.count).sum())

    def __repr__(self) -> str:
        cols = [c for c in self.frame.columns if c != self.count]
        # on lines of at most 100 characters, as the reports' (a list of
        # columns can be long)
        return (
            f"FrequencySet({self.frame.height:,} distinct combinations of {self.rows:,} "
            f"records\n  over {cols})"
        )
