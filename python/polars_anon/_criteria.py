"""Privacy models on sensitive attributes, combined with k through ``criteria=``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, TypeAlias

from polars_anon._core import ConfigError, CoreCriterion, Hierarchy
from polars_anon._frames import as_int

Categories = Sequence[Sequence[str]] | tuple[Hierarchy, int]


def _count(criterion: str, name: str, value: Any) -> int:
    """A count parameter (p, l): an integer of at least 1."""
    n = as_int(f"{criterion}: {name}", value)
    if n < 1:
        raise ConfigError(f"{criterion}: {name} = {n} is out of range; {name} must be at least 1")
    return n


def _real(criterion: str, name: str, value: Any) -> float:
    """A real parameter (alpha, c, l, t) as a float; its range is the core's to check."""
    if isinstance(value, bool) or (
        not isinstance(value, (int, float)) and not hasattr(value, "__float__")
    ):
        raise ConfigError(
            f"{criterion}: {name} must be a number, got {value!r} ({type(value).__name__})"
        )
    return float(value)


def _category_codes(
    name: str, attribute: str, values: list[str], categories: Categories
) -> tuple[list[int], int]:
    """Category index of every sensitive value (0 = most sensitive), and how many."""
    if (
        isinstance(categories, tuple)
        and len(categories) == 2
        and isinstance(categories[0], Hierarchy)
    ):
        h, level = categories
        labels = h.leaf_labels(int(level))
        order = h.levels[int(level)]
        of = {leaf: order.index(lab) for leaf, lab in zip(h.leaves, labels, strict=True)}
        count = len(order)
    else:
        of = {}
        groups = list(categories)
        for i, group in enumerate(groups):
            for v in group:
                if str(v) in of:
                    raise ConfigError(f"{name}: value {v!r} of '{attribute}' is in two categories")
                of[str(v)] = i
        count = len(groups)
    missing = [v for v in values if v not in of]
    if missing:
        raise ConfigError(
            f"{name}: value(s) of '{attribute}' in no category: {missing[:10]}"
            + (f" ... ({len(missing) - 10} more)" if len(missing) > 10 else "")
        )
    return [of[v] for v in values], count


