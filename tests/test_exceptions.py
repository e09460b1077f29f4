"""The exceptions live in a public module: a traceback names
``polars_anon.exceptions``, which a user can import; they are the classes
the core raises, catchable under their base, and they pickle."""

from __future__ import annotations

import pickle
import traceback

import pytest

import polars_anon as pa
from polars_anon import exceptions

NAMES = [
    "AnonError",
    "ConfigError",
    "HierarchyError",
    "MissingValueError",
    "NotAnonymousError",
    "ParameterError",
    "SearchTooLargeError",
]


def test_every_exception_is_public_and_the_same_class_everywhere() -> None:
    warnings = ["InputChangedWarning", "UndeclaredColumnsWarning"]
    assert sorted(exceptions.__all__) == sorted([*NAMES, *warnings])
    for name in NAMES:
        cls = getattr(exceptions, name)
        # every class the core raises, and the package's one of its own
        core = pa._core if name != "ParameterError" else exceptions
        assert cls is getattr(pa, name) is getattr(core, name)
        assert cls.__module__ == "polars_anon.exceptions" and cls.__qualname__ == name
        assert issubclass(cls, pa.AnonError)
        again = pickle.loads(pickle.dumps(cls("a message")))
        assert type(again) is cls and str(again) == "a message"
    assert issubclass(pa.SearchTooLargeError, pa.ConfigError)
    # a parameter of the wrong type is caught as Python's own TypeError too
    assert issubclass(pa.ParameterError, pa.ConfigError)
    assert issubclass(pa.ParameterError, TypeError)
    # the warnings: the work goes on, and says what it did
    for warning in (exceptions.UndeclaredColumnsWarning, exceptions.InputChangedWarning):
        assert warning is getattr(pa, warning.__name__) and issubclass(warning, UserWarning)
        assert warning.__module__ == "polars_anon.exceptions"
        assert not issubclass(warning, pa.AnonError)


def test_a_core_error_names_the_public_module_in_its_traceback() -> None:
    lf, hs = pa.datasets.patients()
    with pytest.raises(pa.AnonError) as caught:
        pa.check(lf, ["Sex"], 99, hs)
    assert type(caught.value) is pa.ConfigError
    text = "".join(traceback.format_exception(caught.value))
    assert "polars_anon.exceptions.ConfigError: k = 99" in text
