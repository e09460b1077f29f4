"""Re-identification risk of a table or a release, from its classes' sizes.

The figures and the population models are the core's (``src/risk/``, where
each formula is stated with its source); this module finds the classes: the
groups of equal quasi-identifiers at the given levels, and for a population
table the size of each such class in the population.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, MissingValueError, RiskFigures, assess_risk
from polars_anon._frames import (
    Hierarchies,
    Levels,
    Nulls,
    Prepared,
    as_lazy,
    generalization_exprs,
    group_sizes,
    group_strings,
    prepare,
)


def _share(x: float) -> str:
    return f"{x:.2%}" if x >= 1e-4 or x == 0 else f"{x:.2e}"


@dataclass(frozen=True, repr=False)
class RiskReport:
    """The re-identification risk of one table, from its classes' sizes.

    A class is a group of records with equal quasi-identifiers. Prosecutor
    risk assumes the attacker knows the target is in the table (a record's
    risk is 1 / its class's size); journalist risk that the target is only
    known to be in the population (1 / the class's size there); marketer
    risk is the share of all records an attacker matching everyone would
    re-identify. ``population_uniques`` is the share of the population's
    records that are unique in it, estimated from the sample by
    ``population_model`` (Dankar et al.'s choice among Pitman, Zayatz and
    SNB; ``estimates`` has each) unless the table is the population
    (``"census"``: its uniques are the population's) or a population table was
    given (``"population table"``: counted there).
    """

    quasi_identifiers: list[str]
    levels: dict[str, int]
    records: int
    classes: int
    threshold: float
    highest_prosecutor_risk: float
    average_prosecutor_risk: float
    records_at_risk: float
    classes_at_risk: float
    sample_uniques: float
    marketer_risk: float
    highest_journalist_risk: float
    journalist_records_at_risk: float
    population_size: float
    sampling_fraction: float
    population_uniques: float
    population_model: str
    estimates: dict[str, float | None]
    histogram: pl.DataFrame = field(repr=False)

    def _rows(self) -> list[tuple[str, Any]]:
        pop = self.sampling_fraction < 1
        rows: list[tuple[str, Any]] = [
            ("records / classes", f"{self.records} / {self.classes}"),
            ("levels", "  ".join(f"{q}={lv}" for q, lv in self.levels.items())),
            (
                "highest prosecutor risk",
                f"{_share(self.highest_prosecutor_risk)} (1 / smallest class)",
            ),
            (
                "average prosecutor risk",
                f"{_share(self.average_prosecutor_risk)} (classes / records)",
            ),
            (
                f"records at risk > {self.threshold:g}",
                f"{_share(self.records_at_risk)} of records, "
                f"{_share(self.classes_at_risk)} of classes",
            ),
            ("sample uniques", f"{_share(self.sample_uniques)} of records alone in their class"),
            ("marketer risk", f"{_share(self.marketer_risk)} of records re-identified on average"),
        ]
        if pop:
            rows += [
                (
                    "population",
                    f"{self.population_size:,.0f} records "
                    f"(sampling fraction {_share(self.sampling_fraction)})",
                ),
                ("highest journalist risk", _share(self.highest_journalist_risk)),
                (
                    f"journalist at risk > {self.threshold:g}",
                    f"{_share(self.journalist_records_at_risk)} of records",
                ),
            ]
        rows.append(
            (
                "population uniques",
                f"{_share(self.population_uniques)} of population records "
                f"({self.population_model})",
            )
        )
        return rows

    def __str__(self) -> str:
        from polars_anon._results import _aligned

        return _aligned("RiskReport", self._rows())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        from polars_anon._results import _table_html

        return _table_html("RiskReport", self._rows())


def histogram(sizes: pl.Series) -> pl.DataFrame:
    """Records and classes by class size, with the prosecutor risk of each
    size and the share of records at that risk or above."""
    frame = (
        sizes.cast(pl.UInt64)
        .alias("class_size")
        .value_counts(name="classes")
        .with_columns(pl.col("classes").cast(pl.UInt64))
        .sort("class_size")
        .with_columns(
            records=pl.col("class_size") * pl.col("classes"),
            risk=1.0 / pl.col("class_size").cast(pl.Float64),
        )
    )
    total = frame.get_column("records").sum()
    return frame.with_columns(
        share_of_records=pl.col("records") / total,
        share_at_this_risk_or_above=pl.col("records").cum_sum() / total,
    )


def report(
    quasi_identifiers: list[str],
    levels: dict[str, int],
    sizes: pl.Series,
    threshold: float,
    population: Any = None,
    matched: pl.Series | None = None,
    population_sizes: pl.Series | None = None,
) -> RiskReport:
    """The report of classes of ``sizes``; ``population`` a size, or with a
    table the matched and all class sizes."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ConfigError(f"threshold must be a probability in (0, 1], got {threshold!r}")
    size = None
    if population is not None and matched is None:
        if isinstance(population, bool) or not isinstance(population, (int, float)):
            raise ConfigError(
                "population must be a number of records or a table (DataFrame or "
                f"LazyFrame) of the population, got {type(population).__name__}"
            )
        size = float(population)
    figures: RiskFigures = assess_risk(
        sizes.cast(pl.UInt64).to_list(),
        float(threshold),
        size,
        None if matched is None else matched.cast(pl.UInt64).to_list(),
        None if population_sizes is None else population_sizes.cast(pl.UInt64).to_list(),
    )
    return RiskReport(
        quasi_identifiers=quasi_identifiers,
        levels=levels,
        records=figures.records,
        classes=figures.classes,
        threshold=float(threshold),
        highest_prosecutor_risk=figures.highest_prosecutor_risk,
        average_prosecutor_risk=figures.average_prosecutor_risk,
        records_at_risk=figures.records_at_risk,
        classes_at_risk=figures.classes_at_risk,
        sample_uniques=figures.sample_uniques,
        marketer_risk=figures.marketer_risk,
        highest_journalist_risk=figures.highest_journalist_risk,
        journalist_records_at_risk=figures.journalist_records_at_risk,
        population_size=figures.population_size,
        sampling_fraction=figures.sampling_fraction,
        population_uniques=figures.population_uniques,
        population_model=figures.population_model,
        estimates={"pitman": figures.pitman, "zayatz": figures.zayatz, "snb": figures.snb},
        histogram=histogram(sizes),
    )


def _labelled(prep: Prepared, lazy: pl.LazyFrame, levels: list[int], count: str) -> pl.DataFrame:
    """The classes of `lazy` at `levels` as labels and sizes, generalized by
    `prep`'s hierarchies; values they do not know are an error naming them."""
    qis = prep.quasi_identifiers
    grouped = group_strings(lazy, qis, count)
    for q, h, lvl in zip(qis, prep.hierarchies, levels, strict=True):
        if lvl == 0:
            continue
        unknown = grouped.filter(~pl.col(q).is_in(h.leaves)).get_column(q).unique().sort()
        if unknown.len():
            raise MissingValueError(
                f"population column '{q}': {unknown.len()} distinct value(s) missing from its "
                f"hierarchy, first: {unknown.head(3).to_list()}"
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


def risk(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies | None = None,
    levels: Levels | None = None,
    population: int | float | pl.DataFrame | pl.LazyFrame | None = None,
    threshold: float = 0.2,
    nulls: Nulls = "error",
) -> RiskReport:
    """The re-identification risk of ``data`` with its quasi-identifiers
    generalized to ``levels`` (by ``hierarchies``; without them, as they are:
    pass a release to get its risk).

    ``population``: ``None`` (the table is the whole population), its number
    of records (each class's population size is then estimated as its sample
    size over the sampling fraction, and population uniqueness by the
    model Dankar et al.'s rule picks), or a table of the population with the
    same quasi-identifiers (class sizes counted in it). ``threshold``: a record
    is at risk when its risk exceeds it.

    >>> import polars as pl
    >>> df = pl.DataFrame({"zip": ["537", "537", "537", "541", "541", "600"]})
    >>> r = risk(df, ["zip"])
    >>> r.highest_prosecutor_risk, r.average_prosecutor_risk, r.sample_uniques
    (1.0, 0.5, 0.16666666666666666)
    """
    prep = prepare(data, quasi_identifiers, hierarchies, (), nulls)
    lv = prep.levels(levels)
    named = dict(zip(prep.quasi_identifiers, lv, strict=True))
    if population is None or isinstance(population, (int, float)):
        return report(prep.quasi_identifiers, named, group_sizes(prep, lv), threshold, population)
    if not isinstance(population, (pl.DataFrame, pl.LazyFrame)):
        raise ConfigError(
            "population must be a number of records or a table (DataFrame or "
            f"LazyFrame) of the population, got {type(population).__name__}"
        )
    qis, count = prep.quasi_identifiers, prep.count
    missing = [q for q in qis if q not in as_lazy(population).collect_schema()]
    if missing:
        raise ConfigError(f"the population table has no column(s) {missing}")
    sample = _labelled(prep, prep.lazy, lv, count)
    pop = _labelled(prep, as_lazy(population), lv, count)
    joined = sample.join(pop, on=qis, how="left", suffix="_population", nulls_equal=True)
    absent = joined.filter(pl.col(f"{count}_population").is_null())
    if absent.height:
        first = absent.select(qis).row(0, named=True)
        raise ConfigError(
            f"{absent.height} class(es) of the table are not in the population table, "
            f"first: {first}; the population must contain the sample"
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
