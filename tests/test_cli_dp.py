"""SafePub on the command line (``anonymize --epsilon E --delta D``) and in
job files (a ``[privacy]`` table), issue 31: the release is written by the
result's proven write, holds the quasi-identifiers only, every class of
them at least k records (k as `pa.dp_parameters` derives it), the same seed
gives the same file, and what does not go with differential privacy is
refused by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tomllib

import polars_anon as pa
from polars_anon.cli import main
from polars_anon.jobs.dp import Privacy
from polars_anon.jobs.toml import dumps
from polars_anon.results.dp import DPResult

ADULT = pa.datasets.data_dir() / "adult"
QIS = ["sex", "age", "race", "marital-status", "education"]
DP = ["--epsilon", "1", "--delta", "1e-5", "--seed", "7", "--steps", "30"]


def anonymize(out: Path, *extra: str) -> int:
    """The CLI on the bundled Adult (its CSV is separated by semicolons)."""
    data = ["anonymize", str(ADULT / "adult.csv"), "--sep", ";"]
    hierarchies = ["--hierarchies", str(ADULT / "hierarchies"), "--qi", ",".join(QIS)]
    return main([*data, *hierarchies, *extra, "--out", str(out)])


def read(path: Path) -> pl.DataFrame:
    if path.suffix == ".parquet":
        return pl.read_parquet(path)
    return pl.read_csv(path, separator=";", infer_schema=False)


def holds(path: Path, k: int) -> pl.DataFrame:
    """The written release, read back with plain Polars: the
    quasi-identifiers only, every class of them at least k records."""
    out = read(path)
    assert out.columns == QIS
    assert out.height > 0
    assert int(out.group_by(QIS).len().get_column("len").min()) >= k  # type: ignore[arg-type]
    return out


def resolved(out: Path) -> dict[str, Any]:
    return tomllib.loads(Path(f"{out}.job.toml").read_text())


def test_the_cli_writes_a_release_of_classes_of_k_or_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "release.csv"
    assert anonymize(out, *DP) == 0
    printed = capsys.readouterr().out
    assert "DPResult" in printed and "(1, 1e-05)-differential privacy (SafePub)" in printed
    job = resolved(out)
    result = job["result"]
    assert (result["algorithm"], result["mode"]) == ("safepub", "data-dependent")
    # k and beta as dp_parameters derives them from the anonymization's budget
    k, beta = pa.dp_parameters(result["epsilon_anonymization"], 1e-5)
    assert (result["k"], result["beta"]) == (k, beta)
    assert result["epsilon_search"] + result["epsilon_anonymization"] == pytest.approx(1.0)
    assert f"k          {k}" in printed
    release = holds(out, k)
    assert release.height == result["rows_released"] == result["sampled"] - result["suppressed"]
    assert result["left_out"] == ["native-country", "workclass", "occupation", "salary-class"]
    assert f"wrote {release.height:,} rows to {out}" in printed
    # the job records the parameters, not a k, a search or roles
    assert job["privacy"] == {
        "epsilon": 1.0,
        "delta": 1e-5,
        "seed": 7,
        "steps": 30,
        "metric": "loss",
        "search_share": 0.1,
        "final": "best",
    }
    assert job["model"] == {"quasi_identifiers": QIS}
    assert "search" not in job and "columns" not in job
    # the API, given the same seed, chooses the same scheme
    lf, hs = pa.datasets.adult()
    api = pa.differential_privacy(lf, QIS, hs, 1.0, 1e-5, seed=7, steps=30)
    assert (api.k, api.levels) == (k, result["levels"])


def test_the_same_seed_gives_the_same_file(tmp_path: Path) -> None:
    first, second, other = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    assert anonymize(first, *DP) == 0
    assert anonymize(second, *DP) == 0
    assert first.read_bytes() == second.read_bytes()
    assert anonymize(other, *DP[:-4], "--seed", "8", *DP[-2:]) == 0
    assert first.read_bytes() != other.read_bytes()
    # the resolved job, run again, releases the same file (as Parquet here)
    again = tmp_path / "again.parquet"
    assert main(["anonymize", "--config", f"{first}.job.toml", "--out", str(again)]) == 0
    assert read(again).cast(pl.String).equals(read(first))
    assert resolved(again)["result"]["levels"] == resolved(first)["result"]["levels"]


def test_a_fixed_scheme_spends_all_of_epsilon_on_the_anonymization(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fixed.parquet"
    assert anonymize(out, "--epsilon", "1", "--delta", "1e-5", "--levels", "age=2,sex=1") == 0
    assert "data-independent" in capsys.readouterr().out
    job = resolved(out)
    k, _ = pa.dp_parameters(1.0, 1e-5)
    assert job["result"]["k"] == k and job["result"]["epsilon_search"] == 0
    assert job["result"]["levels"] == {
        "sex": 1,
        "age": 2,
        "race": 0,
        "marital-status": 0,
        "education": 0,
    }
    # no seed: none recorded, and no search settings beside a fixed scheme
    assert job["privacy"] == {"epsilon": 1.0, "delta": 1e-5, "generalization": {"age": 2, "sex": 1}}
    release = holds(out, k)
    assert set(release.get_column("sex")) == {"*"}


def job_doc(**privacy: Any) -> dict[str, Any]:
    return {
        "input": {"path": str(ADULT / "adult.csv"), "separator": ";"},
        "model": {"quasi_identifiers": QIS},
        "hierarchies": {q: {"path": str(ADULT / "hierarchies" / f"{q}.csv")} for q in QIS},
        "privacy": {"epsilon": 0.5, "delta": 1e-6, "seed": 3, "steps": 20, **privacy},
        "output": {"path": "release.parquet"},
    }


def write_job(tmp_path: Path, doc: dict[str, Any], name: str = "job.toml") -> Path:
    path = tmp_path / name
    path.write_text(dumps(doc))
    return path


def test_a_job_file_with_a_seed_is_reproducible_and_written_proven(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sinks: list[Path] = []
    sink = DPResult.sink_parquet

    def spy(self: DPResult, path: Any, **kwargs: Any) -> Path:
        sinks.append(Path(path))
        return sink(self, path, **kwargs)

    monkeypatch.setattr(DPResult, "sink_parquet", spy)
    doc = job_doc(metric="entropy", final="mechanism")
    run = pa.Job.from_toml(write_job(tmp_path, doc)).run()
    assert isinstance(run, pa.DPRun) and run.searched
    assert sinks == [tmp_path / "release.parquet"]
    k, beta = pa.dp_parameters(run.result.epsilon_anonymization, 1e-6)
    assert (run.result.k, run.result.beta) == (k, beta)
    assert run.result.metric == "entropy" and run.result.final == "mechanism"
    first = holds(tmp_path / "release.parquet", k)
    assert first.height == run.rows_released == run.result.released
    # the same job again: the same release
    doc["output"]["path"] = "again.parquet"
    again = pa.Job.from_toml(write_job(tmp_path, doc, "again.toml")).run()
    assert again.levels == run.levels
    assert pl.read_parquet(tmp_path / "again.parquet").equals(first)
    # its resolved job reads back as the job it ran
    job = pa.Job.from_toml(run.job_file)
    assert job.privacy == Privacy(0.5, 1e-6, 3, 20, "entropy", 0.1, "mechanism")
    assert job.k is None and job.levels is None


def test_a_job_file_with_a_fixed_scheme(tmp_path: Path) -> None:
    doc = job_doc(generalization={"education": 2})
    del doc["privacy"]["steps"]
    doc["output"]["path"] = "release.csv"
    run = pa.Job.from_toml(write_job(tmp_path, doc)).run(write_job=False)
    assert isinstance(run, pa.DPRun) and not run.searched
    assert run.levels["education"] == 2 and run.result.epsilon_search == 0
    assert not run.job_file.exists()
    holds(tmp_path / "release.csv", pa.dp_parameters(0.5, 1e-6)[0])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--k", "5"], "--k does not go with --epsilon: k is derived"),
        (["--max-suppression", "0"], "--max-suppression does not go with --epsilon"),
        (["--l-diversity", "salary-class:2"], "--l-diversity does not go with --epsilon"),
        (["--identifier", "workclass"], "--identifier does not go with --epsilon"),
        (["--insensitive", "workclass,occupation"], "--insensitive does not go with --epsilon"),
        (["--algorithm", "incognito"], "--algorithm does not go with --epsilon"),
        (["--criterion", "min_height"], "--preference does not go with --epsilon"),
        (["--numeric", "age"], "--numeric does not go with --epsilon"),
        (["--levels", "age=1", "--steps", "10"], "--steps sets the search, and --levels fixes"),
        (["--search-share", "1.5"], "--search-share must be a number in (0, 1), got 1.5"),
    ],
)
def test_what_does_not_go_with_epsilon_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    out = tmp_path / "release.csv"
    assert anonymize(out, *DP, *extra) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--delta", "1e-5"], "--delta is for --epsilon (differential privacy) only"),
        (["--seed", "1", "--dp-metric", "aecs"], "--seed, --dp-metric are for --epsilon"),
        (["--generalization", "age=1"], "--levels is for --epsilon"),
        (["--epsilon", "1"], "--epsilon needs --delta"),
        (["--epsilon", "-1", "--delta", "1e-5"], "--epsilon must be a positive number"),
        (["--epsilon", "1", "--delta", "2"], "--delta must be a number in (0, 1)"),
        (["--epsilon", "1", "--delta", "1e-5", "--levels", "age=-1"], "--levels is a level"),
    ],
)
def test_epsilon_and_its_options_go_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert anonymize(tmp_path / "release.csv", *args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["model"].update(k=5), r"\[model\] \['k'\] do not go with \[privacy\]"),
        (
            lambda d: d["model"].update(max_suppression=0.01),
            r"\[model\] \['max_suppression'\] do not go",
        ),
        (
            lambda d: d["privacy"].update(epsilom=1),
            r"\[privacy\] has unknown key \['epsilom'\]",
        ),
        (lambda d: d["privacy"].pop("delta"), r"\[privacy\] needs delta"),
        (
            lambda d: d.update(search={"algorithm": "ola"}),
            r"\[search\] does not go with \[privacy\]",
        ),
        (
            lambda d: d.update(columns={"identifiers": ["workclass"]}),
            r"\[columns\] does not go with \[privacy\]",
        ),
        (
            lambda d: d["privacy"].update(generalization={"age": 1}),
            r"\[privacy\] \['steps'\] set the search",
        ),
        (lambda d: d["privacy"].update(metric="nope"), r"\[privacy\] metric must be one of"),
        (lambda d: d["privacy"].update(epsilon="1"), r"\[privacy\] epsilon must be a positive"),
        (lambda d: d["privacy"].update(seed=1.5), r"\[privacy\] seed must be a whole number"),
        (lambda d: d["privacy"].update(steps=-1), r"\[privacy\] steps must be a whole number"),
    ],
)
def test_a_bad_privacy_job_is_refused_by_name(tmp_path: Path, edit: Any, message: str) -> None:
    doc = job_doc()
    edit(doc)
    with pytest.raises(pa.ConfigError, match=message):
        pa.Job.from_toml(write_job(tmp_path, doc)).run()
    assert not (tmp_path / "release.parquet").exists()


def test_a_privacy_job_takes_no_k_roles_or_epsilon_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_job(tmp_path, job_doc())
    job = pa.Job.from_toml(path)
    job.k = 5
    with pytest.raises(pa.ConfigError, match="a job with privacy takes no k"):
        job.run()
    for args, message in (
        (["--identifier", "workclass"], "--identifier does not go with a job's [privacy]"),
        (["--epsilon", "1", "--delta", "1e-5"], "--epsilon does not go with --config"),
    ):
        assert main(["anonymize", "--config", str(path), *args]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "release.parquet").exists()


def test_a_searching_job_refuses_hierarchies_built_from_the_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a builder spec is built over the column's own values: the leaves, and
    # the loss score counting them, move with one record (a reviewer saw a
    # score move by 12.25 where the mechanism assumes at most 1)
    monkeypatch.chdir(tmp_path)
    doc = job_doc()
    doc["hierarchies"]["age"] = {"builder": "interval", "widths": [10, 20]}
    with pytest.raises(pa.ConfigError, match=r"hierarchies of \['age'\] are built from the data"):
        pa.Job.from_toml(write_job(tmp_path, doc)).run()
    assert not (tmp_path / "release.parquet").exists()
    # with the levels fixed there is no search: built from the data is fine
    doc["privacy"] = {"epsilon": 0.5, "delta": 1e-6, "seed": 3, "generalization": {"age": 1}}
    run = pa.Job.from_toml(write_job(tmp_path, doc)).run()
    assert isinstance(run, pa.DPRun) and not run.searched


def test_a_fixed_level_for_a_column_without_a_hierarchy_says_it_has_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It read "level 1 for 'age' is above its hierarchy's height 0"; and a
    column given twice kept the last level."""
    out = tmp_path / "fixed.csv"
    data = ["anonymize", str(ADULT / "adult.csv"), "--sep", ";", "--qi", "sex,age"]
    data += ["--hierarchy", f"sex={ADULT / 'hierarchies' / 'sex.csv'}", "--out", str(out)]
    fixed = [*data, "--epsilon", "1", "--delta", "1e-5", "--levels"]
    assert main([*fixed, "sex=1,age=1"]) == 2
    assert capsys.readouterr().err == (
        "polars-anon: ConfigError: --levels age=1: column 'age' has no hierarchy, so it stays "
        "at level 0 (its values as they are); give it one with --hierarchy age=FILE (an ARX "
        "CSV, a hierarchy JSON or a builder spec JSON) or a --hierarchies folder holding "
        "age.csv\n"
    )
    assert main([*fixed, "sex=1,sex=0"]) == 2
    assert "column 'sex' is given twice (sex=1 and sex=0)" in capsys.readouterr().err
    doc = job_doc(generalization={"sex": 1, "age": 2})
    doc["privacy"].pop("steps")  # (a fixed scheme takes no search)
    doc["hierarchies"].pop("age")
    assert main(["anonymize", "--config", str(write_job(tmp_path, doc))]) == 2
    assert capsys.readouterr().err == (
        "polars-anon: ConfigError: job file: [privacy] generalization age=2: column 'age' has "
        "no hierarchy, so it stays at level 0 (its values as they are); give it one under "
        "[hierarchies.age] (path = an ARX CSV or JSON file, or builder = interval, date, "
        "masking or ordered)\n"
    )
    assert not out.exists() and not (tmp_path / "release.parquet").exists()
