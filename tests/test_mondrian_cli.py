"""Mondrian on the command line (``anonymize --algorithm mondrian``) and in
job files (``[search] algorithm = "mondrian"``): the release is written by
the proven write every job uses, the resolved job records the algorithm,
the partitions, the loss and the partition's splits, and running it again
routes its input down those splits and re-checks the release."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tomllib

import polars_anon as pa
from polars_anon.cli import main
from polars_anon.jobs.toml import dumps
from polars_anon.release.guard import Guarded

QIS = ["age", "sex", "race", "marital-status"]


@pytest.fixture
def adult_csv(tmp_path: Path) -> Path:
    lf, hs = pa.datasets.adult()
    df = lf.collect()
    df.write_csv(tmp_path / "adult.csv")
    df.head(20000).write_csv(tmp_path / "january.csv")
    df.tail(10162).write_csv(tmp_path / "february.csv")
    (tmp_path / "h").mkdir()
    for q in ("sex", "race", "marital-status"):
        (tmp_path / "h" / f"{q}.csv").write_text(hs[q].to_csv())
    return tmp_path / "adult.csv"


def hierarchies(folder: Path) -> dict[str, pa.Hierarchy]:
    return {q: pa.Hierarchy.from_csv(folder / "h" / f"{q}.csv") for q in QIS[1:]}


def anonymize(csv: Path, out: Path, *extra: str) -> int:
    args = ["anonymize", str(csv), "--qi", ",".join(QIS), "--hierarchies", str(csv.parent / "h")]
    return main([*args, "--k", "5", "--algorithm", "mondrian", *extra, "--out", str(out)])


def release_holds(path: Path, k: int, partitions: int) -> pl.DataFrame:
    """The written release: every group of at least k rows, one a partition."""
    out = pl.read_csv(path, infer_schema=False) if path.suffix == ".csv" else pl.read_parquet(path)
    sizes = out.group_by(QIS).len()
    assert sizes.height == partitions
    assert int(sizes.get_column("len").min()) >= k  # type: ignore[arg-type]
    return out


def test_anonymize_mondrian_writes_the_release_and_its_job(
    adult_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "release.csv"
    assert anonymize(adult_csv, out) == 0
    printed = capsys.readouterr().out
    assert "MondrianResult" in printed and "wrote 30,162 of 30,162 rows" in printed
    expected = pa.mondrian(
        pl.read_csv(adult_csv), QIS, 5, hierarchies=hierarchies(adult_csv.parent)
    )
    release = release_holds(out, 5, expected.partitions)
    want = expected.apply().collect()
    assert release.sort(release.columns).equals(want.sort(want.columns).cast(release.schema))
    job = tomllib.loads((tmp_path / "release.csv.job.toml").read_text())
    assert job["search"] == {"algorithm": "mondrian", "mode": "strict", "numeric": ["age"]}
    result = job["result"]
    assert result["algorithm"] == "mondrian" and "levels" not in result
    assert result["partitions"] == expected.partitions
    assert result["loss"] == pytest.approx(expected.loss)
    assert result["attribute_loss"] == pytest.approx(expected.attribute_loss)
    assert (result["rows_in"], result["rows_released"]) == (30162, 30162)
    assert result["columns"]["age"].startswith("quasi-identifier: recoded by Mondrian")
    assert job["model"]["max_suppression"] == 0 and "preference" not in job["search"]


def test_the_resolved_job_re_applies_its_recorded_splits_and_rechecks(
    adult_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = adult_csv.parent
    first = tmp_path / "january.parquet"
    assert anonymize(folder / "january.csv", first) == 0
    job = Path(f"{first}.job.toml")
    recorded = tomllib.loads(job.read_text())["result"]
    splits = Path(f"{first}.splits.parquet")
    assert recorded["splits"] == splits.name and recorded["re_applied"] is False
    assert recorded["splits_sha256"] == hashlib.sha256(splits.read_bytes()).hexdigest()
    # the same input: the same partitions, the same release
    again = tmp_path / "again.parquet"
    assert main(["anonymize", "--config", str(job), "--out", str(again)]) == 0
    assert "by the splits recorded in the job file" in capsys.readouterr().out
    a, b = pl.read_parquet(first), pl.read_parquet(again)
    assert a.equals(b)
    redone = tomllib.loads(Path(f"{again}.job.toml").read_text())["result"]
    assert (redone["partitions"], redone["loss"]) == (recorded["partitions"], recorded["loss"])
    assert redone["re_applied"] is True
    assert pl.read_parquet(f"{again}.splits.parquet").equals(pl.read_parquet(splits))
    # every record twice: the same boxes, each twice as large
    twice = tmp_path / "twice.csv"
    january = pl.read_csv(folder / "january.csv")
    pl.concat([january, january]).write_csv(twice)
    doubled = tmp_path / "doubled.parquet"
    assert main(["anonymize", "--config", str(job), str(twice), "--out", str(doubled)]) == 0
    expected = a.group_by(QIS).len().with_columns(pl.col("len") * 2)
    got = release_holds(doubled, 10, recorded["partitions"]).group_by(QIS).len()
    assert got.sort(QIS).equals(expected.sort(QIS))
    # February (a third of the records): partitions of the recorded splits
    # below k, so nothing is written, and the message says how to go on
    february = tmp_path / "february_release.csv"
    feb_in = str(folder / "february.csv")
    assert main(["anonymize", "--config", str(job), feb_in, "--out", str(february)]) != 0
    err = capsys.readouterr().err
    assert "recorded partitions that hold its records fail the model" in err
    assert "delete [result] splits" in err
    # the job's ways out alone, once each (the API's were left in, garbled)
    assert "Partition the table again" not in err and err.count("coarsen = true") == 1
    assert not february.exists() and not Path(f"{february}.job.toml").exists()
    # coarsened: the recorded splits kept where February holds them
    doc = tomllib.loads(job.read_text())
    doc["search"]["coarsen"] = True
    coarse = tmp_path / "coarse.toml"
    coarse.write_text(dumps(doc))
    assert main(["anonymize", "--config", str(coarse), feb_in, "--out", str(february)]) == 0
    resolved = tomllib.loads(Path(f"{february}.job.toml").read_text())
    assert resolved["search"]["coarsen"] is True and resolved["result"]["re_applied"]
    assert resolved["result"]["partitions"] < recorded["partitions"]
    release_holds(february, 5, resolved["result"]["partitions"])
    february.unlink()
    # without the recorded splits: partitioned anew, as the job says (age
    # split as a number)
    doc = tomllib.loads(job.read_text())
    del doc["result"]
    anew = tmp_path / "anew.toml"
    anew.write_text(dumps(doc))
    assert main(["anonymize", "--config", str(anew), feb_in, "--out", str(february)]) == 0
    assert "wrote 10,162 of 10,162 rows" in capsys.readouterr().out
    resolved = tomllib.loads(Path(f"{february}.job.toml").read_text())
    assert resolved["search"]["numeric"] == ["age"]
    release_holds(february, 5, resolved["result"]["partitions"])
    assert resolved["result"]["rows_in"] == 10162 and not resolved["result"]["re_applied"]


def test_a_changed_splits_file_is_refused(adult_csv: Path, tmp_path: Path) -> None:
    first = tmp_path / "january.parquet"
    assert anonymize(adult_csv.parent / "january.csv", first) == 0
    job = Path(f"{first}.job.toml")
    splits = Path(f"{first}.splits.parquet")
    pl.read_parquet(splits).with_columns(pl.col("number") + 1).write_parquet(splits)
    with pytest.raises(pa.ConfigError, match="changed since the job was resolved"):
        pa.Job.from_toml(job).run(write_job=False)
    splits.unlink()
    with pytest.raises(pa.ConfigError, match="no such file"):
        pa.Job.from_toml(job).run(write_job=False)


def test_a_relaxed_job_records_no_splits(adult_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "relaxed.parquet"
    assert anonymize(adult_csv.parent / "january.csv", out, "--mode", "relaxed") == 0
    result = tomllib.loads(Path(f"{out}.job.toml").read_text())["result"]
    assert "splits" not in result and not Path(f"{out}.splits.parquet").exists()


def test_a_job_file_runs_mondrian_through_the_proven_write(
    adult_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[Path] = []
    write = Guarded.write

    def spy(self: Guarded, path: Any, fmt: str, separator: str = ",") -> Path:
        written.append(Path(path))
        return write(self, path, fmt, separator)

    monkeypatch.setattr(Guarded, "write", spy)
    (tmp_path / "job.toml").write_text(
        """
