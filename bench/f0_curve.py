"""F0's cost per value against the table's size: Adult's 9 quasi-identifiers
drawn with replacement to N rows (seeded), or cup's 7, or census's 10 made at
N rows (``--table``), prepared from a DataFrame and from a LazyFrame over it
(``prepare``: encoding, grouping, the core's problem).

Usage: ``python bench/f0_curve.py [--sizes 10000 99000 101000 ...] [--repeat 5]
[--table adult|cup|census] [--out bench/f0_curve.json]``

Each cell records the best and median of ``--repeat`` calls (up to 300
for small tables: 3M rows' worth) and the ns per
value (rows x quasi-identifiers) of the best; sizes just under and over the
row threshold of `prepare.f0` (``ROWS_IN_CORE``) show whether it is a cliff.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import polars as pl

import polars_anon as pa
from polars_anon.prepare.f0 import ROWS_IN_CORE, prepare

SIZES = (10_000, 50_000, 99_000, 101_000, 300_000, 1_000_000, 3_000_000, 10_000_000)

# The machine's day: Adult itself prepared from memory (as `run.py
# --prepare`, best of 3 rounds of 200 calls) against its figure in
# `results.json` (2026-11-24); times on these machines move 2-3x between days.
RESULTS_JSON_ADULT_NS = 2.67


def calibration(adult: pl.DataFrame, qis: list[str], hs: dict[str, pa.Hierarchy]) -> float:
    """Adult's ns per value now over its ns in results.json."""
    best = float("inf")
    for _ in range(3 * 200):
        t = time.perf_counter()
        prepare(adult, qis, hs)
        best = min(best, time.perf_counter() - t)
    return best * 1e9 / (adult.height * len(qis)) / RESULTS_JSON_ADULT_NS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("f0_curve.json"))
    ap.add_argument(
        "--table",
        choices=["adult", "cup", "census"],
        default="adult",
        help="Adult's or cup's quasi-identifiers drawn, or census's 10 made at each size",
    )
    args = ap.parse_args()
    lf, hs = pa.datasets.adult()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    adult = lf.select(qis).collect()
    slower = calibration(adult, qis, hs)
    print(f"calibration: {slower:.2f}x slower than the day of results.json", flush=True)
    if args.table == "cup":
        lf, hs = pa.datasets.cup()
        qis = list(pa.datasets.CUP_QUASI_IDENTIFIERS)
        adult = lf.select(qis).collect()
    cells = []
    for n in args.sizes:
        if args.table == "census":
            made = pa.datasets.census(n, 10, seed=n)
            hs = made.hierarchies
            qis = list(hs)
            df = made.data.select(qis).collect()
        else:
            df = adult.sample(n, with_replacement=True, seed=n)
        for kind, data in (("DataFrame", df), ("LazyFrame", df.lazy())):
            times = []
            # small tables take many calls: their best of a few is noise
            for _ in range(max(args.repeat, min(300, 3_000_000 // n))):
                t = time.perf_counter()
                prep = prepare(data, qis, hs)
                times.append(time.perf_counter() - t)
            best = min(times)
            cells.append(
                {
                    "rows": n,
                    "input": kind,
                    "values": n * len(qis),
                    "distinct": prep.problem.distinct,
                    "ms_best": best * 1e3,
                    "ms_median": statistics.median(times) * 1e3,
                    "ns_per_value": best * 1e9 / (n * len(qis)),
                    "ns_per_value_day_adjusted": best * 1e9 / (n * len(qis)) / slower,
                }
            )
            c = cells[-1]
            print(
                f"{n:>10} {kind:9} {c['ms_best']:9.1f} ms  {c['ns_per_value']:5.2f} ns/value",
                flush=True,
            )
    out = {
        "table": args.table,
        "rows_in_core": ROWS_IN_CORE,
        "slower_than_results_json": slower,
        "cells": cells,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
