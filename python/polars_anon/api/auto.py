"""What ``algorithm="auto"`` runs: by the lattice's size, the complete
search, the optimal search or the heuristic; and where a criterion is not
monotone (the searches that infer nodes would refuse it), MinGen, which
checks every node, up to the complete search's size, and Datafly beyond.
Under suppression, and without it where nearly every record is distinct on
the quasi-identifiers, the complete search is put off (`walk_first`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from polars_anon.criteria.base import Criterion
from polars_anon.results.best import OF_METRIC, WALKS

if TYPE_CHECKING:
    from polars_anon.prepare.prepared import Prepared

# algorithm="auto": the complete search up to this many lattice nodes, the
# optimal search up to AUTO_OPTIMAL, the heuristic beyond (bench/wide.py and
# bench/README.md: the complete search's time and memory follow the lattice;
# the optimal search's follow the nodes below the optimum)
AUTO_COMPLETE = 1_000_000

AUTO_OPTIMAL = 10**8


def pick(heights: Sequence[int], criteria: list[Criterion], suppressing: bool) -> tuple[str, str]:
    """The algorithm `auto` runs for a lattice of these heights and these
    criteria (`suppressing`: with max_suppression), and why."""
    algorithm, reason = by_size(heights)
    bent = [c for c in criteria if not (c.monotone_with_suppression if suppressing else c.monotone)]
    if not bent:
        return algorithm, reason
    # the searches that infer nodes refuse it: every node checked where the
    # complete search would run, else Datafly's path (each node on it checked)
    why = (
        f"{reason.split(':')[0]}; {type(bent[0]).__name__} is not monotone"
        f"{' with suppression' if suppressing else ''}"
    )
    if algorithm == "incognito":
        return "mingen", f"{why}: every node is checked (mingen)"
    return "datafly", f"{why}, and MinGen would check every node: Datafly's path, one node"


# the metrics whose optimal walk is exact under suppression (tests/test_optimal.py
# checks each against every node of random lattices)
WALKED = ("loss", "height", "precision")

# Without suppression the walk answers first where F0 (the distinct records
# as the searches read them: `walk_first`) holds at least this share of the
# rows. There the complete search's rollups barely shrink the sets they
# read, while most of the walk's checks fail and stop early: 0.2-0.6x the
# complete search's time on the census and uniform tables of
# bench/auto_zero.py, 1.0-1.3x on its Zipf-skewed ones and cup; below the
# share (Adult, drawn Adult, Zipf 6 QIs) the complete search is the faster
# in most cells, and up to 2.2x (bench/README, "auto without suppression").
# Above it the walk still loses up to about 2x on small tables of skewed
# columns, answers of a few milliseconds ("The rule on small tables").
WALK_DISTINCT = 0.9


@dataclass(frozen=True)
class Distinct:
    """The share of the rows F0 holds (its rows: the distinct records on
    the quasi-identifiers and, with `sensitive`, the sensitive attributes
    criteria read), as the searches read it: `floored`, at the floor levels
    F0 was grouped at on DuckDB or Spark."""

    share: float
    sensitive: bool = False
    floored: bool = False

    @classmethod
    def of(cls, prep: Prepared) -> Distinct:
        share = prep.problem.distinct / max(prep.rows, 1)
        return cls(share, bool(prep.sensitive), prep.above_leaves)

    def said(self) -> str:
        """The share in words, floored: 99.7% distinct is not said to be all."""
        return (
            f"with {math.floor(self.share * 100)}% of the records distinct on the "
            f"quasi-identifiers{' and sensitive attributes' if self.sensitive else ''}"
            f"{' at the levels the search starts from' if self.floored else ''}"
        )


def walk_first(
    algorithm: str,
    reason: str,
    suppressing: bool,
    distinct: Distinct,
    metric: str,
    limited: bool,
    aim: str | None,
) -> tuple[str, str, str] | None:
    """Where `auto` picked the complete search (for `reason`): whether the
    optimal walk answers first, the complete search put off until something
    needs every anonymous node (`polars_anon.results.call`), why, and what
    to add to the complete search's reason should it run.
    Under suppression the walk answers ``best`` by its metric's criterion in
    0.33-1.13x the complete search's time, median 0.72x (bench/README,
    "auto under suppression"); without, where F0 holds a share of the rows
    (`distinct`) of at least `WALK_DISTINCT`. The criteria are
    monotone here (else `pick` chose MinGen), as the walk needs. Not with a
    time limit, which would bound each search, not both; nor for a caller
    that will rank by another criterion (`aim`), which needs the complete
    search anyway."""
    if algorithm != "incognito" or metric not in WALKED or limited:
        return None
    if not suppressing and distinct.share < WALK_DISTINCT:
        return None
    if aim is not None and aim != OF_METRIC[metric]:
        return None
    why = "under suppression" if suppressing else f"{distinct.said()},"
    return (
        "optimal",
        f"{reason.split(':')[0]}: {why} the optimal walk finds the preferred node "
        f"({OF_METRIC[metric]}) alone; every anonymous node is found when first needed "
        "(by another preference, or to list them)",
        f"{why} the optimal walk ran first",
    )


def aimed(algorithm: str, metric: str, aim: str | None) -> str:
    """The metric of a search (`algorithm`: auto, or a walk named) whose
    caller will rank its result by the criterion `aim`: the metric whose
    walk answers `aim` exactly, where one does (``min_height``: height), so
    that the walk answers it rather than the complete search after it."""
    if aim is None or (algorithm != "auto" and algorithm not in WALKS):
        return metric
    return next((m for m, c in OF_METRIC.items() if c == aim), metric)


def beyond_walks(heights: Sequence[int]) -> str:
    """What answers a ranking no walk answers, on a lattice of these
    heights that `auto` walked: the complete search where `auto` would
    have taken the optimal walk (it may not fit within the memory budget),
    else nothing: past `AUTO_OPTIMAL` nodes no complete search holds every
    anonymous node."""
    size = math.prod(h + 1 for h in heights)
    if size <= AUTO_OPTIMAL:
        return (
            f"The complete search finds every anonymous node: algorithm='incognito' (a "
            f"lattice of {size:.3g} nodes may not fit within memory_budget)."
        )
    return (
        f"No complete search holds every anonymous node of a lattice of {size:.3g} nodes: "
        "rank by a criterion a walk answers, or search fewer quasi-identifiers or lower "
        "hierarchies."
    )


def by_size(heights: Sequence[int]) -> tuple[str, str]:
    """The algorithm for a lattice of these heights, and why."""
    size = 1
    for h in heights:
        size *= h + 1
    lattice = f"the lattice of {len(heights)} attribute{'s' * (len(heights) != 1)} has"
    if size <= AUTO_COMPLETE:
        return "incognito", (
            f"{lattice} {size:,} node{'s' * (size != 1)} (<= {AUTO_COMPLETE:,}): every "
            "anonymous node is found"
        )
    if size <= AUTO_OPTIMAL:
        return "optimal", (
            f"{lattice} {size:.3g} nodes (> {AUTO_COMPLETE:,}): one optimum, found without "
            "enumerating the rest"
        )
    return "heuristic", (
        f"{lattice} {size:.3g} nodes (> {AUTO_OPTIMAL:.0e}): the best node found within "
        "the time limit"
    )
