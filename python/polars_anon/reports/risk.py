"""The re-identification risk of one table, from its classes' sizes.

The figures and the population models are the core's (``src/risk/``, where
each formula is stated with its source); `polars_anon.api.risk` finds the
classes: the groups of equal quasi-identifiers at the given levels, and for
a population table the size of each such class in the population.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, RiskFigures, assess_risk
from polars_anon.inputs.params import is_bool
from polars_anon.reports.render import aligned, levels_text, share, table_html


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
            ("records / classes", f"{self.records:,} / {self.classes:,}"),
            # level 0 everywhere: each value as it is (a release's own
            # labels, or a table before any generalization)
            (
                "levels",
                levels_text(self.levels) + ("" if any(self.levels.values()) else "  (as is)"),
            ),
            (
                "highest prosecutor risk",
                f"{share(self.highest_prosecutor_risk)} (1 / smallest class)",
            ),
            (
                "average prosecutor risk",
                f"{share(self.average_prosecutor_risk)} (classes / records)",
            ),
            (
                f"records at risk > {self.threshold!r}",
                f"{share(self.records_at_risk)} of records, "
                f"{share(self.classes_at_risk)} of classes",
            ),
            ("sample uniques", f"{share(self.sample_uniques)} of records alone in their class"),
            ("marketer risk", f"{share(self.marketer_risk)} of records re-identified on average"),
        ]
        if pop:
            rows.append(
                (
                    "population",
                    f"{self.population_size:,.0f} records "
                    f"(sampling fraction {share(self.sampling_fraction)})",
                )
            )
            # a population of a number only: each class's population size is
            # its sample size over the sampling fraction, which makes a sample
            # unique 1/pi records strong (a class rare in the population too
            # is riskier than that): the report says so beside the figures
            if self.population_model != "population table":
                rows.append(
                    (
                        "its class sizes",
                        "estimated as sample size / sampling fraction (for journalist and "
                        "marketer: low where a class is rare in the population too)",
                    )
                )
            rows += [
                ("highest journalist risk", share(self.highest_journalist_risk)),
                (
                    f"journalist at risk > {self.threshold!r}",
                    f"{share(self.journalist_records_at_risk)} of records",
                ),
            ]
        rows.append(
            (
                "population uniques",
                f"{share(self.population_uniques)} of population records ({self.population_model})",
            )
        )
        return rows

    def __str__(self) -> str:
        return aligned("RiskReport", self._rows())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return table_html("RiskReport", self._rows())


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
        if is_bool(population) or not isinstance(population, numbers.Real):
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
