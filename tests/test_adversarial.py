"""Bad and adversarial inputs, as a new user makes them: each is refused with the
right exception and a message naming the column, value or parameter, or is
accepted and its release re-checked here with a plain Polars group-by."""

from __future__ import annotations

import datetime as dt
import math
import os
import pickle
import re
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_anon as pa
from polars_anon.cli import main as cli

ADULT_QIS = ["sex", "age", "race"]


def patients() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.patients()
    return lf.collect(), hs


def adult() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.adult()
    return lf.collect(), hs


def min_group(frame: pl.DataFrame, qis: list[str]) -> int:
    """The smallest group of the released quasi-identifiers, by plain Polars
    (a null is a value of its own)."""
    keys = [pl.col(q).cast(pl.String).fill_null("<null>") for q in qis]
    return int(frame.select(keys).group_by(qis).len().get_column("len").min())  # type: ignore[arg-type]


def search_patients(**kw: Any) -> pa.SearchResult:
    df, hs = patients()
    return pa.search(df, ["Birthdate", "Sex", "Zipcode"], hs, **{"k": 2, **kw})


def misnamed() -> dict[str, pa.Hierarchy]:
    """The patients' hierarchies, Zipcode's given under "ZipCodes"."""
    hs = patients()[1]
    return {"Birthdate": hs["Birthdate"], "Sex": hs["Sex"], "ZipCodes": hs["Zipcode"]}


def adult_with(criteria: Any, **kw: Any) -> Any:
    df, hs = adult()
    return pa.search(df, ADULT_QIS, hs, 5, criteria=criteria, progress=False, **kw)


def wide_table(n: int = 25, rows: int = 300) -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    rng = np.random.default_rng(0)
    h = pa.Hierarchy.from_rows([[str(v), f"{v // 2}x", f"{v // 4}y", "*"] for v in range(8)])
    cols = {f"a{i}": rng.integers(0, 8, rows).astype(str).tolist() for i in range(n)}
    return pl.DataFrame(cols), {c: h for c in cols}


