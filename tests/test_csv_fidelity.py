"""A CSV's columns are read as numbers only where the job needs numbers
(its quasi-identifiers but those of a hierarchy file or a text spec, and its
sensitive attributes): every other column is read as the text it is in the
file, and a column released unchanged or pseudonymized is released byte for
byte, on the command line and from a job file, on each engine. Trailing
blank lines are no records."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import tomllib

import polars_anon as pa
from polars_anon.cli import main
from polars_anon.jobs.tables import check_header, read_table

KEY = "a-test-key-of-more-than-16-bytes"
ENGINES = ["polars", "duckdb"]
# released as they are: insensitive (flag, amount, zip, note)
PASSED = ["flag", "amount", "zip", "note"]
# id, age (an interval spec), price (a hierarchy file), then PASSED
ROWS = [
    ("1", "23", "1.50", "TRUE", "5", "01069", "line one\nline two"),
    ("2", "27", "1.50", "FALSE", "5.5", "02134", "plain"),
    ("3", "34", "2.00", "TRUE", "1e3", "01069", 'he said "hi"'),
    ("4", "36", "2.00", "true", "1.50", "10001", "x"),
    ("5", "41", "3", "FALSE", "-7", "00501", "y"),
    ("6", "44", "3", "TRUE", "0.10", "02134", "z"),
    ("7", "52", "4.25", "FALSE", "12", "01069", "w"),
    ("1005.0", "58", "4.25", "TRUE", "5", "99950", "v"),
]
PRICES = "1.50;[1-3);*\n2.00;[1-3);*\n3;[3-5);*\n4.25;[3-5);*\n"


def csv_text(rows: list[tuple[str, ...]], header: str = "id,age,price,flag,amount,zip,note") -> str:
    def field(v: str) -> str:
        return '"' + v.replace('"', '""') + '"' if any(c in v for c in ',"\n') else v

    return header + "\n" + "".join(",".join(map(field, r)) + "\n" for r in rows)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "data.csv").write_text(csv_text(ROWS))
    (tmp_path / "price.csv").write_text(PRICES)
    (tmp_path / "age.json").write_text(json.dumps({"builder": "interval", "widths": [10, 20]}))
    return tmp_path


def pseudonym(value: str) -> str:
    return hmac.new(KEY.encode(), value.encode(), hashlib.sha256).hexdigest()[:32]


def texts(path: Path) -> pl.DataFrame:
    return pl.read_csv(path, infer_schema=False)


def released_as_read(source: Path, out: Path, columns: list[str]) -> None:
    """`columns` of the release `out` hold the text of `source`'s, byte for
    byte (as multisets of rows: a release may reorder them)."""
    want = sorted(texts(source).select(columns).rows())
    assert sorted(texts(out).select(columns).rows()) == want


def anonymize(files: Path, engine: str, out: str, *options: str, price: bool = True) -> list[str]:
    """The command: age (interval spec) and price (hierarchy file) the
    quasi-identifiers, or without `price`, age alone and price insensitive."""
    hierarchy = ["--hierarchy", f"price={files / 'price.csv'}"] if price else []
    return [
        "anonymize",
        str(files / "data.csv"),
        "--qi",
        "age,price" if price else "age",
        "--hierarchy",
        f"age={files / 'age.json'}",
        *hierarchy,
        "--k",
        "2",
        "--identifier",
        "id=pseudonym",
        "--key-env",
        "PA_FIDELITY_KEY",
        "--insensitive",
        ",".join(PASSED if price else ["price", *PASSED]),
        "--engine",
        engine,
        "--out",
        str(files / out),
        *options,
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_cli_releases_passthrough_columns_and_pseudonyms_as_written(
    files: Path, engine: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """1.50, TRUE, 5 beside 5.5, 1e3, ZIP 01069 and a quoted line break
    released as written; the pseudonyms of the IDs' text (one 1005.0 among
    integers changes no other); the interval spec cuts age as a number."""
    monkeypatch.setenv("PA_FIDELITY_KEY", KEY)
    out = files / "out.csv"
    args = anonymize(files, engine, "out.csv", price=False)
    assert main(args) == 0, capsys.readouterr().err
    released_as_read(files / "data.csv", out, ["price", *PASSED])
    release = texts(out)
    assert sorted(release.get_column("id")) == sorted(pseudonym(r[0]) for r in ROWS)
    resolved = tomllib.loads((files / "out.csv.job.toml").read_text())
    assert resolved["result"]["rows_in"] == len(ROWS) == release.height
    assert resolved["result"]["levels"] == {"age": 1}
    bins = ["[20-30)", "[30-40)", "[40-50)", "[50-60)"]
    assert sorted(release.get_column("age")) == sorted(bins * 2)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_quasi_identifier_matches_its_hierarchy_files_leaves(
    files: Path, engine: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """check, search and anonymize read price as its text, which its
    hierarchy file's leaves (1.50, 2.00) match, and age as a number for its
    interval spec; the rest as written."""
    common = [
        str(files / "data.csv"),
        "--qi",
        "age,price",
        "--hierarchy",
        f"age={files / 'age.json'}",
        "--hierarchy",
        f"price={files / 'price.csv'}",
        "--k",
        "2",
        "--identifier",
        "id",
        "--insensitive",
        ",".join(PASSED),
        "--engine",
        engine,
    ]
    assert main(["check", *common, "--levels", "age=2,price=1"]) == 0, capsys.readouterr().err
    assert "CheckReport" in capsys.readouterr().out
    assert main(["search", *common]) == 0, capsys.readouterr().err
    monkeypatch.setenv("PA_FIDELITY_KEY", KEY)
    out = files / "out.csv"
    assert main(anonymize(files, engine, "out.csv")) == 0, capsys.readouterr().err
    released_as_read(files / "data.csv", out, PASSED)
    levels = tomllib.loads((files / "out.csv.job.toml").read_text())["result"]["levels"]
    prices = [{"1.50", "2.00", "3", "4.25"}, {"[1-3)", "[3-5)"}, {"*"}][levels["price"]]
    assert set(texts(out).get_column("price")) <= prices


def test_a_built_hierarchy_holds_the_files_text(
    files: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """hierarchy build reads its column as text: its leaves are the values
    as written (1.50, 1e3), which a run with that file matches."""
    built = files / "amount.csv"
    build = ["hierarchy", "build", "interval", str(files / "data.csv"), "--column", "amount"]
    assert main([*build, "--widths", "100", "--out", str(built)]) == 0, capsys.readouterr().err
    leaves = {line.split(";")[0] for line in built.read_text().splitlines()}
    assert leaves == {r[4] for r in ROWS}
    monkeypatch.setenv("PA_FIDELITY_KEY", KEY)
    args = anonymize(files, "polars", "out.csv")
    args[args.index("--insensitive") + 1] = "flag,zip,note"
    args[args.index("--qi") + 1] = "age,price,amount"
    assert main([*args, "--hierarchy", f"amount={built}"]) == 0, capsys.readouterr().err


def job_file(files: Path, engine: str, population: bool = False) -> Path:
    criteria = '[{ type = "t_closeness", t = 1.0, attribute = "amount", distance = "ordered" }]'
    if population:
        criteria = '[{ type = "d_presence", d_min = 0.0, d_max = 1.0, population = "people.csv" }]'
    job = files / "job.toml"
    job.write_text(
        f"""
