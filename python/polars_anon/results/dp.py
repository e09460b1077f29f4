"""A differentially private release's answer (`polars_anon.differential_privacy`):
the parameters it derived, the scheme it chose and the release, checked
before it is handed back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.build import generalize_prepared, guarded
from polars_anon.release.guard import Guarded
from polars_anon.release.parts import sink_kind, write_release
from polars_anon.reports.render import aligned, levels_text, table_html
from polars_anon.results.pickled import table_again, table_kept
from polars_anon.roles.spec import Roles

if TYPE_CHECKING:
    from polars_anon.dp.search import Walk
    from polars_anon.utility.report import QualityReport


@dataclass(frozen=True)
class DPResult:
    """An (epsilon, delta)-differentially private release by SafePub: each
    record sampled with probability ``beta``, the quasi-identifiers
    generalized at ``levels``, and every class of fewer than ``k`` sampled
    records suppressed.

    ``epsilon_search`` is the budget the search spent choosing ``levels``
    (0 when the scheme was given), ``epsilon_anonymization`` the budget k
    and beta were derived from; they add up to ``epsilon``. ``sampled``:
    the records in the sample; ``suppressed``: those of them in classes
    smaller than k; ``released``: the rest. ``path``: the nodes the search
    chose in turn, with their scores (empty when the scheme was given).

    ``apply()`` (or ``release``) is the release: a LazyFrame holding the
    quasi-identifiers only (every other column is left out: a value
    passed through unchanged would single out its record, which the
    guarantee does not cover), checked when built and again each time it
    is collected. ``sink_parquet``, ``sink_csv`` and ``sink_ipc`` write it,
    proven on the file written.

    The figures here (the sample's size, the suppressed records, the
    scores) are read from the data without noise: they are for the data
    owner, not for publication."""

    prep: Prepared = field(repr=False)
    k: int
    beta: float
    epsilon: float
    delta: float
    epsilon_search: float
    epsilon_anonymization: float
    levels: dict[str, int]
    metric: str | None
    steps: int
    final: str | None
    # the table's columns other than the quasi-identifiers: left out
    left_out: list[str] = field(repr=False, default_factory=list)
    walk: Walk | None = field(repr=False, default=None)
    suppressed: int = 0
    # the table's rows, when they were counted (a DataFrame's, or for a score
    # that needs them)
    rows: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        """A pickle keeps the sample's plan (seeded: it draws the same
        records again) rather than its prepared table."""
        engine = self.prep.engine
        if engine != "polars":
            raise ConfigError(
                f"a DPResult on {engine} does not pickle: its sample lives in the {engine} "
                f"connection; write its release (result.apply()) with {engine}'s own writer"
            )
        state = {k: v for k, v in self.__dict__.items() if k != "prep"}
        state["_table"] = table_kept(self.prep)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        object.__setattr__(self, "prep", table_again(state.pop("_table")))
        for k, v in state.items():
            object.__setattr__(self, k, v)

    @property
    def quasi_identifiers(self) -> list[str]:
        """The columns released, generalized at ``levels``."""
        return self.prep.quasi_identifiers

    @property
    def mode(self) -> str:
        """``"data-dependent"`` (the scheme searched on the sample) or
        ``"data-independent"`` (given as ``generalization``)."""
        return "data-dependent" if self.walk is not None else "data-independent"

    @property
    def sampled(self) -> int:
        """The records in the sample."""
        return self.prep.rows

    @property
    def released(self) -> int:
        """The sampled records released (those of classes of at least ``k``)."""
        return self.sampled - self.suppressed

    @property
    def path(self) -> pl.DataFrame:
        """The search's path: one row a step (0: the top), each
        quasi-identifier's level at the node chosen and its ``score``."""
        qis = self.quasi_identifiers
        chosen = self.walk.chosen if self.walk is not None else []
        cols: dict[str, Any] = {"step": pl.Series("step", range(len(chosen)), dtype=pl.UInt32)}
        for i, q in enumerate(qis):
            cols[q] = pl.Series(q, [c[i] for c in chosen], dtype=pl.UInt8)
        scores = [self.walk.scores[c] for c in chosen] if self.walk is not None else []
        cols["score"] = pl.Series("score", scores, dtype=pl.Float64)
        return pl.DataFrame(cols)

    def _roles(self) -> Roles:
        from polars_anon.roles.spec import roles_of

        return roles_of(self.left_out)

    def _levels(self) -> list[int]:
        return [self.levels[q] for q in self.quasi_identifiers]

    def apply(self) -> Any:
        """The release: the sample's quasi-identifiers at ``levels``, the
        classes of fewer than ``k`` records suppressed; a LazyFrame that
        draws the same sample each time it is collected and checks it holds
        the classes checked here (on DuckDB and Spark, a relation or
        DataFrame built there, drawn again and checked the same way)."""
        return generalize_prepared(
            self.prep, self._levels(), self.k, self.prep.rows, None, self._roles()
        )

    @property
    def release(self) -> Any:
        """`apply()`."""
        return self.apply()

    def quality(self) -> QualityReport:
        """ARX's quality statistics (`polars_anon.quality`) of the release
        against the sample it was drawn from."""
        from polars_anon.utility.quality import quality_prepared

        return quality_prepared(self.prep, self._levels(), self.k, self.prep.rows)

    def sink_parquet(self, path: str | Path, *, partition_rows: int | None = None) -> Path:
        """Write the release to a Parquet file (or a folder of parts, as
        `SearchResult.sink_parquet`), streamed and proven on what was
        written; returns the path."""
        return self._sink(path, "parquet", partition_rows)

    def sink_csv(self, path: str | Path, *, separator: str = ",") -> Path:
        """`sink_parquet` to a CSV file, its fields separated by ``separator``."""
        return self._sink(path, "csv", separator=separator)

    def sink_ipc(self, path: str | Path) -> Path:
        """`sink_parquet` to an Arrow IPC (Feather) file."""
        return self._sink(path, "ipc")

    def _sink(
        self, path: str | Path, fmt: str, partition_rows: int | None = None, separator: str = ","
    ) -> Path:
        if self.prep.engine != "polars":
            raise ConfigError(
                f"a release on {self.prep.engine} is written where it lives: result.apply() "
                f"gives it there, checked, to write with {self.prep.engine}'s own writer"
            )
        kind = sink_kind(path, fmt, partition_rows)  # before any work
        release = guarded(self.prep, self._levels(), self.k, self.prep.rows, None, self._roles())
        assert isinstance(release, Guarded)
        return write_release(release, path, kind, partition_rows, separator)

    def _rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [
            ("guarantee", f"({self.epsilon:g}, {self.delta:g})-differential privacy (SafePub)"),
            ("mode", self.mode),
            ("k", self.k),
            ("beta", f"{self.beta:.6g}"),
            (
                "epsilon",
                f"{self.epsilon_search:.6g} search + {self.epsilon_anonymization:.6g} "
                "anonymization",
            ),
            ("levels", levels_text(self.levels)),
        ]
        if self.walk is not None:
            rows.append(
                (
                    "search",
                    f"{len(self.walk.chosen) - 1} of {self.steps} steps by {self.metric}, "
                    f"{len(self.walk.scores):,} nodes scored, answer: {self.final}",
                )
            )
        table = f" of {self.rows:,}" if self.rows is not None else ""
        rows.append(
            (
                "records",
                f"{self.sampled:,} sampled{table}, {self.suppressed:,} of them suppressed, "
                f"{self.released:,} released",
            )
        )
        if self.left_out:
            rows.append(("left out", ", ".join(self.left_out)))
        return rows

    def __repr__(self) -> str:
        return aligned("DPResult", self._rows())

    def _repr_html_(self) -> str:
        return table_html("DPResult", self._rows())
