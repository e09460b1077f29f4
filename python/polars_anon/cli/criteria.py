"""The privacy models' options, from their registry
(`polars_anon.criteria.TYPES`): ``--p-sensitive ATTR:P`` for a model of one
parameter besides its attribute, ``--kmap K:POPULATION[:SIGNIFICANCE...]``
for a model of the whole release (its constructor's parameters in order).

A model whose population may be a table (`jobs.criteria.POPULATION_TABLES`:
``--kmap``, ``--d-presence``) takes a POPULATION that is not a number as the
path of the table's file, a CSV or Parquet file or a folder of Parquet
parts, read as the data is (``--sep``, ``--encoding``); a number is a count
of records. A path holding ``:`` (``C:\\people.csv``) is read whole when
that file exists."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from polars_anon._core import ConfigError
from polars_anon.criteria import TYPES, Criterion
from polars_anon.jobs.criteria import POPULATION_TABLES, criterion, parameters, population_file


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


def sensitive_named(args: argparse.Namespace) -> list[str]:
    """The attributes the options of `criteria_of` name (``ATTR:VALUE``):
    known before the data is read, which reads them as numbers
    (`jobs.csv_types.numbers_of`)."""
    return [
        _attribute_value(cls, spec)[0]
        for kind, cls in TYPES.items()
        if cls.option is not None and not cls.whole_release
        for spec in getattr(args, kind, [])
    ]


def _attribute_value(cls: type[Criterion], spec: str) -> tuple[str, str]:
    """An option's ``ATTR:VALUE`` split at its last colon (an attribute's
    name may hold one); one naming no attribute refused."""
    attr, _, value = spec.rpartition(":")
    if not attr:
        assert cls.option is not None
        raise ConfigError(f"{cls.option[0]} takes ATTR:VALUE, got {spec!r}")
    return attr, value


def criteria_of(args: argparse.Namespace, numbers: list[str] | None = None) -> list[Criterion]:
    """The criteria the options name: each model with an option (`Criterion.option`),
    ``ATTR:VALUE`` giving its attribute and its one other parameter; a model
    of the whole release its parameters in order (`_fields`: a population
    file read as the data was, its columns of `numbers` as numbers), a
    refusal of them naming the option."""
    out = []
    for kind, cls in TYPES.items():
        if cls.option is None:
            continue
        flag = cls.option[0]
        param = next(p for p in parameters(cls)[1] if p != "attribute")
        for spec in getattr(args, kind, []):
            if cls.whole_release:
                fields = _fields(cls, spec, args, numbers)
                try:
                    out.append(criterion({"type": kind, **fields}))
                except ConfigError as e:
                    raise ConfigError(f"{flag} {spec!r:.80}: {e}") from None
                continue
            attr, value = _attribute_value(cls, spec)
            number = _read(value)
            if isinstance(number, str):
                raise ConfigError(f"{flag} takes a number, got {value!r}")
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


def _fields(
    cls: type[Criterion], spec: str, args: argparse.Namespace, numbers: list[str] | None = None
) -> dict[str, Any]:
    """A model's parameters from ``V1:V2:...`` in its constructor's order
    (numbers read as numbers); a population that is not a number, of a model
    in `POPULATION_TABLES`, read from its file with the data's ``--sep`` and
    ``--encoding``."""
    names, required = parameters(cls)
    flag = cls.option[0] if cls.option else cls.kind
    values = spec.split(":")
    table = cls.kind in POPULATION_TABLES and "population" in names
    if table:
        values = _path_joined(values, names.index("population"))
    if not len(required) <= len(values) <= len(names) or not all(values):
        raise ConfigError(f"{flag} takes {_fields_metavar(cls)}, got {spec!r}")
    out = {name: _read(value) for name, value in zip(names, values, strict=False)}
    population = out.get("population")
    if table and isinstance(population, str):
        sep, encoding = getattr(args, "sep", ","), getattr(args, "encoding", "utf8")
        out["population"] = population_file(population, sep, encoding, flag, numbers)
    return out


def _path_joined(values: list[str], at: int) -> list[str]:
    """`values` with the field `at`, a path that is not a number, joined to
    the fields after it while the joined text names a file that exists (the
    longest such): a path may hold ``:``."""
    if at >= len(values) or not isinstance(_read(values[at]), str):
        return values
    for end in range(len(values), at + 1, -1):
        joined = ":".join(values[at:end])
        try:
            if Path(joined).exists():
                return [*values[:at], joined, *values[end:]]
        except OSError:  # a name too long for the file system
            continue
    return values


def criteria_given(args: argparse.Namespace) -> list[str]:
    """The criteria's options given on the command line, each by its name."""
    return [c.option[0] for kind, c in TYPES.items() if c.option and getattr(args, kind, [])]
