"""Wide tables released where they live: `pa.datasets.census(50_000, n)` as a
DuckDB table and a Spark DataFrame (`local[2]`, as ``engines.py`` starts
it), searched by Datafly (k = 5, 1%) and released at its node (``apply``,
counted), each cell in a fresh process; then, with ``--scaled-engines``,
the searches at 10M rows x 100 quasi-identifiers on DuckDB and Spark.

Usage: ``python bench/wide_engines.py [--widths 100 200 500] [--engines duckdb spark]
[--spark-widths 100] [--out bench/wide_engines.json]
[--scaled-engines duckdb spark] [--scaled-folder FOLDER]
[--scaled-algorithms datafly heuristic auto] [--scaled-spark-algorithms datafly]
[--duckdb-sources relation table] [--scaled-time-limit 10]
[--scaled-timeout 900] [--scaled-memory-gib 16] [--scaled-release]
[--duckdb-memory-limit 8GB]``

A cell records the seconds of the search and of the release (the snapshot
built and its groups counted and checked), the rows released and the
process's peak RSS (VmHWM; Spark's JVM apart). An empty ``--engines``
leaves these cells out.

Scaled cells (none unless ``--scaled-engines`` names an engine): the 10M
rows x 100 string quasi-identifiers that ``hundreds.py`` draws from
``census(1_000_000, 100)`` into ``--scaled-folder`` (default
``bench/out/census_1000000x100_drawn_10000000_seed0``: Parquet parts
``part-*.parquet`` of 1M rows, made by ``python bench/hundreds.py
--scaled-rows 10000000``), with its hierarchies (``hierarchies.json``),
k = 5, 1% suppression, each cell in a fresh process. DuckDB: for each of
``--duckdb-sources``, ``relation`` (``con.sql("SELECT * FROM
read_parquet('<folder>/part-*.parquet')")`` on an in-memory connection:
each query reads the files) or ``table`` (``CREATE TABLE t AS`` that, on
the same connection, timed as ``load_s``), then for each of
``--scaled-algorithms`` ``pa.search(data, qis, hs, 5, 0.01, algorithm=A,
time_limit=10)`` (``--scaled-time-limit``; Datafly has none: the core's path
ignores it). Spark: ``spark.read.parquet('<folder>/part-*.parquet')`` on
``local[2]`` with its 4 GiB driver (``engines.local_spark``; starting the
session is ``session_s``), ``--scaled-spark-algorithms`` (Datafly alone by
default). As in ``hundreds.py`` the search is ``pa.search``'s two steps
timed apart: ``prepare`` (F0 grouped where the data lives: of the raw values
for Datafly, at each attribute's floor for the others) then ``searched``;
``total_s`` is both. Each cell records ARX's loss of ``r.best("min_loss")``'s
row of ``r.anonymous``, its height (the sum of its levels) beside the top's,
the work counters (``r.stats``), whether it stopped, ``answered_within_limit``
(an anonymous node came back and the search, preparation aside, took at most
the limit + 0.5 s; None for Datafly), the process's peak RSS (``VmHWM`` at
the end; for Spark ``jvm_peak_mib``, the JVM's and its children's), the load
average (``os.getloadavg()``) at the cell's start and end and, for DuckDB,
its own memory: ``duckdb_memory()``'s total (memory and temporary storage),
sampled every half second from a cursor of the same database during the
cell (``duckdb_peak_memory_mib``, ``duckdb_peak_temp_mib``), and DuckDB's
``memory_limit`` (its default, 80% of the machine's memory, unless
``--duckdb-memory-limit`` sets it: ``duckdb_memory_limit_set``).
``prepare_phases_s`` splits the preparation: ``marginals`` (each column's
counts where the data lives, for the floors),
``find`` (the floors, those included) and ``group`` (F0's aggregate there,
brought back to Polars); the rest is the core's encoding (``floor_levels``,
``floored_qis``: the floors' sum and the attributes with one above 0). The
parent kills a cell past ``--scaled-timeout`` seconds or once its process
tree's RSS (read every half second) passes ``--scaled-memory-gib``; the
cell then says so. ``--scaled-release``: the Datafly cells of DuckDB then
release at the node (``r.apply(data, criterion="min_loss")``, counted, as
the cells above: ``release_s``, ``rows_released``; the search's figures are
printed first, so that a cell stopped in its release keeps them, with
``release_started``).

The JSON's cells are merged by key (engine, rows, quasi-identifiers, and
for a scaled cell its algorithm, source, whether it released and the
DuckDB memory limit set): a run replaces the cells it
makes and keeps the others.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import time
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

HERE = Path(__file__).parent
SCALED_FOLDER = HERE / "out" / "census_1000000x100_drawn_10000000_seed0"
SCALED_ALGORITHMS = ("datafly", "heuristic", "auto")
DUCKDB_SOURCES = ("relation", "table")
K = 5
SUPPRESSION = 0.01
TIME_LIMIT = 10.0
# what "within the limit" allows past it (as hundreds.py)
SLACK_S = 0.5
MIB = 1024 * 1024


def status_mib(field: str, pid: int | str = "self") -> float:
    """A process's ``field`` of /proc/<pid>/status (VmHWM, VmRSS) in MiB,
    or nan once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def tree_mib(pid: int, field: str = "VmRSS") -> float:
    """The sum of ``field`` over process `pid` and its descendants."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        value = status_mib(field, p)
        if math.isnan(value):
            continue
        total += value
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return total


class DuckMemory:
    """DuckDB's own memory (``duckdb_memory()``: the buffer manager's, and
    its temporary storage) sampled every half second from a cursor of the
    connection's database, in a thread, while the cell runs."""

    def __init__(self, con: Any) -> None:
        import threading

        self.cursor = con.cursor()
        self.peak_memory = 0
        self.peak_temp = 0
        self.samples = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def read(self) -> tuple[int, int]:
        sql = "SELECT sum(memory_usage_bytes), sum(temporary_storage_bytes) FROM duckdb_memory()"
        memory, temp = self.cursor.execute(sql).fetchone()
        return int(memory or 0), int(temp or 0)

    def watch(self) -> None:
        while not self.done.wait(0.5):
            memory, temp = self.read()
            self.peak_memory = max(self.peak_memory, memory)
            self.peak_temp = max(self.peak_temp, temp)
            self.samples += 1

    def stop(self) -> dict[str, Any]:
        self.done.set()
        self.thread.join()
        memory, temp = self.read()
        limit = self.cursor.execute("SELECT current_setting('memory_limit')").fetchone()
        return {
            "duckdb_peak_memory_mib": round(max(self.peak_memory, memory) / MIB, 1),
            "duckdb_peak_temp_mib": round(max(self.peak_temp, temp) / MIB, 1),
            "duckdb_memory_end_mib": round(memory / MIB, 1),
            "duckdb_memory_samples": self.samples,
            "duckdb_memory_limit": limit[0] if limit else None,
        }


