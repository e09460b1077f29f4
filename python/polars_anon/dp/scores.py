"""SafePub's score functions (Bild, Kuhn and Prasser 2018, as ARX computes
them): the utility of a generalization scheme on the sample, higher is
better, already divided by its sensitivity (the most one record can change
it), so that the exponential mechanism weighs a candidate by
``exp(epsilon * score / 2)``.

At a node, a class is kept when at least k sampled records fall in it;
``sup`` counts the sampled records of the other classes and every record
not sampled (``unsampled``: ARX scores them as suppressed), and ``n`` is
the table's rows (sampled or not). With d quasi-identifiers:

- ``loss`` (granularity): -(sum over attributes of [sum over kept records
  of the share of the hierarchy's leaves under the record's value, plus
  sup]) / d / (k - 1).
- ``precision`` (intensity): -(sum over attributes of [kept records *
  level / height, plus sup]) / d / (k - 1).
- ``entropy`` (non-uniform entropy): -(sum over attributes a of [n * (sup
  + kept records whose value at a is the hierarchy's single root) + sum
  over the other values v of (kept records with value v at a)^2]) / (n *
  d) / (k^2 / (k - 1) + 1).
- ``discernibility``: -(n * sup + sum over kept classes of their size^2)
  / n / (k^2 / (k - 1) + 1).
- ``aecs`` (group size): the kept classes, plus one when anything is
  suppressed (the suppressed records look like one class); sensitivity 1.

For k = 1 the sensitivities are 1 (loss, precision) and 5 (entropy,
discernibility). The unsampled records add the same amount to every
node's loss, precision and aecs, so leaving them out (``unsampled=None``:
not counted) changes none of the mechanism's probabilities or the best
node; entropy and discernibility weigh them with n, and need the count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import polars as pl

from polars_anon.exceptions import ParameterError
from polars_anon.prepare.prepared import Prepared

METRICS = ("loss", "precision", "entropy", "discernibility", "aecs")

# the metrics whose score weighs the records not sampled by the table's size
NEED_ROWS = ("entropy", "discernibility")


def sensitivity(metric: str, k: int) -> float:
    """What one record can change the metric's raw score by (ARX's)."""
    if metric in ("loss", "precision"):
        return float(k - 1) if k > 1 else 1.0
    if metric in ("entropy", "discernibility"):
        return k * k / (k - 1) + 1.0 if k > 1 else 5.0
    return 1.0


@dataclass
class Scorer:
    """Scores of nodes of `prep`'s lattice (its F0 is the sample's) under
    the classes-of-at-least-k rule."""

    prep: Prepared
    k: int
    metric: str
    # records of the table not in the sample (None: not counted, see module)
    unsampled: int | None = None
    _shares: list[list[list[float]]] = field(init=False, repr=False)
    _roots: list[list[int | None]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise ParameterError(f"metric must be one of {METRICS}, got {self.metric!r}")
        if self.metric in NEED_ROWS and self.unsampled is None:
            raise ParameterError(f"the {self.metric} score needs the table's row count")
        self._shares, self._roots = [], []
        for h in self.prep.hierarchies:
            per_level: list[list[float]] = []
            roots: list[int | None] = []
            top = h.labels_at(h.height)
            root = top[0] if len(top) == 1 else None
            for level in range(h.height + 1):
                under = Counter(h.leaf_labels(level))
                labels = h.labels_at(level)
                leaves = len(h.leaves)
                per_level.append([under[label] / leaves for label in labels])
                roots.append(labels.index(root) if root is not None and root in labels else None)
            self._shares.append(per_level)
            self._roots.append(roots)

    @property
    def sensitivity(self) -> float:
        return sensitivity(self.metric, self.k)

    @property
    def rows(self) -> int:
        """n: the sample's records and the unsampled ones."""
        return self.prep.rows + (self.unsampled or 0)

    def score(self, levels: Sequence[int]) -> float:
        """The node's score, divided by the sensitivity."""
        codes, counts = self.prep.problem.groups(list(levels))
        size = pl.Series(counts, dtype=pl.UInt64)
        keep = size >= self.k
        kept = size.filter(keep)
        k_records = int(kept.sum())
        sup = self.rows - k_records
        d = len(levels)
        m = self.metric
        if m == "aecs":
            return float(kept.len() + (1 if sup > 0 else 0))
        if m == "discernibility":
            squares = int((kept * kept).sum())
            return -(self.rows * sup + squares) / (self.rows * self.sensitivity)
        total = 0.0
        for a, level in enumerate(levels):
            if m == "precision":
                h = self.prep.hierarchies[a].height
                total += (k_records * level / h if h else 0.0) + sup
                continue
            code = pl.Series(codes[a], dtype=pl.UInt32).filter(keep)
            if m == "loss":
                share = pl.Series(self._shares[a][level], dtype=pl.Float64)
                total += float((share.gather(code) * kept).sum()) + sup
                continue
            # entropy: records per value at this attribute, over the kept classes
            per_value = pl.DataFrame({"v": code, "c": kept}).group_by("v").agg(pl.col("c").sum())
            root = self._roots[a][level]
            at_root = per_value.filter(pl.col("v") == root) if root is not None else None
            root_records = int(at_root.get_column("c").sum()) if at_root is not None else 0
            rest = per_value.filter(pl.col("v") != root) if root is not None else per_value
            c = rest.get_column("c")
            squares = int((c * c).sum())
            total += self.rows * (sup + root_records) + squares
        if m == "entropy":
            return -total / (self.rows * d) / self.sensitivity
        return -total / d / self.sensitivity
