"""How reports and messages read (`reports.render`): a count and its noun,
singular for one and plural otherwise, the number in groups of three
digits."""

from __future__ import annotations

import pytest

from polars_anon.reports.render import counted


@pytest.mark.parametrize(
    ("n", "expected"),
    [(1, "1 value"), (0, "0 values"), (2, "2 values"), (1234, "1,234 values")],
)
def test_counted_says_one_and_many(n: int, expected: str) -> None:
    assert counted(n, "value") == expected


def test_counted_pluralizes_the_last_word() -> None:
    assert counted(1, "distinct value") == "1 distinct value"
    assert counted(3, "distinct value") == "3 distinct values"
