"""polars-anon: k-anonymity from the command line.

Subcommands: ``check`` (is a table k-anonymous at given levels?), ``search``
(every anonymous generalization, and the preferred one), ``anonymize`` (search,
or partition by Mondrian with ``--algorithm mondrian``, or release it
(epsilon, delta)-differentially private by SafePub with ``--epsilon E --delta
D``, and write the release, with its resolved job file beside it; or run a
job file with ``--config``),
``risk`` (re-identification risk), ``hierarchy build`` (a hierarchy from a
column's values) and ``adult`` (the whole job on the bundled Adult data).
Errors are one line on stderr with exit code 2.

The columns that are neither quasi-identifiers nor sensitive have roles:
``--identifier COL`` (dropped; or ``COL=pseudonym`` with ``--key-env NAME``
or ``--key-file PATH``, ``COL=table:PATH``, ``COL=mask``) and
``--insensitive COL`` (released unchanged). A column with no role that would
identify records on its own is refused, by name.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import dataclasses
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon import hierarchy
from polars_anon._core import AnonError
from polars_anon.cli import commands
from polars_anon.cli.dp import dp_options
from polars_anon.cli.options import (
    builder_option,
    data_options,
    levels_arg,
    model_options,
    preference,
    search_options,
)
from polars_anon.cli.parser import Parser, subcommand
from polars_anon.cli.roles import roles_options, warnings_as_notes
from polars_anon.cli.words import in_cli_words


# The parser is built here from the subcommands (`commands`) and their
# options (`options`); a builder's options come from its spec
# (`polars_anon.hierarchy.BUILDERS`), a criterion's from `criteria.TYPES`.
def parser() -> argparse.ArgumentParser:
    top = Parser(
        prog="polars-anon",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = top.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = subcommand(sub, "check", "Is the table k-anonymous at the given levels? (exit 1 if not)")
    data_options(p)
    model_options(p)
    roles_options(p)
    p.add_argument(
        "--levels",
        type=levels_arg,
        default=None,
        help="column=level pairs (age=2,sex=1); unnamed columns stay at 0",
    )
    p.set_defaults(run=commands.check_command)

    p = subcommand(sub, "search", "Every anonymous generalization, and the preferred one.")
    data_options(p)
    model_options(p)
    roles_options(p)
    search_options(p)
    p.set_defaults(run=commands.search_command)

    p = subcommand(
        sub,
        "anonymize",
        "Search, write the release and its resolved job file "
        "(<out>.job.toml); with --config, run a job file (its recorded levels, if any, "
        "are applied and re-checked instead of searching). --algorithm mondrian "
        "partitions the table by Mondrian instead (a run of its resolved job file "
        "re-applies the splits written beside the release, re-checked; [search] coarsen "
        "= true coarsens those a new input cannot hold); --epsilon E --delta D releases "
        "it differentially private by SafePub (the quasi-identifiers only; a run of its "
        "job file releases its input again).",
    )
    data_options(p, data_required=False)
    model_options(p)
    roles_options(p)
    search_options(p, mondrian=True)
    dp_options(p)
    p.add_argument(
        "--config",
        type=Path,
        default=None,
        help="a job file (TOML). It sets the model, the hierarchies, the search and how its "
        "input is read: the options that set them are refused beside it. It may be given "
        "DATA (with --out, unless DATA is the job's input; with --sep and --encoding, "
        "describing DATA), --out, --nulls, --numeric, --mode and the roles' options",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the release: .csv, .parquet, or Arrow IPC (.arrow, .ipc, .feather); never a "
        "file the run reads",
    )
    p.set_defaults(run=commands.anonymize_command)

    p = subcommand(sub, "risk", "Re-identification risk of the table at the given levels.")
    data_options(p)
    p.add_argument("--levels", type=levels_arg, default=None, help="column=level pairs")
    p.add_argument(
        "--population",
        default=None,
        metavar="N|FILE",
        help="the population the table was drawn from: its number of records, or a file "
        "of its records (CSV or Parquet, the same quasi-identifiers; read with --sep and "
        "--encoding) (default: the table)",
    )
    p.add_argument("--threshold", type=float, default=0.2, help="a record is at risk above this")
    p.set_defaults(run=commands.risk_command)

    p = subcommand(sub, "hierarchy", "Hierarchy tools.")
    hsub = p.add_subparsers(dest="action", required=True, parser_class=Parser)
    b = subcommand(
        hsub,
        "build",
        "Build a column's hierarchy from its values and write it as "
        "ARX's CSV (or its spec, with --out FILE.json).",
    )
    ksub = b.add_subparsers(dest="kind", required=True, parser_class=Parser)
    for kind, spec in hierarchy.BUILDERS.items():
        k = subcommand(ksub, kind, f"A hierarchy of {spec.summary}.")
        data_options(k, hierarchies=False)
        k.add_argument("--column", required=True, help="the column whose values it covers")
        k.add_argument("--out", type=Path, required=True, help="FILE.csv (ARX) or FILE.json (spec)")
        k.add_argument(
            "--hierarchy-sep", default=";", help="the separator of the hierarchy CSV written"
        )
        for f in dataclasses.fields(spec):  # type: ignore[arg-type]
            builder_option(k, f)
        k.set_defaults(run=commands.build_command)

    p = subcommand(sub, "adult", "The whole job on the bundled Adult data.")
    model_options(p, criteria=False)
    preference(p)
    p.add_argument(
        "--out",
        type=Path,
        default=Path("adult_anonymized.parquet"),
        help="the release of the bundled Adult table: .parquet, .csv (separated by ;) or "
        "Arrow IPC (.arrow, .ipc, .feather), with its resolved job file beside it "
        "(<out>.job.toml)",
    )
    p.set_defaults(run=commands.adult_command)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2), already printed
        return e.code if isinstance(e.code, int) else 2
    _plain_terminal()
    out = getattr(args, "out", None)
    data = getattr(args, "data", None)
    try:
        for name, path in (("--out", out), ("DATA", data)):
            if isinstance(path, Path) and ("\n" in str(path) or "\r" in str(path)):
                return _fail(f"{name} {str(path)!r}: a path on one line, please")
        if isinstance(out, Path) and not out.parent.is_dir():
            what = "is a file, not a folder" if out.parent.exists() else "does not exist"
            return _fail(f"cannot write --out {str(out)!r}: {str(out.parent)!r} {what}")
    except OSError as e:  # a name too long for the file system
        return _fail(f"cannot write --out {str(out)!r}: {e.strerror}")
    try:
        if isinstance(data, Path) and not data.exists():
            return _fail(f"cannot read the data {str(data)!r}: no such file")
    except OSError as e:
        return _fail(f"cannot read the data {str(data)!r}: {e.strerror}")
    try:
        with warnings_as_notes(getattr(args, "config", None) is not None):
            code: int = args.run(args)
        return code
    except BrokenPipeError:
        # the reader of stdout stopped (`| head`): the commands print after
        # their work, which is done; the rest of the report goes nowhere
        with contextlib.suppress(OSError, ValueError):  # a stdout with no file
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        # a write interrupted leaves nothing at its target (release.write)
        print("polars-anon: interrupted", file=sys.stderr)
        return 130
    except AnonError as e:
        job = getattr(args, "config", None) is not None
        return _fail(f"{type(e).__name__}: {in_cli_words(str(e), job)}")
    except Exception as e:
        # the data could not be read or written as asked (Polars, the file
        # system, DuckDB or Spark): its first line, not a traceback
        lines = str(e).strip().splitlines()
        first = lines[0] if lines else ""
        if "utf-8" in first.lower():
            first += _not_utf8(data)
        return _fail(f"{type(e).__name__}: {first}{_csv_cause(first, lines)}")


def _plain_terminal() -> None:
    """On a terminal that cannot show Unicode (a latin-1 or ASCII locale),
    tables are drawn in ASCII and any other character the report holds (a
    value of the data, a dash) is written as "?", not a crash after the work."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            "\u2500\u2502\u2026".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            if stream is sys.stdout:
                pl.Config.set_tbl_formatting("ASCII_FULL_CONDENSED")
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                with contextlib.suppress(OSError, ValueError):
                    # one "?" a character: tables stay aligned
                    reconfigure(errors="replace")


