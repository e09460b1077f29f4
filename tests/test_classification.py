"""Machine-learning utility (#29, item 3): `classification` trains the same
model on the original and on a release of Adult and tests both on the same
held-out records. On the original its figures are scikit-learn's own for the
same split, encoding and model, computed here independently (a pandas
ColumnTransformer pipeline); on a release they are worse, and above the
majority-class baseline. And the per-attribute chart of a QualityReport."""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest

pytest.importorskip("sklearn")

import pandas as pd
import sklearn
from matplotlib.figure import Figure
from sklearn.base import ClassifierMixin
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, brier_score_loss, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import BernoulliNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

import polars_anon as pa
from polars_anon.utility.classification import classification
from polars_anon.utility.classification_report import ClassificationReport, Scores

TARGET = "salary-class"
QIS = [q for q in pa.datasets.ADULT_QUASI_IDENTIFIERS if q != TARGET]
# a release of Adult: every quasi-identifier but the target generalized
LEVELS = {
    "age": 3,
    "education": 2,
    "native-country": 1,
    "occupation": 1,
    "marital-status": 1,
    "workclass": 1,
}
# the models as `classification` makes them, given the seed
MODELS: dict[str, Callable[[int], Any]] = {
    "logistic_regression": lambda seed: LogisticRegression(max_iter=1000),
    "naive_bayes": lambda seed: BernoulliNB(),
    "random_forest": lambda seed: RandomForestClassifier(
        min_samples_leaf=5, max_leaf_nodes=100, random_state=seed
    ),
}


# the records each model is tested on: a forest takes longest
ROWS = {"logistic_regression": 5000, "naive_bayes": 5000, "random_forest": 2000}


@pytest.fixture(scope="module")
def adult() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.adult()
    return lf.collect().sample(5000, seed=1), hs


@pytest.fixture(scope="module")
def release(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> pl.DataFrame:
    frame, hs = adult
    out: pl.DataFrame = pa.generalize(frame, hs, LEVELS, quasi_identifiers=QIS).collect()
    return out


def by_sklearn(
    frame: pl.DataFrame, target: str, model: Any, holdout: float = 0.2, seed: int = 0
) -> dict[str, Any]:
    """scikit-learn's own figures: the split train_test_split draws, numbers
    standardized and every other column one-hot (a ColumnTransformer over
    pandas), `model` on top."""
    data = frame.to_pandas()
    y = data[target].astype(str).to_numpy()
    x = data.drop(columns=[target])
    numeric = [c for c in x.columns if pd.api.types.is_numeric_dtype(x[c])]
    other = [c for c in x.columns if c not in numeric]
    train, test = train_test_split(
        np.arange(len(y)), test_size=holdout, random_state=seed, stratify=y
    )
    encode = ColumnTransformer(
        [
            ("numbers", StandardScaler(), numeric),
            ("categories", OneHotEncoder(handle_unknown="ignore"), other),
        ],
        sparse_threshold=1.0,
    )
    # one BLAS thread, as `classification` fits its models: faster, and the same figures
    with threadpool_limits(1, "blas"):
        pipe = make_pipeline(encode, model).fit(x.iloc[train], y[train])
    proba = pipe.predict_proba(x.iloc[test])
    classes = list(pipe.classes_)
    if len(classes) == 2:
        auc = roc_auc_score(y[test], proba[:, 1])
        # ARX's Brier score sums over the classes: twice the binary one
        brier = 2 * brier_score_loss(y[test], proba[:, 1], pos_label=classes[1])
    else:
        auc = roc_auc_score(y[test], proba, multi_class="ovr", average="macro", labels=classes)
        truth = (y[test][:, None] == np.asarray(classes)[None, :]).astype(float)
        brier = float(np.mean(np.sum((proba - truth) ** 2, axis=1)))
    return {
        "accuracy": accuracy_score(y[test], pipe.predict(x.iloc[test])),
        "auc": auc,
        "brier": brier,
        "test": sorted(test.tolist()),
    }


def same(got: Scores, want: dict[str, Any]) -> None:
    assert got.accuracy == pytest.approx(want["accuracy"], abs=1e-12)
    assert got.auc == pytest.approx(want["auc"], abs=1e-9)
    assert got.brier == pytest.approx(want["brier"], abs=1e-9)


@pytest.mark.parametrize("model", list(MODELS))
def test_the_originals_figures_are_scikit_learns(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], model: str
) -> None:
    frame = adult[0].head(ROWS[model])
    for holdout, seed in [(0.2, 0), (0.3, 7)][: 2 if model == "logistic_regression" else 1]:
        r = classification(frame, frame, TARGET, holdout=holdout, seed=seed, model=model)
        want = by_sklearn(frame, TARGET, MODELS[model](seed), holdout, seed)
        same(r.original, want)
        # the original as its own release: the same figures
        assert r.release == r.original
        assert r.holdout_rows.to_list() == want["test"]
        assert r.rows == frame.height and r.features == [c for c in frame.columns if c != TARGET]


