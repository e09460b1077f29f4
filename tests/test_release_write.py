"""A release written to a file streams into a temporary file beside the
target, is read back and must hold exactly the groups that were checked,
and only then is moved into place: counted again here with plain Polars; a
source changed under it leaves nothing at the target."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from polars.io.plugins import register_io_source

import polars_anon as pa

QIS = ["sex", "age", "race", "marital-status", "education"]
READ = {"parquet": pl.read_parquet, "ipc": pl.read_ipc, "csv": pl.read_csv}


@pytest.fixture(scope="module")
def searched() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult]:
    lf, hs = pa.datasets.adult()
    df = lf.collect()
    return df, hs, pa.search(df, QIS, hs, 5, 0.01, progress=False)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "ipc"])
def test_the_written_file_is_the_release_and_passes_counted_again(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    fmt: str,
    tmp_path: Path,
) -> None:
    df, _, r = searched
    path = tmp_path / f"release.{fmt}"
    written = getattr(r, f"sink_{fmt}")(path, criterion="min_loss")
    assert written == path and sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    got = READ[fmt](path)
    in_memory = r.apply(criterion="min_loss").collect()
    if fmt == "csv":
        in_memory = in_memory.with_columns(pl.all().cast(pl.String))
        got = got.with_columns(pl.all().cast(pl.String))
    assert got.sort(got.columns).equals(in_memory.sort(in_memory.columns))
    # counted again: every group of at least k, at most 1% of the rows gone
    sizes = got.group_by(QIS).len().get_column("len")
    assert int(sizes.min()) >= 5  # type: ignore[arg-type]
    assert df.height - got.height <= 0.01 * df.height
    # another table (the same rows in another order) at the same levels
    again = getattr(r, f"sink_{fmt}")(
        tmp_path / f"again.{fmt}", data=df.reverse(), criterion="min_loss"
    )
    other = READ[fmt](again)
    if fmt == "csv":
        other = other.with_columns(pl.all().cast(pl.String))
    assert other.sort(other.columns).equals(got.sort(got.columns))


@pytest.mark.parametrize("copies", [1, 4])  # read whole by the core; in batches
def test_the_searched_lazyframe_is_released_from_the_search_s_preparation(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult], copies: int
) -> None:
    # result.apply(lf) of the very LazyFrame searched prepared it again: one
    # more read of the whole table, whose memory Polars' allocator kept
    # through the collect. Now it reads as result.apply() does, and releases
    # the same rows as another LazyFrame over the same table (prepared anew).
    # And a release of k alone read the table once more for the groups its
    # check expects, which the search's F0 holds
    df = pl.concat([searched[0]] * copies)
    hs = searched[1]
    reads: list[int] = []

    def source(
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        reads.append(1)
        frame = df if with_columns is None else df.select(with_columns)
        frame = frame if predicate is None else frame.filter(predicate)
        yield frame if n_rows is None else frame.head(n_rows)

    def read(make: object) -> int:
        before = len(reads)
        make()  # type: ignore[operator]
        return len(reads) - before

    lf = register_io_source(source, schema=df.schema)
    given, own = (pa.search(lf, QIS, hs, 5, 0.01, progress=False) for _ in range(2))
    assert read(lambda: given.apply(lf)) == read(lambda: own.apply())
    # a release of k alone takes its groups from the search's F0: the table
    # is read for what the other columns hold (no role: each counted, lest
    # one identify records) and when the release is collected (checked then)
    assert read(lambda: given.apply(lf, levels=given.best("min_loss"))) == 1
    assert read(lambda: given.apply(lf).collect()) == 2
    only = register_io_source(source, schema=df.select(QIS).schema)
    r = pa.search(only, QIS, hs, 5, 0.01, progress=False)
    assert read(lambda: r.apply(only).collect()) == 1
    released = given.apply(lf).collect()
    assert released.equals(own.apply().collect())
    assert released.equals(own.apply(df.lazy()).collect())
    assert int(released.group_by(QIS).len().get_column("len").min()) >= 5  # type: ignore[arg-type]


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_source_changed_under_the_write_leaves_nothing(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    suffix: str,
    tmp_path: Path,
) -> None:
    df, hs, _ = searched
    source_path = tmp_path / f"adult.{suffix}"
    (df.write_csv if suffix == "csv" else df.write_parquet)(source_path)
    source = pl.scan_csv(source_path) if suffix == "csv" else pl.scan_parquet(source_path)
    r = pa.search(source, QIS, hs, 5, 0.01, progress=False)
    out = tmp_path / "out" / "release.parquet"
    out.parent.mkdir()
    for changed in (df.head(40), pl.concat([df, df.head(40)])):  # shorter, longer
        (changed.write_csv if suffix == "csv" else changed.write_parquet)(source_path)
        with pytest.raises(pa.NotAnonymousError, match="source"):
            r.sink_parquet(out, criterion="min_loss")
        assert list(out.parent.iterdir()) == []


@pytest.mark.parametrize("rows", [2_001, 100_001])  # read whole by the core; in batches
def test_rows_added_to_a_suppressed_group_since_the_check_are_refused(
    rows: int, tmp_path: Path
) -> None:
    # rows added under a suppressed value leave the released groups as
    # checked: the release passed its check and suppressed 10 records where
    # max_suppression allowed 1 (helper-84); the source's rows are counted.
    # (A Parquet scan keeps the metadata it read first, rows included.)
    source = tmp_path / "t.csv"
    table = pl.DataFrame({"zip": ["10115", "10117"] * (rows // 2) + ["99999"]})
    table.write_csv(source)
    r = pa.search(pl.scan_csv(source), ["zip"], None, 5, max_suppression=1, progress=False)
    release = r.apply(levels={"zip": 0})
    assert release.collect().height == rows - 1  # as checked: released
    pl.concat([table, pl.DataFrame({"zip": ["99999"] * 9})]).write_csv(source)
    out = tmp_path / "out" / "release.parquet"
    out.parent.mkdir()
    said = f"checked as {rows} rows and now holds {rows + 9}"
    for attempt in (
        release.collect,
        lambda: r.apply(levels={"zip": 0}).collect(),
        lambda: r.sink_parquet(out, levels={"zip": 0}),
    ):
        with pytest.raises(pa.NotAnonymousError, match=said):
            attempt()
    assert list(out.parent.iterdir()) == []


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_pickled_release_of_a_source_gone_or_changed_is_refused(
    suffix: str, tmp_path: Path
) -> None:
    """A release read from a pickle knows its source's schema only by
    reading it again: a file gone or changed is refused as a changed
    source, not as Polars' own error (the copy of a release's text asked
    the plan its schema outside the read that refuses)."""
    import pickle

    path = tmp_path / f"t.{suffix}"
    table = pl.DataFrame({"sex": ["M", "F"] * 50, "job": ["ceo"] + ["clerk"] * 99})
    (table.write_csv if suffix == "csv" else table.write_parquet)(path)
    scan = pl.scan_csv(path) if suffix == "csv" else pl.scan_parquet(path)
    sex = {"sex": pa.Hierarchy.from_rows([["M", "*"], ["F", "*"]])}
    release = pa.generalize(
        scan, sex, {"sex": 1}, k=2, quasi_identifiers=["sex", "job"], max_suppression=1
    )
    blob = pickle.dumps(release)
    assert pickle.loads(blob).collect().height == 99
    table.rename({"job": "role"}).pipe(
        lambda t: t.write_csv(path) if suffix == "csv" else t.write_parquet(path)
    )
    with pytest.raises(pa.NotAnonymousError, match="source"):
        pickle.loads(blob).collect()
    path.unlink()
    with pytest.raises(pa.NotAnonymousError, match="source"):
        pickle.loads(blob).collect()


def test_a_target_that_cannot_be_written_is_refused_before_any_work(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    tmp_path: Path,
) -> None:
    _, _, r = searched
    with pytest.raises(pa.ConfigError, match="does not exist"):
        r.sink_parquet(tmp_path / "nowhere" / "release.parquet")
    with pytest.raises(pa.ConfigError, match="is a folder"):
        r.sink_csv(tmp_path)
    # a file named for another format than the one written
    for sink, name, other in (
        (r.sink_csv, "release.parquet", "sink_parquet"),
        (r.sink_parquet, "release.csv", "sink_csv"),
        (r.sink_ipc, "release.csv", "sink_csv"),
        (r.sink_csv, "release.arrow", "sink_ipc"),
    ):
        said = rf"ends in '\.\w+', which names [\w ]+: use {other}"
        with pytest.raises(pa.ConfigError, match=said):
            sink(tmp_path / name)
        assert not (tmp_path / name).exists()
    # a suffix no format has is the user's to choose
    r.sink_csv(tmp_path / "release.txt")
    assert pl.read_csv(tmp_path / "release.txt").height > 0


def test_a_path_or_levels_of_the_wrong_type_are_a_parameter_error(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult], tmp_path: Path
) -> None:
    """Named by the library (Python's own TypeError named neither the
    argument nor the call), and an AnonError as every error of it."""
    df, hs, r = searched
    for call, name, kind in (
        (lambda: r.sink_parquet(5), "path", "int"),
        (lambda: r.sink_csv(None), "path", "NoneType"),
        (lambda: r.sink_ipc(b"x.arrow"), "path", "bytes"),
        (lambda: pa.generalize(df, hs, r.best(), k=5, quasi_identifiers=QIS, out=5), "out", "int"),
        (lambda: pa.Job.from_toml(5), "path", "int"),
    ):
        with pytest.raises(pa.ParameterError, match=rf"^{name} must be a file path .* got {kind}"):
            call()
    with pytest.raises(pa.ParameterError, match=r"levels must be a mapping .* got int 5"):
        pa.generalize(df, hs, 5)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_levels_and_a_criterion_together_are_refused(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    tmp_path: Path,
) -> None:
    """The criterion chooses the levels: given both, one would be ignored."""
    df, _, r = searched
    top = dict.fromkeys(QIS, 1)
    for release in (
        lambda: r.apply(df, levels=top, criterion="min_loss"),
        lambda: r.sink_parquet(tmp_path / "x.parquet", levels=top, criterion="min_height"),
        lambda: r.quality(levels=top, criterion="min_loss"),
    ):
        with pytest.raises(pa.ConfigError, match=r"levels= and criterion='min_\w+' both given"):
            release()
    assert not (tmp_path / "x.parquet").exists()


def test_a_write_the_file_system_refuses_is_named_as_such_not_as_a_changed_source(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    df, hs, _ = searched
    source_path = tmp_path / "adult.parquet"
    df.write_parquet(source_path)
    r = pa.search(pl.scan_parquet(source_path), QIS, hs, 5, 0.01, progress=False)
    out = tmp_path / "out" / "release.parquet"
    out.parent.mkdir()
    real = pl.LazyFrame.sink_parquet

    def full(self: pl.LazyFrame, path: object, *args: object, **kwargs: object) -> object:
        if str(path).startswith(str(out.parent)):  # the target's, not the spool's
            raise OSError("No space left on device (os error 28)")
        return real(self, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", full)
    with pytest.raises(OSError, match=r"cannot write the release to .*out: No space left"):
        r.sink_parquet(out, criterion="min_loss")
    assert list(out.parent.iterdir()) == []
    monkeypatch.undo()
    # a source gone is still a source that changed, also one part of a glob
    # that the scan's plan does not list (it names its first file only)
    source_path.unlink()
    with pytest.raises(pa.NotAnonymousError, match="could not be read as it was"):
        r.sink_parquet(out, criterion="min_loss")
    assert list(out.parent.iterdir()) == []
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, part in enumerate(df.iter_slices(10_000)):
        part.write_parquet(parts / f"p{i}.parquet")
    r = pa.search(pl.scan_parquet(parts / "*.parquet"), QIS, hs, 5, 0.01, progress=False)
    (parts / "p3.parquet").unlink()
    with pytest.raises(pa.NotAnonymousError, match="could not be read as it was"):
        r.sink_parquet(out, criterion="min_loss")
    assert list(out.parent.iterdir()) == []


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_large_release_is_proven_on_a_spooled_file_not_held(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    suffix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past SPOOL_ROWS a release collected or sunk by Polars is written to a
    temporary file, proven there and read back in batches: the same rows,
    what is chained after it still applies, a changed source is refused,
    and the temporary file goes."""
    from polars_anon.release import guard

    df, hs, _ = searched
    source_path = tmp_path / f"adult.{suffix}"
    (df.write_csv if suffix == "csv" else df.write_parquet)(source_path)
    source = pl.scan_csv(source_path) if suffix == "csv" else pl.scan_parquet(source_path)
    release = pa.search(source, QIS, hs, 5, 0.01, progress=False).apply(criterion="min_loss")
    held = release.collect()
    spool = tmp_path / "spool"
    spool.mkdir()
    monkeypatch.setattr(guard, "SPOOL_ROWS", 0)
    monkeypatch.setattr("tempfile.tempdir", str(spool))
    spooled = release.collect()
    assert spooled.equals(held)
    assert release.collect(engine="streaming").sort(held.columns).equals(held.sort(held.columns))
    assert release.filter(pl.col("sex") == "Male").collect().height < held.height
    assert release.head(3).collect().height == 3
    release.sink_parquet(tmp_path / "idiom.parquet")
    assert (
        pl.read_parquet(tmp_path / "idiom.parquet")
        .sort(held.columns)
        .equals(held.sort(held.columns))
    )
    assert list(spool.iterdir()) == []
    (df.head(40).write_csv if suffix == "csv" else df.head(40).write_parquet)(source_path)
    with pytest.raises(pa.NotAnonymousError, match="source"):
        release.collect()
    assert list(spool.iterdir()) == []


