"""Regenerates tests/data/arx_quality.json: ARX 3.9.2's own quality statistics
(`StatisticsQuality`) for nodes of Adult's 9-QI lattice, which
tests/test_quality.py compares polars-anon's `quality` with.

Run from the repository's root, with ARX 3.9.2 built from its sources:

    python tests/data/arx_quality/generate.py --arx /path/to/arxbuild

where the ARX directory holds ARX's ``src/main`` at tag v3.9.2 (commit
8b7bc54863fb0ff031a11883a3c0c737ffacfa47), its ``lib/ant`` jars, and ``out``
with those sources compiled (or let javac compile them: ``-sourcepath``).
Three jars are absent from ARX's repository (hadoop-core, pdfbox-app,
poi-ooxml-schemas); javac needs two one-line stubs in ``stubs/``:
``org.apache.pdfbox.pdmodel.font.PDFont`` (an empty abstract class) and
``org.apache.hadoop.io.Writable`` (an interface with
``write(java.io.DataOutput)`` and ``readFields(java.io.DataInput)``). Java 17.

The nodes are drawn with fixed seeds from the lattice; where a job needs
releases that exist (a suppression limit below 100%), the candidates are
tried in that random order and the first that `polars_anon.check` passes
are kept, plus a few it fails (ARX must say NOT_ANONYMOUS for them, and
`quality` must refuse them). ARX itself reads the same files polars-anon
bundles (its Adult and hierarchies, byte for byte ARX's ``data/``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import subprocess
import tempfile
from pathlib import Path

import polars as pl

import polars_anon as pa

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "arx_quality.json"
ADULT = Path("python/polars_anon/data/adult")
QIS = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
ARX = {"version": "3.9.2", "tag": "v3.9.2", "commit": "8b7bc54863fb0ff031a11883a3c0c737ffacfa47"}

# name: (seed, k, suppression limit, age's ARX type, l-diversity, nodes that
# pass, nodes that fail)
# A limit of 1.0 is ARX's 100%: polars-anon's max_suppression = every row.
JOBS: dict[str, tuple[int, int, float, str, str | None, int, int]] = {
    # no suppression: any node
    "k1": (1, 1, 0.0, "int", None, 20, 0),
    # suppression within 5%
    "k5_limit5": (2, 5, 0.05, "int", None, 20, 3),
    # k-anonymous without suppression
    "k5_limit0": (3, 5, 0.0, "int", None, 10, 0),
    # any node, every small group suppressed
    "k5_all": (4, 5, 1.0, "int", None, 10, 0),
    # age as ARX's default String type (hierarchy order), not Integer
    "age_string": (5, 5, 0.05, "-", None, 3, 0),
    # occupation sensitive: distinct 2-diversity suppresses more groups
    "ldiv": (6, 2, 0.05, "int", "occupation=2", 3, 1),
}
# the lattice's corners: all suppressed (AECS and discernibility unavailable),
# nothing generalized, everything generalized
EDGES = [
    ("edge_all_suppressed", 30162, 1.0, [0] * 9),
    ("edge_bottom", 1, 0.0, [0] * 9),
    ("edge_top", 1, 0.0, [1, 4, 1, 2, 3, 2, 2, 2, 1]),
]


def lattice(qis: list[str], hs: dict[str, pa.Hierarchy]) -> list[list[int]]:
    return [list(n) for n in itertools.product(*(range(hs[q].height + 1) for q in qis))]


def select(frame: pl.DataFrame, hs: dict[str, pa.Hierarchy], job: str) -> list[tuple[str, ...]]:
    seed, k, limit, age, ldiv, passing, failing = JOBS[job]
    qis = [q for q in QIS if ldiv is None or q != ldiv.split("=")[0]]
    nodes = lattice(qis, hs)
    random.Random(seed).shuffle(nodes)
    criteria = None
    if ldiv is not None:
        attr, level = ldiv.split("=")
        criteria = [pa.DistinctLDiversity(int(level), attr)]
    budget = frame.height if limit == 1.0 else limit
    ok, bad = [], []
    for node in nodes:
        levels = dict(zip(qis, node, strict=True))
        if limit == 1.0 or (k == 1 and limit == 0.0):
            ok.append(levels)
        else:
            r = pa.check(frame, qis, k, hs, levels, max_suppression=budget, criteria=criteria)
            (ok if r.k_anonymous else bad).append(levels)
        if len(ok) >= passing and len(bad) >= failing:
            break
    chosen = ok[:passing] + bad[:failing]
    types = "age=int" if age == "int" else "-"
    spec = ldiv or "-"
    return [
        (job, str(k), str(limit), types, spec, ",".join(f"{q}={v}" for q, v in lv.items()))
        for lv in chosen
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx", type=Path, required=True, help="ARX 3.9.2's build directory")
    arx = parser.parse_args().arx.resolve()
    lf, hs = pa.datasets.adult()
    frame = lf.collect()
    jobs = [line for job in JOBS for line in select(frame, hs, job)]
    for name, k, limit, node in EDGES:
        levels = ",".join(f"{q}={v}" for q, v in zip(QIS, node, strict=True))
        jobs.append((name, str(k), str(limit), "age=int", "-", levels))
    classpath = ":".join([str(arx / "out"), *map(str, sorted((arx / "lib").rglob("*.jar")))])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                "javac",
                "-nowarn",
                "-encoding",
                "UTF-8",
                "-d",
                tmp,
                "-cp",
                classpath,
                "-sourcepath",
                f"{arx / 'src/main'}:{arx / 'stubs'}",
                str(HERE / "Driver.java"),
            ],
            check=True,
        )
        jobs_file = Path(tmp) / "jobs.txt"
        jobs_file.write_text("".join(";".join(j) + "\n" for j in jobs), encoding="utf8")
        command = [
            "java",
            "-cp",
            f"{tmp}:{classpath}",
            "Driver",
            str(ADULT / "adult.csv"),
            str(ADULT / "hierarchies"),
            str(jobs_file),
        ]
        run = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
    results = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(jobs), run.stderr[-2000:]
    OUT.write_text(
        json.dumps(
            {
                "arx": ARX,
                "about": "ARX's StatisticsQuality for nodes of Adult's 9-QI lattice "
                "(tests/test_quality.py); regenerate with the command below",
                "command": "python tests/data/arx_quality/generate.py --arx <ARX 3.9.2 build>",
                "driver": "tests/data/arx_quality/Driver.java",
                "java": "java -cp <driver>:<ARX classes and jars> Driver "
                f"{ADULT / 'adult.csv'} {ADULT / 'hierarchies'} <jobs: one line per result>",
                "results": results,
            },
            indent=1,
        )
        + "\n",
        encoding="utf8",
    )
    print(f"wrote {len(results)} results to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
