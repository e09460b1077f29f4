"""Markdown tables from ``bench/results.json``: complete Cube Incognito against ARX's
optimum-only times (the reference in bench/README.md), and node counts.

Usage: ``python bench/report.py [bench/results.json]``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# ARX 3.9.2, best warm wall time per call (ms) on this machine kind, Adult, first
# n columns of the CSV; ARX finds ONE optimal generalization.
ARX = {
    (2, 0.0): [64, 44, 69, 34, 66, 102, 102],
    (5, 0.0): [24, 30, 32, 34, 42, 59, 65],
    (10, 0.0): [25, 27, 32, 39, 31, 43, 56],
    (2, 0.05): [33, 35, 54, 91, 317, 1135, 1603],
    (5, 0.05): [26, 25, 43, 83, 248, 792, 2237],
    (10, 0.05): [26, 26, 48, 98, 201, 815, 1443],
}
SIZES = [3, 4, 5, 6, 7, 8, 9]
# ARX 3.9.2 on cup, its 7 quasi-identifiers, best warm ms (same machine kind)
ARX_CUP = {
    (2, 0.0): 96,
    (5, 0.0): 102,
    (10, 0.0): 107,
    (2, 0.05): 1485,
    (5, 0.05): 1360,
    (10, 0.05): 1359,
}


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "results.json"
    data = json.loads(path.read_text())
    cube = [c for c in data["cells"] if c["algorithm"] == "incognito" and c["variant"] == "cube"]
    cells = {
        (c["k"], c["suppression"], c["qi_size"]): c
        for c in cube
        if c.get("dataset", "adult") == "adult"
    }
    print("| k / suppression | " + " | ".join(f"n={n}" for n in SIZES) + " |")
    print("|---|" + "---|" * len(SIZES))
    for (k, sup), arx in ARX.items():
        row = []
        for n, ref in zip(SIZES, arx, strict=True):
            c = cells.get((k, sup, n))
            row.append("-" if c is None else f"{c['min_ms']:.0f} ({c['min_ms'] / ref:.2f}x)")
        print(f"| k={k}, {sup:.0%} | " + " | ".join(row) + " |")
    cup = {(c["k"], c["suppression"]): c for c in cube if c.get("dataset") == "cup"}
    if cup:
        print("\n| cup, 7 QIs | " + " | ".join(f"k={k}" for k in (2, 5, 10)) + " |")
        print("|---|---|---|---|")
        for sup in (0.0, 0.05):
            row = []
            for k in (2, 5, 10):
                c, ref = cup.get((k, sup)), ARX_CUP[(k, sup)]
                row.append("-" if c is None else f"{c['min_ms']:.1f} ({c['min_ms'] / ref:.3f}x)")
            print(f"| {sup:.0%} | " + " | ".join(row) + " |")
    for key in ("end_to_end", "synthetic"):
        if key in data:
            print(f"\n{key}: {json.dumps(data[key], indent=1)}")


if __name__ == "__main__":
    main()
