"""Execute the notebooks in place, so they are committed with their outputs
(tables, reports and figures) and read without running them:

    python notebooks/run.py [notebook.ipynb ...]

The test suite runs them again (nbmake) and checks their figures are there."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    nbformat.write(nb, path)
    print(f"executed {path}")


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or sorted(Path(__file__).parent.glob("*.ipynb"))
    for p in paths:
        run(p)
