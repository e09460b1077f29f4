"""The choice of the preferred node among a search's anonymous ones: the
preference criteria (`CRITERIA`), each a sort key on the answer's columns,
and bounds on each attribute's level.

What each criterion needs valued (a node's groups rolled up and counted):
``min_height`` and ``min_relative_distance`` rank by the levels alone and
value only the nodes tied on them; ``min_loss`` and ``max_precision`` value
nodes in order of their metric's lower bound (the metric as if nothing were
suppressed, which no node goes below) until none left can do better
(`valued_by_bound`, `src/search/best.rs`), a few dozen of thousands on
Adult and cup, and with no suppression allowed only the nodes of the least
bound (a node that suppresses nothing has its bound as its value);
``max_distribution``, ``min_suppression``, ``min_discernibility`` and
``min_aecs`` have no such bound and value every anonymous node.
``min_entropy``, ``min_ambiguity`` and ``min_kl_divergence`` rank by the
searches' objectives of those names (ARX's metrics), valued by the core in
order of their bounds whatever the search found (KL divergence has none:
every node is valued)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, MetricTable, NotAnonymousError, Problem
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.frames import fresh_name
from polars_anon.reports.render import levels_text, listing, one_of, values_text
from polars_anon.results.nodes import Nodes

CRITERIA = (
    "min_loss",
    "min_height",
    "min_relative_distance",
    "max_distribution",
    "min_suppression",
    "max_precision",
    "min_discernibility",
    "min_aecs",
    "min_entropy",
    "min_ambiguity",
    "min_kl_divergence",
)
"""The names `SearchResult.best` takes (``criterion``). Without one, a
search of ``algorithm="auto"`` (the default) and an optimal or heuristic
one rank by their metric's criterion (``min_loss`` unless ``metric=``
says otherwise), a complete search named by ``min_height`` (`chosen`); the
command line's ``--preference`` is ``min_loss`` unless given."""

WEIGHTED = ("min_loss", "min_height", "min_relative_distance", "min_entropy")
"""The criteria `weights` apply to (the others count groups, records or
information that no attribute's weight enters)."""

# the criteria ranked by an objective of the searches that the answer's
# columns do not hold: its values come with the nodes the core valued
BY_VALUE = {
    "min_entropy": "entropy",
    "min_ambiguity": "ambiguity",
    "min_kl_divergence": "kl_divergence",
}

# the criteria ranked by a metric with a lower bound, and that metric
BY_BOUND = {"min_loss": "loss", "max_precision": "precision", **BY_VALUE}


# the searches that walk the lattice by a metric and hold only the nodes
# they valued (each answers its metric's criterion alone)
WALKS = ("optimal", "heuristic")

# the criteria whose value is a column of a node's figures: of a walk's
# result, the nodes of its best value (`minimal`) decide them
OWN_FIGURES = ("min_loss", "max_precision")

# the criterion each metric's optimal walk answers exactly
OF_METRIC = {
    "loss": "min_loss",
    "height": "min_height",
    "precision": "max_precision",
    "discernibility": "min_discernibility",
    "aecs": "min_aecs",
    "entropy": "min_entropy",
    "ambiguity": "min_ambiguity",
    "kl_divergence": "min_kl_divergence",
}


