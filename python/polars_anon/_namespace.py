"""The ``anon`` namespaces: thin wrappers over the typed functions, with the
same parameters (a test compares the signatures)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, overload

import polars as pl

from polars_anon.api import check as api_check
from polars_anon.api import search as api_search
from polars_anon.criteria.base import Criteria
from polars_anon.inputs.hierarchies import Hierarchies
from polars_anon.inputs.nulls import Nulls
from polars_anon.inputs.params import Levels
from polars_anon.reports.check import CheckReport
from polars_anon.results.search import SearchResult
from polars_anon.roles.spec import Identifiers

if TYPE_CHECKING:
    from polars_anon.reports.risk import RiskReport
    from polars_anon.results.dp import DPResult
    from polars_anon.results.local import LocalRecoding
    from polars_anon.results.mondrian import MondrianResult


class _Anon:
    def __init__(self, frame: pl.DataFrame | pl.LazyFrame) -> None:
        self._frame = frame

    def check(
        self,
        quasi_identifiers: Sequence[str],
        k: int,
        hierarchies: Hierarchies | None = None,
        levels: Levels | None = None,
        max_suppression: int | float = 0,
        criteria: Criteria = None,
        nulls: Nulls = "error",
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
    ) -> CheckReport:
        """See `polars_anon.check`."""
        return api_check.check(
            self._frame,
            quasi_identifiers,
            k,
            hierarchies=hierarchies,
            levels=levels,
            max_suppression=max_suppression,
            criteria=criteria,
            nulls=nulls,
            identifiers=identifiers,
            insensitive=insensitive,
        )

    def risk(
        self,
        quasi_identifiers: Sequence[str],
        hierarchies: Hierarchies | None = None,
        levels: Levels | None = None,
        population: int | float | pl.DataFrame | pl.LazyFrame | None = None,
        threshold: float = 0.2,
        nulls: Nulls | None = None,
    ) -> RiskReport:
        """See `polars_anon.risk`."""
        # imported on first use, as `polars_anon.risk` is
        from polars_anon.api import risk as api_risk

        return api_risk.risk(
            self._frame,
            quasi_identifiers,
            hierarchies=hierarchies,
            levels=levels,
            population=population,
            threshold=threshold,
            nulls=nulls,
        )

    @overload
    def generalize(
        self,
        hierarchies: Hierarchies,
        levels: Levels,
        k: int | None = None,
        max_suppression: int | float = 0,
        quasi_identifiers: Sequence[str] | None = None,
        criteria: Criteria = None,
        nulls: Nulls = "error",
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
        *,
        out: None = None,
    ) -> pl.LazyFrame: ...

    @overload
    def generalize(
        self,
        hierarchies: Hierarchies,
        levels: Levels,
        k: int | None = None,
        max_suppression: int | float = 0,
        quasi_identifiers: Sequence[str] | None = None,
        criteria: Criteria = None,
        nulls: Nulls = "error",
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
        *,
        out: str | os.PathLike[str],
    ) -> Path: ...

    def generalize(
        self,
        hierarchies: Hierarchies,
        levels: Levels,
        k: int | None = None,
        max_suppression: int | float = 0,
        quasi_identifiers: Sequence[str] | None = None,
        criteria: Criteria = None,
        nulls: Nulls = "error",
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
        *,
        out: str | os.PathLike[str] | None = None,
    ) -> pl.LazyFrame | Path:
        """See `polars_anon.generalize`: with ``out``, the release written
        there (proven on the file) and the path written."""
        result: pl.LazyFrame | Path = api_check.generalize(
            self._frame,
            hierarchies,
            levels,
            k=k,
            max_suppression=max_suppression,
            quasi_identifiers=quasi_identifiers,
            criteria=criteria,
            nulls=nulls,
            identifiers=identifiers,
            insensitive=insensitive,
            out=out,
        )
        return result

    def search(
        self,
        quasi_identifiers: Sequence[str],
        hierarchies: Hierarchies | None,
        k: int,
        max_suppression: int | float = 0,
        algorithm: str = "auto",
        variant: str | None = None,
        engine: str = "auto",
        trace: bool = False,
        progress: bool = True,
        criteria: Criteria = None,
        infer_projections: bool = True,
        time_limit: float | None = None,
        memory_budget: int = api_search.DEFAULT_MEMORY_BUDGET,
        nulls: Nulls = "error",
        metric: str = "loss",
        seed: int = 0,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
    ) -> SearchResult:
        """See `polars_anon.search`."""
        return api_search.search(
            self._frame,
            quasi_identifiers,
            hierarchies,
            k,
            max_suppression=max_suppression,
            algorithm=algorithm,
            variant=variant,
            engine=engine,
            trace=trace,
            progress=progress,
            criteria=criteria,
            infer_projections=infer_projections,
            time_limit=time_limit,
            memory_budget=memory_budget,
            nulls=nulls,
            metric=metric,
            seed=seed,
            identifiers=identifiers,
            insensitive=insensitive,
        )

    def incognito(
        self,
        quasi_identifiers: Sequence[str],
        hierarchies: Hierarchies | None,
        k: int,
        max_suppression: int | float = 0,
        variant: str = "cube",
        trace: bool = False,
        criteria: Criteria = None,
        progress: bool = True,
        infer_projections: bool = True,
        time_limit: float | None = None,
        memory_budget: int = api_search.DEFAULT_MEMORY_BUDGET,
        nulls: Nulls = "error",
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
    ) -> SearchResult:
        """See `polars_anon.incognito`."""
        return api_search.incognito(
            self._frame,
            quasi_identifiers,
            hierarchies,
            k,
            max_suppression=max_suppression,
            variant=variant,
            trace=trace,
            criteria=criteria,
            progress=progress,
            infer_projections=infer_projections,
            time_limit=time_limit,
            memory_budget=memory_budget,
            nulls=nulls,
            identifiers=identifiers,
            insensitive=insensitive,
        )

    def local_recoding(
        self,
        quasi_identifiers: Sequence[str],
        hierarchies: Hierarchies,
        k: int,
        criteria: Criteria = None,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
    ) -> LocalRecoding:
        """See `polars_anon.local_recoding`."""
        # imported on first use, as `polars_anon.local_recoding` is
        from polars_anon.api.local import local_recoding

        return local_recoding(
            self._frame,
            quasi_identifiers,
            hierarchies,
            k,
            criteria=criteria,
            identifiers=identifiers,
            insensitive=insensitive,
        )

    def mondrian(
        self,
        quasi_identifiers: Sequence[str],
        k: int,
        hierarchies: Hierarchies | None = None,
        criteria: Criteria = None,
        mode: str = "strict",
        numeric: Sequence[str] | None = None,
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
        splits: pl.DataFrame | None = None,
        coarsen: bool = False,
    ) -> MondrianResult:
        """See `polars_anon.mondrian`."""
        # imported on first use, as `polars_anon.mondrian` is
        from polars_anon.api.mondrian import mondrian

        return mondrian(
            self._frame,
            quasi_identifiers,
            k,
            hierarchies=hierarchies,
            criteria=criteria,
            mode=mode,
            numeric=numeric,
            identifiers=identifiers,
            insensitive=insensitive,
            splits=splits,
            coarsen=coarsen,
        )

    def differential_privacy(
        self,
        quasi_identifiers: Sequence[str],
        hierarchies: Hierarchies,
        epsilon: float,
        delta: float,
        seed: int | None = None,
        *,
        steps: int = 300,
        metric: str = "loss",
        search_share: float = 0.1,
        generalization: Mapping[str, int] | None = None,
        final: str = "best",
        nulls: Nulls = "error",
    ) -> DPResult:
        """See `polars_anon.differential_privacy`."""
        # imported on first use, as `polars_anon.differential_privacy` is
        from polars_anon.api.dp import differential_privacy

        return differential_privacy(
            self._frame,
            quasi_identifiers,
            hierarchies,
            epsilon,
            delta,
            seed,
            steps=steps,
            metric=metric,
            search_share=search_share,
            generalization=generalization,
            final=final,
            nulls=nulls,
        )


@pl.api.register_dataframe_namespace("anon")
class AnonFrame(_Anon):
    """``df.anon``: k-anonymity checks, searches and generalization."""

    def generalize_df(
        self,
        hierarchies: Hierarchies,
        levels: Levels,
        k: int | None = None,
        max_suppression: int | float = 0,
        quasi_identifiers: Sequence[str] | None = None,
        criteria: Criteria = None,
        nulls: Nulls = "error",
        identifiers: Identifiers | None = None,
        insensitive: Sequence[str] | None = None,
    ) -> pl.DataFrame:
        """`generalize`, collected."""
        return self.generalize(
            hierarchies,
            levels,
            k=k,
            max_suppression=max_suppression,
            quasi_identifiers=quasi_identifiers,
            criteria=criteria,
            nulls=nulls,
            identifiers=identifiers,
            insensitive=insensitive,
        ).collect()


@pl.api.register_lazyframe_namespace("anon")
class AnonLazyFrame(_Anon):
    """``lf.anon``: k-anonymity checks, searches and generalization."""