def scaled_cell(
    engine: str,
    algorithm: str,
    limit: float | None,
    folder: Path,
    source: str,
    release: bool,
    memory_limit: str | None = None,
) -> dict[str, Any]:
    """One scaled cell, in this process: the data opened where it lives,
    then ``pa.search``'s two steps timed apart (and, with `release`, the
    release at the node, counted)."""
    import polars_anon as pa
    from polars_anon.api.search import searched
    from polars_anon.prepare.f0 import prepare

    sys.path.insert(0, str(HERE))
    from machine import STATS

    out: dict[str, Any] = {"engine": engine, "algorithm": algorithm, "source": source}
    meta = json.loads((folder / "meta.json").read_text())
    out.update(
        rows=meta["rows"],
        qis=meta["quasi_identifiers"],
        drawn_from_rows=meta["drawn_from_rows"],
        seed=meta["seed"],
        parts=meta["parts"],
        time_limit=limit,
    )
    stored = json.loads((folder / "hierarchies.json").read_text())
    hs = {q: pa.Hierarchy.from_json(json.dumps(h)) for q, h in stored.items()}
    qis = list(hs)
    out["top_height"] = sum(hs[q].height for q in qis)
    glob = str(folder / "part-*.parquet")
    watch: DuckMemory | None = None
    spark: Any = None
    t = time.perf_counter()
    if engine == "duckdb":
        import duckdb

        con = duckdb.connect()
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{memory_limit}'")
        watch = DuckMemory(con)
        scan = f"SELECT * FROM read_parquet('{glob}')"
        if source == "table":
            con.execute(f"CREATE TABLE t AS {scan}")
            data = con.table("t")
        else:
            data = con.sql(scan)
        count: Any = lambda rel: rel.aggregate("count(*)").fetchall()[0][0]  # noqa: E731
        out["load_s"] = round(time.perf_counter() - t, 3)
    else:
        from engines import local_spark

        spark = local_spark()
        out["session_s"] = round(time.perf_counter() - t, 3)
        data = spark.read.parquet(glob)
        count = lambda sdf: sdf.count()  # noqa: E731
    out["peak_rss_table_mib"] = round(status_mib("VmHWM"), 1)
    phases = timed_phases()
    t = time.perf_counter()
    # as pa.search does: F0 at the floors off Polars, except for Datafly
    floors = None if algorithm == "datafly" else (K, SUPPRESSION)
    try:
        prep = prepare(data, qis, hs, (), "error", floors_for=floors)
        t_prep = time.perf_counter()
        out.update(prepare_s=round(t_prep - t, 3), prepare_phases_s=phases)
        out.update(f0_distinct=prep.problem.distinct, f0_rows=prep.problem.rows)
        if prep.floors is not None:
            out.update(floor_levels=sum(prep.floors[0]), floored_qis=sum(map(bool, prep.floors[0])))
        r = searched(prep, K, SUPPRESSION, algorithm, time_limit=limit, progress=False)
    except Exception as e:  # the cell says why it failed
        out.update(
            error=f"{type(e).__name__}: {e}"[:2000],
            failed_after_s=round(time.perf_counter() - t, 3),
            answered=False,
            answered_within_limit=False if limit is not None else None,
        )
        return finish(out, watch, spark)
    t_end = time.perf_counter()
    search_s = t_end - t_prep
    out.update(
        search_s=round(search_s, 3),
        total_s=round(t_end - t, 3),
        algorithm_run=r.algorithm,
        anonymous_nodes=r.anonymous.height,
        stopped=r.stopped,
        complete=r.complete,
        proven_optimal=r.proven_optimal,
        reason=r.reason,
        stats={f: getattr(r.stats, f) for f in STATS},
        peak_rss_search_mib=round(status_mib("VmHWM"), 1),
    )
    try:
        best = r.best("min_loss")
    except pa.NotAnonymousError as e:
        out.update(
            error=f"NotAnonymousError: {e}",
            answered=False,
            answered_within_limit=False if limit is not None else None,
        )
        return finish(out, watch, spark)
    row = r.anonymous.filter(**best)
    out.update(
        loss=float(row.get_column("loss").item()),
        suppressed=int(row.get_column("suppressed").item()),
        height=sum(best.values()),
        levels=[best[q] for q in qis],
        answered=True,
        answered_within_limit=None if limit is None else search_s <= limit + SLACK_S,
    )
    if release:
        # the search's figures first, in case the release is stopped
        partial = out | {"peak_mib": round(status_mib("VmHWM"), 1), "release_started": True}
        print(json.dumps(partial | {"load_average_end": os.getloadavg()}), flush=True)
        t = time.perf_counter()
        try:
            out["rows_released"] = count(r.apply(data, criterion="min_loss"))
        except Exception as e:  # the cell says why it failed
            out["release_error"] = f"{type(e).__name__}: {e}"[:2000]
        out["release_s"] = round(time.perf_counter() - t, 3)
    return finish(out, watch, spark)


