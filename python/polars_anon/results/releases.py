"""A search result's release: ``apply`` (a LazyFrame that re-checks itself
when collected, or a checked snapshot on DuckDB and Spark) and the writes
proven on the file they write (`release.write`): ``sink_parquet``,
``sink_csv`` and ``sink_ipc``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.criteria.base import Criterion, against_population
from polars_anon.inputs.params import max_suppressed
from polars_anon.prepare.f0 import prepare
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.build import columns_released, generalize_prepared, guarded
from polars_anon.release.engine_write import OnEngine, writable
from polars_anon.release.guard import Guarded
from polars_anon.release.parts import sink_kind, write_release
from polars_anon.release.quiet import quiet_panics, said, sources
from polars_anon.release.suppressed import suppressed_groups
from polars_anon.reports.release import ReleaseReport
from polars_anon.roles.resolve import resolve
from polars_anon.roles.spec import Identifiers, Roles, roles_of

if TYPE_CHECKING:
    from polars_anon.utility.report import QualityReport


class Releases:
    """The releases of `SearchResult`, which gives the table, the model and
    the choice of levels (`best`)."""

    __slots__ = ()
    k: int
    suppression: int | float
    criteria: list[Criterion]
    quasi_identifiers: list[str]
    roles: Roles
    _prep: Prepared

    def best(
        self,
        criterion: str | None = None,
        *,
        weights: Mapping[str, float] | None = None,
        bounds: Mapping[str, int | tuple[int, int]] | None = None,
    ) -> dict[str, int]:
        raise NotImplementedError

    def apply(
        self,
        data: Any = None,
        levels: Mapping[str, int] | None = None,
        criterion: str | None = None,
        *,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
    ) -> Any:
        """The generalized, suppressed table at ``levels`` (default: ``best(criterion)``):
        a LazyFrame that re-checks itself when collected, or for a DuckDB
        relation or Spark DataFrame a checked snapshot of the release built
        there (a relation, a DataFrame).

        ``data``: another table to release with the same levels (next month's
        file, say), searched or not: it is re-checked on its own, and a
        ``max_suppression`` given as a fraction is a fraction of that table.
        The very LazyFrame searched is released as without ``data`` (from
        the search's preparation; checked when collected).
        ``identifiers`` and ``insensitive``: roles added to the search's
        (see `polars_anon.search`); an identifier of the search's made
        insensitive is refused.
        """
        prep, lv = self._release_of(data, levels, criterion)
        roles = self._roles(identifiers, insensitive)
        return generalize_prepared(prep, lv, self.k, self.suppression, self.criteria, roles)

    def release_report(
        self,
        data: Any = None,
        levels: Mapping[str, int] | None = None,
        criterion: str | None = None,
        *,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
    ) -> ReleaseReport:
        """What `apply` (with the same arguments) releases: the levels, the
        rows suppressed and what becomes of every column, without building
        the release. An undeclared column that `apply` would refuse is
        listed as refused."""
        prep, lv = self._release_of(data, levels, criterion)
        roles = self._roles(identifiers, insensitive)
        if prep.engine == "counts":
            raise ConfigError("a frequency set has no columns to release: pass the table")
        model = prep.model(self.criteria, feasible=False)
        suppressed = prep.problem.evaluate(lv, self.k, "auto", model).suppressed
        why = suppressed_groups(prep, lv, self.k, model) if suppressed else pl.DataFrame()
        source = prep.lazy if prep.engine == "polars" else prep.source
        resolved = resolve(
            source,
            prep.engine,
            prep.rows,
            prep.quasi_identifiers,
            prep.sensitive,
            roles,
            refuse=False,
        )
        return ReleaseReport(
            k=self.k,
            levels=dict(zip(prep.quasi_identifiers, lv, strict=True)),
            rows=prep.rows,
            suppressed=suppressed,
            columns=columns_released(prep, lv, suppressed, roles, resolved),
            suppressed_groups=why,
            max_suppression=max_suppressed(self.suppression, prep.rows),
        )

    def quality(
        self, levels: Mapping[str, int] | None = None, criterion: str | None = None
    ) -> QualityReport:
        """ARX's quality statistics (`polars_anon.quality`) of the release
        `apply` makes at ``levels`` (default: ``best(criterion)``)."""
        from polars_anon.utility.quality import quality_prepared

        prep, lv = self._release_of(None, levels, criterion)
        return quality_prepared(prep, lv, self.k, self.suppression, self.criteria)

    def _roles(self, identifiers: Identifiers | None, insensitive: Sequence[str] | None) -> Roles:
        return self.roles.merged(roles_of(identifiers, insensitive))

    def _release_of(
        self, data: Any, levels: Mapping[str, int] | None, criterion: str | None
    ) -> tuple[Prepared, list[int]]:
        """The table to release (this one, or `data` prepared alike) and the
        levels (given, or the best by `criterion`)."""
        if levels is not None and criterion is not None:
            raise ConfigError(
                f"levels= and criterion={criterion!r} both given: the criterion chooses the "
                "levels; give one of them"
            )
        chosen = levels if levels is not None else self.best(criterion)
        prep = self._prep
        # the searched LazyFrame itself is released as `apply()` releases it,
        # from the search's preparation: preparing the same plan again read
        # the whole table once more (and its memory stayed with Polars'
        # allocator through the collect); what the plan reads when collected
        # is checked then, as always. (A DataFrame can change in place.)
        if data is not None and not (isinstance(data, pl.LazyFrame) and data is prep.lazy):
            try:
                # (Polars panics on a Parquet file shorter than when scanned)
                with quiet_panics():
                    # on DuckDB and Spark, F0 at the floors of this release's model
                    prep = prepare(
                        data,
                        self.quasi_identifiers,
                        dict(zip(self.quasi_identifiers, prep.hierarchies, strict=True)),
                        prep.sensitive,
                        prep.nulls,
                        floors_for=None
                        if against_population(self.criteria)
                        else (self.k, self.suppression),
                    )
            except BaseException as e:
                # a file the scan reads that does not read as it did; any
                # other error (a plan's own, the core's) is raised as it is
                read = isinstance(e, pl.exceptions.PolarsError | OSError)
                if read or type(e).__name__ == "PanicException":
                    files = sources(data) if isinstance(data, pl.LazyFrame) else []
                    if files:
                        raise ConfigError(
                            f"the table given ({', '.join(files)}) could not be read: "
                            f"{type(e).__name__}: {said(e)}. If its file changed since it "
                            "was scanned, scan it again."
                        ) from e
                raise
        return prep, prep.levels(chosen)

    def sink_parquet(
        self,
        path: str | Path,
        data: Any = None,
        levels: Mapping[str, int] | None = None,
        criterion: str | None = None,
        *,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
        partition_rows: int | None = None,
    ) -> Path:
        """Write the release (as `apply` makes it: ``data``, ``levels`` and
        ``criterion`` as there) to a Parquet file, streamed and proven on the
        file: it is written beside ``path``, read back by a streaming
        group-by, and moved into place only if it holds exactly the groups
        that were checked; otherwise nothing is left at ``path``. The
        release is never held in memory. Returns the path written.

        A folder of parts for large outputs: when ``path`` ends with a slash
        or is an existing (empty) folder, or ``partition_rows`` is given, the
        release is written as ``part-00000.parquet``, ... (each of at most
        ``partition_rows`` rows, else of about 512 MiB as Polars estimates
        them in memory) into a temporary
        folder beside ``path``, proven on all the parts read back together,
        and the folder renamed into place; a folder that is not empty is
        refused. Read it back with ``pl.scan_parquet(path)``.

        On DuckDB the release (its snapshot, as `apply` builds it) is
        written by DuckDB into the temporary file and proven alike, in
        Parquet or CSV; a folder of parts is written from Polars only. On
        Spark, write `apply`'s DataFrame with Spark's writer."""
        return self._sink(
            path, "parquet", data, levels, criterion, identifiers, insensitive, partition_rows
        )

    def sink_csv(
        self,
        path: str | Path,
        data: Any = None,
        levels: Mapping[str, int] | None = None,
        criterion: str | None = None,
        *,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
        separator: str = ",",
    ) -> Path:
        """`sink_parquet` to a CSV file, its fields separated by ``separator``
        (one character of one byte)."""
        if not isinstance(separator, str) or len(separator.encode("utf8")) != 1:
            raise ConfigError(f"separator must be one character of one byte, got {separator!r}")
        if separator in ('"', "\n", "\r"):
            # the quote and line ends frame a CSV's fields and records
            raise ConfigError(f"separator cannot be {separator!r}: it frames a CSV's fields")
        args = (data, levels, criterion, identifiers, insensitive)
        return self._sink(path, "csv", *args, separator=separator)

    def sink_ipc(
        self,
        path: str | Path,
        data: Any = None,
        levels: Mapping[str, int] | None = None,
        criterion: str | None = None,
        *,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
    ) -> Path:
        """`sink_parquet` to an Arrow IPC (Feather) file."""
        return self._sink(path, "ipc", data, levels, criterion, identifiers, insensitive)

    def _sink(
        self,
        path: str | Path,
        fmt: str,
        data: Any,
        levels: Mapping[str, int] | None,
        criterion: str | None,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
        partition_rows: int | None = None,
        separator: str = ",",
    ) -> Path:
        kind = sink_kind(path, fmt, partition_rows)  # before any work
        prep, lv = self._release_of(data, levels, criterion)
        if prep.engine != "polars":
            writable(prep.engine, kind)
        roles = self._roles(identifiers, insensitive)
        release = guarded(prep, lv, self.k, self.suppression, self.criteria, roles)
        assert isinstance(release, (Guarded, OnEngine))
        return write_release(release, path, kind, partition_rows, separator)
