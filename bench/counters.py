"""The searches' deterministic work counters on the Adult grid, recorded or compared.

Usage: ``python bench/counters.py [--check] [--out bench/counters.json]``

Every algorithm (each Incognito variant, with and without projections, bottom-up
with and without rollup, Samarati, MinGen) on every cell of the Adult grid
(quasi-identifiers 3..9, k 2/5/10, suppression 0 and 5%) records what its search
did: nodes checked, marked and projected, table scans, rows scanned and rolled
up, cuboids, intermediate sets, the candidates of each Incognito iteration, and
a digest of the anonymous and minimal nodes it answered with. None of these
depend on the machine or on timing, so a change that moves code without
changing what the searches do leaves them equal; ``--check`` compares the
current build with the committed file and exits non-zero on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from machine import STATS

import polars_anon as pa

COUNTERS = (*STATS, "candidates_per_iteration")

# (algorithm, variant, infer_projections)
SEARCHES: list[tuple[str, str | None, bool]] = [
    ("incognito", "cube", True),
    ("incognito", "super_roots", True),
    ("incognito", "basic", True),
    ("incognito", "cube", False),
    ("incognito", "super_roots", False),
    ("incognito", "basic", False),
    ("bottom_up", "rollup", True),
    ("bottom_up", "no_rollup", True),
    ("samarati", None, True),
    ("mingen", None, True),
]

SIZES = range(3, 10)
KS = (2, 5, 10)
SUPPRESSION = (0.0, 0.05)


def digest(nodes: list[list[int]]) -> str:
    text = ";".join(",".join(map(str, n)) for n in sorted(nodes))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record(sizes: range | list[int] = SIZES) -> list[dict[str, Any]]:
    lf, hs = pa.datasets.adult()
    df = lf.collect()
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    cells = []
    for algorithm, variant, infer in SEARCHES:
        for sup in SUPPRESSION:
            for k in KS:
                for n in sizes:
                    r = pa.search(
                        df,
                        qis[:n],
                        hs,
                        k,
                        sup,
                        algorithm=algorithm,
                        variant=variant,
                        progress=False,
                        infer_projections=infer,
                    )
                    anonymous = r.anonymous
                    nodes = anonymous.select(qis[:n]).rows()
                    minimal = anonymous.filter("minimal").select(qis[:n]).rows()
                    cells.append(
                        {
                            "algorithm": algorithm,
                            "variant": variant,
                            "infer_projections": infer,
                            "suppression": sup,
                            "k": k,
                            "qi_size": n,
                            **{c: getattr(r.stats, c) for c in COUNTERS},
                            "anonymous": len(nodes),
                            "anonymous_digest": digest([list(x) for x in nodes]),
                            "minimal_digest": digest([list(x) for x in minimal]),
                        }
                    )
    return cells


KEY = ("algorithm", "variant", "infer_projections", "suppression", "k", "qi_size")


def key(cell: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(cell[f] for f in KEY)


def differences(want: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[str]:
    """Cells of `got` that differ from the same cells of `want`."""
    by_key = {key(c): c for c in want}
    out = []
    for cell in got:
        old = by_key.get(key(cell))
        if old is None:
            out.append(f"{key(cell)}: not recorded")
            continue
        for field, value in cell.items():
            if old.get(field) != value:
                out.append(f"{key(cell)} {field}: recorded {old.get(field)!r}, now {value!r}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare with --out, write nothing")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "counters.json")
    args = parser.parse_args()
    cells = record()
    if args.check:
        diff = differences(json.loads(args.out.read_text())["cells"], cells)
        for line in diff:
            print(line)
        print(f"{len(cells)} cells compared, {len(diff)} differences")
        sys.exit(1 if diff else 0)
    args.out.write_text(json.dumps({"cells": cells}, indent=1) + "\n")
    print(f"{len(cells)} cells written to {args.out}")


if __name__ == "__main__":
    main()
