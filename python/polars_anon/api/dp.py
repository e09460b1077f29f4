"""(epsilon, delta)-differentially private microdata by SafePub (Bild, Kuhn
and Prasser, PoPETs 2018): sample, generalize with a scheme chosen by the
exponential mechanism, suppress the small classes."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import ConfigError
from polars_anon.dp import engines as on_engine
from polars_anon.dp.parameters import MAX_EPSILON, MIN_EPSILON, budget_in_range, dp_parameters
from polars_anon.dp.randomness import Draws, key_of, sample_expr
from polars_anon.dp.scores import METRICS, NEED_ROWS, Scorer
from polars_anon.dp.search import FINALS, walk
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.frames import as_lazy, fresh_name
from polars_anon.inputs.hierarchies import Hierarchies, resolve_hierarchies
from polars_anon.inputs.nulls import Nulls
from polars_anon.inputs.params import as_int, as_real, choice, columns_of
from polars_anon.prepare.f0 import prepare
from polars_anon.reports.render import names_text, plural
from polars_anon.results.dp import DPResult

# SafePub's evaluation: 300 steps, a tenth of epsilon for the search
STEPS = 300
SEARCH_SHARE = 0.1


def differential_privacy(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies,
    epsilon: float,
    delta: float,
    seed: int | None = None,
    *,
    steps: int = STEPS,
    metric: str = "loss",
    search_share: float = SEARCH_SHARE,
    generalization: Mapping[str, int] | None = None,
    final: str = "best",
    nulls: Nulls = "error",
) -> DPResult:
    """Release the table (epsilon, delta)-differentially private, as SafePub
    does: sample each record with probability beta, generalize the
    quasi-identifiers with one scheme (levels), and suppress every class of
    fewer than k sampled records; k and beta come from the anonymization
    budget and ``delta`` (`dp_parameters`).

    The scheme is chosen on the sample by SafePub's search (``steps``
    steps of the exponential mechanism from the top of the lattice, scored
    by ``metric``: ``"loss"``, ``"precision"``, ``"entropy"``,
    ``"discernibility"`` or ``"aecs"``, see `polars_anon.dp.scores`), which
    spends ``search_share`` of ``epsilon``; the rest is the anonymization
    budget. ``final``: how the answer is taken from the nodes the search
    chose (``"best"``, SafePub's and ARX's; ``"mechanism"``, accounted for
    in full: see `polars_anon.dp.search`). With ``generalization`` (a
    level for each quasi-identifier, 0 where none is named, fixed without
    looking at the data) there is no search and all of ``epsilon`` goes to
    the anonymization. The search needs a hierarchy for every
    quasi-identifier, made without looking at the data: one built from the
    column's own values (`pa.hierarchy` builders given the column) makes
    its scores move with a record; give the builders the whole domain.

    The randomness is a ChaCha20 keystream under a key drawn from the
    operating system, or derived from ``seed`` (reproducible: for tests
    and examples, not for a release whose seed could be known). The sample
    is drawn where the rows are read, and drawn again the same way when the
    release is collected or written, so the table is read twice in all
    (three times for a LazyFrame whose rows must be counted: the entropy
    and discernibility scores weigh the records left out of the sample by
    the table's size). A DuckDB relation or Spark DataFrame is sampled
    there, by a keyed hash of each record's place (`polars_anon.dp.engines`;
    a DuckDB relation whose rows come out in no fixed order is refused).

    The release holds the quasi-identifiers only: every other column is
    left out (``result.left_out``), since a value passed through unchanged
    would single out its record.

    >>> import polars_anon as pa
    >>> lf, hs = pa.datasets.adult()
    >>> qis = ["age", "sex", "race", "marital-status", "education"]
    >>> r = pa.differential_privacy(lf, qis, hs, epsilon=1.0, delta=1e-5, seed=7)
    >>> r.k, round(r.beta, 4)
    (59, 0.5934)
    >>> out = r.apply().collect()
    >>> int(out.group_by(qis).len().get_column("len").min()) >= r.k
    True
    """
    eps = as_real("epsilon", epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise ParameterError(f"epsilon must be a positive number, got {epsilon!r}")
    metric = choice("metric", metric, METRICS)
    final = choice("final", final, FINALS)
    n_steps = as_int("steps", steps)
    if n_steps < 0:
        raise ParameterError(f"steps must be >= 0, got {n_steps}")
    share = as_real("search_share", search_share)
    if generalization is None:
        if not 0 < share < 1:
            raise ParameterError(f"search_share must be in (0, 1), got {search_share!r}")
        eps_search = eps * share
        # ARX rounds the anonymization budget down
        eps_anon = math.nextafter(eps - eps_search, 0.0)
    else:
        if not isinstance(generalization, Mapping):
            raise ParameterError(
                "generalization is a mapping of quasi-identifier to level, got "
                f"{type(generalization).__name__}"
            )
        eps_search, eps_anon = 0.0, eps
    if not budget_in_range(eps_anon):
        split = f" after search_share = {share:g}" if generalization is None else ""
        raise ParameterError(
            f"epsilon = {epsilon!r} leaves {eps_anon:.6g} for the anonymization{split}, "
            f"outside [{MIN_EPSILON:g}, {MAX_EPSILON:g}], where k and beta are computed"
        )
    k, beta = dp_parameters(eps_anon, delta)
    qis = columns_of(quasi_identifiers)
    where = engines.engine_of(data)
    key = key_of(seed)
    hs = resolve_hierarchies(hierarchies, qis)
    unbuilt = [q for q in qis if q not in hs]
    if generalization is None and unbuilt:
        # an identity hierarchy is built from the data's own values: its
        # leaves, which the search's scores count, then move with one record
        # (the loss score's change grew with the rows), past the
        # sensitivity the exponential mechanism's epsilon assumes
        raise ConfigError(
            f"the {plural('quasi-identifier', unbuilt)} {names_text(unbuilt)} "
            f"{'has' if len(unbuilt) == 1 else 'have'} no hierarchy in hierarchies=: SafePub's "
            "search scores nodes through each column's hierarchy, which must not "
            "come from the data (one built from its own values moves with each record). Give "
            "each a hierarchy over the column's whole domain (pa.Hierarchy.from_rows([[v, '*'] for "
            "v in domain]), or a pa.hierarchy builder given the domain, not the column), or "
            "fix the levels with generalization="
        )
    if where == "polars":
        lf = as_lazy(data)
        columns = lf.collect_schema().names()
        index = fresh_name("__polars_anon_row", columns)
        sample = lf.with_row_index(index).filter(sample_expr(key, beta, index)).drop(index)
    else:
        # drawn where the rows are (refuses a frequency set, or a relation
        # whose rows cannot be numbered the same way twice)
        sample = on_engine.sampled(data, where, key, beta)
        columns = engines.schema(data, where).names()
    prep = dataclasses.replace(prepare(sample, qis, hs, nulls=nulls), sampled=True)
    if prep.rows < k:
        raise ConfigError(
            f"the sample holds {prep.rows} records of the table, fewer than k = {k}: every "
            f"record would be suppressed (k and beta = {beta:.4g} come from epsilon and delta; "
            "a larger table, a larger delta (a smaller k) or a larger epsilon (a larger "
            "sample: beta = 1 - e^-epsilon) is needed)"
        )
    rows: int | None = None
    if isinstance(data, pl.DataFrame):
        rows = data.height
    elif metric in NEED_ROWS and generalization is None:
        if where == "polars":
            rows = int(lf.select(pl.len()).collect(engine="streaming").item())
        else:
            rows = on_engine.count(data, where)
    left_out = [c for c in columns if c not in qis]
    path = None
    if generalization is None:
        # loss, precision and aecs leave the unsampled out, whatever the input
        # (the same scores from a DataFrame and a LazyFrame; see dp.scores)
        unsampled = rows - prep.rows if rows is not None and metric in NEED_ROWS else None
        scorer = Scorer(prep, k, metric, unsampled)
        path = walk(
            prep.problem.heights,
            scorer.scores,
            n_steps,
            eps_search,
            Draws(key),
            final=final,
        )
        levels = list(path.answer)
    else:
        unknown = [c for c in generalization if c not in qis]
        if unknown:
            raise ConfigError(
                f"generalization names {names_text(unknown)}, which "
                + (
                    "is not a quasi-identifier"
                    if len(unknown) == 1
                    else "are not quasi-identifiers"
                )
                + f" (quasi-identifiers: {names_text(qis)})"
            )
        levels = prep.levels(dict(generalization))
    suppressed = prep.problem.evaluate(levels, k).suppressed
    return DPResult(
        prep=prep,
        k=k,
        beta=beta,
        epsilon=eps,
        delta=float(delta),
        epsilon_search=eps_search,
        epsilon_anonymization=eps_anon,
        levels=dict(zip(qis, levels, strict=True)),
        metric=metric if path is not None else None,
        steps=n_steps if path is not None else 0,
        final=final if path is not None else None,
        left_out=left_out,
        walk=path,
        suppressed=suppressed,
        rows=rows,
    )