[input]
path = "data.csv"
engine = "{engine}"

[model]
quasi_identifiers = ["age", "price"]
k = 2
criteria = {criteria}

[hierarchies.age]
builder = "interval"
widths = [10, 20]

[hierarchies.price]
path = "price.csv"

[columns]
insensitive = ["flag", "zip", "note"{"" if not population else ', "amount"'}]

[columns.identifiers]
id = {{ key_env = "PA_FIDELITY_KEY" }}

[output]
path = "out.csv"
"""
    )
    return job


@pytest.mark.parametrize("engine", ENGINES)
def test_a_job_file_releases_the_sensitive_and_insensitive_text_as_written(
    files: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """amount, a sensitive attribute of t-closeness by the ordered distance,
    is read as the numbers it holds (1.50 and 1.5 one value); the
    insensitive columns are released as written."""
    monkeypatch.setenv("PA_FIDELITY_KEY", KEY)
    run: Any = pa.Job.from_toml(job_file(files, engine)).run()
    assert run.report.rows == len(ROWS)
    released_as_read(files / "data.csv", files / "out.csv", ["flag", "zip", "note"])
    amounts = texts(files / "out.csv").get_column("amount").cast(pl.Float64)
    assert sorted(amounts) == sorted(float(r[4]) for r in ROWS)
    ids = texts(files / "out.csv").get_column("id")
    assert sorted(ids) == sorted(pseudonym(r[0]) for r in ROWS)


def test_a_population_table_is_read_as_the_data(
    files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A population table's quasi-identifiers are read as the data's: price,
    of a hierarchy file, as its text (1.50 a leaf), age as a number."""
    monkeypatch.setenv("PA_FIDELITY_KEY", KEY)
    # ages of the data's (its interval hierarchy is built over them)
    more = [("9", "23", "1.50", "TRUE", "5", "01069", "u"), ("10", "44", "3", "x", "1", "2", "t")]
    (files / "people.csv").write_text(csv_text(ROWS + more))
    run: Any = pa.Job.from_toml(job_file(files, "polars", population=True)).run()
    assert run.report.rows == len(ROWS)
    released_as_read(files / "data.csv", files / "out.csv", PASSED)


