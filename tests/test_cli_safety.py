"""The command line and job files never write over what a run reads, never
take a job file's settings from options they ignore, and refuse what they
cannot honour (unknown keys, a hierarchy of a missing column or changed
since its job was resolved, an encoding DuckDB cannot read, an output
suffix that names no format) by name, before any work."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import polars as pl
import pytest
import tomllib

from polars_anon.cli import main
from polars_anon.release.guard import Guarded

ZIPS = ["01069", "02134", "10001"]


def _table(rows: int, seed: int) -> pl.DataFrame:
    r = random.Random(seed)
    return pl.DataFrame(
        {
            "id": [f"P{seed}{i:05d}" for i in range(rows)],
            "age": [r.randint(20, 79) for _ in range(rows)],
            "sex": [r.choice("FM") for _ in range(rows)],
            "zip": [r.choice(ZIPS) for _ in range(rows)],
            "city": [r.choice(["Köln", "Málaga", "Zürich"]) for _ in range(rows)],
            "diagnosis": [r.choice(["flu", "asthma", "cancer"]) for _ in range(rows)],
        }
    )


@pytest.fixture
def files(tmp_path: Path) -> Path:
    _table(300, 1).write_csv(tmp_path / "jan.csv")
    _table(300, 2).write_csv(tmp_path / "feb.csv")
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    (tmp_path / "zip.csv").write_text("".join(f"{z};{z[:3]}**;*\n" for z in ZIPS))
    (tmp_path / "age.json").write_text('{"builder": "interval", "widths": [10, 20]}')
    return tmp_path


def _model(f: Path) -> list[str]:
    return [
        "--qi",
        "age,sex,zip",
        "--hierarchy",
        f"age={f / 'age.json'}",
        "--hierarchy",
        f"sex={f / 'sex.csv'}",
        "--hierarchy",
        f"zip={f / 'zip.csv'}",
        "--k",
        "3",
        "--max-suppression",
        "5%",
        "--identifier",
        "id",
        "--insensitive",
        "city",
    ]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """`argv` exits with 2 and one line on stderr naming each of `words`."""
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert all(w in err for w in words), err
    return err


def _january(f: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """January's release (Parquet) and its job file; the job file's path."""
    assert main(["anonymize", str(f / "jan.csv"), *_model(f), "--out", str(f / "jan.parquet")]) == 0
    capsys.readouterr()
    return f / "jan.parquet.job.toml"


def test_out_that_is_a_file_the_run_reads_is_refused(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, sex = files / "jan.csv", files / "sex.csv"
    before = {p: p.read_bytes() for p in (data, sex)}
    spelled = str(files / "." / "jan.csv")
    _refused(capsys, ["anonymize", str(data), *_model(files), "--out", spelled], spelled, str(data))
    _refused(capsys, ["anonymize", str(data), *_model(files), "--out", str(sex)], str(sex))
    build = ["hierarchy", "build", "interval", str(data), "--column", "age", "--widths", "5"]
    _refused(capsys, [*build, "--out", str(data)], str(data), "the data")
    assert {p: p.read_bytes() for p in before} == before
    assert not list(files.glob("*.job.toml"))


def test_a_folder_where_a_file_goes_is_refused_before_any_work(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # found after the release was in place, the run failed having written
    # it (and a pseudonym table): now before anything is written
    data, out = files / "jan.csv", files / "out.parquet"
    model = [x if x != "id" else f"id=table:{files / 'ids.parquet'}" for x in _model(files)]
    (files / "out.parquet.job.toml").mkdir()
    _refused(capsys, ["anonymize", str(data), *model, "--out", str(out)], "resolved job", "folder")
    (files / "out.parquet.job.toml").rmdir()
    (files / "m.parquet.splits.parquet").mkdir()
    mondrian = ["anonymize", str(data), *model, "--algorithm", "mondrian"]
    _refused(capsys, [*mondrian, "--out", str(files / "m.parquet")], "the splits", "folder")
    out.mkdir()
    _refused(capsys, ["anonymize", str(data), *model, "--out", str(out)], "release", "folder")
    assert not (files / "m.parquet").exists() and not (files / "ids.parquet").exists()
    assert not list(files.glob("*.job.toml"))


def test_the_input_checksum_is_taken_before_the_release_is_written(
    files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recorded from what was read, not from the file after the write (a
    source changed while the release is written, or the release itself)."""
    data = files / "jan.csv"
    read = _sha(data)
    write = Guarded.write

    def write_then_change(self: Guarded, *args: object, **kwargs: object) -> Path:
        written = write(self, *args, **kwargs)  # type: ignore[arg-type]
        with data.open("a") as f:
            f.write("P9,30,F,10001,Köln,flu\n")
        return written

    monkeypatch.setattr(Guarded, "write", write_then_change)
    out = files / "r.csv"
    assert main(["anonymize", str(data), *_model(files), "--out", str(out)]) == 0
    job = tomllib.loads(Path(f"{out}.job.toml").read_text())
    assert job["input"]["sha256"] == read != _sha(data)


