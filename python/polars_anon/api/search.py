"""The searches of the lattice: `search` (any algorithm, or the one the
lattice's size calls for) and `incognito`; `mu_argus` is its own module."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from polars_anon._core import ALGORITHMS, ConfigError
from polars_anon.api import auto
from polars_anon.api.mu_argus import mu_argus
from polars_anon.criteria.base import Criteria, against_population, listed, sensitive_of
from polars_anon.inputs.hierarchies import Hierarchies
from polars_anon.inputs.nulls import Nulls
from polars_anon.inputs.params import (
    as_bool,
    as_int,
    check_k,
    max_suppressed,
    seconds,
    size,
    texts,
)
from polars_anon.prepare.f0 import prepare
from polars_anon.prepare.prepared import Prepared
from polars_anon.reports.render import one_of
from polars_anon.results.best import OF_METRIC, WALKS
from polars_anon.results.call import SearchCall
from polars_anon.results.search import SearchResult
from polars_anon.roles.resolve import columns_of
from polars_anon.roles.spec import Identifiers, Roles, roles_of

# algorithm -> its variants, the default first (the core's registry)
VARIANTS: dict[str, list[str]] = dict(ALGORITHMS)


# what a search may hold by default: safe on a laptop
DEFAULT_MEMORY_BUDGET = 2 << 30


# the heuristic's time limit when none is given (seconds)
HEURISTIC_SECONDS = 10.0

METRICS = (
    "loss",
    "height",
    "precision",
    "discernibility",
    "aecs",
    "entropy",
    "ambiguity",
    "kl_divergence",
)


def _bytes(memory_budget: Any) -> int:
    n = size("memory_budget", memory_budget)
    if n == 0:
        raise ConfigError("memory_budget must be more than 0 bytes (512M, 4G, ...)")
    return min(n, 2**64 - 1)


def search(
    data: Any,
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
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    nulls: Nulls = "error",
    metric: str = "loss",
    seed: int = 0,
    identifiers: Identifiers | None = None,
    insensitive: Sequence[str] | None = None,
) -> SearchResult:
    """Search the full-domain generalization lattice for k-anonymous nodes.

    ``algorithm="auto"`` (the default) picks by the lattice's size: the
    complete Incognito up to a million nodes, ``"optimal"`` up to 10^8, the
    ``"heuristic"`` beyond; ``result.algorithm`` and ``result.reason`` say
    which and why. Under suppression, and without it where at least 90% of
    the records are distinct on the quasi-identifiers, it runs the optimal
    walk first and the complete search only when every anonymous node is
    asked for (``best`` by another criterion than the metric's,
    ``anonymous``, ``minimal``).
    ``"optimal"`` finds one node of the least ``metric`` (``"loss"``, ARX's;
    ``"height"``; ``"precision"``, 1 - Prec; ``"discernibility"``; ``"aecs"``,
    ARX's average class size; ``"entropy"``, ARX's non-uniform entropy,
    suppressed records counted; ``"ambiguity"``; ``"kl_divergence"``, which
    has no bound, so every node reached is valued) without enumerating the
    anonymous set: a best-first walk in order of the metric's
    lower bound; ``result.best("min_loss")`` (or ``"min_height"``,
    ``"max_precision"``) is that optimum, ``result.minimal`` the nodes of the
    best value, ``result.anonymous`` every anonymous node it evaluated.
    ``"heuristic"`` (for 15 to 40 quasi-identifiers) runs Datafly's path,
    seeded greedy dives and descents, then the optimal walk, until
    ``time_limit`` (default 10 s); ``result.proven_optimal`` says whether the
    walk ended; the same ``seed`` gives the same answer unless the time limit
    cuts it short.

    ``algorithm``: ``"incognito"`` (``variant`` ``"basic"``, ``"super_roots"`` or
    ``"cube"``, the default), ``"samarati"`` (binary search on height; returns the
    anonymous nodes it evaluated), ``"bottom_up"`` (``"rollup"`` or ``"no_rollup"``),
    ``"mingen"`` (every node), ``"datafly"`` (Sweeney's greedy path: from the
    leaves, generalize the attribute with the most distinct values until the
    suppression budget is met; one node, not proven optimal) or ``"mu_argus"``
    (see `mu_argus`; its output can fail k-anonymity). ``engine`` picks how
    rollups run: ``"auto"`` (the native kernel wherever a rollup's codes pack into
    63 bits, which with many columns it checks target by target; lazy Polars
    plans elsewhere), ``"native"`` (the kernel only: an error where the leaf codes
    do not pack) or ``"polars"`` (lazy plans); the answers are identical. With
    ``trace=True`` the result's ``trace`` lists every graph searched (for Incognito,
    one per iteration: nodes, roots, edges and what was checked or marked). From
    iteration 2 on, Incognito's graphs leave out every candidate with an attribute
    at a level of one value (``*``): its frequency set is that of its projection
    without the attribute, a node of an earlier iteration, which answers for it;
    ``infer_projections=False`` builds and checks them as the paper does (same
    answers, many more checks; the traces are then the paper's figures). A search
    that runs over a second shows a progress bar unless ``progress=False``; Ctrl-C
    stops it with ``KeyboardInterrupt``. ``criteria`` adds sensitive-attribute models
    (`PSensitive`, `DistinctLDiversity`, `TCloseness`, ...): every node returned
    satisfies k and all of them. Entropy and recursive l-diversity and t-closeness
    are not monotone once failing groups are suppressed, so with ``max_suppression``
    they need ``algorithm="mingen"``, which checks every node.

    A DuckDB relation or Spark DataFrame is grouped where it lives, at each
    quasi-identifier's lowest useful level (the lowest at which the column
    alone leaves at most ``max_suppression`` tuples in groups smaller than
    k: no anonymous node lies below it), so that few rows cross; every
    search but Datafly answers as on the raw values, and a release at levels
    below those floors is refused as not anonymous.

    ``nulls``: a null quasi-identifier is an error (``"error"``, the default), or
    a value of its own (``"value"``): ``NULL``, placed by its hierarchy's row
    for ``NULL`` if it has one, else generalized straight to the top; the
    release keeps the nulls as nulls where the column is not generalized.

    ``identifiers`` (columns that name a person: a list drops them, a dict
    maps each to `Pseudonym` or `Mask`) and ``insensitive`` (columns declared
    safe to pass through): the roles of the table's other columns, carried to
    ``result.apply`` and the ``sink_*`` writes. A column with no role is
    released as it is, unless it would identify records on its own (more
    distinct values than half the rows, in a table of 20 rows or more): then
    the release is refused with an error naming it.

    Every search is bounded. ``time_limit`` (seconds): past it, the search stops
    and answers with the nodes it has confirmed anonymous so far
    (``result.stopped`` says so and ``result.complete`` is False).
    ``memory_budget`` (bytes, default 2 GiB): what the search may hold; a search
    that would hold more (the whole lattice for bottom-up and MinGen, a layer of
    it for Samarati, each graph for Incognito) is refused before it starts, or
    before Incognito builds that graph, with `SearchTooLargeError` naming the
    lattice's size; one that comes to hold more while it runs (counted by the
    core's allocator beyond what it held when it began) stops with that error,
    or, for ``optimal`` and ``heuristic``, answers with the nodes found so far.

    >>> from polars_anon import datasets
    >>> lf, hs = datasets.patients()
    >>> r = search(lf, ["Birthdate", "Sex", "Zipcode"], hs, k=2)
    >>> r.minimal.height, r.best("min_height")
    (3, {'Birthdate': 1, 'Sex': 1, 'Zipcode': 0})
    """
    roles = roles_of(identifiers, insensitive)
    texts(algorithm=algorithm, engine=engine, metric=metric, nulls=nulls)
    if variant is not None:
        texts(variant=variant)
    trace, progress = as_bool("trace", trace), as_bool("progress", progress)
    infer_projections = as_bool("infer_projections", infer_projections)
    if algorithm == "mu_argus":
        if variant is not None or criteria:
            raise ConfigError("algorithm='mu_argus' takes no variant and no criteria")
        argus = mu_argus(data, quasi_identifiers, hierarchies, k, max_suppression, nulls=nulls)
        _carry(argus, roles)
        return argus
    variant, seed = _options(algorithm, variant, metric, seed)
    floors = floors_for(algorithm, criteria, metric, k, max_suppression)
    prep = prepare(
        data, quasi_identifiers, hierarchies, sensitive_of(criteria), nulls, floors_for=floors
    )
    result = searched(
        prep,
        k,
        max_suppression,
        algorithm,
        variant,
        engine,
        trace,
        progress,
        criteria,
        infer_projections,
        time_limit,
        memory_budget,
        metric,
        seed,
    )
    _carry(result, roles)
    return result


def floors_for(
    algorithm: str,
    criteria: Criteria,
    metric: str,
    k: int,
    max_suppression: int | float,
    aim: str | None = None,
) -> tuple[int, int | float] | None:
    """Off Polars, F0 at each attribute's lowest useful level (`prepare.floors`):
    exact for every search but Datafly and mu-Argus, whose paths start at the
    leaves, for every metric but KL divergence, which compares with them, and
    for every criterion but those against a population; None: at the leaves.
    `aim` (default: that of `aiming`): see `aiming`."""
    metric = auto.aimed(algorithm, metric, AIM.get() if aim is None else aim)
    raw = algorithm in ("datafly", "mu_argus") or metric == "kl_divergence"
    return None if raw or against_population(criteria) else (k, max_suppression)


# the criterion the caller will rank the result by (`aiming`)
AIM: ContextVar[str | None] = ContextVar("polars_anon_aim", default=None)


@contextmanager
def aiming(aim: str) -> Iterator[None]:
    """The searches started within rank their result by the criterion `aim`
    (the command line's --preference; a job passes its own to `searched`):
    `auto` walks by the metric whose walk answers it where one does, and
    else runs the complete search at once, not the walk first; a walk that
    cannot answer it is refused before it runs (`auto.aimed`)."""
    token = AIM.set(aim)
    try:
        yield
    finally:
        AIM.reset(token)


def _carry(result: SearchResult, roles: Roles) -> None:
    """`roles` checked against the searched table's columns (the rule for
    undeclared columns waits for a release) and carried to the result's
    releases (apply, sink_*)."""
    prep = result._prep
    if roles and prep.engine != "counts":
        source = prep.lazy if prep.engine == "polars" else prep.source
        roles.validate(columns_of(source, prep.engine), prep.quasi_identifiers, prep.sensitive)
    result.roles = roles


def _options(algorithm: str, variant: str | None, metric: str, seed: Any) -> tuple[str | None, int]:
    """A search's algorithm and metric checked, its variant (None: the
    algorithm's default) and its seed."""
    if algorithm != "auto" and algorithm not in VARIANTS:
        raise ConfigError(
            f"unknown algorithm {algorithm!r}; expected {one_of(['auto', 'mu_argus', *VARIANTS])}"
        )
    if metric not in METRICS:
        raise ConfigError(f"unknown metric {metric!r}; expected {one_of(METRICS)}")
    seed = as_int("seed", seed)
    if not 0 <= seed < 2**64:
        raise ConfigError(f"seed must be an integer in [0, 2^64), got {seed}")
    if algorithm != "auto":
        variant = _variant(algorithm, variant)
    elif variant is not None:
        raise ConfigError("algorithm='auto' takes no variant; name the algorithm")
    return variant, seed