def test_mondrian_cuts_its_quasi_identifiers_as_numbers_and_passes_the_rest(
    files: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mondrian (on Polars only) cuts age, read as a number, as ranges,
    price by its hierarchy file, and passes the rest as written."""
    monkeypatch.setenv("PA_FIDELITY_KEY", KEY)
    args = anonymize(files, "polars", "out.csv", "--algorithm", "mondrian")
    assert main(args) == 0, capsys.readouterr().err
    resolved = tomllib.loads((files / "out.csv.job.toml").read_text())
    # age a number (ranges); price, of a hierarchy file, by its hierarchy
    assert resolved["search"]["numeric"] == ["age"]
    released_as_read(files / "data.csv", files / "out.csv", PASSED)


@pytest.mark.parametrize("engine", ENGINES)
def test_trailing_blank_lines_are_no_records(
    files: Path, engine: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Blank lines after a file's last line are how files are padded, not
    records; a record of empty fields (,,) and a blank line of a file of one
    column inside it are records, kept."""
    path = files / "t.csv"
    path.write_text("a,b\n1,x\n,\n2,y\n\n\n")
    rows = read_table(path, engine=engine, numbers=["a"])
    got = rows.collect() if engine == "polars" else pl.from_arrow(rows.arrow())
    assert isinstance(got, pl.DataFrame)
    assert got.rows() == [(1, "x"), (None, None), (2, "y")]
    path.write_text("a\n1\n\n2\n\n")
    rows = read_table(path, engine=engine, numbers=[])
    got = rows.collect() if engine == "polars" else pl.from_arrow(rows.arrow())
    assert isinstance(got, pl.DataFrame)
    assert got.rows() == [("1",), (None,), ("2",)]
    # a run on a table ending in blank lines: its records, no more
    monkeypatch.setenv("PA_FIDELITY_KEY", KEY)
    (files / "data.csv").write_text(csv_text(ROWS) + "\n\n")
    assert main(anonymize(files, engine, "out.csv")) == 0, capsys.readouterr().err
    resolved = tomllib.loads((files / "out.csv.job.toml").read_text())
    assert resolved["result"]["rows_in"] == len(ROWS)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_blank_lines_between_records_are_no_records(
    tmp_path: Path, engine: str, eol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Polars read a blank line between records as a record of nulls: three
    of them beside the one record of a null city made a group of three at
    k = 3. A blank line is no record in a file of two columns or more (DuckDB
    and Spark skip it); a record of empty fields and a blank line inside a
    quoted field are kept."""
    path = tmp_path / "t.csv"
    text = 'a,b\n\n1,x\n\n\n,\n"q\n\nr",y\n\n2,z\n\n'
    path.write_bytes(text.replace("\n", eol).encode())
    for encoding in ["utf-8", "latin-1"] if engine == "polars" else ["utf-8"]:
        rows = read_table(path, engine=engine, numbers=[], encoding=encoding)
        got = rows.collect() if engine == "polars" else pl.from_arrow(rows.arrow())
        assert isinstance(got, pl.DataFrame)
        inner = "q" + eol + eol + "r"
        assert got.rows() == [("1", "x"), (None, None), (inner, "y"), ("2", "z")]
    # the run: one person without a city among blank lines is not a group
    lines = ["name,city,age,diagnosis"]
    lines += [f"a{i},Bern,{30 + i % 4},flu" for i in range(10)] + [""]
    lines += [f"b{i},Basel,{40 + i % 4},cold" for i in range(10)]
    lines += ["Jane Roe,,47,HIV", "", ""] + [f"c{i},Bern,{30 + i % 4},flu" for i in range(10)]
    (tmp_path / "data.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "city.csv").write_text("Bern;CH\nBasel;CH\nNULL;CH\n")
    out = tmp_path / "out.csv"
    args = ["anonymize", str(tmp_path / "data.csv"), "--qi", "city", "--engine", engine]
    args += ["--hierarchy", f"city={tmp_path / 'city.csv'}", "--k", "3", "--nulls", "value"]
    args += ["--identifier", "name", "--insensitive", "age,diagnosis", "--out", str(out)]
    assert main(args) == 0, capsys.readouterr().err
    released = pl.read_csv(out, infer_schema=False)
    assert released.height == 31
    assert released.group_by("city").len().get_column("len").min() >= 3  # type: ignore[operator]
    assert released.filter(pl.col("diagnosis") == "HIV").get_column("city").to_list() == ["CH"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_header_naming_a_column_twice_is_refused(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second zip was renamed by the reader (zip_duplicated_0, zip_1),
    had no role, and left as it was beside the generalized one."""
    data = tmp_path / "d.csv"
    data.write_text("\ufeffzip,sex,zip,dx\n" + "01013,F,01013,flu\n" * 6)
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    args = ["anonymize", str(data), "--qi", "sex", "--engine", engine, "--k", "2"]
    args += ["--hierarchy", f"sex={tmp_path / 'sex.csv'}", "--out", str(tmp_path / "o.csv")]
    assert main(args) == 2
    assert "names the column 'zip' twice (columns 1 and 3)" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()
    # quoted names holding the separator are names of their own
    data.write_text('"a,b",a,b\n1,2,3\n')
    got = read_table(data, engine=engine, numbers=[])
    assert list(got.collect_schema() if engine == "polars" else got.columns) == ["a,b", "a", "b"]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64])