# (case, call, exception, fragments of the message)
REFUSED: list[tuple[str, Callable[[], Any], type[BaseException], list[str]]] = [
    # criterion parameters, checked when the criterion is made
    ("p zero", lambda: pa.PSensitive(0, "x"), pa.ConfigError, ["PSensitive", "p = 0"]),
    ("p negative", lambda: pa.PSensitive(-1, "x"), pa.ConfigError, ["p = -1", "at least 1"]),
    ("p float", lambda: pa.PSensitive(2.5, "x"), pa.ConfigError, ["p must be an integer", "2.5"]),
    ("p text", lambda: pa.PSensitive("2", "x"), pa.ConfigError, ["p must be an integer", "'2'"]),
    ("p bool", lambda: pa.PSensitive(True, "x"), pa.ConfigError, ["p must be an integer"]),
    ("l zero", lambda: pa.DistinctLDiversity(0, "x"), pa.ConfigError, ["DistinctL", "l = 0"]),
    ("entropy l<1", lambda: pa.EntropyLDiversity(0.5, "x"), pa.ConfigError, ["l = 0.5"]),
    ("entropy nan", lambda: pa.EntropyLDiversity(math.nan, "x"), pa.ConfigError, ["l = NaN"]),
    ("entropy inf", lambda: pa.EntropyLDiversity(math.inf, "x"), pa.ConfigError, ["l = inf"]),
    ("recursive l=0", lambda: pa.RecursiveCLDiversity(3, 0, "x"), pa.ConfigError, ["l = 0"]),
    ("recursive c=0", lambda: pa.RecursiveCLDiversity(0, 2, "x"), pa.ConfigError, ["c = 0"]),
    ("recursive c<0", lambda: pa.RecursiveCLDiversity(-1, 2, "x"), pa.ConfigError, ["c = -1"]),
    ("recursive nan", lambda: pa.RecursiveCLDiversity(math.nan, 2, "x"), pa.ConfigError, ["c"]),
    (
        "alpha negative",
        lambda: pa.PAlphaSensitive(2, -1, "x", [["a"], ["b"]]),
        pa.ConfigError,
        ["alpha = -1"],
    ),
    (
        "alpha nan",
        lambda: pa.PAlphaSensitive(2, math.nan, "x", [["a"], ["b"]]),
        pa.ConfigError,
        ["alpha = NaN"],
    ),
    ("t above 1", lambda: pa.TCloseness(1.5, "x"), pa.ConfigError, ["t = 1.5", "[0, 1]"]),
    ("t negative", lambda: pa.TCloseness(-0.1, "x"), pa.ConfigError, ["t = -0.1"]),
    ("t nan", lambda: pa.TCloseness(math.nan, "x"), pa.ConfigError, ["t = NaN"]),
    ("t text", lambda: pa.TCloseness("0.2", "x"), pa.ConfigError, ["t must be a number"]),
    ("distance", lambda: pa.TCloseness(0.2, "x", "foo"), pa.ConfigError, ["'foo'"]),  # type: ignore[arg-type]
    (
        "hierarchical without hierarchy",
        lambda: pa.TCloseness(0.2, "x", "hierarchical"),
        pa.ConfigError,
        ["hierarchy="],
    ),
    # criteria against the data
    (
        "ordered on text",
        lambda: adult_with(pa.TCloseness(0.3, "occupation", "ordered")),
        pa.ConfigError,
        ["ordered", "'occupation'", "not a number"],
    ),
    (
        "p above distinct values",
        lambda: adult_with(pa.PSensitive(3, "salary-class")),
        pa.ConfigError,
        ["p = 3", "'salary-class'", "only 2 distinct"],
    ),
    (
        "entropy above distinct values",
        lambda: adult_with(pa.EntropyLDiversity(2.5, "salary-class")),
        pa.ConfigError,
        ["'salary-class'", "only 2 distinct"],
    ),
    (
        "value in no category",
        lambda: adult_with(pa.PPlusSensitive(2, "salary-class", [["<=50K"]])),
        pa.ConfigError,
        ["'salary-class'", ">50K"],
    ),
    (
        "value in two categories",
        lambda: adult_with(pa.PPlusSensitive(2, "salary-class", [["<=50K"], ["<=50K", ">50K"]])),
        pa.ConfigError,
        ["'<=50K'", "two categories"],
    ),
    (
        "criteria of another type",
        lambda: adult_with(["p-sensitive"]),
        TypeError,
        ["polars_anon criteria", "str"],
    ),
    # a column Polars' pl.col reads as every column, or as a pattern
    (
        "a quasi-identifier named *",
        lambda: pa.check(pl.DataFrame({"*": ["a", "a"], "z": ["1", "2"]}), ["*"], 2),
        pa.ConfigError,
        ["quasi_identifiers", "'*' is every column"],
    ),
    (
        "an identifier named by a pattern",
        lambda: search_patients(identifiers=["^Dis.*$"]),
        pa.ConfigError,
        ["identifiers", "'^Dis.*$' is a pattern"],
    ),
    (
        "an insensitive column named *",
        lambda: search_patients(insensitive=["*"]),
        pa.ConfigError,
        ["insensitive", "'*'"],
    ),
    (
        "a hierarchy under a near name, of a quasi-identifier",
        lambda: pa.search(patients()[0], ["Birthdate", "Sex", "Zipcode"], misnamed(), 2),
        pa.ConfigError,
        ["quasi-identifier 'Zipcode'", "given for 'ZipCodes'", "did you mean 'Zipcode'"],
    ),
    (
        "a hierarchy under a near name, of a column it would make one",
        lambda: pa.generalize(patients()[0], misnamed(), {"Birthdate": 1}, k=2),
        pa.ConfigError,
        ["column 'Zipcode'", "released as it is", "given for 'ZipCodes'", "leave it out"],
    ),
    (
        "a table read with another separator than its own",
        lambda: pa.search(pl.DataFrame({"a;b": ["1;2"] * 5}), ["a"], None, 1),
        pa.ConfigError,
        ["unknown column: a;", "wrong separator", "holds ';'"],
    ),
    (
        "a bound above the height",
        lambda: search_patients().best("min_loss", bounds={"Sex": 7}),
        pa.ConfigError,
        ["bounds for 'Sex'", "level 7", "height 1"],
    ),
    (
        "a bound's range above the height",
        lambda: search_patients().best("min_loss", bounds={"Sex": (3, 9)}),
        pa.ConfigError,
        ["bounds for 'Sex'", "level 9", "height 1"],
    ),
    # k and suppression
    ("k zero", lambda: search_patients(k=0), pa.ConfigError, ["k must be a positive"]),
    ("k float", lambda: search_patients(k=2.0), pa.ConfigError, ["k must be an integer", "2.0"]),
    ("k bool", lambda: search_patients(k=True), pa.ConfigError, ["k must be an integer"]),
    ("k text", lambda: search_patients(k="2"), pa.ConfigError, ["k must be an integer", "'2'"]),
    ("k above rows", lambda: search_patients(k=100), pa.ConfigError, ["k = 100", "rows"]),
    (
        "negative suppression",
        lambda: search_patients(max_suppression=-1),
        pa.ConfigError,
        ["max_suppression must be >= 0", "-1"],
    ),
    (
        "fraction of 1.5",
        lambda: search_patients(max_suppression=1.5),
        pa.ConfigError,
        ["[0, 1)", "1.5"],
    ),
    (
        "suppression as text",
        lambda: search_patients(max_suppression="5%"),
        pa.ConfigError,
        ["max_suppression", "'5%'"],
    ),
    # search settings
    ("unknown algorithm", lambda: search_patients(algorithm="x"), pa.ConfigError, ["'x'"]),
    (
        "unknown variant",
        lambda: search_patients(algorithm="incognito", variant="fast"),
        pa.ConfigError,
        ["'fast'", "cube"],
    ),
    ("unknown engine", lambda: search_patients(engine="gpu"), pa.ConfigError, ['"gpu"']),
    (
        "negative time limit",
        lambda: search_patients(time_limit=-1),
        pa.ConfigError,
        ["time_limit", "-1"],
    ),
    ("nan time limit", lambda: search_patients(time_limit=math.nan), pa.ConfigError, ["nan"]),
    ("time limit text", lambda: search_patients(time_limit="1s"), pa.ConfigError, ["'1s'"]),
    (
        "negative memory budget",
        lambda: search_patients(memory_budget=-5),
        pa.ConfigError,
        ["memory_budget", "-5"],
    ),
    ("nulls option", lambda: search_patients(nulls="drop"), pa.ConfigError, ["nulls", "'drop'"]),
    # columns
    (
        "unknown column",
        lambda: pa.check(patients()[0], ["Age"], 2),
        pa.ConfigError,
        ["unknown column: Age;", "columns: Birthdate, Sex"],
    ),
    (
        "named twice",
        lambda: pa.check(patients()[0], ["Sex", "Sex"], 2),
        pa.ConfigError,
        ["twice"],
    ),
    ("no quasi-identifier", lambda: pa.check(patients()[0], [], 2), pa.ConfigError, ["at least"]),
    (
        "binary column",
        lambda: pa.check(pl.DataFrame({"b": [b"x", b"y"]}), ["b"], 1),
        pa.ConfigError,
        ["'b'", "Binary"],
    ),
    (
        "list column",
        lambda: pa.check(pl.DataFrame({"l": [[1], [2]]}), ["l"], 1),
        pa.ConfigError,
        ["'l'", "List"],
    ),
    (
        "struct column",
        lambda: pa.check(pl.DataFrame({"s": [{"a": 1}, {"a": 2}]}), ["s"], 1),
        pa.ConfigError,
        ["'s'", "Struct"],
    ),
    (
        "duration column",
        lambda: pa.check(pl.DataFrame({"d": [dt.timedelta(days=1)] * 2}), ["d"], 1),
        pa.ConfigError,
        ["'d'", "Duration", "total_days"],
    ),
    (
        "duration column as a sensitive attribute",
        lambda: pa.search(
            pl.DataFrame({"a": [1, 1], "d": [dt.timedelta(days=1)] * 2}),
            ["a"],
            None,
            1,
            criteria=[pa.DistinctLDiversity(1, "d")],
            progress=False,
        ),
        pa.ConfigError,
        ["'d'", "sensitive", "total_days"],
    ),
    (
        "null in a sensitive attribute",
        lambda: pa.check(
            pl.DataFrame({"a": ["x"] * 4, "s": ["p", None, "q", "p"]}),
            ["a"],
            1,
            criteria=[pa.DistinctLDiversity(1, "s")],
            nulls="value",
        ),
        pa.MissingValueError,
        ["'s'", "sensitive attribute", "'(missing)'", "fill_null", "for the quasi-identifiers"],
    ),
    (
        "an empty string in a quasi-identifier without a hierarchy",
        lambda: pa.risk(pl.DataFrame({"r": ["north", ""]}), ["r"]),
        pa.HierarchyError,
        ["column 'r' (no hierarchy given", "empty string", "replace('', '(empty)')"],
    ),
    (
        "duration values for a hierarchy",
        lambda: pa.hierarchy.interval(pl.Series("d", [dt.timedelta(days=1)]), widths=[1]),
        pa.ParameterError,
        ["'d'", "Duration", "total_days"],
    ),
    (
        "object column",
        lambda: pa.check(
            pl.DataFrame({"o": [object(), object()]}, schema={"o": pl.Object}), ["o"], 1
        ),
        pa.ConfigError,
        ["'o'", "Object"],
    ),
    (
        "value missing from hierarchy",
        lambda: pa.check(pl.DataFrame({"Sex": ["M", "X"]}), ["Sex"], 1, patients()[1]),
        pa.MissingValueError,
        ["'Sex'", '"X"'],
    ),
    (
        "nulls without the option",
        lambda: pa.check(pl.DataFrame({"Sex": ["M", None]}), ["Sex"], 1, patients()[1]),
        pa.MissingValueError,
        ["'Sex'", "null", "nulls='value'"],
    ),
    (
        "empty strings in a quasi-identifier",
        lambda: pa.check(pl.DataFrame({"s": ["a", ""]}), ["s"], 1),
        pa.HierarchyError,
        ["'s'", "empty string", "nulls='value'"],
    ),
    (
        "nulls and the NULL value",
        lambda: pa.check(
            pl.DataFrame({"Sex": ["M", None, "NULL"]}), ["Sex"], 1, patients()[1], nulls="value"
        ),
        pa.ConfigError,
        ["'Sex'", "'NULL'"],
    ),
    (
        "sensitive and quasi-identifier",
        lambda: pa.check(patients()[0], ["Sex"], 1, criteria=pa.PSensitive(1, "Sex")),
        pa.ConfigError,
        ["both quasi-identifier and sensitive: Sex"],
    ),
    # levels and bounds
    (
        "level above height",
        lambda: pa.check(patients()[0], ["Sex"], 1, patients()[1], {"Sex": 5}),
        pa.ConfigError,
        ["level 5", "'Sex'"],
    ),
    (
        "negative level",
        lambda: pa.check(patients()[0], ["Sex"], 1, patients()[1], {"Sex": -1}),
        pa.ConfigError,
        ["levels must be >= 0", "level -1 for 'Sex'"],
    ),
    (
        "negative level past the quasi-identifiers",
        lambda: pa.check(patients()[0], ["Sex"], 1, patients()[1], [0, -1]),
        pa.ConfigError,
        ["levels must be >= 0", "level -1 for entry 1"],
    ),
    (
        "fewer levels than quasi-identifiers",
        lambda: pa.check(patients()[0], ["Sex", "Zipcode"], 1, patients()[1], []),
        pa.ConfigError,
        ["0 levels for 2 quasi-identifiers"],
    ),
    (
        "level of a non-QI",
        lambda: pa.check(patients()[0], ["Sex"], 1, patients()[1], {"Zipcode": 1}),
        pa.ConfigError,
        ["levels name Zipcode, which is not"],
    ),
    (
        "inverted bounds",
        lambda: search_patients().best(bounds={"Sex": (1, 0)}),
        pa.ConfigError,
        ["'Sex'", "low = 1, high = 0"],
    ),
    (
        "negative bound",
        lambda: search_patients().best(bounds={"Sex": -1}),
        pa.ConfigError,
        ["'Sex'"],
    ),
    (
        "bound of a non-QI",
        lambda: search_patients().best(bounds={"Age": 1}),
        pa.ConfigError,
        ["unknown quasi-identifier: Age"],
    ),
    ("unknown preference", lambda: search_patients().best("max_joy"), pa.ConfigError, ["max_joy"]),
    # hierarchies
    (
        "comma file read with ;",
        lambda: pa.Hierarchy.from_csv_text("a,x,*\nb,x,*\n", sep=";"),
        pa.HierarchyError,
        ["sep=','"],
    ),
    (
        "conflicting rows",
        lambda: pa.Hierarchy.from_rows([["a", "x", "*"], ["a", "y", "*"]]),
        pa.HierarchyError,
        ['"a"', "rows 1", "and 2"],
    ),
    (
        "300 levels",
        lambda: pa.Hierarchy.from_rows([[f"v{i}" for i in range(300)]]),
        pa.HierarchyError,
        ["300 levels", "at most 255"],
    ),
    (
        "two separators",
        lambda: pa.Hierarchy.from_csv_text("a;*", sep=";;"),
        pa.ConfigError,
        ["sep", '";;"'],
    ),
    (
        "hierarchy of the wrong type",
        lambda: pa.check(patients()[0], ["Sex"], 1, {"Sex": 42}),  # type: ignore[dict-item]
        TypeError,
        ["'Sex'", "int"],
    ),
    # searches too large for memory: refused before they start
    *[
        (
            f"25 QIs {alg}",
            (
                lambda alg=alg: pa.search(
                    *_wide(), 2, 5, algorithm=alg, progress=False, memory_budget=64 << 20
                )
            ),
            pa.SearchTooLargeError,
            ["memory budget", "25 quasi-identifiers", "nodes"],
        )
        for alg in ("incognito", "bottom_up", "mingen", "samarati")
    ],
    # a table that fails and a release on another table beyond its budget
    (
        "no hierarchy, no answer",
        lambda: pa.search(
            pl.DataFrame({"zip": [str(i) for i in range(20)], "s": ["a", "b"] * 10}),
            ["zip", "s"],
            None,
            2,
            progress=False,
        ).best(),
        pa.NotAnonymousError,
        ["['zip', 's']", "no hierarchy"],
    ),
]


