"""Population tables from the command line and job files (#30): ``--kmap
K:POPULATION`` and ``--d-presence D_MIN:D_MAX:POPULATION`` with POPULATION
the path of a CSV or Parquet file read as the data is (``--sep``), and
``population = "people.csv"`` in a job file's criteria, relative to the job
file's folder and read with its CSV options. Each run equals the same
search through the Python API: the chosen levels and the released rows. A
missing population file and a parameter that is not a number are refused,
naming the option (or the key) and the value."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl
import pytest
import tomli_w

import polars_anon as pa
from polars_anon.cli import main
from polars_anon.jobs.criteria import criterion, criterion_spec, population_file

QIS = ["age", "sex", "race", "marital-status"]
HIERARCHIES = pa.datasets.data_dir() / "adult" / "hierarchies"


class Case(NamedTuple):
    """A model on the command line (``flag spec``) and in a job file
    (``entry``, its population given there), the same model through the API
    (`model`, given the population table), and max_suppression."""

    flag: str
    spec: str
    entry: dict[str, Any]
    model: Callable[[pl.DataFrame], pa.Criterion]
    sup: float


DPRESENCE = Case(
    "--d-presence",
    "0.1:0.25:people.csv",
    {"type": "d_presence", "d_min": 0.1, "d_max": 0.25},
    lambda p: pa.DPresence(0.1, 0.25, population=p),
    0.05,
)
KMAP = Case(
    "--kmap",
    "20:people.parquet",
    {"type": "kmap", "k": 20},
    lambda p: pa.KMap(20, population=p),
    0.02,
)
CASES = {"d_presence": DPRESENCE, "kmap": KMAP}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``data/``: Adult's quasi-identifiers as the population (people.csv,
    separated by ';', and people.parquet), one record in five of it as the
    study (study.csv, separated by ';')."""
    root = tmp_path_factory.mktemp("population")
    data = root / "data"
    data.mkdir()
    lf, _ = pa.datasets.adult()
    people = lf.select(QIS).collect()
    people.write_csv(data / "people.csv", separator=";")
    people.write_parquet(data / "people.parquet")
    people.gather_every(5).write_csv(data / "study.csv", separator=";")
    return root


def table(path: Path) -> pl.DataFrame:
    return pl.read_csv(path, separator=";")


def people(folder: Path) -> pl.DataFrame:
    return table(folder / "data" / "people.csv")


def rows(frame: pl.DataFrame) -> pl.DataFrame:
    """A release's rows as text, in order: compared whatever their types."""
    return frame.select(pl.col(QIS).cast(pl.String)).sort(QIS)


def through_the_api(folder: Path, case: Case) -> tuple[dict[str, int], pl.DataFrame]:
    """The levels `pa.search` prefers for the study and `case`'s model (k=1,
    mingen), and the rows it releases at them."""
    _, hs = pa.datasets.adult()
    study = table(folder / "data" / "study.csv")
    criteria = [case.model(people(folder))]
    r = pa.search(
        study, QIS, hs, 1, case.sup, algorithm="mingen", criteria=criteria, progress=False
    )
    levels = r.best("min_loss")
    return levels, rows(r.apply(levels=levels).collect())


def argv(command: str, sup: float, *extra: str) -> list[str]:
    """The study (run from ``data/``) with k=1, searched by mingen, and `extra` options."""
    return [
        command,
        "study.csv",
        "--sep",
        ";",
        "--hierarchies",
        str(HIERARCHIES),
        "--qi",
        ",".join(QIS),
        "--k",
        "1",
        "--max-suppression",
        str(sup),
        *([] if command == "check" else ["--algorithm", "mingen"]),
        *extra,
    ]


def printed(out: str, head: str) -> Any:
    """The levels printed after `head` (``preferred (min_loss): a=1  b=0``)."""
    line = next(x for x in out.splitlines() if x.startswith(head))
    pairs = (p.rsplit("=", 1) for p in line[len(head) :].strip().split("  "))
    return {q: int(lvl) for q, lvl in pairs}


