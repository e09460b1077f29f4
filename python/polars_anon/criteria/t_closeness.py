"""t-closeness by the Earth Mover's Distance, with equal, ordered or
hierarchical ground distance; ``src/criteria/t_closeness.rs``."""

from __future__ import annotations

from typing import Literal

from polars_anon._core import ConfigError, CoreCriterion, Hierarchy
from polars_anon.criteria.base import Criterion, number, real_param
from polars_anon.reports.render import plural, values_text


class TCloseness(Criterion):
    """Earth Mover's Distance between the group's and the table's distribution of
    the attribute at most ``t``: ``"equal"`` ground distance (categorical),
    ``"ordered"`` (numeric: values ranked by number), or ``"hierarchical"``
    (pass the attribute's ``hierarchy``)."""

    _fields = ("attribute", "t", "distance", "hierarchy")
    kind = "t_closeness"
    option = ("--t-closeness", "t-closeness, equal ground distance")

    t: float
    distance: str
    hierarchy: Hierarchy | None

    def __init__(
        self,
        t: float,
        attribute: str,
        distance: Literal["equal", "hierarchical", "ordered"] = "equal",
        hierarchy: Hierarchy | None = None,
    ) -> None:
        if distance not in ("equal", "hierarchical", "ordered"):
            raise ConfigError(
                "TCloseness distance must be 'equal', 'hierarchical' or 'ordered', "
                f"got {distance!r}"
            )
        if distance == "hierarchical" and hierarchy is None:
            raise ConfigError("TCloseness(distance='hierarchical') needs hierarchy=")
        object.__setattr__(self, "t", real_param("TCloseness", "t", t))
        object.__setattr__(self, "attribute", attribute)
        object.__setattr__(self, "distance", distance)
        object.__setattr__(self, "hierarchy", hierarchy)
        self._validate()

    def describe(self) -> str:
        return f"t-closeness {number(self.t)} of {self.attribute} ({self.distance} distance)"

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        values = values_of[self.attribute]
        attr = self._attr(values_of)
        if self.distance == "ordered":
            keys: list[float] = []
            for v in values:
                try:
                    keys.append(float(v))
                except ValueError:
                    raise ConfigError(
                        f"TCloseness(distance='ordered') ranks the values of "
                        f"'{self.attribute}' by number, but {v!r} is not a number; use "
                        "distance='equal', or 'hierarchical' with a hierarchy"
                    ) from None
            order = sorted(range(len(values)), key=lambda i: keys[i])
            rank = [0] * len(values)
            for r, i in enumerate(order):
                rank[i] = r
            return CoreCriterion.t_closeness_ordered(self.t, attr, rank)
        if self.distance == "hierarchical":
            h = self.hierarchy
            assert h is not None
            leaf_index = {v: i for i, v in enumerate(h.leaves)}
            missing = [v for v in values if v not in leaf_index]
            if missing:
                raise ConfigError(
                    f"TCloseness: {plural('value', missing)} of '{self.attribute}' missing from "
                    f"its hierarchy: {values_text(missing[:10])}"
                )
            parents = []
            for lvl in range(h.height):
                low, high = h.leaf_labels(lvl), h.leaf_labels(lvl + 1)
                lo_index = {lab: i for i, lab in enumerate(h.levels[lvl])}
                hi_index = {lab: i for i, lab in enumerate(h.levels[lvl + 1])}
                up = [0] * len(h.levels[lvl])
                for a, b in zip(low, high, strict=True):
                    up[lo_index[a]] = hi_index[b]
                parents.append(up)
            leaf_of = [leaf_index[v] for v in values]
            return CoreCriterion.t_closeness_hierarchical(self.t, attr, leaf_of, parents, h.height)
        return CoreCriterion.t_closeness_equal(self.t, attr)
