"""Columns cross to the core through the Arrow C stream interface, read by
polars-arrow's stream reader: every producer (Polars, pyarrow, pandas, DuckDB),
chunked streams, sliced arrays with offsets, nulls and every integer width give
the same problem as the little-endian codes the core also takes."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import polars as pl
import pyarrow
import pytest

import polars_anon as pa

LONG = "a long label, well past twelve bytes"
LEAVES = ["7", "-3", "beta", LONG, "ünïcode"]
HIERARCHY = pa.Hierarchy.from_rows(
    [[v, "first" if i < 3 else "rest", "*"] for i, v in enumerate(LEAVES)]
)


def groups(column: object, counts: object = None) -> list[tuple[int, int]]:
    """The problem's groups at the leaves: (leaf code, rows)."""
    p = pa._core.Problem(["v"], [HIERARCHY], [column], counts)
    codes, sizes = p.groups([0])
    return sorted(zip(codes[0], sizes, strict=True))


def expected(values: list[str]) -> list[tuple[int, int]]:
    """The same groups counted with plain Python from the leaves' codes."""
    counts: dict[int, int] = {}
    for v in values:
        code = LEAVES.index(v)
        counts[code] = counts.get(code, 0) + 1
    return sorted(counts.items())


def stream(array: pyarrow.Array) -> pyarrow.ChunkedArray:
    """A pyarrow array as a stream of one chunk (an Array exports
    ``__arrow_c_array__``, a ChunkedArray ``__arrow_c_stream__``)."""
    return pyarrow.chunked_array([array])


VALUES = ["beta", LONG, "ünïcode", "beta", "7", LONG, "-3", "beta"]


def test_string_streams_of_every_producer_and_layout() -> None:
    want = expected(VALUES)
    padded = ["x", "y", *VALUES, "z"]
    chunked = pl.concat([pl.Series("v", padded[:4]), pl.Series("v", padded[4:])], rechunk=False)
    assert chunked.n_chunks() == 2
    columns: list[object] = [
        pl.Series("v", VALUES),
        chunked.slice(2, len(VALUES)),  # an offset into the first chunk, cut in the second
        stream(pyarrow.array(VALUES, type=pyarrow.string())),
        stream(pyarrow.array(padded, type=pyarrow.string()).slice(2, len(VALUES))),
        stream(pyarrow.array(padded, type=pyarrow.large_string()).slice(2, len(VALUES))),
        stream(pyarrow.array(padded, type=pyarrow.string_view()).slice(2, len(VALUES))),
        pyarrow.chunked_array([padded[:5], padded[5:]], type=pyarrow.large_string()).slice(
            2, len(VALUES)
        ),
        # pandas' Arrow-backed strings, through pyarrow's stream of them
        pyarrow.chunked_array(
            pd.Series(VALUES, dtype="string[pyarrow]").array.__arrow_array__()  # type: ignore[attr-defined]
        ),
    ]
    for column in columns:
        assert hasattr(column, "__arrow_c_stream__"), type(column)
        assert groups(column) == want, type(column)


def test_integer_values_of_every_width_stand_for_their_decimal_strings() -> None:
    ints = [7, -3, 7, 7]
    want = expected([str(v) for v in ints])
    for dtype in (pl.Int8, pl.Int16, pl.Int32, pl.Int64):
        assert groups(pl.Series(ints, dtype=dtype)) == want, dtype
        sliced = pl.Series([100, *ints], dtype=dtype).slice(1)
        assert groups(sliced) == want, dtype
    for t in (pyarrow.int8(), pyarrow.int16(), pyarrow.int32(), pyarrow.int64()):
        assert groups(stream(pyarrow.array([1, *ints], type=t).slice(1))) == want, t


def test_codes_and_counts_of_every_unsigned_width() -> None:
    codes = [2, 3, 2, 0]
    counts = [5, 1, 2, 9]
    reference = groups(
        b"".join(c.to_bytes(4, "little") for c in codes),
        b"".join(c.to_bytes(8, "little") for c in counts),
    )
    assert reference == [(0, 9), (2, 7), (3, 1)]
    for dtype in (pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64):
        assert groups(pl.Series(codes, dtype=dtype), pl.Series(counts, dtype=dtype)) == reference
    for t in (pyarrow.uint8(), pyarrow.uint16(), pyarrow.uint32(), pyarrow.uint64()):
        sliced_codes = stream(pyarrow.array([4, *codes], type=t).slice(1))
        sliced_counts = pyarrow.chunked_array([[1, *counts[:2]], counts[2:]], type=t).slice(1)
        assert groups(sliced_codes, sliced_counts) == reference, t


def test_nulls_are_counted_with_their_rows_weight() -> None:
    with_nulls = stream(pyarrow.array(["x", "beta", None, LONG, None]).slice(1))
    counts = pl.Series([1, 5, 1, 7], dtype=pl.UInt64)
    with pytest.raises(pa.MissingValueError, match=r"'v': 12 null"):
        groups(with_nulls, counts)
    with pytest.raises(pa.MissingValueError, match=r"'v': 2 null"):
        groups(pl.Series(["beta", None, "7", None]))
    with pytest.raises(pa.MissingValueError, match=r"'v': 1 null"):
        groups(pl.Series([7, None, -3], dtype=pl.Int16))
    with pytest.raises(pa.ParameterError, match="nulls"):
        groups(pl.Series([0, 1]), pl.Series([1, None], dtype=pl.UInt64))


def test_unsupported_columns_are_type_errors_naming_the_type() -> None:
    """A ParameterError: an AnonError as every error of the library, and a
    TypeError."""
    with pytest.raises(pa.ParameterError, match=r"unsigned integer.*Float64"):
        groups(pl.Series([0.0, 1.0]), pl.Series([1, 1], dtype=pl.UInt64))
    with pytest.raises(pa.ParameterError, match=r"unsigned integer.*Boolean"):
        groups(pl.Series([True, False]))
    with pytest.raises(pa.ParameterError, match=r"Arrow-exporting column.*got list"):
        groups([1, 2, 3])
    with pytest.raises(pa.ParameterError, match="exceeds u32"):
        groups(pl.Series([1 << 40], dtype=pl.UInt64))


NO_NUMPY_NOR_PYARROW = """
import sys
import polars as pl
import polars_anon as pa
lf, hs = pa.datasets.patients()
r = pa.check(lf.collect(), ["Sex", "Zipcode"], 2, hs, {"Sex": 1})
print(r.groups, "numpy" in sys.modules, "pyarrow" in sys.modules)
"""


def test_a_polars_check_imports_neither_numpy_nor_pyarrow() -> None:
    out = subprocess.run(
        [sys.executable, "-c", NO_NUMPY_NOR_PYARROW], capture_output=True, text=True, check=True
    )
    assert out.stdout.split()[1:] == ["False", "False"]


def test_values_and_counts_of_different_lengths_are_a_config_error() -> None:
    counts = pl.Series([1, 2], dtype=pl.UInt64)
    for column in (pl.Series(["beta", "7", None]), pl.Series([7, None, None], dtype=pl.Int32)):
        with pytest.raises(pa.ConfigError, match=r"column 'v' has 3 values for 2 counts"):
            groups(column, counts)


def test_the_type_is_the_streams_even_without_chunks() -> None:
    empty = pyarrow.chunked_array([], type=pyarrow.float64())
    with pytest.raises(pa.ParameterError, match="Float64"):
        groups(empty, pl.Series([], dtype=pl.UInt64))
