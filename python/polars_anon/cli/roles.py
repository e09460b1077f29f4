"""The other columns' roles on the command line: ``--identifier COL[=HOW]``
(dropped, pseudonymized, masked), ``--insensitive COL`` and the key of
keyed pseudonyms (``--key-env``, ``--key-file``)."""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

from polars_anon._core import ConfigError
from polars_anon.cli.options import names
from polars_anon.exceptions import InputChangedWarning, UndeclaredColumnsWarning
from polars_anon.jobs.values import as_toml
from polars_anon.roles.spec import Drop, Mask, Pseudonym, Roles, Transform, roles_of

IDENTIFIER_HELP = (
    "a column that names a person directly (repeatable, or separated by commas): COL drops "
    "it (as COL=drop); COL=pseudonym replaces each value by its keyed pseudonym "
    "(HMAC-SHA-256, the key from --key-env or --key-file; COL=pseudonym:N for N hex "
    "digits, 8 to 64, default 32); COL=table:PATH by a random pseudonym kept in PATH "
    "(.parquet or .csv, re-used and extended by later releases); COL=mask keeps its last "
    "4 characters (COL=mask:N its last N)"
)


def roles_options(p: argparse.ArgumentParser) -> None:
    """The roles of the columns that are neither quasi-identifiers nor
    sensitive: identifiers (and what each becomes) and insensitive columns."""
    p.add_argument(
        "--identifier",
        type=names,
        action="append",
        default=[],
        metavar="COL[=drop|pseudonym|mask|table:PATH]",
        help=IDENTIFIER_HELP,
    )
    p.add_argument(
        "--insensitive",
        type=names,
        action="append",
        default=[],
        metavar="COL",
        help="a column declared safe to release unchanged (repeatable, or separated by "
        "commas). A column with no role is released as it is, unless it would identify "
        "records on its own (more distinct values than half the rows): then the release "
        "is refused until it is declared an identifier or insensitive",
    )
    key = p.add_mutually_exclusive_group()
    key.add_argument(
        "--key-env",
        metavar="NAME",
        default=None,
        help="the environment variable that holds the key (16 bytes or more) of the "
        "--identifier COL=pseudonym columns; a key is never given on the command line",
    )
    key.add_argument(
        "--key-file",
        type=Path,
        metavar="PATH",
        default=None,
        help="a file whose bytes (without a trailing newline) are the key of the "
        "--identifier COL=pseudonym columns",
    )


def _count(column: str, how: str, text: str, low: int = 0) -> int:
    """The N of ``COL=mask:N`` or ``COL=pseudonym:N`` (not echoed: a
    mistyped key must not reach an error message)."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < low:
        if how == "mask":
            raise ConfigError(
                f"--identifier {column}=mask:N takes a whole number N >= 0 of the last "
                "characters kept"
            )
        raise ConfigError(
            f"--identifier {column}=pseudonym:N takes a whole number N of hex digits (8 to 64); "
            "a key is never given on the command line (--key-env or --key-file)"
        )
    return n


def identifier_of(item: str, key_env: str | None, key_file: Path | None) -> tuple[str, Transform]:
    """One ``--identifier`` item: its column and what it becomes."""
    column, eq, how = (x.strip() for x in item.partition("="))
    if not column:
        raise ConfigError("--identifier takes COL or COL=HOW: the column's name is missing")
    kind, colon, arg = how.partition(":")
    if not eq or how == "drop":
        return column, Drop()
    try:
        if kind == "mask":
            return column, Mask(keep_last=_count(column, kind, arg) if colon else 4)
        if kind == "table" and arg.strip():
            return column, Pseudonym(table=arg.strip())
        if kind == "pseudonym":
            length = _count(column, kind, arg, low=1) if colon else 32
            if key_env is not None:
                return column, Pseudonym(key_env=key_env, length=length)
            if key_file is not None:
                return column, Pseudonym(key_file=key_file, length=length)
            raise ConfigError(
                f"--identifier {column}=pseudonym needs the key's place: --key-env NAME (an "
                "environment variable) or --key-file PATH; a key is never given on the "
                "command line"
            )
    except ConfigError as e:
        if str(e).startswith("--identifier"):
            raise
        raise ConfigError(f"--identifier {column}: {e}") from None
    # the text itself is not repeated: it might be a key typed by mistake
    raise ConfigError(
        f"--identifier {column}=...: unknown transformation; expected {column}=drop, "
        f"{column}=pseudonym (with --key-env or --key-file), {column}=pseudonym:N, "
        f"{column}=table:PATH, {column}=mask or {column}=mask:N"
    )


def roles_from(args: argparse.Namespace) -> Roles:
    """The roles the options declare (`roles_options`)."""
    key_env: str | None = getattr(args, "key_env", None)
    key_file: Path | None = getattr(args, "key_file", None)
    identifiers: dict[str, Transform] = {}
    for item in (i for group in getattr(args, "identifier", []) for i in group):
        column, transform = identifier_of(item, key_env, key_file)
        if column in identifiers:
            raise ConfigError(f"--identifier: column {column!r} is given more than once")
        identifiers[column] = transform
    keyed = any(isinstance(t, Pseudonym) and t.keyed for t in identifiers.values())
    if (key_env is not None or key_file is not None) and not keyed:
        flag = "--key-env" if key_env is not None else "--key-file"
        raise ConfigError(f"{flag} is given, but no --identifier COL=pseudonym uses the key")
    insensitive = [c for group in getattr(args, "insensitive", []) for c in group]
    return roles_of(identifiers, insensitive)


def identifiers_arg(roles: Roles) -> dict[str, Pseudonym | Mask | None]:
    """The roles' identifiers as `pa.search` and `pa.check` take them."""
    return {c: None if isinstance(t, Drop) else t for c, t in roles.identifiers.items()}


@contextlib.contextmanager
def warnings_as_notes(job: bool) -> Iterator[None]:
    """A release's `UndeclaredColumnsWarning` printed as a note on stderr,
    with the command line's ways out (`job`: a job file's), every time (a
    command makes one release), and a job's `InputChangedWarning` as its
    note; other warnings as Python shows them."""
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *rest: object, **kw: object) -> None:
        if isinstance(message, InputChangedWarning):
            print(f"polars-anon: note: {message}", file=sys.stderr)
            return None
        if not isinstance(message, UndeclaredColumnsWarning):
            return shown(message, category, *rest, **kw)  # type: ignore[arg-type]
        what = str(message).split(". The rule for")[0]
        cols = shlex.quote(",".join(message.columns))
        dropped = ", ".join(f'{as_toml(c)} = "drop"' for c in message.columns)
        ways = (
            f"under [columns], insensitive = {as_toml(list(message.columns))} to release them "
            "as they are (which "
            f"silences this), or identifiers = {{ {dropped} }} to drop them"
            if job
            else f"--insensitive {cols} to release them as they are (which silences this), "
            f"or --identifier {cols} to drop them"
        )
        print(
            f"polars-anon: note: {what}; a column with no role is refused only when it has "
            f"more distinct values than half the rows that hold one. Declare them: {ways}",
            file=sys.stderr,
        )

    with warnings.catch_warnings():
        warnings.simplefilter("always", UndeclaredColumnsWarning)
        warnings.simplefilter("always", InputChangedWarning)
        warnings.showwarning = show
        yield
