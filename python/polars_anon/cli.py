"""polars-anon: k-anonymity from the command line.

Subcommands: ``check`` (is a table k-anonymous at given levels?), ``search``
(every anonymous generalization, and the preferred one), ``anonymize`` (search
and write the release, with its resolved job file beside it; or run a job file
with ``--config``), ``risk`` (re-identification risk), ``hierarchy build``
(a hierarchy from a column's values) and ``adult`` (the whole job on the
bundled Adult data). Errors are one line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import polars as pl

from polars_anon import _api, datasets, hierarchy
from polars_anon._core import AnonError, ConfigError, Hierarchy
from polars_anon._criteria import Criterion
from polars_anon._job import (
    Job,
    criterion,
    criterion_spec,
    distinct_values,
    folder_sources,
    hierarchy_source,
    read_table,
    resolve_hierarchies,
    suppression,
    write_table,
)
from polars_anon._results import CRITERIA
from polars_anon._risk import risk


def _suppression(text: str) -> int | float:
    try:
        return suppression(text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _names(text: str) -> list[str]:
    return [q.strip() for q in text.split(",") if q.strip()]


def _levels(text: str) -> dict[str, int]:
    """``age=2,sex=1``"""
    out = {}
    for part in _names(text):
        name, _, level = part.partition("=")
        try:
            out[name.strip()] = int(level)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"levels are column=level pairs separated by commas (age=2,sex=1), got {part!r}"
            ) from None
    return out


def _numbers(text: str) -> list[float]:
    try:
        return [float(x) if any(c in x for c in ".eE") else int(x) for x in _names(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from None


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit code 2, without argparse's usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _sub(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=help, description=help, formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    return p


def _data_options(p: argparse.ArgumentParser, data_required: bool = True) -> None:
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
        choices=["polars", "duckdb", "spark"],
        default="polars",
        help="where the table is read, grouped and released (spark: the active session or a "
        "local one; it writes the release as a folder of parts)",
    )
    p.add_argument("--qi", type=_names, help="quasi-identifiers, separated by commas")
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


def _model_options(p: argparse.ArgumentParser, criteria: bool = True) -> None:
    p.add_argument("--k", type=int, default=5, help="every group at least this large")
    p.add_argument(
        "--max-suppression",
        type=_suppression,
        default=0,
        help="tuples that may be suppressed: a count (300) or a fraction (0.01, 1e-2, 1%%)",
    )
    if not criteria:
        return
    for flag, kind, what in [
        ("--p-sensitive", "p_sensitive", "ATTR:P  at least P distinct sensitive values per group"),
        ("--l-diversity", "distinct_l", "ATTR:L  at least L distinct sensitive values per group"),
        ("--entropy-l", "entropy_l", "ATTR:L  entropy l-diversity"),
        ("--t-closeness", "t_closeness", "ATTR:T  t-closeness, equal ground distance"),
    ]:
        p.add_argument(
            flag,
            action="append",
            default=[],
            metavar="ATTR:X",
            dest=kind,
            help=what.split("  ", 1)[1] + " (repeatable)",
        )


def _search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--algorithm", default="incognito", choices=list(_api.VARIANTS), help="the search"
    )
    p.add_argument(
        "--variant", default=None, help="the algorithm's variant (None: the algorithm's default)"
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds; past it the search answers with what it confirmed",
    )
    _preference(p)


def _preference(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--preference",
        "--criterion",
        choices=CRITERIA,
        default="min_loss",
        help="how the released generalization is chosen",
    )


def _criteria(args: argparse.Namespace) -> list[Criterion]:
    out = []
    for kind, param in [
        ("p_sensitive", "p"),
        ("distinct_l", "l"),
        ("entropy_l", "l"),
        ("t_closeness", "t"),
    ]:
        for spec in getattr(args, kind, []):
            attr, _, value = spec.rpartition(":")
            if not attr:
                raise ConfigError(f"--{kind.replace('_', '-')} takes ATTR:VALUE, got {spec!r}")
            number: float = float(value) if param == "t" or "." in value else int(value)
            out.append(criterion({"type": kind, param: number, "attribute": attr}))
    return out


def _sources(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
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


def _hierarchies(args: argparse.Namespace, data: pl.LazyFrame) -> dict[str, Hierarchy]:
    return resolve_hierarchies(_sources(args), data)


def _qis(args: argparse.Namespace) -> list[str]:
    if not args.qi:
        raise ConfigError("name the quasi-identifiers with --qi col1,col2,...")
    return list(args.qi)


def _check(args: argparse.Namespace) -> int:
    data = read_table(args.data, args.sep, args.encoding, args.engine)
    report = _api.check(
        data,
        _qis(args),
        args.k,
        _hierarchies(args, data),
        args.levels,
        args.max_suppression,
        _criteria(args),
    )
    print(report)
    return 0 if report.k_anonymous else 1


def _search(args: argparse.Namespace) -> int:
    data = read_table(args.data, args.sep, args.encoding, args.engine)
    result = _api.search(
        data,
        _qis(args),
        _hierarchies(args, data),
        args.k,
        args.max_suppression,
        args.algorithm,
        args.variant,
        criteria=_criteria(args),
        time_limit=args.time_limit,
        progress=sys.stderr.isatty(),
    )
    print(result)
    print(f"preferred ({args.preference}): {result.best(args.preference)}")
    return 0


def _risk(args: argparse.Namespace) -> int:
    data = read_table(args.data, args.sep, args.encoding, args.engine)
    print(
        risk(
            data, _qis(args), _hierarchies(args, data), args.levels, args.population, args.threshold
        )
    )
    return 0


def _anonymize(args: argparse.Namespace) -> int:
    if args.config is not None:
        job = Job.from_toml(args.config)
        if args.data is not None:
            job.input = args.data
        if args.out is not None:
            job.output = args.out
    else:
        if args.data is None:
            raise ConfigError("give the table to anonymize, or a job file with --config")
        if args.out is None:
            raise ConfigError("name the release's file with --out (.csv or .parquet)")
        job = Job(
            input=args.data,
            quasi_identifiers=_qis(args),
            k=args.k,
            output=args.out,
            hierarchies=_sources(args),
            max_suppression=args.max_suppression,
            criteria=[criterion_spec(c) for c in _criteria(args)],
            algorithm=args.algorithm,
            variant=args.variant,
            preference=args.preference,
            time_limit=args.time_limit,
            separator=args.sep,
            encoding=args.encoding,
            engine=args.engine,
        )
    t0 = time.perf_counter()
    run = job.run(progress=sys.stderr.isatty())
    took = time.perf_counter() - t0
    how = "searched" if run.searched else "recorded in the job file, re-checked"
    print(f"levels ({how}): {run.levels}")
    print(run.report)
    print(f"wrote {run.rows_released} of {run.report.rows} rows to {job.output} in {took:.2f} s")
    print(f"wrote the resolved job to {run.job_file}")
    return 0


def _build(args: argparse.Namespace) -> int:
    data = read_table(args.data, args.sep, args.encoding, args.engine)
    values = distinct_values(data, args.column)
    spec: hierarchy.Spec
    if args.kind == "interval":
        spec = hierarchy.Interval(tuple(args.widths), args.anchor, args.bottom, args.top)
    elif args.kind == "date":
        spec = hierarchy.Date(tuple(args.levels), args.format)
    elif args.kind == "masking":
        spec = hierarchy.Masking(
            None if args.masked is None else tuple(int(m) for m in args.masked),
            args.char,
            args.width,
            args.pad,
        )
    else:
        spec = hierarchy.Ordered(tuple(args.order), tuple(int(s) for s in args.sizes))
    h = spec.build(values)
    out: Path = args.out
    if out.suffix.lower() == ".json":
        out.write_text(spec.to_json() + "\n")
        print(f"wrote the {args.kind} spec of '{args.column}' to {out} (height {h.height})")
    else:
        out.write_text(h.to_csv(args.hierarchy_sep))
        print(
            f"wrote the {args.kind} hierarchy of '{args.column}' ({len(h.leaves)} values, "
            f"height {h.height}) to {out}"
        )
    return 0


def _adult(args: argparse.Namespace) -> int:
    lf, hs = datasets.adult()
    qis = list(datasets.ADULT_QUASI_IDENTIFIERS)
    t0 = time.perf_counter()
    result = _api.search(lf, qis, hs, args.k, args.max_suppression, progress=sys.stderr.isatty())
    levels = result.best(args.preference)
    release = result.apply(levels=levels).collect()
    write_table(release, args.out, ";")
    again = _api.check(release, qis, args.k)
    if not again.k_anonymous:
        raise AnonError(f"the release is not {args.k}-anonymous on re-check; nothing to trust")
    print(result)
    print(f"chosen ({args.preference}): {levels}")
    print(_api.check(lf, qis, args.k, hs, levels, args.max_suppression))
    print(
        f"wrote {release.height} of {result._prep.rows} rows to {args.out} "
        f"in {time.perf_counter() - t0:.2f} s"
    )
    return 0


def parser() -> argparse.ArgumentParser:
    top = _Parser(
        prog="polars-anon",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = top.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = _sub(sub, "check", "Is the table k-anonymous at the given levels? (exit 1 if not)")
    _data_options(p)
    _model_options(p)
    p.add_argument(
        "--levels",
        type=_levels,
        default=None,
        help="column=level pairs (age=2,sex=1); unnamed columns stay at 0",
    )
    p.set_defaults(run=_check)

    p = _sub(sub, "search", "Every anonymous generalization, and the preferred one.")
    _data_options(p)
    _model_options(p)
    _search_options(p)
    p.set_defaults(run=_search)

    p = _sub(
        sub,
        "anonymize",
        "Search, write the release and its resolved job file "
        "(<out>.job.toml); with --config, run a job file (its recorded levels, if any, "
        "are applied and re-checked instead of searching).",
    )
    _data_options(p, data_required=False)
    _model_options(p)
    _search_options(p)
    p.add_argument("--config", type=Path, default=None, help="a job file (TOML)")
    p.add_argument("--out", type=Path, default=None, help="the release: .csv or .parquet")
    p.set_defaults(run=_anonymize)

    p = _sub(sub, "risk", "Re-identification risk of the table at the given levels.")
    _data_options(p)
    p.add_argument("--levels", type=_levels, default=None, help="column=level pairs")
    p.add_argument(
        "--population",
        type=int,
        default=None,
        help="records in the population the table was drawn from (default: the table)",
    )
    p.add_argument("--threshold", type=float, default=0.2, help="a record is at risk above this")
    p.set_defaults(run=_risk)

    p = _sub(sub, "hierarchy", "Hierarchy tools.")
    hsub = p.add_subparsers(dest="action", required=True, parser_class=_Parser)
    b = _sub(
        hsub,
        "build",
        "Build a column's hierarchy from its values and write it as "
        "ARX's CSV (or its spec, with --out FILE.json).",
    )
    ksub = b.add_subparsers(dest="kind", required=True, parser_class=_Parser)
    kinds = {
        "interval": "numeric ranges of nested widths",
        "date": "calendar levels of dates and datetimes",
        "masking": "right-to-left redaction (ZIP codes, phone prefixes)",
        "ordered": "groups of consecutive ordered categories",
    }
    for kind, what in kinds.items():
        k = _sub(ksub, kind, f"A hierarchy of {what}.")
        _data_options(k)
        k.add_argument("--column", required=True, help="the column whose values it covers")
        k.add_argument("--out", type=Path, required=True, help="FILE.csv (ARX) or FILE.json (spec)")
        if kind == "interval":
            k.add_argument("--widths", type=_numbers, required=True, help="nested widths: 5,10,20")
            k.add_argument("--anchor", type=float, default=0, help="where bins start")
            k.add_argument("--bottom", type=float, default=None, help="values below: one open bin")
            k.add_argument("--top", type=float, default=None, help="values from here: one open bin")
        elif kind == "date":
            k.add_argument(
                "--levels",
                type=_names,
                default=["month", "quarter", "year", "decade"],
                help="some of hour,day,month,quarter,year,decade,century",
            )
            k.add_argument("--format", default=None, help="strptime format of string dates")
        elif kind == "masking":
            k.add_argument(
                "--masked",
                type=_numbers,
                default=None,
                help="characters masked per level: 1,2,3 (default: one more a level)",
            )
            k.add_argument("--char", default="*", help="the mask character")
            k.add_argument("--width", type=int, default=None, help="pad values to this width")
            k.add_argument("--pad", default="0", help="the padding character")
        else:
            k.add_argument("--order", type=_names, required=True, help="every category, in order")
            k.add_argument(
                "--sizes", type=_numbers, required=True, help="group sizes per level: 2,2"
            )
        k.set_defaults(run=_build)

    p = _sub(sub, "adult", "The whole job on the bundled Adult data.")
    _model_options(p, criteria=False)
    _preference(p)
    p.add_argument("--out", type=Path, default=Path("adult_anonymized.parquet"))
    p.set_defaults(run=_adult)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2), already printed
        return e.code if isinstance(e.code, int) else 2
    out = getattr(args, "out", None)
    if isinstance(out, Path) and not out.parent.is_dir():
        return _fail(f"cannot write {out}: the folder {out.parent} does not exist")
    data = getattr(args, "data", None)
    if isinstance(data, Path) and not data.exists():
        return _fail(f"cannot read {data}: no such file")
    try:
        code: int = args.run(args)
        return code
    except AnonError as e:
        return _fail(f"{type(e).__name__}: {e}")
    except Exception as e:
        # the data could not be read or written as asked (Polars, the file
        # system, DuckDB or Spark): its first line, not a traceback
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return _fail(f"{type(e).__name__}: {first}")


def _fail(message: str) -> int:
    """One line on stderr and exit code 2: no traceback."""
    print(f"polars-anon: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
