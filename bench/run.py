"""Time every search on the Adult grid and write ``bench/results.json``.

Usage: ``python bench/run.py [--repeat 5] [--sizes 3 4 5 6 7 8 9] [--out bench/results.json]``

Each cell is timed in a warm process (the data is loaded once) and reports the
minimum and median wall time of the search call, with the search's own counts
(nodes checked and marked, table scans, rows rolled up). No test asserts on
these numbers; they are for comparison with ARX and between our algorithms.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import time
from pathlib import Path
from typing import Any

import polars as pl

import polars_anon as pa

SEARCHES = [
    ("incognito", "cube"),
    ("incognito", "super_roots"),
    ("incognito", "basic"),
    ("bottom_up", "rollup"),
    ("bottom_up", "no_rollup"),
    ("samarati", None),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 4, 5, 6, 7, 8, 9])
    parser.add_argument("--k", type=int, nargs="+", default=[2, 5, 10])
    parser.add_argument("--suppression", type=float, nargs="+", default=[0.0, 0.05])
    parser.add_argument(
        "--algorithms", nargs="+", default=None, help="algorithm[:variant] names; default: all"
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results.json")
    args = parser.parse_args()
    searches = SEARCHES
    if args.algorithms:
        searches = [
            (a.split(":")[0], a.split(":")[1] if ":" in a else None) for a in args.algorithms
        ]
    lf, hs = pa.datasets.adult()
    df = lf.collect()
    qis_all = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    cells: list[dict[str, Any]] = []
    for algorithm, variant in searches:
        for sup in args.suppression:
            for k in args.k:
                for n in args.sizes:
                    qis = qis_all[:n]
                    times = []
                    result = None
                    for _ in range(args.repeat):
                        t = time.perf_counter()
                        result = pa.search(
                            df, qis, hs, k, sup, algorithm=algorithm, variant=variant
                        )
                        times.append((time.perf_counter() - t) * 1e3)
                    assert result is not None
                    cell = {
                        "algorithm": algorithm,
                        "variant": variant,
                        "k": k,
                        "suppression": sup,
                        "qi_size": n,
                        "min_ms": round(min(times), 2),
                        "median_ms": round(statistics.median(times), 2),
                        "anonymous": result.anonymous.height if result.complete else None,
                        **{
                            key: result.stats[key]
                            for key in (
                                "nodes_checked",
                                "nodes_marked",
                                "table_scans",
                                "rows_rolled_up",
                            )
                        },
                    }
                    cells.append(cell)
                    print(json.dumps(cell))
    out = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.processor(),
            "polars": pl.__version__,
        },
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "cells": cells,
    }
    args.out.write_text(json.dumps(out, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