def test_new_data_with_a_job_file_needs_out(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = _january(files, capsys)
    release, before = files / "jan.parquet", {p: _sha(p) for p in (files / "jan.parquet", job)}
    argv = ["anonymize", "--config", str(job), str(files / "feb.csv")]
    _refused(capsys, argv, "give --out", str(release), "jan.csv")
    assert {p: _sha(p) for p in before} == before
    # the job's own input: its output written again
    assert main(["anonymize", "--config", str(job), str(files / "jan.csv")]) == 0
    # never the job file itself
    _refused(capsys, [*argv, "--out", str(job)], str(job), "the job file")


@pytest.mark.parametrize(
    ("option", "key"),
    [
        (["--k", "50"], "[model] k"),
        (["--max-suppression", "0"], "[model] max_suppression"),
        (["--engine", "duckdb"], "[input] engine"),
        (["--qi", "age"], "[model] quasi_identifiers"),
        (["--hierarchy", "sex=sex.csv"], "[hierarchies]"),
        (["--algorithm", "datafly"], "[search] algorithm"),
        (["--preference", "min_height"], "[search] preference"),
        (["--l-diversity", "diagnosis:2"], "[model] criteria"),
        (["--k", "5"], "[model] k"),  # the default value, given
    ],
)
def test_options_a_job_file_sets_are_refused_beside_it(
    files: Path, capsys: pytest.CaptureFixture[str], option: list[str], key: str
) -> None:
    job = _january(files, capsys)
    argv = ["anonymize", "--config", str(job), str(files / "feb.csv"), *option]
    _refused(capsys, [*argv, "--out", str(files / "feb.parquet")], option[0], key, "--config")
    assert not (files / "feb.parquet").exists()


def test_sep_and_encoding_beside_a_job_file_describe_new_data(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = _january(files, capsys)
    feb = files / "feb_semi.csv"
    feb.write_bytes(
        pl.read_csv(files / "feb.csv", infer_schema=False)
        .write_csv(separator=";")
        .encode("latin-1")
    )
    out = files / "feb.parquet"
    argv = ["anonymize", "--config", str(job), "--sep", ";", "--encoding", "latin-1"]
    assert main([*argv, str(feb), "--out", str(out)]) == 0
    resolved = tomllib.loads(Path(f"{out}.job.toml").read_text())["input"]
    assert (resolved["separator"], resolved["encoding"]) == (";", "latin-1")
    assert pl.read_parquet(out).height > 0
    # without DATA they would describe the job's own input: refused
    _refused(capsys, [*argv, "--out", str(files / "x.parquet")], "--sep", "--encoding")
    # into a CSV they would also write the output with DATA's separator
    # (the job's population tables, read with them, alike): refused
    csv_out = ["--out", str(files / "feb_out.csv")]
    _refused(capsys, [*argv, str(feb), *csv_out], "CSV output", "convert DATA")
    assert not (files / "feb_out.csv").exists()


@pytest.mark.parametrize(
    ("table", "typo"),
    [
        ("model", 'max_supression = "5%"'),
        ("search", 'algoritm = "datafly"'),
        ("input", 'seperator = ";"'),
        ("output", 'format = "csv"'),
    ],
)
def test_unknown_keys_of_a_job_table_are_refused(
    files: Path, capsys: pytest.CaptureFixture[str], table: str, typo: str
) -> None:
    job = _january(files, capsys)
    text = job.read_text().replace(f"[{table}]\n", f"[{table}]\n{typo}\n", 1)
    (files / "typo.toml").write_text(text)
    argv = ["anonymize", "--config", str(files / "typo.toml"), "--out", str(files / "t.csv")]
    _refused(capsys, argv, f"[{table}]", repr(typo.split(" ")[0]), "expected")


@pytest.mark.parametrize("command", ["check", "search", "risk", "anonymize"])
def test_a_hierarchy_of_a_column_the_data_lacks_is_refused(
    files: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    out = files / "typo.csv"
    argv = [
        command,
        str(files / "jan.csv"),
        "--qi",
        "sex",
        "--hierarchy",
        f"sex={files / 'sex.csv'}",
    ]
    argv += ["--hierarchy", f"zipp={files / 'zip.csv'}"]
    if command == "anonymize":
        argv += ["--identifier", "id", "--insensitive", "city", "--out", str(out)]
    _refused(capsys, argv, "'zipp'", "'zip'", "'age'")
    assert not out.exists()


def test_a_hierarchy_changed_since_its_job_is_refused(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = _january(files, capsys)
    feb = ["anonymize", "--config", str(job), str(files / "feb.csv")]
    assert main([*feb, "--out", str(files / "feb.parquet")]) == 0
    (files / "sex.csv").write_text("F;person\nM;person\n")
    out = files / "feb2.parquet"
    _refused(capsys, [*feb, "--out", str(out)], "sex.csv", "recorded sha256", "differ")
    assert not out.exists()


def test_duckdb_refuses_an_encoding_it_cannot_read(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("duckdb")
    latin = files / "latin.csv"
    latin.write_bytes((files / "jan.csv").read_text().encode("latin-1"))
    argv = ["anonymize", str(latin), "--encoding", "latin-1", *_model(files)]
    assert main([*argv, "--out", str(files / "polars.csv")]) == 0
    out = files / "duck.csv"
    _refused(capsys, [*argv, "--engine", "duckdb", "--out", str(out)], "latin-1", "UTF-8")
    assert not out.exists()


@pytest.mark.parametrize("name", ["r.arrow", "r.ipc", "r.feather", "r.pq", "r.txt", "r.csv.gz"])
def test_the_output_suffix_names_the_format(
    files: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    out = files / name
    argv = ["anonymize", str(files / "jan.csv"), *_model(files), "--out", str(out)]
    if out.suffix in (".arrow", ".ipc", ".feather"):
        assert main(argv) == 0
        assert pl.read_ipc(out).height > 0
        return
    _refused(capsys, argv, repr(out.suffix), ".parquet", ".csv", ".arrow")
    assert not out.exists() and not Path(f"{out}.job.toml").exists()


def test_messages_say_what_is_wrong(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(files / "jan.csv")
    build = ["hierarchy", "build", "interval", data, "--column", "zipp", "--widths", "5"]
    err = _refused(capsys, [*build, "--out", str(files / "h.csv")], "'zipp'", "'zip'")
    assert "the data: the data" not in err
    _refused(capsys, ["check", data, "--qi", "sex", "--hierarchy", f"sex={files}"], "folder")
    out = f"{data}/x.csv"
    err = _refused(capsys, ["anonymize", data, *_model(files), "--out", out], "is a file")
    assert "does not exist" not in err


def test_a_duckdb_csv_error_says_what_was_wrong_with_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the CLI printed DuckDB's first line only ("CSV Error on Line: 60002"),
    # which names the line but not what is wrong with it
    late = tmp_path / "late.csv"
    late.write_text("a;b\n" + "1;2\n" * 60_000 + " \n")
    argv = ["check", str(late), "--sep", ";", "--qi", "a", "--k", "1", "--engine", "duckdb"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Line: 60002" in err and "(Expected Number of Columns: 2 Found: 1)" in err, err
    # a small file's sniffer fails on it: what usually makes that, and the way out
    early = tmp_path / "early.csv"
    early.write_text("a;b\n1;2\n1;2\n \n")
    assert main([*argv[:1], str(early), *argv[2:]]) == 2
    err = capsys.readouterr().err
    assert "sniffing" in err and "a line of fewer fields" in err and "--sep" in err, err
    assert len(err.strip().splitlines()) == 1
