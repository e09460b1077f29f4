"""The walk by another metric: of a lattice too large for the complete
search (past `api.auto.AUTO_COMPLETE` nodes), ``algorithm="auto"`` answers
with a walk by its metric (``loss`` unless ``metric=`` says otherwise),
which holds only the nodes it valued and so answers that metric's
criterion alone. ``best`` by another criterion that a walk answers
exactly (`best.OF_METRIC`: ``min_height``, ``min_aecs``, ...) runs that
walk on the same prepared table, once (the result keeps it for the next
ask), rather than refusing. Criteria no walk answers (``min_suppression``,
``max_distribution``, ``min_relative_distance``), weights and bounds need
every anonymous node: still refused there, naming the complete search."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from polars_anon.prepare.f0 import at_leaves
from polars_anon.results.best import OF_METRIC


def walk_for(
    result: Any,
    criterion: str | None,
    weights: Mapping[str, float] | None,
    bounds: Mapping[str, Any] | None,
) -> Any | None:
    """The result (a `SearchResult`) of the walk that answers `criterion`
    on `result`'s table, where `result` is a walk `auto` picked for a
    large lattice and `criterion` another walk's; None where `result`
    answers itself, or refuses (`best.chosen`)."""
    call = result._walk
    if call is None or criterion is None or weights or bounds:
        return None
    metric = next((m for m, c in OF_METRIC.items() if c == criterion), None)
    if metric is None or metric == result.metric:
        return None
    walked: dict[str, Any] = result._walks
    if metric not in walked:
        again = dataclasses.replace(call, metric=metric)
        # KL divergence compares with the leaves, which floors group
        prep = at_leaves(result._prep) if metric == "kl_divergence" else result._prep
        other = type(result)(
            prep,
            again.run(prep),
            call.algorithm,
            call.variant,
            result.k,
            result.suppression,
            result.criteria,
            metric,
            result.reason,
        )
        other.roles = result.roles
        other._walk = again
        walked[metric] = other
    return walked[metric]
