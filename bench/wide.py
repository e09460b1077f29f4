"""Wide tables: the complete, optimal, heuristic, Datafly and mu-Argus
searches on the synthetic census table (``pa.datasets.census``: 100,000 rows,
10 to 40 quasi-identifiers), k = 5, suppression 0 and 1%.

    python bench/wide.py [--out bench/wide.json] [--rows 100000]

Each cell runs in its own process, so its peak RSS (VmHWM) is its own. The
JSON keeps the deterministic work counters (nodes checked and marked) beside
the noisy times. The optimal search gets 120 s, the heuristic its default 10 s;
the complete search is tried where the lattice has at most 1e8 nodes (past
its 2 GiB memory budget it is refused, and the cell says so); mu-Argus runs
up to 15 quasi-identifiers (it groups F0 once per tested 2- or 3-combination
per round: thousands of combinations at 40).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

WIDTHS = (10, 12, 15, 20, 30, 40)
SUPPRESSION = (0.0, 0.01)
ALGORITHMS = ("incognito", "optimal", "heuristic", "datafly", "mu_argus")


def peak_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cell(rows: int, n: int, sup: float, algorithm: str) -> dict[str, object]:
    import polars_anon as pa

    lf, hs = pa.datasets.census(rows, n)
    df = lf.collect()
    qis = list(hs)
    t = time.perf_counter()
    limit = {"optimal": 120.0}.get(algorithm)
    try:
        r = pa.search(df, qis, hs, 5, sup, algorithm=algorithm, time_limit=limit, progress=False)
    except pa.SearchTooLargeError as e:
        return {"refused": str(e).split(";")[0]}
    seconds = time.perf_counter() - t
    best = r.best("min_loss")
    own = getattr(r, "mu_argus", None)
    row = r.anonymous.filter(**best)
    return {
        "seconds": round(seconds, 3),
        "loss": own.loss if own is not None else float(row.get_column("loss").item()),
        "k_reached": own.k_reached if own is not None else 5,
        "suppressed": int(row.get_column("suppressed").item()) if own is None else 0,
        "cells_suppressed": own.cells_suppressed if own is not None else 0,
        "nodes_checked": r.stats.nodes_checked,
        "nodes_marked": r.stats.nodes_marked,
        "proven_optimal": r.proven_optimal,
        "stopped": r.stopped,
        "peak_rss_mib": round(peak_rss_mib(), 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "wide.json")
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--cell", nargs=3, metavar=("N", "SUP", "ALGORITHM"))
    p.add_argument(
        "--algorithms",
        nargs="+",
        default=list(ALGORITHMS),
        help="run these again and keep the other cells of --out",
    )
    args = p.parse_args()
    if args.cell:
        n, sup, algorithm = int(args.cell[0]), float(args.cell[1]), args.cell[2]
        print(json.dumps(cell(args.rows, n, sup, algorithm)))
        return
    import polars_anon as pa

    results = []
    for n in WIDTHS:
        _, hs = pa.datasets.census(100, n)
        nodes = math.prod(h.height + 1 for h in hs.values())
        for sup in SUPPRESSION:
            for algorithm in args.algorithms:
                if (
                    (algorithm == "incognito" and nodes > 1e8)
                    or (algorithm == "optimal" and n > 15)
                    or (algorithm == "mu_argus" and n > 15)
                ):
                    continue
                out = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--rows",
                        str(args.rows),
                        "--cell",
                        str(n),
                        str(sup),
                        algorithm,
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                got = json.loads(out.stdout.strip().splitlines()[-1])
                entry = {
                    "quasi_identifiers": n,
                    "lattice_nodes": float(nodes),
                    "max_suppression": sup,
                    "algorithm": algorithm,
                    **got,
                }
                print(json.dumps(entry), flush=True)
                results.append(entry)
    if args.out.exists() and set(args.algorithms) != set(ALGORITHMS):
        kept = [
            c
            for c in json.loads(args.out.read_text())["cells"]
            if c["algorithm"] not in args.algorithms
        ]
        results = sorted(
            kept + results,
            key=lambda c: (
                c["quasi_identifiers"],
                c["max_suppression"],
                ALGORITHMS.index(c["algorithm"]),
            ),
        )
    args.out.write_text(json.dumps({"rows": args.rows, "k": 5, "cells": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
