"""Mondrian (`polars_anon.mondrian`) beside anonypyx's Mondrian on Adult.

    python bench/mondrian_anonypyx.py [--k 2 5 10 20 50] [--repeat 7]
        [--anonypyx-repeat 1] [--venv DIR] [--out bench/mondrian_anonypyx.json]

Adult (`pa.datasets.adult()`, 30,162 rows, its 9 quasi-identifiers), strict
Mondrian, k-anonymity only, for each k:

- ours twice: without hierarchies (``age`` a numeric range, the other eight
  value sets: the like-for-like run, anonypyx having no hierarchies) and with
  Adult's hierarchies (the eight categorical columns split along them);
- anonypyx (PyPI, pinned by ``--anonypyx-version``), installed in its own
  virtual environment (``--venv``, created when absent; not a dependency of
  the project) and run in a subprocess of that environment's Python on the
  same rows, written to a temporary CSV: ``age`` as an integer column (an
  interval), the other eight as pandas ``category`` columns (sets).

Both releases' cell-level loss is computed here by one function
(`release_loss`) from the released tables themselves, as ARX's cell-level loss
that ``result.loss`` reports: a range ``(hi - lo) / (max - min)`` of the
table, a set ``(values - 1) / (the table's distinct values - 1)``, a
hierarchy node ``(leaves under it - 1) / (the hierarchy's leaves - 1)``, each
attribute averaged over the records, then over the attributes. Our
``result.loss`` is recorded beside it as a cross-check. Each release is
checked k-anonymous by a Polars group-by of its quasi-identifier columns.

Times: ours, the median of ``--repeat`` warm calls of ``pa.mondrian`` plus its
``groups`` (one row a partition, its cells and count: what anonypyx returns
for a table of quasi-identifiers only), and separately to the row-level
release collected (``apply().collect()``, checked by its guard); anonypyx, the
median of ``--anonypyx-repeat`` runs of what ``Anonymiser.anonymise()`` does
(the partition, then the human-readable generalisation), reading the CSV and
casting the categories not counted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from machine import machine

from polars_anon.datasets import ADULT_QUASI_IDENTIFIERS

HERE = Path(__file__).parent
# Adult's 9 quasi-identifiers, those its hierarchies cover
QIS = list(ADULT_QUASI_IDENTIFIERS)
NUMERIC = ["age"]
ANONYPYX_VERSION = "0.2.11"
DEFAULT_VENV = Path.home() / ".cache" / "polars-anon-bench" / "anonypyx"

# Run by the anonypyx environment's Python: argv[1] is a JSON file of the
# settings; it writes each k's release as CSV and prints its figures as JSON.
CHILD = r"""
import json, statistics, sys, time
from importlib.metadata import version

import pandas as pd
import anonypyx

cfg = json.loads(open(sys.argv[1]).read())
df = pd.read_csv(cfg["csv"], keep_default_na=False)
df = df[cfg["qis"]]
for c in cfg["qis"]:
    if c not in cfg["numeric"]:
        df[c] = df[c].astype("category")
dtypes = {c: str(t) for c, t in df.dtypes.items()}
cells = []
for k in cfg["k"]:
    runs = []
    for _ in range(cfg["repeat"]):
        # Anonymiser.anonymise(), in its two steps
        t0 = time.perf_counter()
        a = anonypyx.Anonymiser(
            df, k=k, algorithm="Mondrian", feature_columns=cfg["qis"],
            generalisation_strategy="human-readable",
        )
        parts = a.algorithm.partition(a.parameters)
        t1 = time.perf_counter()
        schema = a.generalisation_strategy_type.create_for_data(a.df, a.quasi_identifiers)
        out = schema.generalise(a.df, parts)
        t2 = time.perf_counter()
        runs.append({"partition_s": t1 - t0, "total_s": t2 - t0, "partitions": len(parts)})
        print(f"anonypyx k={k}: {len(parts)} partitions, {t2 - t0:.1f} s", file=sys.stderr,
              flush=True)
    out.to_csv(f"{cfg['dir']}/anonypyx_k{k}.csv", index=False)
    cells.append({
        "k": k,
        "runs": runs,
        "time_s": statistics.median(r["total_s"] for r in runs),
        "partition_s": statistics.median(r["partition_s"] for r in runs),
        "partitions": runs[-1]["partitions"],
        "deterministic": len({r["partitions"] for r in runs}) == 1,
        "release": f"{cfg['dir']}/anonypyx_k{k}.csv",
    })
