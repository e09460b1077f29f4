"""The command line's options: their types, the groups of options the
subcommands share, and what they mean (the criteria, the hierarchies' job
entries, the quasi-identifiers, the other columns' roles). The criteria's
options come from their registry (`polars_anon.criteria.TYPES`)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polars_anon import engines
from polars_anon._core import ConfigError
from polars_anon.api.search import VARIANTS
from polars_anon.cli.criteria import criteria_options
from polars_anon.inputs.nulls import Nulls, nulls_arg
from polars_anon.inputs.params import size, suppression
from polars_anon.jobs.sources import folder_sources, hierarchy_source
from polars_anon.results.best import CRITERIA
from polars_anon.roles.spec import Drop, Mask, Pseudonym, Roles, Transform, roles_of


def suppression_arg(text: str) -> int | float:
    try:
        return suppression(text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def separator_arg(text: str) -> str:
    """A CSV's field separator: one character of one byte."""
    if len(text.encode("utf8")) != 1:
        raise argparse.ArgumentTypeError(
            f"a field separator is one character (one byte, such as , or ;), got {text!r:.40}"
        )
    return text


def names(text: str) -> list[str]:
    return [q.strip() for q in text.split(",") if q.strip()]


def levels_arg(text: str) -> dict[str, int]:
    """``age=2,sex=1``"""
    out = {}
    for part in names(text):
        name, _, level = part.partition("=")
        try:
            out[name.strip()] = int(level)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"levels are column=level pairs separated by commas (age=2,sex=1), got {part!r}"
            ) from None
    return out


