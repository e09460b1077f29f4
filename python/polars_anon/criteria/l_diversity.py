"""l-diversity: distinct, entropy and recursive (c, l); ``src/criteria/l_diversity.rs``."""

from __future__ import annotations

import math

from polars_anon._core import CoreCriterion
from polars_anon.criteria.base import Criterion, count_param, number, real_param


class DistinctLDiversity(Criterion):
    """At least ``l`` distinct sensitive values per group."""

    _fields = ("attribute", "l")
    kind = "distinct_l"
    option = ("--l-diversity", "at least L distinct sensitive values per group")

    l: int  # noqa: E741

    def __init__(self, l: int, attribute: str) -> None:  # noqa: E741
        object.__setattr__(self, "l", count_param("DistinctLDiversity", "l", l))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def describe(self) -> str:
        return f"distinct {self.l}-diversity of {self.attribute}"

    def feasible(self, values: list[str]) -> None:
        self._needs("l", self.l, values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.distinct_l(self.l, self._attr(values_of))


class EntropyLDiversity(Criterion):
    """Entropy of the group's sensitive values at least log(``l``)."""

    _fields = ("attribute", "l")
    kind = "entropy_l"
    option = ("--entropy-l", "entropy l-diversity")

    l: float  # noqa: E741

    def __init__(self, l: float, attribute: str) -> None:  # noqa: E741
        object.__setattr__(self, "l", real_param("EntropyLDiversity", "l", l))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def describe(self) -> str:
        return f"entropy {number(self.l)}-diversity of {self.attribute}"

    def feasible(self, values: list[str]) -> None:
        # the entropy of m values is at most log(m)
        self._needs("l", math.ceil(self.l - 1e-9), values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.entropy_l(self.l, self._attr(values_of))


class RecursiveCLDiversity(Criterion):
    """Recursive (c, l)-diversity: r_1 < c (r_l + ... + r_m) for the group's value
    counts in decreasing order."""

    _fields = ("attribute", "c", "l")
    kind = "recursive_cl"

    c: float
    l: int  # noqa: E741

    def __init__(self, c: float, l: int, attribute: str) -> None:  # noqa: E741
        object.__setattr__(self, "c", real_param("RecursiveCLDiversity", "c", c))
        object.__setattr__(self, "l", count_param("RecursiveCLDiversity", "l", l))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def describe(self) -> str:
        return f"recursive ({number(self.c)}, {self.l})-diversity of {self.attribute}"

    def feasible(self, values: list[str]) -> None:
        self._needs("l", self.l, values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.recursive_cl(self.c, self.l, self._attr(values_of))
