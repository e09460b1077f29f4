"""A job's criteria: each ``{ type = ..., ...}`` entry and the criterion it
describes, read and written through the criteria's one registry
(`polars_anon.criteria.TYPES`: a kind and its class's parameters)."""

from __future__ import annotations

import inspect
from typing import Any

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.criteria import TYPES, Criterion


def parameters(cls: type[Criterion]) -> tuple[list[str], list[str]]:
    """A criterion class's parameters, in its constructor's order, and those
    without a default."""
    params = list(inspect.signature(cls).parameters.values())
    return [p.name for p in params], [p.name for p in params if p.default is p.empty]


def criterion(spec: dict[str, Any]) -> Criterion:
    """The criterion a job file's ``{type = ..., ...}`` describes."""
    if not isinstance(spec, dict):
        raise ConfigError(f"a criterion is a table {{ type = ..., ... }}, got {spec!r:.60}")
    spec = dict(spec)
    kind = spec.pop("type", None)
    if not isinstance(kind, str) or kind not in TYPES:
        raise ConfigError(f"unknown criterion type {kind!r}; expected one of {sorted(TYPES)}")
    cls = TYPES[kind]
    params, required = parameters(cls)
    unknown = sorted(set(spec) - set(params))
    missing = [p for p in required if p not in spec]
    if unknown or missing:
        raise ConfigError(f"criterion {kind} takes {params}; unknown {unknown}, missing {missing}")
    return cls(**spec)


def criterion_spec(c: Criterion) -> dict[str, Any]:
    """A criterion as a job file's entry: its kind and every parameter that
    is set (a parameter at None is left out)."""
    kind = getattr(type(c), "kind", None)
    if kind is None or TYPES.get(kind) is not type(c):
        raise ConfigError(f"{type(c).__name__} cannot be written to a job file")
    spec: dict[str, Any] = {"type": kind}
    for p in parameters(type(c))[0]:
        value = getattr(c, p)
        if isinstance(value, Hierarchy) or (
            isinstance(value, tuple) and any(isinstance(v, Hierarchy) for v in value)
        ):
            raise ConfigError(
                f"{type(c).__name__}: its {p} holds a Hierarchy, which a job file cannot "
                "record; give the categories as lists of values"
            )
        if value is not None:
            spec[p] = value
    return spec
