"""beta-likeness (Cao and Karras, VLDB 2012), basic and enhanced, and
delta-disclosure privacy (Brickell and Shmatikov, KDD 2008), as ARX checks
them; ``src/criteria/likeness.rs``."""

from __future__ import annotations

from polars_anon._core import CoreCriterion
from polars_anon.criteria.base import Criterion, number, real_param
from polars_anon.inputs.params import as_bool


class BetaLikeness(Criterion):
    """Basic beta-likeness: in every group, each sensitive value's share q
    exceeds its share p in the whole table by at most ``beta`` times p,
    (q - p) / p <= beta. With ``enhanced=True`` the bound is min(beta, -ln p),
    which protects frequent values more. Only the values present in a group
    are checked. Monotone under generalization, not with suppression (with
    ``max_suppression`` > 0 only ``algorithm="mingen"`` is exact)."""

    _fields = ("attribute", "beta", "enhanced")
    kind = "beta_likeness"
    option = ("--beta-likeness", "basic beta-likeness: relative gain of each value at most B")

    beta: float
    enhanced: bool

    def __init__(self, beta: float, attribute: str, enhanced: bool = False) -> None:
        object.__setattr__(self, "beta", real_param("BetaLikeness", "beta", beta))
        object.__setattr__(self, "attribute", attribute)
        object.__setattr__(self, "enhanced", as_bool("BetaLikeness: enhanced", enhanced))
        self._validate()

    def describe(self) -> str:
        kind = "enhanced" if self.enhanced else "basic"
        return f"{kind} beta-likeness {number(self.beta)} of {self.attribute}"

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.beta_likeness(self.beta, self._attr(values_of), self.enhanced)


class DeltaDisclosure(Criterion):
    """Delta-disclosure privacy: in every group, each sensitive value's share q
    and its share p in the whole table satisfy |log2(q / p)| < ``delta``
    (strictly; base 2 as in ARX). Only the values present in a group are
    checked. Not monotone, with or without suppression: only
    ``algorithm="mingen"`` searches with it."""

    _fields = ("attribute", "delta")
    kind = "delta_disclosure"
    option = ("--delta-disclosure", "delta-disclosure privacy: |log2(q/p)| below D")

    delta: float

    def __init__(self, delta: float, attribute: str) -> None:
        object.__setattr__(self, "delta", real_param("DeltaDisclosure", "delta", delta))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def describe(self) -> str:
        return f"delta-disclosure privacy {number(self.delta)} of {self.attribute}"

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.delta_disclosure(self.delta, self._attr(values_of))
