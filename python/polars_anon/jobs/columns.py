"""A job's ``[columns]`` table: the roles of the columns that are neither
quasi-identifiers nor sensitive, and what became of every column in a run.

::

    [columns]
    insensitive = ["notes"]            # released unchanged, as declared

    [columns.identifiers]              # each: what the column becomes
    ssn = "drop"
    name = { key_env = "PA_KEY", length = 32 }     # or key_file = "key.txt"
    phone = { mask = { keep_last = 4 } }           # keep_first, keep_last, char
    patient = { table = "pseudonyms/patient.parquet" }

A key is never written here: a pseudonym's entry says where its key is
kept (an environment variable or a file), and a key given in code makes
the job unsavable. Relative paths are relative to the job file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.jobs import values
from polars_anon.reports.render import plural
from polars_anon.roles.spec import Drop, Mask, Pseudonym, Roles, Transform, roles_of

PSEUDONYM_KEYS = ("key_env", "key_file", "table", "length")
MASK_KEYS = ("keep_first", "keep_last", "char")

_WAYS = (
    '"drop", { key_env = "NAME" } or { key_file = "PATH" } (keyed pseudonyms; with '
    'length = N), { table = "PATH.parquet" } (random pseudonyms kept in that file) or '
    "{ mask = { keep_last = 4 } }"
)


def _identifier(column: str, entry: Any, base: Path) -> Transform:
    where = f"job file: [columns.identifiers] {column!r}"
    # an entry's text is never repeated in an error: it might be a key
    if entry == "drop" or entry == {}:
        return Drop()
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} is one of {_WAYS}")
    if "key" in entry:
        raise ConfigError(
            f"{where}: a key is never written in a job file; give the place it is kept: "
            "key_env = (an environment variable) or key_file = (a file)"
        )
    try:
        if "mask" in entry:
            if set(entry) != {"mask"} or not isinstance(entry["mask"], dict):
                raise ConfigError(f"mask = {{ {', '.join(MASK_KEYS)} }} and nothing beside it")
            unknown = sorted(set(entry["mask"]) - set(MASK_KEYS))
            if unknown:
                raise ConfigError(
                    f"mask: unknown {plural('key', unknown)} {unknown}; expected {list(MASK_KEYS)}"
                )
            return Mask(**entry["mask"])
        unknown = sorted(set(entry) - set(PSEUDONYM_KEYS))
        if unknown:
            raise ConfigError(f"unknown {plural('key', unknown)} {unknown}; it is one of {_WAYS}")
        source = dict(entry)
        for name in ("key_file", "table"):
            if name in source:
                if not isinstance(source[name], str):
                    raise ConfigError(f"{name} is a path")
                source[name] = base / source[name]
        if "key_env" in source and not isinstance(source["key_env"], str):
            raise ConfigError("key_env is the name of an environment variable")
        return Pseudonym(**source)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None


def roles_from_doc(t: dict[str, Any], base: Path) -> Roles:
    """The roles a ``[columns]`` table declares; paths relative to `base`."""
    unknown = sorted(set(t) - {"identifiers", "insensitive"})
    if unknown:
        raise ConfigError(
            f"job file: [columns] has unknown {plural('key', unknown)} {unknown}; expected "
            "identifiers, insensitive"
        )
    ids = t.get("identifiers", {})
    if isinstance(ids, list):
        # a list of columns: dropped, as in the API
        ids = dict.fromkeys(values.column_list("[columns] identifiers", ids), "drop")
    if not isinstance(ids, dict) or not all(isinstance(c, str) for c in ids):
        raise ConfigError(
            "job file: [columns.identifiers] is a table of column = what it becomes "
            f'({_WAYS}), or a list of columns to drop (identifiers = ["ssn"]), got '
            f"{values.as_toml(ids):.80}"
        )
    insensitive = values.column_list("[columns] insensitive", t.get("insensitive", []))
    identifiers = {c: _identifier(c, e, base) for c, e in ids.items()}
    none = {c: None if isinstance(x, Drop) else x for c, x in identifiers.items()}
    return roles_of(none, insensitive)


def roles_to_doc(roles: Roles, rel: Callable[[Path | str], str]) -> dict[str, Any]:
    """The ``[columns]`` table of `roles`, its paths written by `rel`; a key
    given in code cannot be written (the error says so, never the key)."""
    ids: dict[str, Any] = {}
    for c, t in roles.identifiers.items():
        if isinstance(t, Drop):
            ids[c] = "drop"
            continue
        try:
            source = t.source()
        except ConfigError as e:
            raise ConfigError(f"cannot save the job: identifier {c!r}: {e}") from None
        for name in ("key_file", "table"):
            if name in source:
                source[name] = rel(source[name])
        ids[c] = source
    doc: dict[str, Any] = {}
    if ids:
        doc["identifiers"] = ids
    if roles.insensitive:
        doc["insensitive"] = list(roles.insensitive)
    return doc


def fates_doc(columns: pl.DataFrame) -> dict[str, str]:
    """What became of every column (``roles.fates``), for a resolved job:
    column = "role: released_as"."""
    if columns.is_empty() or not {"column", "role", "released_as"} <= set(columns.columns):
        return {}
    return {
        c: f"{role}: {what}"
        for c, role, what in columns.select("column", "role", "released_as").iter_rows()
    }
