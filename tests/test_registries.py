"""The core's registries and their Python mirrors agree: every registered
search runs from Python and is documented there; every criterion the core
can build is built by one Python class registered in ``criteria.TYPES``, and
every registered class builds one."""

from __future__ import annotations

import inspect

import pytest

import polars_anon as pa
from polars_anon.criteria import TYPES

# the CoreCriterion members that are not constructors
NOT_BUILDERS = {
    "against_population",
    "monotone",
    "monotone_with_suppression",
    "name",
    "whole_release",
}


def test_every_registered_search_runs_from_python_and_is_documented() -> None:
    lf, hs = pa.datasets.patients()
    qis = ["Sex", "Zipcode"]
    for name, variants in pa._core.ALGORITHMS:
        assert f'"{name}"' in (pa.search.__doc__ or ""), name
        for variant in variants or [None]:
            r = pa.search(lf, qis, hs, 2, algorithm=name, variant=variant, progress=False)
            assert r.algorithm == name and r.anonymous.height >= 1, (name, variant)
    with pytest.raises(pa.ConfigError, match="unknown algorithm"):
        pa.search(lf, qis, hs, 2, algorithm="not_registered")


def test_every_core_criterion_has_one_registered_python_class() -> None:
    builders = {
        n for n in dir(pa._core.CoreCriterion) if not n.startswith("_") and n not in NOT_BUILDERS
    }
    used: dict[str, list[str]] = {}
    for kind, cls in TYPES.items():
        assert cls.kind == kind  # type: ignore[attr-defined]
        source = inspect.getsource(cls)
        for b in builders:
            if f"CoreCriterion.{b}(" in source:
                used.setdefault(b, []).append(cls.__name__)
    assert set(used) == builders, builders - set(used)
    assert all(len(v) == 1 for v in used.values()), used
    public = {n for n in pa.__all__ if isinstance(getattr(pa, n, None), type)}
    assert {cls.__name__ for cls in TYPES.values()} <= public


def test_every_public_name_is_listed_before_its_first_use() -> None:
    # in a fresh process, so that no name was imported on use yet: a
    # notebook completes what dir() lists
    import subprocess
    import sys

    code = "import polars_anon as pa; print(sorted(set(pa.__all__) - set(dir(pa))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_progress_bar_needs_no_widgets(monkeypatch: pytest.MonkeyPatch) -> None:
    # without ipywidgets, tqdm's text bar (tqdm.auto warns in a notebook)
    import importlib.util

    import tqdm.std

    from polars_anon.api.progress import _tqdm

    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "ipywidgets" else found(n, *a)
    )
    assert _tqdm() == (tqdm.std.tqdm, True)


def test_the_text_bar_stays_off_a_log_file_and_counts_from_the_search_s_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Written to a stream that is no terminal (stderr into a file), the text
    bar was one long line of carriage returns; shown, its clock started when
    it appeared, a second into the search."""
    import functools
    import io

    import tqdm.std

    from polars_anon.api import progress

    monkeypatch.setattr(progress, "_tqdm", lambda: (tqdm.std.tqdm, True))
    bar = progress.SearchProgress("polars-anon x")
    bar(10, 0.5)
    bar(500, 2.5)
    bar.close()
    assert capsys.readouterr().err == ""  # pytest's capture is no terminal
    # a Jupyter kernel's stream is no terminal either, but shows the bar
    kernel = type("OutStream", (io.StringIO,), {"__module__": "ipykernel.iostream"})
    assert progress._shown(kernel()) and not progress._shown(io.StringIO())
    shown = io.StringIO()
    monkeypatch.setattr(
        progress, "_tqdm", lambda: (functools.partial(tqdm.std.tqdm, file=shown), False)
    )
    bar = progress.SearchProgress("polars-anon x")
    bar(500, 2.5)
    bar._bar.refresh()
    assert "500 nodes [00:02" in shown.getvalue()
    bar.close()