def chosen(
    algorithm: str,
    metric: str,
    criterion: str | None,
    weights: Mapping[str, float] | None,
    bounds: Mapping[str, Any] | None,
    qis: list[str],
    auto: bool | str = False,
) -> str:
    """The criterion `SearchResult.best` ranks by: `criterion`, or the one
    the search aimed at (a search `auto` picked, and an optimal or
    heuristic walk: its metric's; a complete search named: ``min_height``).
    An optimal or heuristic result holds only the nodes its walk valued, so
    it answers its own metric alone, unweighted and unbounded: anything
    else would be the best of those nodes, not of the lattice. `auto`: a
    search `auto` picked; for its walk of a large lattice, the way out its
    refusal ends with (`api.auto.beyond_walks`)."""
    if criterion is not None and (not isinstance(criterion, str) or criterion not in CRITERIA):
        raise ConfigError(f"unknown criterion {criterion!r}; expected {one_of(CRITERIA)}")
    for name, given in (("weights", weights), ("bounds", bounds)):
        if given is not None and not isinstance(given, Mapping):
            raise ParameterError(
                f"{name} must be a mapping of quasi-identifier to "
                + ("a weight" if name == "weights" else "a level or (low, high)")
                + f", got {type(given).__name__} {given!r:.60}"
            )
    bad = sorted(set(weights or {}) - set(qis)) + sorted(set(bounds or {}) - set(qis))
    if bad:
        raise ConfigError(f"weights/bounds name {listing('unknown quasi-identifier', bad)}")
    walk = algorithm in WALKS
    own = OF_METRIC.get(metric, "min_height") if walk or auto else "min_height"
    asked = own if criterion is None else criterion
    if walk and (asked != own or weights or bounds):
        what = (
            f"{asked!r}"
            + (" with weights" if weights else "")
            + (" within bounds" if bounds else "")
        )
        if isinstance(auto, str):
            # auto's walk of a large lattice: another walk answers the
            # other walks' criteria unweighted (`results.walks`), not these
            raise ConfigError(
                f"{what} needs every anonymous node: auto answered this lattice with the "
                f"{algorithm} walk (metric={metric!r}), which holds only the nodes it valued; "
                f"walks answer {values_text(OF_METRIC.values())} (unweighted, "
                f"unbounded). {auto}"
            )
        # the walk that answers `asked`, when one does
        walks = [f"metric={m!r}" for m, c in OF_METRIC.items() if c == asked and not weights]
        raise ConfigError(
            f"this {algorithm} search (metric={metric!r}) answers {own!r} alone: it holds the "
            f"nodes its walk valued, not every anonymous node, so {what} would be the best of "
            "those only. Search "
            + (f"with {walks[0]}, or " if walks and not bounds else "")
            + "with algorithm='incognito' for any criterion, weights and bounds"
        )
    if weights and asked not in WEIGHTED:
        raise ConfigError(
            f"{asked!r} takes no weights: only {', '.join(map(repr, WEIGHTED))} weigh the "
            "quasi-identifiers; leave weights out, or rank by one of those"
        )
    return asked


def needs_all(
    metric: str,
    criterion: str | None,
    weights: Mapping[str, float] | None,
    bounds: Mapping[str, Any] | None,
) -> bool:
    """Whether `best` by `criterion` (None: the default), with `weights`
    and `bounds`, needs every anonymous node, not only the optimal walk's
    answer for `metric`."""
    return criterion not in (None, OF_METRIC.get(metric)) or bool(weights) or bool(bounds)


def within(
    nodes: list[list[int]],
    quasi_identifiers: list[str],
    bounds: Mapping[str, int | tuple[int, int]] | None,
) -> list[list[int]]:
    """The nodes whose every level lies within `bounds`."""
    if not bounds:
        return nodes
    limits = [bound(q, bounds.get(q, (0, 255))) for q in quasi_identifiers]
    return [n for n in nodes if all(lo <= v <= hi for v, (lo, hi) in zip(n, limits, strict=True))]


def valued_by_bound(
    problem: Problem,
    found: Nodes,
    quasi_identifiers: list[str],
    bounds: Mapping[str, int | tuple[int, int]] | None,
    k: int,
    criteria: list[Any],
    criterion: str,
    weights: list[float] | None,
    max_suppression: int,
) -> tuple[list[list[int]], MetricTable]:
    """The nodes within `bounds` of the anonymous ones `found` that the core
    valued to find the best by the metric of `criterion` (one of
    `BY_BOUND`), and their figures: every node of the best value is among
    them. With no bounds the core reads its own outcome's nodes (at
    thousands, making them lists and back cost more than the valuing);
    `max_suppression`, the records the search could suppress (with none
    the bound is the value: only the best nodes are valued)."""
    metric, core = BY_BOUND[criterion], found.core()
    if core is not None and not bounds:
        valued, table = problem.best_of(core, k, criteria, metric, weights, max_suppression)
        return core.anonymous_at(valued), table
    nodes = within(found.get("anonymous"), quasi_identifiers, bounds)
    valued, table = problem.best_of(nodes, k, criteria, metric, weights, max_suppression)
    return [nodes[i] for i in valued], table


def checked(
    qis: list[str],
    heights: Sequence[int],
    weights: Mapping[str, Any] | None,
    bounds: Mapping[str, Any] | None,
) -> list[float]:
    """`bounds` checked against the hierarchies' `heights`, and each
    quasi-identifier's weight (1 unless given), checked."""
    for q, b in (bounds or {}).items():
        bound(q, b, heights[qis.index(q)])
    given = dict(weights or {})
    return [weight(q, given.get(q, 1.0)) for q in qis]


