"""Scale Adult to N rows, deterministically, as Parquet.

Usage: ``python bench/synth.py ROWS OUT [--seed 0] [--part-rows 10000000]``

Rows are drawn from Adult with replacement; each age is jittered by up to two
years and kept inside the age hierarchy's domain, so every value stays one its
hierarchy knows. Large outputs are written as a directory of Parquet parts of
``--part-rows`` rows (read them back with ``pl.scan_parquet(OUT / "*.parquet")``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

import polars_anon as pa


def synthesize(rows: int, seed: int = 0) -> pl.DataFrame:
    lf, hs = pa.datasets.adult()
    adult = lf.collect()
    ages = sorted(int(v) for v in hs["age"].leaves)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, adult.height, size=rows)
    jitter = rng.integers(-2, 3, size=rows)
    base = adult[idx]
    age = np.clip(base.get_column("age").to_numpy() + jitter, ages[0], ages[-1])
    return base.with_columns(pl.Series("age", age, dtype=pl.Int64))


def write(rows: int, out: Path, seed: int = 0, part_rows: int = 10_000_000) -> list[Path]:
    if rows <= part_rows:
        out.parent.mkdir(parents=True, exist_ok=True)
        synthesize(rows, seed).write_parquet(out)
        return [out]
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, start in enumerate(range(0, rows, part_rows)):
        n = min(part_rows, rows - start)
        path = out / f"part-{i:04d}.parquet"
        synthesize(n, seed + i).write_parquet(path)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("rows", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--part-rows", type=int, default=10_000_000)
    args = parser.parse_args()
    paths = write(args.rows, args.out, args.seed, args.part_rows)
    print(f"wrote {args.rows} rows to {len(paths)} file(s) under {args.out}")


if __name__ == "__main__":
    main()
