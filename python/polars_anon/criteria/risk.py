"""Risk thresholds on the whole release (ARX's sample-based models): the
average re-identification risk and the share of sample uniques, checked
after every group's criteria; ``src/criteria/dataset.rs``. When one fails,
whole classes are suppressed, the smallest first (ties by their values),
until it holds, and the node is anonymous when all the suppression, the
groups' and this, stays within ``max_suppression``. Both are monotone,
with and without suppression, so every search takes them; with ``k=1``
they are the only model."""

from __future__ import annotations

from typing import ClassVar

from polars_anon._core import CoreCriterion
from polars_anon.criteria.base import Criterion, real_param


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
    option = ("--average-risk", "average re-identification risk of the release at most X")
    whole_release: ClassVar[bool] = True

    max_risk: float

    def __init__(self, max_risk: float) -> None:
        object.__setattr__(self, "max_risk", real_param("AverageRisk", "max_risk", max_risk))
        self._validate()

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.average_risk(self.max_risk)


class SampleUniqueness(Criterion):
    """The share of released records alone in their class at most
    ``max_share``, suppressed records left out."""

    _fields = ("max_share",)
    kind = "sample_uniqueness"
    option = ("--sample-uniqueness", "share of the release's records unique in it at most X")
    whole_release: ClassVar[bool] = True

    max_share: float

    def __init__(self, max_share: float) -> None:
        object.__setattr__(
            self, "max_share", real_param("SampleUniqueness", "max_share", max_share)
        )
        self._validate()

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.sample_uniqueness(self.max_share)
