"""`quality`: ARX's quality statistics of a release, from the table (on
Polars, DuckDB or Spark, or a frequency set), its hierarchies and levels;
and the same for a prepared table (a check's, a search's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polars_anon._core import ConfigError
from polars_anon.criteria.base import Criteria, sensitive_of
from polars_anon.inputs.hierarchies import Hierarchies
from polars_anon.inputs.nulls import Nulls
from polars_anon.inputs.params import Levels, check_k
from polars_anon.prepare.f0 import prepare
from polars_anon.prepare.prepared import Prepared
from polars_anon.utility.release import released
from polars_anon.utility.report import QualityReport, report


def quality(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies | None,
    levels: Levels,
    k: int = 1,
    max_suppression: int | float = 0,
    criteria: Criteria = None,
    nulls: Nulls = "error",
) -> QualityReport:
    """ARX 3.9's quality statistics (`StatisticsQuality`) of the release of
    ``data`` with ``quasi_identifiers`` generalized to ``levels``, figure for
    figure as ARX reports them for the same release: per attribute,
    generalization intensity, granularity, non-uniform entropy, missings
    and squared error; for the dataset, ambiguity, AECS, discernibility,
    record-level squared error and SSE/SST (see `QualityReport`).

    The release's records are suppressed as `generalize` and ``apply``
    suppress them: the groups smaller than ``k`` or failing ``criteria``,
    which must be at most ``max_suppression`` (an int: records; a float in
    [0, 1): a fraction of the rows), else `NotAnonymousError` is raised, as
    `generalize` raises it (ARX would still report such a release, with
    those groups suppressed). A suppressed record is ``*`` in every
    quasi-identifier, as in an ARX output. Only quasi-identifiers are
    measured, as in ARX.

    Everything is computed from the frequency set (the distinct
    quasi-identifier tuples with their counts), so ``data`` may be a
    DuckDB relation, a Spark DataFrame or a `FrequencySet` (whose columns'
    types count as a table's: `frequency_set` gives text, read as ARX's
    ``String``).

    Data types: ARX's squared errors depend on the declared data type. A
    Polars integer column is read as ARX's ``Integer`` and a float or
    decimal column as ``Decimal``: values are numbers, and a generalized
    value stands for the interval from the least to the greatest original
    value released under its label (ARX does not parse labels such as
    ``[20, 30[``). Every other column (strings, dates, booleans) is read as
    ARX's ``String``, its values numbered by the rows of its hierarchy
    table, in the table's order. To get ARX's figures for a column ARX
    holds as ``String`` (its default), cast the column to ``pl.String``.
    A hierarchy counts all of its rows (the domain size D), also the values
    the data lacks. A quasi-identifier without a hierarchy has its distinct
    values, sorted, and ``*`` above them as its hierarchy. One ARX
    behaviour is not reproduced: its discernibility squares a class's size
    in Java ``int``, which wraps for classes of more than 46,340 records.

    >>> import polars as pl
    >>> from polars_anon import Hierarchy
    >>> df = pl.DataFrame({"age": [20, 28, 31, 39, 31, 39], "sex": list("MMFFMF")})
    >>> ages = [["20", "20-29"], ["28", "20-29"], ["31", "30-39"], ["39", "30-39"]]
    >>> hs = {"age": Hierarchy.from_rows([[*r, "*"] for r in ages]),
    ...       "sex": Hierarchy.from_rows([["M", "*"], ["F", "*"]])}
    >>> q = quality(df, ["age", "sex"], hs, {"age": 1, "sex": 0}, k=2, max_suppression=1)
    >>> q.suppressed  # (30-39, M) is alone
    1
    >>> q.attributes.select("attribute", "generalization_intensity").rows()
    [('age', 0.41666666666666663), ('sex', 0.8333333333333334)]
    >>> q.attributes.get_column("missings").to_list()  # the share missing, as ARX reports it
    [0.16666666666666663, 0.16666666666666663]
    >>> round(q.aecs, 4), round(q.discernibility, 4)
    (0.7292, 0.6071)
    """
    prep = prepare(data, quasi_identifiers, hierarchies, sensitive_of(criteria), nulls)
    return quality_prepared(prep, prep.levels(levels), k, max_suppression, criteria)


def quality_prepared(
    prep: Prepared,
    levels: Sequence[int],
    k: int,
    max_suppression: int | float,
    criteria: Criteria = None,
) -> QualityReport:
    """`quality` of a prepared table at `levels` (one per quasi-identifier,
    checked): what `CheckReport.quality` and `SearchResult.quality` call.
    A table grouped at floor levels (a search on DuckDB or Spark) is
    grouped again at its raw values, which the measures need."""
    if prep.floors is not None:
        prep = _unfloored(prep)
    return report(released(prep, levels, check_k(k, prep.rows), max_suppression, criteria))


def _unfloored(prep: Prepared) -> Prepared:
    """`prep`'s table grouped by its raw values (not at floor levels)."""
    if prep.source is None or prep.engine == "counts":
        raise ConfigError(
            "this frequency set was grouped at floor levels, which loses the original "
            "values the quality measures need: pass the table to polars_anon.quality"
        )
    qis = prep.quasi_identifiers
    return prepare(
        prep.source,
        qis,
        dict(zip(qis, prep.hierarchies, strict=True)),
        prep.sensitive,
        prep.nulls,
    )