def test_a_plan_that_draws_other_rows_each_time_is_named_as_such() -> None:
    """A release of a random filter is refused at every collect; the error
    says what is happening and what to do, rather than that a source changed
    from 15081 rows to 15081 rows."""
    lf, hs = pa.datasets.adult()
    half = lf.collect().lazy().filter(pl.int_range(pl.len()).shuffle() < pl.len() // 2)
    levels = {"sex": 0, "age": 2, "race": 1}
    release = pa.generalize(half, hs, levels, 5, 0.5, quasi_identifiers=["sex", "age", "race"])
    with pytest.raises(pa.NotAnonymousError, match="other rows each time it runs") as e:
        release.collect()
    assert "collect the data first" in str(e.value)


def test_a_write_interrupted_leaves_nothing_at_the_target(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while the release is streamed (or read back) leaves neither the
    target nor a temporary file, and is not turned into another error."""
    _, _, r = searched
    path = tmp_path / "release.parquet"

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    from polars_anon.release import guard

    # while streamed; and once the temporary file is written, while read back
    for owner, where in ((pl.LazyFrame, "sink_parquet"), (guard, "read_back")):
        with monkeypatch.context() as m:
            m.setattr(owner, where, interrupted)
            with pytest.raises(KeyboardInterrupt):
                r.sink_parquet(path, criterion="min_loss")
        assert list(tmp_path.iterdir()) == []
    r.sink_parquet(path, criterion="min_loss")
    assert [p.name for p in tmp_path.iterdir()] == ["release.parquet"]


def test_ctrl_c_waits_for_the_write_and_leaves_nothing(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A real SIGINT while Polars' sink runs: raised at once, it left the
    sink's own threads to make the temporary file (whole) after it was
    removed (helper-86: a 6.5 MB unproven release beside --out). It is held
    until the write ends, then raised, and nothing is moved into place."""
    import os
    import signal
    import time

    _, _, r = searched
    path = tmp_path / "release.parquet"
    real = pl.LazyFrame.sink_parquet
    after: list[bool] = []

    def interrupted_while_writing(self: pl.LazyFrame, *args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # a signal raised at once interrupts this
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        after.append(True)

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", interrupted_while_writing)
    # restored after: Python's own handler, or one a library installed
    # (Spark's, once a session ran in this process)
    handler = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        r.sink_parquet(path, criterion="min_loss")
    assert after == [True]
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGINT) is handler


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_numbers_kept_as_they_are_are_checked_as_the_values_they_are(
    fmt: str, tmp_path: Path
) -> None:
    # the guard groups values as they are and compares them as text: -0.0
    # is released as 0.0 (one number), -0.0 and 0.0 in one group
    df = pl.DataFrame(
        {
            "x": [-0.0, 0.0, 0.0, -0.0, 1.5, 1.5, 2.5, 2.5],
            "n": [7, 7, 7, 7, 10**15, 10**15, -3, -3],
            "z": ["a", "a", "a", "a", "b", "b", None, None],
        }
    )
    r = pa.search(df, ["x", "n", "z"], None, 2, 0, progress=False, nulls="value")
    assert r.best("min_loss") == {"x": 0, "n": 0, "z": 0}
    released = r.apply(df).collect()
    assert released.equals(df.with_columns(x=pl.col("x").abs()))
    path = (
        r.sink_parquet(tmp_path / "r.parquet")
        if fmt == "parquet"
        else r.sink_csv(tmp_path / "r.csv")
    )
    got = READ[fmt](path)
    sizes = got.group_by(pl.col("x").cast(pl.String), "n", "z").len().get_column("len")
    assert got.height == 8 and sorted(sizes.to_list()) == [2, 2, 4]


@pytest.mark.parametrize(
    "dtype",
    [
        pl.Datetime("us"),
        pl.Datetime("ns"),
        pl.Datetime("ms", "UTC"),
        pl.Datetime("us", "Asia/Kolkata"),
    ],
)
def test_date_times_written_as_text_are_proven_as_date_times(
    dtype: pl.DataType, tmp_path: Path
) -> None:
    # a CSV writes 2020-01-01T12:00:00.123456 where the checked groups hold
    # Polars' text 2020-01-01 12:00:00.123456: read back as date-times, the
    # file is proven; a k-anonymous release was refused before
    moments = [dt.datetime(2020, 1, 1, 12, 0, 0, 123456), dt.datetime(2021, 6, 1)]
    column = pl.Series("t", moments * 3).cast(dtype)
    df = pl.DataFrame({"t": column, "z": ["a", "b"] * 3})
    r = pa.search(df, ["t", "z"], None, 3, 0, progress=False)
    path = r.sink_csv(tmp_path / "r.csv")
    got = pl.read_csv(path, infer_schema=False)
    assert got.height == 6 and got.group_by("t", "z").len().get_column("len").min() == 3
    typed = got.with_columns(
        pl.col("t").str.to_datetime(time_unit=dtype.time_unit, time_zone=dtype.time_zone)  # type: ignore[attr-defined]
    )
    assert typed.sort("t", "z").equals(df.sort("t", "z"))


def test_date_times_a_duckdb_csv_holds_are_proven_as_date_times(tmp_path: Path) -> None:
    # DuckDB writes 2021-06-01 00:00:00 where Polars' text has .000000
    duckdb = pytest.importorskip("duckdb")
    moments = [dt.datetime(2020, 1, 1, 12, 0, 0, 123456), dt.datetime(2021, 6, 1)]
    df = pl.DataFrame({"t": moments * 3, "z": ["a", "b"] * 3})
    rel = duckdb.connect().from_arrow(df.to_arrow())
    r = pa.search(rel, ["t", "z"], None, 3, 0, progress=False)
    got = pl.read_csv(r.sink_csv(tmp_path / "r.csv"), try_parse_dates=True)
    assert got.sort("t", "z").equals(df.sort("t", "z"))


def test_a_nan_a_duckdb_csv_holds_is_proven_as_nan(tmp_path: Path) -> None:
    # DuckDB writes NaN as nan where Polars' text is NaN: the release was refused
    duckdb = pytest.importorskip("duckdb")
    df = pl.DataFrame({"sex": ["F", "F", "M", "M"], "lab": [1.5, float("nan"), 2.0, -3.25]})
    rel = duckdb.connect().from_arrow(df.to_arrow())
    hs = {"sex": pa.Hierarchy.from_rows([["F", "*"], ["M", "*"]])}
    diverse = [pa.DistinctLDiversity(2, "lab")]
    r = pa.search(rel, ["sex"], hs, 2, 0, criteria=diverse, progress=False)
    got = pl.read_csv(r.sink_csv(tmp_path / "r.csv", levels={"sex": 0}))
    assert got.get_column("sex").to_list() == ["F", "F", "M", "M"]
    lab = got.get_column("lab").cast(pl.Float64).to_list()
    assert lab[0] == 1.5 and lab[1] != lab[1] and lab[2:] == [2.0, -3.25]


def test_a_time_is_refused_as_a_quasi_identifier_with_the_cast_that_keeps_it() -> None:
    # Polars writes 10:00:00.1 as text "10:00:00": three distinct times were
    # checked as one group of three, and released as they are
    times = [dt.time(10, 0, 0, 100000), dt.time(10, 0, 0, 200000), dt.time(10, 0, 0, 300000)]
    df = pl.DataFrame({"t": times, "z": ["a"] * 3})
    for call in (
        lambda: pa.search(df, ["t", "z"], None, 3, 0, progress=False),
        lambda: pa.check(df, ["t", "z"], 3, None, {"t": 0, "z": 0}),
        lambda: pa.search(df, ["z"], None, 3, 0, criteria=[pa.DistinctLDiversity(2, "t")]),
    ):
        with pytest.raises(pa.ConfigError, match=r"column 't' is of type Time.*%H:%M:%S%\.f"):
            call()
    as_text = df.with_columns(pl.col("t").dt.to_string("%H:%M:%S%.f"))
    report = pa.check(as_text, ["t", "z"], 3, None, {"t": 0, "z": 0})
    assert not report.k_anonymous and report.groups == 3


def test_a_csv_release_takes_a_separator_and_is_proven_with_it(tmp_path: Path) -> None:
    # a field holding the other separator: read back with the wrong one, the
    # proof would fail
    df = pl.DataFrame({"a": ["x", "y"] * 3, "note": ["p,q", "r"] * 3})
    r = pa.search(df, ["a"], None, 3, 0, progress=False, insensitive=["note"])
    path = r.sink_csv(tmp_path / "r.csv", separator=";")
    assert path.read_text().splitlines()[:2] == ["a;note", "x;p,q"]
    got = pl.read_csv(path, separator=";")
    assert got.equals(df)
    duck = pytest.importorskip("duckdb").connect().from_arrow(df.to_arrow())
    on_duckdb = pa.search(duck, ["a"], None, 3, 0, progress=False, insensitive=["note"])
    got = pl.read_csv(on_duckdb.sink_csv(tmp_path / "d.csv", separator="|"), separator="|")
    assert got.sort("a", "note").equals(df.sort("a", "note"))
    for bad in (";;", "", "é"):
        with pytest.raises(pa.ConfigError, match="separator must be one character"):
            r.sink_csv(tmp_path / "bad.csv", separator=bad)
    # (the quote: Polars' writer failed after the work, DuckDB's binder too)
    for bad in ('"', "\n"):
        for result in (r, on_duckdb):
            with pytest.raises(pa.ConfigError, match="frames a CSV's fields"):
                result.sink_csv(tmp_path / "bad.csv", separator=bad)
    assert not (tmp_path / "bad.csv").exists()


def test_no_byte_of_a_suppressed_record_in_a_release(tmp_path: Path) -> None:
    """A filter keeps text as views into the table's buffers, which an
    Arrow IPC file or a pickle writes whole: the suppressed record's
    unique job, its comment and its tags travelled in every .arrow release
    and every pickled DataFrame. Not in any release now, however taken out
    (in memory, proven files, unproven ones, the CLI)."""
    import io
    import pickle

    from polars_anon.cli import main

    n = 2000
    table = pl.DataFrame(
        {
            "sex": ["M", "F"] * (n // 2),
            "job": ["Chief executive of Acme Widgets"]
            + [f"worker in a long-named department {i % 10}" for i in range(1, n)],
            "note": ["a secret comment that is long"]
            + [f"an ordinary comment that is long {i % 7}" for i in range(1, n)],
            "tags": [["a secret tag that is long"]]
            + [[f"a tag that is rather long {i % 5}"] for i in range(1, n)],
        }
    )
    secrets = [b"Chief executive", b"secret comment", b"secret tag"]
    hs = {"sex": [["M", "*"], ["F", "*"]]}
    kw: dict[str, object] = {
        "quasi_identifiers": ["sex", "job"],
        "insensitive": ["note", "tags"],
        "max_suppression": 5,
    }
    out = pa.generalize(table, hs, {"sex": 0}, k=2, **kw).collect()  # type: ignore[arg-type]
    assert out.height == n - 1
    written = io.BytesIO()
    out.write_ipc(written)
    held = [written.getvalue(), pickle.dumps(out)]
    flat = table.drop("tags")  # (a CSV holds no lists)
    for suffix in ("arrow", "parquet", "csv"):
        data, roles = (flat, ["note"]) if suffix == "csv" else (table, ["note", "tags"])
        target = tmp_path / f"r.{suffix}"
        path = pa.generalize(data, hs, {"sex": 0}, k=2, out=target, **{**kw, "insensitive": roles})  # type: ignore[arg-type]
        held.append(path.read_bytes())
    r = pa.search(table, ["sex", "job"], hs, 2, 5, insensitive=["note", "tags"], progress=False)
    held.append(r.sink_ipc(tmp_path / "s.ipc", levels={"sex": 0, "job": 0}).read_bytes())
    flat.write_csv(tmp_path / "t.csv")
    args = ["anonymize", str(tmp_path / "t.csv"), "--qi", "sex", "--qi", "job"]
    args += ["--k", "2", "--max-suppression", "5", "--insensitive", "note"]
    assert main([*args, "--out", str(tmp_path / "cli.arrow")]) == 0
    held.append((tmp_path / "cli.arrow").read_bytes())
    for i, data in enumerate(held):
        assert not [s for s in secrets if s in data], i


def test_no_byte_of_a_record_left_out_of_a_sample_or_of_a_recoded_cell() -> None:
    """SafePub's sample drops records by a filter (their text stayed in the
    buffers when nothing was suppressed), and local recoding gathered each
    cell's label from every label of every level (a recoded cell's own
    value stayed)."""
    import io
    import pickle

    secret = "a secret job title long enough for a buffer"

    def held(frame: pl.DataFrame) -> bool:
        written = io.BytesIO()
        frame.write_ipc(written)
        return secret.encode() in written.getvalue() + pickle.dumps(frame)

    n = 2000
    jobs = [secret] + [["nurse", "teacher", "clerk"][i % 3] for i in range(1, n)]
    table = pl.DataFrame({"job": jobs})
    hs = {"job": pa.Hierarchy.from_rows([[j, "*"] for j in sorted(set(jobs))])}
    # seed 11: the secret's record is not drawn, and nothing is suppressed
    r = pa.differential_privacy(
        table, ["job"], hs, epsilon=2.0, delta=1e-2, seed=11, generalization={"job": 0}
    )
    assert r.suppressed == 0 and r.sampled < n
    out = r.apply().collect()
    assert secret not in out.get_column("job").to_list() and not held(out)
    sex = ["M", "F"] * 100
    small = pl.DataFrame({"sex": sex, "job": [secret] + ["clerk"] * 199})
    recoded = pa.local_recoding(
        small,
        ["sex", "job"],
        {
            "sex": [["M", "*"], ["F", "*"]],
            **{"job": pa.Hierarchy.from_rows([[secret, "*"], ["clerk", "*"]])},
        },
        2,
    ).data
    assert secret not in recoded.get_column("job").to_list() and not held(recoded)


def test_a_csv_release_of_columns_named_with_quotes(tmp_path: Path) -> None:
    """A CSV header quotes a name holding a quote (`a"b` as `"a""b"`), and
    Polars reads such a header back with the quote doubled: the proof of the
    written file failed with a KeyError. The file's columns are taken as
    the release's, in order."""
    import csv

    df = pl.DataFrame({'a"b': ["x", "y", "z"] * 4, 'n "2"': ["p", "q"] * 6, "v": range(12)})
    kw = {"quasi_identifiers": ['a"b', 'n "2"'], "insensitive": ["v"]}
    want = pa.generalize(df, {}, {'a"b': 0, 'n "2"': 0}, k=2, **kw).collect()  # type: ignore[arg-type]
    path = pa.generalize(df, {}, {'a"b': 0, 'n "2"': 0}, k=2, out=tmp_path / "r.csv", **kw)  # type: ignore[arg-type]
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ['a"b', 'n "2"', "v"]
    back = pl.DataFrame(rows[1:], schema=rows[0], orient="row")
    assert back.sort("v").equals(want.with_columns(pl.col("v").cast(pl.String)).sort("v"))


def test_a_sample_drawing_values_not_searched_is_named_as_such() -> None:
    """A plan in memory that draws another sample at each run brings
    values of a kept column the release's check has no code for: refused,
    saying that a plan may give other rows each time, and naming no file
    where the source is none (a Python source was named as an empty one)."""
    df = pl.DataFrame({"q": [f"value-{i % 40:03d}" for i in range(400)], "rid": range(400)})

    def drawn(*_: object) -> Iterator[pl.DataFrame]:
        yield df.sample(60)

    python_source = register_io_source(drawn, schema=df.schema)
    for lf in (df.lazy().select(pl.all().sample(n=60, seed=None)), python_source):
        release = pa.generalize(lf, {}, {"q": 0}, k=1, quasi_identifiers=["q"], insensitive=["rid"])
        with pytest.raises(pa.NotAnonymousError, match="other rows each time it runs") as e:
            release.collect()
        said = str(e.value)
        assert "collect it first" in said or "collect the data first" in said
        assert "source ()" not in said


def test_no_byte_of_a_suppressed_record_under_a_released_null(tmp_path: Path) -> None:
    """Polars' Parquet reader leaves a null's view on its neighbour's text,
    and its IPC writer (classic layout) copied the bytes under every view:
    a released row's null note carried the suppressed record's note in
    every .arrow release read from Parquet (helper-86)."""
    from polars_anon.cli import main

    n = 40
    zips = ["01069"] * n
    zips[21] = "09999"  # alone: suppressed
    notes: list[str | None] = [
        None if i % 2 == 0 else f"ordinary note number {i:03d} with padding" for i in range(n)
    ]
    notes[21] = "SUPPRESSED-PERSON lives at 12 Secret Road"  # beside row 20's null
    source = tmp_path / "in.parquet"
    pl.DataFrame({"zip": zips, "note": notes}).write_parquet(source)
    hs = {"zip": [["01069", "0****", "*"], ["09999", "0****", "*"]]}
    kw: dict[str, object] = {"quasi_identifiers": ["zip"], "insensitive": ["note"]}
    held = []
    for i, data in enumerate((pl.scan_parquet(source), pl.read_parquet(source))):
        path = pa.generalize(data, hs, {"zip": 0}, 5, 1, out=tmp_path / f"g{i}.arrow", **kw)  # type: ignore[arg-type]
        held.append(Path(path).read_bytes())
        r = pa.search(data, ["zip"], hs, 5, 1, insensitive=["note"], progress=False)
        held.append(r.sink_ipc(tmp_path / f"s{i}.ipc", levels={"zip": 0}).read_bytes())
    (tmp_path / "zip.csv").write_text("01069;0****;*\n09999;0****;*\n")
    args = ["anonymize", str(source), "--qi", "zip", "--hierarchies", str(tmp_path), "--k", "5"]
    args += ["--max-suppression", "1", "--insensitive", "note", "--out", str(tmp_path / "c.arrow")]
    assert main(args) == 0
    held.append((tmp_path / "c.arrow").read_bytes())
    assert pl.read_ipc(tmp_path / "c.arrow").height == n - 1
    for i, data in enumerate(held):
        assert b"SUPPRESSED-PERSON" not in data, i
