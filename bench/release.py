"""A release written from N synthetic rows (``synth.py``: Adult scaled, 8 QIs,
k = 10, 1% suppression, ``min_loss``) on Polars, DuckDB and Spark, against
the floor measured in the same run; each cell in a fresh process.

Usage::

    python bench/release.py [--rows 10000000 30000000 100000000]
        [--engines polars duckdb spark] [--modes sink_parquet collect ...]
        [--out bench/release.json] [--keep DIR] [--timeout 1800]

Cells (engine, mode), for each row count:

- ``floor``, ``copy_group_by``: what a release cannot beat, a streaming copy
  of the input to Parquet (``scan_parquet(src).sink_parquet(out)``) and a
  streaming group-by of the copy's quasi-identifiers, timed together.
- ``polars``, ``sink_parquet``: ``result.sink_parquet(out)`` (streamed,
  proven on the file).
- ``polars``, ``apply_then_sink``: the Polars idiom
  ``result.apply(lf).sink_parquet(out)``.
- ``polars``, ``collect``: ``df = result.apply(lf).collect()``: the peak
  over VmRSS just before the release against what the DataFrame then holds
  (VmRSS after it, less the same baseline: ``df_held_mib``,
  ``collect_ratio``) and against ``df.estimated_size()``
  (``collect_ratio_estimated``: Polars' estimate leaves out its buffers'
  slack, a third of a Utf8View column read from Parquet); at 30M rows or
  fewer.
- ``duckdb``, ``sink_parquet``: ``result.sink_parquet(out)`` on
  ``rel = duckdb.connect().read_parquet(glob)`` (DuckDB writes the
  snapshot, Polars proves the file).
- ``duckdb``, ``write_parquet``: the DuckDB idiom
  ``result.apply(rel).write_parquet(out)`` (the connection's
  ``preserve_insertion_order`` left on, as a user would).
- ``spark``, ``write_parquet``: ``result.apply(sdf)`` written by Spark's
  writer, Spark ``local[2]`` as ``engines.py`` starts it; at 10M rows or
  fewer. Its peak is the Python driver's; the JVM's (``jvm_peak_mib``) is
  apart.

Every release is searched first (``pa.search(data, qis, hs, 10, 0.01)``,
``search_s``). A cell records seconds to release (``release_s``, against the
floor's ``floor_s`` in ``floor_ratio``), the process's peak RSS (VmHWM,
``peak_mib``; ``search_peak_mib`` and ``release_peak_mib`` split it: the
high-water mark is reset after the search) and a fingerprint of the rows
written: their count and the sums of a hash of each row, its values as text
in the columns' sorted order, so the engines' releases must agree whatever
their row order or column types (``agreement`` in the JSON). The JSON is
rewritten after every cell; a cell that fails or times out records its error.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

QIS = 8
K, SUPPRESSION = 10, 0.01
CRITERION = "min_loss"
POLARS_MODES = ("sink_parquet", "apply_then_sink", "collect")
COLLECT_MAX_ROWS = 30_000_000
SPARK_MAX_ROWS = 10_000_000
MIB = 1024 * 1024


# --- the child: one cell in a fresh process ---------------------------------


def status_mib(key: str, pid: str = "self") -> float:
    """A line of ``/proc/PID/status`` (VmHWM, VmRSS) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> None:
    """Resets this process's VmHWM to its VmRSS (Linux 4.0+)."""
    Path("/proc/self/clear_refs").write_text("5")


