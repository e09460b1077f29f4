"""Risk thresholds on the whole release (ARX's sample-based models, and
estimated k-map): the average re-identification risk, the shares of sample
and of estimated population uniques, and k-map against a population size,
checked after every group's criteria; ``src/criteria/dataset.rs``. When one
fails, whole classes are suppressed, the smallest first (ties by their
values), until it holds, and the node is anonymous when all the
suppression, the groups' and this, stays within ``max_suppression``. With
``k=1`` they are the only model."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

from polars_anon._core import ConfigError, CoreCriterion
from polars_anon.criteria.base import (
    Criterion,
    Populations,
    count_param,
    is_table,
    number,
    real_param,
    table_text,
)
from polars_anon.criteria.population import counted, probe
from polars_anon.reports.render import one_of


class AverageRisk(Criterion):
    """The average prosecutor re-identification risk of the released
    records at most ``max_risk``: classes over records (the reciprocal of
    the average class size), suppressed records left out.

    >>> import polars_anon as pa
    >>> lf, hs = pa.datasets.adult()
    >>> r = pa.search(lf, ["age", "sex", "race"], hs, k=1, criteria=pa.AverageRisk(0.05),
    ...               max_suppression=0.02, progress=False)
    >>> out = r.apply().collect()
    >>> classes = out.group_by(["age", "sex", "race"]).len()
    >>> classes.height / out.height <= 0.05
    True
    """

    _fields = ("max_risk",)
    kind = "average_risk"
    option = ("--average-risk", "average re-identification risk of the release at most MAX_RISK")
    whole_release: ClassVar[bool] = True

    max_risk: float

    def __init__(self, max_risk: float) -> None:
        object.__setattr__(self, "max_risk", real_param("AverageRisk", "max_risk", max_risk))
        self._validate()

    def describe(self) -> str:
        return f"average re-identification risk at most {number(self.max_risk)}"

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.average_risk(self.max_risk)


class SampleUniqueness(Criterion):
    """The share of released records alone in their class at most
    ``max_share``, suppressed records left out."""

    _fields = ("max_share",)
    kind = "sample_uniqueness"
    option = (
        "--sample-uniqueness",
        "share of the release's records unique in it at most MAX_SHARE",
    )
    whole_release: ClassVar[bool] = True

    max_share: float

    def __init__(self, max_share: float) -> None:
        object.__setattr__(
            self, "max_share", real_param("SampleUniqueness", "max_share", max_share)
        )
        self._validate()

    def describe(self) -> str:
        return f"share of sample uniques at most {number(self.max_share)}"

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.sample_uniqueness(self.max_share)


MODELS = ("dankar", "pitman", "zayatz", "snb")
ESTIMATORS = ("poisson", "zero_truncated_poisson")


def _population(criterion: str, population: Any) -> float:
    if isinstance(population, bool) or not isinstance(population, numbers.Real):
        table = " or a table of the population" if criterion == "KMap" else ""
        raise ConfigError(
            f"{criterion}: population is the population's number of records{table}, got "
            f"{type(population).__name__} {population!r:.40}"
        )
    return float(population)


class PopulationUniqueness(Criterion):
    """The share of the population's records estimated to be unique in it,
    from the release's classes, at most ``max_share``; met when no released
    record is unique. ``population``: the population's number of records
    (the sampling fraction is the released records over it, as ARX takes
    it). ``model``: ``"dankar"`` (Dankar et al.'s rule: Pitman up to a
    sampling fraction of 0.1, else the smaller of Zayatz and SNB; no
    estimate fails), ``"pitman"``, ``"zayatz"`` or ``"snb"`` (the estimators
    of `polars_anon.risk`, which differ from ARX's where its fits go
    outside the models' parameter spaces). Not monotone, with suppression
    or without (ARX takes Zayatz's model as monotone under generalization,
    but its estimate can rise as classes merge): searches other than
    ``algorithm="mingen"`` and Datafly refuse it, and ``algorithm="auto"``
    picks mingen (Datafly past a million nodes)."""

    _fields = ("max_share", "population", "model")
    kind = "population_uniqueness"
    option = (
        "--population-uniqueness",
        "estimated share of population uniques at most MAX_SHARE, of a population of "
        "POPULATION records; MODEL dankar (default), pitman, zayatz or snb",
    )
    whole_release: ClassVar[bool] = True

    max_share: float
    population: float
    model: str

    def __init__(self, max_share: float, population: float, model: str = "dankar") -> None:
        object.__setattr__(
            self, "max_share", real_param("PopulationUniqueness", "max_share", max_share)
        )
        object.__setattr__(self, "population", _population("PopulationUniqueness", population))
        if not isinstance(model, str) or model not in MODELS:
            raise ConfigError(
                f"PopulationUniqueness: model must be {one_of(MODELS)}, got {model!r}"
            )
        object.__setattr__(self, "model", model)
        self._validate()

    def describe(self) -> str:
        return (
            f"share of population uniques at most {number(self.max_share)} in a population "
            f"of {self.population:,.0f} records ({self.model} model)"
        )

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.population_uniqueness(self.max_share, self.population, self.model)


class KMap(Criterion):
    """k-map: every released class matches at least ``k`` individuals of the
    population. With a table of the population (``population``: a DataFrame
    or LazyFrame with the same quasi-identifiers, of which the data is a
    subset), exact: each class of the release is counted in it at the same
    levels (`criteria.population`). With the population's number of records,
    estimated as El Emam and Dankar (2008) and ARX do: a class of f released
    records is taken to match k individuals when f reaches k', the least
    count that a population class of k would exceed in the sample with
    probability at most ``significance`` under a Poisson model of sampling
    (``estimator="poisson"``, their D3; ``"zero_truncated_poisson"``, D4) at
    the table's sampling fraction; k' is at most k. (ARX's API has no
    default significance; 0.05 is the usual choice.) Monotone with and
    without suppression."""

    _fields = ("k", "population", "significance", "estimator")
    kind = "kmap"
    option = (
        "--kmap",
        "k-map: every class matches K or more of the population's records; POPULATION a "
        "number of records (estimated: SIGNIFICANCE 0.05, ESTIMATOR poisson or "
        "zero_truncated_poisson) or the file of the population table (exact; CSV or "
        "Parquet, read as the data is)",
    )
    whole_release: ClassVar[bool] = True

    k: int
    population: Any
    significance: float
    estimator: str

    def __init__(
        self,
        k: int,
        population: Any,
        significance: float = 0.05,
        estimator: str = "poisson",
    ) -> None:
        object.__setattr__(self, "k", count_param("KMap", "k", k))
        if not is_table(population):
            population = _population("KMap", population)
        object.__setattr__(self, "population", population)
        object.__setattr__(self, "significance", real_param("KMap", "significance", significance))
        if not isinstance(estimator, str) or estimator not in ESTIMATORS:
            raise ConfigError(f"KMap: estimator must be {one_of(ESTIMATORS)}, got {estimator!r}")
        object.__setattr__(self, "estimator", estimator)
        self._validate()

    def describe(self) -> str:
        if is_table(self.population):
            return f"{self.k}-map against {table_text(self.population)}"
        return (
            f"{self.k}-map in a population of {self.population:,.0f} records (estimated: "
            f"{self.estimator.replace('_', '-')}, significance {number(self.significance)})"
        )

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        if is_table(self.population):
            return CoreCriterion.kmap_table(self.k, probe(), 0)
        return CoreCriterion.kmap(
            self.k, self.population, self.significance, self.estimator != "poisson"
        )

    @property
    def needs_population(self) -> bool:
        return is_table(self.population)

    def bind(
        self, values_of: dict[str, list[str]], populations: Populations | None
    ) -> CoreCriterion:
        if not is_table(self.population):
            return self.core(values_of)
        return CoreCriterion.kmap_table(self.k, *counted(self, populations, self.population))
