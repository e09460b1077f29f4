"""Job files: a run writes its resolved job, and that file applies the same
levels, re-checked, to another input; bad job files are refused by name."""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import polars as pl
import pytest
import tomllib

import polars_anon as pa

QIS = ["age", "sex", "race", "marital-status"]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    lf, hs = pa.datasets.adult()
    df = lf.collect()
    df.head(20000).write_csv(tmp_path / "january.csv")
    df.tail(10162).write_csv(tmp_path / "february.csv")
    (tmp_path / "h").mkdir()
    for q in ("sex", "race", "marital-status"):
        (tmp_path / "h" / f"{q}.csv").write_text(hs[q].to_csv())
    (tmp_path / "job.toml").write_text(
        """
[input]
path = "january.csv"

[model]
quasi_identifiers = ["age", "sex", "race", "marital-status"]
k = 5
max_suppression = "5%"

[hierarchies.age]
builder = "interval"
widths = [5, 10, 20]
bottom = 20
top = 80

[hierarchies.sex]
path = "h/sex.csv"

[hierarchies.race]
path = "h/race.csv"

[hierarchies.marital-status]
path = "h/marital-status.csv"

[search]
preference = "min_loss"

[output]
path = "january.parquet"
"""
    )
    return tmp_path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_run_writes_its_resolved_job_and_that_job_repeats_it(files: Path) -> None:
    run = pa.Job.from_toml(files / "job.toml").run()
    assert run.searched
    resolved = tomllib.loads(run.job_file.read_text())
    assert run.job_file == files / "january.parquet.job.toml"
    assert resolved["result"]["levels"] == run.levels
    assert resolved["result"]["library_version"] == pa.__version__
    assert resolved["input"]["sha256"] == sha(files / "january.csv")
    assert resolved["output"]["sha256"] == sha(files / "january.parquet")
    assert resolved["hierarchies"]["sex"]["sha256"] == sha(files / "h" / "sex.csv")
    assert resolved["hierarchies"]["age"] == {
        "builder": "interval",
        "widths": [5, 10, 20],
        "anchor": 0,
        "bottom": 20,
        "top": 80,
    }
    # the release is what the search would release, independently checked
    january = pl.read_parquet(files / "january.parquet")
    assert pa.check(january, QIS, 5).min_group_size >= 5
    assert january.height == run.rows_released == resolved["result"]["rows_released"]

    # next month: same levels, re-checked, no search
    job = pa.Job.from_toml(run.job_file)
    assert job.levels == run.levels
    job.input, job.output = files / "february.csv", files / "february.parquet"
    again = job.run()
    assert not again.searched and again.levels == run.levels
    february = pl.read_parquet(files / "february.parquet")
    assert pa.check(february, QIS, 5).min_group_size >= 5
    # the same labels as generalizing February by hand at those levels
    hs = job.resolve_hierarchies(pl.scan_csv(files / "february.csv"))
    by_hand = pa.generalize(
        pl.read_csv(files / "february.csv"),
        hs,
        run.levels,
        k=5,
        max_suppression=0.05,
        quasi_identifiers=QIS,
    ).collect()
    assert february.sort(february.columns).equals(by_hand.sort(by_hand.columns))
    assert tomllib.loads(again.job_file.read_text())["result"]["searched"] is False