def numbers(text: str) -> list[float]:
    try:
        return [float(x) if any(c in x for c in ".eE") else int(x) for x in names(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from None


class Given(argparse.Action):
    """Stores the option's value as argparse's default action does, and
    notes that it was given (`given`): ``--k 5`` is told apart from no
    --k, whose default is 5 too."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        namespace.given_options = given(namespace) | {self.option_strings[0]}


def given(args: argparse.Namespace) -> set[str]:
    """The options given on the command line among those stored by `Given`
    (each by its first name: ``--preference`` for ``--criterion``)."""
    return set(getattr(args, "given_options", ()))


def noted(args: argparse.Namespace, *flags: str) -> list[str]:
    """Those of `flags` (stored by `Given`) given on the command line."""
    return [f for f in flags if f in given(args)]


def valued(args: argparse.Namespace, *flags: str) -> list[str]:
    """Those of `flags` (whose default is None or no items) given."""
    return [f for f in flags if getattr(args, f[2:].replace("-", "_"), None) not in (None, [])]


def data_options(
    p: argparse.ArgumentParser, data_required: bool = True, hierarchies: bool = True
) -> None:
    """DATA and how it is read; with `hierarchies`, the quasi-identifiers and
    their hierarchies too (`hierarchy build` reads one column and writes its
    hierarchy: it takes none)."""
    p.add_argument(
        "data",
        type=Path,
        nargs=None if data_required else "?",
        help="the table: a CSV, Parquet or Arrow IPC (.arrow, .ipc, .feather) file",
    )
    p.add_argument(
        "--sep",
        default=",",
        type=separator_arg,
        action=Given,
        help="the CSV's field separator (output CSVs use it too; with --config, DATA's, in "
        "place of the job's)",
    )
    p.add_argument(
        "--encoding",
        default="utf8",
        action=Given,
        help="the CSV's text encoding (utf8, latin-1, ...; the duckdb engine reads UTF-8 "
        "only; with --config, DATA's, in place of the job's)",
    )
    p.add_argument(
        "--engine",
        choices=["polars", *engines.PREFIXES],
        default="polars",
        action=Given,
        help="where the table is read, grouped and released (spark: the active session or a "
        "local one; it writes the release as a folder of parts)",
    )
    p.add_argument(
        "--nulls",
        choices=["error", "value"],
        default=None,
        help="nulls in the quasi-identifiers: refused (error, the default), or a value of "
        "their own (value: put at the top of a hierarchy that has no row for them)",
    )
    if not hierarchies:
        return
    p.add_argument(
        "--qi",
        type=names,
        action="extend",
        help="quasi-identifiers, separated by commas (repeatable: each adds to the others)",
    )
    p.add_argument(
        "--hierarchies",
        type=Path,
        help="a folder of hierarchies: <column>.csv in ARX's layout, or ARX's names "
        "hierarchy_<column>.csv and <table>_hierarchy_<column>.csv (those of the "
        "quasi-identifiers are used)",
    )
    p.add_argument(
        "--hierarchy",
        action="append",
        default=[],
        metavar="COLUMN=FILE",
        help="one column's hierarchy: an ARX CSV, a hierarchy JSON, or a builder spec JSON "
        '({"builder": "interval", "widths": [5, 10]}) built from the data (repeatable)',
    )
    p.add_argument(
        "--hierarchy-sep", default=";", action=Given, help="the separator of hierarchy CSVs"
    )


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


def model_options(p: argparse.ArgumentParser, criteria: bool = True) -> None:
    p.add_argument("--k", type=int, default=5, action=Given, help="every group at least this large")
    p.add_argument(
        "--max-suppression",
        type=suppression_arg,
        default=0,
        action=Given,
        help="tuples that may be suppressed: a count (300) or a fraction (0.01, 1e-2, 1%%)",
    )
    if criteria:
        criteria_options(p)


def search_options(p: argparse.ArgumentParser, mondrian: bool = False) -> None:
    """The search's options; `mondrian`: also Mondrian's recoding (anonymize)."""
    choices = ["auto", *VARIANTS, *(["mondrian"] if mondrian else [])]
    what = "the search (auto: by the lattice's size, as the library's default)" + (
        ", or mondrian (multidimensional recoding)" if mondrian else ""
    )
    p.add_argument("--algorithm", default="auto", choices=choices, action=Given, help=what)
    p.add_argument(
        "--variant", default=None, help="the algorithm's variant (None: the algorithm's default)"
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds; past it the search answers with what it confirmed",
    )
    p.add_argument(
        "--memory-budget",
        type=memory_budget,
        default=None,
        metavar="SIZE",
        help="what the search may hold: bytes, or 512M, 4G (None: 2G); past it, it stops",
    )
    preference(p)
    if mondrian:
        p.add_argument(
            "--numeric",
            type=names,
            default=None,
            metavar="COLS",
            help="--algorithm mondrian: the quasi-identifiers split into ranges, by commas "
            "(None: every number, date or datetime; others by hierarchy, or as value sets)",
        )
        p.add_argument(
            "--mode",
            choices=("strict", "relaxed"),
            default=None,
            help="--algorithm mondrian: strict (records of one value never split, the "
            "default) or relaxed (an ordered attribute cut at its median record)",
        )


def preference(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--preference",
        "--criterion",
        choices=CRITERIA,
        default="min_loss",
        action=Given,
        help="how the released generalization is chosen",
    )


def sources(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """The hierarchies the options name, as job entries: a folder's of the
    quasi-identifiers (it may hold other columns'), and each --hierarchy's
    (a column the data lacks is refused when it is resolved)."""
    sources = {}
    # a column given its file by --hierarchy reads none of the folder's
    given = {item.partition("=")[0] for item in args.hierarchy}
    if args.hierarchies is not None:
        wanted = [q for q in args.qi if q not in given] if args.qi else None
        sources.update(folder_sources(args.hierarchies, args.hierarchy_sep, wanted))
    for item in args.hierarchy:
        col, eq, file = item.partition("=")
        if not eq or not col or not file:
            raise ConfigError(f"--hierarchy takes COLUMN=FILE, got {item!r}")
        sources[col] = hierarchy_source(col, file, args.hierarchy_sep)
    return sources


def nulls_of(args: argparse.Namespace) -> Nulls:
    return nulls_arg(args.nulls or "error", "--nulls")


def qis_of(args: argparse.Namespace) -> list[str]:
    if not args.qi:
        raise ConfigError("name the quasi-identifiers with --qi col1,col2,...")
    return list(args.qi)


def builder_option(p: argparse.ArgumentParser, f: dataclasses.Field[Any]) -> None:
    """A hierarchy builder's parameter as an option (``--widths``), read as
    its `polars_anon.hierarchy` spec says (`option`)."""
    parse = f.metadata.get("parse")
    required = f.default is dataclasses.MISSING
    default = None if required else f.default
    kind: Any
    if parse is not None:
        kind = {"numbers": numbers, "names": names}[parse]
    else:
        declared = str(f.type)
        kind = float if "float" in declared else int if "int" in declared else str
    p.add_argument(
        f"--{f.name.replace('_', '-')}",
        dest=f.name,
        type=kind,
        required=required,
        default=list(default) if isinstance(default, tuple) else default,
        help=f.metadata.get("help"),
    )


def memory_budget(text: str) -> int:
    """--memory-budget: bytes, or a number with a unit."""
    try:
        return size("--memory-budget", text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--memory-budget ")) from None
