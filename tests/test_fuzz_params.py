"""An adversarial suite of our own (#37): every parameter of every public
function given a random bad value, and random odd tables. Each call either
returns a result whose release a plain Polars recount confirms, or raises
one of the library's exceptions with a message that names the parameter,
the value or a column; never a foreign exception, a panic, or output on
stderr."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_anon as pa

QIS = ["Birthdate", "Sex", "Zipcode"]
DF, HS = pa.datasets.patients()[0].collect(), pa.datasets.patients()[1]
RESULT = pa.search(DF, QIS, HS, k=2, progress=False)
# SafePub's k (59 at epsilon 1) needs a larger table than the patients'
ADULT, ADULT_HS = pa.datasets.adult()[0].head(2000).collect(), pa.datasets.adult()[1]

BAD: list[Any] = [
    None,
    True,
    False,
    -1,
    0,
    1.5,
    math.nan,
    math.inf,
    2**70,
    -(2**70),
    "",
    "x",
    "Sex",
    [],
    [""],
    ["Sex", "Sex"],
    ["nope"],
    {"nope": 1},
    {"Sex": -1},
    {"Sex": 99},
    {"Sex": 1.7},
    {"Sex": True},
    {"Sex": "1"},
    np.int64(2),
    np.float64(math.nan),
    np.bool_(True),
    b"bytes",
    object(),
    pl.Series([1]),
    (1, 2),
    1 + 0j,
    [1, 2, 3],
    {"Sex": None},
    ["Disease"],
    [pa.PSensitive(2, "Disease")],
    [pa.PSensitive(9, "Disease")],
    "min_loss",
    "optimal",
]

# each public entry point: a call with valid arguments, and its parameters
CALLS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "check": (
        pa.check,
        {
            "data": DF,
            "quasi_identifiers": QIS,
            "k": 2,
            "hierarchies": HS,
            "levels": None,
            "max_suppression": 0,
            "criteria": None,
            "nulls": "error",
            "identifiers": None,
            "insensitive": None,
        },
    ),
    "generalize": (
        pa.generalize,
        {
            "data": DF,
            "hierarchies": HS,
            "levels": {"Birthdate": 1, "Sex": 1, "Zipcode": 0},
            "k": 2,
            "max_suppression": 0,
            "quasi_identifiers": QIS,
            "criteria": None,
            "nulls": "error",
            "identifiers": None,
            "insensitive": None,
        },
    ),
    "search": (
        pa.search,
        {
            "data": DF,
            "quasi_identifiers": QIS,
            "hierarchies": HS,
            "k": 2,
            "max_suppression": 0,
            "algorithm": "auto",
            "variant": None,
            "engine": "auto",
            "trace": False,
            "progress": False,
            "criteria": None,
            "infer_projections": True,
            "time_limit": None,
            "memory_budget": 2**31,
            "nulls": "error",
            "metric": "loss",
            "seed": 0,
            "identifiers": None,
            "insensitive": None,
        },
    ),
    "apply": (
        RESULT.apply,
        {
            "data": None,
            "levels": None,
            "criterion": "min_height",
            "identifiers": None,
            "insensitive": None,
        },
    ),
    "best": (RESULT.best, {"criterion": "min_height", "weights": None, "bounds": None}),
    "risk": (
        pa.risk,
        {
            "data": DF,
            "quasi_identifiers": QIS,
            "hierarchies": HS,
            "levels": None,
            "population": None,
            "threshold": 0.2,
            "nulls": "error",
        },
    ),
    "mu_argus": (
        pa.mu_argus,
        {
            "data": DF,
            "quasi_identifiers": QIS,
            "hierarchies": HS,
            "k": 2,
            "max_suppression": 0,
            "nulls": "error",
        },
    ),
    "mondrian": (
        pa.mondrian,
        {
            "data": DF,
            "quasi_identifiers": QIS,
            "k": 2,
            "hierarchies": HS,
            "criteria": None,
            "mode": "strict",
        },
    ),
    "quality": (
        pa.quality,
        {
            "data": DF,
            "quasi_identifiers": QIS,
            "hierarchies": HS,
            "levels": {"Birthdate": 1, "Sex": 1, "Zipcode": 0},
            "k": 2,
            "max_suppression": 0,
            "criteria": None,
        },
    ),
    "classification": (
        pa.classification,
        {
            "original": DF,
            "release": DF,
            "target": "Disease",
            "features": None,
            "holdout": 0.2,
            "seed": 0,
            "model": "logistic_regression",
        },
    ),
    "interval": (
        pa.hierarchy.interval,
        {"values": [23, 37, 41, 95], "widths": [5, 10], "anchor": 0, "bottom": 20, "top": 100},
    ),
    "date": (
        pa.hierarchy.date,
        {
            "values": [dt.date(2020, 1, 5), dt.date(2021, 6, 1)],
            "levels": ["month", "year"],
            "format": None,
        },
    ),
    "masking": (
        pa.hierarchy.masking,
        {"values": ["53715", "53703"], "masked": None, "char": "*", "width": None, "pad": "0"},
    ),
    "ordered": (
        pa.hierarchy.ordered,
        {"values": ["a", "b", "c", "d"], "order": ["a", "b", "c", "d"], "sizes": [2]},
    ),
    "frequency_set": (
        pa.frequency_set,
        {
            "data": DF,
            "quasi_identifiers": QIS,
            "hierarchies": HS,
            "criteria": None,
            "nulls": "error",
            "engine": "auto",
        },
    ),
    "local_recoding": (
        pa.local_recoding,
        {
            "data": DF,
            "quasi_identifiers": QIS,
            "hierarchies": HS,
            "k": 2,
            "criteria": None,
            "identifiers": None,
            "insensitive": None,
        },
    ),
    "differential_privacy": (
        pa.differential_privacy,
        {
            "data": ADULT,
            "quasi_identifiers": ["age", "sex", "race"],
            "hierarchies": ADULT_HS,
            "epsilon": 1.0,
            "delta": 1e-5,
            "seed": 1,
            "steps": 5,
            "metric": "loss",
            "search_share": 0.1,
            "generalization": None,
            "final": "best",
            "nulls": "error",
        },
    ),
    "dp_parameters": (pa.dp_parameters, {"epsilon": 1.0, "delta": 1e-5}),
}
PARAMS = [(name, p) for name, (_, kw) in CALLS.items() for p in kw]


def words(value: Any) -> list[str]:
    """What a message may name of `value`: itself, or its keys and items."""
    out = [str(value), repr(value)]
    if isinstance(value, dict):
        out += [str(k) for k in value] + [repr(v) for v in value.values()]
    if isinstance(value, list | tuple):
        out += [str(v) for v in value] + [repr(v) for v in value]
    return [w for w in out if w]


def released(out: Any) -> pl.DataFrame | None:
    if isinstance(out, pl.LazyFrame):
        return out.collect()
    if isinstance(out, pa.MondrianResult | pa.DPResult):
        return out.apply().collect()
    if isinstance(out, pa.SearchResult):
        return out.apply().collect() if out.anonymous.height else None
    return None


def confirm(frame: pl.DataFrame, k: Any, qis: Any = None) -> None:
    """A release's groups recounted with plain Polars: none smaller than k."""
    qis = [qis] if isinstance(qis, str) else qis if isinstance(qis, list) else QIS
    qis = [q for q in qis if isinstance(q, str) and q in frame.columns]
    if not frame.height or not isinstance(k, int) or isinstance(k, bool):
        return
    keys = [pl.col(q).cast(pl.String).fill_null("<null>") for q in qis]
    smallest = frame.select(keys).group_by(qis).len().get_column("len").min()
    assert smallest is not None and int(smallest) >= k  # type: ignore[arg-type]


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(PARAMS), st.sampled_from(BAD))
# fewer levels than quasi-identifiers met a zip that wanted them all
@example(param=("check", "levels"), value=[])
def test_every_parameter_refused_clearly_or_confirmed(
    capfd: pytest.CaptureFixture[str], param: tuple[str, str], value: Any
) -> None:
    name, p = param
    fn, kwargs = CALLS[name]
    kwargs = {**kwargs, p: value}
    capfd.readouterr()
    try:
        out = fn(**kwargs)
        frame = released(out)
        if frame is not None:
            k = kwargs.get("k", RESULT.k if name == "apply" else None)
            k = out.k if isinstance(out, pa.DPResult) else k
            confirm(frame, k, kwargs.get("quasi_identifiers"))
    except pa.AnonError as e:
        msg = str(e)
        assert msg and "panicked" not in msg and "unwrap" not in msg, msg
        named = p in msg or any(w in msg for w in words(value)) or any(c in msg for c in DF.columns)
        assert named, f"{name}({p}={value!r}): {msg}"
    err = capfd.readouterr().err
    if p != "progress":
        assert err == "", f"{name}({p}={value!r}) wrote to stderr: {err[:300]}"