def test_recorded_levels_that_fail_on_new_data_are_refused(files: Path) -> None:
    run = pa.Job.from_toml(files / "job.toml").run()
    job = pa.Job.from_toml(run.job_file)
    job.input, job.output = files / "february.csv", files / "february.parquet"
    job.max_suppression = 0
    job.k = 50
    with pytest.raises(pa.NotAnonymousError, match="k = 50"):
        job.run()
    assert not (files / "february.parquet").exists()


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda t: t + "\n[extra]\nx = 1\n", "unknown table"),
        (lambda t: t.replace("k = 5\n", ""), "needs k"),
        (
            lambda t: t.replace('path = "h/sex.csv"', 'builder = "spline"'),
            "hierarchy of 'sex': unknown hierarchy builder",
        ),
        (
            lambda t: t.replace('path = "h/sex.csv"', 'path = "h/sex.csv"\nbuilder = "masking"'),
            "either path",
        ),
        (
            lambda t: t.replace('preference = "min_loss"', 'preference = "best"'),
            "unknown preference",
        ),
        (lambda t: t.replace('max_suppression = "5%"', 'max_suppression = "lots"'), "lots"),
        (lambda t: t + "\n[model.oops", "not valid TOML"),
        (lambda t: t.replace('path = "h/race.csv"', 'path = "h/nope.csv"'), "nope.csv"),
        (
            lambda t: t.replace(
                'max_suppression = "5%"', 'max_suppression = "5%"\ncriteria = [{ type = "magic" }]'
            ),
            "unknown criterion type",
        ),
    ],
)
def test_bad_job_files_are_refused_by_name(files: Path, edit, match: str) -> None:  # type: ignore[no-untyped-def]
    path = files / "job.toml"
    path.write_text(edit(path.read_text()))
    with pytest.raises(pa.ConfigError, match=match):
        pa.Job.from_toml(path).run()


def test_a_misspelled_algorithm_is_refused_with_recorded_levels_too(files: Path) -> None:
    # a resolved job searches nothing, and once ran with (and copied) a typo
    run = pa.Job.from_toml(files / "job.toml").run()
    text = run.job_file.read_text()
    assert 'algorithm = "auto"' in text  # the default, as in Python
    edited = files / "edited.toml"
    edited.write_text(text.replace('algorithm = "auto"', 'algorithm = "incognitto"'))
    with pytest.raises(pa.ConfigError, match=r"\[search\] algorithm 'incognitto' is unknown"):
        pa.Job.from_toml(edited)


def test_a_hierarchy_json_that_is_a_spec_or_broken_is_named(files: Path) -> None:
    # a builder's spec (as `hierarchy build --out FILE.json` writes) is not a
    # hierarchy: the refusal gives the job's keys to write instead
    spec = {"builder": "interval", "widths": [5, 10, 20], "bottom": 20, "top": 80}
    (files / "h" / "age.json").write_text(json.dumps(spec))
    path = files / "job.toml"
    text = path.read_text()
    age = 'builder = "interval"\nwidths = [5, 10, 20]\nbottom = 20\ntop = 80'
    path.write_text(text.replace(age, 'path = "h/age.json"'))
    with pytest.raises(pa.ConfigError, match=r"\[hierarchies.age\] path .* builder's spec") as e:
        pa.Job.from_toml(path).run()
    # the keys to write instead, as TOML the job file can take
    shown = str(e.value).split("\n", 1)[1]
    assert tomllib.loads(shown)["hierarchies"]["age"]["widths"] == [5, 10, 20]
    (files / "h" / "age.json").write_bytes(b'{"builder": "interval", "w\xe9": 1}')
    with pytest.raises(pa.ConfigError, match=r"hierarchy of 'age': .*age\.json' is not UTF-8"):
        pa.Job.from_toml(path).run()
    (files / "h" / "age.json").write_text("{}")
    with pytest.raises(pa.HierarchyError, match=r"hierarchy of 'age' in .*age\.json"):
        pa.Job.from_toml(path).run()


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """A small table whose most general node meets every criterion below."""
    pl.DataFrame(
        {
            "zip": ["53715", "53710", "53706", "53703"] * 3,
            "disease": ["flu", "hiv", "cancer", "flu", "cancer", "hiv"] * 2,
        }
    ).write_csv(tmp_path / "small.csv")
    return tmp_path


