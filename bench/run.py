"""Time the searches on the Adult grid (and, on request, end to end and on
synthetic data) and write ``bench/results.json`` and ``bench/results.png``.

Usage: ``python bench/run.py [--repeat 5] [--sizes 3 4 5 6 7 8 9] [--e2e] [--cup]
[--prepare] [--synthetic 10000000 ...] [--out bench/results.json]``

Each cell is timed in a warm process (the data is loaded once) and reports the
minimum and median wall time of the search call over ``--repeat`` rounds of the
whole grid (one call per cell a round), with the search's own counts (nodes
checked, marked and projected, table scans, rows rolled up). No test asserts on
these numbers; they are for comparison with ARX and between our algorithms.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
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
    parser.add_argument(
        "--e2e", action="store_true", help="fresh-process end-to-end runs (Adult and cup)"
    )
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="building F0 from an in-memory table, per value (Adult and cup)",
    )
    parser.add_argument(
        "--cup",
        action="store_true",
        help="also ARX's cup table (7 QIs, k 2/5/10, 0%% and 5%%) with each search",
    )
    parser.add_argument(
        "--synthetic",
        type=int,
        nargs="*",
        default=[],
        help="row counts of synthetic Adult to scan and search (8 QIs, k=10)",
    )
    args = parser.parse_args()
    searches = SEARCHES
    if args.algorithms:
        searches = [
            (a.split(":")[0], a.split(":")[1] if ":" in a else None) for a in args.algorithms
        ]
    lf, hs = pa.datasets.adult()
    tables = {"adult": (lf.collect(), hs, list(pa.datasets.ADULT_QUASI_IDENTIFIERS))}
    cells: list[dict[str, Any]] = []
    grid = [("adult", sup, k, n) for sup in args.suppression for k in args.k for n in args.sizes]
    if args.cup:
        cup, cup_hs = pa.datasets.cup()
        tables["cup"] = (cup.collect(), cup_hs, list(pa.datasets.CUP_QUASI_IDENTIFIERS))
        grid += [("cup", sup, k, 7) for sup in args.suppression for k in args.k]
    for algorithm, variant in searches:
        # Rounds over the whole grid rather than a cell's repeats back to back:
        # this machine is shared and slows down in bursts of seconds, which
        # would otherwise fall on every repeat of the cells it meets.
        times: dict[tuple[str, float, int, int], list[float]] = {c: [] for c in grid}
        results: dict[tuple[str, float, int, int], Any] = {}
        for _ in range(args.repeat):
            for cell_key in grid:
                table, sup, k, n = cell_key
                df, hs, qis_all = tables[table]
                t = time.perf_counter()
                results[cell_key] = pa.search(
                    df,
                    qis_all[:n],
                    hs,
                    k,
                    sup,
                    algorithm=algorithm,
                    variant=variant,
                    progress=False,
                )
                times[cell_key].append((time.perf_counter() - t) * 1e3)
        for cell_key in grid:
            table, sup, k, n = cell_key
            result = results[cell_key]
            cell = {
                "dataset": table,
                "algorithm": algorithm,
                "variant": variant,
                "k": k,
                "suppression": sup,
                "qi_size": n,
                "min_ms": round(min(times[cell_key]), 2),
                "median_ms": round(statistics.median(times[cell_key]), 2),
                "anonymous": result.anonymous.height if result.complete else None,
                **{
                    key: getattr(result.stats, key)
                    for key in (
                        "nodes_checked",
                        "nodes_marked",
                        "nodes_projected",
                        "table_scans",
                        "rows_rolled_up",
                    )
                },
            }
            cells.append(cell)
            print(json.dumps(cell))
    extra: dict[str, Any] = {}
    if args.e2e:
        extra["end_to_end"] = [end_to_end(name, args.repeat) for name in ("adult", "cup")]
    if args.prepare:
        extra["prepare"] = [prepare_f0(name) for name in ("adult", "cup")]
    if args.synthetic:
        extra["synthetic"] = [synthetic(n) for n in args.synthetic]
    out = {
        **extra,
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
    if cells:
        plot(cells, args.out.with_suffix(".png"))


E2E = """
import json, time; t = [time.perf_counter()]
import polars as pl; t.append(time.perf_counter())
import polars_anon as pa; t.append(time.perf_counter())
lf, hs = pa.datasets.{name}(); t.append(time.perf_counter())
qis = list(pa.datasets.{name_upper}_QUASI_IDENTIFIERS)
r = pa.search(lf, qis, hs, 5, progress=False); t.append(time.perf_counter())
release = r.apply(); t.append(time.perf_counter())
release.sink_parquet({out!r}); t.append(time.perf_counter())
steps = ("import polars", "import polars_anon", "load", "search", "apply", "sink")
print(json.dumps(dict(zip(steps, [(b - a) * 1e3 for a, b in zip(t, t[1:])]))))
print(t[-1] - t[0])
"""


def end_to_end(name: str, repeat: int) -> dict[str, Any]:
    """A fresh Python process: import, read the CSV, search (k = 5 on every
    quasi-identifier), apply, write Parquet; beside it, a fresh process that
    only imports Polars, the floor under any such run."""
    out = Path(__file__).parent / "out" / f"{name}_k5.parquet"
    out.parent.mkdir(exist_ok=True)
    code = E2E.format(name=name, name_upper=name.upper(), out=str(out))
    # as an installed package is: with its modules' bytecode cached (pip
    # compiles it at install; an editable install caches it on first import,
    # unless PYTHONDONTWRITEBYTECODE is set, as on this project's machines,
    # where every run compiled them again: ~12 ms)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=env)
    walls, inner, floor, steps = [], [], [], []
    for _ in range(repeat):
        t = time.perf_counter()
        res = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        )
        walls.append(time.perf_counter() - t)
        lines = res.stdout.strip().splitlines()
        inner.append(float(lines[-1]))
        steps.append(json.loads(lines[-2]))
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import polars"], check=True)
        floor.append(time.perf_counter() - t)
    cell = {
        "what": f"{name} k=5, all QIs: import, read CSV, search, apply, write Parquet",
        "process_wall_s_min": round(min(walls), 3),
        "process_wall_s_median": round(statistics.median(walls), 3),
        "in_process_s_min": round(min(inner), 3),
        "import_polars_process_wall_s_min": round(min(floor), 3),
        # where a run's time goes, inside the process (its start and exit
        # are the rest of the wall time)
        "steps_ms_median": {k: round(statistics.median(s[k] for s in steps), 1) for k in steps[0]},
    }
    print(json.dumps(cell))
    return cell


def prepare_f0(name: str, rounds: int = 5, calls: int = 200) -> dict[str, Any]:
    """Building F0 from an in-memory table (what every search and check of a
    DataFrame starts with): best time of `calls` calls, in `rounds` rounds."""
    from polars_anon.prepare.f0 import prepare

    lf, hs = getattr(pa.datasets, name)()
    df = lf.collect()
    qis = list(getattr(pa.datasets, f"{name.upper()}_QUASI_IDENTIFIERS"))
    best = []
    for _ in range(rounds):
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            prep = prepare(df, qis, hs)
            times.append(time.perf_counter() - t)
        best.append(min(times))
    values = df.height * len(qis)
    cell = {
        "dataset": name,
        "rows": df.height,
        "quasi_identifiers": len(qis),
        "distinct": prep.problem.distinct,
        "best_ms_per_round": [round(b * 1e3, 3) for b in best],
        "ns_per_value": round(min(best) / values * 1e9, 2),
    }
    print(json.dumps(cell))
    return cell


SYNTH = """
import json, time, glob
import polars as pl, polars_anon as pa