def tree_peak_mib(pid: int) -> float:
    """The sum of the peaks of process `pid` and its descendants."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += status_mib("VmHWM", str(p))
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def fingerprint(lf: Any) -> str:
    """Rows, and the sums of each row's 64-bit hash, low and high halves
    apart (no overflow below 2^32 rows): the values cast to text, nulls as
    NUL, joined in the columns' sorted order; the same for every engine's
    output, in any row order."""
    import polars as pl

    cols = sorted(lf.collect_schema().names())
    text = [pl.col(c).cast(pl.String).fill_null("\x00") for c in cols]
    h = pl.concat_str(text, separator="\x1f").hash(0)
    got = lf.select(
        pl.len().alias("rows"),
        (h % 2**32).sum().alias("lo"),
        (h // 2**32).sum().alias("hi"),
    ).collect(engine="streaming")
    rows, lo, hi = got.row(0)
    return f"{rows}:{lo:x}:{hi:x}:{','.join(cols)}"


def child(engine: str, mode: str, glob: str, out: str) -> dict[str, Any]:
    import polars as pl

    import polars_anon as pa

    _, hs = pa.datasets.adult()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:QIS])
    cell: dict[str, Any] = {"engine": engine, "mode": mode}
    if engine == "floor":
        t0 = time.perf_counter()
        pl.scan_parquet(glob).sink_parquet(out)
        t1 = time.perf_counter()
        groups = pl.scan_parquet(out).group_by(qis).len().collect(engine="streaming")
        t2 = time.perf_counter()
        cell |= {
            "floor_s": t2 - t0,
            "copy_s": t1 - t0,
            "group_by_s": t2 - t1,
            "peak_mib": status_mib("VmHWM"),
            "groups": groups.height,
            "rows_released": pl.scan_parquet(out).select(pl.len()).collect().item(),
        }
        return cell
    start = time.perf_counter()
    spark: Any = None
    if engine == "polars":
        data: Any = pl.scan_parquet(glob)
    elif engine == "duckdb":
        import duckdb

        con = duckdb.connect()
        data = con.read_parquet(glob)
    elif engine == "spark":
        # engines.py is not type-checked; its Spark is the benches' Spark
        spark = importlib.import_module("engines").local_spark()
        cell["session_start_s"] = time.perf_counter() - start
        data = spark.read.parquet(glob)
    else:
        raise ValueError(f"unknown engine {engine}")
    t0 = time.perf_counter()
    r = pa.search(data, qis, hs, K, SUPPRESSION, progress=False)
    t1 = time.perf_counter()
    cell |= {"search_s": t1 - t0, "levels": r.best(CRITERION)}
    cell["search_peak_mib"] = status_mib("VmHWM")
    reset_peak()
    baseline = status_mib("VmRSS")
    df: Any = None
    if engine == "polars" and mode == "sink_parquet":
        r.sink_parquet(out, criterion=CRITERION)
    elif engine == "polars" and mode == "apply_then_sink":
        r.apply(data, criterion=CRITERION).sink_parquet(out)
    elif engine == "polars" and mode == "collect":
        df = r.apply(data, criterion=CRITERION).collect()
    elif engine == "duckdb" and mode == "sink_parquet":
        r.sink_parquet(out, criterion=CRITERION)
    elif engine == "duckdb":
        out_rel = r.apply(data, criterion=CRITERION)
        cell["apply_s"] = time.perf_counter() - t1
        out_rel.write_parquet(out)
    elif engine == "spark":
        out_sdf = r.apply(data, criterion=CRITERION)
        cell["apply_s"] = time.perf_counter() - t1
        out_sdf.write.mode("overwrite").parquet(out)
    else:
        raise ValueError(f"unknown mode {mode} for {engine}")
    t2 = time.perf_counter()
    peak = status_mib("VmHWM")
    cell |= {
        "release_s": t2 - t1,
        "release_peak_mib": peak,
        "peak_mib": max(cell["search_peak_mib"], peak),
        "baseline_rss_mib": baseline,
        "release_peak_over_baseline_mib": peak - baseline,
    }
    if df is not None:
        gc.collect()
        cell["df_held_mib"] = status_mib("VmRSS") - baseline
        cell["collect_ratio"] = (peak - baseline) / cell["df_held_mib"]
        cell["df_estimated_mib"] = df.estimated_size() / MIB
        cell["collect_ratio_estimated"] = (peak - baseline) / cell["df_estimated_mib"]
    if spark is not None:
        cell["jvm_peak_mib"] = tree_peak_mib(spark.sparkContext._gateway.proc.pid)
    if df is not None:
        written = df.lazy()
    elif engine == "spark":
        written = pl.scan_parquet(str(Path(out) / "*.parquet"))
    else:
        written = pl.scan_parquet(out)
    t3 = time.perf_counter()
    cell["fingerprint"] = fingerprint(written)
    cell["rows_released"] = int(cell["fingerprint"].split(":")[0])
    cell["fingerprint_s"] = time.perf_counter() - t3
    if spark is not None:
        spark.stop()
    return cell


# --- the parent: inputs, cells, the JSON -------------------------------------


def synth(n: int, inputs: Path) -> tuple[str, float]:
    """The glob of `n` synthetic rows under `inputs`, written unless there,
    and the seconds it took (0 when reused)."""
    single = n <= 10_000_000  # synth.py writes one file up to its part size
    src = inputs / (f"synth_{n}.parquet" if single else f"synth_{n}")
    glob = str(src) if single else str(src / "*.parquet")
    if src.exists():
        return glob, 0.0
    partial = src.with_name(src.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.unlink(missing_ok=True)
    t0 = time.perf_counter()
    script = Path(__file__).with_name("synth.py")
    subprocess.run([sys.executable, str(script), str(n), str(partial)], check=True)
    partial.rename(src)
    return glob, time.perf_counter() - t0


def run_cell(
    engine: str, mode: str, glob: str, tmp: Path, timeout: float
) -> tuple[dict[str, Any], float]:
    """One cell in a fresh process (its own session, killed whole on a
    timeout), its output deleted after; an error is recorded, not raised."""
    out = tmp / f"out_{engine}_{mode}" if engine == "spark" else tmp / f"out_{engine}_{mode}.pq"
    scratch = tmp / "scratch"
    scratch.mkdir(exist_ok=True)
    env = os.environ | {"TMPDIR": str(scratch)}
    argv = [sys.executable, __file__, "--child", engine, mode, glob, str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=scratch,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        if proc.returncode != 0:
            tail = stderr.strip().splitlines()[-15:]
            cell = {"engine": engine, "mode": mode, "error": "\n".join(tail)}
        else:
            cell = json.loads(stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        cell = {"engine": engine, "mode": mode, "error": f"timeout after {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    if out.is_dir():
        shutil.rmtree(out, ignore_errors=True)
    else:
        out.unlink(missing_ok=True)
    shutil.rmtree(scratch, ignore_errors=True)
    return cell, wall


def plan(n: int, engines: list[str], modes: list[str] | None) -> list[tuple[str, str]]:
    """The cells for `n` rows: the floor first, then each engine's modes."""
    cells = [("floor", "copy_group_by")]
    for engine in engines:
        if engine == "polars":
            ms = [m for m in POLARS_MODES if m != "collect" or n <= COLLECT_MAX_ROWS]
            cells += [("polars", m) for m in ms]
        elif engine == "duckdb":
            cells += [("duckdb", "sink_parquet"), ("duckdb", "write_parquet")]
        elif engine == "spark" and n <= SPARK_MAX_ROWS:
            cells.append(("spark", "write_parquet"))
    return [c for c in cells if modes is None or c[1] in modes or c[0] == "floor"]


