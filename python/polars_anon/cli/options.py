"""The command line's options: their types, the groups of options the
subcommands share, and what they mean (the criteria, the hierarchies' job
entries, the quasi-identifiers; the other columns' roles are `cli.roles`). The criteria's
options come from their registry (`polars_anon.criteria.TYPES`)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polars_anon import engines
from polars_anon._core import ConfigError
from polars_anon.api.search import DEFAULT_MEMORY_BUDGET, VARIANTS
from polars_anon.cli.criteria import criteria_options
from polars_anon.inputs.nulls import Nulls, nulls_arg
from polars_anon.inputs.params import size, suppression
from polars_anon.jobs.sources import folder_sources, hierarchy_source
from polars_anon.results.best import CRITERIA


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
    """Column names separated by commas; a backslash takes the character
    after it as it is (``--qi "zip\\, code,age"``: ``zip, code`` and
    ``age``; ``\\\\`` a backslash)."""
    out, name, chars = [], "", iter(text)
    for c in chars:
        if c == "\\":
            name += next(chars, "\\")
        elif c == ",":
            out.append(name)
            name = ""
        else:
            name += c
    return [q.strip() for q in [*out, name] if q.strip()]


def levels_arg(text: str) -> dict[str, int]:
    """``age=2,sex=1``; a column named twice refused (which level was meant?)."""
    out: dict[str, int] = {}
    for part in names(text):
        name, _, level = part.partition("=")
        name = name.strip()
        try:
            value = int(level)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"levels are column=level pairs separated by commas (age=2,sex=1), got {part!r}"
            ) from None
        if name in out:
            raise argparse.ArgumentTypeError(
                f"column {name!r} is given twice ({name}={out[name]} and {name}={value}): "
                "give each column one level"
            )
        out[name] = value
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
        help="nulls in the quasi-identifiers: refused (error, the default; risk without "
        "hierarchies: value), or a value of their own (value: put at the top of a hierarchy "
        "that has no row for them)",
    )
    if not hierarchies:
        return
    p.add_argument(
        "--qi",
        type=names,
        action="extend",
        help="quasi-identifiers, separated by commas (repeatable: each adds to the others; "
        "a comma inside a name is written \\, in quotes)",
    )
    p.add_argument(
        "--hierarchies",
        type=Path,
        action="append",
        help="a folder of hierarchies: <column>.csv in ARX's layout, or ARX's names "
        "hierarchy_<column>.csv and <table>_hierarchy_<column>.csv (those of the "
        "quasi-identifiers are used; repeatable: a column's hierarchy in one folder only)",
    )
    p.add_argument(
        "--hierarchy",
        action="append",
        default=[],
        metavar="COLUMN=FILE",
        help="one column's hierarchy: an ARX CSV, a hierarchy JSON, or a builder spec JSON "
        '({"builder": "interval", "widths": [5, 10]}) built from the data (repeatable; '
        "used in place of a --hierarchies folder's file for that column)",
    )
    p.add_argument(
        "--hierarchy-sep", default=";", action=Given, help="the separator of hierarchy CSVs"
    )


def model_options(p: argparse.ArgumentParser, criteria: bool = True) -> None:
    p.add_argument("--k", type=int, default=5, action=Given, help="every group at least this large")
    p.add_argument(
        "--max-suppression",
        type=suppression_arg,
        default=0,
        action=Given,
        help="rows that may be suppressed: a count (300, 3e2) or a fraction (0.01, 1e-2, 1%%)",
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
        "--variant", default=None, help="the algorithm's variant (default: the algorithm's own)"
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
        help="what the search may hold: bytes, or 512M, 4G; past it, it stops "
        f"(default: {DEFAULT_MEMORY_BUDGET >> 30}G)",
    )
    preference(p)
    if mondrian:
        p.add_argument(
            "--numeric",
            type=names,
            default=None,
            metavar="COLS",
            help="--algorithm mondrian: the quasi-identifiers split into ranges, by commas "
            "(default: every number, date or datetime; others by hierarchy, or as value sets)",
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
    where: dict[str, Path] = {}
    # a folder named twice (or by another path to it) read once
    folders: dict[Path, Path] = {}
    for f in args.hierarchies or []:
        folders.setdefault(f.resolve(), f)
    for folder in folders.values():
        wanted = [q for q in args.qi if q not in given] if args.qi else None
        for col, source in folder_sources(folder, args.hierarchy_sep, wanted).items():
            if col in where:
                raise ConfigError(
                    f"--hierarchies: {col!r} has a hierarchy in {str(where[col])!r} and in "
                    f"{str(folder)!r}; give it by --hierarchy {col}=FILE"
                )
            where[col] = folder
            sources[col] = source
    files: dict[str, str] = {}
    for item in args.hierarchy:
        col, eq, file = item.partition("=")
        if not eq or not col or not file:
            raise ConfigError(f"--hierarchy takes COLUMN=FILE, got {item!r}")
        if col in files:
            raise ConfigError(
                f"--hierarchy: column {col!r} is given twice ({col}={files[col]} and "
                f"{col}={file}): give each column one hierarchy"
            )
        files[col] = file
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
