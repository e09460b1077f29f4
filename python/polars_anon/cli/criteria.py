"""The privacy models' options, from their registry
(`polars_anon.criteria.TYPES`): ``--p-sensitive ATTR:P`` for a model of one
parameter besides its attribute, ``--kmap K:POPULATION[:SIGNIFICANCE...]``
for a model of the whole release (its constructor's parameters in order)."""

from __future__ import annotations

import argparse
from typing import Any

from polars_anon._core import ConfigError
from polars_anon.criteria import TYPES, Criterion
from polars_anon.jobs.criteria import criterion, parameters


def criteria_options(p: argparse.ArgumentParser) -> None:
    """An option for each model that has one (`Criterion.option`)."""
    for cls in TYPES.values():
        if cls.option is None:
            continue
        flag, what = cls.option
        p.add_argument(
            flag,
            action="append",
            default=[],
            metavar=_fields_metavar(cls) if cls.whole_release else "ATTR:X",
            dest=cls.kind,
            help=what + " (repeatable)",
        )


def criteria_of(args: argparse.Namespace) -> list[Criterion]:
    """The criteria the options name: each model with an option (`Criterion.option`),
    ``ATTR:VALUE`` giving its attribute and its one other parameter."""
    out = []
    for kind, cls in TYPES.items():
        if cls.option is None:
            continue
        param = next(p for p in parameters(cls)[1] if p != "attribute")
        for spec in getattr(args, kind, []):
            if cls.whole_release:
                out.append(criterion({"type": kind, **_fields(cls, spec)}))
                continue
            attr, _, value = spec.rpartition(":")
            if not attr:
                raise ConfigError(f"{cls.option[0]} takes ATTR:VALUE, got {spec!r}")
            number = _read(value)
            if isinstance(number, str):
                raise ConfigError(f"{cls.option[0]} takes a number, got {value!r}")
            out.append(criterion({"type": kind, param: number, "attribute": attr}))
    return out


def _read(text: str) -> int | float | str:
    """An option's value: a whole number, else a number, else the text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _fields_metavar(cls: type[Criterion]) -> str:
    """``MAX_SHARE:POPULATION[:MODEL]``: a model's parameters in order."""
    names, required = parameters(cls)
    shown = ":".join(n.upper() for n in required)
    optional = "".join(f"[:{n.upper()}" for n in names if n not in required)
    return shown + optional + "]" * sum(1 for n in names if n not in required)


def _fields(cls: type[Criterion], spec: str) -> dict[str, Any]:
    """A model's parameters from ``V1:V2:...`` in its constructor's order
    (numbers read as numbers)."""
    names, required = parameters(cls)
    values = spec.split(":")
    if not len(required) <= len(values) <= len(names) or not all(values):
        flag = cls.option[0] if cls.option else cls.kind
        raise ConfigError(f"{flag} takes {_fields_metavar(cls)}, got {spec!r}")
    return {name: _read(value) for name, value in zip(names, values, strict=False)}