def agreement(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether the releases of one row count have one fingerprint."""
    prints = {
        f"{c['engine']}/{c['mode']}": c["fingerprint"]
        for c in cells
        if c["engine"] != "floor" and "fingerprint" in c
    }
    return {"agree": len(set(prints.values())) <= 1, "cells": sorted(prints)}


def table(cells: list[dict[str, Any]]) -> str:
    """The cells as a Markdown table."""

    def f(cell: dict[str, Any], key: str, fmt: str) -> str:
        return format(cell[key], fmt) if key in cell else ""

    lines = [
        "| rows | engine | mode | search s | release s | peak MiB | x floor | collect ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in cells:
        seconds = f(c, "floor_s", ".1f") or f(c, "release_s", ".1f") or c.get("error", "")[:60]
        row = [
            f"{c['rows']:,}",
            c["engine"],
            c["mode"],
            f(c, "search_s", ".1f"),
            seconds,
            f(c, "peak_mib", ",.0f"),
            f(c, "floor_ratio", ".2f"),
            f(c, "collect_ratio", ".2f"),
        ]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> None:
    assert __doc__ is not None
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000_000, 30_000_000, 100_000_000])
    ap.add_argument("--engines", nargs="+", default=["polars", "duckdb", "spark"])
    ap.add_argument("--modes", nargs="+", help="only these modes (the floor always runs)")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("release.json"))
    ap.add_argument("--keep", type=Path, help="a folder to keep (and reuse) the inputs in")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds a cell may take")
    ap.add_argument("--child", nargs=4, metavar=("ENGINE", "MODE", "GLOB", "OUT"))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)), flush=True)
        return
    from machine import machine  # this folder is on the path of a script run from it

    doc: dict[str, Any] = {
        "command": " ".join(["python", *sys.argv]),
        "machine": machine(),
        "k": K,
        "suppression": SUPPRESSION,
        "quasi_identifiers": QIS,
        "criterion": CRITERION,
        "timeout_s": args.timeout,
        "cells": [],
        "agreement": {},
    }
    tmp = Path(tempfile.mkdtemp(prefix="polars-anon-release-", dir="/tmp"))
    inputs = args.keep or tmp
    inputs.mkdir(parents=True, exist_ok=True)
    try:
        for n in args.rows:
            glob, synth_s = synth(n, inputs)
            print(f"{n} rows: {glob} ({synth_s:.1f} s to write)", flush=True)
            floor_s = None
            done: list[dict[str, Any]] = []
            for engine, mode in plan(n, args.engines, args.modes):
                cell, wall = run_cell(engine, mode, glob, tmp, args.timeout)
                cell = {"rows": n, **cell, "wall_s": wall}
                if engine == "floor" and "floor_s" in cell:
                    floor_s = cell["floor_s"]
                elif floor_s and "release_s" in cell:
                    cell["floor_ratio"] = cell["release_s"] / floor_s
                print(json.dumps(cell), flush=True)
                done.append(cell)
                doc["cells"].append(cell)
                doc["agreement"][str(n)] = agreement(done)
                args.out.write_text(json.dumps(doc, indent=1) + "\n")
            print(f"{n} rows: the releases agree: {doc['agreement'][str(n)]}", flush=True)
            if args.keep is None:
                src = Path(glob.removesuffix("/*.parquet"))
                shutil.rmtree(src) if src.is_dir() else src.unlink()
        print(table(doc["cells"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
