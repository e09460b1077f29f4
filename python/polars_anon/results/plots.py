"""A search result's pictures: its lattice, and its anonymous nodes' loss
against their risk (`polars_anon.plot`; the ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import polars as pl

if TYPE_CHECKING:
    from polars_anon.prepare.prepared import Prepared


class Plotted(Protocol):
    """What the plots read of a result."""

    @property
    def quasi_identifiers(self) -> list[str]: ...
    @property
    def k(self) -> int: ...
    @property
    def complete(self) -> bool: ...
    @property
    def _prep(self) -> Prepared: ...
    @property
    def _nodes(self) -> list[list[int]]: ...
    @property
    def _minimal_nodes(self) -> list[list[int]]: ...
    @property
    def anonymous(self) -> pl.DataFrame: ...
    @property
    def best(self) -> Callable[..., dict[str, int]]: ...
    @property
    def column(self) -> Callable[[str], str]: ...
    def _complete(self) -> None: ...


class Plots:
    """The plots of a `SearchResult` (which has every attribute they read)."""

    __slots__ = ()

    def plot_lattice(self: Plotted, criterion: str | None = None) -> Any:
        """The Hasse diagram of the searched lattice, each node coloured not
        anonymous / anonymous / minimal / chosen (by ``criterion``, `best`'s
        default when None); a large
        lattice is summarised by height (a matplotlib Figure; needs the
        ``plot`` extra)."""
        from polars_anon.plot.lattice import lattice

        self._complete()
        chosen = (
            tuple(self.best(criterion)[q] for q in self.quasi_identifiers) if self._nodes else None
        )
        return lattice(
            self._prep.problem.heights,
            self.quasi_identifiers,
            self._nodes,
            self._minimal_nodes,
            chosen,
            self.k,
            self.complete,
        )

    def plot_tradeoff(
        self: Plotted, metric: str = "loss", against: str = "risk", criterion: str = "min_loss"
    ) -> Any:
        """Every anonymous node by ``metric`` (a column of ``anonymous``) against
        the release's average prosecutor risk (``against="risk"``) or its share
        of suppressed records (``"suppression"``), the node ``criterion``
        picks marked (a matplotlib Figure; needs the ``plot`` extra)."""
        self._complete()
        from polars_anon.plot.tradeoff import tradeoff

        return tradeoff(
            self.anonymous,
            self.quasi_identifiers,
            self.column,
            self._prep.rows,
            self.k,
            self.best,
            metric,
            against,
            criterion,
        )