def _wide() -> tuple[pl.DataFrame, list[str], dict[str, pa.Hierarchy]]:
    df, hs = wide_table()
    return df, list(hs), hs


@pytest.mark.parametrize(
    ("case", "call", "exception", "fragments"), REFUSED, ids=[c[0] for c in REFUSED]
)
def test_refused_with_a_message_that_names_what_is_wrong(
    case: str, call: Callable[[], Any], exception: type[BaseException], fragments: list[str]
) -> None:
    with pytest.raises(exception) as err:
        call()
    for f in fragments:
        assert f in str(err.value), f"{case}: {f!r} not in {err.value}"


def test_there_are_at_least_sixty_refused_cases() -> None:
    assert len(REFUSED) >= 60


# -- accepted inputs, re-checked here ---------------------------------------


def test_the_release_refuses_a_source_replaced_after_the_check(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    df, hs = adult()
    levels = {"sex": 0, "age": 2, "race": 1}
    for suffix in ("csv", "parquet"):
        path = tmp_path / f"adult.{suffix}"
        write = df.write_csv if suffix == "csv" else df.write_parquet
        write(path)
        source = pl.scan_csv(path) if suffix == "csv" else pl.scan_parquet(path)
        release = pa.generalize(source, hs, levels, 5, 0.02, quasi_identifiers=ADULT_QIS)
        first = release.collect()
        assert min_group(first, ADULT_QIS) >= 5
        assert release.collect().equals(first)  # collected again: the same rows
        # what the user chains after the release runs after its check
        assert release.filter(pl.col("sex") == "Male").collect().height < first.height
        assert release.head(3).collect().height == 3
        (df.head(40).write_csv if suffix == "csv" else df.head(40).write_parquet)(path)
        capfd.readouterr()
        with pytest.raises(pa.NotAnonymousError, match="source"):
            release.collect()
        with pytest.raises(pa.NotAnonymousError, match="source"):
            release.head(3).collect()
        # no panic (nor its backtrace) printed by Polars' reader on the way
        assert "panicked" not in capfd.readouterr().err
    # the error names the file that changed
    with pytest.raises(pa.NotAnonymousError, match=re.escape(str(path))):
        release.collect()


def test_an_integer_column_is_labelled_by_value_and_its_new_values_refused(
    tmp_path: Path,
) -> None:
    """Ages are labelled through a table by value (no cast to text): the
    release equals the hierarchy's labels row for row, and a source that then
    holds an age below, above or between the ages it held (one its hierarchy
    has, or one it has not) is refused."""
    df, hs = adult()
    ages = df.filter(pl.col("age").is_between(20, 60) & (pl.col("age") != 33))
    path = tmp_path / "ages.csv"
    ages.write_csv(path)
    levels = {"sex": 0, "age": 1, "race": 1}
    release = pa.generalize(pl.scan_csv(path), hs, levels, 2, 0.05, quasi_identifiers=ADULT_QIS)
    out = release.collect()
    assert out.schema["age"] == pl.String

    def labels(q: str) -> dict[str, str]:
        return dict(zip(hs[q].leaves, hs[q].leaf_labels(levels[q]), strict=True))

    # the release's groups are the raw rows' under the hierarchies' labels,
    # counted again in Polars, without those smaller than k
    expect = (
        ages.select(
            pl.col("sex"),
            pl.col("age").cast(pl.String).replace_strict(labels("age")),
            pl.col("race").replace_strict(labels("race")),
        )
        .group_by(ADULT_QIS)
        .len()
        .filter(pl.col("len") >= 2)
    )
    got = out.group_by(ADULT_QIS).len()
    assert got.sort(ADULT_QIS).equals(expect.sort(ADULT_QIS))
    for age in (19, 61, 33, 200):
        ages.with_columns(
            pl.when(pl.int_range(pl.len()) == 0).then(age).otherwise(pl.col("age")).alias("age")
        ).write_csv(path)
        with pytest.raises(pa.NotAnonymousError, match="source"):
            release.collect()


def test_generalize_checks_every_column_with_a_hierarchy() -> None:
    df, hs = adult()
    qis = ["sex", "age", "race"]
    three = {q: hs[q] for q in qis}
    # age alone at level 2 is not enough once sex and race count too
    with pytest.raises(pa.NotAnonymousError, match="levels sex=0, age=2, race=0 leave"):
        pa.generalize(df, three, {"age": 2}, k=5)
    out = pa.generalize(df, three, {"age": 2, "race": 1}, k=5, max_suppression=0.05).collect()
    assert min_group(out, qis) >= 5


def test_a_result_applied_to_another_table_measures_its_budget_there() -> None:
    df, hs = adult()
    r = pa.search(df, ADULT_QIS, hs, 5, 0.01, progress=False)
    levels = r.best("min_height")
    small = df.sample(200, seed=1)
    with pytest.raises(pa.NotAnonymousError, match=r"0\.01.*of this table's 200 rows"):
        r.apply(small, levels=levels)
    relaxed = pa.search(df, ADULT_QIS, hs, 5, 0.5, progress=False)
    out = relaxed.apply(small, levels={"sex": 1, "age": 3, "race": 1}).collect()
    assert out.height >= 100 and min_group(out, ADULT_QIS) >= 5


def test_internal_names_never_meet_the_users() -> None:
    df, hs = patients()
    renamed = {"Birthdate": "height", "Sex": "count", "Zipcode": "__polars_anon_count"}
    d2 = df.rename(renamed).with_columns(pl.lit(1).alias("__polars_anon_key_0"))
    h2 = {renamed[k]: v for k, v in hs.items()}
    qis = list(renamed.values())
    r = pa.search(d2, qis, h2, 2, progress=False)
    assert r.column("height") == "node_height" and "node_height" in r.anonymous.columns
    assert r.best("min_height") == {"height": 1, "count": 1, "__polars_anon_count": 0}
    assert pa.check(d2, qis, 2, h2, {"height": 1, "count": 1}).k_anonymous
    out = r.apply(levels={"height": 0, "count": 1, "__polars_anon_count": 2}).collect()
    assert out.columns == d2.columns and min_group(out, qis) >= 2


@pytest.mark.parametrize("name", ["__population", "__data", "__outside", "population", "__row"])
def test_models_against_a_population_and_mu_argus_take_any_column_name(name: str) -> None:
    # a column named as one the library used inside took its place (a raw
    # Polars DuplicateError); each run equals the run under another name
    rng = np.random.default_rng(5)
    people = pl.DataFrame(
        {"z": rng.choice(list("abcdef"), 600), "sex": rng.choice(["F", "M"], 600)}
    )
    hs = {
        "z": pa.Hierarchy.from_rows([[v, "ab" if v in "ab" else "c-f", "*"] for v in "abcdef"]),
        "sex": pa.Hierarchy.from_rows([["F", "*"], ["M", "*"]]),
    }
    study = people.head(150)

    def runs(column: str) -> list[Any]:
        hier = {column if q == "z" else q: h for q, h in hs.items()}
        data, pop = study.rename({"z": column}), people.rename({"z": column})
        qis = [column, "sex"]
        out: list[Any] = []
        for c in (pa.KMap(60, population=pop), pa.DPresence(0.0, 0.3, population=pop)):
            r = pa.search(data, qis, hier, 1, 0.1, criteria=[c], progress=False)
            levels = r.best("min_loss")
            released = r.apply(levels=levels).collect()
            out += [r.anonymous.rename({column: "z"}), released.rename({column: "z"})]
        masked = pa.mu_argus(data, qis, hier, k=30).mu_argus.masked
        return [*out, masked.rename({column: "z"})]

    # (mu-Argus's masked frequency set comes in the order Polars grouped
    # F0, which varies between runs: compared as sets of rows)
    for mine, plain in zip(runs(name), runs("z"), strict=True):
        assert mine.sort(mine.columns).equals(plain.sort(plain.columns))


def test_accepted_spellings_of_parameters() -> None:
    df, hs = adult()
    crit = pa.PSensitive(np.int64(2), "occupation")  # a NumPy integer p
    r = pa.search(df, ADULT_QIS, hs, np.int64(5), np.uint16(300), criteria=crit, progress=False)
    assert r.k == 5 and r.max_suppression == 300
    # one criterion need not be wrapped, and a huge count means every row
    assert pa.check(df, ADULT_QIS, 5, hs, criteria=crit, max_suppression=10**30).k_anonymous
    out = r.apply().collect()
    assert min_group(out, ADULT_QIS) >= 5
    assert (
        out.group_by(ADULT_QIS).agg(pl.col("occupation").n_unique()).get_column("occupation").min()
        >= 2
    )


def test_exact_repeated_hierarchy_rows_are_taken_once() -> None:
    h = pa.Hierarchy.from_csv_text("a;x;*\na;x;*\nb;x;*\n")
    assert h.leaves == ["a", "b"]


def test_nulls_as_a_value_of_their_own() -> None:
    df, hs = adult()
    holes = df.with_columns(
        pl.when(pl.int_range(pl.len()) % 40 == 0).then(None).otherwise(pl.col("age")).alias("age")
    )
    r = pa.search(holes, ADULT_QIS, hs, 5, 0.02, nulls="value", progress=False)
    for levels in ({"sex": 0, "age": 0, "race": 1}, r.best("min_height")):
        out = r.apply(levels=levels).collect()
        assert min_group(out, ADULT_QIS) >= 5
        if levels["age"] == 0:
            assert out.get_column("age").null_count() > 0  # nulls stay nulls
            assert out.get_column("age").dtype == df.get_column("age").dtype
    # a hierarchy row for NULL places it
    rows = [*hs["age"].rows, ["NULL", "unknown", "unknown", "unknown", "*"][: hs["age"].height + 1]]
    placed = {**hs, "age": pa.Hierarchy.from_rows(rows)}
    out = pa.generalize(
        holes, placed, {"age": 1, "race": 1}, 5, 0.02, quasi_identifiers=ADULT_QIS, nulls="value"
    ).collect()
    assert "unknown" in out.get_column("age").to_list()
    assert min_group(out, ADULT_QIS) >= 5


def test_empty_strings_are_released_as_the_refusal_says() -> None:
    # a hierarchy cannot name the empty string: the refusal's two ways out
    df = pl.DataFrame({"s": ["", "a", "", "a", "b", "b"], "n": [1, 1, 1, 1, 2, 2]})
    with pytest.raises(pa.HierarchyError, match="empty string"):
        pa.search(df, ["s", "n"], None, 2, progress=False)
    filled = df.with_columns(pl.col("s").replace("", "(empty)"))
    as_null = df.with_columns(pl.col("s").replace("", None))
    for data, nulls in ((filled, "error"), (as_null, "value")):
        r = pa.search(data, ["s", "n"], None, 2, nulls=nulls, progress=False)  # type: ignore[arg-type]
        out = r.apply(levels={"s": 0, "n": 0}).collect()
        assert out.group_by("s", "n").len().get_column("len").min() == 2
        assert out.height == 6


def test_time_limits_answer_with_what_is_confirmed() -> None:
    df, hs = adult()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)[:7]
    start = time.perf_counter()
    full = pa.search(df, qis, hs, 5, 0.05, algorithm="mingen", progress=False)
    # a fifth of the whole search's own time, whatever the machine's speed
    limit = (time.perf_counter() - start) / 5
    every = {tuple(r) for r in full.anonymous.select(qis).iter_rows()}
    r = pa.search(df, qis, hs, 5, 0.05, algorithm="mingen", time_limit=limit, progress=False)
    assert r.stopped is not None and "time limit" in r.stopped and not r.complete
    found = {tuple(x) for x in r.anonymous.select(qis).iter_rows()}
    assert found < every
    assert "stopped" in repr(r)


