"""mu-Argus, the seed's heuristic, as `search(algorithm="mu_argus")` and the
jobs run it: one node and its own cell-suppressed output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from polars_anon.inputs.hierarchies import Hierarchies
from polars_anon.inputs.nulls import Nulls
from polars_anon.inputs.params import check_k, max_suppressed
from polars_anon.prepare.f0 import prepare
from polars_anon.prepare.prepared import Prepared

if TYPE_CHECKING:
    from polars_anon.algorithms.mu_argus import Policy
    from polars_anon.results.mu_argus import MuArgusResult


def mu_argus(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies | None,
    k: int,
    max_suppression: int | float = 0,
    groups: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    nulls: Nulls = "error",
) -> MuArgusResult:
    """mu-Argus (the seed's heuristic; see `polars_anon.algorithms.mu_argus`): one node
    and its own cell-suppressed output, which may fail k-anonymity.

    ``groups`` maps quasi-identifiers to ``"identifying"``, ``"more"`` or
    ``"most"`` (default: by their number of distinct values); ``policy(levels,
    outliers)`` returns the attribute to generalize next, or None to stop
    (default: generalize while the records in outlier combinations exceed
    ``max_suppression``). ``result.mu_argus.k_reached`` is the k its output
    reaches; ``result.apply()`` releases its levels with tuple suppression
    only if that passes the check (then its node is in ``anonymous``; else it
    is in ``rejected`` and ``best`` refuses, naming ``mu_argus.masked``).

    >>> from polars_anon import datasets
    >>> lf, hs = datasets.adult()
    >>> r = mu_argus(lf, ["sex", "age", "race", "education"], hs, k=5)
    >>> r.mu_argus.k_reached <= 5 <= r.mu_argus.k_reached + 4
    True
    """
    prep = prepare(data, quasi_identifiers, hierarchies, (), nulls)
    return mu_argus_prepared(prep, k, max_suppression, groups, policy)


def mu_argus_prepared(
    prep: Prepared,
    k: int,
    max_suppression: int | float = 0,
    groups: Mapping[str, str] | None = None,
    policy: Policy | None = None,
) -> MuArgusResult:
    """`mu_argus` on a prepared table (of raw values: no floors)."""
    k = check_k(k, prep.rows)
    max_sup = max_suppressed(max_suppression, prep.rows)
    # imported here: mu-Argus is not needed to search, and a fresh
    # process's import time counts (bench/run.py --e2e)
    from polars_anon.algorithms.mu_argus import run
    from polars_anon.results.mu_argus import MuArgusResult

    own, raw = run(prep, k, max_sup, groups, policy)
    result = MuArgusResult(prep, raw, "mu_argus", None, k, max_suppression)
    object.__setattr__(result, "mu_argus", own)
    return result