[input]
path = "adult.csv"

[model]
quasi_identifiers = ["age", "sex", "race", "marital-status"]
k = 4
criteria = [{ type = "distinct_l", l = 2, attribute = "salary-class" }]

[hierarchies.race]
path = "h/race.csv"

[columns.identifiers]
native-country = "drop"

[search]
algorithm = "mondrian"
numeric = []

[output]
path = "out.parquet"
"""
    )
    run = pa.Job.from_toml(tmp_path / "job.toml").run()
    assert isinstance(run, pa.MondrianRun)
    assert written == [tmp_path / "out.parquet"]
    assert run.result.kinds == {
        "age": "set",
        "sex": "set",
        "race": "hierarchy",
        "marital-status": "set",
    }
    out = release_holds(tmp_path / "out.parquet", 4, run.result.partitions)
    assert "native-country" not in out.columns
    assert out.group_by(QIS).agg(pl.col("salary-class").n_unique()).min().row(0)[-1] >= 2
    resolved = tomllib.loads(run.job_file.read_text())
    assert resolved["search"]["numeric"] == []
    assert resolved["result"]["columns"]["native-country"].startswith("identifier")
    assert resolved["model"]["criteria"][0]["l"] == 2


@pytest.mark.parametrize(
    ("search", "message"),
    [
        ('algorithm = "mondrian"\nmode = "loose"', "mode must be"),
        ('algorithm = "mondrian"\nvariant = "cube"', "no variant"),
        ('algorithm = "mondrian"\ntime_limit = 3', "no time_limit"),
        ('algorithm = "incognito"\nnumeric = ["age"]', "for algorithm"),
        ('algorithm = "mondrian"\nnumeric = ["sex"]', "numeric"),
    ],
)
def test_a_job_file_refuses_what_mondrian_does_not_take(
    adult_csv: Path, tmp_path: Path, search: str, message: str
) -> None:
    path = tmp_path / "job.toml"
    path.write_text(
        f"""
