"""No Rust panic reaches Python: every public function, driven with values of
every type for each parameter, either answers or raises an ordinary exception
(pyo3 turns a panic into ``PanicException``, a ``BaseException``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from polars_anon import _core
from polars_anon.prepare.f0 import prepare

ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.lists(st.integers(min_value=-3, max_value=300), max_size=4),
    st.tuples(st.integers(-2, 6), st.integers(-2, 6)),
)
SMALL_INT = st.one_of(st.integers(-5, 400), st.sampled_from([2**32, 2**63, 2**64 + 1, -(2**63)]))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LF, HS = pa.datasets.patients()
DF = LF.collect().with_columns(pl.Series("Disease", ["Flu", "HIV", "Flu", "Cold", "HIV", "Cold"]))
QIS = ["Birthdate", "Sex", "Zipcode"]


def no_panic(call: Callable[[], Any]) -> None:
    try:
        call()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        assert isinstance(e, Exception), f"{type(e).__module__}.{type(e).__name__}: {e}"
        assert type(e).__name__ != "PanicException", str(e)


@SETTINGS
@given(k=ANY, sup=ANY, algorithm=st.sampled_from([*dict(_core.ALGORITHMS), "x"]), extra=ANY)
def test_search(k: Any, sup: Any, algorithm: str, extra: Any) -> None:
    for key in ("variant", "engine", "time_limit", "memory_budget", "nulls", "trace"):
        no_panic(
            lambda key=key: pa.search(
                DF, QIS, HS, k, sup, algorithm=algorithm, progress=False, **{key: extra}
            )
        )


@SETTINGS
@given(k=ANY, sup=ANY, levels=ANY, level=ANY)
def test_check_and_generalize(k: Any, sup: Any, levels: Any, level: Any) -> None:
    no_panic(lambda: pa.check(DF, QIS, k, HS, levels, sup))
    no_panic(lambda: pa.check(DF, QIS, 2, HS, {"Sex": level}))
    no_panic(lambda: pa.generalize(DF, HS, {"Sex": level}, k, sup).collect())
    no_panic(lambda: pa.local_recoding(DF, QIS, HS, k))


@SETTINGS
@given(a=ANY, b=ANY, c=ANY)
def test_criteria(a: Any, b: Any, c: Any) -> None:
    makers: list[Callable[[], Any]] = [
        lambda: pa.PSensitive(a, "Disease"),
        lambda: pa.DistinctLDiversity(a, "Disease"),
        lambda: pa.EntropyLDiversity(a, "Disease"),
        lambda: pa.RecursiveCLDiversity(a, b, "Disease"),
        lambda: pa.PAlphaSensitive(a, b, "Disease", [["Flu", "Cold"], ["HIV"]]),
        lambda: pa.PPlusSensitive(a, "Disease", c),
        lambda: pa.TCloseness(a, "Disease", c),
    ]
    for make in makers:
        no_panic(lambda make=make: pa.check(DF, QIS, 1, HS, criteria=make()))


@SETTINGS
@given(
    a=SMALL_INT,
    b=st.floats(allow_nan=True, allow_infinity=True),
    table=st.lists(SMALL_INT, max_size=8),
    tables=st.lists(st.lists(SMALL_INT, max_size=4), max_size=3),
)
def test_core_criteria_on_a_problem(
    a: int, b: float, table: list[int], tables: list[list[int]]
) -> None:
    """The core's criteria made directly, with any numbers, checked on a real
    problem: a table that does not fit the data is an error, not a panic."""
    prep = prepare(DF, QIS, HS, ["Disease"])
    makers: list[Callable[[], Any]] = [
        lambda: _core.CoreCriterion.p_sensitive(a, 0),
        lambda: _core.CoreCriterion.p_plus_sensitive(a, 0, table),
        lambda: _core.CoreCriterion.p_alpha_sensitive(a, b, 0, table, a),
        lambda: _core.CoreCriterion.distinct_l(a, a),
        lambda: _core.CoreCriterion.entropy_l(b, 0),
        lambda: _core.CoreCriterion.recursive_cl(b, a, 0),
        lambda: _core.CoreCriterion.t_closeness_ordered(b, 0, table),
        lambda: _core.CoreCriterion.t_closeness_hierarchical(b, 0, table, tables, a),
    ]
    for make in makers:
        no_panic(lambda make=make: prep.problem.evaluate([0, 0, 0], 1, "auto", [make()]))
        no_panic(
            lambda make=make: prep.problem.search(
                "mingen", None, 1, 0, "auto", False, None, [make()]
            )
        )
    no_panic(lambda: prep.problem.evaluate(table, a, "auto"))
    no_panic(lambda: prep.problem.evaluate_many([table], a))
    no_panic(lambda: prep.problem.groups(table))
    no_panic(lambda: prep.problem.suppressed_groups(table, a))


@SETTINGS
@given(
    rows=st.lists(st.lists(st.text(max_size=3), max_size=4), max_size=5),
    text=st.text(max_size=40),
    sep=st.text(max_size=2),
    level=SMALL_INT,
)
def test_hierarchies(rows: list[list[str]], text: str, sep: str, level: int) -> None:
    no_panic(lambda: pa.Hierarchy.from_rows(rows))
    no_panic(lambda: pa.Hierarchy.from_csv_text(text, sep=sep))
    no_panic(lambda: pa.Hierarchy.from_json(text))
    no_panic(lambda: HS["Zipcode"].leaf_labels(level))
    no_panic(lambda: HS["Zipcode"].to_csv(sep=sep))
    no_panic(lambda: HS["Zipcode"].encode("z", [*rows[0], None] if rows else []))
