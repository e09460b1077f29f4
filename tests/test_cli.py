"""The command line: the README's main job, and the same on a user's files."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_anon as pa
from polars_anon.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_adult_job_writes_a_checked_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "adult.parquet"
    assert main(["adult", "--k", "5", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "SearchResult" in printed and "CheckReport" in printed
    release = pl.read_parquet(out)
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    assert release.height == 30162
    assert pa.check(release, qis, 5).min_group_size >= 5


def test_anonymize_a_csv_with_a_hierarchy_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = pa.datasets.data_dir() / "race_zip" / "race_zip.csv"
    out = tmp_path / "out.csv"
    code = main(
        [
            "anonymize",
            str(data),
            "--hierarchies",
            str(ROOT / "hierarchies" / "race_zip"),
            "--qi",
            "Race,ZIP",
            "--k",
            "2",
            "--max-suppression",
            "2",
            "--criterion",
            "min_height",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    release = pl.read_csv(out, separator=";")
    assert release.height == 7  # the two suppressed tuples are gone
    assert pa.check(release, ["Race", "ZIP"], 2).k_anonymous
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["anonymize", str(data), "--hierarchies", str(empty), "--qi", "Race"]) == 2
    err = capsys.readouterr().err
    assert "ConfigError" in err and "no .csv hierarchy files" in err