ODD: list[pl.DataFrame] = [
    DF.head(0),
    DF.head(1),
    DF.with_columns(pl.lit(None, dtype=pl.String).alias("Sex")),
    DF.with_columns(pl.col("Zipcode").cast(pl.Binary)),
    DF.with_columns(pl.struct("Sex", "Zipcode").alias("Sex")),
    DF.with_columns(pl.col("Sex").map_elements(lambda s: [s], return_dtype=pl.List(pl.String))),
    DF.with_columns(pl.Series("Birthdate", [math.nan, 1.0, 2.0, 3.0, 4.0, 5.0])),
    DF.with_columns(pl.col("Sex").cast(pl.Categorical)),
    DF.with_columns(extra=pl.lit(None)),
]


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(range(len(ODD))), st.sampled_from(list(CALLS)))
def test_odd_tables_refused_clearly_or_confirmed(
    capfd: pytest.CaptureFixture[str], table: int, name: str
) -> None:
    fn, kwargs = CALLS[name]
    data = ODD[table]
    kwargs = {**kwargs, "data": data} if "data" in kwargs else kwargs
    if name in ("apply",):
        kwargs = {**kwargs, "data": data}
    capfd.readouterr()
    try:
        out = fn(**kwargs)
        frame = released(out)
        if frame is not None:
            k = kwargs.get("k", RESULT.k if name == "apply" else None)
            k = out.k if isinstance(out, pa.DPResult) else k
            confirm(frame, k, kwargs.get("quasi_identifiers"))
    except pa.AnonError as e:
        msg = str(e)
        assert msg and "panicked" not in msg and "unwrap" not in msg, msg
        assert any(c in msg for c in [*DF.columns, "rows", "empty", "table"]), msg
    assert capfd.readouterr().err == ""
