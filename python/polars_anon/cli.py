"""Command line: ``polars-anon adult`` runs the main job on the bundled Adult data;
``polars-anon anonymize`` does the same for a CSV or Parquet file of yours."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import polars as pl

from polars_anon import _api, datasets
from polars_anon._core import AnonError
from polars_anon._frames import read_hierarchies
from polars_anon._results import CRITERIA


def _suppression(text: str) -> int | float:
    """A count of tuples (``300``) or a fraction of the rows (``0.01``, ``1e-2``,
    ``1%``)."""
    t = text.strip()
    try:
        if t.endswith("%"):
            return float(t[:-1]) / 100
        if any(c in t for c in ".eE"):
            return float(t)
        return int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a count of tuples (300) nor a fraction of the rows "
            "(0.01, 1e-2, 1%)"
        ) from None


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit code 2, without argparse's usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _run(
    lf: pl.LazyFrame,
    qis: list[str],
    hierarchies: object,
    k: int,
    max_sup: int | float,
    criterion: str,
    out: Path,
) -> None:
    t0 = time.perf_counter()
    result = _api.search(lf, qis, hierarchies, k, max_sup)  # type: ignore[arg-type]
    levels = result.best(criterion)
    release = result.apply(levels=levels).collect()
    if out.suffix == ".csv":
        release.write_csv(out, separator=";")
    else:
        release.write_parquet(out)
    # re-check the file's content on its own, then report on the chosen node
    again = _api.check(release, qis, k)
    if not again.k_anonymous:
        raise AnonError(f"the release is not {k}-anonymous on re-check; nothing to trust")
    report = _api.check(lf, qis, k, hierarchies, levels, max_sup)  # type: ignore[arg-type]
    took = time.perf_counter() - t0
    print(result)
    print(f"chosen ({criterion}): {levels}")
    print(report)
    print(f"wrote {release.height} of {result._prep.rows} rows to {out} in {took:.2f} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="polars-anon", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in ("adult", "anonymize"):
        p = sub.add_parser(name)
        if name == "anonymize":
            p.add_argument("data", type=Path, help="CSV (';'-separated) or Parquet file")
            p.add_argument(
                "--hierarchies",
                type=Path,
                required=True,
                help="directory of <column>.csv hierarchies (ARX layout)",
            )
            p.add_argument("--qi", required=True, help="comma-separated quasi-identifiers")
        p.add_argument("--k", type=int, default=5)
        p.add_argument(
            "--max-suppression",
            type=_suppression,
            default=0,
            help="tuples (int) or fraction of rows (float in [0, 1))",
        )
        p.add_argument("--criterion", choices=CRITERIA, default="min_discernibility")
        p.add_argument("--out", type=Path, default=Path(f"{name}_anonymized.parquet"))
    args = parser.parse_args(argv)
    out: Path = args.out
    if not out.parent.is_dir():
        return _fail(f"cannot write {out}: the folder {out.parent} does not exist")
    if args.command == "anonymize":
        if not args.data.is_file():
            return _fail(f"cannot read {args.data}: no such file")
        if not args.hierarchies.is_dir():
            return _fail(f"cannot read hierarchies from {args.hierarchies}: no such folder")
    try:
        if args.command == "adult":
            lf, hs = datasets.adult()
            qis = list(datasets.ADULT_QUASI_IDENTIFIERS)
            _run(lf, qis, hs, args.k, args.max_suppression, args.criterion, args.out)
        else:
            path: Path = args.data
            lf = (
                pl.scan_parquet(path)
                if path.suffix == ".parquet"
                else pl.scan_csv(path, separator=";")
            )
            hs = read_hierarchies(args.hierarchies)
            qis = [q.strip() for q in args.qi.split(",") if q.strip()]
            _run(lf, qis, hs, args.k, args.max_suppression, args.criterion, args.out)
    except AnonError as e:
        return _fail(f"{type(e).__name__}: {e}")
    except (pl.exceptions.PolarsError, OSError) as e:
        # the data itself could not be read or written as asked
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return _fail(f"{type(e).__name__}: {first}")
    return 0


def _fail(message: str) -> int:
    """One line on stderr and exit code 2: no traceback."""
    print(f"polars-anon: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
