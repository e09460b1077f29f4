"""p-sensitive k-anonymity and its refinements by categories of sensitive
values (p+-sensitive, (p, alpha)-sensitive); ``src/criteria/p_sensitive.rs``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polars_anon._core import ConfigError, CoreCriterion, Hierarchy
from polars_anon.criteria.base import Criterion, count_param, number, real_param
from polars_anon.reports.render import plural, values_text

Categories = Sequence[Sequence[str]] | tuple[Hierarchy, int]


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
            # a category given as one text is that one value, not its letters
            for v in [group] if isinstance(group, str) else group:
                if str(v) in of:
                    raise ConfigError(f"{name}: value {v!r} of '{attribute}' is in two categories")
                of[str(v)] = i
        count = len(groups)
    missing = [v for v in values if v not in of]
    if missing:
        raise ConfigError(
            f"{name}: {plural('value', missing)} of '{attribute}' in no category: "
            f"{values_text(missing[:10])}"
            + (f" ... ({len(missing) - 10} more)" if len(missing) > 10 else "")
        )
    return [of[v] for v in values], count


def _categories_text(categories: Categories) -> str:
    """How the values are sorted into categories, in words."""
    if isinstance(categories, tuple) and categories and isinstance(categories[0], Hierarchy):
        return f"categories at level {categories[1]} of a hierarchy"
    return f"{len(categories)} {'category' if len(categories) == 1 else 'categories'}"


class PSensitive(Criterion):
    """p-sensitive k-anonymity: at least ``p`` distinct sensitive values per group."""

    _fields = ("attribute", "p")
    kind = "p_sensitive"
    option = ("--p-sensitive", "at least P distinct sensitive values per group")

    p: int

    def __init__(self, p: int, attribute: str) -> None:
        object.__setattr__(self, "p", count_param("PSensitive", "p", p))
        object.__setattr__(self, "attribute", attribute)
        self._validate()

    def describe(self) -> str:
        return f"{self.p}-sensitive {self.attribute}"

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
    kind = "p_plus_sensitive"

    p: int
    categories: Any

    def __init__(self, p: int, attribute: str, categories: Categories) -> None:
        object.__setattr__(self, "p", count_param("PPlusSensitive", "p", p))
        object.__setattr__(self, "attribute", attribute)
        object.__setattr__(self, "categories", categories)
        self._validate()

    def describe(self) -> str:
        return f"{self.p}+-sensitive {self.attribute} ({_categories_text(self.categories)})"

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
    kind = "p_alpha_sensitive"

    p: int
    alpha: float
    categories: Any

    def __init__(self, p: int, alpha: float, attribute: str, categories: Categories) -> None:
        object.__setattr__(self, "p", count_param("PAlphaSensitive", "p", p))
        object.__setattr__(self, "alpha", real_param("PAlphaSensitive", "alpha", alpha))
        object.__setattr__(self, "attribute", attribute)
        object.__setattr__(self, "categories", categories)
        self._validate()

    def describe(self) -> str:
        return (
            f"({self.p}, {number(self.alpha)})-sensitive {self.attribute} "
            f"({_categories_text(self.categories)})"
        )

    def feasible(self, values: list[str]) -> None:
        self._needs("p", self.p, values)

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        values = values_of[self.attribute]
        codes, m = _category_codes("PAlphaSensitive", self.attribute, values, self.categories)
        return CoreCriterion.p_alpha_sensitive(self.p, self.alpha, self._attr(values_of), codes, m)
