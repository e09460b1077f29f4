"""Models against a population table, of which the data is a research
subset: each class of a release is matched to the population's records at
the same levels (``src/criteria/population.rs``). `DPresence` here; `KMap`
(in `criteria.risk`) takes a table as its population too. A class failing
one is suppressed; a class of the population without records of the data
cannot be, and under delta-presence with ``d_min > 0`` it suppresses the
whole release (ARX refuses such a node). With ``k=1`` they are the only
model."""

from __future__ import annotations

from typing import Any, ClassVar

import polars as pl

from polars_anon._core import ConfigError, CoreCriterion, Hierarchy, Problem
from polars_anon.criteria.base import (
    Criterion,
    Populations,
    is_table,
    number,
    real_param,
    table_text,
)


def table_param(criterion: str, population: Any) -> Any:
    """A population table: a Polars frame, or anything with ``__arrow_c_stream__``."""
    if not is_table(population):
        raise ConfigError(
            f"{criterion}: population is a table of the population (a DataFrame or "
            f"LazyFrame with the quasi-identifiers), got {type(population).__name__} "
            f"{population!r:.40}"
        )
    return population


def probe() -> Problem:
    """A population of one record, to build a model's core form with (its
    parameters checked, its flags read) before there is a table to count."""
    return Problem(["x"], [Hierarchy.from_rows([["a"]])], [pl.Series(["a"])], None)


def counted(
    criterion: Criterion, populations: Populations | None, table: Any
) -> tuple[Problem, int]:
    """`table` counted for `criterion` through the checked table's hierarchies."""
    if populations is None:
        raise ConfigError(
            f"{type(criterion).__name__} against a population table is not supported "
            "here (local recoding, Mondrian); use a search, check or generalize"
        )
    return populations(table, type(criterion).__name__)


class DPresence(Criterion):
    """Delta-presence (Nergiz, Atzori and Clifton, SIGMOD 2007): the data is
    a research subset of the ``population`` table (a DataFrame or LazyFrame
    with the same quasi-identifiers), and for every class of the release,
    the probability ``f / F`` that an individual of the population in it
    (F of them) is one of the data's (f) lies in ``[d_min, d_max]``. A class
    failing it is suppressed. A class of the population holding none of the
    data's records has probability 0: with ``d_min > 0`` it fails and cannot
    be suppressed, and the node's whole release is (ARX refuses the node;
    ARX skips this check when k-anonymity is configured as well, a
    difference only for ``k > 1``). Monotone under generalization, not with
    suppression (ARX).

    >>> import polars as pl, polars_anon as pa
    >>> people = pl.DataFrame({"age": ["30", "31", "32", "33"], "zip": ["1", "1", "2", "2"]})
    >>> ages = pa.Hierarchy.from_rows([[a, "30-33"] for a in ["30", "31", "32", "33"]])
    >>> study = people.head(2)
    >>> r = pa.search(study, ["age"], {"age": ages}, k=1, progress=False,
    ...               criteria=pa.DPresence(0.0, 0.5, population=people))
    >>> r.best("min_loss")
    {'age': 1}
    """

    _fields = ("d_min", "d_max", "population")
    kind = "d_presence"
    option = (
        "--d-presence",
        "delta-presence against the population table in the file POPULATION (CSV or "
        "Parquet, read as the data is): each class's share of the population in the data "
        "between D_MIN and D_MAX",
    )
    whole_release: ClassVar[bool] = True

    d_min: float
    d_max: float
    population: Any

    def __init__(self, d_min: float, d_max: float, population: Any) -> None:
        object.__setattr__(self, "d_min", real_param("DPresence", "d_min", d_min))
        object.__setattr__(self, "d_max", real_param("DPresence", "d_max", d_max))
        object.__setattr__(self, "population", table_param("DPresence", population))
        self._validate()

    def describe(self) -> str:
        return (
            f"delta-presence {number(self.d_min)} to {number(self.d_max)} against "
            f"{table_text(self.population)}"
        )

    @property
    def needs_population(self) -> bool:
        return True

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.d_presence(self.d_min, self.d_max, probe(), 0)

    def bind(
        self, values_of: dict[str, list[str]], populations: Populations | None
    ) -> CoreCriterion:
        problem, outside = counted(self, populations, self.population)
        return CoreCriterion.d_presence(self.d_min, self.d_max, problem, outside)
