"""SafePub's search of the lattice (as ARX's data-dependent algorithm does
it): from the most general node down, each step adds the less general
neighbours of the node chosen last (one attribute one level lower) to the
candidates, and the exponential mechanism chooses the next node among all
candidates not chosen yet, with an equal share of the search budget. The
answer is one of the chosen nodes (the first, the top, included):

- ``final="best"``: the one of the best score, ties to the lower node, as
  SafePub and ARX choose it. That choice reads the sample's scores without
  noise, which the search budget does not account for.
- ``final="mechanism"``: a last draw of the exponential mechanism among
  them; the budget is shared by the steps and this draw, so every choice
  the search makes is accounted for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from polars_anon.dp.mechanism import choose

FINALS = ("best", "mechanism")

Node = tuple[int, ...]


@dataclass(frozen=True)
class Walk:
    """The search's path: the nodes chosen in turn (the top first), each
    node scored on the way and its score, and the answer."""

    chosen: list[Node]
    scores: dict[Node, float]
    answer: Node
    epsilon_step: float


def walk(
    heights: list[int],
    score: Callable[[list[Node]], list[float]],
    steps: int,
    epsilon: float,
    draws: Iterator[float],
    sensitivity: float = 1.0,
    final: str = "best",
) -> Walk:
    """Run `steps` steps from the top of the lattice of `heights`. `score`
    gives the scores of new nodes (already divided by their sensitivity, so
    ``sensitivity`` is 1 for SafePub's scores); `epsilon` is the search
    budget."""
    selections = steps + (1 if final == "mechanism" else 0)
    # ARX rounds each step's share down
    step_eps = math.nextafter(epsilon / selections, 0.0) if selections else 0.0
    top: Node = tuple(heights)
    scores: dict[Node, float] = {top: score([top])[0]}
    candidates: dict[Node, None] = {top: None}  # in the order they were found
    chosen = [top]
    pivot = top
    for _ in range(steps):
        new = [
            below
            for a in range(len(pivot))
            if pivot[a] > 0
            for below in [(*pivot[:a], pivot[a] - 1, *pivot[a + 1 :])]
            if below not in scores
        ]
        if new:
            for node, s in zip(new, score(new), strict=True):
                scores[node] = s
                candidates[node] = None
        candidates.pop(pivot, None)
        if not candidates:
            break
        pool = list(candidates)
        pivot = pool[choose([scores[c] for c in pool], step_eps, sensitivity, draws)]
        chosen.append(pivot)
    if final == "mechanism":
        answer = chosen[choose([scores[c] for c in chosen], step_eps, sensitivity, draws)]
    else:
        answer = max(chosen, key=lambda c: (scores[c], -sum(c)))
    return Walk(chosen, scores, answer, step_eps)
