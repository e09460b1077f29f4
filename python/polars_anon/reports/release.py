"""What a release does (`SearchResult.release_report`): its levels, the rows
it suppresses, and what becomes of every column of the table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_anon.reports.render import aligned, column_rows, levels_text, table_html
from polars_anon.reports.suppressed import informative, reasons_text


@dataclass(frozen=True, repr=False)
class ReleaseReport:
    """A release's levels, suppressed rows and columns (``columns``: a frame
    of ``column``, ``role``, ``released_as``, one row per column), and the
    groups suppressed with why each went (``suppressed_groups``: each
    quasi-identifier's label, ``tuples``, ``reason``: ``k``, a criterion's
    name, or the models of the whole release that needed it)."""

    k: int
    levels: dict[str, int]
    rows: int
    suppressed: int
    columns: pl.DataFrame
    # the groups suppressed: each quasi-identifier's label, ``tuples`` and the
    # ``reason`` (`release.suppressed`)
    suppressed_groups: pl.DataFrame = field(default_factory=pl.DataFrame, repr=False)
    # the tuples the release may suppress: past them `apply` refuses
    max_suppression: int | None = None

    @property
    def refused(self) -> list[str]:
        """The undeclared columns a release refuses (empty when it can go)."""
        refused = self.columns.filter(pl.col("released_as").str.starts_with("refused"))
        return refused.get_column("column").to_list()

    def _rows(self) -> list[tuple[str, Any]]:
        return [
            ("k", self.k),
            ("levels", levels_text(self.levels)),
            ("rows", self.rows),
            ("suppressed", self._suppressed()),
            *(
                [("suppressed by", reasons_text(self.suppressed_groups))]
                if informative(self.suppressed_groups)
                else []
            ),
            *column_rows(self.columns, most=1000),
        ]

    def _suppressed(self) -> Any:
        allowed = getattr(self, "max_suppression", None)  # None in older pickles
        if allowed is None:
            return self.suppressed
        if self.suppressed > allowed:
            return f"{self.suppressed}, more than the {allowed} allowed: apply refuses this release"
        return f"{self.suppressed} (allowed {allowed})"

    def __str__(self) -> str:
        return aligned("ReleaseReport", self._rows())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return table_html("ReleaseReport", self._rows())
