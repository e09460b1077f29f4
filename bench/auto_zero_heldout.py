"""Without suppression, the complete search against the optimal walk on
tables of kinds ``bench/auto_zero.py`` does not hold: the check of
``auto``'s rule (the walk first where at least 90% of the records are
distinct on the quasi-identifiers, `api.auto.WALK_DISTINCT`) on data it was
not made from.

Usage: ``python bench/auto_zero_heldout.py [--set held-out|small]
[--repeat 7] [--only NAME] [--out PATH]`` (the set's JSON by default:
``bench/auto_zero_heldout.json``, ``bench/auto_zero_small.json``)

Tables: a hospital-like table (age by intervals, masked ZIP codes, sex,
admission dates, Zipf-skewed diagnoses) at 20,000 to 200,000 rows;
correlated columns (city, region and country, all quasi-identifiers);
a near-unique birth date beside low-cardinality columns; independent Zipf
columns of exponents 0.6, 0.8 and 1.0 with other hierarchy shapes; small
tables; survey- and clinic-like tables sized so that the distinct share
lands just over and just under 0.9 and lower; the bundled example tables.
``--set small``: tables of 1,500 to 12,000 rows written later (session 41).
Per table and k (2, 5, 10): both searches answer ``best("min_loss")``, one
warm-up each, then ``--repeat`` calls alternated, medians; the share of
distinct records, the lattice's size, each search's work counters and
whether both optima have the same loss.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from auto_zero import answer, random_table
from machine import STATS, machine

import polars_anon as pa

Table = tuple[str, pl.DataFrame, dict[str, pa.Hierarchy], list[str]]


def zipf_p(n: int, s: float) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** s
    return p / p.sum()


def fanned(leaves: list[str], name: str, fans: list[int]) -> pa.Hierarchy:
    """Leaves grouped by `fans[0]`, those groups by `fans[1]`, ..., then `*`."""
    rows = []
    for i, leaf in enumerate(leaves):
        row, g = [leaf], i
        for level, f in enumerate(fans):
            g //= f
            row.append(f"{name}L{level + 1}_{g}")
        rows.append([*row, "*"])
    return pa.Hierarchy.from_rows(rows)


# ---------------------------------------------------------------- hospital
def hospital(
    rows: int, seed: int = 0, days: int = 3 * 365, zips: int = 400, codes: int = 200
) -> Table:
    """age 0-99 (Int64, interval 5/10/20, *), 5-digit ZIP (masking 1..4 digits, then *),
    sex, admission day as a pl.Date (date builder: month, year, *), diagnosis
    Zipf(1.1) over `codes` codes (code -> chapter -> *)."""
    rng = np.random.default_rng(seed)
    # ages: a mixture (births, elderly peak), clipped to 0..99
    age = np.clip(
        np.where(rng.random(rows) < 0.1, rng.integers(0, 3, rows), rng.normal(58, 20, rows)),
        0,
        99,
    ).astype(np.int64)
    # ZIPs: `zips` codes clustered in a few 3-digit areas, skewed popularity
    base = rng.choice(np.arange(100, 999), size=12, replace=False)
    zip_pool = np.array([f"{base[i % 12]:03d}{rng.integers(0, 100):02d}" for i in range(zips)])
    zip_pool = np.unique(zip_pool)
    zipc = zip_pool[rng.choice(len(zip_pool), rows, p=zipf_p(len(zip_pool), 0.8))]
    sex = rng.choice(np.array(["F", "M"]), rows)
    start = dt.date(2021, 1, 1)
    day_idx = rng.integers(0, days, rows)
    adm = [start + dt.timedelta(days=int(d)) for d in day_idx]
    dx = rng.choice(codes, rows, p=zipf_p(codes, 1.1))
    df = pl.DataFrame(
        {
            "age": age,
            "zip": zipc,
            "sex": sex,
            "admitted": pl.Series(adm, dtype=pl.Date),
            "dx": [f"D{d:03d}" for d in dx],
        }
    )
    hs = {
        "age": pa.hierarchy.interval(df["age"], widths=[5, 10, 20], bottom=0, top=100),
        "zip": pa.hierarchy.masking(df["zip"].unique(), masked=[1, 2, 3, 4]),
        "sex": pa.Hierarchy.from_rows([["F", "*"], ["M", "*"]]),
        "admitted": pa.hierarchy.date(df["admitted"].unique(), levels=["month", "year"]),
        "dx": pa.Hierarchy.from_rows([[f"D{d:03d}", f"ch{d // 15}", "*"] for d in range(codes)]),
    }
    return f"hospital {rows // 1000}k", df, hs, list(hs)


# ---------------------------------------------------------------- correlated
def correlated(rows: int, seed: int = 1) -> Table:
    """city -> region -> country (city determines both; city, region, country all
    QIs), occupation correlated with education, age band, sex."""
    rng = np.random.default_rng(seed)
    countries = 6
    regions_per = 5
    cities_per = 10
    ncity = countries * regions_per * cities_per  # 300
    city = rng.choice(ncity, rows, p=zipf_p(ncity, 0.9)[rng.permutation(ncity)])
    region = city // cities_per
    country = region // regions_per
    edu = rng.choice(16, rows, p=zipf_p(16, 0.5))
    # occupation: 40 codes; with prob 0.7 from a band tied to education, else anywhere
    tied = (edu * 40 // 16 + rng.integers(0, 5, rows)) % 40
    occ = np.where(rng.random(rows) < 0.7, tied, rng.integers(0, 40, rows))
    age = rng.integers(17, 90, rows)
    sex = rng.integers(0, 2, rows)
    df = pl.DataFrame(
        {
            "city": [f"city{c}" for c in city],
            "region": [f"reg{r}" for r in region],
            "country": [f"cty{c}" for c in country],
            "education": [f"edu{e}" for e in edu],
            "occupation": [f"occ{o}" for o in occ],
            "age": age,
            "sex": [("F", "M")[s] for s in sex],
        }
    )
    hs = {
        "city": pa.Hierarchy.from_rows(
            [
                [f"city{c}", f"reg{c // cities_per}", f"cty{c // (cities_per * regions_per)}", "*"]
                for c in range(ncity)
            ]
        ),
        "region": pa.Hierarchy.from_rows(
            [[f"reg{r}", f"cty{r // regions_per}", "*"] for r in range(countries * regions_per)]
        ),
        "country": pa.Hierarchy.from_rows(
            [[f"cty{c}", "EU" if c < 3 else "nonEU", "*"] for c in range(countries)]
        ),
        "education": pa.Hierarchy.from_rows(
            [[f"edu{e}", f"eb{e // 4}", "low" if e < 8 else "high", "*"] for e in range(16)]
        ),
        "occupation": pa.Hierarchy.from_rows(
            [[f"occ{o}", f"og{o // 5}", f"oh{o // 20}", "*"] for o in range(40)]
        ),
        "age": pa.hierarchy.interval(df["age"], widths=[5, 10, 20], bottom=10, top=90),
        "sex": pa.Hierarchy.from_rows([["F", "*"], ["M", "*"]]),
    }
    return f"correlated {rows // 1000}k", df, hs, list(hs)


# ---------------------------------------------------------------- birth date
def birthdate(rows: int, seed: int = 2) -> Table:
    """one near-unique column (birth date over 1930-2005) plus sex, race(5),
    marital(4), smoker(2), blood group(8)."""
    rng = np.random.default_rng(seed)
    start = dt.date(1930, 1, 1)
    span = (dt.date(2005, 12, 31) - start).days
    bd = [start + dt.timedelta(days=int(d)) for d in rng.integers(0, span, rows)]
    df = pl.DataFrame(
        {
            "birth": pl.Series(bd, dtype=pl.Date),
            "sex": rng.choice(["F", "M"], rows),
            "race": rng.choice(["w", "b", "a", "h", "o"], rows, p=[0.6, 0.13, 0.06, 0.18, 0.03]),
            "marital": rng.choice(["s", "m", "d", "w"], rows, p=[0.35, 0.45, 0.13, 0.07]),
            "smoker": rng.choice(["y", "n"], rows, p=[0.2, 0.8]),
            "blood": rng.choice(
                ["O+", "O-", "A+", "A-", "B+", "B-", "AB+", "AB-"],
                rows,
                p=[0.37, 0.07, 0.36, 0.06, 0.08, 0.02, 0.03, 0.01],
            ),
        }
    )
    hs = {
        "birth": pa.hierarchy.date(df["birth"].unique(), levels=["month", "year", "decade"]),
        "sex": pa.Hierarchy.from_rows([["F", "*"], ["M", "*"]]),
        "race": pa.Hierarchy.from_rows([[r, "*"] for r in "wbaho"]),
        "marital": pa.Hierarchy.from_rows(
            [["s", "alone", "*"], ["d", "alone", "*"], ["w", "alone", "*"], ["m", "couple", "*"]]
        ),
        "smoker": pa.Hierarchy.from_rows([["y", "*"], ["n", "*"]]),
        "blood": pa.Hierarchy.from_rows(
            [[b, b.rstrip("+-"), "*"] for b in ["O+", "O-", "A+", "A-", "B+", "B-", "AB+", "AB-"]]
        ),
    }
    return f"birthdate {rows // 1000}k", df, hs, list(hs)


# ---------------------------------------------------------------- zipf, other shapes
def zipf_table(s: float, qis: int, rows: int, seed: int) -> Table:
    """independent Zipf(s) columns, hierarchies of mixed fan-outs (2, 3, 5, 8)
    and heights 2-4, leaf counts 10-60, integer-valued leaves (Int64 column)."""
    rng = np.random.default_rng(seed)
    shapes = [  # (leaves, fan-outs up the tree)
        (60, [3, 4]),
        (24, [2, 3, 2]),
        (45, [5, 3]),
        (10, [2]),
        (32, [2, 2, 2]),
        (50, [5, 2]),
        (16, [8]),
        (27, [3, 3]),
        (40, [8, 5]),
    ]
    cols, hs = {}, {}
    for a in range(qis):
        n, fans = shapes[a % len(shapes)]
        name = f"z{a}"
        hs[name] = fanned([str(i) for i in range(n)], name, fans)
        perm = rng.permutation(n)  # popular values not all at the low end
        cols[name] = perm[rng.choice(n, rows, p=zipf_p(n, s))].astype(np.int64)
    return f"zipf{s} {qis}Q {rows // 1000}k", pl.DataFrame(cols), hs, list(hs)


# ---------------------------------------------------------------- small
def small(rows: int, seed: int = 5) -> Table:
    """6 QIs, mixed uniform/skewed, strings."""
    rng = np.random.default_rng(seed)
    spec = [(30, 1.0), (12, 0.0), (8, 0.7), (20, 0.0), (6, 1.2), (15, 0.4)]
    cols, hs = {}, {}
    for a, (n, s) in enumerate(spec):
        name = f"s{a}"
        p = zipf_p(n, s)
        cols[name] = [f"v{v}" for v in rng.choice(n, rows, p=p)]
        hs[name] = pa.Hierarchy.from_rows(
            [[f"v{i}", f"g{i // 3}", f"h{i // 6}", "*"] for i in range(n)]
        )
    return f"small {rows}", pl.DataFrame(cols), hs, list(hs)


# ---------------------------------------------------------------- share-targeted
def survey(rows: int, seed: int = 11, county: bool = True) -> Table:
    """A fixed-domain survey-like table (7 QIs, ~1.2e6 cells, skew on some
    columns); rows chosen to put F0/rows at a target share."""
    rng = np.random.default_rng(seed)
    spec = [  # (leaves, zipf s, fan-outs)
        (18, 0.0, [3, 3]),  # age band
        (2, 0.0, []),  # sex
        (6, 0.9, [3]),  # household size
        (12, 0.6, [4, 3]),  # county
        (10, 0.3, [5]),  # income decile
        (7, 1.0, [7]),  # employment
        (4, 0.5, []),  # tenure
    ]
    cols, hs = {}, {}
    for a, (n, s, fans) in enumerate(spec):
        if a == 3 and not county:
            continue
        name = f"q{a}"
        cols[name] = [f"{name}_{v}" for v in rng.choice(n, rows, p=zipf_p(n, s))]
        hs[name] = fanned([f"{name}_{i}" for i in range(n)], name, fans)
    return f"survey{len(hs)} {rows}", pl.DataFrame(cols), hs, list(hs)


def clinic(rows: int, seed: int = 12) -> Table:
    """hospital without the admission date: age 0-99 (Int64, interval 5/10/20),
    5-digit ZIP from ~60 codes (masking), sex, diagnosis Zipf(1.1) over 200
    codes (code -> chapter -> *), ward (8, -> 2 wings -> *)."""
    _, h, hs, _ = hospital(rows, seed=seed, days=1, zips=60)
    rng = np.random.default_rng(seed + 1)
    df = h.drop("admitted").with_columns(
        ward=pl.Series([f"w{w}" for w in rng.choice(8, rows, p=zipf_p(8, 0.7))])
    )
    hs = {c: hs[c] for c in ("age", "zip", "sex", "dx")}
    hs["ward"] = pa.Hierarchy.from_rows([[f"w{w}", f"wing{w // 4}", "*"] for w in range(8)])
    return f"clinic {rows}", df, hs, list(hs)


def share(df: pl.DataFrame, qis: list[str]) -> float:
    return df.select(qis).n_unique() / df.height


def rows_for_share(make, target: float, lo: int, hi: int) -> int:
    """bisect rows (share falls as rows grow) to land near `target`."""
    for _ in range(14):
        mid = int(math.sqrt(lo * hi))
        _, df, _, q = make(mid)
        if share(df, q) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo < max(50, lo // 200):
            break
    return lo


def targeted(make, lo_t: float, hi_t: float, lo: int = 1_000, hi: int = 1_000_000) -> Table:
    """the table of `make(rows)` whose F0/rows falls in [lo_t, hi_t] (share
    falls as rows grow; bisect log rows)."""
    for _ in range(25):
        mid = int(math.sqrt(lo * hi))
        t = make(mid)
        sh = share(t[1], t[3])
        if lo_t <= sh <= hi_t:
            return t
        if sh > hi_t:
            lo = mid
        else:
            hi = mid
    raise RuntimeError(f"no rows put {make} in [{lo_t}, {hi_t}]")


def datasets_tables() -> Iterator[Table]:
    # the bundled tables other than adult, cup and census: the papers' examples
    for name in ("patients", "race_zip"):
        lf, hs = getattr(pa.datasets, name)()
        df = lf.collect()
        yield f"ds.{name}", df, hs, list(hs)


def survey6(rows: int) -> Table:
    return survey(rows, county=False)


def all_tables() -> Iterator[Table]:
    for r in (20_000, 50_000, 200_000):
        yield hospital(r)
    yield correlated(30_000)
    yield correlated(150_000)
    yield birthdate(20_000)
    yield birthdate(100_000)
    for s in (0.6, 1.0):
        for q in (7, 9):
            yield zipf_table(s, q, 50_000, seed=int(10 * s) + q)
    yield zipf_table(0.8, 10, 30_000, seed=80)
    yield small(2_000)
    yield small(5_000)
    # sized for a share just over / just under 0.9, and at 0.6-0.8
    for band in ((0.91, 0.95), (0.85, 0.89), (0.72, 0.78)):
        yield targeted(survey, *band)
    for band in ((0.91, 0.95), (0.85, 0.89), (0.75, 0.80), (0.60, 0.66)):
        yield targeted(survey6, *band)
    for band in ((0.91, 0.95), (0.85, 0.89), (0.77, 0.80)):
        yield targeted(clinic, *band)
    yield from datasets_tables()


def small_tables() -> Iterator[Table]:
    """Tables of 1,500 to 12,000 rows, written after the rule (session 41):
    census and uniform columns (every leaf frequent), Zipf columns, `small`'s
    skewed string columns under another seed, Adult drawn down."""
    for rows in (1_500, 3_000, 6_000, 9_000, 12_000):
        for q in (6, 8):
            data, hs = pa.datasets.census(rows, q, seed=3)
            yield f"census {q}Q {rows}", data.collect(), hs, list(hs)
    for rows in (2_000, 4_000, 8_000, 12_000):
        for kind, q in (("uniform", 6), ("zipf", 7)):
            _, df, hs, qis = random_table(kind, q, rows, seed=7)
            yield f"{kind} {q}Q {rows}", df, hs, qis
        _, df, hs, qis = small(rows, seed=9)
        yield f"small s9 {rows}", df, hs, qis
    lf, hs = pa.datasets.adult()
    adult, qis = lf.collect(), list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    for rows in (3_000, 8_000):
        yield f"adult 9Q {rows}", adult.sample(rows, seed=2), hs, qis


# each set's tables and the JSON it writes by default
SETS = {
    "held-out": (all_tables, Path("bench/auto_zero_heldout.json")),
    "small": (small_tables, Path("bench/auto_zero_small.json")),
}


# ---------------------------------------------------------------- measuring
ALGORITHMS = ("incognito", "optimal")


def cell(
    name: str, df: pl.DataFrame, hs: dict[str, pa.Hierarchy], qis: list[str], k: int, repeat: int
) -> dict[str, Any]:
    c: dict[str, Any] = {"table": name, "rows": df.height, "qis": len(qis), "k": k}
    loss: dict[str, float | None] = {}
    for algorithm in ALGORITHMS:
        r = pa.search(df, qis, hs, k, 0, algorithm=algorithm, progress=False)
        best = r.best("min_loss")
        loss[algorithm] = pa.check(df, qis, k, hs, best, 0).loss
        c[f"{algorithm}_best"], c[f"{algorithm}_loss"] = best, loss[algorithm]
        c[f"{algorithm}_stats"] = {s: getattr(r.stats, s) for s in STATS}
        c["f0_rows"] = r._prep.problem.distinct
        c["lattice"] = math.prod(h + 1 for h in r._prep.problem.heights)
    c["share"] = c["f0_rows"] / df.height
    a, b = loss["incognito"], loss["optimal"]
    c["same_loss"] = a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12)
    calls = {algorithm: answer(df, qis, hs, k, algorithm) for algorithm in ALGORITHMS}
    for f in calls.values():  # warm-up
        f()
    times: dict[str, list[float]] = {algorithm: [] for algorithm in ALGORITHMS}
    for _ in range(repeat):
        for algorithm, f in calls.items():  # alternated
            t = time.perf_counter()
            f()
            times[algorithm].append((time.perf_counter() - t) * 1e3)
    c["complete_ms"] = statistics.median(times["incognito"])
    c["walk_ms"] = statistics.median(times["optimal"])
    c["ratio"] = c["walk_ms"] / c["complete_ms"]
    return c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--set", choices=list(SETS), default="held-out")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--only", default=None, help="a part of the names of the tables to run")
    args = parser.parse_args()
    tables, default_out = SETS[args.set]
    out = args.out or default_out
    cells: list[dict[str, Any]] = []
    for name, df, hs, qis in tables():
        if args.only and args.only not in name:
            continue
        for k in (2, 5, 10):
            if k > df.height:  # the papers' 6- and 9-row examples
                continue
            c = cell(name, df, hs, qis, k, args.repeat)
            cells.append(c)
            print(
                f"{name:<22} share {c['share']:.3f} k={k:<2} complete {c['complete_ms']:8.1f} ms"
                f"  walk {c['walk_ms']:8.1f} ms  ratio {c['ratio']:.2f}  same {c['same_loss']}",
                flush=True,
            )
    out.write_text(json.dumps({"machine": machine(), "cells": cells}, indent=1) + "\n")
    over = [c for c in cells if c["share"] >= 0.9]
    under = [c for c in cells if c["share"] < 0.9]
    for what, some, pick in (("at least 0.9", over, max), ("under 0.9", under, min)):
        if some:
            c = pick(some, key=lambda c: c["ratio"])
            faster = sum(c["ratio"] < 1 for c in some)
            print(
                f"share {what}: walk faster in {faster} of {len(some)} cells; "
                f"{'worst' if pick is max else 'best'} walk / complete {c['ratio']:.2f} "
                f"({c['table']}, k={c['k']})"
            )
    print(f"optima of different loss: {sum(not c['same_loss'] for c in cells)}")


if __name__ == "__main__":
    main()