@pytest.mark.parametrize("model", list(MODELS))
def test_a_release_scores_between_the_baseline_and_one(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], release: pl.DataFrame, model: str
) -> None:
    frame, release = adult[0].head(ROWS[model]), release.head(ROWS[model])
    r = classification(frame, release, TARGET, model=model)
    o, rel, base = r.original, r.release, r.baseline
    assert rel != o
    assert base.accuracy < rel.accuracy < 1 and base.brier > rel.brier > 0
    assert rel.auc is not None and base.auc == 0.5 and 0.5 < rel.auc < 1
    # the release's figures are scikit-learn's on the release
    same(rel, by_sklearn(release, TARGET, MODELS[model](0)))
    # the baseline: the training records' majority class, their shares as probabilities
    test = r.holdout_rows.to_list()
    rest = frame.with_row_index("i").filter(~pl.col("i").is_in(test))
    shares = rest.get_column(TARGET).value_counts(normalize=True, sort=True)
    majority, p = shares.row(0)
    y = frame.get_column(TARGET).gather(test)
    assert base.accuracy == pytest.approx((y == majority).mean())
    assert base.brier == pytest.approx(2 * float(((y == majority).cast(float) - p).pow(2).mean()))
    # ARX's summaries
    assert r.relative_accuracy == pytest.approx(
        (rel.accuracy - base.accuracy) / (o.accuracy - base.accuracy)
    )
    assert r.relative_auc == pytest.approx((rel.auc - 0.5) / (o.auc - 0.5))  # type: ignore[operator]
    assert r.brier_skill_score == pytest.approx(1 - rel.brier / o.brier)
    # the figures table
    figures = r.figures
    assert figures.columns == ["model", "data", "accuracy", "auc", "brier"]
    assert figures.get_column("data").to_list() == ["original", "release", "baseline"]
    assert figures.get_column("accuracy").to_list() == [o.accuracy, rel.accuracy, base.accuracy]
    assert set(figures.get_column("model")) == {model}


