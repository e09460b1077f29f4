"""The release: a generalized, suppressed LazyFrame, re-checked before it is
handed back. Both the functions and the search results build releases here."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_anon._core import AnonError, CoreCriterion, Hierarchy, NotAnonymousError, Problem
from polars_anon._criteria import Criterion, specs
from polars_anon._frames import (
    COUNT,
    Prepared,
    check_k,
    encode_values,
    generalization_exprs,
    max_suppressed,
)


def generalize_prepared(
    prep: Prepared,
    levels: list[int],
    k: int | None,
    max_suppression: int | float,
    criteria: Sequence[Criterion] | None = None,
) -> pl.LazyFrame:
    """Generalize and suppress lazily, after re-checking the release on F0."""
    out = prep.lazy.with_columns(generalization_exprs(prep, levels, strings=False))
    if k is None and not criteria:
        return out
    k = 1 if k is None else k
    check_k(k, prep.rows)
    max_sup = max_suppressed(max_suppression, prep.rows)
    qis = prep.quasi_identifiers
    model = specs(criteria, prep.sensitive_values)
    # The release's groups, computed by Polars from the raw F0 with the very
    # expressions the output plan uses: independent of the core's codes.
    gen = prep.f0.lazy().with_columns(generalization_exprs(prep, levels, strings=True))
    groups = gen.group_by(qis).agg(pl.col(COUNT).sum()).collect()
    drop = _labels(prep, levels, prep.problem.suppressed_groups(levels, k, model))
    small = groups.filter(pl.col(COUNT) < k)
    if small.join(drop, on=qis, how="anti").height:
        raise AnonError("internal check failed: a group smaller than k was not suppressed")
    suppressed = int(groups.join(drop, on=qis, how="semi").get_column(COUNT).sum())
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
            + f", more than max_suppression = {max_sup}"
        )
    kept = groups.join(drop, on=qis, how="anti")
    if kept.height and int(kept.get_column(COUNT).min()) < k:  # type: ignore[arg-type]
        raise AnonError("internal check failed: a released group is smaller than k")
    if model:
        _recheck(prep, gen.join(drop.lazy(), on=qis, how="anti"), k, model)
    if drop.is_empty():
        return out
    keys = [f"__polars_anon_key_{i}" for i in range(len(qis))]
    rename = drop.select([pl.col(q).alias(key) for q, key in zip(qis, keys, strict=True)])
    return (
        out.with_columns(
            [pl.col(q).cast(pl.String).alias(key) for q, key in zip(qis, keys, strict=True)]
        )
        .join(rename.lazy(), on=keys, how="anti", maintain_order="left")
        .drop(keys)
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
    qis, sens = prep.quasi_identifiers, prep.sensitive
    f = released.group_by(qis + sens).agg(pl.col(COUNT).sum()).collect()
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
    counts = f.get_column(COUNT).cast(pl.UInt64)
    again = Problem(qis, hs, codes, counts, sensitive)
    if again.evaluate([0] * len(qis), k, "auto", model).suppressed:
        raise AnonError("internal check failed: the release does not meet the model; refusing")
