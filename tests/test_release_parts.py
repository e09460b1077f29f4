"""A release written as a folder of Parquet parts is proven on all the parts
read back together and renamed into place, or leaves nothing; and
`generalize(out=)` writes its release by the same proven write."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

import polars_anon as pa

QIS = ["sex", "age", "race", "marital-status", "education"]
LEVELS = {"sex": 0, "age": 2, "race": 1, "marital-status": 1, "education": 1}


@pytest.fixture(scope="module")
def searched() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult]:
    lf, hs = pa.datasets.adult()
    df = lf.collect()
    return df, hs, pa.search(df, QIS, hs, 5, 0.01, progress=False)


def rows(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(df.columns)


@pytest.mark.parametrize("how", ["rows", "slash", "empty folder"])
def test_parts_hold_the_release_each_at_most_partition_rows(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    how: str,
    tmp_path: Path,
) -> None:
    _, _, r = searched
    single = pl.read_parquet(r.sink_parquet(tmp_path / "single.parquet", criterion="min_loss"))
    folder = tmp_path / "parts"
    if how == "rows":
        written = r.sink_parquet(folder, criterion="min_loss", partition_rows=4000)
    elif how == "slash":
        written = r.sink_parquet(f"{folder}/", criterion="min_loss", partition_rows=4000)
    else:
        folder.mkdir()
        written = r.sink_parquet(folder, criterion="min_loss", partition_rows=4000)
    assert written == folder
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"part-{i:05d}.parquet" for i in range(len(names))]
    assert len(names) == -(-single.height // 4000)
    assert all(pl.read_parquet(folder / n).height <= 4000 for n in names)
    # the same rows as the single file, and nothing else beside the target
    assert rows(pl.read_parquet(folder)).equals(rows(single))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parts", "single.parquet"]
    # counted again with plain Polars: every group of at least k
    sizes = pl.scan_parquet(folder / "*.parquet").group_by(QIS).len().collect()
    assert int(sizes.get_column("len").min()) >= 5  # type: ignore[arg-type]


def test_a_folder_without_partition_rows_is_split_as_polars_splits_it(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    tmp_path: Path,
) -> None:
    _, _, r = searched
    written = r.sink_parquet(f"{tmp_path}/parts/")
    assert written == tmp_path / "parts"
    assert rows(pl.read_parquet(written)).equals(rows(r.apply().collect()))


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_source_changed_under_the_parts_leaves_nothing(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    suffix: str,
    tmp_path: Path,
) -> None:
    df, hs, _ = searched
    source_path = tmp_path / f"adult.{suffix}"
    (df.write_csv if suffix == "csv" else df.write_parquet)(source_path)
    source = pl.scan_csv(source_path) if suffix == "csv" else pl.scan_parquet(source_path)
    r = pa.search(source, QIS, hs, 5, 0.01, progress=False)
    out = tmp_path / "out"
    out.mkdir()
    for changed in (df.head(40), pl.concat([df, df.head(40)])):  # shorter, longer
        (changed.write_csv if suffix == "csv" else changed.write_parquet)(source_path)
        with pytest.raises(pa.NotAnonymousError, match="source"):
            r.sink_parquet(out / "parts", criterion="min_loss", partition_rows=3000)
        assert list(out.iterdir()) == []


def test_parts_interrupted_leave_nothing(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, _, r = searched

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    from polars_anon.release import parts

    # while streamed; and once the parts are written, while read back
    for owner, where in ((pl.LazyFrame, "sink_parquet"), (parts, "scan_parts")):
        with monkeypatch.context() as m:
            m.setattr(owner, where, interrupted)
            with pytest.raises(KeyboardInterrupt):
                r.sink_parquet(tmp_path / "parts", partition_rows=3000)
        assert list(tmp_path.iterdir()) == []


def test_parts_errors_are_named_before_any_work(
    searched: tuple[pl.DataFrame, dict[str, pa.Hierarchy], pa.SearchResult],
    tmp_path: Path,
) -> None:
    _, _, r = searched
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "other.txt").write_text("kept")
    with pytest.raises(pa.ConfigError, match="not empty"):
        r.sink_parquet(tmp_path / "full")
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["other.txt"]
    (tmp_path / "file.parquet").write_text("x")
    with pytest.raises(pa.ConfigError, match="is a file"):
        r.sink_parquet(tmp_path / "file.parquet", partition_rows=10)
    with pytest.raises(pa.ConfigError, match="does not exist"):
        r.sink_parquet(tmp_path / "nowhere" / "parts/")
    for bad in (0, -1, 2.5, True):
        with pytest.raises(pa.ConfigError, match="partition_rows"):
            r.sink_parquet(tmp_path / "parts", partition_rows=bad)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.parquet", "full"]


READ: dict[str, Callable[..., pl.DataFrame]] = {
    "parquet": pl.read_parquet,
    "csv": pl.read_csv,
    "ipc": pl.read_ipc,
    "arrow": pl.read_ipc,
    "feather": pl.read_ipc,
}


@pytest.mark.parametrize("suffix", sorted(READ))
def test_generalize_out_writes_the_proven_release(suffix: str, tmp_path: Path) -> None:
    lf, hs = pa.datasets.adult()
    path = tmp_path / f"release.{suffix}"
    written = pa.generalize(lf, hs, LEVELS, 5, 0.05, quasi_identifiers=QIS, out=path)
    assert written == path and [p.name for p in tmp_path.iterdir()] == [path.name]
    got = READ[suffix](path)
    expected = pa.generalize(lf, hs, LEVELS, 5, 0.05, quasi_identifiers=QIS).collect()
    if suffix == "csv":
        got = got.with_columns(pl.all().cast(pl.String))
        expected = expected.with_columns(pl.all().cast(pl.String))
    assert rows(got).equals(rows(expected))
    # and the namespaces' generalize, a folder of parts among them
    again = lf.anon.generalize(hs, LEVELS, 5, 0.05, quasi_identifiers=QIS, out=f"{tmp_path}/p/")
    assert again == tmp_path / "p"
    assert rows(pl.read_parquet(again)).equals(rows(READ["parquet"](tmp_path / "p")))
    assert pl.read_parquet(again).height == expected.height


def test_generalize_out_without_k_is_written_unproven(tmp_path: Path) -> None:
    lf, hs = pa.datasets.adult()
    path = tmp_path / "plain.parquet"
    written = pa.generalize(lf, hs, LEVELS, quasi_identifiers=QIS, out=path)
    expected = pa.generalize(lf, hs, LEVELS, quasi_identifiers=QIS).collect()
    assert rows(pl.read_parquet(written)).equals(rows(expected))
    assert [p.name for p in tmp_path.iterdir()] == ["plain.parquet"]


def test_generalize_out_on_a_changed_source_leaves_nothing(tmp_path: Path) -> None:
    """The write reads the source again and proves the file: a source that
    changes between the check and the write is refused (here: a plan that
    draws other rows each time it runs)."""
    lf, hs = pa.datasets.adult()
    half = lf.collect().lazy().filter(pl.int_range(pl.len()).shuffle() < pl.len() // 2)
    with pytest.raises(pa.NotAnonymousError, match="nothing was written"):
        pa.generalize(half, hs, LEVELS, 5, 0.5, quasi_identifiers=QIS, out=tmp_path / "r.csv")
    assert list(tmp_path.iterdir()) == []


def test_generalize_out_errors_are_named(tmp_path: Path) -> None:
    lf, hs = pa.datasets.adult()
    with pytest.raises(pa.ConfigError, match="suffix"):
        pa.generalize(lf, hs, LEVELS, 5, quasi_identifiers=QIS, out=tmp_path / "r.xlsx")
    with pytest.raises(pa.ConfigError, match="does not exist"):
        pa.generalize(lf, hs, LEVELS, 5, quasi_identifiers=QIS, out=tmp_path / "no" / "r.csv")
    assert list(tmp_path.iterdir()) == []


def test_generalize_out_on_duckdb_is_written_by_duckdb_and_proven(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    lf, hs = pa.datasets.adult()
    con = duckdb.connect()
    rel = con.from_arrow(lf.collect().to_arrow())
    # what DuckDB does not write here is refused before any work
    for out in (tmp_path / "r.ipc", f"{tmp_path}/parts/"):
        with pytest.raises(pa.ConfigError, match="duckdb's own writer"):
            pa.generalize(rel, hs, LEVELS, 5, 0.01, quasi_identifiers=QIS, out=out)
    assert list(tmp_path.iterdir()) == []
    local = pa.generalize(lf, hs, LEVELS, 5, 0.01, quasi_identifiers=QIS).collect()
    for name in ("r.parquet", "r.csv"):
        path = pa.generalize(rel, hs, LEVELS, 5, 0.01, quasi_identifiers=QIS, out=tmp_path / name)
        read = pl.read_parquet(path) if name.endswith("parquet") else pl.read_csv(path)
        got = read.select(local.columns).cast(dict(local.schema))
        assert got.sort(local.columns).equals(local.sort(local.columns)), name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.parquet"]
