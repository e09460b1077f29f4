"""Result objects: small, frozen, readable in a terminal and in a notebook."""

from __future__ import annotations

import operator
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_anon._core import (
    ConfigError,
    IterationTrace,
    MetricTable,
    NotAnonymousError,
    SearchOutcome,
    SearchStats,
)
from polars_anon._criteria import Criterion, specs
from polars_anon._frames import fresh_name, max_suppressed, prepare
from polars_anon._freqset import FrequencySet
from polars_anon._release import generalize_prepared
from polars_anon._risk import RiskReport, report

if TYPE_CHECKING:
    from polars_anon._frames import Prepared
    from polars_anon._mu_argus import MuArgus

CRITERIA = (
    "min_loss",
    "min_height",
    "min_relative_distance",
    "max_distribution",
    "min_suppression",
    "max_precision",
    "min_discernibility",
)


def _bound(q: str, b: int | tuple[int, int]) -> tuple[int, int]:
    """A bound on a quasi-identifier's level: an int (at most) or (low, high)."""
    try:
        lo, hi = (0, operator.index(b)) if not isinstance(b, tuple) else map(operator.index, b)
    except (TypeError, ValueError):
        raise ConfigError(
            f"bounds for '{q}' must be a level (int) or a (low, high) pair of levels, got {b!r}"
        ) from None
    if lo < 0 or hi < lo:
        raise ConfigError(
            f"bounds for '{q}' must satisfy 0 <= low <= high, got low = {lo}, high = {hi}"
        )
    return lo, hi


def _table_html(title: str, rows: list[tuple[str, Any]]) -> str:
    # imported here: html.entities is ~1 ms of a fresh import, for notebooks only
    import html

    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
        for k, v in rows
    )
    return f"<div><strong>{html.escape(title)}</strong><table>{body}</table></div>"


# plain-text reports wrap at this width, as a terminal shows them
WIDTH = 100


def _levels_text(levels: Mapping[str, int]) -> str:
    return "  ".join(f"{q}={lvl}" for q, lvl in levels.items())


def _aligned(title: str, rows: list[tuple[str, Any]]) -> str:
    """`title`, then one label and value a row, the values aligned and wrapped
    under themselves; a value of several lines (a table) starts on its own."""
    width = max(len(k) for k, _ in rows)
    lines = [title]
    for k, v in rows:
        text = str(v)
        if "\n" in text:
            lines.append(f"  {k}")
            lines += ["    " + line for line in text.splitlines()]
            continue
        wrapped = textwrap.wrap(
            text, WIDTH - width - 4, break_long_words=False, break_on_hyphens=False
        ) or [""]
        lines.append(f"  {k:<{width}}  {wrapped[0]}")
        lines += [" " * (width + 4) + more for more in wrapped[1:]]
    return "\n".join(lines)