def timed_phases() -> dict[str, float]:
    """The seconds `prepare` spends in the engine's steps, added up by name
    as they return: ``marginals`` (each column's counts, for the floors),
    ``floors`` (``prepare.floors.find``, the marginals included) and
    ``group`` (F0's aggregate where the data lives, brought back to Polars);
    the rest of ``prepare_s`` is the core's encoding and grouping of it. The
    functions are wrapped in this process, as ``prepare`` looks them up."""
    import polars_anon.engines as engines
    import polars_anon.prepare.floors as floors

    spent: dict[str, float] = {}

    def wrap(owner: Any, name: str) -> None:
        inner = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[name] = round(spent.get(name, 0.0) + time.perf_counter() - t, 3)

        setattr(owner, name, timed)

    wrap(engines, "marginals")
    wrap(engines, "group")
    wrap(floors, "find")
    return spent


def finish(out: dict[str, Any], watch: DuckMemory | None, spark: Any) -> dict[str, Any]:
    """`out` with the peaks and the load average at the end."""
    if watch is not None:
        out.update(watch.stop())
    if spark is not None:
        out["jvm_peak_mib"] = round(tree_mib(spark.sparkContext._gateway.proc.pid, "VmHWM"), 1)
    out.update(peak_mib=round(status_mib("VmHWM"), 1), load_average_end=os.getloadavg())
    return out


