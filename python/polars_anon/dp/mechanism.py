"""The exponential mechanism (McSherry and Talwar 2007): a candidate with
score ``s`` is chosen with probability proportional to
``exp(epsilon * s / (2 * sensitivity))``, which is ``epsilon``-differentially
private when one record changes any score by at most ``sensitivity``."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence


def probabilities(scores: Sequence[float], epsilon: float, sensitivity: float) -> list[float]:
    """Each candidate's probability of being chosen. The exponents are
    shifted by the largest (the ratios, so the probabilities, are the
    same), so no score is too large or too small to weigh."""
    if not scores:
        raise ValueError("the exponential mechanism needs at least one candidate")
    if not sensitivity > 0:
        raise ValueError(f"the sensitivity must be positive, got {sensitivity}")
    exponents = [epsilon * s / (2.0 * sensitivity) for s in scores]
    top = max(exponents)
    weights = [math.exp(e - top) for e in exponents]
    total = math.fsum(weights)
    return [w / total for w in weights]


def choose(
    scores: Sequence[float], epsilon: float, sensitivity: float, draws: Iterator[float]
) -> int:
    """The index of the candidate chosen with the next uniform draw in
    [0, 1): the first whose cumulative probability exceeds it (the last one
    when rounding leaves the sum short of the draw)."""
    p = probabilities(scores, epsilon, sensitivity)
    u = next(draws)
    acc = 0.0
    for i, q in enumerate(p):
        acc += q
        if u < acc:
            return i
    return len(p) - 1
