"""ARX run on this machine over the grid of ``answer.py``: its time to its
optimum and the optimum itself, so that ``answer.py --arx`` compares two
programs timed on one machine on one day.

    python bench/arx.py --arx ARX_TREE [--jar JAR ...] [--repeat 5] [--out bench/arx.json]

ARX_TREE is a checkout of arx-deidentifier/arx (tag v3.9.2): its
``src/main`` is compiled with ``javac`` against the jars of its ``lib/``
(no Maven needed). Its tree lacks three jars; the grid needs two of them
only to compile: PDFBox 2 (give its jars with ``--jar``, e.g. Debian's
``libpdfbox2-java`` and ``libfontbox2-java``) and Hadoop's ``Writable``
(``bench/arx/shim``). The classes are built once into ``--build``.

Then ``bench/arx/ArxGrid.java`` runs every cell in one JVM: a warm-up
pass, one untimed call per cell, then ``--repeat`` timed calls of
``ARXAnonymizer.anonymize`` (ARX's default configuration: the loss metric,
its optimal search), writing each cell's best and median ms, ARX's
optimum levels and its loss.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

HERE = Path(__file__).parent
DATA = HERE.parent.parent / "shared" / "data"


def javac(out: Path, classpath: list[Path], sources: list[Path]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    listing = out / "sources.txt"
    listing.write_text("\n".join(str(s) for s in sources) + "\n")
    cp = ":".join(str(p) for p in classpath)
    subprocess.run(
        ["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(out), "-cp", cp, f"@{listing}"],
        check=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arx", type=Path, required=True, help="a checkout of ARX (tag v3.9.2)")
    ap.add_argument("--jar", type=Path, nargs="*", default=[], help="jars ARX's lib/ lacks")
    ap.add_argument("--build", type=Path, default=Path.home() / ".cache" / "polars-anon-arx")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "arx.json")
    args = ap.parse_args()

    jars = sorted((args.arx / "lib").rglob("*.jar")) + [j.resolve() for j in args.jar]
    shim, classes, grid = args.build / "shim", args.build / "arx", args.build / "grid"
    if not (classes / "org" / "deidentifier" / "arx" / "ARXAnonymizer.class").exists():
        javac(shim, [], sorted((HERE / "arx" / "shim").rglob("*.java")))
        javac(classes, [*jars, shim], sorted((args.arx / "src" / "main").rglob("*.java")))
    # ARX reads resources (e.g. risk/resources) from its source tree
    classpath = [classes, args.arx / "src" / "main", *jars, shim]
    javac(grid, classpath, [HERE / "arx" / "ArxGrid.java"])
    pom = (args.arx / "pom.xml").read_text() if (args.arx / "pom.xml").exists() else ""
    version = pom.split("<version>", 1)[1].split("<", 1)[0] if "<version>" in pom else "?"
    subprocess.run(
        [
            "java",
            f"-Darx.version={version}",
            "-cp",
            ":".join(str(p) for p in [*classpath, grid]),
            "ArxGrid",
            str(args.data),
            str(args.repeat),
            str(args.out),
        ],
        check=True,
    )


if __name__ == "__main__":
    main()
