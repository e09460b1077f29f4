"""F0 computed where the data lives, handed back as a `FrequencySet`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polars_anon.criteria.base import sensitive_of
from polars_anon.inputs.counts import FrequencySet
from polars_anon.inputs.frames import fresh_name
from polars_anon.prepare.f0 import prepare


def frequency_set(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Any = None,
    criteria: Any = None,
    nulls: str = "error",
    engine: str = "auto",
) -> FrequencySet:
    """F0 of ``data`` (a Polars frame, a DuckDB relation or a Spark DataFrame;
    ``engine`` to name it), computed where the data lives: the distinct values
    of the quasi-identifiers and of the sensitive attributes the criteria
    read (as text, as the core reads them), with their counts, checked
    against the hierarchies with the same errors as a search.

    >>> import polars as pl
    >>> frequency_set(pl.DataFrame({"zip": ["1", "1", "2"]}), ["zip"]).frame.sort("zip").rows()
    [('1', 2), ('2', 1)]
    """
    prep = prepare(data, quasi_identifiers, hierarchies, sensitive_of(criteria), nulls, engine)  # type: ignore[arg-type]
    f0 = prep.f0  # values as text, as the core reads them, whatever the engine
    count = fresh_name("n", [c for c in f0.columns if c != prep.count])
    return FrequencySet(f0.rename({prep.count: count}), count)
