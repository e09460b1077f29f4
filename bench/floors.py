"""F0 at floor levels on DuckDB and Spark: what crosses to the driver.

Adult (8 quasi-identifiers), ARX's cup table (7) and the synthetic census
table (``pa.datasets.census``) of N rows and 15 and 30 quasi-identifiers,
written to Parquet and read by DuckDB and by Spark ``local[2]``; k = 5 and
20, suppression 0 and 1%. For each cell, F0 is prepared
twice in the same process: grouped by the raw values, and at each column's
floor (what `search` and `apply` do). The rows of F0 that cross to the
driver are a deterministic counter; the seconds are the engine's aggregate
(and, with floors, the per-column counts before it) plus the encoding.

    python bench/floors.py [--rows 1000000] [--engines duckdb spark] [--out bench/floors.json]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

WIDTHS = (15, 30)
SUPPRESSION = (0.0, 0.01)
K = (5, 20)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--engines", nargs="+", default=["duckdb", "spark"])
    p.add_argument("--data", type=Path, default=Path(__file__).parent / "out")
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "floors.json")
    args = p.parse_args()

    import polars_anon as pa
    from polars_anon.prepare.f0 import prepare

    args.data.mkdir(exist_ok=True)
    sources = {
        "adult": lambda: pa.datasets.adult(),
        "cup": lambda: pa.datasets.cup(),
        **{
            f"census_{args.rows}_{n}": (lambda n=n: pa.datasets.census(args.rows, n))
            for n in WIDTHS
        },
    }
    tables = {}
    for name, load in sources.items():
        path = args.data / f"{name}.parquet"
        lf, hs = load()
        if not path.exists():
            lf.sink_parquet(path)
        qis = list(hs)
        if name == "adult":
            qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:8])
        if name == "cup":
            qis = list(pa.datasets.CUP_QUASI_IDENTIFIERS)
        tables[name] = (path, {q: hs[q] for q in qis})
    cells = []
    for engine in args.engines:
        if engine == "duckdb":
            import duckdb

            read = duckdb.read_parquet
        else:
            from engines import local_spark  # this folder is on the path of a script run from it

            spark = local_spark(**{"spark.sql.shuffle.partitions": "2"})
            spark.sparkContext.setLogLevel("ERROR")
            read = spark.read.parquet
        for table, (path, hs) in tables.items():
            qis = list(hs)
            for k, sup in [(k, sup) for k in K for sup in SUPPRESSION]:
                cell: dict[str, object] = {"engine": engine, "table": table, "qis": len(qis)}
                cell.update(k=k, max_suppression=sup)
                for name, floors in (("raw", None), ("floors", (k, sup))):
                    data = read(str(path))
                    t = time.perf_counter()
                    prep = prepare(data, qis, hs, floors_for=floors)
                    cell[f"{name}_seconds"] = round(time.perf_counter() - t, 3)
                    assert prep.native is not None
                    cell[f"{name}_f0_rows"] = prep.native.height
                    if floors is not None:
                        cell["floor_levels"] = None if prep.floors is None else prep.floors[0]
                print(json.dumps(cell), flush=True)
                cells.append(cell)
    old = json.loads(args.out.read_text()) if args.out.exists() else {"cells": []}
    ran = {(c["engine"], c["table"]) for c in cells}
    keep = [c for c in old["cells"] if (c["engine"], c["table"]) not in ran]
    args.out.write_text(json.dumps({"cells": keep + cells}, indent=1) + "\n")


if __name__ == "__main__":
    main()
