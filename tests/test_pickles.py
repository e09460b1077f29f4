"""Pickles made by polars-anon 0.1.0, whose modules were laid out flat
(``polars_anon._results``, ``polars_anon._criteria``, ...), load in this
layout and work: the old module names resolve to the modules that now hold
their classes (``polars_anon._moved``).

``data/pickles_v0.1.0.pkl`` holds, for a six-row table, a search's result
(with and without a criterion), mu-Argus's, one criterion of each class,
a local recoding, a check's and a risk report and a frequency set, with
the answers they gave then."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

import polars_anon as pa

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def old() -> dict[str, Any]:
    with (DATA / "pickles_v0.1.0.pkl").open("rb") as f:
        loaded: dict[str, Any] = pickle.load(f)
    return loaded


def test_the_fixture_names_the_old_modules() -> None:
    data = (DATA / "pickles_v0.1.0.pkl").read_bytes()
    for old in ("_results", "_criteria", "_local", "_mu_argus", "_risk", "_freqset"):
        assert f"polars_anon.{old}".encode() in data


def test_search_results_load_and_work(old: dict[str, Any]) -> None:
    assert old["version"] == "0.1.0"
    result = old["search"]
    assert isinstance(result, pa.SearchResult)
    assert result.best("min_loss") == old["search_best"]
    released = result.apply().collect()
    assert pa.check(released, ["zip", "age"], 2).k_anonymous
    with_criteria = old["with_criteria"]
    assert with_criteria.criteria == [pa.DistinctLDiversity(2, "disease")]
    assert with_criteria.best("min_height") == old["with_criteria_best"]
    assert with_criteria.apply(old["table"]).collect().height == old["table"].height
    # and a result pickled now loads too
    again = pickle.loads(pickle.dumps(result))
    assert again.best("min_loss") == old["search_best"]


def test_mu_argus_results_load_and_work(old: dict[str, Any]) -> None:
    result = old["mu_argus"]
    assert isinstance(result, pa.MuArgusResult)
    assert result.mu_argus.levels == old["mu_argus_levels"]
    assert "k reached" in repr(result)
    assert result.apply().collect().height > 0


def test_criteria_load_equal_to_those_made_now(old: dict[str, Any]) -> None:
    cats = [["hiv", "cancer"], ["flu"]]
    assert old["criteria"] == [
        pa.PSensitive(2, "disease"),
        pa.PPlusSensitive(2, "disease", cats),
        pa.PAlphaSensitive(2, 0.5, "disease", cats),
        pa.DistinctLDiversity(2, "disease"),
        pa.EntropyLDiversity(1.2, "disease"),
        pa.RecursiveCLDiversity(3.0, 2, "disease"),
        pa.TCloseness(0.9, "disease"),
    ]
    report = pa.check(old["table"], ["zip", "age"], 2, criteria=old["criteria"][:4], levels=None)
    assert report.criteria


def test_reports_local_recodings_and_frequency_sets_load(old: dict[str, Any]) -> None:
    assert isinstance(old["check"], pa.CheckReport) and old["check"].k_anonymous
    assert "CheckReport" in str(old["check"])
    assert isinstance(old["risk"], pa.RiskReport) and "RiskReport" in str(old["risk"])
    assert isinstance(old["local"], pa.LocalRecoding) and old["local"].data.height == 6
    counts = old["frequency_set"]
    assert isinstance(counts, pa.FrequencySet) and counts.rows == 6
    assert pa.search(counts, ["zip", "age"], None, k=1, progress=False).best() == {
        "zip": 0,
        "age": 0,
    }


def test_an_old_name_that_is_gone_says_so() -> None:
    import polars_anon._results as moved  # type: ignore[import-not-found]

    assert moved.SearchResult is pa.SearchResult
    with pytest.raises(AttributeError, match="made by an earlier polars-anon"):
        _ = moved.NoSuchThing
