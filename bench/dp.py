"""SafePub (`polars_anon.differential_privacy`) on Adult beside ARX, and at
scale.

    python bench/dp.py [--seeds 50] [--rows 10000000 ...] [--out bench/dp.json]

Adult (30,162 rows, the 9 quasi-identifiers, epsilon 1, delta 1e-5, 300
steps, a tenth of epsilon for the search, the loss score): one run per seed
for each way of taking the answer (``final``), each run's levels, records
sampled and released, and the granularity of the release as ARX's
statistics report it for a SafePub output (every record of the table
counted, those not sampled as suppressed: for each attribute the mean share
of the hierarchy's leaves under a record's value, suppressed records 1;
``1 - (mean - m) / (1 - m)``, m the mean over the attributes of 1 / their
leaves). ARX's 50 runs of the same configuration are read from
``tests/data/dp/arx_safepub_adult.csv`` (see that folder's README).

At scale (``--rows``): ``bench/synth.py``'s Adult scaled to N rows, as
Parquet, released by SafePub and written with ``sink_parquet``, each N in a
fresh process: the wall time to the answer and to the written file, and
the process's peak RSS (VmHWM). The work counters (nodes scored, records
sampled) do not depend on the machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from polars_anon.datasets import ADULT_QUASI_IDENTIFIERS

HERE = Path(__file__).parent
QIS = list(ADULT_QUASI_IDENTIFIERS)


def granularity(out: Any, levels: dict[str, int], hs: dict[str, Any], rows: int) -> float:
    """ARX's granularity of a SafePub output of a table of `rows` records
    (see the module)."""
    import polars as pl

    losses, minima = [], []
    for q in QIS:
        h = hs[q]
        leaves = len(h.leaves)
        under: dict[str, int] = {}
        for label in h.leaf_labels(levels[q]):
            under[label] = under.get(label, 0) + 1
        shares = pl.DataFrame({q: list(under), "share": [v / leaves for v in under.values()]})
        released = out.select(pl.col(q).cast(pl.String)).join(shares, on=q, how="left")
        total = float(released.get_column("share").sum()) + (rows - out.height)
        losses.append(total / rows)
        minima.append(1 / leaves)
    mean, m = statistics.fmean(losses), statistics.fmean(minima)
    return 1 - (mean - m) / (1 - m)


def adult(seeds: int) -> dict[str, Any]:
    import polars as pl

    import polars_anon as pa

    lf, hs = pa.datasets.adult()
    df = lf.collect()
    cells: dict[str, Any] = {}
    for final in ("best", "mechanism"):
        runs = []
        for seed in range(seeds):
            t = time.perf_counter()
            r = pa.differential_privacy(df, QIS, hs, 1.0, 1e-5, seed=seed, final=final)
            answer = time.perf_counter() - t
            out = r.apply().collect()
            runs.append(
                {
                    "seed": seed,
                    "levels": [r.levels[q] for q in QIS],
                    "k": r.k,
                    "sampled": r.sampled,
                    "released": out.height,
                    "nodes_scored": len(r.walk.scores) if r.walk else 0,
                    "granularity": granularity(out, r.levels, hs, df.height),
                    "answer_s": answer,
                }
            )
        cells[final] = {
            "runs": runs,
            "median_granularity": statistics.median(x["granularity"] for x in runs),
            "median_released": statistics.median(x["released"] for x in runs),
            "median_answer_s": statistics.median(x["answer_s"] for x in runs),
            "distinct_answers": len({tuple(x["levels"]) for x in runs}),
        }
    arx = pl.read_csv(HERE.parent / "tests" / "data" / "dp" / "arx_safepub_adult.csv")
    cells["arx"] = {
        "runs": arx.height,
        "median_granularity": float(arx.get_column("granularity_quality").median()),  # type: ignore[arg-type]
        "median_released": float(arx.get_column("not_suppressed").median()),  # type: ignore[arg-type]
        "median_answer_s": float(arx.get_column("anonymize_ms").median()) / 1000,  # type: ignore[arg-type]
        "distinct_answers": arx.select(QIS).unique().height,
    }
    return cells


def one_scale(path: str, out: str) -> dict[str, Any]:
    """In this process: SafePub on the Parquet table at `path`, written to `out`."""
    import polars as pl

    import polars_anon as pa

    _, hs = pa.datasets.adult()
    src = Path(path)
    lf = pl.scan_parquet(src / "*.parquet" if src.is_dir() else src)
    t = time.perf_counter()
    r = pa.differential_privacy(lf, QIS, hs, 1.0, 1e-5, seed=1)
    answer = time.perf_counter() - t
    r.sink_parquet(out)
    written = time.perf_counter() - t
    return {
        "answer_s": answer,
        "written_s": written,
        "k": r.k,
        "sampled": r.sampled,
        "released": r.released,
        "nodes_scored": len(r.walk.scores) if r.walk else 0,
        "levels": [r.levels[q] for q in QIS],
    }


def peak_rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def scale(rows: int) -> dict[str, Any]:
    data = HERE / "out" / f"synth_{rows}"
    path = data if data.is_dir() else data.with_suffix(".parquet")
    if not path.exists():
        subprocess.run([sys.executable, str(HERE / "synth.py"), str(rows), str(path)], check=True)
    out = HERE / "out" / f"dp_{rows}.parquet"
    if out.exists():
        out.unlink()
    code = (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import dp; "
        f"r = dp.one_scale({str(path)!r}, {str(out)!r}); "
        "r['peak_rss_mib'] = dp.peak_rss_kib() / 1024; print(json.dumps(r))"
    )
    res = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    cell: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    cell["rows"] = rows
    out.unlink()
    return cell


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--rows", type=int, nargs="*", default=[])
    ap.add_argument("--out", type=Path, default=HERE / "dp.json")
    args = ap.parse_args()
    result: dict[str, Any] = {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "adult": adult(args.seeds) if args.seeds else None,
        "scale": [scale(n) for n in args.rows],
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    for final in ("best", "mechanism", "arx"):
        if result["adult"]:
            c = result["adult"][final]
            print(
                f"{final:10} granularity {c['median_granularity']:.4f}  released "
                f"{c['median_released']:.0f}  answer {c['median_answer_s']:.2f} s  "
                f"{c['distinct_answers']} distinct answers"
            )
    for c in result["scale"]:
        print(
            f"{c['rows']:>12,} rows: answer {c['answer_s']:.1f} s, written {c['written_s']:.1f} s, "
            f"peak {c['peak_rss_mib']:.0f} MiB"
        )


if __name__ == "__main__":
    main()
