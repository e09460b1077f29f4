"""The release: a generalized, suppressed LazyFrame, re-checked before it is
handed back. Both the functions and the search results build releases here;
on DuckDB and Spark the engine builds it (`engines`) and its groups are
checked against the ones checked here."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import (
    AnonError,
    ConfigError,
    CoreCriterion,
    Hierarchy,
    NotAnonymousError,
    Problem,
)
from polars_anon.criteria.base import Criteria
from polars_anon.inputs.frames import by_position, fresh_name
from polars_anon.inputs.nulls import text
from polars_anon.inputs.params import check_k, max_suppressed
from polars_anon.prepare.encode import encode_values
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.buffers import INLINE
from polars_anon.release.engine_write import OnEngine
from polars_anon.release.exprs import generalization_exprs, kept_as_enums
from polars_anon.release.guard import Guarded, over_budget, rows_changed
from polars_anon.release.population import recheck_population
from polars_anon.release.quiet import sources
from polars_anon.roles.fates import fates
from polars_anon.roles.polars import identify
from polars_anon.roles.resolve import Resolved, resolve
from polars_anon.roles.spec import Roles


def generalize_prepared(
    prep: Prepared,
    levels: list[int],
    k: int | None,
    max_suppression: int | float,
    criteria: Criteria = None,
    roles: Roles | None = None,
) -> Any:
    """Generalize and suppress lazily, after re-checking the release on F0: a
    LazyFrame that checks itself when collected, or on DuckDB and Spark a
    snapshot of the release built there, its groups counted there and
    checked. Identifiers are transformed as `roles` ask (`polars_anon.roles`)."""
    release = guarded(prep, levels, k, max_suppression, criteria, roles)
    if isinstance(release, OnEngine):
        return release.released
    return release.lazy() if isinstance(release, Guarded) else release


def guarded(
    prep: Prepared,
    levels: list[int],
    k: int | None,
    max_suppression: int | float,
    criteria: Criteria = None,
    roles: Roles | None = None,
) -> Any:
    """The release checked on F0: on Polars a `Guarded` plan (which checks
    itself when collected or written), a plain LazyFrame when nothing is
    asked of it (no k, no criteria), or on DuckDB and Spark the snapshot
    with its checked groups (`OnEngine`).
    Every column that is neither a quasi-identifier nor sensitive is
    handled as `roles` say (after the model's check, which a pseudonym
    table is extended only after); an undeclared one that would identify
    records is refused before the release is built (`roles.undeclared`)."""
    if prep.engine == "counts":
        raise ConfigError(
            "this result holds no rows to release (it was searched from a frequency set, "
            "or unpickled from a search of DuckDB or Spark data, which a pickle cannot hold): "
            "pass the table itself (result.apply(table), or generalize(table, ...))"
        )
    data = prep.lazy if prep.engine == "polars" else prep.source
    qis = prep.quasi_identifiers
    if k is None and not criteria and prep.engine == "polars":
        resolved = resolve(data, prep.engine, prep.rows, qis, prep.sensitive, roles or Roles())
        plain = prep.lazy.with_columns(generalization_exprs(prep, levels, strings=False))
        return identify(plain, resolved.ops)
    drop, by, expected = _checked(prep, levels, 1 if k is None else k, max_suppression, criteria)
    # after the model's check: a pseudonym table is extended by passing releases only
    resolved = resolve(data, prep.engine, prep.rows, qis, prep.sensitive, roles or Roles())
    if prep.engine != "polars":
        released = _on_engine(prep, levels, drop, by, expected)
        released = engines.module(prep.engine).identify(released, resolved.ops)
        return OnEngine(prep.engine, released, by, expected, prep.count, 1 if k is None else k)
    count = prep.count
    schema = prep.lazy.collect_schema()
    # the generalized columns come as Enums of their labels, which the check
    # groups by their codes, and leave as text. So do the text ones kept at
    # their values, from a table in memory: their own text is then not
    # grouped (a transient of 40-60 bytes a row) nor copied. A scan's
    # columns are read anew by the release and its text made as they are
    # read: made after the check instead, from codes, it cost more
    # (bench/README.md, "Kept text as codes")
    kept = [] if any(sources(prep.lazy)) else kept_as_enums(prep, levels, schema)
    labelled = [q for q, lvl in zip(qis, levels, strict=True) if lvl > 0]
    labelled += [e.meta.output_name() for e in kept]
    # an Enum's type lists all its categories, those of the suppressed
    # records too (a file holds the list): any other Enum leaves as text (one
    # in a list or struct too), whatever was suppressed, lest the type tell
    # that either
    unlabelled = {c: enums_as_text(t) for c, t in schema.items() if c not in labelled}
    enums = {c: t for c, t in unlabelled.items() if t != schema[c]}
    at = by_position(schema)
    out = prep.lazy.with_columns(
        *(at[c].cast(t) for c, t in enums.items()),
        *generalization_exprs(prep, levels, strings=False, schema=schema, enums=True),
        *kept,
    )
    plan = out if drop.is_empty() else without(out, drop, qis, prep.nulls == "error")
    release = Guarded(
        identify(plan, resolved.ops),
        by,
        expected,
        count,
        1 if k is None else k,
        labelled,
        resolved.undeclared,
        prep.rows,
    )
    if any(sources(prep.lazy)):  # files (a Python source names none; counting reads it)
        release.counted = prep.lazy.select(pl.len())
    release.drops_rows = prep.sampled or not drop.is_empty()
    if not prep.sampled:
        # a quasi-identifier kept at its values drops the groups' labels:
        # its values (`buffers.INLINE`); a sample drops rows of any value
        release.inline |= {
            q
            for q, lvl in zip(qis, levels, strict=True)
            if lvl == 0 and (drop.get_column(q).str.len_bytes().max() or 0) <= INLINE  # type: ignore[operator]
        }
    suppressed = prep.rows - int(expected.get_column(count).sum())
    release.columns = columns_released(prep, levels, suppressed, roles or Roles(), resolved)
    return release


def enums_as_text(dtype: Any) -> Any:
    """`dtype` with every Enum in it (nested in a list, an array or a
    struct too) made text."""
    if isinstance(dtype, pl.Enum):
        return pl.String()
    if isinstance(dtype, pl.List):
        return pl.List(enums_as_text(dtype.inner))
    if isinstance(dtype, pl.Array):
        return pl.Array(enums_as_text(dtype.inner), dtype.shape)
    if isinstance(dtype, pl.Struct):
        return pl.Struct([pl.Field(f.name, enums_as_text(f.dtype)) for f in dtype.fields])
    return dtype


def without(out: pl.LazyFrame, drop: pl.DataFrame, qis: list[str], no_nulls: bool) -> pl.LazyFrame:
    """`out` without the rows of the groups in `drop` (their labels as text,
    as the core names them). A generalized column (an Enum of its labels)
    and, without nulls, a text one are joined on as they are, `drop`'s
    labels cast to them (strictly: a label they lack fails); any other is
    joined on a key column of its text (a number's text is not always one
    number's, nor a null a label): every key is a column of all the rows,
    so the fewer the better (at 300,000 rows of text, 48 MiB;
    bench/README). A row left that should have gone is caught by the
    release's check."""
    schema = out.collect_schema()
    taken = schema.names()
    left: list[pl.Expr] = []
    right: list[pl.Expr] = []
    keys: list[str] = []
    for i, q in enumerate(qis):
        dtype = schema[q]
        if isinstance(dtype, pl.Enum) or (no_nulls and isinstance(dtype, pl.String)):
            left.append(pl.col(q))
            right.append(pl.col(q).cast(dtype).alias(q))
            continue
        key = fresh_name(f"__polars_anon_key_{i}", [*taken, *keys])
        keys.append(key)
        left.append(text(pl.col(q)).alias(key))
        right.append(pl.col(q).alias(key))
    on = [e.meta.output_name() for e in left]
    return (
        out.with_columns([e for e in left if e.meta.output_name() in keys])
        .join(drop.lazy().select(right), on=on, how="anti", maintain_order="left")
        .drop(keys)
    )


def columns_released(
    prep: Prepared, levels: list[int], suppressed: int, roles: Roles, resolved: Resolved
) -> pl.DataFrame:
    """What becomes of every column of `prep`'s table (`roles.fates`)."""
    qis, heights = prep.quasi_identifiers, [h.height for h in prep.hierarchies]
    return fates(
        resolved.columns,
        dict(zip(qis, levels, strict=True)),
        dict(zip(qis, heights, strict=True)),
        suppressed,
        prep.rows,
        prep.sensitive,
        roles,
        resolved.undeclared,
        resolved.masks_refused,
    )


def _checked(
    prep: Prepared,
    levels: list[int],
    k: int,
    max_suppression: int | float,
    criteria: Criteria,
) -> tuple[pl.DataFrame, list[str], pl.DataFrame]:
    """The groups to suppress (as labels), and the release's groups (by
    quasi-identifier labels and sensitive values) with their sizes, checked
    against the core's answer. Where only k is asked of a Polars table, the
    groups are the core's (its rollup of F0): the release's own check, a
    group-by of the rows it gives whenever it is collected or written, is
    then the independent count, and the table is not read here (a LazyFrame
    was read whole again for this, and its memory kept by Polars'
    allocator). Sensitive attributes and criteria are rechecked by Polars
    from the raw F0 with the very expressions the output plan uses."""
    k = check_k(k, prep.rows)
    max_sup = max_suppressed(max_suppression, prep.rows)
    qis, count = prep.quasi_identifiers, prep.count
    model = prep.model(criteria)
    drop = labels_of(prep, levels, prep.problem.suppressed_groups(levels, k, model))
    by = qis + prep.sensitive
    gen: pl.LazyFrame | None = None
    if prep.engine == "polars" and not prep.sensitive and not model:
        codes, sizes = prep.problem.group_columns(list(levels))
        groups = labelled(prep, levels, [pl.Series(c) for c in codes]).with_columns(
            pl.Series(sizes).alias(count)
        )
    else:
        weighted = prep.weighted
        gen = weighted.lazy().with_columns(
            generalization_exprs(prep, levels, strings=True, schema=weighted.schema, enums=True)
        )
        labels = [pl.col(q).cast(pl.String) for q in qis]
        try:
            groups = gen.group_by(qis).agg(pl.col(count).sum()).with_columns(labels).collect()
        except pl.exceptions.PolarsError as e:
            # the table's own values that its mapping lacks (a leaf the core
            # did not count): never released
            raise AnonError(
                f"internal check failed: the release's mapping does not cover the table's "
                f"values ({type(e).__name__}: {str(e).splitlines()[0][:200]}); refusing to release"
            ) from None
        gen = gen.with_columns(labels)
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
        levels_of, budget = dict(zip(qis, levels, strict=True)), (max_suppression, max_sup)
        raise over_budget(levels_of, suppressed, k, bool(criteria), budget, prep.rows)
    kept = groups.join(drop, on=qis, how="anti")
    if kept.height and int(kept.get_column(count).min()) < k:  # type: ignore[arg-type]
        raise AnonError("internal check failed: a released group is smaller than k")
    if not prep.sensitive and not model:
        # the release's groups are the kept groups: no second pass over F0
        return drop, by, kept.with_columns(pl.col(count).cast(pl.UInt32))
    assert gen is not None  # (the core's groups are those of k alone, returned above)
    released = gen.join(drop.lazy(), on=qis, how="anti")
    if model:
        # the models against a population table are checked on its classes
        own = [m for m in model if not m.against_population]
        recheck(prep, released, k, own, gen.join(drop.lazy(), on=qis, how="semi"))
        recheck_population(prep, levels, criteria, groups, kept)
    expected = released.group_by(by).agg(pl.col(count).sum().cast(pl.UInt32)).collect()
    return drop, by, expected


def _on_engine(
    prep: Prepared, levels: list[int], drop: pl.DataFrame, by: list[str], expected: pl.DataFrame
) -> Any:
    """The release built where the table lives; its groups, counted there,
    must be the checked ones."""
    assert prep.native is not None
    qis, count = prep.quasi_identifiers, prep.count
    mappings = []
    labels = generalization_exprs(prep, levels, strings=True)
    for q, label in zip(qis, labels, strict=True):
        if prep.values is not None:
            values = prep.values[q].alias("v").to_frame()
        else:
            values = prep.native.select(pl.col(q).unique().alias("v"))
        # (a column named v or l among them: the label is computed from q)
        mappings.append(values.with_columns(pl.col("v").alias(q)).select("v", label.alias("l")))
    module = engines.module(prep.engine)
    same_rows(prep)
    released, groups, read = module.release(
        prep.source, qis, mappings, [lvl > 0 for lvl in levels], drop, prep.sensitive
    )
    try:
        same_rows(prep, read)
        same_groups(prep.engine, groups, by, count, expected)
    except NotAnonymousError:
        module.discard(released)  # (the refused rows)
        raise
    return released


def same_rows(prep: Prepared, read: int | None = None) -> None:
    """A table must hold the rows checked when its release is made: rows
    added to or taken from suppressed groups leave the released ones as
    checked, suppressing more (or fewer) than max_suppression allows.
    `read`: the rows the release read (Spark's, counted in its
    checkpoint); else a DuckDB table is counted (before and after)."""
    if read is not None:
        if read != prep.rows:
            raise rows_changed("DataFrame", prep.rows, read)
        return
    if prep.engine != "duckdb":
        return
    now, _ = engines.module(prep.engine).distinct_counts(prep.source, [], exact=True)
    if now != prep.rows:
        raise rows_changed("table", prep.rows, now)


def same_groups(
    engine: str, groups: pl.DataFrame, by: list[str], count: str, expected: pl.DataFrame
) -> None:
    """The groups an engine counted in its release (by `by`, their counts
    the last column, named apart from `by`) are the checked ones, or no release."""
    n = groups.columns[-1]
    got = (
        groups.select([text(pl.col(c)) for c in by] + [pl.col(n).cast(pl.UInt32).alias(count)])
        .group_by(by)
        .agg(pl.col(count).sum())
        .sort(by)
    )
    if not got.equals(expected.sort(by)):
        rows, want = int(got.get_column(count).sum()), int(expected.get_column(count).sum())
        why = (
            "values changed in place since the check (or a setting they are read by, such "
            "as the session's time zone)"
            if (got.height, rows) == (expected.height, want)
            else "the source changed or the engine differs"
        )
        raise NotAnonymousError(
            f"the release {engine} built does not have the groups that were checked "
            f"({got.height} groups of {rows} rows, expected {expected.height} of {want}): "
            f"{why}; refusing to release it"
        )


def labels_of(prep: Prepared, levels: list[int], codes: list[list[int]]) -> pl.DataFrame:
    """Groups given by QI codes at `levels` (a list a group), as a frame of labels."""
    n = len(prep.quasi_identifiers)
    return labelled(prep, levels, [pl.Series([g[i] for g in codes]) for i in range(n)])


def labelled(prep: Prepared, levels: list[int], codes: list[pl.Series]) -> pl.DataFrame:
    """Groups given by QI codes at `levels` (a column an attribute), as a
    frame of labels."""
    cols = {}
    for q, h, lvl, c in zip(prep.quasi_identifiers, prep.hierarchies, levels, codes, strict=True):
        names = pl.Series(h.labels_at(lvl), dtype=pl.String)
        cols[q] = names.gather(c.cast(pl.UInt32)).alias(q)
    return pl.DataFrame(cols)


def recheck(
    prep: Prepared,
    released: pl.LazyFrame,
    k: int,
    model: list[CoreCriterion],
    dropped: pl.LazyFrame | None = None,
) -> None:
    """Check the released groups again through a fresh core problem over their
    labels (identity hierarchies): a second, independent encoding. The tuples
    suppressed (`dropped`) join it as one group of their own, which alone may
    fail: each sensitive attribute's distribution is then the input table's,
    the one t-closeness, beta-likeness and delta-disclosure compare with."""
    qis, sens, count = prep.quasi_identifiers, prep.sensitive, prep.count
    f = released.group_by(qis + sens).agg(pl.col(count).sum()).collect()
    if f.is_empty():
        return
    mark = None
    if dropped is not None and sens:
        gone = dropped.group_by(sens).agg(pl.col(count).sum()).collect()
        if gone.height:
            mark = "\x00suppressed"
            while any(f.get_column(q).eq(mark).any() for q in qis):
                mark += "\x00"
            gone = gone.with_columns(pl.lit(mark, dtype=pl.String).alias(q) for q in qis)
            f = pl.concat([f, gone.select(f.columns).cast(f.schema)])
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
    top = [0] * len(qis)
    if mark is None:
        failed = again.evaluate(top, k, "auto", model).suppressed > 0
    else:
        suppressed = [h.leaves.index(mark) for h in hs]
        failed = any(g != suppressed for g in again.suppressed_groups(top, k, model))
    if failed:
        raise AnonError("internal check failed: the release does not meet the model; refusing")
