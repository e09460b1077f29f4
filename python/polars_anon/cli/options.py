"""The command line's options: their types, the groups of options the
subcommands share, and what they mean (the criteria, the hierarchies' job
entries, the quasi-identifiers). The criteria's options come from their
registry (`polars_anon.criteria.TYPES`)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any, NoReturn

import polars as pl

from polars_anon import engines
from polars_anon._core import ConfigError, Hierarchy
from polars_anon.api.search import VARIANTS
from polars_anon.criteria import TYPES, Criterion
from polars_anon.inputs.params import suppression
from polars_anon.jobs.criteria import criterion, parameters
from polars_anon.jobs.sources import folder_sources, hierarchy_source, resolve_hierarchies
from polars_anon.results.best import CRITERIA


def suppression_arg(text: str) -> int | float:
    try:
        return suppression(text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


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


class Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit code 2, without argparse's usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def subcommand(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=help, description=help, formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    return p


def data_options(p: argparse.ArgumentParser, data_required: bool = True) -> None:
    p.add_argument(
        "data",
        type=Path,
        nargs=None if data_required else "?",
        help="the table: a CSV or Parquet file",
    )
    p.add_argument("--sep", default=",", help="the CSV's field separator (output CSVs use it too)")
    p.add_argument(
        "--encoding", default="utf8", help="the CSV's text encoding (utf8, latin-1, ...)"
    )
    p.add_argument(
        "--engine",
        choices=["polars", *engines.PREFIXES],
        default="polars",
        help="where the table is read, grouped and released (spark: the active session or a "
        "local one; it writes the release as a folder of parts)",
    )
    p.add_argument("--qi", type=names, help="quasi-identifiers, separated by commas")
    p.add_argument(
        "--hierarchies",
        type=Path,
        help="a folder of hierarchies: <column>.csv in ARX's layout",
    )
    p.add_argument(
        "--hierarchy",
        action="append",
        default=[],
        metavar="COLUMN=FILE",
        help="one column's hierarchy: an ARX CSV, a hierarchy JSON, or a builder spec JSON "
        '({"builder": "interval", "widths": [5, 10]}) built from the data (repeatable)',
    )
    p.add_argument("--hierarchy-sep", default=";", help="the separator of hierarchy CSVs")


def model_options(p: argparse.ArgumentParser, criteria: bool = True) -> None:
    p.add_argument("--k", type=int, default=5, help="every group at least this large")
    p.add_argument(
        "--max-suppression",
        type=suppression_arg,
        default=0,
        help="tuples that may be suppressed: a count (300) or a fraction (0.01, 1e-2, 1%%)",
    )
    if not criteria:
        return
    for cls in TYPES.values():
        if cls.option is None:
            continue
        flag, what = cls.option
        p.add_argument(
            flag,
            action="append",
            default=[],
            metavar="ATTR:X",
            dest=cls.kind,
            help=what + " (repeatable)",
        )


def search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--algorithm", default="incognito", choices=list(VARIANTS), help="the search")
    p.add_argument(
        "--variant", default=None, help="the algorithm's variant (None: the algorithm's default)"
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds; past it the search answers with what it confirmed",
    )
    preference(p)


def preference(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--preference",
        "--criterion",
        choices=CRITERIA,
        default="min_loss",
        help="how the released generalization is chosen",
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
            attr, _, value = spec.rpartition(":")
            if not attr:
                raise ConfigError(f"{cls.option[0]} takes ATTR:VALUE, got {spec!r}")
            try:
                number: float = int(value)
            except ValueError:
                number = float(value)
            out.append(criterion({"type": kind, param: number, "attribute": attr}))
    return out


def sources(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """The hierarchies the options name, as job entries."""
    sources = {}
    if args.hierarchies is not None:
        sources.update(folder_sources(args.hierarchies, args.hierarchy_sep))
    for item in args.hierarchy:
        col, eq, file = item.partition("=")
        if not eq or not col or not file:
            raise ConfigError(f"--hierarchy takes COLUMN=FILE, got {item!r}")
        sources[col] = hierarchy_source(col, file, args.hierarchy_sep)
    return sources


def hierarchies(args: argparse.Namespace, data: pl.LazyFrame) -> dict[str, Hierarchy]:
    return resolve_hierarchies(sources(args), data)


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
