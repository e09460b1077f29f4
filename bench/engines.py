"""The same release on every engine: F0, the search and the release written
to Parquet, from a Parquet table of N synthetic rows (``synth.py``: Adult
scaled), on Polars (streaming), DuckDB and Spark ``local[2]``.

    python bench/engines.py --rows 10000000 [--out bench/engines.json]
    python bench/engines.py --rows 100000000 --engines duckdb spark

Each engine runs in a fresh process: its wall time (start to the release
written, Spark's session start counted apart) and the driver's peak RSS
(VmHWM; Spark's JVM is another process, whose memory this does not count).
All three must write the same number of rows.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# Adult's first 8 quasi-identifiers (salary-class left out)
QIS = 8


def local_spark(**config: str) -> Any:
    """Spark ``local[2]`` as the benches run it: no UI, a 4 GiB driver,
    and `config` (Spark settings by name)."""
    import os

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
    )
    for key, value in config.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def run(engine: str, source: Path, out: Path) -> dict[str, object]:
    import polars as pl
    from wide import peak_rss_mib  # this folder is on the path of a script run from it

    import polars_anon as pa

    _, hs = pa.datasets.adult()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:QIS])
    start = 0.0
    t0 = time.perf_counter()
    if engine == "polars":
        data = pl.scan_parquet(source / "*.parquet" if source.is_dir() else source)
    elif engine == "duckdb":
        import duckdb

        glob = str(source / "*.parquet") if source.is_dir() else str(source)
        data = duckdb.read_parquet(glob)
    else:
        spark = local_spark()
        start = time.perf_counter() - t0
        t0 = time.perf_counter()
        data = spark.read.parquet(str(source))
    result = pa.search(data, qis, hs, 10, 0.01, algorithm="incognito", progress=False)
    searched = time.perf_counter() - t0
    release = result.apply(data, criterion="min_loss")
    if engine == "polars":
        release.sink_parquet(out)
        rows = pl.scan_parquet(out).select(pl.len()).collect().item()
    elif engine == "duckdb":
        release.write_parquet(str(out))
        rows = int(release.aggregate("count(*)").fetchall()[0][0])
    else:
        release.write.mode("overwrite").parquet(str(out))
        rows = int(spark.read.parquet(str(out)).count())
    return {
        "engine": engine,
        "seconds": round(time.perf_counter() - t0, 2),
        "seconds_to_search": round(searched, 2),
        "session_start_seconds": round(start, 2),
        "rows_released": rows,
        "levels": result.best("min_loss"),
        "driver_peak_rss_mib": round(peak_rss_mib(), 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--data", type=Path, default=Path(__file__).parent / "out")
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "engines.json")
    p.add_argument("--engines", nargs="+", default=["polars", "duckdb", "spark"])
    p.add_argument("--engine")
    p.add_argument("--source", type=Path)
    p.add_argument("--release", type=Path)
    args = p.parse_args()
    if args.engine:
        print(json.dumps(run(args.engine, args.source, args.release)))
        return
    source = args.data / f"synth_{args.rows}"
    if not source.exists():
        subprocess.run(
            [
                sys.executable,
                str(Path(__file__).parent / "synth.py"),
                str(args.rows),
                str(source if args.rows > 10_000_000 else source.with_suffix(".parquet")),
            ],
            check=True,
        )
        if args.rows <= 10_000_000:
            source = source.with_suffix(".parquet")
    results = []
    for engine in args.engines:
        release = args.data / f"release_{engine}_{args.rows}.parquet"
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--engine",
                engine,
                "--source",
                str(source),
                "--release",
                str(release),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        entry = {"rows": args.rows, **json.loads(done.stdout.strip().splitlines()[-1])}
        print(json.dumps(entry), flush=True)
        results.append(entry)
    assert len({r["rows_released"] for r in results}) == 1, "the engines released different rows"
    old = json.loads(args.out.read_text()) if args.out.exists() else {"runs": []}
    old["runs"] = [r for r in old["runs"] if r["rows"] != args.rows] + results
    args.out.write_text(json.dumps(old, indent=1) + "\n")


if __name__ == "__main__":
    main()
