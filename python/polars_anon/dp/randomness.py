"""The randomness of a differentially private release: a 32-byte key for the
core's ChaCha20 keystream (`src/dp.rs`). By default the key comes from the
operating system's generator (`secrets`), so the sample and the mechanism's
choices are unpredictable; with a seed it is SHA-256 of a fixed label and
the seed, so a test or a job file gets the same release every run. A seeded
release is only as secret as its seed: do not publish one."""

from __future__ import annotations

import hashlib
import numbers
import operator
import secrets
from collections.abc import Iterator

import polars as pl

from polars_anon import _core
from polars_anon.exceptions import ParameterError

LABEL = b"polars-anon differential privacy, seed "


def key_of(seed: int | None) -> bytes:
    """The keystream's key: random, or derived from a whole-number seed."""
    if seed is None:
        return secrets.token_bytes(32)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ParameterError(f"seed must be a whole number or None, got {seed!r}")
    # any integer type, as the int it is: NumPy's 3 is Python's 3
    return hashlib.sha256(LABEL + str(operator.index(seed)).encode("ascii")).digest()


def sample_expr(key: bytes, beta: float, index: str) -> pl.Expr:
    """True for the rows in the sample: row ``i`` (its number in the column
    ``index``, counted from 0 over the whole table) is kept with probability
    ``beta``, decided by word ``i`` of the key's sampling stream alone, so
    every scan of the same rows draws the same sample."""

    def kept(rows: pl.Series) -> pl.Series:
        return pl.Series(rows.name, _core.sampled(key, rows.cast(pl.UInt64), beta))

    return pl.col(index).map_batches(kept, return_dtype=pl.Boolean, is_elementwise=True)


class Draws:
    """The exponential mechanism's uniform numbers in [0, 1), in turn, from
    the key's mechanism stream."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._next = 0

    def __iter__(self) -> Iterator[float]:
        return self

    def __next__(self) -> float:
        (u,) = _core.uniforms(self._key, self._next, 1)
        self._next += 1
        return u