class Criterion:
    """Base class: a requirement on the sensitive values of every QI group.

    A criterion is a frozen value: shown, compared and hashed by its
    parameters (`_fields`). (Written out rather than as dataclasses: eight
    of them cost 2.5 ms of every import, a tenth of a small run's.)"""

    # the parameters, in the order they are shown and compared
    _fields: ClassVar[tuple[str, ...]] = ("attribute",)
    attribute: str

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({shown})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    def __hash__(self) -> int:
        return hash((type(self), *(getattr(self, f) for f in self._fields)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot assign to {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        """The core's form, given each sensitive attribute's values (in code order)."""
        raise NotImplementedError

    def _attr(self, values_of: dict[str, list[str]]) -> int:
        return list(values_of).index(self.attribute)

    def feasible(self, values: list[str]) -> None:
        """Raise when no group of a table whose attribute has these distinct
        values could pass (a requirement of more distinct values than exist)."""

    def _needs(self, name: str, count: int, values: list[str], what: str = "values") -> None:
        if count > len(values):
            raise ConfigError(
                f"{type(self).__name__}: {name} = {count} but '{self.attribute}' has only "
                f"{len(values)} distinct {what} in the table, so no group can pass; "
                f"lower {name}"
            )

    def _validate(self) -> None:
        """Check the parameters now (the core names the one out of range)."""
        self.core({self.attribute: []})

    @property
    def monotone(self) -> bool:
        """Merging groups never breaks it (when nothing is suppressed)."""
        return self.core({self.attribute: []}).monotone

    @property
    def monotone_with_suppression(self) -> bool:
        """Still monotone when the groups that fail are suppressed."""
        return self.core({self.attribute: []}).monotone_with_suppression


class PSensitive(Criterion):
    """p-sensitive k-anonymity: at least ``p`` distinct sensitive values per group."""

    _fields = ("attribute", "p")

    p: int

    def __init__(self, p: int, attribute: str) -> None:
        object.__setattr__(self, "p", _count("PSensitive", "p", p))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def feasible(self, values: list[str]) -> None:
        self._needs("p", self.p, values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.p_sensitive(self.p, self._attr(values_of))


class PPlusSensitive(Criterion):
    """p+-sensitive k-anonymity: at least ``p`` distinct categories per group.

    ``categories`` lists the values by category, most sensitive first, or is a
    ``(Hierarchy, level)`` whose labels at that level are so ordered.
    """

    _fields = ("attribute", "p", "categories")

    p: int
    categories: Any

    def __init__(self, p: int, attribute: str, categories: Categories) -> None:
        object.__setattr__(self, "p", _count("PPlusSensitive", "p", p))
        object.__setattr__(self, "attribute", attribute)
        object.__setattr__(self, "categories", categories)
        self._validate()

    def feasible(self, values: list[str]) -> None:
        codes, _ = _category_codes("PPlusSensitive", self.attribute, values, self.categories)
        self._needs("p", self.p, sorted({str(c) for c in codes}), "categories")

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        values = values_of[self.attribute]
        codes, _ = _category_codes("PPlusSensitive", self.attribute, values, self.categories)
        return CoreCriterion.p_plus_sensitive(self.p, self._attr(values_of), codes)


class PAlphaSensitive(Criterion):
    """(p, alpha)-sensitive k-anonymity: at least ``p`` distinct values and a total
    weight of at least ``alpha``, where a value weighs (i - 1) / (m - 1) for the
    i-th of m categories (the last weighs 1), summed over the group's tuples."""

    _fields = ("attribute", "p", "alpha", "categories")

    p: int
    alpha: float
    categories: Any

    def __init__(self, p: int, alpha: float, attribute: str, categories: Categories) -> None:
        object.__setattr__(self, "p", _count("PAlphaSensitive", "p", p))
        object.__setattr__(self, "alpha", _real("PAlphaSensitive", "alpha", alpha))
        object.__setattr__(self, "attribute", attribute)
        object.__setattr__(self, "categories", categories)
        self._validate()

    def feasible(self, values: list[str]) -> None:
        self._needs("p", self.p, values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        values = values_of[self.attribute]
        codes, m = _category_codes("PAlphaSensitive", self.attribute, values, self.categories)
        return CoreCriterion.p_alpha_sensitive(self.p, self.alpha, self._attr(values_of), codes, m)


class DistinctLDiversity(Criterion):
    """At least ``l`` distinct sensitive values per group."""

    _fields = ("attribute", "l")

    l: int  # noqa: E741

    def __init__(self, l: int, attribute: str) -> None:  # noqa: E741
        object.__setattr__(self, "l", _count("DistinctLDiversity", "l", l))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def feasible(self, values: list[str]) -> None:
        self._needs("l", self.l, values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.distinct_l(self.l, self._attr(values_of))


class EntropyLDiversity(Criterion):
    """Entropy of the group's sensitive values at least log(``l``)."""

    _fields = ("attribute", "l")

    l: float  # noqa: E741

    def __init__(self, l: float, attribute: str) -> None:  # noqa: E741
        object.__setattr__(self, "l", _real("EntropyLDiversity", "l", l))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def feasible(self, values: list[str]) -> None:
        # the entropy of m values is at most log(m)
        self._needs("l", math.ceil(self.l - 1e-9), values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.entropy_l(self.l, self._attr(values_of))


class RecursiveCLDiversity(Criterion):
    """Recursive (c, l)-diversity: r_1 < c (r_l + ... + r_m) for the group's value
    counts in decreasing order."""

    _fields = ("attribute", "c", "l")

    c: float
    l: int  # noqa: E741

    def __init__(self, c: float, l: int, attribute: str) -> None:  # noqa: E741
        object.__setattr__(self, "c", _real("RecursiveCLDiversity", "c", c))
        object.__setattr__(self, "l", _count("RecursiveCLDiversity", "l", l))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def feasible(self, values: list[str]) -> None:
        self._needs("l", self.l, values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        return CoreCriterion.recursive_cl(self.c, self.l, self._attr(values_of))


class TCloseness(Criterion):
    """Earth Mover's Distance between the group's and the table's distribution of
    the attribute at most ``t``: ``"equal"`` ground distance (categorical),
    ``"ordered"`` (numeric: values ranked by number), or ``"hierarchical"``
    (pass the attribute's ``hierarchy``)."""

    _fields = ("attribute", "t", "distance", "hierarchy")

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
        object.__setattr__(self, "t", _real("TCloseness", "t", t))
        object.__setattr__(self, "attribute", attribute)
        object.__setattr__(self, "distance", distance)
        object.__setattr__(self, "hierarchy", hierarchy)
        self._validate()

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
                    f"TCloseness: value(s) of '{self.attribute}' missing from its hierarchy: "
                    f"{missing[:10]}"
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


# what every function takes as criteria: one, several, or none
Criteria: TypeAlias = "Criterion | Sequence[Criterion] | None"


def listed(criteria: Criteria) -> list[Criterion]:
    """`criteria` as a list (a single criterion need not be wrapped), each
    checked to be one of ours."""
    if criteria is None:
        return []
    items = [criteria] if isinstance(criteria, Criterion) else list(criteria)
    for c in items:
        if not isinstance(c, Criterion):
            raise TypeError(
                f"criteria must be polars_anon criteria (PSensitive, TCloseness, ...), "
                f"got {type(c).__name__}"
            )
    return items


def specs(
    criteria: Criteria, values_of: dict[str, list[str]], *, feasible: bool = True
) -> list[CoreCriterion]:
    """The core's form of each criterion, for a table whose sensitive
    attributes have these values. With `feasible`, criteria that no group
    could meet are refused (a search or release for them cannot succeed);
    `check` answers "no" instead."""
    out = []
    for c in listed(criteria):
        if feasible:
            c.feasible(values_of[c.attribute])
        out.append(c.core(values_of))
    return out


def sensitive_of(criteria: Criteria) -> list[str]:
    out: list[str] = []
    for c in listed(criteria):
        if c.attribute not in out:
            out.append(c.attribute)
    return out
