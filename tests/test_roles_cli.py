"""Column roles on the command line and in job files (issue 34): an
identifying column is refused until it is declared, dropped, pseudonymized
or masked as asked, and no key reaches a file the library writes."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import polars as pl
import pytest
import tomllib

import polars_anon as pa
from polars_anon.cli import main, parser
from polars_anon.cli.options import qis_of
from polars_anon.jobs.job import Job
from polars_anon.roles.spec import roles_of

KEY = "a-test-key-of-more-than-16-bytes"
QIS = ["sex", "age", "race"]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """Adult's first 1000 rows with a social security number and a name
    (one distinct value per row), and the quasi-identifiers' hierarchies."""
    lf, hs = pa.datasets.adult()
    df = (
        lf.head(1000)
        .collect()
        .with_row_index("i")
        .with_columns(
            ssn=pl.format(
                "{}-{}-{}",
                (pl.col("i") % 900 + 100).cast(pl.String),
                (pl.col("i") % 90 + 10).cast(pl.String),
                (pl.col("i") + 1000).cast(pl.String),
            ),
            name=pl.format("Person {}", pl.col("i")),
        )
        .drop("i")
    )
    assert df.get_column("ssn").n_unique() == df.height == 1000
    df.write_csv(tmp_path / "people.csv")
    (tmp_path / "h").mkdir()
    for q in QIS:
        (tmp_path / "h" / f"{q}.csv").write_text(hs[q].to_csv())
    return tmp_path


def cli(table: Path, out: str, *options: str) -> list[str]:
    return [
        "anonymize",
        str(table / "people.csv"),
        "--qi",
        ",".join(QIS),
        "--hierarchies",
        str(table / "h"),
        "--k",
        "5",
        "--max-suppression",
        "5%",
        "--out",
        str(table / out),
        *options,
    ]


def pseudonym(value: str, key: str = KEY, length: int = 32) -> str:
    return hmac.new(key.encode(), value.encode(), hashlib.sha256).hexdigest()[:length]


