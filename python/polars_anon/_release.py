"""The release: a generalized, suppressed LazyFrame, re-checked before it is
handed back. Both the functions and the search results build releases here."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl
from polars.io.plugins import register_io_source

from polars_anon._core import AnonError, CoreCriterion, Hierarchy, NotAnonymousError, Problem
from polars_anon._criteria import Criteria, specs
from polars_anon._frames import (
    Prepared,
    check_k,
    encode_values,
    fresh_name,
    generalization_exprs,
    max_suppressed,
    text,
)


def generalize_prepared(
    prep: Prepared,
    levels: list[int],
    k: int | None,
    max_suppression: int | float,
    criteria: Criteria = None,
) -> pl.LazyFrame:
    """Generalize and suppress lazily, after re-checking the release on F0."""
    out = prep.lazy.with_columns(generalization_exprs(prep, levels, strings=False))
    if k is None and not criteria:
        return out
    k = 1 if k is None else k
    k = check_k(k, prep.rows)
    max_sup = max_suppressed(max_suppression, prep.rows)
    qis, count = prep.quasi_identifiers, prep.count
    model = specs(criteria, prep.sensitive_values)
    # The release's groups, computed by Polars from the raw F0 with the very
    # expressions the output plan uses: independent of the core's codes.
    gen = prep.f0.lazy().with_columns(generalization_exprs(prep, levels, strings=True))
    groups = gen.group_by(qis).agg(pl.col(count).sum()).collect()
    drop = _labels(prep, levels, prep.problem.suppressed_groups(levels, k, model))
    small = groups.filter(pl.col(count) < k)
    if small.join(drop, on=qis, how="anti").height:
        raise AnonError("internal check failed: a group smaller than k was not suppressed")
    suppressed = int(groups.join(drop, on=qis, how="semi").get_column(count).sum())
    core = prep.problem.evaluate(levels, k, "auto", model).suppressed
    if core != suppressed:
        raise AnonError(
            f"internal check failed: the core counts {core} suppressed tuples, "
            f"the release plan {suppressed}; refusing to release"
        )
    if suppressed > max_sup:
        raise NotAnonymousError(
            f"levels {dict(zip(qis, levels, strict=True))} leave {suppressed} tuple(s) in "
            f"groups that are smaller than k = {k}"
            + (" or fail the criteria" if criteria else "")
            + f", more than max_suppression = {max_suppression!r} allows "
            + f"({max_sup} of this table's {prep.rows} rows)"
        )
    kept = groups.join(drop, on=qis, how="anti")
    if kept.height and int(kept.get_column(count).min()) < k:  # type: ignore[arg-type]
        raise AnonError("internal check failed: a released group is smaller than k")
    released = gen.join(drop.lazy(), on=qis, how="anti")
    if model:
        _recheck(prep, released, k, model)
    if drop.is_empty():
        plan = out
    else:
        taken = prep.lazy.collect_schema().names()
        keys: list[str] = []
        for i in range(len(qis)):
            keys.append(fresh_name(f"__polars_anon_key_{i}", [*taken, *keys]))
        rename = drop.select([pl.col(q).alias(key) for q, key in zip(qis, keys, strict=True)])
        plan = (
            out.with_columns([text(pl.col(q)).alias(key) for q, key in zip(qis, keys, strict=True)])
            .join(rename.lazy(), on=keys, how="anti", maintain_order="left")
            .drop(keys)
        )
    by = qis + prep.sensitive
    expected = released.group_by(by).agg(pl.col(count).sum().cast(pl.UInt32)).collect()
    return _Guarded(plan, by, expected, count, k).lazy()


class _Guarded:
    """The release as a LazyFrame that checks itself whenever, and however
    often, it is collected. Its plan reads the source again; the rows it gives
    must form exactly the groups (quasi-identifier labels and sensitive values,
    with their sizes) that were checked when the release was made, or nothing
    is released. A source replaced or changed since then is refused, also when
    Polars fails while reading it. Whatever the user chains after the release
    (a projection, a filter, a head) applies after this check."""

    def __init__(
        self, plan: pl.LazyFrame, by: list[str], expected: pl.DataFrame, count: str, k: int
    ) -> None:
        self.plan, self.by, self.count, self.k = plan, by, count, k
        self.expected = expected.sort(by)
        self.schema = plan.collect_schema()

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
        got = (
            frame.select([text(pl.col(c)) for c in self.by])
            .group_by(self.by)
            .len(name=self.count)
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


def _labels(prep: Prepared, levels: list[int], codes: list[list[int]]) -> pl.DataFrame:
    """Groups given by QI codes at `levels`, as a frame of labels."""
    cols = {}
    for i, (q, h, lvl) in enumerate(
        zip(prep.quasi_identifiers, prep.hierarchies, levels, strict=True)
    ):
        names = h.levels[lvl]
        cols[q] = pl.Series(q, [names[g[i]] for g in codes], dtype=pl.String)
    return pl.DataFrame(cols)


def _recheck(prep: Prepared, released: pl.LazyFrame, k: int, model: list[CoreCriterion]) -> None:
    """Check the released groups again through a fresh core problem over their
    labels (identity hierarchies): a second, independent encoding."""
    qis, sens, count = prep.quasi_identifiers, prep.sensitive, prep.count
    f = released.group_by(qis + sens).agg(pl.col(count).sum()).collect()
    if f.is_empty():
        return
    hs, codes = [], []
    for q in qis:
        values = sorted(f.get_column(q).unique().to_list())
        hs.append(Hierarchy.from_rows([[v] for v in values], source=f"release of '{q}'"))
        codes.append(encode_values(f.get_column(q), values))
    sensitive = [
        (s, prep.sensitive_values[s], encode_values(f.get_column(s), prep.sensitive_values[s]))
        for s in sens
    ]
    counts = f.get_column(count).cast(pl.UInt64)
    again = Problem(qis, hs, codes, counts, sensitive)
    if again.evaluate([0] * len(qis), k, "auto", model).suppressed:
        raise AnonError("internal check failed: the release does not meet the model; refusing")