def peak_mib():
    # VmHWM belongs to this process's address space; ru_maxrss would carry
    # over the parent's high-water mark across fork and exec
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM")) / 1024

_, hs = pa.datasets.adult()
qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)[:8]
src = {src!r}
t = time.perf_counter()
n = pl.scan_parquet(src).group_by(qis).len().collect(engine="streaming").height
scan = time.perf_counter() - t
t = time.perf_counter()
r = pa.search(pl.scan_parquet(src), qis, hs, 10, progress=False)
search = time.perf_counter() - t
print(json.dumps({{"distinct": n, "scan_s": scan, "search_s": search,
                  "anonymous": r.anonymous.height, "nodes_checked": r.stats.nodes_checked,
                  "peak_rss_mib": peak_mib()}}))
"""


def synthetic(rows: int) -> dict[str, Any]:
    """One group-by-count scan of the file (the floor) against Cube Incognito k=10
    on 8 QIs from the same file, in a fresh process that reports its peak RSS."""
    sys.path.insert(0, str(Path(__file__).parent))
    import synth

    path = Path(__file__).parent / "out" / f"adult_{rows}"
    if not path.exists() and not path.with_suffix(".parquet").exists():
        synth.write(rows, path.with_suffix(".parquet") if rows <= 10_000_000 else path)
    src = str(path.with_suffix(".parquet")) if rows <= 10_000_000 else str(path / "*.parquet")
    res = subprocess.run(
        [sys.executable, "-c", SYNTH.format(src=src)], check=True, capture_output=True, text=True
    )
    cell = {"rows": rows, **json.loads(res.stdout.strip().splitlines()[-1])}
    cell["search_over_scan"] = round(cell["search_s"] / cell["scan_s"], 2)
    print(json.dumps(cell))
    return cell


def plot(cells: list[dict[str, Any]], path: Path) -> None:
    """Time vs QI size per algorithm (as the paper's Figure 10) and vs k (Figure 11)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def name(c: dict[str, Any]) -> str:
        return c["algorithm"] + (f" ({c['variant']})" if c["variant"] else "")

    cells = [c for c in cells if c.get("dataset", "adult") == "adult"]
    names = sorted({name(c) for c in cells})

    def panel(ax: Any, x: str, keep: Any, title: str) -> None:
        """One line per algorithm: min time against `x`, over the 0% cells kept."""
        for nm in names:
            pts = sorted(
                (c[x], c["min_ms"])
                for c in cells
                if name(c) == nm and c["suppression"] == 0 and keep(c)
            )
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", label=nm)
        ax.set(
            title=title, xlabel="QI size" if x == "qi_size" else x, ylabel="ms (min)", yscale="log"
        )

    ks = sorted({c["k"] for c in cells})
    n_max = max(c["qi_size"] for c in cells)
    fig, axes = plt.subplots(1, len(ks) + 1, figsize=(5 * (len(ks) + 1), 4))
    for ax, k in zip(axes, ks, strict=False):
        panel(ax, "qi_size", lambda c, k=k: c["k"] == k, f"Adult, k={k}, no suppression")
    panel(axes[-1], "k", lambda c: c["qi_size"] == n_max, f"Adult, QI size {n_max}, no suppression")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