def run_scaled(cmd: list[str], timeout: float, memory_mib: float | None) -> dict[str, Any]:
    """``cmd`` in a process group of its own: its last line of output as
    JSON, or why there is none (the group killed at `timeout` seconds or
    once the process tree's RSS passes `memory_mib`, read every half second,
    or failed)."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    t = time.perf_counter()
    peak = 0.0
    while True:
        try:
            stdout, stderr = proc.communicate(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            rss = tree_mib(proc.pid)
            peak = max(peak, 0.0 if math.isnan(rss) else rss)
            over = memory_mib is not None and rss > memory_mib
            if over or time.perf_counter() - t > timeout:
                hwm = tree_mib(proc.pid, "VmHWM")
                os.killpg(proc.pid, signal.SIGKILL)
                stdout, stderr = proc.communicate()
                why: dict[str, Any] = {"timed_out": True, "cell_timeout_s": timeout}
                if over:
                    why = {"killed_over_memory": True, "cell_memory_mib": memory_mib}
                return (
                    printed(stdout)
                    | why
                    | {
                        "stopped_after_s": round(time.perf_counter() - t, 3),
                        "tree_rss_at_stop_mib": round(rss, 1),
                        "tree_peak_mib": round(hwm, 1),
                        "tree_rss_sampled_peak_mib": round(peak, 1),
                        "stderr": stderr[-2000:],
                    }
                )
    lines = stdout.strip().splitlines()
    if proc.returncode == 0 and lines:
        out: dict[str, Any] = json.loads(lines[-1])
        out["tree_rss_sampled_peak_mib"] = round(peak, 1)
        return out
    return printed(stdout) | {"failed": proc.returncode, "stderr": stderr[-2000:]}


def printed(stdout: str) -> dict[str, Any]:
    """The last JSON a stopped cell printed (its search's, before the
    release), or nothing."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            out: dict[str, Any] = json.loads(line)
        except ValueError:
            continue
        return out
    return {}


def key(c: dict[str, Any]) -> tuple[Any, ...]:
    scaled = (c.get("algorithm"), c.get("source"), c.get("release", False))
    scaled += (c.get("duckdb_memory_limit_set"),)
    return (c["engine"], c.get("rows", 50000), c["qis"], *scaled)


