"""A process that prepares F0 from N rows of Adult's 9 quasi-identifiers
(drawn with replacement, seeded) R times, printing each call's time: for
whole-process comparisons of two builds (`farm-bench`, `perf stat`).

Usage: ``python bench/prepare_calls.py [--rows 10000000] [--calls 6]``
"""

from __future__ import annotations

import argparse
import time

import polars_anon as pa
from polars_anon.prepare.f0 import prepare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--calls", type=int, default=6)
    args = ap.parse_args()
    lf, hs = pa.datasets.adult()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    df = lf.select(qis).collect().sample(args.rows, with_replacement=True, seed=1)
    for _ in range(args.calls):
        t = time.perf_counter()
        prepare(df, qis, hs)
        dt = time.perf_counter() - t
        print(f"{dt * 1e3:.1f} ms, {dt * 1e9 / (args.rows * len(qis)):.2f} ns a value", flush=True)


if __name__ == "__main__":
    main()
