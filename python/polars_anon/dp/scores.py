"""SafePub's score functions (Bild, Kuhn and Prasser 2018, as ARX 3.9
computes them; the formulas are in the core, `src/dp/scores.rs`): a node's
utility on the sample, higher is better, already divided by its
sensitivity, so the exponential mechanism weighs a node by ``exp(epsilon *
score / 2)``. ``loss`` (granularity), ``precision`` (intensity),
``entropy`` (non-uniform entropy), ``discernibility`` and ``aecs`` (group
size), each over the classes of at least k sampled records; the records of
the other classes, and those left out of the sample, count as suppressed.

The unsampled records add the same amount to every node's loss, precision
and aecs, so leaving them out (``unsampled=None``) changes none of the
mechanism's probabilities or the best node; entropy and discernibility
weigh them by the table's size, and need the count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from polars_anon import _core
from polars_anon.exceptions import ParameterError
from polars_anon.prepare.prepared import Prepared
from polars_anon.reports.render import one_of

METRICS = ("loss", "precision", "entropy", "discernibility", "aecs")

# the metrics whose score weighs the records not sampled by the table's size
NEED_ROWS = ("entropy", "discernibility")


@dataclass
class Scorer:
    """Scores of nodes of `prep`'s lattice (its F0 is the sample's) under
    the classes-of-at-least-k rule."""

    prep: Prepared
    k: int
    metric: str
    # records of the table not in the sample (None: not counted, see module)
    unsampled: int | None = None

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise ParameterError(f"metric must be {one_of(METRICS)}, got {self.metric!r}")
        if self.metric in NEED_ROWS and self.unsampled is None:
            raise ParameterError(f"the {self.metric} score needs the table's row count")

    def scores(self, nodes: Sequence[Sequence[int]]) -> list[float]:
        """The nodes' scores, each divided by the sensitivity."""
        return _core.dp_scores(
            self.prep.problem, [list(n) for n in nodes], self.k, self.metric, self.unsampled or 0
        )

    def score(self, levels: Sequence[int]) -> float:
        """One node's score."""
        return self.scores([levels])[0]
