"""The release as a LazyFrame that checks itself whenever it is collected."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl
from polars.io.plugins import register_io_source

from polars_anon._core import NotAnonymousError
from polars_anon.inputs.nulls import text


class Guarded:
    """The release as a LazyFrame that checks itself whenever, and however
    often, it is collected. Its plan reads the source again; the rows it gives
    must form exactly the groups (quasi-identifier labels and sensitive values,
    with their sizes) that were checked when the release was made, or nothing
    is released. A source replaced or changed since then is refused, also when
    Polars fails while reading it. Whatever the user chains after the release
    (a projection, a filter, a head) applies after this check."""

    def __init__(
        self,
        plan: pl.LazyFrame,
        by: list[str],
        expected: pl.DataFrame,
        count: str,
        k: int,
        labelled: list[str],
    ) -> None:
        self.plan, self.by, self.count, self.k = plan, by, count, k
        # columns the plan gives as Enums of their labels: released as text
        self.labelled = labelled
        self.expected = expected.sort(by)
        self.schema = plan.collect_schema()
        for q in labelled:
            self.schema[q] = pl.String()

    def lazy(self) -> pl.LazyFrame:
        return register_io_source(
            self.source,
            schema=self.schema,
            explain_name="polars_anon release",
            explain_detail=f"k = {self.k}, re-checked when collected",
        )

    def source(
        self,
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        frame = self.collect()
        self.check(frame)
        frame = frame.with_columns(pl.col(self.labelled).cast(pl.String))
        if with_columns is not None:
            frame = frame.select(with_columns)
        if predicate is not None:
            frame = frame.filter(predicate)
        if n_rows is not None:
            frame = frame.head(n_rows)
        yield frame

    def collect(self) -> pl.DataFrame:
        try:
            return self.plan.collect()
        except BaseException as e:
            # Polars panics (a BaseException) on some sources changed under a
            # plan, such as a Parquet file shorter than when it was scanned
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise NotAnonymousError(
                "the source could not be read as it was when this release was checked "
                f"({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}); "
                "refusing to release it. Generalize the current data again."
            ) from None

    def check(self, frame: pl.DataFrame) -> None:
        # by the labels' codes where there are labels, then as text
        got = (
            frame.select([pl.col(c) if c in self.labelled else text(pl.col(c)) for c in self.by])
            .group_by(self.by)
            .len(name=self.count)
            .with_columns(pl.col(self.labelled).cast(pl.String))
            .sort(self.by)
        )
        if not got.equals(self.expected):
            rows, groups = int(self.expected.get_column(self.count).sum()), self.expected.height
            smallest = int(got.get_column(self.count).min()) if got.height else 0  # type: ignore[arg-type]
            raise NotAnonymousError(
                "the source changed since this release was checked: it was checked as "
                f"{rows} rows in {groups} groups, and now gives {frame.height} rows in "
                f"{got.height} groups (smallest {smallest}, k = {self.k}); refusing to "
                "release it. Generalize the current data again."
            )