def test_a_multiclass_target_averages_one_vs_rest(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame = adult[0].select("age", "sex", "education", "occupation", "race")
    r = classification(frame, frame, "race", seed=3)
    assert len(r.classes) == 5
    same(r.original, by_sklearn(frame, "race", LogisticRegression(max_iter=1000), seed=3))
    if tuple(int(v) for v in sklearn.__version__.split(".")[:2]) >= (1, 7):
        # scikit-learn's multiclass Brier score, unscaled, is ARX's
        test = r.holdout_rows.to_list()
        rest = frame.with_row_index("i").filter(~pl.col("i").is_in(test))
        shares = rest.get_column("race").value_counts(normalize=True).sort("race")
        assert r.baseline.brier == pytest.approx(
            brier_score_loss(
                frame.get_column("race").gather(test).to_numpy(),
                np.tile(shares.get_column("proportion").to_numpy(), (len(test), 1)),
                labels=r.classes,
                scale_by_half=False,
            )
        )


def test_any_scikit_learn_classifier(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    frame = adult[0]
    tree = DecisionTreeClassifier(max_depth=6, random_state=0)
    r = classification(frame, frame, TARGET, model=tree)
    assert r.model == "DecisionTreeClassifier"
    same(r.original, by_sklearn(frame, TARGET, DecisionTreeClassifier(max_depth=6, random_state=0)))
    assert not hasattr(tree, "classes_")  # cloned, not trained


def test_the_report_reads_and_pickles(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], release: pl.DataFrame
) -> None:
    r = classification(adult[0], release.lazy(), TARGET, features=["age", "sex", "education"])
    assert isinstance(r, ClassificationReport) and r.features == ["age", "sex", "education"]
    text = str(r)
    for word in ("logistic regression", "original", "release", "baseline", "Brier", "held out"):
        assert word in text
    assert f"{r.release.accuracy:.4f}" in text
    html = r._repr_html_()
    assert html.startswith("<div>") and html.endswith("</div>") and "<th>AUC</th>" in html
    again = pickle.loads(pickle.dumps(r))
    assert again.figures.equals(r.figures) and str(again) == text


def test_missing_values_are_values(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    frame = adult[0].with_columns(
        age=pl.when(pl.col("age") > 60).then(None).otherwise(pl.col("age")),
        sex=pl.when(pl.col("age") < 25).then(None).otherwise(pl.col("sex")),
    )
    r = classification(frame, frame, TARGET)
    assert r.baseline.accuracy < r.original.accuracy < 1


def test_a_release_without_its_suppressed_rows(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    rows = frame.with_row_index("row")
    release = pa.generalize(
        rows, hs, LEVELS, k=5, max_suppression=0.2, quasi_identifiers=QIS, insensitive=["row"]
    ).collect()
    assert 0 < release.height < frame.height
    with pytest.raises(pa.ConfigError, match="with_row_index"):
        classification(rows, release, TARGET)
    # the recipe the message gives
    kept = rows.join(release.select("row"), on="row", how="semi")
    r = classification(kept.drop("row"), release.drop("row"), TARGET)
    assert r.rows == release.height and r.release != r.original


def test_errors_name_what_is_wrong(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    release: pl.DataFrame,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame = adult[0]
    one = frame.with_columns(pl.lit("x").alias(TARGET))
    gap = pl.when(pl.int_range(pl.len()) < 2).then(None).otherwise(pl.col(TARGET)).alias(TARGET)

    def call(**kw: Any) -> ClassificationReport:
        args: dict[str, Any] = {"original": frame, "release": release, "target": TARGET, **kw}
        return classification(**args)

    config = [
        ({"target": "income"}, "target 'income' is not a column"),
        ({"features": ["age", "zip"]}, r"\['zip'\] is not a column of the original"),
        ({"features": ["age", TARGET]}, "cannot also be a feature"),
        ({"features": ["age", "age"]}, "named twice"),
        ({"features": []}, "no features"),
        ({"holdout": 0}, "holdout"),
        ({"holdout": 1.0}, "holdout"),
        ({"holdout": float("nan")}, "holdout"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**40}, "seed"),
        ({"model": "svm"}, "model must be one of"),
        ({"release": release.head(10)}, "the release has 10 rows"),
        ({"release": release.reverse()}, "target 'salary-class' differs"),
        ({"original": one, "release": one}, "one class"),
        ({"original": frame.with_columns(gap)}, "2 missing"),
        ({"holdout": 0.9999}, "holdout"),
    ]
    for kw, message in config:
        with pytest.raises(pa.ConfigError, match=message):
            call(**kw)
    wrong_type = [
        ({"holdout": "0.2"}, "holdout"),
        ({"holdout": True}, "holdout"),
        ({"seed": 1.5}, "seed"),
        ({"seed": "1"}, "seed"),
        ({"target": 3}, "target"),
        ({"features": "age"}, None),  # one name alone is a list of one
        ({"features": [1]}, "features"),
        ({"model": 42}, "model"),
        ({"model": ClassifierMixin}, "model"),
        ({"release": [1, 2]}, "release"),
        ({"original": None}, "original"),
    ]
    for kw, message in wrong_type:
        if message is None:
            assert call(**kw).features == ["age"]
            continue
        with pytest.raises(pa.ParameterError, match=message):
            call(**kw)
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(pa.ConfigError, match=r"pip install 'polars-anon\[utility\]'"):
        call()


def test_quality_bars_per_attribute(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    frame, hs = adult
    q = pa.quality(frame, QIS, hs, LEVELS, k=5, max_suppression=0.2)
    fig = q.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    handles, labels = ax.get_legend_handles_labels()
    measures = [c for c in q.attributes.columns if c != "attribute"]
    assert len(labels) == len(measures)
    # each measure's bars: one per attribute, as tall as its figure
    for m, bars in zip(measures, handles, strict=True):
        heights = [b.get_height() for b in bars]  # type: ignore[attr-defined]
        want = [v for v in q.attributes.get_column(m).to_list() if v is not None]
        assert heights == pytest.approx(want)
    # the attributes' names under their groups
    assert [t.get_text() for t in ax.get_xticklabels()] == QIS
    assert fig._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"  # type: ignore[attr-defined]


def test_a_measure_without_a_value_is_marked() -> None:
    # a constant column: ARX reports no entropy and no squared error for it
    frame = pl.DataFrame({"a": ["x"] * 4, "b": ["p", "q", "p", "q"]})
    hs = {c: pa.Hierarchy.from_rows([[v, "*"] for v in frame[c].unique()]) for c in "ab"}
    q = pa.quality(frame, ["a", "b"], hs, {"a": 0, "b": 0})
    nulls = sum(v is None for v in q.attributes.row(0)[1:])
    assert nulls
    ax = q.plot().axes[0]
    assert sum(t.get_text() == "n/a" for t in ax.texts) == nulls