def test_results_hierarchies_and_criteria_pickle() -> None:
    df, hs = patients()
    r = pa.search(df, ["Birthdate", "Sex", "Zipcode"], hs, 2, trace=True, progress=False)
    again = pickle.loads(pickle.dumps(r))
    assert again.anonymous.equals(r.anonymous) and again.best() == r.best()
    assert again.stats.nodes_checked == r.stats.nodes_checked
    assert again.trace[0].levels == r.trace[0].levels
    assert again.apply().collect().equals(r.apply().collect())
    assert pickle.loads(pickle.dumps(hs["Zipcode"])) == hs["Zipcode"]
    t = pa.TCloseness(0.3, "Zipcode", "hierarchical", hs["Zipcode"])
    assert pickle.loads(pickle.dumps(t)) == t


def test_unicode_forms_are_named() -> None:
    nfd, nfc = (unicodedata.normalize(f, "Zürich") for f in ("NFD", "NFC"))
    h = pa.Hierarchy.from_rows([[nfd, "*"], ["Bern", "*"]])
    with pytest.raises(pa.MissingValueError, match="normalization"):
        pa.check(pl.DataFrame({"city": [nfc, "Bern"]}), ["city"], 1, {"city": h})


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["anonymize", "/no/such.csv", "--hierarchies", ".", "--qi", "a"], "no such file"),
        (["adult", "--out", "/no/such/folder/x.parquet"], "does not exist"),
        (["adult", "--max-suppression", "lots"], "'lots'"),
        (["adult", "--k", "0"], "--k must be a positive"),
        (["adult", "--max-suppression", "-1"], "--max-suppression must be >= 0"),
    ],
)
def test_cli_errors_are_one_line(
    args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = cli(args)
    except SystemExit as e:  # argparse's own usage errors
        code = int(e.code or 0)
    err = capsys.readouterr().err.strip()
    assert code == 2 and fragment in err and "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    assert "_suppression" not in err


def test_cli_takes_suppression_as_a_fraction_a_count_or_a_percentage(tmp_path: Path) -> None:
    for text in ("1e-2", "0.01", "1%", "301"):
        out = tmp_path / f"{text}.parquet"
        assert cli(["adult", "--k", "5", "--max-suppression", text, "--out", str(out)]) == 0
        released = pl.read_parquet(out)
        assert 30162 - released.height <= 301
        assert min_group(released, list(pa.datasets.ADULT_QUASI_IDENTIFIERS)) >= 5


def test_cli_in_a_fresh_process_prints_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "polars_anon.cli",
            "anonymize",
            str(tmp_path / "x.csv"),
            "--hierarchies",
            str(tmp_path),
            "--qi",
            "a",
        ],
        capture_output=True,
        text=True,
        env={**os.environ},
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "no such file" in done.stderr


