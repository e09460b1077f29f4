"""The command line: the README's main job, and the same on a user's files."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
import tomllib

import polars_anon as pa
from polars_anon.cli import main
from polars_anon.cli.words import in_cli_words
from polars_anon.criteria import TYPES
from polars_anon.jobs.tables import read_table
from polars_anon.reports.render import levels_text

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


def test_adult_writes_its_job_file_and_the_job_repeats_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As anonymize does, adult writes the resolved job beside the release,
    and running that job applies its levels again to the bundled table."""
    out = tmp_path / "adult.parquet"
    assert main(["adult", "--k", "5", "--out", str(out)]) == 0
    job_file = tmp_path / "adult.parquet.job.toml"
    assert f"wrote the resolved job to {job_file}" in capsys.readouterr().out
    job = pa.Job.from_toml(job_file)
    assert job.quasi_identifiers == list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    assert job.k == 5 and job.levels is not None
    # the search asked for, not the walk auto ran first under suppression
    assert main(["adult", "--k", "5", "--max-suppression", "0.05", "--out", str(out)]) == 0
    assert pa.Job.from_toml(job_file).algorithm == "auto"
    assert main(["adult", "--k", "5", "--out", str(out)]) == 0
    again = tmp_path / "again.parquet"
    assert main(["anonymize", "--config", str(job_file), "--out", str(again)]) == 0
    assert "recorded in the job file" in capsys.readouterr().out
    assert pl.read_parquet(again).sort(pl.all()).equals(pl.read_parquet(out).sort(pl.all()))


def test_the_options_come_from_the_registries(capsys: pytest.CaptureFixture[str]) -> None:
    """Each builder is a subcommand of hierarchy build with an option per
    parameter, and each criterion with an option is offered by search."""
    import dataclasses

    for kind, spec in pa.hierarchy.BUILDERS.items():
        assert main(["hierarchy", "build", kind, "--help"]) == 0
        text = capsys.readouterr().out
        for f in dataclasses.fields(spec):  # type: ignore[arg-type]
            assert f"--{f.name}" in text
        # a builder reads one column: no quasi-identifiers nor hierarchies offered
        assert "--qi" not in text and "--hierarchies" not in text and "--hierarchy " not in text
        assert "--hierarchy-sep" in text  # (the separator of the CSV it writes)
    assert main(["search", "--help"]) == 0
    text = capsys.readouterr().out
    offered = [c.option[0] for c in TYPES.values() if c.option is not None]
    assert len(offered) == 11
    assert all(flag in text for flag in offered)


