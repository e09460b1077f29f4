"""What `check` found for one generalization of a table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.inputs.params import suppression_share
from polars_anon.reports.render import aligned, column_rows, levels_text, table_html
from polars_anon.reports.suppressed import informative, reasons_text

if TYPE_CHECKING:
    from polars_anon.reports.risk import RiskReport
    from polars_anon.utility.report import QualityReport


@dataclass(frozen=True, repr=False)
class CheckReport:
    """What `check` found for one generalization of a table."""

    k: int
    quasi_identifiers: list[str]
    levels: dict[str, int]
    rows: int
    # the groups at these levels and the smallest, suppressed ones included
    # (those kept: `released_sizes`)
    groups: int
    min_group_size: int
    suppressed: int
    max_suppression: int
    k_anonymous: bool
    height: int
    precision: float
    discernibility: float
    cavg: float
    distortion: float
    loss: float
    group_sizes: pl.DataFrame = field(repr=False)
    criteria: list[str] = field(default_factory=list)
    # the sizes of the groups released (not suppressed), one per group
    released_sizes: pl.Series = field(default_factory=lambda: pl.Series([], dtype=pl.UInt64))
    # what a release at these levels does with each column: ``column``,
    # ``role``, ``released_as`` (`polars_anon.roles`)
    columns: pl.DataFrame = field(default_factory=pl.DataFrame)
    # the groups suppressed: each quasi-identifier's label, ``tuples`` and the
    # ``reason`` (`release.suppressed`)
    suppressed_groups: pl.DataFrame = field(default_factory=pl.DataFrame, repr=False)
    # the checked table and criteria, for `quality` (not pickled)
    _source: Any = field(default=None, repr=False, compare=False)
    # the budget as given (a count, or a fraction of `rows`)
    suppression: int | float | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_source"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickles made before reports listed the columns
        state.setdefault("columns", pl.DataFrame())
        state.setdefault("suppressed_groups", pl.DataFrame())
        state.setdefault("_source", None)
        state.setdefault("suppression", None)
        self.__dict__.update(state)

    def risk(self, population: int | float | None = None, threshold: float = 0.2) -> RiskReport:
        """The re-identification risk of the table as these levels release it
        (the suppressed groups left out). ``population``: the number of records
        of the population the table is a sample of (None: the table is the
        population); for a population table, use `polars_anon.risk` on the
        release."""
        if isinstance(population, (pl.DataFrame, pl.LazyFrame)):
            raise ConfigError(
                "CheckReport.risk takes a population size; for a population table call "
                "polars_anon.risk(release, quasi_identifiers, population=table)"
            )
        # imported on first use, as `polars_anon.risk` is
        from polars_anon.reports.risk import report

        return report(
            self.quasi_identifiers, self.levels, self.released_sizes, threshold, population
        )

    def quality(self) -> QualityReport:
        """ARX's quality statistics (`polars_anon.quality`) of the release at
        these levels."""
        from polars_anon.utility.quality import quality_prepared

        if self._source is None:
            raise ConfigError(
                "this report has no table (it was unpickled): call polars_anon.quality on the table"
            )
        prep, criteria = self._source
        levels = list(self.levels.values())
        return quality_prepared(prep, levels, self.k, self.max_suppression, criteria)

    def plot_group_sizes(self) -> Any:
        """A histogram of the groups' sizes, before and after suppression, with k
        marked (a matplotlib Figure; needs the ``plot`` extra)."""
        from polars_anon.plot.groups import group_sizes

        return group_sizes(self.k, self.levels, self.group_sizes, self.released_sizes)

    def _rows(self) -> list[tuple[str, Any]]:
        return [
            ("k-anonymous" + (" and criteria met" if self.criteria else ""), self.k_anonymous),
            ("k", self.k),
            *([("criteria", "; ".join(self.criteria))] if self.criteria else []),
            ("levels", levels_text(self.levels)),
            ("rows", self.rows),
            *self._group_rows(),
            (
                "suppressed (in groups < k"
                + (" or failing the criteria)" if self.criteria else ")"),
                self._suppressed_text(),
            ),
            *(
                [("suppressed by", reasons_text(self.suppressed_groups))]
                if informative(self.suppressed_groups)
                else []
            ),
            ("height", self.height),
            ("precision (Prec)", round(self.precision, 4)),
            ("discernibility (DM)", self.discernibility),
            ("normalized avg group size (CAVG)", round(self.cavg, 4)),
            ("distortion ratio", round(self.distortion, 4)),
            ("loss (ARX)", round(self.loss, 4)),
            *column_rows(self.columns),
        ]

    def _suppressed_text(self) -> str:
        share = suppression_share(self.suppression, self.max_suppression, self.rows)
        allowed = f"{self.max_suppression:,}" + (f": {share}" if share else "")
        return f"{self.suppressed:,} (allowed {allowed})"

    def _group_rows(self) -> list[tuple[str, Any]]:
        # `groups` and `min_group_size` count the suppressed groups too: beside
        # them, what is kept, so that "smallest group 1" of a passing table
        # says where that group goes
        kept = self.released_sizes
        if self.suppressed == 0 or kept.len() == self.groups:
            return [("groups", self.groups), ("smallest group", self.min_group_size)]
        gone = self.groups - kept.len()
        smallest = min(kept.to_list(), default=None)
        # past the budget nothing is released: what a release would keep
        kept_as = "kept" if self.k_anonymous else "would be kept"
        return [
            ("groups", f"{self.groups:,} ({kept.len():,} {kept_as}, {gone:,} suppressed)"),
            (
                "smallest group",
                self.min_group_size
                if smallest is None
                else f"{self.min_group_size:,} (smallest {kept_as}: {smallest:,})",
            ),
        ]

    def __str__(self) -> str:
        return aligned("CheckReport", self._rows())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return table_html("CheckReport", self._rows())
