"""A population table counted through a prepared table's hierarchies, for
the models that match each class of the table to the population's at the
same levels (k-map and delta-presence against a table,
``src/criteria/population.rs``). The table must be a subset of the
population: no combination of values more often in it than there."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_anon._core import ConfigError, Hierarchy, MissingValueError, Problem
from polars_anon.engines.polars import group_strings
from polars_anon.inputs.frames import as_lazy, check_groupable, fresh_name, one_zero
from polars_anon.inputs.nulls import NULL_LABEL, Nulls
from polars_anon.reports.render import counted, plural


def population(
    qis: list[str],
    hierarchies: list[Hierarchy],
    nulls: Nulls,
    sample: pl.DataFrame,
    count: str,
    table: Any,
    model: str,
) -> tuple[Problem, int]:
    """`table` (a Polars frame, or anything with ``__arrow_c_stream__``) as a
    core problem over the quasi-identifiers `qis` and their `hierarchies`,
    checked to contain the table whose F0 is `sample` (values as strings,
    sizes in `count`); and the
    number of its records whose values no level of those hierarchies
    matches: values of an attribute that cannot be generalized (no
    hierarchy, or one of height 0) that the table lacks. Elsewhere a value
    missing from a hierarchy is an error naming it. `model` names the
    criterion in errors."""
    lazy = as_lazy(table)
    schema = lazy.collect_schema()
    missing = [q for q in qis if q not in schema]
    if missing:
        raise ConfigError(
            f"{model}: the population table has no {plural('column', missing)} {missing}; "
            f"it has {list(schema.names())}"
        )
    check_groupable(schema, qis, qis)
    # -0.0 is 0.0, as in the table (`prepare.f0`)
    zeros = [one_zero(q, schema[q]) for q in qis if schema[q].is_float()]
    lazy = lazy.with_columns(zeros) if zeros else lazy
    own = fresh_name(count, schema.names())
    grouped = group_strings(lazy, qis, own)
    if grouped.is_empty():
        raise ConfigError(f"{model}: the population table is empty")
    outside = pl.lit(False)
    for q, h in zip(qis, hierarchies, strict=True):
        if grouped.get_column(q).null_count() and nulls != "value":
            raise MissingValueError(
                f"{model}: population column '{q}' holds null values; fill or drop them, "
                "or pass nulls='value'"
            )
        grouped = grouped.with_columns(pl.col(q).fill_null(NULL_LABEL))
        known = pl.col(q).is_in(h.leaves)
        if h.height == 0:
            outside = outside | ~known
            continue
        unknown = grouped.filter(~known).get_column(q).unique().sort()
        if unknown.len():
            raise MissingValueError(
                f"{model}: population column '{q}': {counted(unknown.len(), 'distinct value')} "
                f"missing from its hierarchy, first: {unknown.head(3).to_list()}"
            )
    away = int(grouped.filter(outside).get_column(own).sum())
    inside = grouped.filter(~outside)
    _contains(qis, sample, count, inside, own, model)
    codes = [inside.get_column(q) for q in qis]
    return Problem(qis, hierarchies, codes, inside.get_column(own)), away


def _contains(
    qis: list[str], sample: pl.DataFrame, count: str, pop: pl.DataFrame, size: str, model: str
) -> None:
    """Refuse a table (F0 `sample`, sizes in `count`) that is not a subset of
    the population (`pop`, sizes in `size`), naming a combination of values
    it holds more often."""
    here = fresh_name("data", [*qis, size])
    there = fresh_name("population", [*qis, here])
    data = (
        sample.lazy()
        .with_columns(pl.col(q).fill_null(NULL_LABEL) for q in qis)
        .group_by(qis)
        .agg(pl.col(count).sum().alias(here))
    )
    more = (
        data.join(pop.lazy().select(*qis, pl.col(size).alias(there)), on=qis, how="left")
        .filter(pl.col(there).fill_null(0) < pl.col(here))
        .collect()
    )
    if more.height:
        first = more.row(0, named=True)
        values = {q: first[q] for q in qis}
        occur = "occurs" if more.height == 1 else "occur"
        raise ConfigError(
            f"{model}: the table is not a subset of the population table: "
            f"{counted(more.height, 'combination')} of quasi-identifier values {occur} more "
            f"often in it, first {values}: {counted(first[here], 'time')} in the table, "
            f"{first[there] or 0:,} in the population"
        )
