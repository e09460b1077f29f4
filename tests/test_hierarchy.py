from __future__ import annotations

import filecmp
from pathlib import Path

import polars as pl
import pytest

import polars_anon as pa
from polars_anon.prepare.labels import present_labels

ROOT = Path(__file__).resolve().parent.parent


def test_reads_arx_csv_and_round_trips_json() -> None:
    h = pa.Hierarchy.from_csv(ROOT / "hierarchies" / "adult" / "age.csv", sep=";")
    assert h.height == 4
    assert len(h.leaves) == 100  # ARX lists ages 1..100, more than Adult uses
    assert h.levels[4] == ["*"]
    assert h.leaf_labels(1)[h.leaves.index("39")] == "35-39"
    again = pa.Hierarchy.from_json(h.to_json())
    assert again == h and again.levels == h.levels
    assert pa.Hierarchy.from_csv_text(h.to_csv(sep=","), sep=",") == h


def test_levels_read_one_at_a_time_agree_with_the_whole_tree() -> None:
    # rows out of order, a label shared by non-adjacent rows and a repeated row
    rows = [["b", "x", "*"], ["a", "y", "*"], ["c", "x", "*"], ["b", "x", "*"], ["d", "y", "*"]]
    h = pa.Hierarchy.from_rows(rows)
    assert h.leaves == ["b", "a", "c", "d"]
    assert h.levels == [["b", "a", "c", "d"], ["x", "y"], ["*"]]
    for lvl in range(h.height + 1):
        assert h.labels_at(lvl) == h.levels[lvl]
        everything = dict(zip(h.leaves, h.leaf_labels(lvl), strict=True))
        # the leaves among some values (one given twice), in leaf order,
        # with their labels; values that are no leaf are left out
        leaves, labels, names = present_labels(h, lvl, pl.Series(["d", "zz", "b", "d"]))
        assert leaves.to_list() == ["b", "d"]
        assert labels.to_list() == [everything["b"], everything["d"]]
        assert names == list(dict.fromkeys(labels.to_list()))
    assert h.rows == [["b", "x", "*"], ["a", "y", "*"], ["c", "x", "*"], ["d", "y", "*"]]
    with pytest.raises(pa.ConfigError, match="level"):
        h.labels_at(3)


def test_from_rows_and_read_hierarchies(tmp_path: Path) -> None:
    h = pa.Hierarchy.from_rows([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"]])
    assert h.levels == [["a", "b", "c"], ["x", "y"], ["*"]]
    (tmp_path / "arx_hierarchy_color.csv").write_text("red;*\nblue;*\n")
    (tmp_path / "size.csv").write_text("S;*\nL;*\n")
    hs = pa.read_hierarchies(tmp_path)
    assert sorted(hs) == ["color", "size"]
    assert hs["color"].leaves == ["red", "blue"]
    mixed = pa.read_hierarchies({"a": h, "b": [["1", "*"], ["2", "*"]], "c": tmp_path / "size.csv"})
    assert mixed["b"].height == 1 and mixed["c"].leaves == ["S", "L"]


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("", ["empty"]),
        ("a;x;*\nb;x\n", ["row 2", "ragged"]),
        ("a;x;*\na;y;*\n", ['"a"', "rows 1", "and 2", "different"]),
        ("a;x;*\nb;y;*\nc;x;+\n", ["not a tree", '"x"', "row 3"]),
        ("a;*\nb;+\n", ["top level", '"+"']),
    ],
)
def test_bad_hierarchies_name_file_row_and_value(
    tmp_path: Path, text: str, fragments: list[str]
) -> None:
    path = tmp_path / "zip.csv"
    path.write_text(text)
    with pytest.raises(pa.HierarchyError) as err:
        pa.Hierarchy.from_csv(path)
    message = str(err.value)
    assert "zip.csv" in message
    for f in fragments:
        assert f in message, message
    assert isinstance(err.value, pa.AnonError)


def test_shipped_hierarchies_match_the_bundled_ones() -> None:
    bundled = ROOT / "python" / "polars_anon" / "data"
    for name in ("adult", "patients", "race_zip"):
        shipped = sorted(p.name for p in (ROOT / "hierarchies" / name).glob("*.csv"))
        assert shipped
        for f in shipped:
            assert filecmp.cmp(
                ROOT / "hierarchies" / name / f, bundled / name / "hierarchies" / f, shallow=False
            )
        assert pa.read_hierarchies(ROOT / "hierarchies" / name).keys() == set(
            Path(f).stem for f in shipped
        )


def test_rows_of_the_wrong_type_are_named_by_row_and_column() -> None:
    """Numbers, None, a string for a row or for the rows: a ParameterError
    (an AnonError, as every error of the library, and a TypeError) that
    names the row and column in the library's words (not pyo3's)."""
    cases = [
        ([["a", 1]], r"row 0, column 1: labels must be strings, got int 1"),
        ([["a", "*"], ["b", None]], r"row 1, column 1: labels must be strings, got NoneType"),
        ([["a", "*"], "b"], r"row 1 must be a list of strings \(leaf first\), got str: 'b'"),
        ("ab", r"rows must be a list of rows"),
        (7, r"rows must be a list of rows .* got int"),
    ]
    for rows, message in cases:
        with pytest.raises(pa.ParameterError, match=message) as raised:
            pa.Hierarchy.from_rows(rows)  # type: ignore[arg-type]
        assert isinstance(raised.value, pa.AnonError) and isinstance(raised.value, TypeError)
    assert pa.Hierarchy.from_rows((("a", "*"), ("b", "*"))).height == 1


def test_text_arguments_are_refused_by_name() -> None:
    """A non-text source, text or separator is the library's error naming
    the parameter, not pyo3's conversion error (#37)."""
    rows = [["a", "*"], ["b", "*"]]
    with pytest.raises(pa.ConfigError, match="source must be text, got int"):
        pa.Hierarchy.from_rows(rows, source=1)  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match="text must be text, got bytes"):
        pa.Hierarchy.from_csv_text(b"a;*")  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match="sep must be text, got int"):
        pa.Hierarchy.from_csv_text("a;*", sep=59)  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match="path must be a file path"):
        pa.Hierarchy.from_csv(3)  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match="text must be text"):
        pa.Hierarchy.from_json(None)  # type: ignore[arg-type]
    assert pa.Hierarchy.from_rows(rows, source="mine") == pa.Hierarchy.from_csv_text("a;*\nb;*")


def test_a_hierarchy_under_a_misspelt_column_is_refused() -> None:
    """A hierarchy keyed ``sex`` for the column ``Sex`` left Sex at its own
    values (height 0) without a word; a key that is a column, or a
    hierarchy of a column not searched, is fine."""
    lf, hs = pa.datasets.patients()
    with pytest.raises(pa.ConfigError, match=r"one is given for 'sex'.*did you mean 'Sex'"):
        pa.search(lf, ["Sex", "Zipcode"], {"sex": hs["Sex"], "Zipcode": hs["Zipcode"]}, k=2)
    with pytest.raises(pa.ConfigError, match="one is given for ' ZIPCODE'"):
        pa.check(lf, ["Zipcode"], 2, {" ZIPCODE": hs["Zipcode"]})
    assert pa.search(lf, ["Sex"], hs, k=2, progress=False).best() == {"Sex": 0}
    both = lf.with_columns(pl.col("Sex").alias("sex"))
    result = pa.search(both, ["Sex"], {"sex": hs["Sex"]}, k=2, progress=False)
    assert result.quasi_identifiers == ["Sex"]
