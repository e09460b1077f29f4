"""Wide tables released where they live: `pa.datasets.census(50_000, n)` as a
DuckDB table and a Spark DataFrame (`local[2]`, as ``engines.py`` starts
it), searched by Datafly (k = 5, 1%) and released at its node (``apply``,
counted), each cell in a fresh process.

Usage: ``python bench/wide_engines.py [--widths 100 200 500] [--engines duckdb spark]
[--spark-widths 100] [--out bench/wide_engines.json]``

A cell records the seconds of the search and of the release (the snapshot
built and its groups counted and checked), the rows released and the
process's peak RSS (VmHWM; Spark's JVM apart).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[3])
import polars_anon as pa
engine, n = sys.argv[1], int(sys.argv[2])
lf, hs = pa.datasets.census(50_000, n)
df = lf.collect()
if engine == "duckdb":
    import duckdb
    con = duckdb.connect()
    arrow = df.to_arrow()
    con.execute("CREATE TABLE t AS SELECT * FROM arrow")
    data = con.table("t")
    count = lambda rel: rel.aggregate("count(*)").fetchall()[0][0]
else:
    from engines import local_spark
    spark = local_spark()
    data = spark.createDataFrame(df.to_pandas()).cache()
    data.count()
    count = lambda sdf: sdf.count()
t0 = time.perf_counter()
r = pa.search(data, list(hs), hs, 5, 0.01, algorithm="datafly", progress=False)
t1 = time.perf_counter()
released = count(r.apply(data, criterion="min_loss"))
t2 = time.perf_counter()
with open("/proc/self/status") as f:
    peak = next(int(x.split()[1]) for x in f if x.startswith("VmHWM")) / 1024
print(json.dumps({"engine": engine, "qis": n, "rows": 50000, "search_s": t1 - t0,
                  "release_s": t2 - t1, "rows_released": released, "peak_mib": peak}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", type=int, nargs="+", default=[100, 200, 500])
    ap.add_argument("--spark-widths", type=int, nargs="+", default=[100])
    ap.add_argument("--engines", nargs="+", default=["duckdb", "spark"])
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("wide_engines.json"))
    args = ap.parse_args()
    here = str(Path(__file__).parent)
    cells: list[dict[str, Any]] = []
    for engine in args.engines:
        for n in args.spark_widths if engine == "spark" else args.widths:
            try:
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, engine, str(n), here],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=True,
                )
                cell = json.loads(done.stdout.strip().splitlines()[-1])
            except (subprocess.SubprocessError, ValueError, IndexError) as e:
                cell = {"engine": engine, "qis": n, "error": f"{type(e).__name__}: {e}"[:500]}
            print(json.dumps(cell), flush=True)
            cells.append(cell)
            args.out.write_text(json.dumps({"cells": cells}, indent=1) + "\n")


if __name__ == "__main__":
    main()