def test_a_folder_file_named_near_a_column_with_none_is_refused(tmp_path: Path) -> None:
    """sex.csv for the column Sex was not read, and Sex kept its own values
    without a word; a file of a column the data lacks, near none of those
    without one, is still left alone."""
    df, hs = patients()
    for column, h in hs.items():
        name = "sex" if column == "Sex" else column
        (tmp_path / f"{name}.csv").write_text(h.to_csv())
    qis = ["Birthdate", "Sex", "Zipcode"]
    with pytest.raises(pa.ConfigError, match=r"no file for column 'Sex'.*'sex\.csv'"):
        pa.search(df, qis, tmp_path, 2, progress=False)
    (tmp_path / "sex.csv").rename(tmp_path / "Sex.csv")
    (tmp_path / "income.csv").write_text(hs["Sex"].to_csv())
    assert (
        pa.search(df, qis, tmp_path, 2, progress=False).best()
        == pa.search(df, qis, hs, 2, progress=False).best()
    )


def test_hierarchies_of_other_tables_alike_in_name_are_left_alone() -> None:
    """A mapping shared by tables: a hierarchy whose name is a column's
    start or merely alike (education of a table without it, beside its
    education-num; age beside wage) is another table's, not a slip."""
    df, hs = adult()
    shared = {c: hs[c] for c in ("age", "sex", "education")}
    table = df.head(2000).select(
        "age", "sex", pl.col("age").alias("education-num"), pl.col("age").alias("wage")
    )
    release = pa.generalize(table, shared, {"age": 2}, k=2, max_suppression=0.1)
    assert release.collect().columns == ["age", "sex", "education-num", "wage"]


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_table_given_to_apply_that_no_longer_reads_is_one_clear_error(
    suffix: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A scan whose file changed since it was scanned (a column renamed, a
    value of another type, a shorter Parquet file) was Polars' own error,
    or a panic with its backtrace: now this package's, naming the file."""
    df, hs = adult()
    path = tmp_path / f"adult.{suffix}"
    write = (lambda f, p: f.write_csv(p)) if suffix == "csv" else (lambda f, p: f.write_parquet(p))
    write(df, path)
    scan = pl.scan_csv(path) if suffix == "csv" else pl.scan_parquet(path)
    result = pa.search(scan, ADULT_QIS, hs, 2, progress=False)
    # a shorter CSV reads (and is checked as the table it is)
    last = (
        df.head(40) if suffix == "parquet" else df.with_columns(pl.col("age").cast(pl.String) + "x")
    )
    changes = [df.rename({"sex": "gender"}), last]

    # another scan of the file is prepared anew, and fails there; the one
    # searched is released from the search's preparation (as by
    # `result.apply()`), and refused when it reads the file
    def scanned() -> pl.LazyFrame:
        write(df, path)
        other = pl.scan_csv(path) if suffix == "csv" else pl.scan_parquet(path)
        other.collect_schema()
        return other

    for changed in [*changes, None]:  # None: a file gone is one too
        other = scanned()
        if changed is None:
            path.unlink()
        else:
            write(changed, path)
        capfd.readouterr()
        with pytest.raises(pa.ConfigError, match=re.escape(f"the table given ({path})")):
            result.apply(other)
        with pytest.raises(pa.NotAnonymousError, match=re.escape(f"the source ({path})")):
            result.apply(scan).collect()
        assert "panicked" not in capfd.readouterr().err
    # an error of a plan reading no file is its own
    with pytest.raises(pl.exceptions.ColumnNotFoundError):
        result.apply(df.lazy().select(*ADULT_QIS, "nope"))
