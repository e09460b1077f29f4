"""Mondrian (`polars_anon.mondrian`) at scale: two acceptance targets of the
Mondrian issue.

    python bench/mondrian_scale.py [--parts census scale] [--repeat 3]
        [--time-limits 10] [--rows 10000000 30000000] [--k 5 100]
        [--releases apply_sink guarded_write] [--mondrian-only-rows ...]
        [--count-rows 10000000] [--out bench/mondrian_scale.json]

``census``: "on pa.datasets.census (100k rows, 40 QIs, k = 5) the loss is
below the best full-domain node's and the run takes under 2 s". Mondrian on
``pa.datasets.census(100_000, 40)`` three ways: with the census hierarchies
(``age`` numeric, the other 39 along their hierarchies), without hierarchies
(``age`` numeric, the other 39 value sets) and ``mode="relaxed"`` with the
hierarchies; the loss (``result.loss``: ARX's cell-level loss), the
partitions, and the median of ``--repeat`` warm calls of ``pa.mondrian``
alone and of ``pa.mondrian`` + ``apply().collect()`` (the release, checked by
its guard). Beside it, the full-domain heuristic search (``pa.search(...,
algorithm="heuristic")``, each ``--time-limits`` second budget, max
suppression 0 and 1%) and the loss of its ``best("min_loss")`` node (ARX's
loss, its ``anonymous`` row): the best full-domain node it found, which it has
not proven optimal.

``scale``: "on 100M rows of bench/synth.py it reads the table at most twice,
within 2 GiB". Rows of ``bench/synth.py`` (Adult drawn with replacement,
ages jittered; ``bench/out/synth_N.parquet``, or a directory of 10M-row parts
above 10M; made when absent) scanned with ``pl.scan_parquet``, Adult's 9
quasi-identifiers and hierarchies, strict, each k of ``--k``; in a fresh
process per cell: ``pa.mondrian``, then the release written to Parquet, either
``result.apply().sink_parquet(path)`` (``apply_sink``: the Polars idiom; past
1M rows the guard proves the release on a temporary Parquet file and streams
it back) or ``result.guarded().write(path, "parquet")`` (``guarded_write``:
what job files do; written beside the target, proven there, renamed). Each
process reports its wall times, its peak RSS (``VmHWM``, after
``pa.mondrian`` and after the release; the process's own, from its start) and
the bytes it read through ``read`` calls in each phase (``rchar`` of
``/proc/self/io``, beside the source files' size: a streaming Parquet scan of
the whole file reads about its size, a scan of the first rows far less).
``--mondrian-only-rows``: sizes run for ``pa.mondrian`` alone (no release).

Reads are counted directly once (``--count-rows``, one cell at the first k):
the same run with the Parquet scan wrapped in a Polars IO source that records
each time Polars opens it and the rows it hands over, in ``pa.mondrian`` and
in ``apply().sink_parquet``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DATA = HERE / "out"
CENSUS_ROWS = 100_000
CENSUS_QIS = 40
CENSUS_K = 5
SUPPRESSION = (0.0, 0.01)
RELEASES = ("apply_sink", "guarded_write")


def peak_rss_mib() -> float:
    """This process's peak RSS (VmHWM): its own, where ``ru_maxrss`` of a
    child carries over its parent's high-water mark (bench/README.md)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def read_bytes() -> int:
    """Bytes this process has read through read calls (``rchar``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return -1


# -- census: loss against the best full-domain node, and time ---------------


def census_mondrian(lf: Any, qis: list[str], hs: Any, how: str, repeat: int) -> dict[str, Any]:
    import polars_anon as pa

    kw: dict[str, Any] = {
        "hierarchies": {"hierarchies": hs, "sets": None, "relaxed": hs}[how],
        "mode": "relaxed" if how == "relaxed" else "strict",
    }
    _ = pa.mondrian(lf, qis, CENSUS_K, **kw).apply().collect()  # warm-up
    alone, with_release, cpu, cpu_release = [], [], [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        r = pa.mondrian(lf, qis, CENSUS_K, **kw)
        alone.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        t0, c0 = time.perf_counter(), time.process_time()
        r = pa.mondrian(lf, qis, CENSUS_K, **kw)
        release = r.apply().collect()
        with_release.append(time.perf_counter() - t0)
        cpu_release.append(time.process_time() - c0)
    sizes = release.group_by(qis).len().get_column("len")
    kinds: dict[str, int] = {}
    for kind in r.kinds.values():
        kinds[kind] = kinds.get(kind, 0) + 1
    return {
        "how": how,
        "mode": kw["mode"],
        "kinds": kinds,
        "partitions": r.partitions,
        "loss": r.loss,
        "attribute_loss": r.attribute_loss,
        "release_classes": sizes.len(),
        "smallest_class": int(sizes.min()),  # type: ignore[arg-type]
        "records": int(release.height),
        "k_anonymous": int(sizes.min()) >= CENSUS_K,  # type: ignore[arg-type]
        "mondrian_s": statistics.median(alone),
        "mondrian_times_s": alone,
        "mondrian_release_s": statistics.median(with_release),
        "mondrian_release_times_s": with_release,
        # CPU seconds of every thread of the process (both cores): less
        # sensitive than wall time to the other work on the machine
        "mondrian_cpu_s": statistics.median(cpu),
        "mondrian_release_cpu_s": statistics.median(cpu_release),
    }


def census_full_domain(
    lf: Any, qis: list[str], hs: Any, sup: float, time_limit: float
) -> dict[str, Any]:
    import polars_anon as pa

    t0 = time.perf_counter()
    r = pa.search(
        lf,
        qis,
        hs,
        CENSUS_K,
        sup,
        algorithm="heuristic",
        time_limit=time_limit,
        progress=False,
    )
    seconds = time.perf_counter() - t0
    best = r.best("min_loss")
    row = r.anonymous.filter(**best)
    return {
        "max_suppression": sup,
        "time_limit_s": time_limit,
        "seconds": seconds,
        "loss": float(row.get_column("loss").item()),
        "suppressed": int(row.get_column("suppressed").item()),
        "levels": best,
        "nodes_checked": r.stats.nodes_checked,
        "proven_optimal": r.proven_optimal,
        "stopped": r.stopped,
    }


def census(repeat: int, time_limits: list[float]) -> dict[str, Any]:
    import polars_anon as pa

    lf, hs = pa.datasets.census(CENSUS_ROWS, CENSUS_QIS)
    qis = list(hs)
    runs = []
    for how in ("hierarchies", "sets", "relaxed"):
        cell = census_mondrian(lf, qis, hs, how, repeat)
        print(
            f"census mondrian {how}: loss {cell['loss']:.4f}, {cell['partitions']} partitions, "
            f"{cell['mondrian_s']:.3f} s ({cell['mondrian_cpu_s']:.3f} s CPU), with release "
            f"{cell['mondrian_release_s']:.3f} s ({cell['mondrian_release_cpu_s']:.3f} s CPU)",
            flush=True,
        )
        runs.append(cell)
    full = []
    for limit in time_limits:
        for sup in SUPPRESSION:
            cell = census_full_domain(lf, qis, hs, sup, limit)
            print(
                f"census heuristic sup={sup} limit={limit}: loss {cell['loss']:.4f} "
                f"({cell['seconds']:.1f} s, {cell['nodes_checked']} nodes)",
                flush=True,
            )
            full.append(cell)
    targets = {}
    for sup in SUPPRESSION:
        best = min(c["loss"] for c in full if c["max_suppression"] == sup)
        targets[f"best_full_domain_loss_sup_{sup}"] = best
        for c in runs:
            targets[f"loss_below_full_domain_sup_{sup}_{c['how']}"] = c["loss"] < best
    for c in runs:
        targets[f"under_2s_{c['how']}"] = c["mondrian_s"] < 2.0
        targets[f"under_2s_with_release_{c['how']}"] = c["mondrian_release_s"] < 2.0
    return {
        "data": f"pa.datasets.census({CENSUS_ROWS}, {CENSUS_QIS}) (a LazyFrame of an "
        "in-memory table)",
        "k": CENSUS_K,
        "repeat": repeat,
        "mondrian": runs,
        "full_domain_heuristic": full,
        "targets": targets,
    }


# -- scale: reads of the table and peak RSS, each cell in its own process -----


def source_of(rows: int) -> tuple[Path, str]:
    """The synthetic table of `rows` rows (made by bench/synth.py when absent)
    and the glob `pl.scan_parquet` reads it by."""
    one = DATA / f"synth_{rows}.parquet"
    parts = DATA / f"synth_{rows}"
    path = one if rows <= 10_000_000 else parts
    if not path.exists():
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(HERE / "synth.py"), str(rows), str(path)], check=True)
        print(f"generated {rows} rows in {time.perf_counter() - t0:.1f} s", flush=True)
    return path, str(path / "*.parquet") if path.is_dir() else str(path)


def counting_scan(glob: str, log: list[dict[str, Any]]) -> Any:
    """`pl.scan_parquet(glob)` behind a Polars IO source that appends to `log`
    each time Polars opens it (the columns, row limit and predicate it asks
    for) and counts the rows it hands over."""
    import polars as pl
    from polars.io.plugins import register_io_source

    base = pl.scan_parquet(glob)

    def source(
        with_columns: list[str] | None,
        predicate: Any,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Any:
        entry = {
            "columns": None if with_columns is None else len(with_columns),
            "n_rows": n_rows,
            "predicate": predicate is not None,
            "rows": 0,
            "batches": 0,
        }
        log.append(entry)
        lf = base if with_columns is None else base.select(with_columns)
        if predicate is not None:
            lf = lf.filter(predicate)
        if n_rows is not None:
            lf = lf.head(n_rows)
        for batch in lf.collect_batches(chunk_size=batch_size or 100_000, engine="streaming"):
            entry["rows"] += batch.height
            entry["batches"] += 1
            yield batch

    return register_io_source(source, schema=base.collect_schema())


def child(mode: str, glob: str, k: int, out: str) -> dict[str, Any]:
    """One cell, in this (fresh) process: `mode` is "mondrian" (no
    release), a release of `RELEASES`, or "count" (apply_sink from a
    counting scan)."""
    import polars as pl

    import polars_anon as pa

    _, hs = pa.datasets.adult()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    log: list[dict[str, Any]] = []
    lf = counting_scan(glob, log) if mode == "count" else pl.scan_parquet(glob)
    cell: dict[str, Any] = {"peak_rss_before_mib": peak_rss_mib()}
    b0 = read_bytes()
    t0 = time.perf_counter()
    r = pa.mondrian(lf, qis, k, hierarchies=hs)
    t1 = time.perf_counter()
    b1 = read_bytes()
    cell.update(
        {
            "mondrian_s": t1 - t0,
            "peak_rss_mondrian_mib": peak_rss_mib(),
            "read_bytes_mondrian": b1 - b0,
            "partitions": r.partitions,
            "loss": r.loss,
            "kinds": r.kinds,
        }
    )
    if mode == "count":
        cell["scans_mondrian"] = list(log)
        log.clear()
    if mode == "mondrian":
        return cell
    if mode == "guarded_write":
        r.guarded().write(out, "parquet")
    else:
        r.apply().sink_parquet(out)
    t2 = time.perf_counter()
    b2 = read_bytes()
    cell.update(
        {
            "release_s": t2 - t1,
            "total_s": t2 - t0,
            "peak_rss_total_mib": peak_rss_mib(),
            "read_bytes_release": b2 - b1,
            "release_file_bytes": Path(out).stat().st_size,
            "rows_released": pl.scan_parquet(out).select(pl.len()).collect().item(),
        }
    )
    if mode == "count":
        cell["scans_release"] = list(log)
    return cell


def scale_cell(rows: int, k: int, mode: str) -> dict[str, Any]:
    path, glob = source_of(rows)
    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    out = DATA / f"mondrian_release_{rows}.parquet"
    out.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, glob, str(k), str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    out.unlink(missing_ok=True)
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    size = sum(f.stat().st_size for f in files)
    cell = {"rows": rows, "k": k, "mode": mode, "source_bytes": size, **got}
    cell["reads_of_source_mondrian"] = got["read_bytes_mondrian"] / size
    if "read_bytes_release" in got:
        # what the release read beyond the written release's own read-backs:
        # the proof's (both ways), and apply_sink's batches from its
        # temporary file (taken as the size of the file it was copied to)
        again = 1 if mode == "guarded_write" else 2
        cell["reads_of_source_release_est"] = (
            got["read_bytes_release"] - again * got["release_file_bytes"]
        ) / size
    print(
        f"scale rows={rows} k={k} {mode}: mondrian {got['mondrian_s']:.1f} s, "
        f"{got['peak_rss_mondrian_mib']:.0f} MiB; release {got.get('release_s', 0):.1f} s, "
        f"{got.get('peak_rss_total_mib', 0):.0f} MiB; {got['partitions']} partitions, "
        f"loss {got['loss']:.4f}",
        flush=True,
    )
    return cell


def scale(
    rows: list[int],
    ks: list[int],
    releases: list[str],
    only: list[int],
    count: int | None,
    old: dict[str, Any] | None,
) -> dict[str, Any]:
    """The cells asked for, each in its own process, merged with those of
    an earlier run (`old`) of other sizes, k or modes."""
    cells = [scale_cell(n, k, mode) for n in rows for k in ks for mode in releases]
    cells += [scale_cell(n, k, "mondrian") for n in only for k in ks[:1]]
    counted = scale_cell(count, ks[0], "count") if count else None
    if old:
        new = {(c["rows"], c["k"], c["mode"]) for c in cells}
        cells += [c for c in old["cells"] if (c["rows"], c["k"], c["mode"]) not in new]
        counted = counted or old.get("counted")
    cells.sort(key=lambda c: (c["rows"], c["k"], c["mode"]))
    within = [c for c in cells if "peak_rss_total_mib" in c]

    def peak(c: dict[str, Any]) -> float:
        return float(c.get("peak_rss_total_mib", c["peak_rss_mondrian_mib"]))

    return {
        "data": "bench/synth.py rows (Adult drawn with replacement, ages jittered), "
        "pl.scan_parquet; Adult's 9 quasi-identifiers and hierarchies (age numeric), strict",
        "cells": cells,
        "counted": counted,
        "targets": {
            "largest_rows": max(c["rows"] for c in cells),
            "largest_rows_released": max((c["rows"] for c in within), default=None),
            "peak_rss_max_mib": max(peak(c) for c in cells),
            "within_2_gib": all(peak(c) <= 2048 for c in cells),
            # whole reads of the source, from the bytes read (rounded)
            "full_reads_of_source_max": max(
                (
                    round(c["reads_of_source_mondrian"]) + round(c["reads_of_source_release_est"])
                    for c in within
                ),
                default=None,
            ),
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", nargs="+", choices=["census", "scale"], default=["census", "scale"])
    ap.add_argument("--repeat", type=int, default=3, help="census: warm calls (median)")
    ap.add_argument("--time-limits", type=float, nargs="+", default=[10.0])
    ap.add_argument("--rows", type=int, nargs="*", default=[10_000_000])
    ap.add_argument("--k", type=int, nargs="+", default=[5])
    ap.add_argument("--releases", nargs="+", choices=RELEASES, default=list(RELEASES))
    ap.add_argument("--mondrian-only-rows", type=int, nargs="*", default=[])
    ap.add_argument("--count-rows", type=int, default=10_000_000, help="0: no counted run")
    ap.add_argument("--out", type=Path, default=HERE / "mondrian_scale.json")
    ap.add_argument("--child", nargs=4, metavar=("MODE", "GLOB", "K", "OUT"))
    args = ap.parse_args()
    if args.child:
        mode, glob, k, out = args.child
        print(json.dumps(child(mode, glob, int(k), out)))
        return
    result: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    command = " ".join(["python bench/mondrian_scale.py", *sys.argv[1:]])
    if "census" in args.parts:
        result["census"] = {
            "command": command,
            "date": stamp,
            **census(args.repeat, args.time_limits),
        }
    if "scale" in args.parts:
        old = result.get("scale")
        commands = [*(old["commands"] if old else []), f"{stamp}: {command}"]
        result["scale"] = {
            "commands": commands,
            **scale(
                args.rows, args.k, args.releases, args.mondrian_only_rows, args.count_rows, old
            ),
        }
    from machine import machine

    result["machine"] = machine()
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
