"""A population table's classes at a release's levels, generalized by the
release's own expressions, and the release's models against it re-checked
from them with Polars (independently of the core's counts through the
hierarchies, `prepare.population`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import polars as pl

from polars_anon._core import AnonError, MissingValueError
from polars_anon.criteria.base import Criteria, against_population
from polars_anon.criteria.risk import KMap
from polars_anon.engines.polars import group_strings
from polars_anon.inputs.frames import as_lazy, fresh_name
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.exprs import generalization_exprs
from polars_anon.reports.render import counted, levels_text, values_text


def classes_in(
    prep: Prepared, lazy: pl.LazyFrame, levels: list[int], count: str, weight: str | None = None
) -> pl.DataFrame:
    """The classes of `lazy` at `levels` as labels and sizes, generalized by
    `prep`'s hierarchies; values they do not know are an error naming them
    (at level 0 a value is its own label). `weight`: the column of `lazy`
    counting each row's records (`group_strings`)."""
    qis = prep.quasi_identifiers
    grouped = group_strings(lazy, qis, count, weight)
    for q, h, lvl in zip(qis, prep.hierarchies, levels, strict=True):
        if lvl == 0:
            continue
        unknown = grouped.filter(~pl.col(q).is_in(h.leaves)).get_column(q).unique().sort()
        if unknown.len():
            raise MissingValueError(
                f"population column '{q}': {counted(unknown.len(), 'distinct value')} missing "
                f"from its hierarchy, first: {values_text(unknown.head(3).to_list())}"
            )
    # mapped as the population's own F0: its values, not the sample's
    own = replace(
        prep,
        grouped=grouped,
        table=None,
        values=None,
        counted=False,
        mappings={},
        enums={},
        dense={},
    )
    gen = grouped.lazy().with_columns(generalization_exprs(own, levels, strings=True))
    return gen.group_by(qis).agg(pl.col(count).sum()).collect()


def recheck_population(
    prep: Prepared,
    levels: list[int],
    criteria: Criteria,
    groups: pl.DataFrame,
    kept: pl.DataFrame,
) -> None:
    """Refuse a release whose classes (`kept`, labels and sizes, of all the
    table's `groups`) fail a model against a population table: k-map's
    F >= k and delta-presence's d_min <= f / F <= d_max on every released
    class, and, with d_min > 0, no class of the population without records
    of the table unless nothing is released."""
    qis, count = prep.quasi_identifiers, prep.count
    for c in against_population(criteria):
        pop = classes_in(prep, as_lazy(c.population), levels, count)
        size = fresh_name("population", [*qis, count])
        pop = pop.rename({count: size})
        joined = kept.join(pop, on=qis, how="left").with_columns(pl.col(size).fill_null(0))
        f, big_f = pl.col(count), pl.col(size)
        if isinstance(c, KMap):
            failed = joined.filter(big_f < c.k)
        else:
            delta = f / big_f
            failed = joined.filter((big_f == 0) | (delta < c.d_min) | (delta > c.d_max))
            absent = pop.join(groups, on=qis, how="anti")
            if c.d_min > 0 and absent.height and kept.height:
                failed = absent
        if failed.height:
            _refuse(type(c).__name__, failed.row(0, named=True), qis)


def _refuse(model: str, row: dict[str, Any], qis: list[str]) -> None:
    values = {q: row[q] for q in qis}
    raise AnonError(
        f"internal check failed: the release's class {levels_text(values, ', ')} fails {model} "
        "against its "
        "population table; refusing to release"
    )