def test_anonymize_a_csv_with_a_hierarchy_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = pa.datasets.data_dir() / "race_zip" / "race_zip.csv"
    out = tmp_path / "out.csv"
    code = main(
        [
            "anonymize",
            str(data),
            "--sep",
            ";",
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
    assert (
        main(
            ["anonymize", str(data), "--hierarchies", str(empty), "--qi", "Race", "--out", str(out)]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "ConfigError" in err and "no .csv hierarchy files" in err


@pytest.fixture
def adult_csv(tmp_path: Path) -> Path:
    lf, hs = pa.datasets.adult()
    path = tmp_path / "adult.csv"
    lf.collect().write_csv(path)
    (tmp_path / "h").mkdir()
    for q in ("sex", "race", "marital-status"):
        (tmp_path / "h" / f"{q}.csv").write_text(hs[q].to_csv())
    return path


def test_check_exits_1_when_not_anonymous(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    h = str(adult_csv.parent / "h")
    args = ["check", str(adult_csv), "--qi", "sex,race", "--hierarchies", h, "--k", "5"]
    assert main(args) == 0
    assert "k-anonymous" in capsys.readouterr().out
    args = [
        "check",
        str(adult_csv),
        "--qi",
        "sex,race,marital-status",
        "--hierarchies",
        h,
        "--k",
        "50",
        "--levels",
        "race=0",
    ]
    assert main(args) == 1
    assert main([*args[:-2], "--levels", "race=1,marital-status=1"]) == 0


def test_search_and_risk(adult_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    h = str(adult_csv.parent / "h")
    assert (
        main(
            [
                "search",
                str(adult_csv),
                "--qi",
                "sex,race,marital-status",
                "--hierarchies",
                h,
                "--k",
                "10",
                "--max-suppression",
                "1%",
                "--preference",
                "min_height",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    frame = pl.read_csv(adult_csv)
    hs = pa.read_hierarchies(adult_csv.parent / "h")
    best = pa.search(frame, ["sex", "race", "marital-status"], hs, 10, 0.01).best("min_height")
    assert f"preferred (min_height): {levels_text(best)}\n" in out
    # the preference is known before the search: the walk by height answers
    # it under suppression, and nothing else runs (the summary is the answer's)
    assert re.search(r"algorithm +optimal\n", out) and "ran first" not in out
    argv = ["search", str(adult_csv), "--qi", "sex,race,marital-status", "--hierarchies", h]
    assert main([*argv, "--k", "10", "--max-suppression", "1%", "--preference", "min_aecs"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"algorithm +incognito \(cube\)\n", out) and "ran first" not in out
    best = pa.search(frame, ["sex", "race", "marital-status"], hs, 10, 0.01).best("min_aecs")
    assert f"preferred (min_aecs): {levels_text(best)}\n" in out
    assert (
        main(
            [
                "risk",
                str(adult_csv),
                "--qi",
                "sex,race",
                "--hierarchies",
                h,
                "--population",
                "3000000",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "highest prosecutor risk" in out and "journalist" in out


def test_hierarchy_build_writes_arx_csv_and_specs(
    adult_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the same build written as ARX's CSV and, by its suffix, as a JSON spec
    csv, spec = tmp_path / "age.csv", tmp_path / "age.json"
    for out in (csv, spec):
        args = ["hierarchy", "build", "interval", str(adult_csv), "--column", "age"]
        assert main([*args, "--widths", "5,10,20", "--out", str(out)]) == 0
    frame = pl.read_csv(adult_csv)
    built = pa.hierarchy.interval(frame.get_column("age"), widths=[5, 10, 20])
    assert sorted(pa.Hierarchy.from_csv(csv).rows) == sorted(built.rows)
    rebuilt = pa.hierarchy.from_json(spec.read_text()).build(frame.get_column("age"))
    assert sorted(rebuilt.rows) == sorted(built.rows)
    # a spec file works wherever a hierarchy file does
    assert (
        main(
            [
                "check",
                str(adult_csv),
                "--qi",
                "age",
                "--hierarchy",
                f"age={spec}",
                "--k",
                "2",
                "--levels",
                "age=2",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "hierarchy",
                "build",
                "ordered",
                str(adult_csv),
                "--column",
                "race",
                "--order",
                "White,Black",
                "--sizes",
                "2",
                "--out",
                str(csv),
            ]
        )
        == 2
    )
    assert "not in the order" in capsys.readouterr().err
    # a suffix that is neither was written as CSV: refused before any work
    xml = tmp_path / "age.xml"
    args = ["hierarchy", "build", "interval", str(adult_csv), "--column", "age"]
    assert main([*args, "--widths", "5", "--out", str(xml)]) == 2
    assert "as a .csv file" in capsys.readouterr().err and not xml.exists()


def test_anonymize_writes_a_job_file_and_runs_it_on_new_data(
    adult_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "release.csv"
    h = str(adult_csv.parent / "h")
    assert (
        main(
            [
                "anonymize",
                str(adult_csv),
                "--qi",
                "sex,race,marital-status",
                "--hierarchies",
                h,
                "--k",
                "5",
                "--max-suppression",
                "2%",
                "--l-diversity",
                "salary-class:2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    job = out.parent / "release.csv.job.toml"
    assert job.is_file()
    again = tmp_path / "again.parquet"
    assert main(["anonymize", "--config", str(job), str(adult_csv), "--out", str(again)]) == 0
    printed = capsys.readouterr().out
    assert "recorded in the job file, re-checked" in printed
    first, second = pl.read_csv(out), pl.read_parquet(again)
    assert first.sort(first.columns).equals(second.sort(second.columns).cast(first.schema))


@pytest.mark.parametrize(
    ("encoding", "engine"), [("utf8", "polars"), ("latin-1", "polars"), ("utf8", "duckdb")]
)
def test_numbers_written_with_leading_zeros_stay_as_written(
    tmp_path: Path, encoding: str, engine: str
) -> None:
    # read as numbers, ZIP 01069 would be released as 1069
    path = tmp_path / "zips.csv"
    rows = [
        "zip;age;code;x",
        *(
            f"{z};{a};{c};{x}"
            for z, a, c, x in [
                ("01069", 30, "5", "1.5"),
                ("01069", 30, "-007", "2.5"),
                ("20000", 31, "8", "3"),
                ("20000", 31, "9", "4"),
            ]
        ),
    ]
    path.write_bytes("\n".join(rows).encode(encoding))
    out = tmp_path / "out.csv"
    args = ["anonymize", str(path), "--sep", ";", "--encoding", encoding, "--qi", "zip,age"]
    args += ["--engine", engine]
    assert main([*args, "--k", "2", "--out", str(out)]) == 0
    release = pl.read_csv(out, separator=";", infer_schema=False)
    assert release.get_column("zip").to_list() == ["01069", "01069", "20000", "20000"]
    assert release.get_column("code").to_list() == ["5", "-007", "8", "9"]
    # numbers without leading zeros are still numbers
    assert pl.read_csv(out, separator=";").schema["age"] == pl.Int64


def test_nulls_as_a_value_on_the_command_line_and_in_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ages = [None, 23, 27, 31, None, 38, 44, 47, 52, None] * 3
    table = pl.DataFrame({"age": ages, "sex": ["f", "m", None] * 10})
    path = tmp_path / "holes.csv"
    table.write_csv(path)
    spec = tmp_path / "age.json"
    spec.write_text('{"builder": "interval", "widths": [10, 20]}')
    out = tmp_path / "out.csv"
    base = ["anonymize", str(path), "--qi", "age,sex", "--k", "3", "--out", str(out)]
    base += ["--hierarchy", f"age={spec}"]
    assert main(base) == 2
    assert "null" in capsys.readouterr().err
    assert main([*base, "--nulls", "value"]) == 0
    release = pl.read_csv(out, infer_schema=False)
    assert release.height == 30  # nothing suppressed: k = 3 met with nulls as a value
    sizes = release.group_by("age", "sex").len().get_column("len")
    assert sizes.min() >= 3
    # a null age goes to the top (the hierarchy has no row for it); a null
    # sex, kept at level 0, stays null
    assert release.filter(pl.col("age") == "*").height == 9
    assert release.get_column("sex").null_count() == 10
    job = Path(f"{out}.job.toml")
    assert 'nulls = "value"' in job.read_text()
    # the job file repeats it; the other commands take the option too
    assert main(["anonymize", "--config", str(job), "--out", str(tmp_path / "again.csv")]) == 0
    again = pl.read_csv(tmp_path / "again.csv", infer_schema=False)
    assert again.sort(again.columns, nulls_last=True).equals(
        release.sort(release.columns, nulls_last=True)
    )
    # the release's risk read without hierarchies: its nulls are values of it
    capsys.readouterr()
    assert main(["risk", str(out), "--qi", "age,sex"]) == 0
    assert "records / classes        30 / " in capsys.readouterr().out
    for command in ("check", "search", "risk"):
        args = [command, str(path), "--qi", "age,sex", "--hierarchy", f"age={spec}"]
        args += ["--k", "3"] if command != "risk" else []
        assert main(args) == 2, command  # the nulls refused
        # check: exit 1, not anonymous at the leaves (2 would be an error)
        assert main([*args, "--nulls", "value"]) == (1 if command == "check" else 0), command
    built = tmp_path / "age.csv"
    assert (
        main(["hierarchy", "build", "masking", str(path), "--column", "age", "--out", str(built)])
        == 2
    )
    assert (
        main(
            [
                "hierarchy",
                "build",
                "masking",
                str(path),
                "--column",
                "age",
                "--nulls",
                "value",
                "--out",
                str(built),
            ]
        )
        == 0
    )
    mondrian = [*base, "--nulls", "value", "--algorithm", "mondrian"]
    assert main(mondrian) == 2
    assert "nulls" in capsys.readouterr().err


def test_a_closed_pipe_and_an_interrupt_end_quietly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from polars_anon.cli import commands

    path = tmp_path / "t.csv"
    pl.DataFrame({"city": ["a", "a", "b", "b"]}).write_csv(path)
    argv = ["check", str(path), "--qi", "city", "--k", "2"]

    def stop(error: BaseException) -> None:
        def run(args: object) -> int:
            raise error

        monkeypatch.setattr(commands, "check_command", run)

    # `... | head -1`: the work is done, the rest of the report goes nowhere
    stop(BrokenPipeError())
    assert main(argv) == 0 and capsys.readouterr().err == ""
    # Ctrl-C: one line, no traceback
    stop(KeyboardInterrupt())
    assert main(argv) == 130
    assert capsys.readouterr().err.strip() == "polars-anon: interrupted"


def test_other_encodings_and_separators(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("city|n\nMünchen|1\nMünchen|2\nKöln|3\nKöln|4\n".encode("latin-1"))
    assert (
        main(
            ["check", str(path), "--qi", "city", "--k", "2", "--sep", "|", "--encoding", "latin-1"]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["check", str(path), "--qi", "city", "--k", "2", "--sep", "|"]) == 2
    # read as UTF-8, the file and the way out are named
    err = capsys.readouterr().err
    assert "latin.csv" in err and "--encoding" in err
    # a job's input: no DATA to name, the job's key is named
    job = tmp_path / "job.toml"
    job.write_text(
        '[input]\npath = "latin.csv"\nseparator = "|"\n[model]\nquasi_identifiers = ["city"]\n'
        'k = 2\n[columns]\ninsensitive = ["n"]\n[output]\npath = "out.csv"\n'
    )
    assert main(["anonymize", "--config", str(job)]) == 2
    err = capsys.readouterr().err
    assert "utf-8" in err and "under [input]" in err and not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "missing.csv", "--qi", "a"], "no such file"),
        (["check", "{csv}", "--qi", "nope"], "unknown column"),
        (["check", "{csv}"], "--qi"),
        (["check", "{csv}", "--qi", "sex", "--levels", "sex"], "column=level"),
        (["check", "{csv}", "--qi", "sex", "--hierarchy", "sex"], "COLUMN=FILE"),
        (["check", "{csv}", "--qi", "sex", "--max-suppression", "lots"], "lots"),
        (["check", "{csv}", "--qi", "sex", "--l-diversity", "2"], "ATTR:VALUE"),
        (["anonymize", "{csv}", "--qi", "sex"], "--out"),
        (["anonymize", "--config", "nope.toml", "--out", "x.csv"], "no such file"),
    ],
)
def test_errors_are_one_line(
    adult_csv: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code = main([a.replace("{csv}", str(adult_csv)) for a in args])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["check"],
        ["search"],
        ["anonymize"],
        ["risk"],
        ["hierarchy"],
        ["hierarchy", "build"],
        *(["hierarchy", "build", kind] for kind in pa.hierarchy.BUILDERS),
        ["adult"],
    ],
)
def test_no_help_shows_a_python_value(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Defaults read as text: --memory-budget said '(None: 2G)', --variant,
    --numeric and --seed '(None: ...)', hierarchy build date's --levels
    "(default: ['month', 'quarter', 'year', 'decade'])"."""
    assert main([*command, "--help"]) == 0
    flat = " ".join(capsys.readouterr().out.split())
    for python in ("None", "['", "[]", "True", "False", "PosixPath"):
        assert python not in flat, (command, python)
    if command == ["anonymize"]:
        assert "it stops (default: 2G)" in flat
        assert "--variant VARIANT the algorithm's variant (default: the algorithm's own)" in flat
    if command == ["hierarchy", "build", "date"]:
        assert "(default: month,quarter,year,decade)" in flat


def test_adult_says_what_its_out_writes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adult", "--help"]) == 0
    flat = " ".join(capsys.readouterr().out.split())
    assert (
        "--out OUT the release of the bundled Adult table: .parquet, .csv (separated by ;) or "
        "Arrow IPC (.arrow, .ipc, .feather), with its resolved job file beside it "
        "(<out>.job.toml) (default: adult_anonymized.parquet)"
    ) in flat


@pytest.mark.parametrize(
    "command",
    [["check"], ["search"], ["anonymize"], ["risk"], ["hierarchy", "build", "interval"], ["adult"]],
)
def test_every_subcommand_has_help_with_defaults(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, "--help"]) == 0
    text = capsys.readouterr().out
    assert "usage:" in text and "(default:" in text
    # a default is said where there is one, once (--nulls said '(default: None)'
    # beside 'error, the default'; --population '(default: the table) (default: None)')
    flat = " ".join(text.split())
    assert "(default: None)" not in flat and "(default: [])" not in flat
    assert "(default: False)" not in flat
    if command[0] in ("check", "search", "anonymize", "adult"):
        assert "(default: 0)" in flat  # --max-suppression: 0 is no None
    assert not re.search(r"\(default: [^)]*\) \(default:", flat)


def test_data_that_is_no_table_is_refused_in_our_words(tmp_path: Path) -> None:
    """A folder without Parquet parts or a JSON file given as data answered
    in Polars' words (or read the JSON as a CSV of one column)."""
    folder = tmp_path / "empty"
    folder.mkdir()
    as_json = tmp_path / "data.json"
    as_json.write_text('{"sex": "Male"}\n')
    for data, message in ((folder, "holds none"), (as_json, "not .json")):
        with pytest.raises(pa.ConfigError, match=message):
            read_table(data)


def test_ways_out_are_given_in_the_command_lines_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the API's nulls='value' is --nulls value here, and a job file's key
    # with --config
    table = tmp_path / "t.csv"
    pl.DataFrame({"a": ["x", None, "y", "x"], "b": ["1", "2", "1", "2"]}).write_csv(table)
    out = tmp_path / "r.csv"
    args = ["anonymize", str(table), "--qi", "a", "--k", "1", "--insensitive", "b"]
    assert main([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "or pass --nulls value" in err and "nulls=" not in err
    assert err.count("--nulls value") == 1  # (it read "--nulls value (--nulls value)")
    job = tmp_path / "job.toml"
    job.write_text(
        f'[input]\npath = "{table}"\n[model]\nquasi_identifiers = ["a"]\nk = 1\n'
        f'[columns]\ninsensitive = ["b"]\n[output]\npath = "{out}"\n'
    )
    assert main(["anonymize", "--config", str(job)]) == 2
    err = capsys.readouterr().err
    assert 'or pass nulls = "value" under [input]' in err
    assert in_cli_words('use algorithm="mingen" or "optimal"', False) == (
        "use --algorithm mingen or optimal"
    )
    assert in_cli_words("use algorithm='mingen'", True) == 'use algorithm = "mingen" under [search]'
    assert in_cli_words("or max_suppression=0", False) == "or --max-suppression 0"
    assert (
        in_cli_words("takes no nulls = 'value' (a null", False) == "takes no --nulls value (a null"
    )
    # neither the command line nor a job file chooses the optimal walk's metric
    said = "Search with metric='height', or with algorithm='incognito' for any criterion"
    assert in_cli_words(said, False) == "Search with --algorithm incognito for any criterion"
    said = "coarsen=True undoes recorded splits: pass splits= too"
    assert in_cli_words(said, True) == (
        "[search] coarsen = true undoes recorded splits: name [result] splits too"
    )
    assert in_cli_words("max_suppression=0.05 allows", False) == "max_suppression=0.05 allows"


def test_the_memory_budget_is_an_option_and_a_job_key(
    adult_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    h = str(adult_csv.parent / "h")
    base = [str(adult_csv), "--qi", "sex,race,marital-status", "--hierarchies", h, "--k", "5"]
    # a budget too small for the lattice's answer: refused, in our words
    assert main(["search", *base, "--algorithm", "mingen", "--memory-budget", "1K"]) == 2
    err = capsys.readouterr().err
    assert "SearchTooLargeError" in err and "raise --memory-budget" in err
    assert main(["search", *base, "--memory-budget", "64M"]) == 0
    capsys.readouterr()
    assert main(["search", *base, "--memory-budget", "lots"]) == 2
    assert "--memory-budget: must be a number of bytes" in capsys.readouterr().err
    assert main(["search", *base, "--memory-budget", "0"]) == 2
    assert "must be more than 0 bytes" in capsys.readouterr().err
    # a resolved job records the default budget it ran with, too
    default = tmp_path / "d.parquet"
    assert main(["anonymize", *base, "--out", str(default)]) == 0
    capsys.readouterr()
    resolved = tomllib.loads(Path(f"{default}.job.toml").read_text())
    assert resolved["search"]["memory_budget"] == 2 << 30
    # the job records a budget given, and its run searches within it
    out = tmp_path / "r.parquet"
    args = ["anonymize", *base, "--algorithm", "mingen", "--out", str(out)]
    assert main([*args, "--memory-budget", "512M"]) == 0
    job_file = Path(f"{out}.job.toml")
    doc = tomllib.loads(job_file.read_text())
    assert doc["search"]["memory_budget"] == 512 << 20
    assert pa.Job.from_toml(job_file).memory_budget == 512 << 20
    # without its levels, searched again, within 1 KiB: refused
    small = tmp_path / "small.toml"
    small.write_text(job_file.read_text().split("[result]")[0].replace(str(512 << 20), '"1K"'))
    assert main(["anonymize", "--config", str(small), "--out", str(tmp_path / "s.parquet")]) == 2
    err = capsys.readouterr().err
    assert "SearchTooLargeError" in err and "raise memory_budget under [search]" in err
    # beside --config, the job's key is refused; Mondrian takes none
    assert main(["anonymize", "--config", str(small), "--memory-budget", "4G"]) == 2
    assert "[search] memory_budget" in capsys.readouterr().err
    mondrian = ["--algorithm", "mondrian", "--memory-budget", "4G", "--out", str(out)]
    assert main([*args[:-4], *mondrian]) == 2
    assert "--algorithm mondrian takes none" in capsys.readouterr().err
    doc = tomllib.loads(small.read_text())
    doc["search"] = {"algorithm": "mondrian", "memory_budget": "4G"}
    with pytest.raises(pa.ConfigError, match=r"memory_budget is for the searches"):
        pa.Job.from_dict(doc, tmp_path)
    doc["search"] = {"memory_budget": -5}
    with pytest.raises(pa.ConfigError, match=r"\[search\] memory_budget must be a number"):
        pa.Job.from_dict(doc, tmp_path)
    # the API takes the same sizes, and a Mondrian job in code refuses one too
    lf, hs = pa.datasets.adult()
    r = pa.search(lf, ["sex", "race"], hs, 5, memory_budget="64M", progress=False)
    assert r.complete
    with pytest.raises(pa.ConfigError, match="memory_budget must be a number of bytes"):
        pa.search(lf, ["sex", "race"], hs, 5, memory_budget="lots", progress=False)
    job = pa.Job.from_dict(doc | {"search": {"algorithm": "mondrian"}}, tmp_path)
    job.memory_budget = 4 << 30
    with pytest.raises(pa.ConfigError, match=r"takes no .*memory_budget"):
        job.run()


def test_a_hierarchy_folder_is_read_for_its_quasi_identifiers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the folder may hold other CSV files (they stopped the run), and its
    # files are read with --hierarchy-sep (they were read with ';' first)
    data = tmp_path / "data.csv"
    pl.DataFrame({"sex": ["F", "M"] * 20, "age": [31, 31, 47, 47] * 10}).write_csv(data)
    folder = tmp_path / "h"
    folder.mkdir()
    (folder / "sex.csv").write_text("F,*\nM,*\n")
    (folder / "notes.csv").write_text("when,who\n2026-11-27,steward\n")
    out = tmp_path / "out.csv"
    args = ["anonymize", str(data), "--qi", "sex,age", "--hierarchies", str(folder)]
    args += ["--hierarchy-sep", ",", "--k", "20", "--criterion", "min_height", "--out", str(out)]
    assert main(args) == 0
    release = pl.read_csv(out)
    assert release["sex"].unique().to_list() == ["*"] and release["age"].n_unique() == 2
    # a file of a quasi-identifier read with the wrong separator: the way out
    # in the option's words
    assert main([a for a in args if a not in ("--hierarchy-sep", ",")]) == 2
    assert "pass --hierarchy-sep ','" in capsys.readouterr().err
    # the Python API reads a folder's files of the quasi-identifiers alone
    (folder / "sex.csv").write_text("F;*\nM;*\n")
    r = pa.search(pl.read_csv(data), ["sex", "age"], str(folder), 2, progress=False)
    assert r.best("min_height") == {"sex": 0, "age": 0}
    # and pa.generalize, given its quasi-identifiers or taking them from the
    # folder's files of the table's columns
    df = pl.read_csv(data)
    for qis in (["sex", "age"], None):
        out_df = pa.generalize(df, str(folder), {"sex": 1}, quasi_identifiers=qis).collect()
        assert out_df["sex"].unique().to_list() == ["*"]
    # a column whose own name holds 'hierarchy_' takes its own file
    (folder / "hierarchy_level.csv").write_text("1;*\n2;*\n")
    levels = df.with_columns(hierarchy_level=pl.Series([1, 1, 2, 2] * 10))
    r = pa.search(levels, ["sex", "hierarchy_level"], str(folder), 20, progress=False)
    assert (0, 1) in r.anonymous.select("sex", "hierarchy_level").rows()


def test_a_tab_separator_remedy_reads_as_the_shell_and_toml_write_a_tab() -> None:
    message = "read with sep=';'; pass sep='\\t'"
    assert (
        in_cli_words(message, False) == "read with --hierarchy-sep ';'; pass --hierarchy-sep $'\\t'"
    )
    assert in_cli_words(message, True).endswith('pass separator = "\\t" (its hierarchy entry)')


def test_a_search_stopped_before_any_answer_says_so(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it was reported as "found no 5-anonymous generalization", as if the
    # model had none, while the same run without the limit answers
    h = str(adult_csv.parent / "h")
    args = ["anonymize", str(adult_csv), "--qi", "sex,race", "--hierarchies", h, "--k", "5"]
    args += ["--out", str(adult_csv.parent / "r.csv")]
    assert main([*args, "--time-limit", "0"]) == 2
    err = capsys.readouterr().err
    assert "the search stopped (time limit of 0" in err and "raise --time-limit" in err
    assert main(args) == 0


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--max-suppression", "100%"], "--max-suppression as a fraction must be in [0, 1)"),
        (["--time-limit", "-1"], "--time-limit must be a number of seconds in [0, 1e9], got"),
    ],
)
def test_parameter_refusals_name_the_option(
    adult_csv: Path, capsys: pytest.CaptureFixture[str], option: list[str], said: str
) -> None:
    h = str(adult_csv.parent / "h")
    args = ["anonymize", str(adult_csv), "--qi", "sex,race", "--hierarchies", h, "--k", "5"]
    assert main([*args, *option, "--out", str(adult_csv.parent / "r.csv")]) == 2
    err = capsys.readouterr().err
    assert said in err and "None" not in err and "max_suppression as" not in err


def test_a_release_written_as_arrow_ipc_is_read_back(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # anonymize writes .arrow/.ipc/.feather; risk and --config read them as a
    # CSV of binary bytes before
    h = str(adult_csv.parent / "h")
    out = adult_csv.parent / "release.arrow"
    args = ["anonymize", str(adult_csv), "--qi", "sex,race", "--hierarchies", h, "--k", "5"]
    assert main([*args, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["risk", str(out), "--qi", "sex,race"]) == 0
    printed = capsys.readouterr().out
    released = pl.read_ipc(out)
    assert f"records / classes        {released.height:,}" in printed
    assert main(["risk", str(out), "--qi", "sex,race", "--engine", "duckdb"]) == 2
    assert "an Arrow IPC file is read on the polars engine" in capsys.readouterr().err


def test_a_hierarchy_given_by_file_reads_none_of_the_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--hierarchy sex=FILE beside a folder holding another table's Sex.csv:
    the file given wins (the folder's near name was refused); a --qi of the
    wrong case is asked about both ways."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "Sex.csv").write_text("Female;*\nMale;*\n")
    (shared / "age.csv").write_text("20;*\n21;*\n22;*\n")
    (tmp_path / "my_sex.csv").write_text("f;*\nm;*\n")
    data = tmp_path / "in.csv"
    pl.DataFrame({"sex": ["f", "m"] * 20, "age": [str(20 + i % 3) for i in range(40)]}).write_csv(
        data
    )
    args = ["check", str(data), "--hierarchies", str(shared), "--k", "2", "--levels", "age=1"]
    assert main([*args, "--qi", "sex,age", "--hierarchy", f"sex={tmp_path / 'my_sex.csv'}"]) == 0
    assert "k-anonymous                       yes" in capsys.readouterr().out
    (shared / "Sex.csv").rename(shared / "sex.csv")
    assert main([*args, "--qi", "Sex,age"]) == 2
    assert "is the column named 'sex', or is that file meant for 'Sex'" in capsys.readouterr().err


def test_hierarchy_build_on_a_column_with_nulls_names_the_way_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it said "1 null value(s)" (of the distinct values) and pointed to
    # the search's option, which hierarchy build takes too
    data = tmp_path / "nulls.csv"
    data.write_text("a,b\n1,x\n,y\n2,z\n,w\n")
    args = ["hierarchy", "build", "interval", str(data), "--column", "a", "--widths", "5"]
    assert main([*args, "--out", str(tmp_path / "a.csv")]) == 2
    said = capsys.readouterr().err
    assert "column 'a' holds nulls" in said and "--nulls value here" in said
    assert main([*args, "--nulls", "value", "--out", str(tmp_path / "a.csv")]) == 0


def test_a_hierarchy_of_a_file_read_with_the_wrong_separator_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ;-separated file read with the default separator is one column:
    with hierarchies given, the error blamed the hierarchy alone (helper-86)."""
    table = tmp_path / "t.csv"
    pl.DataFrame({"zip": ["01069", "01070"] * 5, "sex": ["F", "M"] * 5}).write_csv(
        table, separator=";"
    )
    (tmp_path / "zip.csv").write_text("01069;*\n01070;*\n")
    args = ["anonymize", str(table), "--qi", "zip", "--hierarchies", str(tmp_path)]
    assert main([*args, "--k", "2", "--out", str(tmp_path / "r.csv")]) == 2
    assert "wrong separator (its header holds ';')" in capsys.readouterr().err


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_terminal_without_unicode_gets_the_whole_report(tmp_path: Path, encoding: str) -> None:
    """A terminal of a latin-1 or ASCII locale: the levels table is drawn in
    ASCII, other characters (a column's name here) are written as "?", and the run
    ends as it does on a UTF-8 terminal, not with an encoding error."""
    import os
    import subprocess
    import sys

    path = tmp_path / "t.csv"
    pl.DataFrame({"Stadt→": ["a", "a", "b", "b"], "age": [30, 31, 40, 41]}).write_csv(path)
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "Stadt→.csv").write_text("a;*\nb;*\n")
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    argv = [sys.executable, "-m", "polars_anon.cli", "search", str(path)]
    argv += ["--qi", "Stadt→", "--hierarchies", str(tmp_path / "h"), "--k", "2"]
    argv += ["--insensitive", "age"]
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    assert done.returncode == 0, done.stderr.decode(encoding)
    printed = done.stdout.decode(encoding)
    assert "+---" in printed and "Stadt?" in printed
    assert "preferred (min_loss): Stadt?=0" in printed
    # the table's borders line up with its header
    table = [line for line in printed.splitlines() if line.strip().startswith(("+", "|"))]
    assert table and len({len(line) for line in table}) == 1


def test_hierarchy_folders_add_up_and_a_count_may_be_written_in_powers_of_ten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--hierarchies repeated reads each folder (a column's hierarchy in one
    of them only); --max-suppression 1e2 is 100 tuples, not a fraction; a
    quasi-identifier with no hierarchy is reported kept as it is."""
    lf, hs = pa.datasets.adult()
    data = tmp_path / "adult.csv"
    lf.select("age", "sex", "race").collect().write_csv(data)
    for folder, column in (("one", "age"), ("two", "sex")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{column}.csv").write_text(hs[column].to_csv())
    out = tmp_path / "out.parquet"
    argv = ["anonymize", str(data), "--qi", "age,sex,race", "--k", "5", "--out", str(out)]
    folders = ["--hierarchies", str(tmp_path / "one"), "--hierarchies", str(tmp_path / "two")]
    assert main([*argv, *folders, "--max-suppression", "1e2"]) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "suppressed (in groups < k)" in printed and "(allowed 100)" in printed
    assert "race                       quasi-identifier: kept as it is (no hierarchy" in printed
    job = tomllib.loads((tmp_path / "out.parquet.job.toml").read_text())
    assert job["model"]["max_suppression"] == 100
    assert set(job["hierarchies"]) == {"age", "sex"}
    # the release: age and sex at the levels searched, race as it was
    levels = job["result"]["levels"]
    frame = lf.select("age", "sex", "race").collect()
    expect = pa.check(frame, ["age", "sex", "race"], 5, hs, levels, 100)
    assert pl.read_parquet(out).height == expect.rows - expect.suppressed
    # one folder named twice, by two paths, is one folder; 3.0 is 3 tuples
    twice = ["--hierarchies", str(tmp_path / "one"), "--hierarchies", f"{tmp_path}/./one/"]
    argv3 = [*argv, *twice, *folders[2:], "--max-suppression", "3.0"]
    assert main(argv3) == 0, capsys.readouterr().err
    assert "(allowed 3)" in capsys.readouterr().out
    (tmp_path / "two" / "age.csv").write_text(hs["age"].to_csv())
    assert main([*argv, *folders]) == 2
    err = capsys.readouterr().err
    assert "'age' has a hierarchy in" in err and "--hierarchy age=FILE" in err


def test_anonymize_says_when_its_search_stopped_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A time limit that cuts the search short gives the best levels found:
    anonymize says so, and the job file records it (helper-94: a release
    of loss 0.68 where the search's own is 0.08, said nowhere)."""
    lf, hs = pa.datasets.adult()
    data = tmp_path / "adult.csv"
    lf.collect().write_csv(data)
    (tmp_path / "h").mkdir()
    for q, h in hs.items():
        (tmp_path / "h" / f"{q}.csv").write_text(h.to_csv())
    qis = "sex,age,race,marital-status,education,native-country,workclass,occupation"
    out = tmp_path / "r.csv"
    argv = ["anonymize", str(data), "--qi", qis, "--hierarchies", str(tmp_path / "h")]
    argv += ["--k", "5", "--time-limit", "0.0005", "--insensitive", "salary-class"]
    code = main([*argv, "--out", str(out)])
    printed = capsys.readouterr()
    if code == 2:  # stopped before any anonymous node: refused, said so
        assert "the search stopped (time limit" in printed.err and not out.exists()
        return
    assert code == 0
    assert re.search(
        r"search \(min_loss\): .*; stopped \(time limit .*\): the best found", printed.out
    )
    recorded = tomllib.loads((tmp_path / "r.csv.job.toml").read_text())
    assert "stopped (time limit" in recorded["result"]["search"]


def test_a_hierarchy_for_a_column_nothing_reads_is_refused(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--hierarchy for a column that is neither a quasi-identifier nor a
    criterion's sensitive attribute would go unused (helper-94: accepted,
    and written into the job file)."""
    h = adult_csv.parent / "h"
    argv = ["check", str(adult_csv), "--qi", "sex,race", "--hierarchies", str(h), "--k", "5"]
    assert main([*argv, "--hierarchy", f"marital-status={h / 'marital-status.csv'}"]) == 2
    assert "'marital-status' is neither a quasi-identifier" in capsys.readouterr().err
    # a criterion's sensitive attribute may have one (hierarchical t-closeness)
    sensitive = ["--hierarchy", f"marital-status={h / 'marital-status.csv'}"]
    sensitive += ["--t-closeness", "marital-status:0.9"]
    assert main([*argv, *sensitive]) in (0, 1)
    capsys.readouterr()


def test_a_column_given_twice_is_refused_naming_it(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--levels zip=1,zip=2 kept the last level, and --hierarchy the last file."""
    h = adult_csv.parent / "h"
    base = [str(adult_csv), "--qi", "sex,race", "--hierarchies", str(h)]
    for command in (["check", *base, "--k", "2"], ["risk", *base]):
        assert main([*command, "--levels", "sex=1,race=0,sex=0"]) == 2
        err = capsys.readouterr().err
        assert (
            "argument --levels: column 'sex' is given twice (sex=1 and sex=0): give each "
            "column one level"
        ) in err
    sex = h / "sex.csv"
    assert main(["risk", *base, "--hierarchy", f"sex={sex}", "--hierarchy", f"sex={sex}"]) == 2
    assert (
        f"ConfigError: --hierarchy: column 'sex' is given twice (sex={sex} and sex={sex}): "
        "give each column one hierarchy"
    ) in capsys.readouterr().err


def test_levels_for_a_column_without_a_hierarchy_say_it_has_none(
    adult_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It read "level 1 for 'age' is above its hierarchy's height 0"."""
    h = str(adult_csv.parent / "h")
    base = [str(adult_csv), "--qi", "sex,age", "--hierarchies", h, "--levels", "sex=1,age=1"]
    for command in (["check", *base], ["risk", *base]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err == (
            "polars-anon: ConfigError: --levels age=1: column 'age' has no hierarchy, so it "
            "stays at level 0 (its values as they are); give it one with --hierarchy age=FILE "
            "(an ARX CSV, a hierarchy JSON or a builder spec JSON) or a --hierarchies folder "
            "holding age.csv\n"
        )
        assert "height" not in err
    # at level 0 it is kept as it is, as before
    assert main(["risk", *base[:-1], "sex=1,age=0"]) == 0


def test_the_way_out_of_nulls_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The core's message names the option itself: it read "or pass --nulls
    value (--nulls value) to keep null ...", and with Mondrian (which takes
    no --nulls value) "fill_null) (--nulls value) to keep null ..."."""
    table = tmp_path / "t.csv"
    pl.DataFrame({"a": ["x", None, "y", "x"] * 3, "b": ["1", "2"] * 6}).write_csv(table)
    hierarchy = tmp_path / "a.csv"
    hierarchy.write_text("x;*\ny;*\n")
    out = tmp_path / "r.csv"
    args = ["anonymize", str(table), "--qi", "a", "--k", "1", "--insensitive", "b"]
    args += ["--hierarchy", f"a={hierarchy}", "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("--nulls value") == 1
    assert "or pass --nulls value to keep null as a value of its own" in err
    assert main(["check", *args[1:-2]]) == 2
    assert "or pass --nulls value to keep null as a value of its own\n" in capsys.readouterr().err
    assert main([*args, "--algorithm", "mondrian"]) == 2
    err = capsys.readouterr().err
    assert "nulls value" not in err and err.endswith("or by Polars' fill_null)\n")
    job = tmp_path / "job.toml"
    job.write_text(
        f'[input]\npath = "{table}"\n[model]\nquasi_identifiers = ["a"]\nk = 1\n'
        f'[hierarchies.a]\npath = "{hierarchy}"\n'
        f'[columns]\ninsensitive = ["b"]\n[output]\npath = "{out}"\n'
    )
    assert main(["anonymize", "--config", str(job)]) == 2
    err = capsys.readouterr().err
    assert 'or pass nulls = "value" under [input] to keep null as a value' in err
    assert "--nulls" not in err


def test_a_job_run_again_over_its_changed_input_notes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The resolved job's [input] sha256 was never compared: a run over the
    file changed at the same path said nothing. It is noted (as a run on new
    data, the levels are re-checked), not refused as a changed hierarchy is."""
    import hashlib

    data = tmp_path / "people.csv"
    people = pl.DataFrame({"age": [23, 27, 31, 38, 44, 47] * 3, "sex": ["f", "m", "m"] * 6})
    people.write_csv(data)
    spec = tmp_path / "age.json"
    spec.write_text('{"builder": "interval", "widths": [10, 20]}')
    out = tmp_path / "out.csv"
    argv = ["anonymize", str(data), "--qi", "age,sex", "--k", "3", "--out", str(out)]
    assert main([*argv, "--hierarchy", f"age={spec}"]) == 0
    job = f"{out}.job.toml"
    recorded = tomllib.loads(Path(job).read_text())["input"]["sha256"]
    again = ["anonymize", "--config", job, "--out", str(tmp_path / "again.csv")]
    assert main(again) == 0
    assert "note" not in capsys.readouterr().err  # unchanged
    pl.concat([people, people.head(3)]).write_csv(data)
    current = hashlib.sha256(data.read_bytes()).hexdigest()
    for argv in (again, [*again, str(data)]):  # the job's input, or named again as DATA
        assert main(argv) == 0
        captured = capsys.readouterr()
        assert captured.err == (
            f"polars-anon: note: job file: [input] {str(data)!r} changed since the job was "
            f"resolved: its recorded sha256 ({recorded[:16]}...) and its current one "
            f"({current[:16]}...) differ; the run reads the file as it is now and re-checks "
            "the release on it (to silence this, delete sha256 under [input])\n"
        )
        assert "wrote 21 of 21 rows" in captured.out
    # another file as DATA: the recorded checksum is not its
    other = tmp_path / "other.csv"
    people.write_csv(other)
    assert main([*again, str(other)]) == 0
    assert "note" not in capsys.readouterr().err


def test_a_comma_inside_a_column_name_is_written_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--qi splits at commas; a name holding one is given with ``\\,``, and
    the slip of leaving it bare is named with that way out."""
    path = tmp_path / "commas.csv"
    table = pl.DataFrame({"zip, code": ["537", "537", "541", "541"], "age": ["1", "1", "2", "2"]})
    table.write_csv(path)
    given = ["check", str(path), "--k", "2"]
    assert main([*given, "--qi", "zip, code,age"]) == 2
    said = capsys.readouterr().err
    assert "unknown column" in said and "a comma inside a name is written \\," in said
    assert main([*given, "--qi", "zip\\, code,age"]) == 0
    assert "k-anonymous" in capsys.readouterr().out