[input]
path = "adult.csv"

[model]
quasi_identifiers = ["age", "sex"]
k = 5

[search]
{search}

[output]
path = "out.csv"
"""
    )
    with pytest.raises(pa.ConfigError, match=message):
        pa.Job.from_toml(path).run()
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--max-suppression", "1%"], "Mondrian suppresses no records"),
        (["--engine", "duckdb"], "polars engine only"),
        (["--variant", "cube"], "no variant"),
    ],
)
def test_the_command_line_refuses_what_mondrian_does_not_take(
    adult_csv: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    out = tmp_path / "out.csv"
    assert anonymize(adult_csv, out, *extra) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_numeric_is_mondrians_and_search_does_not_take_it(
    adult_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.csv"
    base = ["anonymize", str(adult_csv), "--qi", "age,sex", "--out", str(out)]
    assert main([*base, "--numeric", "age"]) == 2
    assert "--numeric is for --algorithm mondrian" in capsys.readouterr().err
    assert main([*base, "--algorithm", "mondrian", "--numeric", ""]) == 0
    capsys.readouterr()
    # age as value sets: no ranges
    ages = pl.read_csv(out, infer_schema=False).get_column("age")
    assert not ages.str.contains("[", literal=True).any() and ages.str.starts_with("{").any()
    # the search subcommand searches full-domain generalizations only
    assert main(["search", str(adult_csv), "--qi", "age", "--algorithm", "mondrian"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_a_resolved_job_keeps_its_numeric_columns(
    adult_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The resolved job names the columns it split as numbers: new data
    whose age is no longer a number is refused, not split as value sets
    (unless the command line says otherwise)."""
    first = tmp_path / "first.csv"
    assert anonymize(adult_csv, first) == 0
    job = Path(f"{first}.job.toml")
    odd = tmp_path / "odd.csv"
    df = pl.read_csv(adult_csv).head(1000).with_columns(pl.col("age").cast(pl.String))
    first_row = pl.int_range(pl.len()) == 0
    df.with_columns(pl.when(first_row).then(pl.lit("90+")).otherwise("age").alias("age")).write_csv(
        odd
    )
    capsys.readouterr()
    out = tmp_path / "o.csv"
    assert main(["anonymize", "--config", str(job), str(odd), "--out", str(out)]) == 2
    assert "numeric names age, not quasi-identifiers" in capsys.readouterr().err
    assert not out.exists()
    # --numeric on the command line overrides the job's, which its recorded
    # splits (age cut as a number) cannot follow: without them, it partitions
    args = ["anonymize", "--config", str(job), str(odd), "--out", str(out), "--numeric", ""]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "'age' was cut as a number" in err and "delete [result] splits" in err
    doc = tomllib.loads(job.read_text())
    del doc["result"]
    job.write_text(dumps(doc))
    assert main(args) == 0
    resolved = tomllib.loads(Path(f"{out}.job.toml").read_text())
    assert resolved["search"]["numeric"] == []
