"""What every builder shares: a spec that serialises to JSON and back, and the
step from rows (leaf first, most general last) to a validated Hierarchy over
exactly the column's values."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import polars as pl

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.frames import one_zero
from polars_anon.reports.render import names_text, one_of, plural, values_text

TOP = "*"

# builder name -> spec class, filled by each builder's module
BUILDERS: dict[str, type[Spec]] = {}


def values_of(values: Any, column: str | None = None) -> pl.Series:
    """The distinct values of a Series or iterable, nulls refused by name."""
    if isinstance(values, pl.Series):
        s = values
    elif isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise ParameterError(
            "values must be a column's values (a Series or a list), "
            f"got {type(values).__name__} {values!r:.60}"
        )
    else:
        try:
            s = pl.Series(column or "values", list(values), strict=False)
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            raise ParameterError(
                f"values must be numbers, strings or dates of one kind, got {values!r:.80}"
            ) from None
    name = column or s.name or "values"
    if s.dtype == pl.Object or s.dtype.is_nested() or isinstance(s.dtype, pl.Duration):
        raise ParameterError(
            f"column '{name}': values of type {s.dtype} cannot be generalized "
            "(strings, numbers or dates"
            + (
                ": take a number of days or seconds first, e.g. .dt.total_days())"
                if isinstance(s.dtype, pl.Duration)
                else ")"
            )
        )
    if s.null_count():
        raise ConfigError(
            # (a builder may be given the distinct values: nulls, not a count)
            f"column '{name}' holds nulls; a hierarchy is built over values: build it "
            "from the values without them (.drop_nulls()), then search either with the "
            "nulls filled or with nulls='value' (a null is then the value 'NULL', "
            "generalized straight to the top unless a hierarchy row places it)"
        )
    if s.is_empty():
        raise ConfigError(f"column '{name}': no values to build a hierarchy over")
    if s.dtype.is_float():
        # -0.0 is 0.0, as every engine reads a table's numbers; then one
        # value per text, as the core reads them
        s = s.to_frame("v").select(one_zero("v", s.dtype)).to_series()
        return s.filter(s.cast(pl.String).is_first_distinct()).alias(name)
    return s.unique(maintain_order=True).alias(name)


def as_text(s: pl.Series) -> list[str]:
    """Values as the core reads them: Polars' text form."""
    return s.cast(pl.String).to_list()


def number(x: float) -> str:
    """A bound as a label: integers without a decimal point."""
    return str(int(x)) if float(x).is_integer() else format(x, ".15g")


def finite(name: str, x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ConfigError(f"{name} must be a finite number, got {x!r}")
    return float(x)


def option(help: str, parse: str | None = None, **kwargs: Any) -> Any:
    """A builder's parameter as a dataclass field, with what the command
    line says of it (`help`) and how it reads it (`parse`: ``"numbers"`` or
    ``"names"``, comma-separated; else by the field's type)."""
    return dataclasses.field(metadata={"help": help, "parse": parse}, **kwargs)


class Spec:
    """A hierarchy builder's parameters. ``build(values)`` makes the hierarchy
    over exactly the distinct values given; ``to_json`` / `from_json` round
    trip the spec (a job file records it so a release can be made again).
    Each parameter is an `option`, so that the command line offers it."""

    builder: ClassVar[str]
    # what the hierarchy is "of", as the command line says it
    summary: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        BUILDERS[cls.builder] = cls

    def rows(self, values: pl.Series) -> list[list[str]]:  # pragma: no cover - abstract
        """One row per distinct value of ``values``: the value, then its label
        at each level, most general last."""
        raise NotImplementedError

    def top_label(self) -> str:
        """The label of the level added above the rows' last one."""
        return TOP

    def build(self, values: Any, column: str | None = None) -> Hierarchy:
        """The hierarchy over exactly the distinct ``values`` (a Series or a
        list; nulls are refused, naming ``column``), topped by `top_label`."""
        distinct = values_of(values, column)
        name = distinct.name
        rows = self.rows(distinct)
        # The top is added whatever the values, so that the spec fixes the
        # height: a job file's levels mean the same on next month's file,
        # even if its values all fall in one bin of the last level, or are
        # the top's own label.
        top = self.top_label()
        rows = [[*r, top] for r in rows]
        h = Hierarchy.from_rows(rows, source=f"{self.builder} hierarchy of '{name}'")
        if sorted(h.leaves) != sorted(as_text(distinct)):
            raise ConfigError(
                f"internal error: the {self.builder} hierarchy of '{name}' "
                "does not cover exactly the column's values"
            )
        return h

    def to_dict(self) -> dict[str, Any]:
        """The spec as a dict: ``builder`` and every parameter (a job file's table)."""
        out: dict[str, Any] = {"builder": self.builder}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    def to_json(self) -> str:
        """The spec as JSON (`to_dict`), which `from_json` reads back."""
        return json.dumps(self.to_dict())


def from_dict(spec: dict[str, Any]) -> Spec:
    """The spec a `Spec.to_dict` (or a job file's table) describes."""
    spec = dict(spec)
    name = spec.pop("builder", None)
    if name not in BUILDERS:
        raise ConfigError(
            f"unknown hierarchy builder {name!r}; expected {one_of(sorted(BUILDERS))}"
        )
    cls = BUILDERS[name]
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(spec) - known)
    if unknown:
        raise ConfigError(
            f"{name} builder: unknown {plural('parameter', unknown)} {values_text(unknown)}; "
            f"it takes {names_text(sorted(known))}"
        )
    try:
        return cls(**spec)
    except TypeError as e:
        raise ConfigError(f"{name} builder: {e}") from None


def from_json(text: str) -> Spec:
    """The spec ``text`` (JSON, as `Spec.to_json` writes it) describes."""
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"hierarchy spec is not JSON: {e}") from None
    if not isinstance(spec, dict):
        raise ConfigError("hierarchy spec must be a JSON object with a 'builder' key")
    return from_dict(spec)


def sequence(name: str, value: Iterable[Any]) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ParameterError(f"{name} must be a list, got {value!r:.60}")
    out = tuple(value)
    if not out:
        raise ConfigError(f"{name} must not be empty")
    return out
