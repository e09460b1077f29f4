"""A search's call: its arguments without the table, run on a prepared
table now, or kept to run later.

Under suppression (and without it where nearly every record is distinct:
`api.auto.walk_first`) the optimal walk answers ``best`` by its metric's
criterion in a fraction of the complete search's time (bench/README,
"auto under suppression"), so ``algorithm="auto"`` runs the walk and keeps
the complete search's call to run it later, on the same prepared table,
when the result is asked for more than that one optimum: every anonymous
node (``anonymous``, ``minimal``, ``rejected``, ``evaluated``, the plots),
or ``best`` by another criterion, with weights or bounds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from polars_anon._core import SearchOutcome
from polars_anon.prepare.prepared import Prepared


@dataclass(frozen=True)
class SearchCall:
    """A search's arguments (those of `polars_anon.search`, checked), and
    why `auto` picked it (None: named), without the table."""

    algorithm: str
    variant: str | None
    reason: str | None
    k: int
    max_suppressed: int
    engine: str
    progress: bool
    criteria: list[Any]
    infer_projections: bool
    time_limit: float | None
    memory_budget: int
    metric: str
    seed: int
    trace: bool = False

    def run(self, prep: Prepared) -> SearchOutcome:
        """The search of `prep`, with a progress bar if asked for."""
        bar = None
        if self.progress:
            from polars_anon.api.progress import SearchProgress

            bar = SearchProgress(f"polars-anon {self.algorithm}", self.metric)
        try:
            return prep.problem.search(
                self.algorithm,
                self.variant,
                self.k,
                self.max_suppressed,
                self.engine,
                self.trace,
                bar,
                prep.model(self.criteria),
                self.infer_projections,
                self.time_limit,
                self.memory_budget,
                self.metric,
                self.seed,
            )
        finally:
            if bar is not None:
                bar.close()
