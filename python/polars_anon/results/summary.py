"""What a search result shows, row by row (`polars_anon.reports.render`
lays the rows out as text and HTML)."""

from __future__ import annotations

from typing import Any, Protocol

from polars_anon._core import SearchStats
from polars_anon.criteria.base import Criterion
from polars_anon.inputs.params import suppression_share
from polars_anon.reports.render import levels_table
from polars_anon.results.best import WALKS


class Searched(Protocol):
    """The figures of a search that its summary reads."""

    algorithm: str
    variant: str | None
    reason: str | None
    metric: str
    proven_optimal: bool
    complete: bool
    k: int
    criteria: list[Criterion]
    max_suppression: int
    suppression: int | float
    quasi_identifiers: list[str]
    stopped: str | None
    stats: SearchStats


def rows(
    result: Searched,
    nodes: list[list[int]],
    minimal: list[list[int]],
    floors: tuple[list[int], int] | None,
    heights: list[int],
    put_off: bool = False,
    table_rows: int = 0,
) -> list[tuple[str, Any]]:
    """The rows of a search's summary: its `nodes` (anonymous ones) and the
    `minimal` ones among them, and, where F0 was grouped at floor levels,
    those levels and F0's rows there (`floors`). A quasi-identifier of no
    hierarchy (or one of height 0) is named: it is never generalized, which
    a user who forgot its hierarchy would otherwise not see. `put_off`: the
    complete search is yet to run (`polars_anon.results.call`), and
    `minimal` holds the optimal walk's nodes of the best value; `table_rows`:
    the rows searched (of which a fraction's budget is a share)."""
    r, s = result, result.stats
    share = suppression_share(r.suppression, r.max_suppression, table_rows)
    found: list[tuple[str, Any]]
    if put_off:
        found = [
            (
                "anonymous generalizations",
                "not listed: the optimal walk found the optimum without them",
            ),
            (
                f"optimum ({min(5, len(minimal))} of {len(minimal)})",
                levels_table(r.quasi_identifiers, minimal[:5]),
            ),
        ]
    else:
        found = [
            (
                "anonymous generalizations",
                len(nodes) if r.complete else f"{len(nodes)} (of those evaluated)",
            ),
            (
                # a walk's `minimal` are its nodes of the best value, not k-minimal;
                # a walk stopped before it proved them optimal found them only
                f"{_best(r)} ({min(5, len(minimal))} of {len(minimal)})",
                levels_table(r.quasi_identifiers, minimal[:5]),
            ),
        ]
    name = r.algorithm + (f" ({r.variant})" if r.variant else "")
    flat = [q for q, h in zip(r.quasi_identifiers, heights, strict=True) if h == 0]
    return [
        ("algorithm", name),
        *([("chosen because", r.reason)] if r.reason else []),
        *(
            [
                (
                    "optimum",
                    f"{r.metric}: " + ("proven" if r.proven_optimal else "not proven (best found)"),
                )
            ]
            if not r.complete or put_off
            else []
        ),
        ("k", r.k),
        *([("criteria", "; ".join(c.describe() for c in r.criteria))] if r.criteria else []),
        ("max suppression", f"{r.max_suppression:,}" + (f" ({share})" if share else "")),
        ("quasi-identifiers", ", ".join(r.quasi_identifiers)),
        *(
            [("kept as they are", f"{', '.join(flat)} (no hierarchy, or one of height 0)")]
            if flat
            else []
        ),
        *(
            [("stopped", f"{r.stopped}: the nodes below are those confirmed so far")]
            if r.stopped
            else []
        ),
        *found,
        (
            "nodes checked / marked / projected",
            f"{s.nodes_checked:,} / {s.nodes_marked:,} / {s.nodes_projected:,}",
        ),
        ("table scans", s.table_scans),
        *_floor_rows(r.quasi_identifiers, floors),
        ("time (ms)", _time(s.phase_ms.get("total", 0.0), getattr(r, "_walk_ms", None))),
    ]


def _best(r: Searched) -> str:
    """The title of the nodes a search answers: a complete search's
    k-minimal nodes, a walk's optimum, or the best it found."""
    if r.algorithm not in WALKS:
        return "minimal"
    return "optimum" if r.proven_optimal else "best found"


def _time(total: float, walk_ms: float | None) -> float | str:
    """A search's time, and the optimal walk's before it where auto put
    the complete search off and it ran since (`results.call`)."""
    if walk_ms is None:
        return round(total, 1)
    return f"{round(total, 1)} (after the optimal walk's {round(walk_ms, 1)})"


def _floor_rows(
    quasi_identifiers: list[str], floors: tuple[list[int], int] | None
) -> list[tuple[str, Any]]:
    """Where F0 was grouped at floor levels (DuckDB, Spark): which, and
    its rows, so that a user sees why no node below them is listed."""
    if floors is None:
        return []
    levels, distinct = floors
    raised = [f"{q} {f}" for q, f in zip(quasi_identifiers, levels, strict=True) if f]
    return [("frequency set at floor levels", f"{', '.join(raised)} ({distinct:,} rows)")]
