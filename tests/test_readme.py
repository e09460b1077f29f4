"""The README's quickstart, Python and command line, runs as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import polars_anon as pa
from polars_anon.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_python_quickstart_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = re.search(r"```python\n(.*?)```", README, re.S)
    assert code is not None
    scope: dict[str, object] = {}
    monkeypatch.chdir(tmp_path)  # where it writes its release
    exec(code.group(1), scope)
    assert isinstance(scope["result"], pa.SearchResult)
    assert (tmp_path / "release.parquet").is_file()


def test_command_line_quickstart_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block = README[README.index("The same from the command line") :]
    block = block[: block.index("In Python:")].replace("\\\n", " ")
    commands = [
        shlex.split(line.strip())
        for line in block.splitlines()
        if line.strip().startswith("polars-anon ")
    ]
    assert len(commands) == 3
    lf, _ = pa.datasets.adult()
    frame = lf.collect()
    frame.write_csv(tmp_path / "adult.csv")
    frame.tail(20000).write_csv(tmp_path / "march.csv")
    (tmp_path / "hierarchies").symlink_to(ROOT / "hierarchies")
    monkeypatch.chdir(tmp_path)
    for command in commands:
        assert main(command[1:]) == 0, command
    assert (tmp_path / "march.parquet").is_file()
