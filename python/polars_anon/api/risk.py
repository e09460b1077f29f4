"""The re-identification risk of a table or a release (`RiskReport`): its
classes found from the same groups as a check, or counted in a population
table."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, MissingValueError
from polars_anon.inputs.frames import as_lazy, zeros_folded
from polars_anon.inputs.hierarchies import Hierarchies
from polars_anon.inputs.nulls import Nulls
from polars_anon.inputs.params import Levels, is_bool
from polars_anon.prepare.f0 import prepare
from polars_anon.prepare.prepared import group_sizes
from polars_anon.release.population import classes_in
from polars_anon.reports.render import levels_text, listing, names_text, plural
from polars_anon.reports.risk import RiskReport, report


def risk(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies | None = None,
    levels: Levels | None = None,
    population: int | float | pl.DataFrame | pl.LazyFrame | None = None,
    threshold: float = 0.2,
    nulls: Nulls | None = None,
) -> RiskReport:
    """The re-identification risk of ``data`` with its quasi-identifiers
    generalized to ``levels`` (by ``hierarchies``; without them, as they are:
    pass a release to get its risk).

    ``population``: ``None`` (the table is the whole population), its number
    of records (each class's population size is then estimated as its sample
    size over the sampling fraction, and population uniqueness by the
    model Dankar et al.'s rule picks), or a table of the population with the
    same quasi-identifiers (class sizes counted in it). ``threshold``: a record
    is at risk when its risk exceeds it. ``nulls``: a null quasi-identifier
    is an error (``"error"``) or a value of its own (``"value"``); by default
    a value without hierarchies (a release made with ``nulls="value"`` keeps
    the nulls of a column left at its leaves) and an error with them.

    >>> import polars as pl
    >>> df = pl.DataFrame({"zip": ["537", "537", "537", "541", "541", "600"]})
    >>> r = risk(df, ["zip"])
    >>> r.highest_prosecutor_risk, r.average_prosecutor_risk, r.sample_uniques
    (1.0, 0.5, 0.16666666666666666)
    """
    if nulls is None:
        # (not bool(hierarchies): a frame's truth is an error of its own)
        given = hierarchies is not None and not (
            isinstance(hierarchies, Mapping) and not hierarchies
        )
        nulls = "error" if given else "value"
    prep = prepare(data, quasi_identifiers, hierarchies, (), nulls)
    lv = prep.levels(levels)
    named = dict(zip(prep.quasi_identifiers, lv, strict=True))
    if population is None or (isinstance(population, numbers.Real) and not is_bool(population)):
        return report(prep.quasi_identifiers, named, group_sizes(prep, lv), threshold, population)
    if not isinstance(population, (pl.DataFrame, pl.LazyFrame)) and not hasattr(
        population, "__arrow_c_stream__"
    ):
        raise ConfigError(
            "population must be a number of records or a table (a DataFrame, LazyFrame "
            f"or DuckDB relation) of the population, got {type(population).__name__}"
        )
    qis, count = prep.quasi_identifiers, prep.count
    table = as_lazy(population)
    # -0.0 is 0.0, as the table's classes were read
    table = zeros_folded(table, qis)
    missing = [q for q in qis if q not in table.collect_schema()]
    if missing:
        raise ConfigError(f"the population table has no {listing('column', missing)}")
    if prep.nulls != "value":
        nulls_of = table.select(pl.col(qis).null_count()).collect(engine="streaming").row(0)
        holes = [q for q, n in zip(qis, nulls_of, strict=True) if n]
        if holes:
            raise MissingValueError(
                f"the population's {plural('column', holes)} {names_text(holes)} "
                f"{'holds' if len(holes) == 1 else 'hold'} null values; fill or drop them, "
                "or pass nulls='value'"
            )
    # the table's rows, or on DuckDB and Spark its F0, each row of which
    # counts its records
    sample = classes_in(prep, prep.weighted.lazy(), lv, count, weight=count)
    pop = classes_in(prep, table, lv, count)
    joined = sample.join(pop, on=qis, how="left", suffix="_population", nulls_equal=True)
    absent = joined.filter(pl.col(f"{count}_population").is_null())
    if absent.height:
        first = absent.select(qis).row(0, named=True)
        raise ConfigError(
            f"{absent.height} class(es) of the table are not in the population table, "
            f"first: {levels_text(first, ', ')}; the population must contain the sample"
        )
    return report(
        qis,
        named,
        joined.get_column(count),
        threshold,
        population,
        joined.get_column(f"{count}_population"),
        pop.get_column(count),
    )
