"""`ClassificationReport`: what `classification` measures of a release, the
figures of the model trained on the original, on the release and of the
majority-class baseline, printed aligned in a terminal and as HTML in a
notebook."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import polars as pl

from polars_anon.reports.render import aligned, table_html

MODELS = {
    "logistic_regression": "logistic regression",
    "naive_bayes": "naive Bayes (Bernoulli)",
    "random_forest": "random forest",
}
DATA = ("original", "release", "baseline")
TITLE = "ClassificationReport (ARX's StatisticsClassification, on held-out records)"


class Scores(NamedTuple):
    """A model's figures on the held-out records: ``accuracy`` (the share
    predicted right), ``auc`` (the area under the ROC curve; one-vs-rest,
    averaged over the classes, with more than two) and ``brier`` (ARX's
    Brier score: the squared distance of the predicted probabilities to
    the true class, summed over the classes and averaged over the records;
    in [0, 2], 0 the best: twice the binary Brier score with two classes)."""

    accuracy: float
    auc: float | None
    brier: float


@dataclass(frozen=True, repr=False)
class ClassificationReport:
    """How well a model trained on a release predicts ``target``, beside the
    same model trained on the original (``original``) and the majority
    class of the original's training records (``baseline``, ARX's ZeroR),
    all tested on the same held-out records (``holdout_rows``, their
    positions in the tables, sorted): `Scores` each, and together as the
    DataFrame ``figures``. ``relative_accuracy``, ``relative_auc`` and
    ``brier_skill_score`` are ARX's summaries of them."""

    model: str
    target: str
    features: list[str]
    classes: list[str]
    rows: int
    holdout: float
    seed: int
    holdout_rows: pl.Series
    original: Scores
    release: Scores
    baseline: Scores

    @property
    def figures(self) -> pl.DataFrame:
        """One row per model and data (original, release, baseline):
        accuracy, auc and brier."""
        scores = [self.original, self.release, self.baseline]
        return pl.DataFrame(
            {
                "model": [self.model] * 3,
                "data": list(DATA),
                "accuracy": [s.accuracy for s in scores],
                "auc": [s.auc for s in scores],
                "brier": [s.brier for s in scores],
            },
            schema={
                "model": pl.String,
                "data": pl.String,
                "accuracy": pl.Float64,
                "auc": pl.Float64,
                "brier": pl.Float64,
            },
        )

    @property
    def relative_accuracy(self) -> float:
        """ARX's relative accuracy: (release - baseline) / (original -
        baseline), or release / baseline when the original does no better
        than the baseline."""
        return _relative(self.release.accuracy, self.original.accuracy, self.baseline.accuracy)

    @property
    def relative_auc(self) -> float | None:
        """ARX's relative AUC, as `relative_accuracy` (0 where it is NaN)."""
        r, o, b = self.release.auc, self.original.auc, self.baseline.auc
        return None if r is None or o is None or b is None else _relative(r, o, b)

    @property
    def brier_skill_score(self) -> float:
        """ARX's Brier skill score: 1 - release's Brier / original's (0 when
        the release's is 0)."""
        r, o = self.release.brier, self.original.brier
        return 0.0 if r == 0 else 1 - r / o

    def _rows(self) -> list[tuple[str, Any]]:
        shown = ", ".join(self.classes[:5]) + (", ..." if len(self.classes) > 5 else "")
        held = self.holdout_rows.len()
        return [
            ("model", MODELS.get(self.model, self.model)),
            ("target", f"{self.target}: {len(self.classes)} classes ({shown})"),
            ("features", f"{len(self.features)}: {', '.join(self.features)}"),
            (
                "records",
                f"{self.rows:,}: {self.rows - held:,} to train, {held:,} held out to test "
                f"(holdout={self.holdout}, seed={self.seed})",
            ),
            ("relative accuracy", _figure(self.relative_accuracy)),
            ("relative AUC", _figure(self.relative_auc)),
            ("Brier skill score", _figure(self.brier_skill_score)),
        ]

    def _table(self) -> list[list[str]]:
        rows = [["data", "accuracy", "AUC", "Brier"]]
        for d, s in zip(DATA, (self.original, self.release, self.baseline), strict=True):
            rows.append([d, _figure(s.accuracy), _figure(s.auc), _figure(s.brier)])
        return rows

    def __str__(self) -> str:
        table = self._table()
        widths = [max(len(r[j]) for r in table) for j in range(4)]
        lines = []
        for r in table:
            cells = zip(r, widths, strict=True)
            lines.append(
                "  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(cells))
            )
        rows = self._rows()
        return aligned(TITLE, [*rows[:4], ("figures", "\n".join(lines)), *rows[4:]])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        import html

        table = self._table()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in table[0])
        body = "".join(
            "<tr>"
            + "".join(
                f"<td style='text-align:{'left' if j == 0 else 'right'}'>{html.escape(c)}</td>"
                for j, c in enumerate(r)
            )
            + "</tr>"
            for r in table[1:]
        )
        figures = f"<table><tr>{head}</tr>{body}</table>"
        return table_html(TITLE, self._rows()).removesuffix("</div>") + figures + "</div>"


def _figure(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.4f}"


def _relative(release: float, original: float, baseline: float) -> float:
    v = release / baseline if original == baseline else (release - baseline) / (original - baseline)
    return 0.0 if math.isnan(v) else v
