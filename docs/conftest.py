"""The guide's examples are doctests (``pytest --doctest-glob="*.md" docs``):
each page runs in a fresh temporary folder, where it may write its files,
with ``hierarchies/`` (the repository's ready hierarchies) beside them."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _in_a_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hierarchies").symlink_to(ROOT / "hierarchies")
    monkeypatch.chdir(tmp_path)
