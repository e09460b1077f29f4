"""Attribute disclosure on Adult in the spirit of Sun et al.'s Table 10.

Usage: ``python bench/disclosure.py [--out bench/disclosure.json]``

As in the paper, Adult gets a "Health Condition" column with one of eight
diseases drawn at random for each record (seeded), split into Table 4's four
ordered categories. For each model (1: p-sensitive, 2: p+-sensitive,
3: (p, alpha)-sensitive with alpha = 1) and each (k, p), Cube Incognito finds every
minimal generalization on the paper's seven quasi-identifiers, with up to 2% of
the records suppressed (without suppression the minimal tables' groups are so
large that none is exposed); a QI group whose
diseases all fall in one category is open to the similarity attack. We count the
minimal tables, those with at least one such group, and the groups and records
exposed across all of them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import polars_anon as pa

TABLE_4 = [
    ["HIV", "Cancer"],
    ["Phthisis", "Hepatitis"],
    ["Obesity", "Asthma"],
    ["Flu", "Indigestion"],
]
SUPPRESSION = 0.02  # as a fraction of the rows
QIS = ["age", "workclass", "education", "native-country", "marital-status", "race", "sex"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "disclosure.json")
    args = parser.parse_args()
    lf, hs = pa.datasets.adult()
    diseases = [d for cat in TABLE_4 for d in cat]
    category = {d: i for i, cat in enumerate(TABLE_4) for d in cat}
    df = lf.collect()
    rng = np.random.default_rng(0)
    df = df.with_columns(
        pl.Series("health", np.asarray(diseases)[rng.integers(0, 8, df.height)].tolist())
    )
    rows: list[dict[str, Any]] = []
    for k, p in [(3, 2), (4, 2), (3, 3), (4, 3)]:
        models = {
            "1: p-sensitive": pa.PSensitive(p, "health"),
            "2: p+-sensitive": pa.PPlusSensitive(p, "health", TABLE_4),
            "3: (p, 1)-sensitive": pa.PAlphaSensitive(p, 1.0, "health", TABLE_4),
        }
        for name, criterion in models.items():
            r = pa.incognito(df, QIS, hs, k, SUPPRESSION, criteria=[criterion], progress=False)
            tables = groups = records = 0
            for node in r.minimal.select(QIS).iter_rows(named=True):
                out = pa.generalize(df, hs, node, k, SUPPRESSION, criteria=[criterion]).collect()
                per = out.group_by(QIS).agg(
                    pl.col("health").replace_strict(category).n_unique().alias("cats"),
                    pl.len().alias("n"),
                )
                exposed = per.filter(pl.col("cats") == 1)
                tables += int(exposed.height > 0)
                groups += exposed.height
                records += int(exposed.get_column("n").sum())
            row = {
                "k": k,
                "p": p,
                "model": name,
                "minimal_tables": r.minimal.height,
                "exposed_tables": tables,
                "exposed_groups": groups,
                "exposed_records": records,
            }
            rows.append(row)
            print(json.dumps(row))
    args.out.write_text(json.dumps(rows, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