def test_blank_lines_cut_in_blocks_as_in_one(
    tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file copied without its blank lines in blocks (a run of them, a
    CRLF or a quoted field cut by a block's end) is the file cut whole, and
    that is the blank lines outside quotes gone, the one ending it too."""
    import random

    from polars_anon.engines import csv_blank

    monkeypatch.setattr(csv_blank, "BLOCK", block)
    rnd = random.Random(block)
    pieces = ["a", ",", '"', "\n", "\r\n", "\n\n", '""', "x", "\r\n\r\n"]
    source = tmp_path / "t.csv"
    for _ in range(300):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 40)))
        data = text.encode()
        source.write_bytes(data)
        whole = csv_blank.without_blank_lines(data)
        assert csv_blank.copy_without_blank_lines(source).read_bytes() == whole, text
        if b'"' not in data:
            # the lines of text as they were, and no blank one between them
            kept = whole.replace(b"\r\n", b"\n").decode()
            lines = [line for line in text.replace("\r\n", "\n").split("\n") if line]
            assert [line for line in kept.split("\n") if line] == lines, text
            assert "\n\n" not in kept[1:], text


def test_a_header_longer_than_any_block_is_read_whole(tmp_path: Path) -> None:
    """The check read the header's first MiB: a cut last name could equal
    an earlier one (200,000 names, 1.5 MB)."""
    path = tmp_path / "wide.csv"
    names = [f"n{i}" for i in range(200_000)]
    path.write_text(",".join(names) + "\n" + ",".join("1" * len(names)) + "\n")
    check_header(path, ",", "utf8")
    path.write_text(",".join([*names, "n7"]) + "\n")
    with pytest.raises(pa.ConfigError, match="'n7' twice \\(columns 8 and 200001\\)"):
        check_header(path, ",", "utf8")


def test_spark_reads_zip_codes_and_quoted_line_breaks_as_written(spark: Any, files: Path) -> None:
    """Spark read a CSV with its own inference (ZIP 01069 the number 1069)
    and split a quoted line break into two records; now it reads the text,
    numbers where asked (and, not told which, none with a leading zero)."""
    want = texts(files / "data.csv")
    for numbers in (None, ["age", "id"]):
        # not told which: as a caller that does not know the roles reads it
        told = {} if numbers is None else {"numbers": numbers}
        data = read_table(files / "data.csv", engine="spark", **told)
        got = pl.from_arrow(data.toArrow())
        assert isinstance(got, pl.DataFrame)
        assert got.schema["age"].is_integer() and got.schema["id"] == pl.Float64
        passed = ["zip", "note"] if numbers is None else ["price", *PASSED]
        assert got.select(passed).rows() == want.select(passed).rows()


def test_spark_releases_passthrough_text_as_written(
    spark: Any, files: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Spark trimmed the spaces around a field (read and written) and wrote
    a quote as \\" where the file had it doubled: the text as written now."""
    monkeypatch.setenv("PA_FIDELITY_KEY", KEY)
    rows = [(*r[:6], "  padded  " if i == 1 else r[6]) for i, r in enumerate(ROWS)]
    (files / "data.csv").write_text(csv_text(rows))
    assert main(anonymize(files, "spark", "out.csv", price=False)) == 0, capsys.readouterr().err
    parts = sorted((files / "out.csv").glob("part-*.csv"))
    got = pl.concat([texts(p) for p in parts])
    want = texts(files / "data.csv")
    assert sorted(got.select(PASSED).rows()) == sorted(want.select(PASSED).rows())
    assert "  padded  " in got.get_column("note").to_list()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_sensitive_value_written_two_ways_is_one_value(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """1.5 and 1.50 are one number: a class holding both is not 2-diverse.
    Read as text they were two values, and l-diversity was overstated."""
    (tmp_path / "ld.csv").write_text("age,cost\n21,1.5\n22,1.50\n31,2\n32,2.0\n")
    (tmp_path / "age.json").write_text(json.dumps({"builder": "interval", "widths": [10]}))
    check = ["check", str(tmp_path / "ld.csv"), "--qi", "age", "--k", "2", "--engine", engine]
    check += ["--hierarchy", f"age={tmp_path / 'age.json'}", "--levels", "age=1"]
    assert main([*check, "--l-diversity", "cost:2"]) == 1
    assert re.search(r"criteria met +no\n", capsys.readouterr().out)
    assert main([*check, "--l-diversity", "cost:1"]) == 0


def test_a_population_file_of_a_check_is_read_as_the_data(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check and search read a --d-presence population file as the data:
    price, of a hierarchy file, as its text (1.50 a leaf)."""
    (files / "people.csv").write_text(csv_text([*ROWS, ROWS[0]]))
    for command in ("check", "search"):
        args = [command, str(files / "data.csv"), "--qi", "age,price", "--k", "2"]
        args += ["--hierarchy", f"age={files / 'age.json'}", "--hierarchy"]
        args += [f"price={files / 'price.csv'}", "--identifier", "id", "--insensitive"]
        args += [",".join(PASSED), "--d-presence", f"0:1:{files / 'people.csv'}"]
        levels = ["--levels", "age=2,price=1"] if command == "check" else []
        assert main([*args, *levels]) in (0, 1), capsys.readouterr().err
        assert "population" not in capsys.readouterr().err


def test_a_built_ordered_spec_reads_the_column_as_text(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """hierarchy build reads the column as text, and a run reads a
    quasi-identifier of a spec other than intervals as text too: the spec
    built from 1.50 matches it."""
    spec = files / "price.json"
    build = ["hierarchy", "build", "ordered", str(files / "data.csv"), "--column", "price"]
    order = "1.50,2.00,3,4.25"
    assert main([*build, "--order", order, "--sizes", "2", "--out", str(spec)]) == 0
    check = ["check", str(files / "data.csv"), "--qi", "age,price", "--k", "2"]
    check += ["--hierarchy", f"age={files / 'age.json'}", "--hierarchy", f"price={spec}"]
    check += ["--identifier", "id", "--insensitive", ",".join(PASSED)]
    assert main([*check, "--levels", "age=2,price=1"]) in (0, 1), capsys.readouterr().err
    assert "not in the order" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "tail", [b"\r\n\r\n\r", b"\n\r", b"\n\n\r", b"\r", b"\r\r", b"\r\n\r\r\n", b"\n\n", b""]
)
def test_a_files_end_of_line_breaks_and_returns_adds_no_record(tmp_path: Path, tail: bytes) -> None:
    """However the file's end mixes line breaks and carriage returns, the
    records read are its records, a last one of empty fields among them
    (Polars reads a return ending the file after a line break as a record).
    On Polars: DuckDB's sniffer refuses a file this small with a last record
    of empty fields, whatever its end."""
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,b\r\n1,2\r\n," + tail)
    got = read_table(path).collect()
    assert got.height == 2, got


def test_a_copy_without_blank_lines_leaves_no_file_open(tmp_path: Path) -> None:
    """Each copy left the descriptor of its new file open."""
    import os

    from polars_anon.engines import csv_blank

    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n\n3,4\n")
    before = len(os.listdir("/proc/self/fd"))
    copies = [csv_blank.copy_without_blank_lines(path) for _ in range(20)]
    assert len(os.listdir("/proc/self/fd")) == before
    assert {c.read_text() for c in copies} == {"a,b\n1,2\n3,4\n"}


def test_only_the_blank_lines_ending_a_one_column_file_are_cut() -> None:
    from polars_anon.engines.csv_blank import without_trailing_blank_lines as cut

    # those between records are records of an empty value there
    assert cut(b"a\n1\n\n2\n\r\n\n") == b"a\n1\n\n2\n"
    assert cut(b"a\n1\n\n2") == b"a\n1\n\n2"
    # inside a quote left open (which the reader refuses) they are kept
    assert cut(b'a\n"1\n\n\n') == b'a\n"1\n\n\n'
    assert cut(b'a\n"1\n\n"\n\n') == b'a\n"1\n\n"\n'


def test_a_record_of_more_fields_than_the_header_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Polars refuses such a record only when a plan reads every column: a
    release dropping the identifier cut the comment's unquoted tail off
    without a word (exit 0), and a plan reading all refused it as a
    changed source. Refused as what it is, before any work."""
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    lines = ["id,sex,comment"] + [f"{i},{'FM'[i % 2]},fine" for i in range(30)]
    for n, extra in ((3, "99,F,too long, boring and rude"), (2, "F,too long, boring")):
        header = "id,sex,comment" if n == 3 else "sex,comment"
        rows = lines[1:] if n == 3 else [r.split(",", 1)[1] for r in lines[1:]]
        path = tmp_path / f"in{n}.csv"
        path.write_text("\n".join([header, *rows, extra]) + "\n")
        args = ["anonymize", str(path), "--qi", "sex", "--hierarchy", f"sex={tmp_path / 'sex.csv'}"]
        args += ["--insensitive", "comment", "--k", "2", "--out", str(tmp_path / f"out{n}.csv")]
        if n == 3:
            args += ["--identifier", "id"]
        assert main(args) == 2
        said = capsys.readouterr().err
        assert f"more fields than the header's {n} columns" in said and str(path) in said
        assert not (tmp_path / f"out{n}.csv").exists()


def test_a_csv_the_reader_refuses_is_named_and_said_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a stray quote was Polars' raw error (or, with the column dropped,
    # half the rows released without a word); a file read through a copy
    # (another encoding) named the copy
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    rows = [f"{i},{'FM'[i % 2]},fine" for i in range(30)]
    cases = {
        "quote.csv": ("utf8", ["id,sex,comment", *rows, '99,F,a 5" screw', *rows], "refused it"),
        "latin.csv": ("latin-1", ["id,sex,comment", *rows, "99,F,caf\u00e9, bien"], "more fields"),
    }
    for name, (encoding, lines, said) in cases.items():
        path = tmp_path / name
        path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
        args = ["anonymize", str(path), "--qi", "sex", "--hierarchy", f"sex={tmp_path / 'sex.csv'}"]
        args += ["--identifier", "id", "--insensitive", "comment", "--k", "2"]
        args += ["--encoding", encoding, "--out", str(tmp_path / f"out_{name}")]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert f"{path}: " in err and said in err, err