@dataclass(frozen=True, repr=False)
class CheckReport:
    """What `check` found for one generalization of a table."""

    k: int
    quasi_identifiers: list[str]
    levels: dict[str, int]
    rows: int
    groups: int
    min_group_size: int
    suppressed: int
    max_suppression: int
    k_anonymous: bool
    height: int
    precision: float
    discernibility: float
    cavg: float
    distortion: float
    loss: float
    group_sizes: pl.DataFrame = field(repr=False)
    criteria: list[str] = field(default_factory=list)
    # the sizes of the groups released (not suppressed), one per group
    released_sizes: pl.Series = field(default_factory=lambda: pl.Series([], dtype=pl.UInt64))

    def risk(self, population: int | float | None = None, threshold: float = 0.2) -> RiskReport:
        """The re-identification risk of the table as these levels release it
        (the suppressed groups left out). ``population``: the number of records
        of the population the table is a sample of (None: the table is the
        population); for a population table, use `polars_anon.risk` on the
        release."""
        if isinstance(population, (pl.DataFrame, pl.LazyFrame)):
            raise ConfigError(
                "CheckReport.risk takes a population size; for a population table call "
                "polars_anon.risk(release, quasi_identifiers, population=table)"
            )
        return report(
            self.quasi_identifiers, self.levels, self.released_sizes, threshold, population
        )

    def plot_group_sizes(self) -> Any:
        """A histogram of the groups' sizes, before and after suppression, with k
        marked (a matplotlib Figure; needs the ``plot`` extra)."""
        from polars_anon._plot import group_sizes

        return group_sizes(self)

    def _rows(self) -> list[tuple[str, Any]]:
        return [
            ("k-anonymous" + (" and criteria met" if self.criteria else ""), self.k_anonymous),
            ("k", self.k),
            *([("criteria", "; ".join(self.criteria))] if self.criteria else []),
            ("levels", _levels_text(self.levels)),
            ("rows", self.rows),
            ("groups", self.groups),
            ("smallest group", self.min_group_size),
            ("suppressed (in groups < k)", f"{self.suppressed} (allowed {self.max_suppression})"),
            ("height", self.height),
            ("precision (Prec)", round(self.precision, 4)),
            ("discernibility (DM)", self.discernibility),
            ("normalized avg group size (CAVG)", round(self.cavg, 4)),
            ("distortion ratio", round(self.distortion, 4)),
            ("loss (ARX)", round(self.loss, 4)),
        ]

    def __str__(self) -> str:
        return _aligned("CheckReport", self._rows())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return _table_html("CheckReport", self._rows())


