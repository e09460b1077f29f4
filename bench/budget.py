"""Memory budgets (issue #27): peak RSS against ``memory_budget`` for every
search on the synthetic census table (``pa.datasets.census``) at 20, 25 and
30 quasi-identifiers, 100,000 rows, k = 5, 1% suppression, budgets of 256 MiB,
1 GiB and 2 GiB. The requirement: peak RSS at most the budget plus 512 MiB
(``SLACK_MIB``), or a refusal with ``SearchTooLargeError`` before that.

``--table skewed``: the same on a table the budgets were not tuned on,
``bench/skewed.py``'s seeded string quasi-identifiers (``skewed.make(rows,
n)``, seed 7: 2 to 3,000 Zipf-skewed values a column, hierarchy heights 1 to
6, fan-outs 2 to 5).

    python bench/budget.py [--out bench/budget.json] [--table census|skewed]
        [--rows 100000] [--widths 20 25 30] [--budgets 256M 1G 2G] [--suppression 0.01]
        [--algorithms incognito/cube ... auto] [--time-limit 30]
        [--cell-timeout 300] [--rss-cap 4G] [--note TEXT] [--keep]

Searches: every algorithm of ``polars_anon.api.search.ALGORITHMS`` in each of
its variants (``incognito/cube``, ``incognito/super_roots``,
``incognito/basic``, ``samarati``, ``bottom_up/rollup``,
``bottom_up/no_rollup``, ``mingen``, ``datafly``, ``optimal``,
``heuristic``), then ``auto``. The anytime searches (optimal, heuristic,
auto) get ``time_limit=--time-limit`` so that they end; the others run until
they answer, are refused, or the cell is killed.

Each cell runs in its own process: the table is generated, collected and
prepared as ``pa.search`` prepares it (F0 at the floors, Datafly from the
raw values), its RSS taken (``baseline``), then the search of the prepared
table with ``memory_budget`` is timed (``seconds``). ``peak_rss_mib`` is the
process's ``VmHWM`` at its end: the whole process, table included, which is
what the bound is read against (``within_bound``: at most budget + 512 MiB;
``over_budget_mib``: peak - budget). The parent also polls the child's
``/proc/<pid>/status`` every ``POLL_S`` seconds (``polled_max_rss_mib``, the
largest ``VmRSS`` seen; ``polled_hwm_mib``, its last ``VmHWM``), which is all
there is for a cell killed after ``--cell-timeout`` seconds, or once its RSS
passes ``--rss-cap`` (so that a search that ignores its budget does not take
the machine; the cap is above every bound, so such a cell has failed it
already). ``crossed_bound_s``: when the polled RSS first passed budget +
512 MiB, from the child's start. ``outcome``: ``answered``, ``refused:
SearchTooLargeError`` (``message``: its first 200 characters), ``error:
<type>: <message>``, ``killed at timeout`` or ``killed at RSS cap``. For an answer: the search run
(auto's pick), whether it stopped, was complete or proven optimal, the number
of anonymous nodes it returned (counted from the raw answer, without
computing their figures) and the work counters of ``r.stats``. The load
average (``os.getloadavg()``) is kept at the start and end of each cell: the
times depend on it, the peaks and counters do not.

Each cell records its ``table``. ``--keep``: cells already in ``--out`` that
this run does not make are kept (a cell is its table, rows, width, search and
budget, so census and skewed cells sit side by side; cells from before
``--table`` are census).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from machine import STATS, machine

WIDTHS = (20, 25, 30)
ROWS = 100_000
BUDGETS = ("256M", "1G", "2G")
K = 5
SUPPRESSION = 0.01
TIME_LIMIT = 30.0
CELL_TIMEOUT = 300.0
RSS_CAP = "4G"
TABLES = ("census", "skewed")
# the allowance over the budget: the table, F0 and the interpreter
SLACK_MIB = 512
POLL_S = 0.2
ANYTIME = ("optimal", "heuristic", "auto")


def searches() -> list[str]:
    """Every registered algorithm in each variant ("name/variant"), then auto."""
    from polars_anon.api.search import VARIANTS

    out = []
    for name, variants in VARIANTS.items():
        out += [f"{name}/{v}" for v in variants] if variants else [name]
    return [*out, "auto"]


def to_bytes(text: str) -> int:
    """``256M``, ``1G``, ``512K`` or a number of bytes (powers of 2^10)."""
    m = re.fullmatch(r"(\d+)([KMG]?)i?B?", text.strip(), re.IGNORECASE)
    if m is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}")
    power = " KMG".index(m.group(2).upper() or " ")
    return int(m.group(1)) << (10 * power)


def status_kib(pid: int | str = "self") -> dict[str, int]:
    """VmRSS and VmHWM (KiB) of a process; empty once it is gone."""
    out = {}
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        if line.startswith(("VmRSS:", "VmHWM:")):
            out[line[:5]] = int(line.split()[1])
    return out


def mib(kib: int | None) -> float | None:
    return None if kib is None else round(kib / 1024, 1)


def cell(
    table: str, rows: int, n: int, search: str, budget: int, sup: float, limit: float | None
) -> dict[str, Any]:
    """One cell, in this process: the table made and prepared, then the search."""
    import polars_anon as pa
    from polars_anon.api.search import searched
    from polars_anon.prepare.f0 import prepare

    algorithm, _, variant = search.partition("/")
    t = time.perf_counter()
    if table == "skewed":
        from skewed import make

        df, hs = make(rows, n)
    else:
        lf, hs = pa.datasets.census(rows, n)
        df = lf.collect()
    qis = list(hs)
    floors = None if algorithm == "datafly" else (K, sup)
    prep = prepare(df, qis, hs, (), "error", floors_for=floors)
    now = status_kib()
    out: dict[str, Any] = {
        "prepare_s": round(time.perf_counter() - t, 3),
        "baseline_rss_mib": mib(now.get("VmRSS")),
        "baseline_hwm_mib": mib(now.get("VmHWM")),
    }
    # the parent keeps this line if the cell is killed
    print(json.dumps(out), flush=True)
    t = time.perf_counter()
    try:
        r = searched(
            prep,
            K,
            sup,
            algorithm,
            variant or None,
            time_limit=limit,
            memory_budget=budget,
            progress=False,
        )
    except pa.SearchTooLargeError as e:
        out.update(outcome="refused: SearchTooLargeError", message=str(e)[:200])
    except Exception as e:
        out.update(outcome=f"error: {type(e).__name__}: {str(e)[:200]}")
    else:
        out.update(
            outcome="answered",
            algorithm_run=r.algorithm,
            variant_run=r.variant,
            reason=r.reason,
            stopped=r.stopped,
            complete=r.complete,
            proven_optimal=r.proven_optimal,
            # the raw answer's length: r.anonymous would compute every node's figures
            anonymous_nodes=len(r._nodes),
            stats={f: getattr(r.stats, f) for f in STATS},
            candidates_per_iteration=r.stats.candidates_per_iteration,
        )
    out["seconds"] = round(time.perf_counter() - t, 3)
    out["peak_rss_mib"] = mib(status_kib().get("VmHWM"))
    out["load_average_end"] = os.getloadavg()
    return out


def run_cell(cmd: list[str], timeout: float, bound_kib: int, cap_kib: int) -> dict[str, Any]:
    """`cmd` in a child process, its RSS polled, killed after `timeout` seconds
    or past `cap_kib`."""
    entry: dict[str, Any] = {}
    rss = hwm = 0
    crossed = None
    with tempfile.TemporaryFile("w+") as so, tempfile.TemporaryFile("w+") as se:
        t = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=so, stderr=se, text=True)
        killed = None
        while child.poll() is None:
            now = status_kib(child.pid)
            rss, hwm = max(rss, now.get("VmRSS", 0)), max(hwm, now.get("VmHWM", 0))
            if crossed is None and rss > bound_kib:
                crossed = round(time.perf_counter() - t, 1)
            if rss > cap_kib:
                killed = "killed at RSS cap"
            elif time.perf_counter() - t > timeout:
                killed = "killed at timeout"
            if killed:
                child.kill()
                break
            time.sleep(POLL_S)
        child.wait()
        entry["process_s"] = round(time.perf_counter() - t, 3)
        so.seek(0)
        se.seek(0)
        lines = [json.loads(x) for x in so.read().splitlines() if x.startswith("{")]
        stderr = se.read()
    for got in lines:
        entry.update(got)
    entry.update(polled_max_rss_mib=mib(rss), polled_hwm_mib=mib(hwm), crossed_bound_s=crossed)
    if killed:
        entry["outcome"] = killed
    elif child.returncode != 0 or "outcome" not in entry:
        entry.update(outcome=f"error: exit {child.returncode}", stderr=stderr[-2000:])
    return entry


def bound(entry: dict[str, Any]) -> None:
    """The cell read against the bound: its own VmHWM, else the polled one."""
    peak = entry.get("peak_rss_mib") or entry.get("polled_hwm_mib")
    if not peak:
        return
    budget_mib = entry["memory_budget"] / 2**20
    entry["over_budget_mib"] = round(peak - budget_mib, 1)
    entry["within_bound"] = peak <= budget_mib + SLACK_MIB


def key(c: dict[str, Any]) -> tuple[Any, ...]:
    return (c["table"], c["rows"], c["quasi_identifiers"], c["search"], c["memory_budget"])


def main() -> None:
    every = searches()
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "budget.json")
    p.add_argument("--table", choices=TABLES, default=TABLES[0])
    p.add_argument("--rows", type=int, default=ROWS)
    p.add_argument("--widths", type=int, nargs="+", default=list(WIDTHS))
    p.add_argument("--budgets", nargs="+", default=list(BUDGETS))
    p.add_argument("--suppression", type=float, default=SUPPRESSION)
    p.add_argument(
        "--algorithms",
        nargs="+",
        default=every,
        help="searches, as name/variant or a name for all its variants",
    )
    p.add_argument("--time-limit", type=float, default=TIME_LIMIT)
    p.add_argument("--cell-timeout", type=float, default=CELL_TIMEOUT)
    p.add_argument("--rss-cap", default=RSS_CAP, help="kill a cell past this RSS")
    p.add_argument("--note", default=None)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--cell", nargs=5, metavar=("ROWS", "N", "SEARCH", "BUDGET", "LIMIT"))
    args = p.parse_args()
    if args.cell:
        rows, n, search, budget, limit = args.cell
        got = cell(
            args.table,
            int(rows),
            int(n),
            search,
            int(budget),
            args.suppression,
            None if limit == "none" else float(limit),
        )
        print(json.dumps(got), flush=True)
        return
    chosen = [s for s in every if s in args.algorithms or s.split("/")[0] in args.algorithms]
    unknown = set(args.algorithms) - set(chosen) - {s.split("/")[0] for s in chosen}
    if unknown:
        p.error(f"unknown searches {sorted(unknown)}; expected some of {every}")
    budgets = [to_bytes(b) for b in args.budgets]
    results: list[dict[str, Any]] = []
    note = args.note
    if args.keep and args.out.exists():
        old = json.loads(args.out.read_text())
        results, note = old["cells"], note or old.get("note")
        for c in results:
            c.setdefault("table", "census")
    command = " ".join(["python", *sys.argv])
    for n in args.widths:
        for search in chosen:
            for budget in budgets:
                algorithm, _, variant = search.partition("/")
                limit = args.time_limit if algorithm in ANYTIME else None
                entry: dict[str, Any] = {
                    "table": args.table,
                    "search": search,
                    "algorithm": algorithm,
                    "variant": variant or None,
                    "quasi_identifiers": n,
                    "rows": args.rows,
                    "memory_budget": budget,
                    "time_limit": limit,
                    "load_average_start": os.getloadavg(),
                }
                cmd = [sys.executable, __file__, "--suppression", str(args.suppression)]
                cmd += ["--table", args.table]
                cmd += ["--cell", str(args.rows), str(n), search, str(budget)]
                cmd.append("none" if limit is None else str(limit))
                bound_kib = (budget >> 10) + SLACK_MIB * 1024
                cap_kib = to_bytes(args.rss_cap) >> 10
                entry.update(run_cell(cmd, args.cell_timeout, bound_kib, cap_kib))
                bound(entry)
                short = ("stats", "candidates_per_iteration", "reason", "message")
                print(json.dumps({k: v for k, v in entry.items() if k not in short}), flush=True)
                results = [c for c in results if key(c) != key(entry)] + [entry]
                results.sort(
                    key=lambda c: (
                        TABLES.index(c["table"]),
                        c["rows"],
                        c["quasi_identifiers"],
                        every.index(c["search"]),
                        c["memory_budget"],
                    )
                )
                args.out.write_text(
                    json.dumps(
                        {
                            "command": command,
                            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                            "machine": machine(),
                            "k": K,
                            "max_suppression": args.suppression,
                            "slack_mib": SLACK_MIB,
                            "cell_timeout_s": args.cell_timeout,
                            "rss_cap": args.rss_cap,
                            "note": note,
                            "cells": results,
                        },
                        indent=1,
                    )
                    + "\n"
                )


if __name__ == "__main__":
    main()