def test_a_job_records_and_replays_every_criterion(small: Path) -> None:
    """Every registered criterion class is written to the resolved job and
    read back from it as the same criterion, and the job runs again."""
    from polars_anon.criteria import TYPES
    from polars_anon.jobs.criteria import criterion, criterion_spec, population_file

    cats = [["hiv", "cancer"], ["flu"]]
    examples = [
        pa.PSensitive(2, "disease"),
        pa.PPlusSensitive(2, "disease", cats),
        pa.PAlphaSensitive(2, 0.5, "disease", cats),
        pa.DistinctLDiversity(2, "disease"),
        pa.EntropyLDiversity(1.5, "disease"),
        pa.RecursiveCLDiversity(3.0, 2, "disease"),
        pa.TCloseness(0.9, "disease"),
        pa.BetaLikeness(1.5, "disease"),
        pa.BetaLikeness(1.5, "disease", enhanced=True),
        pa.DeltaDisclosure(2, "disease"),
        pa.AverageRisk(0.5),
        pa.SampleUniqueness(0.0),
        pa.PopulationUniqueness(0.5, population=1000, model="zayatz"),
        pa.KMap(2, population=100),
        pa.KMap(2, population=population_file(small / "small.csv")),
        pa.DPresence(0.0, 1.0, population=population_file(small / "small.csv")),
    ]
    # a criterion added to the registry needs an example here
    assert {type(c) for c in examples} == set(TYPES.values())
    for i, c in enumerate(examples):
        job = pa.Job(
            input=small / "small.csv",
            quasi_identifiers=["zip"],
            k=2,
            output=small / f"out{i}.csv",
            hierarchies={"zip": {"builder": "masking"}},
            criteria=[criterion_spec(c)],
            algorithm="mingen",
        )
        run = job.run()
        resolved = pa.Job.from_toml(run.job_file)
        # a table read again is a new one: compare what the job file records
        replayed = [criterion_spec(criterion(spec)) for spec in resolved.criteria]
        assert replayed == [criterion_spec(c)], type(c).__name__
        assert resolved.levels == run.levels
        again = resolved.run(write_job=False)
        assert again.levels == run.levels and not again.searched
        assert again.rows_released == run.rows_released


def test_a_criterion_with_a_hierarchy_is_refused_by_name() -> None:
    from polars_anon.jobs.criteria import criterion_spec

    h = pa.Hierarchy.from_rows([["flu", "mild", "*"], ["hiv", "severe", "*"]])
    with pytest.raises(pa.ConfigError, match="PPlusSensitive: its categories holds a Hierarchy"):
        criterion_spec(pa.PPlusSensitive(1, "disease", (h, 1)))