def write(out: Path, made: list[dict[str, Any]]) -> None:
    """`made` into `out`, replacing the cells of the same keys, the others kept."""
    cells: list[dict[str, Any]] = []
    if out.exists():
        cells = json.loads(out.read_text())["cells"]
    keys = {key(c) for c in made}
    cells = [c for c in cells if key(c) not in keys] + made
    out.write_text(json.dumps({"cells": cells}, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", type=int, nargs="+", default=[100, 200, 500])
    ap.add_argument("--spark-widths", type=int, nargs="+", default=[100])
    ap.add_argument("--engines", nargs="*", default=["duckdb", "spark"])
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("wide_engines.json"))
    ap.add_argument("--scaled-engines", nargs="*", default=[], choices=["duckdb", "spark"])
    ap.add_argument("--scaled-folder", type=Path, default=SCALED_FOLDER)
    ap.add_argument(
        "--scaled-algorithms", nargs="+", default=list(SCALED_ALGORITHMS), choices=SCALED_ALGORITHMS
    )
    ap.add_argument(
        "--scaled-spark-algorithms", nargs="+", default=["datafly"], choices=SCALED_ALGORITHMS
    )
    ap.add_argument("--duckdb-sources", nargs="+", default=["relation"], choices=DUCKDB_SOURCES)
    ap.add_argument("--scaled-time-limit", type=float, default=TIME_LIMIT)
    ap.add_argument("--scaled-timeout", type=float, default=900)
    ap.add_argument("--scaled-memory-gib", type=float, default=16)
    ap.add_argument("--scaled-release", action="store_true")
    ap.add_argument("--duckdb-memory-limit", default=None, help="DuckDB's memory_limit, e.g. 8GB")
    ap.add_argument("--scaled-cell", nargs=4, metavar=("ENGINE", "ALGORITHM", "LIMIT", "SOURCE"))
    args = ap.parse_args()
    if args.scaled_cell:
        engine, algorithm, limit, source = args.scaled_cell
        seconds = None if limit == "none" else float(limit)
        cell = scaled_cell(
            engine,
            algorithm,
            seconds,
            args.scaled_folder,
            source,
            args.scaled_release,
            args.duckdb_memory_limit,
        )
        print(json.dumps(cell), flush=True)
        return
    here = str(HERE)
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
            write(args.out, cells)
    memory = None if args.scaled_memory_gib is None else args.scaled_memory_gib * 1024
    meta = json.loads((args.scaled_folder / "meta.json").read_text()) if args.scaled_engines else {}
    for engine in args.scaled_engines:
        algorithms = args.scaled_spark_algorithms if engine == "spark" else args.scaled_algorithms
        sources = args.duckdb_sources if engine == "duckdb" else ["parquet"]
        for source in sources:
            for algorithm in algorithms:
                limit = None if algorithm == "datafly" else args.scaled_time_limit
                cmd = [sys.executable, __file__, "--scaled-cell", engine, algorithm]
                cmd += ["none" if limit is None else str(limit), source]
                cmd += ["--scaled-folder", str(args.scaled_folder)]
                release = args.scaled_release and engine == "duckdb" and algorithm == "datafly"
                if release:
                    cmd.append("--scaled-release")
                memory_limit = args.duckdb_memory_limit if engine == "duckdb" else None
                if memory_limit is not None:
                    cmd += ["--duckdb-memory-limit", memory_limit]
                entry: dict[str, Any] = {
                    "engine": engine,
                    "rows": meta["rows"],
                    "qis": meta["quasi_identifiers"],
                    "algorithm": algorithm,
                    "source": source,
                    "time_limit": limit,
                    "release": release,
                    "duckdb_memory_limit_set": memory_limit,
                    "load_average_start": os.getloadavg(),
                }
                t = time.perf_counter()
                entry.update(run_scaled(cmd, args.scaled_timeout, memory))
                entry["process_s"] = round(time.perf_counter() - t, 3)
                entry.setdefault("load_average_end", os.getloadavg())
                print(json.dumps({k: v for k, v in entry.items() if k != "levels"}), flush=True)
                cells.append(entry)
                write(args.out, cells)


if __name__ == "__main__":
    main()