class SearchResult:
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
        "_minimal_nodes",
        "_nodes",
        "_prep",
        "_table",
        "algorithm",
        "complete",
        "criteria",
        "k",
        "max_suppression",
        "metric",
        "proven_optimal",
        "quasi_identifiers",
        "reason",
        "rejected",
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
        self._nodes: list[list[int]] = raw.anonymous
        self._minimal_nodes: list[list[int]] = raw.minimal
        self._anonymous: pl.DataFrame | None = None
        self._table: MetricTable | None = None
        self.algorithm = algorithm
        self.variant = variant
        self.k = k
        # the budget as given (a count, or a fraction of whatever table is
        # released), and as tuples of the searched table
        self.suppression = max_suppression
        self.max_suppression = max_suppressed(max_suppression, prep.rows)
        self.complete: bool = raw.complete
        # the answer holds a node of the best `metric` in the whole lattice
        self.proven_optimal: bool = raw.proven_optimal
        self.metric = metric
        # why algorithm="auto" chose this algorithm
        self.reason = reason
        # why the search stopped before its end (its time limit), if it did
        self.stopped: str | None = raw.stopped
        self.stats: SearchStats = raw.stats
        self.trace: list[IterationTrace] = raw.trace
        self.rejected: list[list[int]] = raw.rejected
        self.quasi_identifiers = list(prep.quasi_identifiers)

    @property
    def anonymous(self) -> pl.DataFrame:
        if self._anonymous is None:
            frame, table = self._figures(self._nodes)
            object.__setattr__(self, "_anonymous", frame)
            object.__setattr__(self, "_table", table)
        assert self._anonymous is not None
        return self._anonymous

    def _figures(self, nodes: list[list[int]]) -> tuple[pl.DataFrame, MetricTable]:
        """`nodes` (anonymous ones) with their figures, as rows of `anonymous`."""
        minimal = {tuple(n) for n in self._minimal_nodes}
        cols = self._level_columns(nodes)
        table = self._prep.problem.evaluate_many(
            nodes,
            self.k,
            specs(self.criteria, self._prep.sensitive_values, feasible=False),
        )
        series = [
            pl.Series(self.column(name), values, dtype=getattr(pl, dtype))
            for name, dtype, values in table.columns()
        ]
        is_minimal = [tuple(n) in minimal for n in nodes]
        series.append(pl.Series(self.column("minimal"), is_minimal, dtype=pl.Boolean))
        return pl.DataFrame(cols).with_columns(series), table

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle keeps: the answer, and what it takes to prepare the
        searched table again (its lazy plan, which holds an in-memory table's
        rows or a scan's path; the hierarchies)."""
        prep = self._prep
        slots = [n for cls in type(self).__mro__ for n in getattr(cls, "__slots__", ())]
        state = {k: getattr(self, k) for k in slots if k not in ("_prep", "_anonymous", "_table")}
        # off Polars the table is a connection's: keep its frequency set,
        # from which a release needs the table again (apply(table))
        source = prep.lazy if prep.engine == "polars" else FrequencySet(prep.f0, prep.count)
        state["_source"] = (
            source,
            prep.quasi_identifiers,
            dict(zip(prep.quasi_identifiers, prep.hierarchies, strict=True)),
            prep.sensitive,
            prep.nulls,
            prep.floors,
        )
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        lazy, qis, hierarchies, sensitive, nulls, floors = state.pop("_source")
        for k, v in state.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_anonymous", None)
        object.__setattr__(self, "_table", None)
        prep = prepare(lazy, qis, hierarchies, sensitive, nulls, floored_at=floors)
        object.__setattr__(self, "_prep", prep)

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

    def plot_lattice(self, criterion: str = "min_loss") -> Any:
        """The Hasse diagram of the searched lattice, each node coloured not
        anonymous / anonymous / minimal / chosen (by ``criterion``); a large
        lattice is summarised by height (a matplotlib Figure; needs the
        ``plot`` extra)."""
        from polars_anon._plot import lattice

        return lattice(self, criterion)

    def plot_tradeoff(
        self, metric: str = "loss", against: str = "risk", criterion: str = "min_loss"
    ) -> Any:
        """Every anonymous node by ``metric`` (a column of ``anonymous``) against
        the release's average prosecutor risk (``against="risk"``) or its share
        of suppressed records (``"suppression"``), the node ``criterion``
        picks marked (a matplotlib Figure; needs the ``plot`` extra)."""
        from polars_anon._plot import tradeoff

        return tradeoff(self, metric, against, criterion)

    @property
    def minimal(self) -> pl.DataFrame:
        """The k-minimal generalizations: no anonymous generalization below them."""
        if self._anonymous is not None:
            return self._anonymous.filter(pl.col(self.column("minimal")))
        # only their figures (every anonymous node's can cost seconds), in
        # the order `anonymous` lists them
        minimal = {tuple(n) for n in self._minimal_nodes}
        return self._figures([n for n in self._nodes if tuple(n) in minimal])[0]

    def best(
        self,
        criterion: str = "min_height",
        *,
        weights: Mapping[str, float] | None = None,
        bounds: Mapping[str, int | tuple[int, int]] | None = None,
    ) -> dict[str, int]:
        """The preferred generalization as ``{quasi-identifier: level}``.

        Criteria: ``min_loss`` (ARX's loss: per attribute, the mean over records
        of (leaves under the released value - 1) / (leaves - 1), a suppressed
        record counting 1, combined as a geometric mean of (1 + l_i) minus 1,
        weighted by ``weights``), ``min_height`` (fewest generalization steps, each weighted by
        ``weights``), ``min_relative_distance`` (steps divided by hierarchy heights,
        weighted), ``max_distribution`` (most distinct released tuples),
        ``min_suppression``, ``max_precision`` (Sweeney's Prec),
        ``min_discernibility`` (DM). ``bounds`` keeps each named attribute at or
        below a level (an int) or within ``(low, high)``. Ties are broken by
        height, then suppression, then the levels compared in quasi-identifier
        order (lowest first), so the answer is deterministic.
        """
        qis = self.quasi_identifiers
        if criterion not in CRITERIA:
            raise ConfigError(f"unknown criterion {criterion!r}; expected one of {CRITERIA}")
        weights = dict(weights or {})
        bad = sorted(set(weights) - set(qis)) + sorted(set(bounds or {}) - set(qis))
        if bad:
            raise ConfigError(f"weights/bounds name unknown quasi-identifier(s) {bad}")
        if not self._nodes:
            raise NotAnonymousError(self._nothing_found())
        # the criteria that rank nodes by their levels need the nodes' other
        # figures only to break ties: those are evaluated for the tied nodes
        # alone (every anonymous node's figures cost 3x cup's search at 5%)
        by_levels = criterion in ("min_height", "min_relative_distance")
        frame = self._levels() if by_levels else self.anonymous
        w = [float(weights.get(q, 1.0)) for q in qis]
        loss_col = fresh_name("__loss", frame.columns)
        if criterion == "min_loss":
            assert self._table is not None
            loss = (
                self._table.weighted_loss(w) if weights else frame.get_column(self.column("loss"))
            )
            frame = frame.with_columns(pl.Series(loss_col, loss, dtype=pl.Float64))
        for q, b in (bounds or {}).items():
            lo, hi = _bound(q, b)
            frame = frame.filter(pl.col(q).is_between(lo, hi))
        if frame.is_empty():
            raise NotAnonymousError(
                f"no {self.k}-anonymous generalization lies within bounds {dict(bounds or {})}"
            )
        heights = self._prep.problem.heights
        weighted = pl.sum_horizontal([pl.col(q) * w[i] for i, q in enumerate(qis)])
        relative = pl.sum_horizontal(
            [pl.col(q) * (w[i] / heights[i]) for i, q in enumerate(qis) if heights[i] > 0]
            or [pl.lit(0.0)]
        )
        key, descending = {
            "min_loss": (pl.col(loss_col).round(12), False),
            "min_height": (weighted, False),
            "min_relative_distance": (relative.round(12), False),
            "max_distribution": (pl.col(self.column("groups")), True),
            "min_suppression": (pl.col(self.column("suppressed")), False),
            "max_precision": (pl.col(self.column("precision")).round(12), True),
            "min_discernibility": (pl.col(self.column("discernibility")), False),
        }[criterion]
        sort_key = fresh_name("__key", frame.columns)
        height, suppressed = self.column("height"), self.column("suppressed")
        frame = frame.with_columns(key.alias(sort_key))
        if by_levels:
            # the nodes tied on the key and height, with their suppressed
            # tuples: the rest of the order below
            first = frame.sort([sort_key, height]).row(0, named=True)
            frame = frame.filter(
                (pl.col(sort_key) == first[sort_key]) & (pl.col(height) == first[height])
            )
            tied, _ = self._figures([list(n) for n in frame.select(qis).rows()])
            frame = frame.with_columns(tied.get_column(suppressed))
        ranked = frame.sort(
            [sort_key, height, suppressed, *qis],
            descending=[descending, False, False] + [False] * len(qis),
        )
        row = ranked.row(0, named=True)
        return {q: int(row[q]) for q in qis}

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

    def _nothing_found(self) -> str:
        """Why there is no answer, in the user's terms."""
        what = "complete search" if self.complete else "search"
        msg = f"the {what} found no {self.k}-anonymous generalization"
        if self.criteria:
            msg += " meeting the criteria"
        msg += f" with max_suppression = {self.suppression!r}"
        flat = [
            q
            for q, h in zip(self.quasi_identifiers, self._prep.problem.heights, strict=True)
            if h == 0
        ]
        if flat:
            msg += (
                f"; quasi-identifier(s) {flat} have no hierarchy (or one of height 0) and "
                "cannot be generalized: give them a hierarchy, or allow more suppression"
            )
        return msg

    def apply(
        self,
        data: Any = None,
        levels: Mapping[str, int] | None = None,
        criterion: str = "min_height",
    ) -> Any:
        """The generalized, suppressed table at ``levels`` (default: ``best(criterion)``):
        a LazyFrame that re-checks itself when collected, or for a DuckDB
        relation or Spark DataFrame a checked snapshot of the release built
        there (a relation, a DataFrame).

        ``data``: another table to release with the same levels (next month's
        file, say), searched or not: it is re-checked on its own, and a
        ``max_suppression`` given as a fraction is a fraction of that table.
        """
        chosen = dict(levels) if levels is not None else self.best(criterion)
        prep = self._prep
        if data is not None:
            # on DuckDB and Spark, F0 at the floors of this release's model
            prep = prepare(
                data,
                self.quasi_identifiers,
                dict(zip(self.quasi_identifiers, prep.hierarchies, strict=True)),
                prep.sensitive,
                prep.nulls,
                floors_for=(self.k, self.suppression),
            )
        return generalize_prepared(
            prep, prep.levels(chosen), self.k, self.suppression, self.criteria
        )

    def _rows(self) -> list[tuple[str, Any]]:
        s = self.stats
        name = self.algorithm + (f" ({self.variant})" if self.variant else "")
        return [
            ("algorithm", name),
            *([("chosen because", self.reason)] if self.reason else []),
            *(
                [
                    (
                        "optimum",
                        f"{self.metric}: "
                        + ("proven" if self.proven_optimal else "not proven (best found)"),
                    )
                ]
                if not self.complete
                else []
            ),
            ("k", self.k),
            *([("criteria", "; ".join(map(repr, self.criteria)))] if self.criteria else []),
            ("max suppression", self.max_suppression),
            ("quasi-identifiers", ", ".join(self.quasi_identifiers)),
            *(
                [("stopped", f"{self.stopped}: the nodes below are those confirmed so far")]
                if self.stopped
                else []
            ),
            (
                "anonymous generalizations",
                len(self._nodes) if self.complete else f"{len(self._nodes)} (of those evaluated)",
            ),
            (
                f"minimal ({min(5, len(self._minimal_nodes))} of {len(self._minimal_nodes)})",
                self._minimal_table(5),
            ),
            (
                "nodes checked / marked / projected",
                f"{s.nodes_checked} / {s.nodes_marked} / {s.nodes_projected}",
            ),
            ("table scans", s.table_scans),
            *self._floor_rows(),
            ("time (ms)", round(s.phase_ms.get("total", 0.0), 1)),
        ]

    def _floor_rows(self) -> list[tuple[str, Any]]:
        """Where F0 was grouped at floor levels (DuckDB, Spark): which, and
        its rows, so that a user sees why no node below them is listed."""
        floors = self._prep.floors
        if floors is None:
            return []
        raised = [f"{q} {f}" for q, f in zip(self.quasi_identifiers, floors[0], strict=True) if f]
        return [
            (
                "frequency set at floor levels",
                f"{', '.join(raised)} ({self._prep.problem.distinct:,} rows)",
            )
        ]

    def _minimal_table(self, most: int) -> str:
        """The first `most` minimal nodes' levels as a small table."""
        if not self._minimal_nodes:
            return "none"
        qis = self.quasi_identifiers
        rows = self._minimal_nodes[:most]
        frame = pl.DataFrame({q: [n[i] for n in rows] for i, q in enumerate(qis)})
        with pl.Config(
            tbl_hide_dataframe_shape=True,
            tbl_hide_column_data_types=True,
            tbl_width_chars=WIDTH - 6,
            tbl_cols=-1,
        ):
            return str(frame)

    def __repr__(self) -> str:
        return _aligned("SearchResult", self._rows())

    def _repr_html_(self) -> str:
        return _table_html("SearchResult", self._rows())


class MuArgusResult(SearchResult):
    """mu-Argus's answer: its one node in ``anonymous`` (with the metrics of
    releasing it with tuple suppression, which `apply` does, checked), and
    ``mu_argus``: the k its own cell-suppressed output reaches (``k_reached``,
    below k when the untested combinations leave small groups), the cells it
    suppressed, and that output (``mu_argus.masked``)."""

    __slots__ = ("mu_argus",)
    mu_argus: MuArgus

    def _rows(self) -> list[tuple[str, Any]]:
        m = self.mu_argus
        rows = super()._rows()
        return [
            *rows[:2],
            ("levels", _levels_text(m.levels)),
            (
                "k reached (cells suppressed)",
                f"{m.k_reached} of k = {self.k}"
                + (" (not k-anonymous)" if m.k_reached < self.k else ""),
            ),
            (
                "cells suppressed",
                f"{m.cells_suppressed} in {m.records_with_a_suppressed_cell} records "
                f"(loss with them: {m.loss:.4f})",
            ),
            *rows[2:],
        ]