def test_a_run_prepares_its_table_once(small: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search, the release and its report read one prepared table:
    the core problem over F0 is built once a run, searching or not."""
    from polars_anon.prepare import encode

    built: list[int] = []
    problem = encode.Problem

    def counted(*args: object) -> object:
        built.append(1)
        return problem(*args)

    monkeypatch.setattr(encode, "Problem", counted)
    job = pa.Job(
        input=small / "small.csv",
        quasi_identifiers=["zip"],
        k=2,
        output=small / "out.csv",
        hierarchies={"zip": {"builder": "masking"}},
        criteria=[{"type": "distinct_l", "l": 2, "attribute": "disease"}],
    )
    run = job.run()
    assert len(built) == 1
    pa.Job.from_toml(run.job_file).run(write_job=False)
    assert len(built) == 2


def test_a_job_file_that_cannot_be_rewritten_is_refused_before_the_release(
    tmp_path: Path,
) -> None:
    """A run whose resolved job could not be rewritten (a read-only or
    immutable file) failed after the release had replaced the last one,
    beside a job file that no longer described it (helper-86)."""
    import os
    import subprocess

    from polars_anon.cli import main

    pl.DataFrame({"zip": ["01069", "01070"] * 20, "sex": ["F", "M", "M", "F"] * 10}).write_csv(
        tmp_path / "in.csv"
    )
    (tmp_path / "zip.csv").write_text("01069;0106*;*\n01070;0107*;*\n")
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    out = tmp_path / "out.csv"
    args = ["anonymize", str(tmp_path / "in.csv"), "--qi", "zip,sex"]
    args += ["--hierarchies", str(tmp_path), "--k", "5", "--out", str(out)]
    assert main(args) == 0
    job = Path(f"{out}.job.toml")
    release, recorded = out.read_bytes(), job.read_bytes()
    job.chmod(0o444)
    immutable = False
    try:
        open(job, "a").close()  # root writes read-only files: make it immutable
        immutable = subprocess.run(["chattr", "+i", str(job)], capture_output=True).returncode == 0
        if not immutable:
            pytest.skip("no way to make a file unwritable here")
    except OSError:
        pass
    try:
        assert main([*args[:-4], "--k", "11", "--out", str(out)]) != 0
        assert out.read_bytes() == release and job.read_bytes() == recorded
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(job)], check=True)
        os.chmod(job, 0o644)


def test_a_job_says_which_search_found_its_levels_and_by_which_preference(files: Path) -> None:
    """The resolved job records the preference the levels were chosen by
    and the search auto ran; a run of it whose [search] preference was
    edited since is refused (its recorded levels answer the old one), and
    a job file of before those keys applies its levels as it did."""
    run = pa.Job.from_toml(files / "job.toml").run()
    assert isinstance(run, pa.JobRun)
    resolved = tomllib.loads(run.job_file.read_text())
    # under suppression auto's walk by loss answers min_loss alone
    assert resolved["result"]["preference"] == "min_loss"
    assert resolved["result"]["search"] == run.ran == "optimal"
    complete = pa.search(
        pl.read_csv(files / "january.csv"),
        QIS,
        pa.Job.from_toml(files / "job.toml").resolve_hierarchies(
            pl.scan_csv(files / "january.csv")
        ),
        5,
        0.05,
        algorithm="incognito",
        progress=False,
    )
    assert run.levels == complete.best("min_loss")
    text = run.job_file.read_text()
    edited = text.replace('[search]\nalgorithm = "auto"\npreference = "min_loss"', "[search]\n")
    edited = edited.replace("[search]\n", '[search]\npreference = "min_height"\n', 1)
    assert edited.count('preference = "min_height"') == 1
    (files / "edited.toml").write_text(edited)
    job = pa.Job.from_toml(files / "edited.toml")
    job.output = files / "edited.parquet"
    with pytest.raises(pa.ConfigError, match="chosen by 'min_loss'"):
        job.run()
    assert not (files / "edited.parquet").exists()
    # searched again by min_height, without the recorded result
    job.levels = job.chosen_by = None
    again = job.run()
    assert again.searched and again.levels == complete.best("min_height")
    assert again.ran == "optimal"  # the walk by height
    # an older resolved job (no [result] preference) applies its levels
    old = text.replace('preference = "min_loss"\nsearched', "searched")
    assert old.count("min_loss") == 1
    (files / "old.toml").write_text(old)
    job = pa.Job.from_toml(files / "old.toml")
    job.output = files / "old.parquet"
    replay = job.run()
    assert isinstance(replay, pa.JobRun)
    assert not replay.searched and replay.levels == run.levels and replay.ran is None
    # its resolved job does not claim a preference its levels were not chosen by
    assert "preference" not in tomllib.loads(replay.job_file.read_text())["result"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace(
                'quasi_identifiers = ["age", "sex", "race", "marital-status"]',
                'quasi_identifiers = "age"',
            ),
            r"job file: \[model\] quasi_identifiers must be a list of column names, got the "
            r'text "age": write quasi_identifiers = \["age"\]',
        ),
        (
            lambda t: t.replace(
                'quasi_identifiers = ["age", "sex", "race", "marital-status"]',
                'quasi_identifiers = "age, sex"',
            ),
            r'quasi_identifiers = \["age", "sex"\]',
        ),
        (
            lambda t: t.replace(
                'preference = "min_loss"', 'algorithm = "mondrian"\nnumeric = "age"'
            ),
            r'job file: \[search\] numeric must be a list of column names, got the text "age": '
            r'write numeric = \["age"\]',
        ),
        (
            lambda t: t + '\n[columns]\ninsensitive = "workclass"\n',
            r"job file: \[columns\] insensitive must be a list of column names, got the text "
            r'"workclass": write insensitive = \["workclass"\]',
        ),
        (
            lambda t: t + '\n[columns]\nidentifiers = "workclass"\n',
            r'a list of columns to drop \(identifiers = \["ssn"\]\), got "workclass"',
        ),
        (
            lambda t: t + "\n[columns]\nidentifiers = [{ a = 1 }]\n",
            r"job file: \[columns\] identifiers must be a list of column names",
        ),
        (
            lambda t: t.replace(
                'max_suppression = "5%"',
                'max_suppression = "5%"\ncriteria = [{ type = "p_plus_sensitive", p = 2, '
                'attribute = "salary-class", categories = ["<=50K", ">50K"] }]',
            ),
            r"job file: \[model\] criteria p_plus_sensitive categories must be a list of "
            r"categories, each a list of values",
        ),
    ],
)
def test_a_list_given_as_text_is_refused_naming_its_key(files: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    """Text where a job file takes a list was read as a list of its one
    name (quasi_identifiers) or of its characters (numeric, categories)."""
    path = files / "job.toml"
    text = edit(path.read_text())
    assert text != path.read_text()
    path.write_text(text)
    with pytest.raises(pa.ConfigError, match=message):
        pa.Job.from_toml(path).run()
    assert not (files / "january.parquet").exists()


def test_recorded_levels_of_a_column_without_a_hierarchy_say_so(files: Path) -> None:
    """It read "level 1 for 'workclass' is above its hierarchy's height 0"."""
    path = files / "job.toml"
    text = path.read_text().replace('"marital-status"]', '"marital-status", "workclass"]')
    path.write_text(text + "\n[result]\nlevels = { age = 1, workclass = 1 }\n")
    with pytest.raises(pa.ConfigError) as e:
        pa.Job.from_toml(path).run()
    assert str(e.value) == (
        "job file: [result] levels workclass=1: column 'workclass' has no hierarchy, so it "
        "stays at level 0 (its values as they are); give it one under [hierarchies.workclass] "
        "(path = an ARX CSV or JSON file, or builder = interval, date, masking or ordered)"
    )


def test_a_run_over_its_input_changed_since_says_so(files: Path) -> None:
    """The input is the data a resolved job is run again on: changed at the
    same path, the run goes on (its levels re-checked) with a warning that
    names the file and both checksums; a hierarchy changed is refused."""
    InputChangedWarning = pa.InputChangedWarning

    run = pa.Job.from_toml(files / "job.toml").run()
    recorded = sha(files / "january.csv")
    # unchanged: no warning
    job = pa.Job.from_toml(run.job_file)
    job.output = files / "same.parquet"
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputChangedWarning)
        job.run()
    # changed at the same path (rows added): noted, and the run goes on
    january = pl.read_csv(files / "january.csv")
    pl.concat([january, january.head(100)]).write_csv(files / "january.csv")
    current = sha(files / "january.csv")
    job = pa.Job.from_toml(run.job_file)
    job.output = files / "changed.parquet"
    with pytest.warns(InputChangedWarning) as caught:
        again = job.run()
    assert not again.searched and again.levels == run.levels
    # (the release's UndeclaredColumnsWarning is recorded too)
    notes = [str(w.message) for w in caught if w.category is InputChangedWarning]
    assert notes == [
        (
            f"job file: [input] {str(files / 'january.csv')!r} changed since the job was "
            f"resolved: its recorded sha256 ({recorded[:16]}...) and its current one "
            f"({current[:16]}...) differ; the run reads the file as it is now and re-checks the "
            "release on it (to silence this, delete sha256 under [input])"
        )
    ]
    # another input than the one recorded: nothing to say
    job = pa.Job.from_toml(run.job_file)
    job.input, job.output = files / "february.csv", files / "february.parquet"
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputChangedWarning)
        job.run()
    # (a hierarchy file changed since is refused: it is part of the model)
    (files / "h" / "sex.csv").write_text((files / "h" / "sex.csv").read_text() + "\n")
    with (
        pytest.warns(InputChangedWarning),
        pytest.raises(pa.ConfigError, match=r"\[hierarchies.sex\] .* changed since"),
    ):
        pa.Job.from_toml(run.job_file).run(write_job=False)
