"""The time to the answer: the default search plus ``best("min_loss")``, and
``algorithm="optimal"``, on ARX's grid (Adult with 5, 7 and 9
quasi-identifiers, and cup; k = 2, 5, 10; suppression 0, 1, 5 and 10%).

Usage: ``python bench/answer.py [--repeat 5] [--out bench/answer.json]``

Each cell records, beside the median and best of ``--repeat`` warm calls
(from a DataFrame, so each includes building F0) of the answer, of
``optimal`` and of the complete search named (``incognito`` plus the same
``best``, what ``auto`` ran before it put the complete search off under
suppression): what the default search ran and its nodes checked, the
complete search's anonymous
nodes, the nodes ``best`` valued (in order of the loss's lower bound, until
none left can do better) and the chosen node and loss, with the same for
``optimal``. The node counts do not depend on the machine; the times do.

Ratios to ARX: ``*_vs_arx`` is our median over ARX's best. With ``--arx
bench/arx.json`` (written by ``arx.py``: ARX run on this machine, best of
its repeats) ARX's figures are that run's, and each cell also records ARX's
optimum (its levels, its loss, and our loss of its levels): the run to take
when ARX can be run beside this one. Without it, ARX's figures are the
reference table of bench/README (0 and 5% only), and ``*_day_adjusted``
divides by the day's factor (the calibration cell's best now over its best
in results.json); ``*_best_vs_arx_day_adjusted`` takes our best instead of
the median, as ARX's figure and the calibration are bests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import polars as pl

import polars_anon as pa
from polars_anon.inputs.params import max_suppressed

KS = (2, 5, 10)
SUPPRESSION = (0.0, 0.01, 0.05, 0.1)

# ARX 3.9.2's best warm ms on this machine kind (bench/README "Reference:
# ARX"), where it was measured: (table, k, suppression) -> ms
ARX_MS = {
    **{
        (t, k, 0.0): ms
        for k, row in ((2, (69, 66, 102)), (5, (32, 42, 65)), (10, (32, 31, 56)))
        for t, ms in zip(("adult5", "adult7", "adult9"), row, strict=True)
    },
    **{
        (t, k, 0.05): ms
        for k, row in ((2, (54, 317, 1603)), (5, (43, 248, 2237)), (10, (48, 201, 1443)))
        for t, ms in zip(("adult5", "adult7", "adult9"), row, strict=True)
    },
    **{("cup", k, 0.0): ms for k, ms in ((2, 96), (5, 102), (10, 107))},
    **{("cup", k, 0.05): ms for k, ms in ((2, 1485), (5, 1360), (10, 1359))},
}

# The machine's day: one cell of `results.json` timed again (the same work,
# its counters equal), against its best there (2026-11-24). Times on these
# machines move 2-3x between days; ARX's cannot be taken again here.
CALIBRATION = {"qis": 9, "k": 2, "suppression": 0.05, "ms_best_results_json": 82.21}


def tables() -> list[tuple[str, pl.DataFrame, dict[str, pa.Hierarchy], list[str]]]:
    adult, hs = pa.datasets.adult()
    df = adult.collect()
    out = [(f"adult{n}", df, hs, list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:n])) for n in (5, 7, 9)]
    cup, chs = pa.datasets.cup()
    out.append(("cup", cup.collect(), chs, list(pa.datasets.CUP_QUASI_IDENTIFIERS)))
    return out


def timed(f: Any, repeat: int) -> tuple[list[float], Any]:
    times, value = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        value = f()
        times.append((time.perf_counter() - t) * 1000)
    return times, value


def cell(
    df: pl.DataFrame, hs: dict[str, pa.Hierarchy], qis: list[str], k: int, sup: float, repeat: int
) -> dict[str, Any]:
    def answer() -> tuple[pa.SearchResult, dict[str, int]]:
        r = pa.search(df, qis, hs, k, sup, progress=False)
        return r, r.best("min_loss")

    def optimal() -> tuple[pa.SearchResult, dict[str, int]]:
        r = pa.search(df, qis, hs, k, sup, algorithm="optimal", progress=False)
        return r, r.best("min_loss")

    def complete() -> tuple[pa.SearchResult, dict[str, int]]:
        r = pa.search(df, qis, hs, k, sup, algorithm="incognito", progress=False)
        return r, r.best("min_loss")

    t_answer, (r, levels) = timed(answer, repeat)
    t_search, _ = timed(lambda: pa.search(df, qis, hs, k, sup, progress=False), repeat)
    t_optimal, (o, o_levels) = timed(optimal, repeat)
    t_complete, (_, c_levels) = timed(complete, repeat)
    # what the default search ran for the answer (under suppression the
    # optimal walk, the complete search put off), then the complete search
    # for the counts below
    algorithm, answer_checked = r.algorithm, r.stats.nodes_checked
    r._complete()
    nodes = [list(n) for n in r._nodes]
    # as `best` asks: with the records the search could suppress (none: only
    # the nodes of the least bound are valued)
    tuples = max_suppressed(sup, r._prep.rows)
    problem = r._prep.problem
    valued, _ = problem.best_of(nodes, k, [], "loss", None, tuples) if nodes else ([], None)
    loss = pa.check(df, qis, k, hs, levels, sup).loss
    return {
        "algorithm": algorithm,
        "answer_nodes_checked": answer_checked,
        "complete_nodes_checked": r.stats.nodes_checked,
        "anonymous_nodes": len(nodes),
        "nodes_valued_by_best": len(valued),
        "levels": levels,
        "loss": loss,
        "optimal_levels": o_levels,
        "optimal_loss": pa.check(df, qis, k, hs, o_levels, sup).loss,
        "optimal_nodes_checked": o.stats.nodes_checked,
        "search_ms_median": statistics.median(t_search),
        "answer_ms_median": statistics.median(t_answer),
        "answer_ms_best": min(t_answer),
        "optimal_ms_median": statistics.median(t_optimal),
        "optimal_ms_best": min(t_optimal),
        "complete_levels": c_levels,
        "complete_ms_median": statistics.median(t_complete),
        "complete_ms_best": min(t_complete),
    }


def calibration(repeat: int) -> dict[str, Any]:
    """CALIBRATION's cell timed now (Cube Incognito, best of `repeat` * 4)."""
    adult, hs = pa.datasets.adult()
    df = adult.collect()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[: CALIBRATION["qis"]])
    k, sup = CALIBRATION["k"], CALIBRATION["suppression"]

    def run() -> pa.SearchResult:
        return pa.search(df, qis, hs, k, sup, algorithm="incognito", progress=False)

    times, r = timed(run, repeat * 4)
    best = min(times)
    return {
        **CALIBRATION,
        "ms_best": best,
        "rows_rolled_up": r.stats.rows_rolled_up,
        "slower_than_results_json": best / CALIBRATION["ms_best_results_json"],
    }


