"""The checks of one generalization: `check` (is it k-anonymous?) and
`generalize` (its release)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon.criteria.base import Criteria, against_population, listed, sensitive_of
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.frames import as_lazy
from polars_anon.inputs.hierarchies import Hierarchies, check_names, resolve_hierarchies
from polars_anon.inputs.nulls import Nulls
from polars_anon.inputs.params import Levels, check_k, columns_of, max_suppressed
from polars_anon.prepare.f0 import prepare
from polars_anon.prepare.prepared import Prepared, group_frame
from polars_anon.release.build import columns_released, generalize_prepared, guarded
from polars_anon.release.engine_write import writable
from polars_anon.release.parts import Unproven, destination, write_release
from polars_anon.release.suppressed import framed
from polars_anon.reports.check import CheckReport
from polars_anon.roles.resolve import resolve
from polars_anon.roles.spec import Identifiers, Roles, roles_of


def check(
    data: Any,
    quasi_identifiers: Sequence[str],
    k: int,
    hierarchies: Hierarchies | None = None,
    levels: Levels | None = None,
    max_suppression: int | float = 0,
    criteria: Criteria = None,
    nulls: Nulls = "error",
    identifiers: Identifiers | None = None,
    insensitive: Sequence[str] | None = None,
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
    roles = roles_of(identifiers, insensitive)
    prep = prepare(data, quasi_identifiers, hierarchies, sensitive_of(criteria), nulls)
    return check_prepared(prep, k, levels, max_suppression, criteria, roles)


def check_prepared(
    prep: Prepared,
    k: int,
    levels: Levels | None = None,
    max_suppression: int | float = 0,
    criteria: Criteria = None,
    roles: Roles | None = None,
) -> CheckReport:
    """`check` of a prepared table; with its rows, what a release at these
    levels would do with each column (`roles`)."""
    k = check_k(k, prep.rows)
    max_sup = max_suppressed(max_suppression, prep.rows)
    lv = prep.levels(levels)
    model = prep.model(criteria, feasible=False)
    m = prep.problem.evaluate(lv, k, "auto", model)
    groups = group_frame(prep, lv)
    counts = groups.get_column("n").alias("count")
    # the groups to leave out of the released sizes, and why each goes (none
    # to look for when nothing is suppressed)
    found = prep.problem.suppression_reasons(lv, k, model) if m.suppressed else ([], [], [])
    dropped = found[0]
    if dropped:
        keys = [f"q{i}" for i in range(len(lv))]
        drop = pl.DataFrame(
            {q: pl.Series([g[i] for g in dropped], dtype=pl.UInt32) for i, q in enumerate(keys)}
        )
        groups = groups.join(drop, on=keys, how="anti")
    why = framed(prep, lv, *found) if m.suppressed else pl.DataFrame()
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
        groups=m.groups,
        min_group_size=m.min_group_size,
        suppressed=m.suppressed,
        max_suppression=max_sup,
        suppression=max_suppression,
        k_anonymous=m.suppressed <= max_sup,
        height=m.height,
        precision=m.precision,
        discernibility=m.discernibility,
        cavg=m.cavg,
        distortion=m.distortion,
        loss=m.loss,
        group_sizes=sizes,
        criteria=[c.describe() for c in listed(criteria)],
        released_sizes=groups.get_column("n"),
        columns=_columns(prep, lv, m.suppressed, roles or Roles()),
        suppressed_groups=why,
        _source=(prep, criteria),
    )


def _columns(prep: Prepared, levels: list[int], suppressed: int, roles: Roles) -> pl.DataFrame:
    """Every column's fate in a release at `levels` (none for a frequency
    set); an undeclared identifying column is reported, not refused."""
    if prep.engine == "counts":
        return pl.DataFrame(
            schema={"column": pl.String, "role": pl.String, "released_as": pl.String}
        )
    data = prep.lazy if prep.engine == "polars" else prep.source
    qis = prep.quasi_identifiers
    resolved = resolve(data, prep.engine, prep.rows, qis, prep.sensitive, roles, refuse=False)
    return columns_released(prep, levels, suppressed, roles, resolved)


def generalize(
    data: Any,
    hierarchies: Hierarchies,
    levels: Levels,
    k: int | None = None,
    max_suppression: int | float = 0,
    quasi_identifiers: Sequence[str] | None = None,
    criteria: Criteria = None,
    nulls: Nulls = "error",
    identifiers: Identifiers | None = None,
    insensitive: Sequence[str] | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
) -> Any:
    """Replace each quasi-identifier by its label at ``levels`` (a mapping from column
    to level); with ``k``, drop the tuples of groups smaller than k, failing if that
    is more than ``max_suppression``. With ``criteria``, the groups failing them are
    suppressed too. The result is still lazy; other columns pass through untouched,
    and a column at level 0 keeps its values and dtype (with ``k`` or
    ``criteria``, an Enum's as text: its type lists every category, the
    suppressed records' too).

    The quasi-identifiers are ``quasi_identifiers``, or else every column of the data
    with a hierarchy (and any column ``levels`` names); one missing from ``levels``
    stays at level 0 and is checked with the others.

    >>> import polars as pl
    >>> from polars_anon import datasets
    >>> lf, hs = datasets.patients()
    >>> out = generalize(lf, hs, {"Birthdate": 1, "Sex": 1}, k=2).collect()
    >>> out.get_column("Sex").unique().to_list(), out.height
    (['Person'], 6)

    With ``out`` (a path), the release is written there rather than returned
    lazily, and the path written is returned: streamed on Polars' streaming
    engine into a temporary file beside ``out``, proven on that file (read
    back by a streaming group-by, it must hold exactly the groups checked)
    and only then moved into place; on a mismatch, an error or Ctrl-C
    nothing is left at ``out``. The format is the suffix's (``.parquet``,
    ``.csv``, ``.ipc``/``.arrow``/``.feather``); a path ending with a slash,
    or an existing empty folder, gets a folder of Parquet parts
    (`SearchResult.sink_parquet`). Without ``k`` and ``criteria`` nothing
    is asked of the release, so there are no groups to prove it against:
    it is written as it streams (still moved into place whole), not proven.
    On DuckDB, ``out`` is a Parquet or CSV file written by DuckDB and proven
    alike; on Spark it is refused: write the returned release with Spark's
    own writer.
    """
    if out is not None:
        where = engines.engine_of(data)
        kind = destination(out)  # before any work
        if where in ("duckdb", "spark"):
            writable(where, kind)
    roles = roles_of(identifiers, insensitive)
    if quasi_identifiers is None:
        if not isinstance(levels, Mapping):
            raise ParameterError(
                "levels must be a mapping of column to level, or pass quasi_identifiers; "
                f"got {type(levels).__name__} {levels!r:.60}"
            )
        where = engines.engine_of(data)
        schema = (
            as_lazy(data).collect_schema() if where == "polars" else engines.schema(data, where)
        )
        columns = schema.names()
        # a folder's files of the table's columns
        hs = resolve_hierarchies(hierarchies, columns)
        sensitive = set(sensitive_of(criteria))
        quasi_identifiers = [c for c in columns if c in hs and c not in sensitive]
        quasi_identifiers += [str(c) for c in levels if c not in quasi_identifiers]
        declared = {*quasi_identifiers, *sensitive, *roles.identifiers, *roles.insensitive}
        check_names(hs, [], columns, [c for c in columns if c not in declared])
    else:
        hs = resolve_hierarchies(hierarchies, columns_of(quasi_identifiers, sensitive_of(criteria)))
    prep = prepare(
        data,
        quasi_identifiers,
        hs,
        sensitive_of(criteria),
        nulls,
        floors_for=None if against_population(criteria) else (k, max_suppression),
    )
    lv = prep.levels(levels)
    if out is None:
        return generalize_prepared(prep, lv, k, max_suppression, criteria, roles)
    release = guarded(prep, lv, k, max_suppression, criteria, roles)
    if isinstance(release, pl.LazyFrame):  # no k, no criteria: nothing to prove
        return write_release(Unproven(release), out, kind)
    return write_release(release, out, kind)
