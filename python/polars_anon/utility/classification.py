"""`classification`: what a release keeps of its table's use for machine
learning, as ARX's `StatisticsClassification` measures it: the same model
trained on the original and on the release predicts a target on the same
held-out records, beside the majority-class baseline (ARX's ZeroR), each
scored by accuracy, AUC and Brier score (`classification_report`).
scikit-learn (the ``utility`` extra) is imported only here, inside the
functions."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.frames import as_lazy, groupable
from polars_anon.inputs.nulls import text
from polars_anon.inputs.params import as_int, choice, names, texts
from polars_anon.reports.render import counted, plural
from polars_anon.utility.classification_report import MODELS, ClassificationReport, Scores

INSTALL = "pip install 'polars-anon[utility]'"


def classification(
    original: Any,
    release: Any,
    target: str,
    features: Any = None,
    holdout: float = 0.2,
    seed: int = 0,
    model: Any = "logistic_regression",
) -> ClassificationReport:
    """How well ``release`` still predicts ``target``, as ARX's
    `StatisticsClassification` reports it: the same model is trained on
    the original and on the release and tested on the same held-out
    records, beside the majority class of the training records (ARX's
    ZeroR baseline); each scored by accuracy, AUC and Brier score (see
    `Scores`, `ClassificationReport`). Needs scikit-learn (the ``utility``
    extra).

    Records: ``release`` holds the same records as ``original``, in the
    same order (row i of one is row i of the other), and ``target`` as it
    is: the classes to predict are the original's. A release whose
    suppressed records were dropped (as ``apply`` and `generalize` drop
    them) is refused: keep the records' positions with a row index
    released as it is, and measure the records released (see the error).

    The split: ``holdout`` (a fraction in (0, 1)) of the records are held
    out, as scikit-learn's ``train_test_split(range(rows), test_size=holdout,
    random_state=seed, stratify=target)`` chooses them (unstratified when a
    class is too rare to stratify); the same for both tables. (ARX
    cross-validates in ten folds instead.)

    Features: ``features`` (default: every column both tables hold but the
    target), encoded in each table by its own types, fitted on the
    training records: a numeric column is a number, standardized (a
    missing value at the training mean); every other column (a
    generalized label, text, dates) is one category per value, one-hot
    (null as ``NULL``; a value not seen in training has no weight). A
    quasi-identifier released at level 0 is thus still a number; released
    as labels, categories. A suppressed record (``*``) is a record whose
    values are ``*``: categories like any other (ARX leaves its suppressed
    records out of the release's training records).

    ``model``: ``"logistic_regression"`` (scikit-learn's
    ``LogisticRegression(max_iter=1000)``), ``"naive_bayes"``
    (``BernoulliNB()``, ARX's default type: a number counts as above or
    below its mean), ``"random_forest"`` (``RandomForestClassifier(
    min_samples_leaf=5, max_leaf_nodes=100, random_state=seed)``, ARX's
    leaf limits), or any scikit-learn classifier with ``predict_proba``
    (cloned for each table, and given the features as a SciPy sparse
    matrix).
    """
    state = _seed(seed)
    make = _model(model, state)
    share = _holdout(holdout)
    texts(target=target)
    left, right = _frame("original", original), _frame("release", release)
    schemas = left.collect_schema(), right.collect_schema()
    for where, schema in zip(("original", "release"), schemas, strict=True):
        if target not in schema:
            raise ConfigError(f"target '{target}' is not a column of the {where} table")
    feats = _features(features, target, *schemas)
    o = left.select(target, *feats).collect()
    r = right.select(target, *feats).collect()
    if o.height != r.height:
        raise ConfigError(
            f"the release has {r.height} rows and the original {o.height}: the records must be "
            "the same, in the same order. A release drops its suppressed records; to measure "
            "the records released, number the rows first (original = "
            "original.with_row_index('row'); release it with insensitive=['row']), keep those "
            "of the original (original.join(release.select('row'), on='row', how='semi')) and "
            "drop 'row' from both"
        )
    y = _target(o.get_column(target), r.get_column(target))
    classes = sorted(set(y.tolist()))
    if len(classes) < 2:
        found = f"one class ({classes[0]!r})" if classes else "no rows"
        raise ConfigError(f"target '{target}' has {found}: nothing to predict")
    train, test = _split(y, share, state)
    from sklearn.dummy import DummyClassifier
    from threadpoolctl import threadpool_limits

    # the models given by name fit small or sparse matrices, which a threaded
    # BLAS only slows (tenfold on two cores, beside Polars' threads)
    limit = threadpool_limits(1, "blas") if isinstance(model, str) else contextlib.nullcontext()
    scores: list[Scores] = []
    with limit:
        for frame in (o, r):
            if scores and frame.equals(o):  # the original as its release: the same model
                scores.append(scores[0])
                continue
            fit, tested = _design(frame.drop(target), train, test)
            estimator = make().fit(fit, y[train])
            scores.append(_scores(estimator, tested, y[test], classes))

    zero_r = DummyClassifier(strategy="prior").fit(train[:, None], y[train])
    name = model if isinstance(model, str) else type(model).__name__
    return ClassificationReport(
        model=name,
        target=target,
        features=feats,
        classes=classes,
        rows=o.height,
        holdout=share,
        seed=state,
        holdout_rows=pl.Series("row", sorted(test.tolist()), dtype=pl.Int64),
        original=scores[0],
        release=scores[1],
        baseline=_scores(zero_r, test[:, None], y[test], classes),
    )


def _model(model: Any, seed: int) -> Callable[[], Any]:
    """A maker of fresh, untrained estimators, scikit-learn checked first."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise ConfigError(f"pa.classification needs scikit-learn: {INSTALL}") from None
    if isinstance(model, str):
        name = choice("model", model, list(MODELS))
        if name == "logistic_regression":
            from sklearn.linear_model import LogisticRegression

            return lambda: LogisticRegression(max_iter=1000)
        if name == "naive_bayes":
            from sklearn.naive_bayes import BernoulliNB

            return lambda: BernoulliNB()
        from sklearn.ensemble import RandomForestClassifier

        return lambda: RandomForestClassifier(
            min_samples_leaf=5, max_leaf_nodes=100, random_state=seed
        )
    if callable(getattr(model, "fit", None)) and hasattr(model, "predict_proba"):
        from sklearn.base import clone

        return lambda: clone(model)
    raise ParameterError(
        f"model must be one of {list(MODELS)} or a scikit-learn classifier with "
        f"predict_proba, got {model!r:.80}"
    )


def _seed(seed: Any) -> int:
    # NumPy's bool (numpy.bool, numpy.bool_) is no integer either
    if type(seed).__name__ in ("bool", "bool_") or not hasattr(seed, "__index__"):
        raise ParameterError(f"seed must be an integer, got {seed!r:.60}")
    s = as_int("seed", seed)
    if not 0 <= s < 2**32:
        raise ConfigError(f"seed must be an integer in [0, 2^32), got {s}")
    return s


def _holdout(holdout: Any) -> float:
    if isinstance(holdout, bool) or not isinstance(holdout, int | float):
        raise ParameterError(f"holdout must be a fraction of the rows, got {holdout!r:.60}")
    if not 0 < holdout < 1:
        raise ConfigError(f"holdout must be a fraction of the rows in (0, 1), got {holdout}")
    return float(holdout)


def _frame(name: str, data: Any) -> pl.LazyFrame:
    try:
        return as_lazy(data)
    except ParameterError as e:
        raise ParameterError(f"{name}: {e}") from None


def _features(features: Any, target: str, left: pl.Schema, right: pl.Schema) -> list[str]:
    """The feature columns, checked: in both tables, not the target, of
    types that read as numbers or text."""
    if features is None:
        out = [c for c in left if c != target and c in right]
    else:
        out = names("features", features)
        twice = sorted({f for f in out if out.count(f) > 1})
        if twice:
            raise ConfigError(f"features named twice: {twice}")
        if target in out:
            raise ConfigError(f"target '{target}' cannot also be a feature")
        for where, schema in (("original", left), ("release", right)):
            missing = [f for f in out if f not in schema]
            if missing:
                raise ConfigError(
                    f"{plural('feature', missing)} {missing} "
                    + ("is not a column" if len(missing) == 1 else "are not columns")
                    + f" of the {where} table"
                )
    if not out:
        raise ConfigError(
            f"no features: the tables share no column but the target '{target}' (pass features=)"
        )
    for where, schema in (("original", left), ("release", right)):
        for f in [target, *out]:
            if not groupable(schema[f]):
                raise ConfigError(
                    f"column '{f}' of the {where} table is of type {schema[f]}, which cannot be "
                    "a feature or a target: its values must be numbers, strings, booleans or dates"
                )
    return out


def _target(original: pl.Series, release: pl.Series) -> Any:
    """The classes of the records (the original's, as text; a NumPy array),
    checked against the release's."""
    name = original.name
    missing = original.null_count()
    if missing:
        raise ConfigError(
            f"target '{name}' has {counted(missing, 'missing value')}: drop "
            + ("that row" if missing == 1 else "those rows")
            + " from both tables"
        )
    o, r = original.cast(pl.String), release.cast(pl.String)
    differ = (o != r).fill_null(True)
    if differ.any():
        i = int(differ.arg_true()[0])
        raise ConfigError(
            f"target '{name}' differs between the tables in {counted(int(differ.sum()), 'row')} "
            f"(first row {i}: {o[i]!r} and {r[i]!r}): the release must hold the same records in "
            "the same order, with the target as it is"
        )
    return o.to_numpy()


def _split(y: Any, holdout: float, seed: int) -> tuple[Any, Any]:
    """The training and held-out rows' positions, as scikit-learn draws them:
    stratified by class where every class can be (else not)."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(y))
    try:
        train, test = train_test_split(rows, test_size=holdout, random_state=seed, stratify=y)
        return train, test
    except ValueError:
        pass
    try:
        train, test = train_test_split(rows, test_size=holdout, random_state=seed)
    except ValueError as e:
        raise ConfigError(f"holdout={holdout} of {len(y)} rows leaves no records: {e}") from None
    if len(set(y[train].tolist())) < 2:
        raise ConfigError(
            f"holdout={holdout} leaves one class in the {len(train)} training records: "
            "nothing to learn (hold out fewer, or pass more rows)"
        )
    return train, test


def _design(frame: pl.DataFrame, train: Any, test: Any) -> tuple[Any, Any]:
    """The feature matrices (sparse) of the training and held-out rows: the
    numeric columns standardized, the others one-hot, fitted on training."""
    import numpy as np
    from scipy import sparse
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    numeric = [c for c, t in frame.schema.items() if t.is_numeric()]
    other = [c for c in frame.columns if c not in numeric]
    fit: list[Any] = []
    tested: list[Any] = []
    if numeric:
        x = frame.select(pl.col(numeric).cast(pl.Float64)).to_numpy()
        x = np.where(np.isfinite(x), x, np.nan)
        scaler = StandardScaler().fit(x[train])
        fit.append(sparse.csr_matrix(np.nan_to_num(scaler.transform(x[train]))))
        tested.append(sparse.csr_matrix(np.nan_to_num(scaler.transform(x[test]))))
    if other:
        t = frame.select(text(pl.col(c)) for c in other).to_numpy()
        encoder = OneHotEncoder(handle_unknown="ignore").fit(t[train])
        fit.append(encoder.transform(t[train]))
        tested.append(encoder.transform(t[test]))
    return sparse.hstack(fit, format="csr"), sparse.hstack(tested, format="csr")


def _scores(estimator: Any, x: Any, y: Any, classes: list[str]) -> Scores:
    """`estimator`'s figures on the held-out rows `x` of classes `y`: its
    probabilities laid out over all `classes` (0 for one it never saw)."""
    import numpy as np
    from sklearn.metrics import roc_auc_score

    proba = np.zeros((len(y), len(classes)))
    found = estimator.predict_proba(x)
    for j, c in enumerate(estimator.classes_.tolist()):
        proba[:, classes.index(str(c))] = found[:, j]
    truth = (y[:, None] == np.asarray(classes, dtype=object)[None, :]).astype(float)
    accuracy = float(np.mean(estimator.predict(x) == y))
    brier = float(np.mean(np.sum((proba - truth) ** 2, axis=1)))
    # one-vs-rest for each class the held-out rows have and lack (with two
    # classes, the second's: both have the same curve)
    columns = [1] if len(classes) == 2 else range(len(classes))
    aucs = [
        float(roc_auc_score(truth[:, j], proba[:, j]))
        for j in columns
        if 0 < truth[:, j].sum() < len(y)
    ]
    return Scores(accuracy, float(np.mean(aucs)) if aucs else None, brier)
