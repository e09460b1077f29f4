"""The typed functional API; the ``anon`` namespaces wrap these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_anon._core import AnonError, Hierarchy, NotAnonymousError, Problem
from polars_anon._criteria import Criterion, sensitive_of, specs
from polars_anon._frames import (
    COUNT,
    Hierarchies,
    Levels,
    Prepared,
    check_k,
    encode_values,
    generalization_exprs,
    group_table,
    max_suppressed,
    prepare,
)
from polars_anon._progress import SearchProgress
from polars_anon._results import CheckReport, SearchResult

ALGORITHMS = ("incognito", "samarati", "bottom_up", "mingen")


def check(
    data: Any,
    quasi_identifiers: Sequence[str],
    k: int,
    hierarchies: Hierarchies | None = None,
    levels: Levels | None = None,
    max_suppression: int | float = 0,
    criteria: Sequence[Criterion] | None = None,
) -> CheckReport:
    """Is ``data`` k-anonymous w.r.t. ``quasi_identifiers`` generalized to ``levels``?

    Tuples in groups smaller than ``k`` (or failing one of ``criteria``, the
    sensitive-attribute models such as `PSensitive` or `TCloseness`) count as
    suppressed; the table passes when they are at most ``max_suppression`` (an int:
    tuples; a float in [0, 1): a fraction of the rows).

    >>> import polars as pl
    >>> df = pl.DataFrame({"zip": ["53715", "53715", "53703"]})
    >>> r = check(df, ["zip"], k=2)
    >>> r.k_anonymous, r.min_group_size, r.suppressed
    (False, 1, 1)
    >>> check(df, ["zip"], k=2, max_suppression=1).k_anonymous
    True
    """
    prep = prepare(data, quasi_identifiers, hierarchies, sensitive_of(criteria))
    check_k(k, prep.rows)
    max_sup = max_suppressed(max_suppression, prep.rows)
    lv = prep.levels(levels)
    d = prep.problem.evaluate(lv, k, "auto", specs(criteria, prep.sensitive_values))
    counts = group_table(prep, lv).get_column("count")
    sizes = (
        counts.value_counts(name="groups")
        .rename({"count": "size"})
        .sort("size")
        .with_columns(pl.col("groups").cast(pl.UInt64))
    )
    return CheckReport(
        k=k,
        quasi_identifiers=list(prep.quasi_identifiers),
        levels=dict(zip(prep.quasi_identifiers, lv, strict=True)),
        rows=prep.rows,
        groups=int(d["groups"]),
        min_group_size=int(d["min_group_size"]),
        suppressed=int(d["suppressed"]),
        max_suppression=max_sup,
        k_anonymous=int(d["suppressed"]) <= max_sup,
        height=int(d["height"]),
        precision=float(d["precision"]),
        discernibility=float(d["discernibility"]),
        cavg=float(d["cavg"]),
        distortion=float(d["distortion"]),
        group_sizes=sizes,
        criteria=[repr(c) for c in criteria or []],
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
    core = int(prep.problem.evaluate(levels, k, "auto", model)["suppressed"])
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


def _recheck(prep: Prepared, released: pl.LazyFrame, k: int, model: list[dict[str, Any]]) -> None:
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
    if int(again.evaluate([0] * len(qis), k, "auto", model)["suppressed"]):
        raise AnonError("internal check failed: the release does not meet the model; refusing")


def generalize(
    data: Any,
    hierarchies: Hierarchies,
    levels: Levels,
    k: int | None = None,
    max_suppression: int | float = 0,
    quasi_identifiers: Sequence[str] | None = None,
    criteria: Sequence[Criterion] | None = None,
) -> pl.LazyFrame:
    """Replace each quasi-identifier by its label at ``levels`` (a mapping from column
    to level); with ``k``, drop the tuples of groups smaller than k, failing if that
    is more than ``max_suppression``. With ``criteria``, the groups failing them are
    suppressed too. The result is still lazy; other columns pass through untouched,
    and a column at level 0 keeps its values and dtype.

    >>> import polars as pl
    >>> from polars_anon import datasets
    >>> lf, hs = datasets.patients()
    >>> out = generalize(lf, hs, {"Sex": 1, "Zipcode": 0}, k=2).collect()
    >>> out.get_column("Sex").unique().to_list(), out.height
    (['Person'], 6)
    """
    if quasi_identifiers is None:
        if not isinstance(levels, Mapping):
            raise TypeError(
                "levels must be a mapping of column to level, or pass quasi_identifiers"
            )
        quasi_identifiers = list(levels.keys())
    prep = prepare(data, quasi_identifiers, hierarchies, sensitive_of(criteria))
    return generalize_prepared(prep, prep.levels(levels), k, max_suppression, criteria)


def search(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies | None,
    k: int,
    max_suppression: int | float = 0,
    algorithm: str = "incognito",
    variant: str | None = None,
    engine: str = "auto",
    trace: bool = False,
    progress: bool = True,
    criteria: Sequence[Criterion] | None = None,
    infer_projections: bool = True,
) -> SearchResult:
    """Search the full-domain generalization lattice for k-anonymous nodes.

    ``algorithm``: ``"incognito"`` (``variant`` ``"basic"``, ``"super_roots"`` or
    ``"cube"``, the default), ``"samarati"`` (binary search on height; returns the
    anonymous nodes it evaluated), ``"bottom_up"`` (``"rollup"`` or ``"no_rollup"``)
    or ``"mingen"`` (every node). ``engine`` picks how rollups run: ``"auto"``,
    ``"native"`` or ``"polars"`` (lazy plans); the answers are identical. With
    ``trace=True`` the result's ``trace`` lists every graph searched (for Incognito,
    one per iteration: nodes, roots, edges and what was checked or marked). From
    iteration 2 on, Incognito's graphs leave out every candidate with an attribute
    at a level of one value (``*``): its frequency set is that of its projection
    without the attribute, a node of an earlier iteration, which answers for it;
    ``infer_projections=False`` builds and checks them as the paper does (same
    answers, many more checks; the traces are then the paper's figures). A search
    that runs over a second shows a progress bar unless ``progress=False``; Ctrl-C
    stops it with ``KeyboardInterrupt``. ``criteria`` adds sensitive-attribute models
    (`PSensitive`, `DistinctLDiversity`, `TCloseness`, ...): every node returned
    satisfies k and all of them. Entropy and recursive l-diversity and t-closeness
    are not monotone once failing groups are suppressed, so with ``max_suppression``
    they need ``algorithm="mingen"``, which checks every node.

    >>> from polars_anon import datasets
    >>> lf, hs = datasets.patients()
    >>> r = search(lf, ["Birthdate", "Sex", "Zipcode"], hs, k=2)
    >>> r.minimal.height, r.best("min_height")
    (3, {'Birthdate': 1, 'Sex': 1, 'Zipcode': 0})
    """
    if algorithm not in ALGORITHMS:
        from polars_anon._core import ConfigError

        raise ConfigError(f"unknown algorithm {algorithm!r}; expected one of {ALGORITHMS}")
    if variant is None:
        variant = {"incognito": "cube", "bottom_up": "rollup"}.get(algorithm)
    prep = prepare(data, quasi_identifiers, hierarchies, sensitive_of(criteria))
    check_k(k, prep.rows)
    max_sup = max_suppressed(max_suppression, prep.rows)
    model = specs(criteria, prep.sensitive_values)
    bar = SearchProgress(f"polars-anon {algorithm}") if progress else None
    try:
        raw = prep.problem.search(
            algorithm, variant, k, max_sup, engine, trace, bar, model, infer_projections
        )
    finally:
        if bar is not None:
            bar.close()
    return SearchResult(prep, raw, algorithm, variant, k, max_sup, list(criteria or []))


def incognito(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies | None,
    k: int,
    max_suppression: int | float = 0,
    variant: str = "cube",
    trace: bool = False,
    criteria: Sequence[Criterion] | None = None,
    progress: bool = True,
    infer_projections: bool = True,
) -> SearchResult:
    """Incognito (LeFevre et al. 2005): every k-anonymous full-domain generalization.

    ``infer_projections``: see `search`."""
    return search(
        data,
        quasi_identifiers,
        hierarchies,
        k,
        max_suppression,
        "incognito",
        variant,
        trace=trace,
        criteria=criteria,
        progress=progress,
        infer_projections=infer_projections,
    )