@pytest.mark.parametrize("name", list(CASES))
def test_a_search_prints_the_apis_levels(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    case = CASES[name]
    levels, _ = through_the_api(folder, case)
    monkeypatch.chdir(folder / "data")
    assert main(argv("search", case.sup, case.flag, case.spec)) == 0
    assert printed(capsys.readouterr().out, "preferred (min_loss):") == levels


@pytest.mark.parametrize("name", list(CASES))
def test_anonymize_releases_what_the_api_does_and_its_job_replays_it(
    folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    case = CASES[name]
    levels, released = through_the_api(folder, case)
    monkeypatch.chdir(folder / "data")
    out = tmp_path / "release.csv"
    assert main(argv("anonymize", case.sup, case.flag, case.spec, "--out", str(out))) == 0
    assert printed(capsys.readouterr().out, "levels (searched):") == levels
    assert rows(table(out)).equals(released)
    # the resolved job records the population's file, and applies the same
    # levels again to the same release
    job = pa.Job.from_toml(f"{out}.job.toml")
    [entry] = job.criteria
    file = case.spec.rsplit(":", 1)[-1]
    assert Path(entry["population"]).resolve() == (folder / "data" / file).resolve()
    assert {k: entry[k] for k in case.entry} == case.entry
    again = job.run(write_job=False)
    assert isinstance(again, pa.JobRun) and not again.searched and again.levels == levels
    assert rows(table(out)).equals(released)


@pytest.mark.parametrize("name", list(CASES))
def test_a_job_files_population_is_relative_to_its_folder(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Run from elsewhere, by the command line and by `Job.run`; a CSV
    population is read with the job's separator (';': read with ',' it
    would have none of the quasi-identifiers' columns)."""
    case = CASES[name]
    jobs = folder / f"jobs-{name}"
    jobs.mkdir(exist_ok=True)
    entry = {**case.entry, "population": "../data/people.csv"}
    doc = {
        "input": {"path": "../data/study.csv", "separator": ";"},
        "model": {"quasi_identifiers": QIS, "k": 1, "max_suppression": case.sup},
        "hierarchies": {q: {"path": str(HIERARCHIES / f"{q}.csv")} for q in QIS},
        "search": {"algorithm": "mingen"},
        "output": {"path": "release.csv"},
    }
    doc["model"]["criteria"] = [entry]  # type: ignore[index]
    (jobs / "job.toml").write_text(tomli_w.dumps(doc))
    levels, released = through_the_api(folder, case)
    monkeypatch.chdir(tmp_path)
    assert main(["anonymize", "--config", str(jobs / "job.toml")]) == 0
    assert rows(table(jobs / "release.csv")).equals(released)
    run = pa.Job.from_toml(jobs / "job.toml").run(write_job=False)
    assert isinstance(run, pa.JobRun) and run.searched and run.levels == levels


def test_a_number_stays_a_number(folder: Path) -> None:
    doc = {
        "input": {"path": "study.csv"},
        "model": {"quasi_identifiers": QIS, "k": 1},
        "output": {"path": "out.csv"},
    }
    doc["model"]["criteria"] = [{"type": "kmap", "k": 5, "population": 300000}]
    job = pa.Job.from_dict(doc, folder / "data")
    assert job.criteria[0]["population"] == 300000
    assert criterion(job.criteria[0]) == pa.KMap(5, population=300000)


def test_a_path_holding_a_colon(
    folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--kmap 20:a:b.parquet:0.05`` reads the file ``a:b.parquet``, which
    exists (a path on Windows holds one: C:\\people.csv)."""
    for name in ("people.parquet", "study.csv"):
        target = "a:b.parquet" if name == "people.parquet" else name
        (tmp_path / target).write_bytes((folder / "data" / name).read_bytes())
    levels, _ = through_the_api(folder, KMAP)
    monkeypatch.chdir(tmp_path)
    assert main(argv("search", KMAP.sup, "--kmap", "20:a:b.parquet:0.05")) == 0
    assert printed(capsys.readouterr().out, "preferred (min_loss):") == levels


def _refused(capsys: pytest.CaptureFixture[str], args: list[str], *words: str) -> None:
    """`args` exit with 2 and one line on stderr naming each of `words`."""
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert all(w in err for w in words), err


def test_refusals_name_the_option_and_the_value(
    folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(folder / "data")
    d, out = "--d-presence", ["--out", str(tmp_path / "no.csv")]
    _refused(capsys, argv("search", 0, "--kmap", "5:nope.csv"), "--kmap", "nope.csv", "not exist")
    missing = str(tmp_path / "missing" / "people.csv")
    _refused(capsys, argv("anonymize", 0, d, f"0:0.5:{missing}", *out), d, missing, "not exist")
    _refused(capsys, argv("check", 0, d, "x:0.5:people.csv"), d, "d_min", "'x'")
    _refused(capsys, argv("search", 0, d, "0.1:people.csv"), d, "D_MIN:D_MAX:POPULATION")
    _refused(capsys, argv("search", 0, d, "0.5:0.1:people.csv"), d, "d_max", "out of range")
    # a job file's: the key and the path
    doc = {
        "input": {"path": str(folder / "data" / "study.csv"), "separator": ";"},
        "model": {"quasi_identifiers": QIS, "k": 1},
        "hierarchies": {q: {"path": str(HIERARCHIES / f"{q}.csv")} for q in QIS},
        "output": {"path": str(tmp_path / "no.csv")},
    }
    doc["model"]["criteria"] = [{"type": "kmap", "k": 5, "population": "nope.csv"}]
    (tmp_path / "job.toml").write_text(tomli_w.dumps(doc))
    with pytest.raises(pa.ConfigError, match=r"criteria: kmap population.*nope\.csv.*not exist"):
        pa.Job.from_toml(tmp_path / "job.toml").run()
    _refused(capsys, ["anonymize", "--config", str(tmp_path / "job.toml")], "nope.csv")
    dpresence = {"type": "d_presence", "d_min": "x", "d_max": 0.5, "population": "people.csv"}
    doc["model"]["criteria"] = [dpresence]
    with pytest.raises(pa.ConfigError, match="DPresence: d_min must be a number, got 'x'"):
        pa.Job.from_dict(doc, folder / "data").run()
    assert not (tmp_path / "no.csv").exists()


def test_a_table_in_memory_is_not_written_to_a_job(folder: Path) -> None:
    with pytest.raises(pa.ConfigError, match="DPresence: its population is a table in memory"):
        criterion_spec(pa.DPresence(0.0, 0.5, population=people(folder)))
    # read from its file, it is written as its path
    read = population_file(folder / "data" / "people.csv", ";")
    people_csv = folder / "data" / "people.csv"
    assert criterion_spec(pa.DPresence(0.0, 0.5, population=read)) == {
        "type": "d_presence",
        "d_min": 0.0,
        "d_max": 0.5,
        "population_sha256": hashlib.sha256(people_csv.read_bytes()).hexdigest(),
        "population": str(people_csv.resolve()),
    }
    # read back, a population changed since is refused, naming it
    spec = criterion_spec(pa.DPresence(0.0, 0.5, population=read))
    assert isinstance(criterion(spec, ";"), pa.DPresence)
    people_csv.write_text(people_csv.read_text() + people_csv.read_text().splitlines()[-1] + "\n")
    with pytest.raises(pa.ConfigError, match=r"d_presence population .*people\.csv' changed"):
        criterion(spec, ";")


def test_risk_takes_a_population_file_and_reports_what_the_api_does(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = folder / "data"
    args = ["risk", str(data / "study.csv"), "--sep", ";", "--qi", ",".join(QIS)]
    args += ["--hierarchies", str(HIERARCHIES), "--levels", "age=1"]
    hs = {q: pa.Hierarchy.from_csv(HIERARCHIES / f"{q}.csv") for q in QIS}
    study = table(data / "study.csv")
    for population in (data / "people.csv", data / "people.parquet"):
        assert main([*args, "--population", str(population)]) == 0
        # (another test of this module adds a row to people.csv)
        read = pl.read_parquet(population) if population.suffix == ".parquet" else people(folder)
        expected = pa.risk(study, QIS, hs, {"age": 1}, population=read)
        assert capsys.readouterr().out.strip() == str(expected).strip()
    assert main([*args, "--population", "163_000"]) == 0
    expected = pa.risk(study, QIS, hs, {"age": 1}, population=163_000)
    assert capsys.readouterr().out.strip() == str(expected).strip()
    assert main([*args, "--population", str(data / "nope.csv")]) == 2
    assert "neither a number of records nor a file" in capsys.readouterr().err
