"""The time to the answer: the default search plus ``best("min_loss")``, and
``algorithm="optimal"``, on ARX's grid (Adult with 5, 7 and 9
quasi-identifiers, and cup; k = 2, 5, 10; suppression 0, 1, 5 and 10%).

Usage: ``python bench/answer.py [--repeat 5] [--out bench/answer.json]``

Each cell records, beside the median and best of ``--repeat`` warm calls
(from a DataFrame, so each includes building F0): the search's anonymous
nodes, the nodes ``best`` valued (in order of the loss's lower bound, until
none left can do better) and the chosen node and loss, with the same for
``optimal``. The node counts do not depend on the machine; the times do.
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

KS = (2, 5, 10)
SUPPRESSION = (0.0, 0.01, 0.05, 0.1)


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

    t_answer, (r, levels) = timed(answer, repeat)
    t_search, _ = timed(lambda: pa.search(df, qis, hs, k, sup, progress=False), repeat)
    t_optimal, (o, o_levels) = timed(optimal, repeat)
    nodes = [list(n) for n in r._nodes]
    valued, _ = r._prep.problem.best_of(nodes, k, [], "loss") if nodes else ([], None)
    loss = pa.check(df, qis, k, hs, levels, sup).loss
    return {
        "algorithm": r.algorithm,
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
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("answer.json"))
    args = ap.parse_args()
    cells = []
    for name, df, hs, qis in tables():
        for k in KS:
            for sup in SUPPRESSION:
                c = {"table": name, "k": k, "suppression": sup}
                c.update(cell(df, hs, qis, k, sup, args.repeat))
                print(
                    f"{name:7} k={k:<2} sup={sup:<4} search {c['search_ms_median']:7.1f} ms  "
                    f"answer {c['answer_ms_median']:7.1f} ms  optimal {c['optimal_ms_median']:7.1f}"
                    f" ms  valued {c['nodes_valued_by_best']}/{c['anonymous_nodes']}",
                    flush=True,
                )
                cells.append(c)
    args.out.write_text(json.dumps({"cells": cells}, indent=1) + "\n")


if __name__ == "__main__":
    main()
