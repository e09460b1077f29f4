"""Parameters as they are handed in: integers of any integer type, k, the
suppression budget, a node's levels."""

from __future__ import annotations

import math
import numbers
import operator
import os
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, TypeAlias

from polars_anon._core import ConfigError
from polars_anon.exceptions import ParameterError
from polars_anon.reports.render import names_text, one_of

Levels: TypeAlias = "Mapping[str, int] | Sequence[int]"


def is_bool(value: Any) -> bool:
    """A bool, Python's or NumPy's (whose scalars name their dtype)."""
    return isinstance(value, bool) or str(getattr(value, "dtype", "")) == "bool"


def as_int(name: str, value: Any) -> int:
    """`value` as an int: any integer type (Python, NumPy, ...) through
    ``operator.index``; bools, floats and strings are refused by name."""
    if is_bool(value):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ConfigError(
            f"{name} must be an integer, got {value!r} ({type(value).__name__})"
        ) from None


def as_real(name: str, value: Any) -> float:
    """`value` as a float: any real number (Python's, NumPy's, ...), not a
    bool or a string."""
    if is_bool(value) or not isinstance(value, numbers.Real):
        raise ParameterError(f"{name} must be a number, got {value!r}")
    return float(value)


def check_k(k: Any, rows: int) -> int:
    """`k` as an int in [1, rows]."""
    n = as_int("k", k)
    if n < 1:
        raise ConfigError(f"k must be a positive integer, got {n!r}")
    if n > rows:
        raise ConfigError(
            f"k = {n} is larger than the table ({rows} rows): "
            f"no generalization can be {n}-anonymous"
        )
    return n


def max_suppressed(max_suppression: Any, rows: int) -> int:
    """Tuples that may be suppressed: an integer is a count (more than the rows
    means all of them), a float in [0, 1) a fraction of the rows."""
    if is_bool(max_suppression):
        raise ConfigError("max_suppression must be an int (rows) or a float in [0, 1)")
    if isinstance(max_suppression, numbers.Real) and not isinstance(
        max_suppression, numbers.Integral
    ):
        if not 0.0 <= float(max_suppression) < 1.0:
            raise ConfigError(
                f"max_suppression as a fraction must be in [0, 1), got {max_suppression}"
            )
        # in decimal, as the fraction is written (str: a NumPy float32's
        # 0.1 too): in binary floats 0.29 * 100 is 28.999..., one tuple short
        # a float's or a NumPy scalar's text is the shortest that reads back
        # as it; another real's (a Fraction) is its float's
        written = isinstance(max_suppression, float) or hasattr(max_suppression, "dtype")
        text = str(max_suppression) if written else repr(float(max_suppression))
        return math.floor(Decimal(text) * rows)
    try:
        count = operator.index(max_suppression)
    except TypeError:
        raise ConfigError(
            f"max_suppression must be an int (rows) or a float in [0, 1), got {max_suppression!r}"
        ) from None
    if count < 0:
        raise ConfigError(f"max_suppression must be >= 0, got {count}")
    return min(count, rows)


def suppression_share(given: Any, count: int, rows: int) -> str | None:
    """A budget given as a fraction, as a reader reads it: its share of these
    rows, said when it rounds down to no row (1% of 80 rows: a user who
    asked for some suppression should see that none is allowed); None for
    a count."""
    if given is None or is_bool(given) or isinstance(given, numbers.Integral):
        return None
    share = f"{float(given) * 100:g}% of {rows:,} rows"
    return f"{share} rounds down to no row" if count == 0 and float(given) > 0 else share


def suppression(value: Any) -> int | float:
    """A count of tuples (``300``, ``"3e2"``) or a fraction of the rows (``0.01``, ``"1e-2"``,
    ``"1%"``), as a job file or the command line writes it."""
    if isinstance(value, bool):
        raise ConfigError(f"max_suppression must be a count or a fraction, got {value!r}")
    if isinstance(value, (int, float)):
        return value
    t = str(value).strip()
    try:
        if t.endswith("%"):
            # in decimal: 0.35 / 100 in floats is 0.0034999..., a tuple short
            return float(Decimal(t[:-1]) / 100)
        if any(c in t for c in ".eE"):
            # 1e3 or 3.0 (a whole count, as a number is written) is tuples, not a
            # fraction (those are under 1)
            f = float(t)
            return int(f) if f >= 1 and f.is_integer() else f
        return int(t)
    except (ValueError, ArithmeticError):
        raise ConfigError(
            f"{value!r} is neither a count of rows (300) nor a fraction of the rows "
            "(0.01, 1e-2, 1%)"
        ) from None


