"""mu-Argus's answer: its one node, and its own cell-suppressed output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polars_anon.reports.render import levels_text
from polars_anon.results.search import SearchResult

if TYPE_CHECKING:
    from polars_anon.algorithms.mu_argus import MuArgus


class MuArgusResult(SearchResult):
    """mu-Argus's answer: its one node in ``anonymous`` when releasing it with
    tuple suppression (what `apply` does) passes, else in ``rejected``, and
    ``mu_argus``: the k its own cell-suppressed output reaches (``k_reached``,
    below k when the untested combinations leave small groups), the cells it
    suppressed, and that output (``mu_argus.masked``)."""

    __slots__ = ("mu_argus",)
    mu_argus: MuArgus

    def _rows(self) -> list[tuple[str, Any]]:
        m = self.mu_argus
        rows = super()._rows()
        # two outputs of one node, said apart: mu-Argus's own (cells
        # suppressed, which may stay below k) and the release `apply` makes
        passes = bool(self._nodes)
        return [
            *rows[:2],
            ("levels", levels_text(m.levels)),
            (
                "its own output (cells suppressed, mu_argus.masked)",
                f"k reached {m.k_reached} of k = {self.k}"
                + (" (not k-anonymous)" if m.k_reached < self.k else "")
                + f": {m.cells_suppressed} cells suppressed in "
                f"{m.records_with_a_suppressed_cell} records (loss with them: {m.loss:.4f})",
            ),
            (
                "the release (apply: tuples suppressed)",
                f"{self.k}-anonymous at these levels"
                if passes
                else f"not {self.k}-anonymous at these levels within max suppression (rejected)",
            ),
            *rows[2:],
        ]

    def _nothing_found(self) -> str:
        # its one node failed tuple suppression: say what mu-Argus made of it
        m = self.mu_argus
        return (
            f"mu-Argus's levels {levels_text(m.levels)} leave groups smaller than "
            f"k = {self.k} beyond max_suppression = {self.max_suppression} rows: "
            f"no release of them with rows suppressed; its own output, with "
            f"{m.cells_suppressed} cells suppressed, reaches k = {m.k_reached} "
            "(mu_argus.masked). Search with algorithm='optimal' or 'incognito' for a "
            "k-anonymous release"
        )