def _csv_cause(first: str, lines: list[str]) -> str:
    """What DuckDB says later in a CSV error that its first line lacks: the
    fields expected and found on the line it names, or for a file whose
    layout it could not detect, what usually makes one."""
    cause = next((x.strip() for x in lines[1:] if x.startswith("Expected Number of")), None)
    if cause:
        return f" ({cause})"
    if "Error when sniffing file" in first:
        return (
            " (its lines do not share one layout with this separator: a line of fewer "
            "fields, such as one of spaces? another separator? give it with --sep)"
        )
    return ""


def _not_utf8(data: Any) -> str:
    """Which file a UTF-8 error of the run came from, and the way out: DATA
    when it is not UTF-8 (read in pieces, to the first bad byte), else
    any file read with DATA's encoding (a job's input, a population table)."""
    if isinstance(data, Path) and data.is_file():
        decoder = codecs.getincrementaldecoder("utf-8")()
        try:
            with data.open("rb") as f:
                while piece := f.read(1 << 20):
                    decoder.decode(piece)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return f" in {str(data)!r}: give its encoding with --encoding (latin-1, cp1252, ...)"
        except OSError:
            pass
    return (
        ": a table read is not UTF-8: give its encoding with --encoding, or as encoding "
        "under [input] in a job file"
    )


def _fail(message: str) -> int:
    """One line on stderr and exit code 2: no traceback."""
    print(f"polars-anon: {message}", file=sys.stderr)
    return 2