def columns_of(quasi_identifiers: str | Sequence[str], sensitive: Sequence[str] = ()) -> list[str]:
    """The quasi-identifiers as a list (one name alone is a list of one),
    checked as every entry point checks them: at least one, none named
    twice, none also a sensitive attribute of the criteria."""
    qis = names("quasi_identifiers", quasi_identifiers)
    if not qis:
        raise ConfigError("quasi_identifiers: at least one quasi-identifier is needed")
    twice = sorted({q for q in qis if qis.count(q) > 1})
    if twice:
        raise ConfigError(f"quasi-identifiers named twice: {names_text(twice)}")
    both = sorted(set(sensitive) & set(qis))
    if both:
        raise ConfigError(
            f"a column cannot be both quasi-identifier and sensitive: {names_text(both)}"
        )
    return qis


def as_bool(name: str, value: Any) -> bool:
    """`value` as a flag: True or False (NumPy's too), nothing else."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise ParameterError(f"{name} must be True or False, got {value!r}")


def choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    """`value`, one of the strings `allowed`."""
    if not isinstance(value, str) or value not in allowed:
        raise ConfigError(f"{name} must be {one_of(allowed)}, got {value!r}")
    return value


def names(name: str, value: Any) -> list[str]:
    """Column names as given for `name` (one name alone is a list of one):
    strings, none empty."""
    if isinstance(value, str):
        value = [value]
    if isinstance(value, Mapping) or not isinstance(value, Sequence | set | frozenset):
        raise ParameterError(
            f"{name} must be a list of column names, got {type(value).__name__} {value!r:.80}"
        )
    out = list(value)
    bad = [v for v in out if not isinstance(v, str) or not v]
    if bad:
        raise ParameterError(f"{name} must be column names (non-empty strings), got {bad!r:.80}")
    for v in out:
        one_column(name, v)
    return out


def one_column(name: str, column: str) -> None:
    """A column name Polars reads as one column: ``*`` is every column to
    ``pl.col``, and ``^...$`` a pattern of names, so a table's column of
    such a name cannot be named to it; refused, naming `name`."""
    if column == "*" or (len(column) > 1 and column.startswith("^") and column.endswith("$")):
        what = "every column" if column == "*" else "a pattern of column names"
        raise ConfigError(
            f"{name}: the column name {column!r} is {what} to Polars, not one column; "
            "rename the column first"
        )


def seconds(time_limit: Any) -> float | None:
    """A time limit: None, or a number of seconds in [0, 1e9]."""
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)):
        raise ConfigError(f"time_limit must be a number of seconds or None, got {time_limit!r}")
    if not 0 <= time_limit <= 10**9:
        raise ConfigError(
            f"time_limit must be a number of seconds in [0, 1e9] or None, got {time_limit}"
        )
    return float(time_limit)


def texts(**values: Any) -> None:
    """Each parameter named in `values` is a string."""
    for name, value in values.items():
        if not isinstance(value, str):
            raise ParameterError(f"{name} must be a string, got {value!r:.60}")


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size(name: str, value: Any) -> int:
    """A number of bytes: any integer type, or text with a unit (``512M``,
    ``1.5G``, ``2GiB``; K, M, G and T are powers of 1024)."""
    if isinstance(value, str):
        unit = r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*"
        found = re.fullmatch(unit, value, re.IGNORECASE)
        if found:
            return int(float(found[1]) * _UNITS[found[2].upper()])
    elif not is_bool(value):
        try:
            n = operator.index(value)
        except TypeError:
            n = -1
        if n >= 0:
            return n
    raise ConfigError(
        f"{name} must be a number of bytes (an integer, or with a unit: 512M, 4G), "
        f"got {value!r:.80}"
    )


def path_param(name: str, value: Any) -> str | os.PathLike[str]:
    """`value` as a file path (text or ``os.PathLike``), else an error naming
    `name`: Python's own (a bare TypeError) said neither which argument nor
    whose call."""
    if isinstance(value, str) or (
        isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)
    ):
        return value
    raise ParameterError(
        f"{name} must be a file path (str or os.PathLike), got {type(value).__name__} {value!r:.60}"
    )
