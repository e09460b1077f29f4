"""The benchmark's data generator keeps every value inside its hierarchy."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

import polars_anon as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import synth


def test_synth_is_deterministic_and_inside_the_hierarchies(tmp_path: Path) -> None:
    a = synth.synthesize(5000, seed=3)
    b = synth.synthesize(5000, seed=3)
    assert a.equals(b) and a.height == 5000
    assert not a.equals(synth.synthesize(5000, seed=4))
    _, hs = pa.datasets.adult()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    # check() encodes every value through its hierarchy: a stray value would raise
    assert pa.check(a, qis, 1, hs).rows == 5000
    paths = synth.write(2500, tmp_path / "parts", seed=1, part_rows=1000)
    assert len(paths) == 3
    assert (
        pl.scan_parquet(tmp_path / "parts" / "*.parquet").select(pl.len()).collect().item() == 2500
    )