def no_key_in(folder: Path, key: str = KEY) -> None:
    """Every file under `folder` read as bytes: the key is in none of them."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert files
    for p in files:
        assert key.encode() not in p.read_bytes(), p


def test_an_undeclared_identifier_is_refused_by_name(
    table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(cli(table, "out.csv")) == 2
    err = capsys.readouterr().err
    assert "ssn" in err and "name" in err and "ConfigError" in err
    assert "--identifier" in err and "--insensitive" in err and err.count("\n") == 1
    # the ways out in the command line's words only, not the API's
    assert "Declare them: --identifier COL" in err and "identifiers=" not in err
    assert "pa.Mask" not in err
    assert not (table / "out.csv").exists()
    # declaring one is not enough while the other has no role
    assert main(cli(table, "out.csv", "--identifier", "ssn")) == 2
    err = capsys.readouterr().err
    assert "'name'" in err and "'ssn'" not in err


def test_identifiers_dropped_and_insensitive_passed_through(
    table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(cli(table, "out.csv", "--identifier", "ssn", "--insensitive", "name")) == 0
    printed = capsys.readouterr().out
    out = pl.read_csv(table / "out.csv")
    source = pl.read_csv(table / "people.csv")
    assert "ssn" not in out.columns
    assert out.columns == [c for c in source.columns if c != "ssn"]
    # name unchanged, row by row (suppressed rows aside)
    assert set(out.get_column("name")) <= set(source.get_column("name"))
    assert out.height >= 950 and out.get_column("name").n_unique() == out.height
    assert pa.check(out, QIS, 5, insensitive=["name"]).min_group_size >= 5
    assert "ssn" in printed and "dropped" in printed
    # the resolved job records the roles and what became of each column
    resolved = tomllib.loads((table / "out.csv.job.toml").read_text())
    assert resolved["columns"] == {"identifiers": {"ssn": "drop"}, "insensitive": ["name"]}
    fates = resolved["result"]["columns"]
    assert list(fates) == source.columns
    assert fates["ssn"] == "identifier: dropped"
    assert fates["name"].startswith("insensitive: passed through")
    assert fates["age"].startswith("quasi-identifier: ")
    assert fates["education"].startswith("undeclared: passed through")
    # the job again, its identifier made insensitive beside it: refused
    job = str(table / "out.csv.job.toml")
    again = ["anonymize", "--config", job, "--insensitive", "ssn", "--out", str(table / "b.csv")]
    assert main(again) == 2
    assert "column ssn, declared an identifier, now insensitive" in capsys.readouterr().err
    assert not (table / "b.csv").exists()


def test_a_repeated_qi_adds_to_the_others(table: Path) -> None:
    """--qi a --qi b kept only b: a was then released raw, as a column of no
    role (helper-89's trial); repeated, like --identifier, each adds."""
    argv = ["search", str(table / "people.csv"), "--qi", "age,race", "--qi", "sex", "--k", "2"]
    assert qis_of(parser().parse_args(argv)) == ["age", "race", "sex"]


def test_comma_separated_roles(table: Path) -> None:
    assert main(cli(table, "out.parquet", "--identifier", "ssn,name")) == 0
    out = pl.read_parquet(table / "out.parquet")
    assert "ssn" not in out.columns and "name" not in out.columns


def test_keyed_pseudonyms_from_an_environment_variable(
    table: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PA_TEST_KEY", KEY)
    options = ["--identifier", "ssn=pseudonym", "--key-env", "PA_TEST_KEY"]
    code = main(cli(table, "out.csv", *options, "--insensitive", "name"))
    assert code == 0, capsys.readouterr().err
    out = pl.read_csv(table / "out.csv")
    source = pl.read_csv(table / "people.csv")
    by_name = dict(zip(source.get_column("name"), source.get_column("ssn"), strict=True))
    assert out.height >= 950
    for name, ssn in out.select("name", "ssn").iter_rows():
        assert ssn == pseudonym(by_name[name])
    resolved = tomllib.loads((table / "out.csv.job.toml").read_text())
    assert resolved["columns"]["identifiers"]["ssn"] == {"key_env": "PA_TEST_KEY", "length": 32}
    assert resolved["result"]["columns"]["ssn"].startswith("identifier: pseudonymized")
    no_key_in(table)
    # the resolved job replays the release, key read again from the environment
    again = table / "again.csv"
    assert (
        main(["anonymize", "--config", str(table / "out.csv.job.toml"), "--out", str(again)]) == 0
    )
    assert pl.read_csv(again).equals(out)
    # another key, other pseudonyms
    monkeypatch.setenv("PA_TEST_KEY", "another key of sixteen bytes or more")
    assert main(cli(table, "other.csv", *options, "--insensitive", "name")) == 0
    other = pl.read_csv(table / "other.csv")
    assert not set(other.get_column("ssn")) & set(out.get_column("ssn"))


def test_pseudonym_length_key_file_and_mask(
    table: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    secrets = tmp_path_factory.mktemp("secrets")
    (secrets / "key.txt").write_text(KEY + "\n")
    options = [
        "--identifier",
        "ssn=pseudonym:16",
        "--key-file",
        str(secrets / "key.txt"),
        "--identifier",
        "name=mask:1",
    ]
    # the last 3 characters of "Person 0" .. "Person 999" still name each
    # record: refused, nothing written
    assert main(cli(table, "out.csv", *options[:-1], "name=mask:3")) == 2
    err = capsys.readouterr().err
    assert "masked identifier 'name'" in err and "1,000 distinct values" in err
    assert not (table / "out.csv").exists()
    assert main(cli(table, "out.csv", *options)) == 0, capsys.readouterr().err
    out = pl.read_csv(table / "out.csv")
    source = pl.read_csv(table / "people.csv")
    hashed = {pseudonym(s, length=16): n for s, n in source.select("ssn", "name").iter_rows()}
    for ssn, name in out.select("ssn", "name").iter_rows():
        original = hashed[ssn]
        assert name == "*" * (len(original) - 1) + original[-1:]
    resolved = tomllib.loads((table / "out.csv.job.toml").read_text())
    ids = resolved["columns"]["identifiers"]
    assert Path(ids["ssn"]["key_file"]).resolve() == (secrets / "key.txt").resolve()
    assert ids["ssn"]["length"] == 16
    assert ids["name"] == {"mask": {"keep_first": 0, "keep_last": 1, "char": "*"}}
    no_key_in(table)


def test_random_pseudonyms_kept_in_a_table(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mapping = table / "pseudonyms" / "ssn.parquet"
    mapping.parent.mkdir()
    options = ["--identifier", f"ssn=table:{mapping}", "--identifier", "name"]
    assert main(cli(table, "out.csv", *options)) == 0, capsys.readouterr().err
    out = pl.read_csv(table / "out.csv")
    pairs = pl.read_parquet(mapping)
    assert set(pairs.columns) >= {"value", "pseudonym"}
    assert set(out.get_column("ssn")) <= set(pairs.get_column("pseudonym"))
    assert not set(out.get_column("ssn")) & set(pl.read_csv(table / "people.csv")["ssn"])
    resolved = tomllib.loads((table / "out.csv.job.toml").read_text())
    assert resolved["columns"]["identifiers"]["ssn"]["table"] == "pseudonyms/ssn.parquet"


@pytest.mark.parametrize(
    ("options", "names", "hidden"),
    [
        (["--identifier", "ssn=pseudonym"], ["ssn", "--key-env", "--key-file"], None),
        (["--identifier", "ssn=" + KEY], ["ssn", "unknown"], KEY),
        (["--identifier", "ssn=pseudonym:" + KEY, "--key-env", "X"], ["ssn"], KEY),
        # (a mask holds no key: the message says nothing of keys)
        (["--identifier", "ssn=mask:x"], ["ssn", "mask:N"], "key"),
        (["--identifier", "ssn=mask:-2"], ["ssn", "mask:N", ">= 0"], "key"),
        (["--identifier", "ssn=pseudonym:4", "--key-env", "X"], ["ssn", "length"], None),
        (["--identifier", "ssn=table:ssn.txt"], ["ssn", ".parquet"], None),
        (["--identifier", "ssn", "--key-env", "X"], ["--key-env", "pseudonym"], None),
        (["--identifier", "ssn,ssn=mask"], ["ssn", "more than once"], None),
        (["--identifier", "ssn", "--insensitive", "ssn,name"], ["ssn", "both"], None),
        (["--identifier", "nosuch,ssn", "--insensitive", "name"], ["nosuch"], None),
        (["--identifier", "age,ssn", "--insensitive", "name"], ["age", "quasi"], None),
        (["--identifier", "=mask"], ["column"], None),
    ],
)
def test_bad_roles_are_refused_by_name(
    table: Path,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    names: list[str],
    hidden: str | None,
) -> None:
    assert main(cli(table, "out.csv", *options)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    for n in names:
        assert n in err, err
    if hidden is not None:
        assert hidden not in err
    assert not (table / "out.csv").exists()


def test_check_and_search_take_the_roles(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = [str(table / "people.csv"), "--qi", ",".join(QIS), "--hierarchies", str(table / "h")]
    roles = ["--identifier", "ssn", "--insensitive", "name"]
    # a check reports what a release would do with each column
    main(["check", *common, "--levels", "age=2,sex=0,race=1", *roles])
    printed = capsys.readouterr().out
    assert "ssn" in printed and "dropped" in printed
    assert main(["search", *common, *roles]) == 0
    assert "SearchResult" in capsys.readouterr().out
    assert main(["search", *common, "--identifier", "nosuch"]) == 2
    assert "nosuch" in capsys.readouterr().err


def test_the_role_options_are_documented(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("anonymize", "search", "check"):
        assert main([command, "--help"]) == 0
        text = capsys.readouterr().out
        for flag in ("--identifier", "--insensitive", "--key-env", "--key-file"):
            assert flag in text


JOB = """
[input]
path = "people.csv"

[model]
quasi_identifiers = ["sex", "age", "race"]
k = 5
max_suppression = "5%"

[hierarchies.sex]
path = "h/sex.csv"

[hierarchies.age]
path = "h/age.csv"

[hierarchies.race]
path = "h/race.csv"

[columns]
insensitive = ["education"]

[columns.identifiers]
ssn = { key_env = "PA_TEST_KEY", length = 32 }
name = { mask = { keep_last = 2 } }

[output]
path = "out/release.parquet"
"""


def test_a_job_file_with_columns_runs_and_writes_no_key(
    table: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PA_TEST_KEY", KEY)
    (table / "out").mkdir()
    (table / "job.toml").write_text(JOB)
    job = Job.from_toml(table / "job.toml")
    assert job.roles == roles_of(
        {"ssn": pa.Pseudonym(key_env="PA_TEST_KEY"), "name": pa.Mask(keep_last=2)},
        ["education"],
    )
    assert main(["anonymize", "--config", str(table / "job.toml")]) == 0, capsys.readouterr().err
    out = pl.read_parquet(table / "out" / "release.parquet")
    source = pl.read_csv(table / "people.csv")
    expected = {pseudonym(s): n for s, n in source.select("ssn", "name").iter_rows()}
    assert out.height >= 950
    for ssn, name in out.select("ssn", "name").iter_rows():
        assert name == "*" * (len(expected[ssn]) - 2) + expected[ssn][-2:]
    job_file = table / "out" / "release.parquet.job.toml"
    resolved = tomllib.loads(job_file.read_text())
    assert resolved["columns"] == {
        "identifiers": {
            "ssn": {"key_env": "PA_TEST_KEY", "length": 32},
            "name": {"mask": {"keep_first": 0, "keep_last": 2, "char": "*"}},
        },
        "insensitive": ["education"],
    }
    fates = resolved["result"]["columns"]
    assert set(fates) == set(source.columns)
    assert fates["name"] == (
        "identifier: masked (last 2 kept; values of 2 characters or fewer all masked)"
    )
    assert fates["education"].startswith("insensitive: ")
    no_key_in(table)
    # the resolved job reads back as the same roles, and replays the release
    assert Job.from_toml(job_file).roles == job.roles
    assert (
        main(["anonymize", "--config", str(job_file), "--out", str(table / "again.parquet")]) == 0
    )
    assert pl.read_parquet(table / "again.parquet").equals(out)
    # the command line's roles are added to the job's
    code = main(
        [
            "anonymize",
            "--config",
            str(table / "job.toml"),
            "--identifier",
            "workclass",
            "--out",
            str(table / "more.parquet"),
        ]
    )
    assert code == 0
    assert "workclass" not in pl.read_parquet(table / "more.parquet").columns
    no_key_in(table)


def test_a_job_with_a_key_given_in_code_cannot_be_saved(table: Path) -> None:
    job = Job(
        input=table / "people.csv",
        quasi_identifiers=QIS,
        k=5,
        output=table / "release.parquet",
        hierarchies={q: {"path": str(table / "h" / f"{q}.csv")} for q in QIS},
        max_suppression=0.05,
        roles=roles_of({"ssn": pa.Pseudonym(key=KEY)}, ["name"]),
    )
    with pytest.raises(pa.ConfigError, match="ssn") as e:
        job.to_dict()
    assert "key_env" in str(e.value) and KEY not in str(e.value)
    with pytest.raises(pa.ConfigError, match="ssn") as e:
        job.run()
    assert KEY not in str(e.value)
    assert not (table / "release.parquet").exists()
    # run without writing a job file: the release is made, with the key's pseudonyms
    run = job.run(write_job=False)
    out = pl.read_parquet(table / "release.parquet")
    assert run.rows_released == out.height
    source = pl.read_csv(table / "people.csv")
    by_name = dict(zip(source.get_column("name"), source.get_column("ssn"), strict=True))
    assert all(s == pseudonym(by_name[n]) for n, s in out.select("name", "ssn").iter_rows())
    no_key_in(table)


@pytest.mark.parametrize(
    ("entry", "names"),
    [
        (f'ssn = "{KEY}"', ["ssn", "drop"]),
        (f'ssn = {{ key = "{KEY}" }}', ["ssn", "never written", "key_env"]),
        ('ssn = { key_env = "A", table = "t.parquet" }', ["ssn", "one of"]),
        ('ssn = { key_env = "A", length = 4 }', ["ssn", "length"]),
        ('ssn = { salt = "x" }', ["ssn", "salt"]),
        ("ssn = { mask = { keep_last = -1 } }", ["ssn", "keep_last"]),
        ("ssn = { mask = { last = 2 } }", ["ssn", "last"]),
        ('ssn = { table = "ssn.txt" }', ["ssn", ".parquet"]),
    ],
)
def test_bad_columns_tables_are_refused_by_name(table: Path, entry: str, names: list[str]) -> None:
    text = JOB.replace('ssn = { key_env = "PA_TEST_KEY", length = 32 }', entry)
    assert entry in text
    (table / "job.toml").write_text(text)
    with pytest.raises(pa.ConfigError) as e:
        Job.from_toml(table / "job.toml")
    for n in names:
        assert n in str(e.value), str(e.value)
    assert KEY not in str(e.value)


def test_columns_table_paths_are_relative_to_the_job_file(table: Path) -> None:
    text = JOB.replace(
        'ssn = { key_env = "PA_TEST_KEY", length = 32 }',
        'ssn = { table = "pseudonyms/ssn.csv" }\nworkclass = { key_file = "keys/k.txt" }',
    ).replace('insensitive = ["education"]', 'insensitive = ["education"]\nunknown = 1')
    (table / "job.toml").write_text(text)
    with pytest.raises(pa.ConfigError, match="unknown"):
        Job.from_toml(table / "job.toml")
    (table / "job.toml").write_text(text.replace("unknown = 1\n", ""))
    job = Job.from_toml(table / "job.toml")
    ssn, workclass = job.roles.identifiers["ssn"], job.roles.identifiers["workclass"]
    assert isinstance(ssn, pa.Pseudonym) and isinstance(workclass, pa.Pseudonym)
    assert ssn.table == table / "pseudonyms" / "ssn.csv"
    assert workclass.key_file == table / "keys" / "k.txt"
    doc = job.to_dict(relative_to=table)
    assert doc["columns"]["identifiers"]["ssn"] == {"table": "pseudonyms/ssn.csv", "length": 32}
    assert doc["columns"]["identifiers"]["workclass"] == {"key_file": "keys/k.txt", "length": 32}
    assert Job.from_dict(doc, table).roles == job.roles


def test_columns_with_no_role_passed_through_are_noted_in_the_command_lines_words(
    table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A release that passes columns with no role through prints a note on
    stderr naming them with the options (or the job file's keys) that
    declare them; declared, nothing is noted."""
    rest = [c for c in pl.read_csv(table / "people.csv").columns if c not in [*QIS, "ssn", "name"]]
    assert main(cli(table, "a.csv", "--identifier", "ssn,name")) == 0
    err = capsys.readouterr().err
    assert err.count("polars-anon: note: columns with no role released unchanged: ") == 1
    assert "than half the rows that hold one" in err
    assert f"{rest[0]} (" in err and "distinct values" in err
    assert f"--insensitive {','.join(rest)} to release them as they are" in err
    assert f"--identifier {','.join(rest)} to drop them" in err
    assert "insensitive=[" not in err and "UndeclaredColumnsWarning" not in err
    # the job re-run: the job file's words
    job = str(table / "a.csv.job.toml")
    assert main(["anonymize", "--config", job, "--out", str(table / "b.csv")]) == 0
    err = capsys.readouterr().err
    assert f'under [columns], insensitive = ["{rest[0]}", ' in err
    assert f'identifiers = {{ "{rest[0]}" = "drop", ' in err and "--insensitive" not in err
    # declared: no note
    declared = ["--identifier", "ssn,name", "--insensitive", ",".join(rest)]
    assert main(cli(table, "c.csv", *declared)) == 0
    assert "note:" not in capsys.readouterr().err
