"""The ``anon`` namespaces cannot drift from the functions they wrap."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import polars_anon as pa
from polars_anon._namespace import AnonFrame, AnonLazyFrame

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "check": pa.check,
    "generalize": pa.generalize,
    "search": pa.search,
    "incognito": pa.incognito,
    "local_recoding": pa.local_recoding,
    "mondrian": pa.mondrian,
    "risk": pa.risk,
    "differential_privacy": pa.differential_privacy,
}


def _params(f: Callable[..., Any], drop: str) -> list[tuple[str, Any, Any]]:
    sig = inspect.signature(f)
    return [(p.name, p.default, p.annotation) for p in sig.parameters.values() if p.name != drop]


@pytest.mark.parametrize("namespace", [AnonFrame, AnonLazyFrame])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_namespace_method_takes_its_functions_parameters(namespace: type, name: str) -> None:
    method = getattr(namespace, name)
    assert _params(method, "self") == _params(FUNCTIONS[name], "data"), name


def test_generalize_df_takes_generalizes_parameters() -> None:
    # but out: a DataFrame collected is not written (generalize(out=) is)
    written = [p for p in _params(pa.generalize, "data") if p[0] != "out"]
    assert _params(AnonFrame.generalize_df, "self") == written
    assert inspect.signature(AnonFrame.generalize_df).return_annotation in (
        "pl.DataFrame",
        pl.DataFrame,
    )


def test_every_public_namespace_method_wraps_a_function() -> None:
    for namespace in (AnonFrame, AnonLazyFrame):
        public = {n for n in dir(namespace) if not n.startswith("_")}
        assert public - {"generalize_df"} == set(FUNCTIONS), namespace
