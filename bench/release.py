"""A release written to Parquet from N synthetic rows (`synth.py`), each way
in a fresh process: ``result.sink_parquet`` (streamed, proven on the file)
and the Polars idiom ``result.apply(lf).sink_parquet`` (whose guard collects
the release to check it); seconds to search and to release, and peak RSS.

Usage: ``python bench/release.py [--rows 10000000] [--out bench/release.json]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import json, sys, time
import polars as pl, polars_anon as pa
mode, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
lf = pl.scan_parquet(src)
_, hs = pa.datasets.adult()
qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:8])
t = time.perf_counter()
r = pa.search(lf, qis, hs, 10, 0.01, progress=False)
t1 = time.perf_counter()
if mode == "sink_parquet":
    r.sink_parquet(out, criterion="min_loss")
else:
    r.apply(lf, criterion="min_loss").sink_parquet(out)
t2 = time.perf_counter()
with open("/proc/self/status") as f:
    hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
rows = pl.scan_parquet(out).select(pl.len()).collect().item()
print(json.dumps({"mode": mode, "search_s": t1 - t, "release_s": t2 - t1,
                  "peak_mib": hwm, "rows_released": rows}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000_000])
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("release.json"))
    args = ap.parse_args()
    here = Path(__file__).parent
    cells = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.rows:
            src = Path(tmp) / f"synth{n}.parquet"
            subprocess.run([sys.executable, str(here / "synth.py"), str(n), str(src)], check=True)
            for mode in ("sink_parquet", "apply_then_sink"):
                out = Path(tmp) / "release.parquet"
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, mode, str(src), str(out)],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                cell = {"rows": n, **json.loads(done.stdout.strip().splitlines()[-1])}
                print(json.dumps(cell), flush=True)
                cells.append(cell)
    args.out.write_text(json.dumps({"cells": cells}, indent=1) + "\n")


if __name__ == "__main__":
    main()