def arx_run(path: Path) -> dict[tuple[str, int, float], dict[str, Any]]:
    """The cells of an `arx.py` run by (table, k, suppression)."""
    run = json.loads(path.read_text())
    return {(c["table"], c["k"], c["suppression"]): c for c in run["cells"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--arx", type=Path, help="ARX's figures from this machine (arx.py's JSON)")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("answer.json"))
    args = ap.parse_args()
    measured = arx_run(args.arx) if args.arx else None
    day = calibration(args.repeat)
    slower = day["slower_than_results_json"]
    print(f"calibration {day['ms_best']:.1f} ms ({slower:.2f}x the day of results.json)")
    cells = []
    for name, df, hs, qis in tables():
        for k in KS:
            for sup in SUPPRESSION:
                c = {"table": name, "k": k, "suppression": sup}
                c.update(cell(df, hs, qis, k, sup, args.repeat))
                if measured is not None:
                    a = measured[(name, k, sup)]
                    c["arx_ms"], c["arx_ms_median"] = a["ms_best"], a["ms_median"]
                    c["arx_levels"], c["arx_loss"] = a["levels"], float(a["loss"])
                    ours = pa.check(df, qis, k, hs, a["levels"], sup).loss
                    c["arx_levels_our_loss"] = ours
                    # ties: ARX may pick another node of the same loss
                    c["same_optimum_loss"] = abs(ours - c["loss"]) < 1e-9
                    for what in ("answer", "optimal", "complete"):
                        c[f"{what}_vs_arx"] = c[f"{what}_ms_median"] / a["ms_best"]
                arx = None if measured is not None else ARX_MS.get((name, k, sup))
                if arx is not None:
                    # also with the day's speed taken out: as if timed on
                    # the day of results.json
                    c["arx_ms"] = arx
                    for what in ("answer", "optimal", "complete"):
                        ratio = c[f"{what}_ms_median"] / arx
                        c[f"{what}_vs_arx"] = ratio
                        c[f"{what}_vs_arx_day_adjusted"] = ratio / slower
                        # like for like: ARX's figures and the calibration
                        # are each a best of several warm calls
                        best = c[f"{what}_ms_best"] / arx / slower
                        c[f"{what}_best_vs_arx_day_adjusted"] = best
                print(
                    f"{name:7} k={k:<2} sup={sup:<4} search {c['search_ms_median']:7.1f} ms  "
                    f"answer {c['answer_ms_median']:7.1f} ms  optimal {c['optimal_ms_median']:7.1f}"
                    f" ms  complete {c['complete_ms_median']:7.1f} ms  "
                    f"valued {c['nodes_valued_by_best']}/{c['anonymous_nodes']}"
                    + (f"  ARX {c['arx_ms']:7.1f} ms" if "arx_ms" in c else ""),
                    flush=True,
                )
                cells.append(c)
    source = str(args.arx) if args.arx else "bench/README reference table"
    out = {"calibration": day, "arx_figures": source, "cells": cells}
    args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
