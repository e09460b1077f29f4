"""A seeded synthetic wide table of skewed string quasi-identifiers, for the
benchmarks that should also run on data they were not tuned on (census,
Adult and the others are bundled; this one is not).

    python bench/skewed.py ROWS N [--seed 7]

Column ``qNNN`` (``q000`` ...) draws, in this order, a cardinality from
``CARDINALITIES``, a hierarchy height of 1 to 6, a fan-out of 2 to 5 and a
Zipf-like skew exponent in [0, 1.5]; then its ``rows`` values, value ``j``
(``qNNN_j``) with weight ``1 / (j + 1) ** skew``. Its hierarchy: level ``l``
(1 to height - 1) groups the values by ``fan ** l`` consecutive ones
(``qNNN_Ll_{j // fan ** l}``), and the top, at the height, is ``*``. After the
quasi-identifiers, ``payload``: an integer column that is not one. The same
arguments give the same table (the table of trial 5, ``seed`` 7, on which
Incognito ``basic`` and ``super_roots`` first outgrew their memory budget).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl

import polars_anon as pa

CARDINALITIES = (2, 3, 7, 12, 40, 150, 600, 3000)
HEIGHTS = (1, 6)
FAN_OUTS = (2, 5)
MAX_SKEW = 1.5


def hierarchy(name: str, cardinality: int, height: int, fan: int) -> pa.Hierarchy:
    """Values ``name_j`` grouped by ``fan ** l`` at level ``l``, ``*`` at ``height``."""
    rows = [
        [f"{name}_{j}", *(f"{name}_L{lvl}_{j // fan**lvl}" for lvl in range(1, height)), "*"]
        for j in range(cardinality)
    ]
    return pa.Hierarchy.from_rows(rows)


def make(rows: int, n: int, seed: int = 7) -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    """``rows`` records of ``n`` quasi-identifiers and ``payload``, with the
    quasi-identifiers' hierarchies."""
    rng = np.random.default_rng(seed)
    columns: list[pl.Series] = []
    hierarchies: dict[str, pa.Hierarchy] = {}
    for i in range(n):
        name = f"q{i:03d}"
        cardinality = int(rng.choice(CARDINALITIES))
        height = int(rng.integers(HEIGHTS[0], HEIGHTS[1] + 1))
        fan = int(rng.integers(FAN_OUTS[0], FAN_OUTS[1] + 1))
        skew = float(rng.uniform(0.0, MAX_SKEW))
        weights = 1.0 / np.arange(1, cardinality + 1) ** skew
        codes = rng.choice(cardinality, size=rows, p=weights / weights.sum())
        values = pl.Series(name, [f"{name}_{j}" for j in range(cardinality)], dtype=pl.String)
        columns.append(values.gather(codes))
        hierarchies[name] = hierarchy(name, cardinality, height, fan)
    columns.append(pl.Series("payload", rng.integers(0, 10**6, rows)))
    return pl.DataFrame(columns), hierarchies


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("rows", type=int)
    p.add_argument("n", type=int)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()
    t = time.perf_counter()
    df, hs = make(args.rows, args.n, args.seed)
    nodes = 1
    for h in hs.values():
        nodes *= h.height + 1
    print(
        f"{df.height} rows x {len(hs)} QIs in {time.perf_counter() - t:.2f} s,"
        f" {df.estimated_size() / 2**20:.1f} MiB, lattice {nodes:.3g} nodes"
    )
    print("heights", [h.height for h in hs.values()])
    print("values", [df.get_column(c).n_unique() for c in hs])


if __name__ == "__main__":
    main()
