"""A search's answer: every anonymous node with its figures, the minimal
ones, the preferred one (`best`), and the release of any of them (`apply`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from polars_anon._core import (
    IterationTrace,
    MetricTable,
    NotAnonymousError,
    SearchOutcome,
    SearchStats,
)
from polars_anon.api import auto
from polars_anon.criteria.base import Criterion
from polars_anon.inputs.frames import fresh_name
from polars_anon.inputs.params import max_suppressed
from polars_anon.prepare.f0 import at_leaves
from polars_anon.prepare.prepared import Prepared
from polars_anon.reports.render import aligned, table_html
from polars_anon.results import best, pickled, walks
from polars_anon.results.call import SearchCall
from polars_anon.results.nodes import Nodes
from polars_anon.results.plots import Plots
from polars_anon.results.releases import Releases
from polars_anon.roles.spec import Roles


class SearchResult(Releases, Plots):
    """Every anonymous full-domain generalization a search found, and what it cost.

    ``anonymous`` is a DataFrame with one row per generalization (one level column
    per quasi-identifier, then ``height``, ``suppressed``, ``groups``, ``precision``,
    ``discernibility``, ``cavg``, ``distortion``, ``loss`` (ARX's) and ``minimal``);
    its metrics are computed on first access.

    ``stats`` says what the search cost: ``nodes_checked`` (frequency sets computed
    and tested), ``nodes_marked`` (inferred anonymous from an anonymous
    specialization), ``nodes_projected`` (Incognito: anonymous nodes of the answer
    with an attribute generalized to a level of one value, such as ``*``, whose
    frequency set is therefore that of their projection without it, taken from an
    earlier iteration and never built as candidates), ``table_scans`` and
    ``rows_scanned`` (checks that read F0, the table's stand-in, and its rows for
    each; the optimal, heuristic, Samarati and MinGen searches stop reading
    once a node is known to fail),
    ``rows_rolled_up`` (rows of other sets read by rollups), ``cuboids`` and
    ``intermediate_sets`` (Cube Incognito's cuboids and the sets below its roots),
    ``candidates_per_iteration`` (Incognito) and ``phase_ms``.
    """

    __slots__ = (
        "_anonymous",
        "_deferred",
        "_lists",
        "_prep",
        "_table",
        "_walk",
        "_walk_ms",
        "_walks",
        "algorithm",
        "complete",
        "criteria",
        "k",
        "max_suppression",
        "metric",
        "proven_optimal",
        "quasi_identifiers",
        "reason",
        "roles",
        "stats",
        "stopped",
        "suppression",
        "trace",
        "variant",
    )

    def __init__(
        self,
        prep: Prepared,
        raw: SearchOutcome,
        algorithm: str,
        variant: str | None,
        k: int,
        max_suppression: int | float,
        criteria: list[Criterion] | None = None,
        metric: str = "loss",
        reason: str | None = None,
    ) -> None:
        self._prep = prep
        self.criteria: list[Criterion] = list(criteria or [])
        # the complete search `auto` put off (`call`), until it runs
        self._deferred: SearchCall | None = None
        # of a put-off search run since: the optimal walk's time before it
        self._walk_ms: float | None = None
        # the walk auto picked for a large lattice, and those run since by
        # other metrics (`walks`)
        self._walk: SearchCall | None = None
        self._walks: dict[str, SearchResult] = {}
        self.algorithm = algorithm
        self.variant = variant
        self.k = k
        # the budget as given (a count, or a fraction of whatever table is
        # released), and as tuples of the searched table
        self.suppression = max_suppression
        self.max_suppression = max_suppressed(max_suppression, prep.rows)
        self.metric = metric
        # why algorithm="auto" chose this algorithm
        self.reason = reason
        self._take(raw)
        self.quasi_identifiers = list(prep.quasi_identifiers)
        # the columns' roles given to the search, carried to its releases
        self.roles = Roles()

    @property
    def _nodes(self) -> list[list[int]]:
        return self._lists.get("anonymous")

    @property
    def _minimal_nodes(self) -> list[list[int]]:
        return self._lists.get("minimal")

    @property
    def rejected(self) -> list[list[int]]:
        """The nodes found not anonymous (those a search records)."""
        self._complete()
        return self._lists.get("rejected")

    def _take(self, raw: SearchOutcome) -> None:
        """What the search found (its nodes, figures to be made from them)
        and what it cost."""
        self._lists = Nodes(raw)
        self._anonymous: pl.DataFrame | None = None
        self._table: MetricTable | None = None
        self.complete: bool = raw.complete
        # the answer holds a node of the best `metric` in the whole lattice
        self.proven_optimal: bool = raw.proven_optimal
        # why the search stopped before its end (its time limit), if it did
        self.stopped: str | None = raw.stopped
        self.stats: SearchStats = raw.stats
        self.trace: list[IterationTrace] = raw.trace

    def _complete(self) -> None:
        """The complete search `auto` put off, run now: the result becomes
        its (`polars_anon.results.call`)."""
        later = self._deferred
        if later is None:
            return
        walk_ms = self.stats.phase_ms.get("total", 0.0)
        self._take(later.run(self._prep))
        self._deferred, self._walk_ms = None, walk_ms
        self.algorithm, self.variant, self.reason = later.algorithm, later.variant, later.reason

    @property
    def anonymous(self) -> pl.DataFrame:
        """Every anonymous node found: its levels, metrics and ``minimal``."""
        self._complete()
        if self._anonymous is None:
            frame, table = self._figures(self._nodes)
            object.__setattr__(self, "_anonymous", frame)
            object.__setattr__(self, "_table", table)
        assert self._anonymous is not None
        return self._anonymous

    def _figures(
        self, nodes: list[list[int]], table: MetricTable | None = None
    ) -> tuple[pl.DataFrame, MetricTable]:
        """`nodes` (anonymous ones) with their figures (`table`, or evaluated
        now), as rows of `anonymous`."""
        minimal = {tuple(n) for n in self._minimal_nodes}
        cols = self._level_columns(nodes)
        if table is None:
            table = self._prep.problem.evaluate_many(
                nodes,
                self.k,
                self._prep.model(self.criteria, feasible=False),
            )
        series = [
            pl.Series(self.column(name), values, dtype=getattr(pl, dtype))
            for name, dtype, values in table.columns()
        ]
        is_minimal = [tuple(n) in minimal for n in nodes]
        series.append(pl.Series(self.column("minimal"), is_minimal, dtype=pl.Boolean))
        return pl.DataFrame(cols).hstack(series), table

    def __getstate__(self) -> dict[str, Any]:
        return pickled.kept(self, self._prep, self._lists)

    def __setstate__(self, state: dict[str, Any]) -> None:
        pickled.restore(self, state)

    def column(self, name: str) -> str:
        """The name of the answer's column ``name`` (``height``, ``suppressed``,
        ``minimal``, ...) in ``anonymous``: the name itself, unless a
        quasi-identifier has it, which keeps it for its levels; then
        ``node_<name>``."""
        if name not in self.quasi_identifiers:
            return name
        return fresh_name(f"node_{name}", self.quasi_identifiers)

    @property
    def evaluated(self) -> pl.DataFrame:
        """Every node the search tested itself, with its verdict (``anonymous``).

        For the searches that answer with what they evaluated (Samarati's binary
        search, Datafly's path) this is every node they tested; the complete
        searches also infer nodes they never test, so prefer ``anonymous`` there.
        """
        self._complete()
        qis = self.quasi_identifiers
        tested = [(n, True) for n in self._nodes if not self.complete] + [
            (n, False) for n in self.rejected
        ]
        return pl.DataFrame(
            {
                **{
                    q: pl.Series(q, [n[i] for n, _ in tested], dtype=pl.Int32)
                    for i, q in enumerate(qis)
                },
                self.column("anonymous"): pl.Series([a for _, a in tested], dtype=pl.Boolean),
            }
        ).sort(qis)

    @property
    def minimal(self) -> pl.DataFrame:
        """The k-minimal generalizations: no anonymous generalization below
        them (of a search stopped by its time limit, none among those found:
        ``stopped`` says so). Of an optimal or heuristic search, which finds
        the optimum without the others, the nodes of the best value."""
        self._complete()
        if self._anonymous is not None:
            return self._anonymous.filter(pl.col(self.column("minimal")))
        # only their figures (every anonymous node's can cost seconds), in
        # the order `anonymous` lists them
        minimal = {tuple(n) for n in self._minimal_nodes}
        return self._figures([n for n in self._nodes if tuple(n) in minimal])[0]

    def best(
        self,
        criterion: str | None = None,
        *,
        weights: Mapping[str, float] | None = None,
        bounds: Mapping[str, int | tuple[int, int]] | None = None,
    ) -> dict[str, int]:
        """The preferred generalization as ``{quasi-identifier: level}``, by
        ``criterion``: by default the search's metric's (``min_loss``)
        where ``algorithm="auto"`` (the default) picked the search, and for
        an optimal or heuristic search, the only criterion such a result
        answers (without weights or bounds: `best.chosen`); ``min_height``
        for a complete search named. Where ``auto`` put the complete
        search off (`api.auto.walk_first`), any other criterion, weights or
        bounds run it first; where it walked a lattice too large for the
        complete search, another criterion a walk answers runs that walk
        once (`results.walks`).

        Criteria: ``min_loss`` (ARX's loss: per attribute, the mean over records
        of (leaves under the released value - 1) / (leaves - 1), a suppressed
        record counting 1, combined as a geometric mean of (1 + l_i) minus 1,
        weighted by ``weights``), ``min_height`` (fewest generalization steps, each weighted by
        ``weights``), ``min_relative_distance`` (steps divided by hierarchy heights,
        weighted), ``max_distribution`` (most distinct released tuples),
        ``min_suppression``, ``max_precision`` (Sweeney's Prec),
        ``min_discernibility`` (DM), ``min_aecs`` (ARX's average class size, the
        suppressed records one class), ``min_entropy`` (ARX's non-uniform
        entropy, weighted by ``weights``), ``min_ambiguity``,
        ``min_kl_divergence`` (the searches' ``metric=`` of those names); the
        others take no ``weights``. ``bounds`` keeps each named attribute at
        or below a level (an int) or within ``(low, high)``. Ties are broken by
        height, then suppression, then the levels compared in quasi-identifier
        order (lowest first), so the answer is deterministic.

        Cost: ``min_height`` and ``min_relative_distance`` need the levels
        alone; ``min_loss`` and ``max_precision`` value nodes in order of their
        metric's lower bound until none left can do better (a few dozen of
        Adult's or cup's thousands; with no suppression, the best ones); the
        other criteria value every anonymous node (as ``anonymous`` does).
        """
        other = walks.walk_for(self, criterion, weights, bounds)
        if other is not None:  # auto's walk by another metric answers it
            return other.best(criterion)  # type: ignore[no-any-return]
        qis, heights = self.quasi_identifiers, self._prep.problem.heights
        later = self._deferred
        if later is not None and not best.needs_all(self.metric, criterion, weights, bounds):
            later = None  # the walk answers
        algorithm = self.algorithm if later is None else later.algorithm
        picked = self.reason is not None
        criterion = best.chosen(
            algorithm,
            self.metric,
            criterion,
            weights,
            bounds,
            qis,
            auto.beyond_walks(heights) if self._walk is not None else picked,
        )
        w = best.checked(qis, heights, weights, bounds)
        if later is not None:  # (criterion, weights and bounds checked first)
            self._complete()
        if not self._nodes:
            raise NotAnonymousError(self._nothing_found())
        # what each criterion needs valued: see `best` (every anonymous
        # node's figures cost 3x cup's search at 5%)
        by_levels = criterion in ("min_height", "min_relative_distance")
        table = self._table
        own = self.algorithm in best.WALKS and criterion in best.OWN_FIGURES and not bounds
        if criterion == "min_loss" and not weights and not bounds and self._anonymous is None:
            # ranked without a frame (making one cost more than the search
            # on small tables)
            model = self._prep.model(self.criteria, feasible=False)
            mins = self._minimal_nodes if own else None
            p = self._prep.problem
            return best.least_loss(p, self._lists, mins, self.k, model, qis, self.max_suppression)
        if by_levels:
            frame = self._levels()
        elif own:
            # the walk's nodes of its best value (`minimal`) are every node
            # that ties for it: the others need no valuing again
            frame, table = self._figures(self._minimal_nodes)
        elif criterion in best.BY_BOUND and (self._anonymous is None or criterion in best.BY_VALUE):
            frame, table = self._by_bound(criterion, w if weights else None, bounds)
        else:
            frame = self.anonymous
            table = self._table
        return best.least(
            frame,
            table,
            criterion,
            w,
            bool(weights),
            bounds,
            self.k,
            qis,
            heights,
            self.column,
            lambda nodes: self._figures(nodes)[0],
        )

    def _nothing_found(self) -> str:
        """Why `best` has no node to answer with (`best.nothing_found`)."""
        return best.nothing_found(
            self.k,
            self.complete,
            bool(self.criteria),
            self.suppression,
            self.quasi_identifiers,
            self._prep.problem.heights,
            self.stopped,
        )

    def _by_bound(
        self,
        criterion: str,
        weights: list[float] | None,
        bounds: Mapping[str, int | tuple[int, int]] | None,
    ) -> tuple[pl.DataFrame, MetricTable]:
        """The nodes within `bounds` that the core valued to find the best by
        `criterion`'s metric, with their figures (`best.valued_by_bound`)."""
        # KL divergence compares with the input's leaves, which floors group
        prep = at_leaves(self._prep) if criterion == "min_kl_divergence" else self._prep
        args = (self.k, prep.model(self.criteria, feasible=False), criterion, weights)
        valued, table = best.valued_by_bound(
            prep.problem, self._lists, self.quasi_identifiers, bounds, *args, self.max_suppression
        )
        return self._figures(valued, table)

    def _levels(self) -> pl.DataFrame:
        """The anonymous nodes' levels and heights (`anonymous` without the
        figures a node's groups give)."""
        cols = self._level_columns(self._nodes)
        heights = [sum(n) for n in self._nodes]
        cols[self.column("height")] = pl.Series(heights, dtype=pl.Int32)
        return pl.DataFrame(cols)

    def _level_columns(self, nodes: list[list[int]]) -> dict[str, pl.Series]:
        """Each quasi-identifier's level in `nodes`, as `anonymous` lists them."""
        return {
            q: pl.Series(q, [n[i] for n in nodes], dtype=pl.Int32)
            for i, q in enumerate(self.quasi_identifiers)
        }

    def _rows(self) -> list[tuple[str, Any]]:
        floors = self._prep.floors
        # F0's rows at the floors, where it was grouped there
        at = None if floors is None else (floors[0], self._prep.problem.distinct)
        # imported here: only a result that is shown needs it
        from polars_anon.results import summary

        heights, put_off = self._prep.problem.heights, self._deferred is not None
        rows = summary.rows(
            self, self._nodes, self._minimal_nodes, at, heights, put_off, self._prep.rows
        )
        # the walks `best` ran by other metrics (`walks`), each as it ended
        walked = [
            f"{m}: " + (f"stopped ({w.stopped}), not proven" if w.stopped else "proven")
            if w.stopped or w.proven_optimal
            else f"{m}: not proven"
            for m, w in self._walks.items()
        ]
        return rows + ([("walks run for best()", "; ".join(walked))] if walked else [])

    def __repr__(self) -> str:
        return aligned("SearchResult", self._rows())

    def _repr_html_(self) -> str:
        return table_html("SearchResult", self._rows())