print(json.dumps({
    "versions": {p: version(p) for p in ("anonypyx", "pandas", "numpy")},
    "python": sys.version.split()[0],
    "dtypes": dtypes,
    "cells": cells,
}))
"""


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv(venv: Path, pin: str) -> Path:
    """The Python of `venv` with anonypyx `pin` installed (created when absent)."""
    python = venv_python(venv)
    check = [
        str(python),
        "-c",
        "from importlib.metadata import version; print(version('anonypyx'))",
    ]
    if python.exists():
        got = subprocess.run(check, capture_output=True, text=True)
        if got.returncode == 0 and got.stdout.strip() == pin:
            return python
    else:
        print(f"creating {venv}", flush=True)
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    print(f"installing anonypyx=={pin} into {venv}", flush=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", f"anonypyx=={pin}"],
        check=True,
    )
    subprocess.run(check, check=True, capture_output=True)
    return python


def node_sizes(h: Any) -> dict[str, int]:
    """Each label of hierarchy `h` -> the leaves under its node of that label
    (refused where one label names two leaf sets; Adult's do not)."""
    covers: dict[str, frozenset[int]] = {}
    for level in range(h.height + 1):
        labels = h.leaf_labels(level)
        for label in set(labels):
            under = frozenset(i for i, x in enumerate(labels) if x == label)
            if covers.setdefault(label, under) != under:
                raise ValueError(f"hierarchy label {label!r} names two different nodes")
    return {label: len(under) for label, under in covers.items()}


def costing(kind: str, values: Any, hierarchy: Any) -> Callable[[str], float]:
    """ARX's cell-level loss of a released cell of a column of `kind` whose
    original `values` (a Series) are given, read from the cell's text: a
    range ``[lo-hi]`` or ``lo-hi`` (or one number) of the table's range; a
    set ``{a,b}`` or ``a,b`` (or one value) of its distinct values; a node of
    `hierarchy` by its label, of the hierarchy's leaves."""

    def share(part: float, whole: float) -> float:
        return part / whole if whole > 0 else 0.0

    name = values.name
    if kind == "numeric":
        present = set(values.cast(float).to_list())
        lo_t, hi_t = min(present), max(present)

        def numeric(label: str) -> float:
            text = label.removeprefix("[").removesuffix("]")
            try:
                lo = hi = float(text)
            except ValueError:
                a, b = text.split("-")
                lo, hi = float(a), float(b)
            if lo not in present or hi not in present or lo > hi:
                raise ValueError(f"{name}: {label!r} is not a range of the table's values")
            return share(hi - lo, hi_t - lo_t)

        return numeric
    if kind == "hierarchy":
        nodes, leaves = node_sizes(hierarchy), len(hierarchy.leaves)

        def node(label: str) -> float:
            if label not in nodes:
                raise ValueError(f"{name}: {label!r} is no node of its hierarchy")
            return share(nodes[label] - 1, leaves - 1)

        return node
    domain = set(values.cast(str).unique().to_list())

    def value_set(label: str) -> float:
        if label in domain:
            members = [label]
        else:
            members = label.removeprefix("{").removesuffix("}").split(",")
            if not set(members) <= domain or len(set(members)) != len(members):
                raise ValueError(f"{name}: {label!r} is not a set of the table's values")
        return share(len(members) - 1, len(domain) - 1)

    return value_set


def release_loss(
    groups: Any, count: str, table: Any, kinds: dict[str, str], hierarchies: dict[str, Any]
) -> tuple[float, dict[str, float]]:
    """The cell-level loss of a release given as its classes (`groups`: the
    quasi-identifiers' released cells as text and `count`, the records of
    each) of `table` (the original rows): each cell's cost (`costing`)
    averaged over the records per attribute, then over the attributes."""
    import polars as pl

    records = float(groups.get_column(count).sum())
    per: dict[str, float] = {}
    for q, kind in kinds.items():
        cost = costing(kind, table.get_column(q), hierarchies.get(q))
        labels = groups.get_column(q).unique().to_list()
        costs = pl.DataFrame(
            {q: labels, "__cost": [cost(x) for x in labels]},
            schema={q: pl.String, "__cost": pl.Float64},
        )
        joined = groups.select(q, count).join(costs, on=q, how="left")
        per[q] = float((joined.get_column("__cost") * joined.get_column(count)).sum()) / records
    return sum(per.values()) / len(per), per


def classes(release: Any, count: str | None) -> Any:
    """The release's equivalence classes by a plain Polars group-by of its
    quasi-identifier columns: one row a class, its records in ``count``."""
    import polars as pl

    agg = pl.len() if count is None else pl.col(count).cast(pl.Int64).sum()
    return release.group_by(QIS).agg(agg.alias("count"))


def k_check(groups: Any, k: int, rows: int) -> dict[str, Any]:
    smallest = int(groups.get_column("count").min())
    records = int(groups.get_column("count").sum())
    return {
        "classes": groups.height,
        "smallest_class": smallest,
        "records": records,
        "covers_table": records == rows,
        "k_anonymous": smallest >= k,
    }


def ours(df: Any, hs: dict[str, Any], k: int, with_h: bool, repeat: int) -> dict[str, Any]:
    import polars_anon as pa

    h = hs if with_h else None
    _ = pa.mondrian(df, QIS, k, hierarchies=h).groups  # warm-up
    times, release_times = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = pa.mondrian(df, QIS, k, hierarchies=h)
        _ = r.groups  # the classes, as anonypyx returns them
        t1 = time.perf_counter()
        times.append(t1 - t0)
        t0 = time.perf_counter()
        r = pa.mondrian(df, QIS, k, hierarchies=h)
        release = r.apply().collect()
        release_times.append(time.perf_counter() - t0)
    groups = classes(release, None)
    loss, per = release_loss(groups, "count", df, r.kinds, hs)
    return {
        "kinds": r.kinds,
        "partitions": r.partitions,
        "loss": loss,
        "attribute_loss": per,
        "loss_reported": r.loss,
        "attribute_loss_reported": r.attribute_loss,
        "loss_matches_reported": abs(loss - r.loss) < 1e-9,
        "time_s": statistics.median(times),
        "times_s": times,
        "release_s": statistics.median(release_times),
        **k_check(groups, k, df.height),
    }


def theirs(python: Path, csv: Path, ks: list[int], repeat: int, tmp: Path) -> dict[str, Any]:
    cfg = tmp / "anonypyx.json"
    settings = {"csv": str(csv), "qis": QIS, "numeric": NUMERIC, "k": ks, "repeat": repeat}
    cfg.write_text(json.dumps({**settings, "dir": str(tmp)}))
    script = tmp / "run_anonypyx.py"
    script.write_text(CHILD)
    res = subprocess.run(
        [str(python), str(script), str(cfg)], check=True, stdout=subprocess.PIPE, text=True
    )
    out: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+", default=[2, 5, 10, 20, 50])
    ap.add_argument("--repeat", type=int, default=7, help="warm calls of ours (median)")
    ap.add_argument("--anonypyx-repeat", type=int, default=1, help="anonypyx runs (median)")
    ap.add_argument("--anonypyx-version", default=ANONYPYX_VERSION)
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    ap.add_argument("--out", type=Path, default=HERE / "mondrian_anonypyx.json")
    args = ap.parse_args()

    import polars as pl

    import polars_anon as pa

    python = ensure_venv(args.venv, args.anonypyx_version)
    lf, hs = pa.datasets.adult()
    df = lf.collect().select(QIS)
    cells: dict[int, dict[str, Any]] = {}
    for k in args.k:
        cells[k] = {
            "k": k,
            "ours_sets": ours(df, hs, k, False, args.repeat),
            "ours_hierarchies": ours(df, hs, k, True, args.repeat),
        }
        o, oh = cells[k]["ours_sets"], cells[k]["ours_hierarchies"]
        print(
            f"ours k={k}: sets {o['partitions']} partitions, loss {o['loss']:.4f}, "
            f"{o['time_s'] * 1000:.1f} ms; hierarchies {oh['partitions']}, "
            f"loss {oh['loss']:.4f}, {oh['time_s'] * 1000:.1f} ms",
            flush=True,
        )
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        csv = tmp / "adult.csv"
        df.write_csv(csv)
        them = theirs(python, csv, args.k, args.anonypyx_repeat, tmp)
        for t in them["cells"]:
            k = t["k"]
            release = pl.read_csv(t.pop("release"), infer_schema=False)
            groups = classes(release, "count")
            kinds = {q: "numeric" if q in NUMERIC else "set" for q in QIS}
            loss, per = release_loss(groups, "count", df, kinds, hs)
            cells[k]["anonypyx"] = {
                **t,
                "kinds": kinds,
                "loss": loss,
                "attribute_loss": per,
                **k_check(groups, k, df.height),
            }
    rows = []
    for k, c in cells.items():
        o, oh, a = c["ours_sets"], c["ours_hierarchies"], c["anonypyx"]
        summary = {
            "k": k,
            "loss_ours": o["loss"],
            "loss_ours_hierarchies": oh["loss"],
            "loss_anonypyx": a["loss"],
            "time_ours_s": o["time_s"],
            "time_ours_hierarchies_s": oh["time_s"],
            "time_ours_release_s": o["release_s"],
            "time_anonypyx_s": a["time_s"],
            "time_anonypyx_partition_s": a["partition_s"],
            "ratio": o["time_s"] / a["time_s"],
            "ratio_hierarchies": oh["time_s"] / a["time_s"],
            "ratio_release": o["release_s"] / a["time_s"],
            "partitions_ours": o["partitions"],
            "partitions_ours_hierarchies": oh["partitions"],
            "partitions_anonypyx": a["partitions"],
            "k_anonymous_ours": o["k_anonymous"],
            "k_anonymous_ours_hierarchies": oh["k_anonymous"],
            "k_anonymous_anonypyx": a["k_anonymous"],
            "loss_no_worse": o["loss"] <= a["loss"],
            "loss_no_worse_hierarchies": oh["loss"] <= a["loss"],
            "time_at_most_0.1x": o["time_s"] <= 0.1 * a["time_s"],
        }
        rows.append(summary)
    result = {
        "command": " ".join(["python bench/mondrian_anonypyx.py", *sys.argv[1:]]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "versions": {
            "polars-anon": pa.__version__,
            **them["versions"],
            "anonypyx_python": them["python"],
        },
        "data": {"table": "pa.datasets.adult()", "rows": df.height, "quasi_identifiers": QIS},
        "treatment": {
            "ours_sets": "age numeric: a range, cut at the weighted median (the allowed cut "
            "nearest it); the other eight value sets, cut in two at the weighted median of "
            "their values in text order",
            "ours_hierarchies": "age as above; the other eight split along Adult's hierarchies "
            "(one part per child node holding values), released as node labels",
            "anonypyx": "age int64: an interval, split into values < the median and >= it "
            "(no other cut tried); the other eight pandas categories: sets, the partition's "
            "distinct values in order of appearance halved by count of values (not records)",
            "anonypyx_dtypes": them["dtypes"],
            "both": "strict; the attribute of the widest normalised span first (range over the "
            "table's, distinct values over the table's), the next when its split fails k",
        },
        "repeat": {"ours": args.repeat, "anonypyx": args.anonypyx_repeat},
        "summary": rows,
        "cells": [cells[k] for k in args.k],
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print("k   loss ours (sets)  ours (hier.)  anonypyx   time ours  anonypyx    ratio  partitions")
    for r in rows:
        print(
            f"{r['k']:<3} {r['loss_ours']:16.4f} {r['loss_ours_hierarchies']:13.4f} "
            f"{r['loss_anonypyx']:9.4f} {r['time_ours_s'] * 1000:9.1f} ms "
            f"{r['time_anonypyx_s']:7.1f} s {r['ratio']:8.5f}  "
            f"{r['partitions_ours']}/{r['partitions_ours_hierarchies']}/"
            f"{r['partitions_anonypyx']}  k-anon {r['k_anonymous_ours']}/"
            f"{r['k_anonymous_ours_hierarchies']}/{r['k_anonymous_anonypyx']}"
        )


if __name__ == "__main__":
    main()
