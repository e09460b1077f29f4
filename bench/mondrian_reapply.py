"""Mondrian's recorded splits re-applied to new data (issue #32): what a
job's second month costs, against partitioning that month anew.

    python bench/mondrian_reapply.py [--rows 1000000 10000000] [--k 5 100]
        [--census] [--out bench/mondrian_reapply.json]

``synth`` cells (each in a fresh process): two draws of ``bench/synth.py``
(Adult drawn with replacement, ages jittered) of ``--rows`` rows, seeds 0
and 1 (``bench/out/synth_N.parquet`` and ``synth_N_seed1.parquet``, made
when absent), scanned with ``pl.scan_parquet``; Adult's 9
quasi-identifiers and hierarchies (age numeric), strict, each k of
``--k``. Timed apart: ``pa.mondrian`` of the first draw (``record_s``),
its ``.splits`` (``splits_s``, with the tree's nodes and leaves),
``pa.mondrian(second, ..., splits=...)`` (``reapply_s``: F0 of the second
draw routed down the splits and every partition checked), the release of
that partition written to Parquet by ``guarded().write`` (``release_s``,
proven on the file), the same with ``coarsen=True`` (``coarsen_s``: the
splits whose parts fail undone) and ``pa.mondrian`` of the second draw
anew (``anew_s``) for comparison; the partitions and losses of each, or
the refusal (``refused``, with its message: how many partitions fail);
``peak_rss_mib`` is the process's ``VmHWM`` at its end.

``--census``: ``pa.datasets.census(100_000, 40)`` with its hierarchies,
k = 5: the splits of seed 0 re-applied to itself and to seed 1 (the same
generator, another draw, with its own hierarchies), in this process: a
draw whose partitions shrink below k is refused, and the message says how
many.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DATA = HERE / "out"
QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
]


def peak_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def draw(rows: int, seed: int) -> Path:
    """The synthetic table (made by bench/synth.py when absent)."""
    path = DATA / (f"synth_{rows}.parquet" if seed == 0 else f"synth_{rows}_seed{seed}.parquet")
    if not path.exists():
        args = [sys.executable, str(HERE / "synth.py"), str(rows), str(path), "--seed", str(seed)]
        subprocess.run(args, check=True)
    return path


def synth_cell(rows: int, k: int) -> dict[str, Any]:
    """One cell, in this process (see the module doc)."""
    import polars as pl

    import polars_anon as pa

    _, hs = pa.datasets.adult()
    hs = {q: h for q, h in hs.items() if q in QIS and q != "age"}
    first = pl.scan_parquet(draw(rows, 0))
    second = pl.scan_parquet(draw(rows, 1))
    out: dict[str, Any] = {"part": "synth", "rows": rows, "k": k}
    t = time.perf_counter()
    recorded = pa.mondrian(first, QIS, k, hs)
    out["record_s"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    splits = recorded.splits
    out["splits_s"] = round(time.perf_counter() - t, 3)
    out.update(
        recorded_partitions=recorded.partitions,
        recorded_loss=recorded.loss,
        tree_nodes=splits.height,
        tree_leaves=int(splits.get_column("partition").is_not_null().sum()),
        empty_leaves=splits.height
        - int(splits.get_column("node").is_in(splits.get_column("parent").drop_nulls()).sum())
        - int(splits.get_column("partition").is_not_null().sum()),
    )
    t = time.perf_counter()
    try:
        again = pa.mondrian(second, QIS, k, hs, splits=splits)
    except pa.NotAnonymousError as e:
        out.update(reapply_s=round(time.perf_counter() - t, 3), refused=str(e)[:300])
    else:
        out.update(
            reapply_s=round(time.perf_counter() - t, 3),
            refused=None,
            reapplied_partitions=again.partitions,
            reapplied_loss=again.loss,
        )
        with tempfile.TemporaryDirectory(dir=DATA) as tmp:
            t = time.perf_counter()
            again.guarded().write(Path(tmp) / "release.parquet", "parquet")
            out["release_s"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    coarse = pa.mondrian(second, QIS, k, hs, splits=splits, coarsen=True)
    out.update(
        coarsen_s=round(time.perf_counter() - t, 3),
        coarsened_partitions=coarse.partitions,
        coarsened_loss=coarse.loss,
    )
    t = time.perf_counter()
    anew = pa.mondrian(second, QIS, k, hs)
    out.update(
        anew_s=round(time.perf_counter() - t, 3),
        anew_partitions=anew.partitions,
        anew_loss=anew.loss,
        peak_rss_mib=round(peak_rss_mib(), 1),
    )
    return out


def census() -> list[dict[str, Any]]:
    import polars_anon as pa

    cells = []
    lf, hs = pa.datasets.census(100_000, 40)
    qis = list(hs)
    t = time.perf_counter()
    recorded = pa.mondrian(lf, qis, 5, hs)
    record_s = time.perf_counter() - t
    splits = recorded.splits
    for seed in (0, 1):
        # a draw's own hierarchies (census's depend on the values drawn)
        other, other_hs = pa.datasets.census(100_000, 40, seed=seed)
        cell: dict[str, Any] = {
            "part": "census",
            "rows": 100_000,
            "qis": len(qis),
            "k": 5,
            "seed": seed,
            "record_s": round(record_s, 3),
            "recorded_partitions": recorded.partitions,
            "tree_nodes": splits.height,
        }
        t = time.perf_counter()
        try:
            again = pa.mondrian(other, qis, 5, other_hs, splits=splits)
        except pa.AnonError as e:
            refused = f"{type(e).__name__}: {str(e)[:300]}"
            cell.update(reapply_s=round(time.perf_counter() - t, 3), refused=refused)
            try:
                coarse = pa.mondrian(other, qis, 5, other_hs, splits=splits, coarsen=True)
            except pa.AnonError as e:
                cell["coarsened"] = f"{type(e).__name__}: {str(e)[:300]}"
            else:
                cell.update(coarsened_partitions=coarse.partitions, coarsened_loss=coarse.loss)
        else:
            cell.update(
                reapply_s=round(time.perf_counter() - t, 3),
                refused=None,
                reapplied_partitions=again.partitions,
                reapplied_loss=again.loss,
                recorded_loss=recorded.loss,
            )
        cells.append(cell)
    return cells


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="*", default=[1_000_000, 10_000_000])
    ap.add_argument("--k", type=int, nargs="+", default=[5, 100])
    ap.add_argument("--census", action="store_true")
    ap.add_argument("--out", type=Path, default=HERE / "mondrian_reapply.json")
    ap.add_argument("--cell", nargs=2, type=int, metavar=("ROWS", "K"))
    args = ap.parse_args()
    if args.cell:
        print(json.dumps(synth_cell(*args.cell)), flush=True)
        return
    cells: list[dict[str, Any]] = []
    for rows in args.rows:
        draw(rows, 0), draw(rows, 1)
        for k in args.k:
            cmd = [sys.executable, __file__, "--cell", str(rows), str(k)]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode:
                cells.append({"part": "synth", "rows": rows, "k": k, "error": done.stderr[-800:]})
            else:
                cells.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(cells[-1]), flush=True)
    if args.census:
        for cell in census():
            cells.append(cell)
            print(json.dumps(cell), flush=True)
    args.out.write_text(json.dumps({"cells": cells}, indent=1) + "\n")


if __name__ == "__main__":
    main()