def weight(q: str, w: Any) -> float:
    """A quasi-identifier's weight: a finite number >= 0 (NumPy's too)."""
    if isinstance(w, bool) or (not isinstance(w, int | float) and type(w).__module__ != "numpy"):
        raise ConfigError(f"weights for '{q}' must be a number >= 0, got {w!r:.60}")
    try:
        out = float(w)
    except (TypeError, ValueError):
        raise ConfigError(f"weights for '{q}' must be a number >= 0, got {w!r:.60}") from None
    if not 0 <= out < math.inf:
        raise ConfigError(f"weights for '{q}' must be a finite number >= 0, got {w!r}")
    return out


def bound(q: str, b: int | tuple[int, int], height: int | None = None) -> tuple[int, int]:
    """A bound on a quasi-identifier's level: an int (at most) or (low,
    high), levels of its hierarchy (of `height`, when given)."""
    try:
        if isinstance(b, bool) or (isinstance(b, tuple) and any(isinstance(v, bool) for v in b)):
            raise TypeError
        lo, hi = (0, operator.index(b)) if not isinstance(b, tuple) else map(operator.index, b)
    except (TypeError, ValueError):
        raise ConfigError(
            f"bounds for '{q}' must be a level (int) or a (low, high) pair of levels, got {b!r}"
        ) from None
    if not isinstance(b, tuple) and hi < 0:
        raise ConfigError(
            f"bounds for '{q}' must be a level >= 0 (the highest it may take), got {hi}"
        )
    if lo < 0 or hi < lo:
        raise ConfigError(
            f"bounds for '{q}' must satisfy 0 <= low <= high, got low = {lo}, high = {hi}"
        )
    if height is not None and hi > height:
        raise ConfigError(
            f"bounds for '{q}' name level {hi}, above its hierarchy's height {height} "
            f"(its levels are 0 to {height})"
        )
    return lo, hi


def least(
    frame: pl.DataFrame,
    table: MetricTable | None,
    criterion: str,
    weights: list[float],
    weighted: bool,
    bounds: Mapping[str, int | tuple[int, int]] | None,
    k: int,
    qis: list[str],
    heights: Sequence[int],
    column: Callable[[str], str],
    figures: Callable[[list[list[int]]], pl.DataFrame],
) -> dict[str, int]:
    """The best node of `frame` (nodes of the answer, with their metrics
    in `table`, or their levels alone for the criteria that rank by them)
    by `criterion`, `weights` (`weighted`: given) and `bounds`; ties broken
    by height, suppression (of the tied nodes' `figures`), then levels."""
    loss_col = fresh_name("__loss", frame.columns)
    if criterion == "min_loss":
        assert table is not None
        loss = table.weighted_loss(weights) if weighted else frame.get_column(column("loss"))
        frame = frame.hstack([pl.Series(loss_col, loss, dtype=pl.Float64)])
    elif criterion in BY_VALUE:
        assert table is not None
        frame = frame.hstack([pl.Series(loss_col, table.values(), dtype=pl.Float64)])
    for q, b in (bounds or {}).items():
        lo, hi = bound(q, b)
        frame = frame.filter(pl.col(q).is_between(lo, hi))
    if frame.is_empty():
        raise NotAnonymousError(
            f"no {k}-anonymous generalization lies within bounds "
            + levels_text(dict(bounds or {}), ", ")
        )
    order, descending = key(criterion, qis, weights, heights, column, loss_col)
    sort_key = fresh_name("__key", frame.columns)
    height, suppressed = column("height"), column("suppressed")
    frame = frame.with_columns(order.alias(sort_key))
    if criterion in ("min_height", "min_relative_distance"):
        # the nodes tied on the key and height, with their suppressed
        # tuples: the rest of the order below
        first = min(zip(frame.get_column(sort_key), frame.get_column(height), strict=True))
        frame = frame.filter((pl.col(sort_key) == first[0]) & (pl.col(height) == first[1]))
        tied = figures([list(n) for n in frame.select(qis).rows()])
        frame = frame.hstack([tied.get_column(suppressed)])
    # the least row by the key (negated when descending: the keys are
    # numbers), then height, suppression and the levels; in Python, as
    # Polars' sort costs more than the few nodes' own work here
    sign = -1 if descending else 1
    # (columns read one by one: a select is a query of its own)
    columns = [frame.get_column(c).to_list() for c in (sort_key, height, suppressed, *qis)]
    rows = zip(*columns, strict=True)
    chosen = min(rows, key=lambda r: (sign * r[0], *r[1:]))
    return {q: int(level) for q, level in zip(qis, chosen[3:], strict=True)}