def _variant(algorithm: str, variant: str | None) -> str | None:
    """`variant` of `algorithm` after checking it has it; None: its default."""
    variants = VARIANTS[algorithm]
    if variant is None:
        return variants[0] if variants else None
    if not variants:
        raise ConfigError(f"algorithm {algorithm!r} takes no variant; got {variant!r}")
    if variant not in variants:
        raise ConfigError(
            f"algorithm {algorithm!r} has no variant {variant!r}; expected {one_of(variants)}"
        )
    return variant


def searched(
    prep: Prepared,
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
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    metric: str = "loss",
    seed: int = 0,
    aim: str | None = None,
) -> SearchResult:
    """`search` of a prepared table (`search` prepares it for the model: at
    floor levels off Polars, except for Datafly); `aim` (default: that of
    `aiming`): see `aiming`."""
    variant, seed = _options(algorithm, variant, metric, seed)
    aim = AIM.get() if aim is None else aim
    metric, picked, reason = auto.aimed(algorithm, metric, aim), algorithm == "auto", None
    k = check_k(k, prep.rows)
    max_sup = max_suppressed(max_suppression, prep.rows)
    limit, budget, later = seconds(time_limit), _bytes(memory_budget), None
    args = (k, max_sup, engine, progress, listed(criteria), infer_projections)
    if algorithm == "auto":
        algorithm, reason = auto.pick(prep.problem.heights, listed(criteria), max_sup > 0)
        variant = _variant(algorithm, None)
        first = auto.walk_first(
            algorithm,
            reason,
            max_sup > 0,
            auto.Distinct.of(prep),
            metric,
            limit is not None,
            aim,
        )
        if first is not None and not trace:
            reason = f"{reason}; {first[2]}"
            later = SearchCall(algorithm, variant, reason, *args, limit, budget, metric, seed)
            algorithm, variant, reason = first[0], None, first[1]
    if aim is not None and algorithm in WALKS and OF_METRIC.get(metric) != aim:
        # a criterion no walk answers (`auto.aimed`): refused before it runs
        raise ConfigError(
            f"{aim!r} ranks every anonymous node, which the {algorithm} search does not find"
            + (f" (auto chose it: {reason})" if picked else "")
            + ": name algorithm='incognito', the complete search (raise memory_budget if it "
            f"refuses the lattice), or rank by one a walk answers: {', '.join(OF_METRIC.values())}"
        )
    if algorithm == "heuristic" and limit is None:
        limit = HEURISTIC_SECONDS
    call = SearchCall(algorithm, variant, reason, *args, limit, budget, metric, seed, trace)
    raw = call.run(prep)
    result = SearchResult(
        prep, raw, algorithm, variant, k, max_suppression, listed(criteria), metric, reason
    )
    if picked and later is None and algorithm in WALKS:
        result._walk = call  # to walk again by another metric (`results.walks`)
    if later is not None:
        result._deferred = later
        if raw.stopped is not None or not raw.proven_optimal or not result._minimal_nodes:
            # the walk stopped (on the memory budget) or found no node: the
            # complete search now, as auto ran it before (its refusal, or
            # its own account of why no node is anonymous)
            result._complete()
        else:
            # a result whose complete search is put off answers as a complete one
            result.complete = True
    return result


def incognito(
    data: Any,
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
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    nulls: Nulls = "error",
    identifiers: Identifiers | None = None,
    insensitive: Sequence[str] | None = None,
) -> SearchResult:
    """Incognito (LeFevre et al. 2005): every k-anonymous full-domain generalization.

    ``infer_projections``, ``time_limit``, ``memory_budget``, ``nulls``,
    ``identifiers`` and ``insensitive``: see `search`."""
    return search(
        data,
        quasi_identifiers,
        hierarchies,
        k,
        max_suppression,
        "incognito",
        variant,
        trace=trace,
        criteria=criteria,
        progress=progress,
        infer_projections=infer_projections,
        time_limit=time_limit,
        memory_budget=memory_budget,
        identifiers=identifiers,
        insensitive=insensitive,
        nulls=nulls,
    )
