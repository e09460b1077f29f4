"""What every privacy model on sensitive attributes shares: a frozen value
with its parameters, its core form and whether it is monotone; the registry
of the models by kind (each family's module adds its classes by subclassing
`Criterion`); and the helpers every function uses on ``criteria=``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, TypeAlias

import polars as pl

from polars_anon._core import ConfigError, CoreCriterion, Problem
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.params import as_int


def count_param(criterion: str, name: str, value: Any) -> int:
    """A count parameter (p, l): an integer of at least 1."""
    n = as_int(f"{criterion}: {name}", value)
    if n < 1:
        raise ConfigError(f"{criterion}: {name} = {n} is out of range; {name} must be at least 1")
    return n


def real_param(criterion: str, name: str, value: Any) -> float:
    """A real parameter (alpha, c, l, t) as a float; its range is the core's to check."""
    if isinstance(value, bool) or (
        not isinstance(value, (int, float)) and not hasattr(value, "__float__")
    ):
        raise ConfigError(
            f"{criterion}: {name} must be a number, got {value!r} ({type(value).__name__})"
        )
    return float(value)


class Populations(Protocol):
    """Counts a population table through the hierarchies of the table a
    model is checked on (`Prepared.population`): the core problem, and its
    records no level of them matches."""

    def __call__(self, table: Any, model: str) -> tuple[Problem, int]: ...


def _comparable(value: Any) -> Any:
    """A parameter as compared and hashed: a table by identity."""
    return ("table", id(value)) if is_table(value) else value


def is_table(value: Any) -> bool:
    """A Polars frame, or anything with ``__arrow_c_stream__``."""
    return isinstance(value, pl.DataFrame | pl.LazyFrame) or hasattr(value, "__arrow_c_stream__")


def _shown(value: Any) -> str:
    if isinstance(value, pl.DataFrame):
        return f"<DataFrame of {value.height} rows>"
    return f"<{type(value).__name__}>" if is_table(value) else repr(value)


def number(x: float) -> str:
    """A real parameter as a report writes it: ``0.2``, ``3``, ``1e-09``."""
    return f"{x:g}"


def table_text(table: Any) -> str:
    """A population table as a report names it."""
    if isinstance(table, pl.DataFrame):
        return f"a population table of {table.height:,} record{'' if table.height == 1 else 's'}"
    return "a population table"


class Criterion:
    """Base class: a requirement on the sensitive values of every QI group.

    A criterion is a frozen value: shown, compared and hashed by its
    parameters (`_fields`). (Written out rather than as dataclasses: eight
    of them cost 2.5 ms of every import, a tenth of a small run's.)"""

    # the parameters, in the order they are shown and compared
    _fields: ClassVar[tuple[str, ...]] = ("attribute",)
    # its name in a job file (``{ type = "p_sensitive", ... }``); a subclass
    # with a kind is registered in TYPES
    kind: ClassVar[str]
    # the command line's option for a model of one parameter besides the
    # attribute (``--p-sensitive ATTR:P``; a model of the whole release:
    # ``--average-risk X``) and its help, or None
    option: ClassVar[tuple[str, str] | None] = None
    # a model of the whole release (`criteria.risk`) or of the classes
    # against a population (`criteria.population`) rather than of each
    # group's sensitive values: it has no attribute
    whole_release: ClassVar[bool] = False
    attribute: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__:
            TYPES[cls.kind] = cls

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={_shown(getattr(self, f))}" for f in self._fields)
        return f"{type(self).__name__}({shown})"

    def describe(self) -> str:
        """The model in words, as reports and messages show it: ``distinct
        3-diversity of occupation``, ``2-sensitive salary-class``."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(
            _comparable(getattr(self, f)) == _comparable(getattr(other, f)) for f in self._fields
        )

    def __hash__(self) -> int:
        return hash((type(self), *(_comparable(getattr(self, f)) for f in self._fields)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot assign to {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def core(self, values_of: dict[str, list[str]]) -> CoreCriterion:
        """The core's form, given each sensitive attribute's values (in code order)."""
        raise NotImplementedError

    @property
    def needs_population(self) -> bool:
        """Whether it is checked against a population table (its `population`)."""
        return False

    def bind(
        self, values_of: dict[str, list[str]], populations: Populations | None
    ) -> CoreCriterion:
        """The core's form for a table: `core` of its sensitive values; a
        model against a population table counts it through `populations`."""
        return self.core(values_of)

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

    def _probe(self) -> dict[str, list[str]]:
        """Sensitive values to build the core's form with, for its flags."""
        return {} if self.whole_release else {self.attribute: []}

    def _validate(self) -> None:
        """Check the parameters now (the core names the one out of range)."""
        if not self.whole_release and (not isinstance(self.attribute, str) or not self.attribute):
            raise ConfigError(
                f"{type(self).__name__}: attribute is a column's name, got {self.attribute!r:.60}"
            )
        self.core(self._probe())

    @property
    def monotone(self) -> bool:
        """Merging groups never breaks it (when nothing is suppressed)."""
        return self.core(self._probe()).monotone

    @property
    def monotone_with_suppression(self) -> bool:
        """Still monotone when the groups that fail are suppressed."""
        return self.core(self._probe()).monotone_with_suppression


# kind -> criterion class, filled by each family's module (`Criterion.kind`)
TYPES: dict[str, type[Criterion]] = {}

# what every function takes as criteria: one, several, or none
Criteria: TypeAlias = "Criterion | Sequence[Criterion] | None"


def listed(criteria: Criteria) -> list[Criterion]:
    """`criteria` as a list (a single criterion need not be wrapped), each
    checked to be one of ours."""
    if criteria is None:
        return []
    if isinstance(criteria, Criterion):
        return [criteria]
    given: list[Any] = list(criteria) if isinstance(criteria, list | tuple) else [criteria]
    items: list[Criterion] = []
    for c in given:
        if not isinstance(c, Criterion):
            raise ParameterError(
                f"criteria must be polars_anon criteria (PSensitive, TCloseness, ...), "
                f"got {type(c).__name__} {c!r:.60}"
            )
        items.append(c)
    return items


def specs(
    criteria: Criteria,
    values_of: dict[str, list[str]],
    *,
    feasible: bool = True,
    populations: Populations | None = None,
    rows: int,
) -> list[CoreCriterion]:
    """The core's form of each criterion, for a table whose sensitive
    attributes have these values (and whose hierarchies count population
    tables: `populations`, None where models against one are not offered).
    With `feasible`, criteria that no group could meet are refused (a search
    or release for them cannot succeed); `check` answers "no" instead.
    `rows`: the table's records, which a population given by its size must
    hold (a sampling fraction above 1 means nothing)."""
    out = []
    for c in listed(criteria):
        if feasible and not c.whole_release:
            c.feasible(values_of[c.attribute])
        size = getattr(c, "population", None)
        if isinstance(size, float) and size < rows:
            raise ConfigError(
                f"{type(c).__name__}: the population ({size:,.0f} records) must hold the "
                f"data ({rows:,} records), a sample of it"
            )
        out.append(c.bind(values_of, populations))
    return out


def against_population(criteria: Criteria) -> list[Any]:
    """The models of `criteria` checked against a population table."""
    return [c for c in listed(criteria) if c.needs_population]


def sensitive_of(criteria: Criteria) -> list[str]:
    out: list[str] = []
    for c in listed(criteria):
        if not c.whole_release and c.attribute not in out:
            out.append(c.attribute)
    return out