def least_loss(
    problem: Problem,
    found: Nodes,
    minimal: list[list[int]] | None,
    k: int,
    criteria: list[Any],
    qis: list[str],
    max_suppression: int,
) -> dict[str, int]:
    """The best anonymous node `found` by ``min_loss`` without weights or
    bounds, in `least`'s order (the loss rounded as `key` rounds it, then
    height, suppression and the levels): of the walk's `minimal` nodes
    (every node of its best value) when given, else of those the core
    values by bound (`valued_by_bound`)."""
    if minimal is not None:
        nodes, table = minimal, problem.evaluate_many(minimal, k, criteria)
    else:
        args = (k, criteria, "min_loss", None, max_suppression)
        nodes, table = valued_by_bound(problem, found, qis, None, *args)
    figures = {name: values for name, _, values in table.columns()}
    loss = [rounded(v) for v in figures["loss"]]
    rows = zip(loss, figures["height"], figures["suppressed"], nodes, strict=True)
    chosen = min(rows, key=lambda r: (r[0], r[1], r[2], *r[3]))[3]
    return {q: int(level) for q, level in zip(qis, chosen, strict=True)}


def rounded(value: float) -> float:
    """`value` rounded to 12 decimals exactly as Polars' ``round(12)`` (the
    sort keys' rounding, `key`) rounds it: scaled by 10**12, rounded half to
    even, scaled back; a value that does not stay finite is kept. In Python:
    a Series' round is a query of its own, which cost a fifth of a small
    table's whole answer."""
    scaled = value * 1e12
    if not math.isfinite(scaled):
        return value
    back = math.copysign(round(scaled) / 1e12, value)  # -0.4e-12 to -0.0
    return back if math.isfinite(back) else value


def key(
    criterion: str,
    quasi_identifiers: list[str],
    weights: list[float],
    heights: Sequence[int],
    column: Callable[[str], str],
    loss: str,
) -> tuple[pl.Expr, bool]:
    """The sort key of `criterion` on the answer's columns (named by
    `column`; ARX's loss, weighted, in `loss`), and whether it is descending."""
    qis, w = quasi_identifiers, weights
    rounded = pl.col(loss).round(12)
    if criterion == "min_loss" or criterion in BY_VALUE:
        return rounded, False
    if criterion == "min_height":
        # rounded as every float key is: weighted steps equal but for the
        # float sum (3 x 0.3 and 0.9) tie, and go by height
        return pl.sum_horizontal([pl.col(q) * w[i] for i, q in enumerate(qis)]).round(12), False
    if criterion == "min_relative_distance":
        relative = [pl.col(q) * (w[i] / heights[i]) for i, q in enumerate(qis) if heights[i] > 0]
        return pl.sum_horizontal(relative or [pl.lit(0.0)]).round(12), False
    return {
        "max_distribution": (pl.col(column("groups")), True),
        "min_suppression": (pl.col(column("suppressed")), False),
        "max_precision": (pl.col(column("precision")).round(12), True),
        "min_discernibility": (pl.col(column("discernibility")), False),
        # ARX's AECS, records over classes (the suppressed records one class):
        # least where the classes so counted are most
        "min_aecs": (
            pl.col(column("groups")) + (pl.col(column("suppressed")) > 0).cast(pl.UInt64),
            True,
        ),
    }[criterion]


def nothing_found(
    k: int,
    complete: bool,
    criteria: bool,
    suppression: int | float,
    quasi_identifiers: list[str],
    heights: Sequence[int],
    stopped: str | None = None,
) -> str:
    """Why a search has no answer, in the user's terms (`stopped`: why it
    ended before its end, which is then the reason)."""
    what = "complete search" if complete else "search"
    if stopped is not None:
        return (
            f"the search stopped ({stopped}) before it found a {k}-anonymous generalization"
            f"{' meeting the criteria' if criteria else ''}; raise time_limit, or search "
            "with algorithm='datafly' for a quick answer"
        )
    msg = f"the {what} found no {k}-anonymous generalization"
    if criteria:
        msg += " meeting the criteria"
    msg += f" with max_suppression = {suppression!r}"
    flat = [q for q, h in zip(quasi_identifiers, heights, strict=True) if h == 0]
    if flat:
        msg += (
            f"; quasi-identifier(s) {flat} have no hierarchy (or one of height 0) and "
            "cannot be generalized: give them a hierarchy, or allow more suppression"
        )
    return msg
