"""A job file's values read with their types checked: a value of the wrong
type (a number where a path goes, a string where a list of names goes) is
a `ConfigError` naming the table, the key and the value, not whatever
Python raises when it is used."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from polars_anon._core import ConfigError
from polars_anon.inputs.params import size
from polars_anon.jobs.criteria import POPULATION_TABLES
from polars_anon.reports.render import plural

# the keys of a job file's tables of settings (`table`); [hierarchies],
# [columns], [privacy] and [result] are read by their own parts
KEYS = {
    "input": ("path", "separator", "encoding", "engine", "nulls", "sha256"),
    "model": ("quasi_identifiers", "k", "max_suppression", "criteria"),
    "search": (
        "algorithm",
        "variant",
        "preference",
        "time_limit",
        "memory_budget",
        "mode",
        "numeric",
        "coarsen",
    ),
    "output": ("path", "sha256"),
}


def table(doc: dict[str, Any], name: str, keys: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The job file's table `name` (empty if missing), its unknown keys
    refused by name (those not in `keys`, by default `KEYS`'), as unknown
    tables are."""
    t = doc.get(name, {})
    if not isinstance(t, dict):
        raise ConfigError(f"job file: [{name}] must be a table")
    known = keys if keys is not None else KEYS.get(name, tuple(t))
    unknown = sorted(set(t) - set(known))
    if unknown:
        raise ConfigError(
            f"job file: [{name}] has unknown {plural('key', unknown)} {unknown}; "
            f"expected {', '.join(known)}"
        )
    return t


def _bad(where: str, what: str, value: Any) -> ConfigError:
    return ConfigError(f"job file: {where} must be {what}, got {value!r:.80}")


def path(where: str, value: Any, base: Path) -> Path:
    """A file path, relative to the job file's folder."""
    if not isinstance(value, str) or not value.strip():
        raise _bad(where, "a file path (text)", value)
    try:
        (base / value).exists()
    except OSError as e:  # a name too long for the file system
        raise ConfigError(f"job file: {where} {value!r:.80}: {e.strerror}") from None
    return base / value


def text(where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _bad(where, "text", value)
    return value


def algorithm(value: Any) -> str:
    """``[search] algorithm``: one a run takes, checked when the job is read
    (a job with recorded levels searches nothing, and kept a typo)."""
    from polars_anon.api.search import VARIANTS

    name = text("[search] algorithm", value)
    known = ["auto", "mu_argus", "mondrian", *VARIANTS]
    if name not in known:
        raise ConfigError(
            f"job file: [search] algorithm {name!r} is unknown; expected one of {known}"
        )
    return name


def flag(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _bad(where, "true or false", value)
    return value


def separator(where: str, value: Any) -> str:
    """A CSV's field separator: one character of one byte."""
    if not isinstance(value, str) or len(value.encode("utf8")) != 1:
        raise _bad(where, "one character (one byte, such as , or ;)", value)
    return value


def as_toml(value: Any) -> str:
    """`value` as a job file writes it: text in double quotes, not Python's repr."""
    return json.dumps(value, ensure_ascii=False, default=str)


def column_list(where: str, value: Any) -> list[str]:
    """A list of column names (``key = ["age", "zip"]``), even of one: text
    alone is refused (it was read as a list of its one name, or of its
    characters), naming `where` (``[table] key``) and the list meant."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    key = where.rsplit(" ", 1)[-1]
    if isinstance(value, str):
        meant = [v.strip() for v in value.split(",") if v.strip()] or [value]
        raise ConfigError(
            f"job file: {where} must be a list of column names, got the text {as_toml(value):.80}: "
            f"write {key} = {as_toml(meant):.80}"
        )
    raise _bad(where, f'a list of column names (such as {key} = ["age", "zip"])', value)


def _categories(value: Any) -> bool:
    """Whether `value` is a list of categories, each a list of values."""
    groups = value if isinstance(value, list | tuple) else None
    return groups is not None and all(
        isinstance(g, list | tuple) and all(isinstance(v, str | int | float) for v in g)
        for g in groups
    )


def tables(where: str, value: Any) -> list[dict[str, Any]]:
    """A list of tables (``[{ type = ..., ... }]``)."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise _bad(where, "a list of tables ({ type = ..., ... })", value)
    return list(value)


def criteria(where: str, value: Any, base: Path) -> list[dict[str, Any]]:
    """The criteria (`tables`), the ``population`` of a model that may take a
    table of it (`jobs.criteria.POPULATION_TABLES`) given as text being that
    table's file, relative to the job file's folder (`path`); a number stays
    a number."""
    out = []
    for spec in tables(where, value):
        if "categories" in spec and not _categories(spec["categories"]):
            raise _bad(
                f"{where} {spec.get('type')} categories",
                "a list of categories, each a list of values, most sensitive first (such as "
                'categories = [["HIV"], ["flu", "cold"]])',
                spec["categories"],
            )
        population = spec.get("population")
        if spec.get("type") in POPULATION_TABLES and isinstance(population, str):
            label = f"{where} {spec['type']} population"
            spec = {**spec, "population": str(path(label, population, base))}
        out.append(spec)
    return out


def levels(where: str, value: Any) -> dict[str, int]:
    """Each quasi-identifier's level."""
    if not isinstance(value, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 256 for v in value.values()
    ):
        raise _bad(where, "a table of column = level (a whole number from 0)", value)
    return dict(value)


def hierarchies(table: dict[str, Any], base: Path) -> dict[str, dict[str, Any]]:
    """The ``[hierarchies.<column>]`` entries: each a path (relative to the
    job file's folder) or a builder and its parameters. A file's recorded
    checksum is kept: a file changed since is refused when it is read
    (`jobs.sources.unchanged`)."""
    out = {}
    for col, h in table.items():
        if not isinstance(h, dict) or ("path" in h) == ("builder" in h):
            raise ConfigError(
                f"job file: [hierarchies.{col}] needs either path = (an ARX CSV or JSON "
                "file) or builder = (interval, date, masking, ordered)"
            )
        h = dict(h)
        if "path" in h:
            h["path"] = str(path(f"[hierarchies.{col}] path", h["path"], base))
            if "sha256" in h:
                text(f"[hierarchies.{col}] sha256", h["sha256"])
        else:
            h.pop("sha256", None)
            text(f"[hierarchies.{col}] builder", h["builder"])
        out[col] = h
    return out


def budget(search: dict[str, Any]) -> int:
    """``[search] memory_budget``: the library's default when not given."""
    from polars_anon.api.search import DEFAULT_MEMORY_BUDGET

    given = search.get("memory_budget", DEFAULT_MEMORY_BUDGET)
    return size("job file: [search] memory_budget", given)
