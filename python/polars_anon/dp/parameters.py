"""SafePub's parameters from the anonymization budget: the sampling
probability beta and the smallest class size k that make sampling,
generalization and suppression (epsilon, delta)-differentially private
(Li, Qardaji and Su 2012; Bild, Kuhn and Prasser 2018), computed as ARX's
``ParameterCalculation`` does, so both give the same k and beta.

- beta = 1 - e^-epsilon, rounded down (ARX keeps the lower end of an
  interval computation: a few units in the last place below the plain
  formula).
- gamma = (e^epsilon - 1 + beta) / e^epsilon.
- For a class size k, delta(k) is the largest, over n from
  ceil(k / gamma - 1) on, of a_n = P[Binomial(n, beta) > floor(n gamma)],
  taken until it exceeds c_n = exp(-n (gamma ln(gamma / beta) - (gamma -
  beta))), the Chernoff bound on every later a_n.
- k is one more than the smallest k with delta(k) < delta: ARX's loop
  returns that (its counter moves past the k it tested), and so do we, so
  that a release here and one from ARX use the same k. The guarantee holds
  for any k whose delta(k) is below delta, and the k returned is checked to
  be one.
"""

from __future__ import annotations

import math
from functools import lru_cache

from polars_anon.exceptions import ParameterError
from polars_anon.inputs.params import as_real

# the largest k searched for (a larger one would suppress nearly any table)
MAX_K = 1 << 16

# the largest anonymization budget taken: beyond, beta is above 0.99 (nearly
# every record sampled) and delta(k) falls so slowly with k that finding k
# takes more than seconds (5: k = 1704 at delta = 1e-5, in 11 s)
MAX_EPSILON = 5.0

# the smallest taken: below, beta samples a thousandth of the records or
# fewer, and finding k takes tens of seconds (1e-4: 17 s)
MIN_EPSILON = 1e-3

# the smallest delta taken: the binomial tails delta(k) is found from must
# stay far from the doubles' underflow
MIN_DELTA = 1e-30


def beta_of(epsilon: float) -> float:
    """The sampling probability for the anonymization budget ``epsilon``,
    rounded down as ARX rounds it."""
    return math.nextafter(
        1.0 - math.nextafter(math.exp(math.nextafter(-epsilon, math.inf)), math.inf), -math.inf
    )


def _log_pmf(j: int, n: int, beta: float) -> float:
    return (
        math.lgamma(n + 1)
        - math.lgamma(j + 1)
        - math.lgamma(n - j + 1)
        + j * math.log(beta)
        + (n - j) * math.log1p(-beta)
    )


def _tail(n: int, beta: float, gamma: float) -> float:
    """P[Binomial(n, beta) > floor(n gamma)]: the terms fall from the first
    on (gamma > beta puts it above the mean), so the sum stops once they
    no longer change it."""
    total = 0.0
    for j in range(math.floor(n * gamma) + 1, n + 1):
        term = math.exp(_log_pmf(j, n, beta))
        total += term
        if term <= total * 1e-17:
            break
    return total


@lru_cache(maxsize=256)
def delta_of(k: int, epsilon: float) -> float:
    """delta(k) for the anonymization budget ``epsilon`` (see the module)."""
    beta = beta_of(epsilon)
    e = math.exp(epsilon)
    gamma = (e - 1.0 + beta) / e
    rate = gamma * math.log(gamma / beta) - (gamma - beta)
    n = max(math.ceil(k / gamma - 1.0), 1)
    worst = -math.inf
    while True:
        worst = max(worst, _tail(n, beta, gamma))
        bound = math.exp(-n * rate)
        if worst > bound:
            return worst
        if bound == 0.0:  # underflow: refused by the bounds on epsilon and delta
            raise ParameterError("delta(k) underflows: raise delta or epsilon")
        n += 1


def budget_in_range(epsilon: float) -> bool:
    """Whether an anonymization budget is one k and beta are computed for
    (ARX's range)."""
    return math.isfinite(epsilon) and MIN_EPSILON <= epsilon <= MAX_EPSILON


def dp_parameters(epsilon: float, delta: float) -> tuple[int, float]:
    """(k, beta) for the anonymization budget ``epsilon`` and ``delta``, as
    ARX computes them (see the module): a release that samples each record
    with probability beta, generalizes with a scheme chosen independently
    of the data and suppresses every class of fewer than k sampled records
    is (epsilon, delta)-differentially private.

    >>> dp_parameters(1.0, 1e-5)
    (62, 0.6321205588285574)
    """
    epsilon, delta = as_real("epsilon", epsilon), as_real("delta", delta)
    if not budget_in_range(epsilon):
        raise ParameterError(
            f"epsilon (the anonymization budget) must be in [{MIN_EPSILON:g}, {MAX_EPSILON:g}], "
            f"got {epsilon!r}"
        )
    if not MIN_DELTA <= delta < 1:
        raise ParameterError(f"delta must be in [{MIN_DELTA:g}, 1), got {delta!r}")
    # the smallest k with delta(k) < delta: delta(k) falls as k grows, so
    # by doubling and halving (ARX tries every k from 1; the same k, in
    # fewer evaluations of delta(k), which cost more as k grows)
    high = 1
    while delta_of(high, epsilon) >= delta:
        high *= 2
        if high > MAX_K:
            raise ParameterError(
                f"epsilon = {epsilon} and delta = {delta} need classes of more than "
                f"{MAX_K:,} records: lower epsilon or raise delta"
            )
    low = high // 2  # delta(low) >= delta, or low = 0
    while high - low > 1:
        mid = (low + high) // 2
        if delta_of(mid, epsilon) < delta:
            high = mid
        else:
            low = mid
    k = high + 1  # ARX's k (see the module)
    while delta_of(k, epsilon) >= delta:  # never seen: delta(k) falls with k
        k += 1
    return k, beta_of(epsilon)
