"""Sun et al.'s top-down local recoding (Localpk): cell-level generalization."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_anon import _core
from polars_anon._core import ConfigError
from polars_anon.criteria.base import Criteria, sensitive_of, specs
from polars_anon.inputs.frames import as_lazy, check_groupable, unknown_columns, zeros_folded
from polars_anon.inputs.hierarchies import Hierarchies, check_zeros, resolve_hierarchies
from polars_anon.inputs.nulls import no_nulls
from polars_anon.inputs.params import check_k, columns_of
from polars_anon.prepare.encode import encode_values
from polars_anon.release.buffers import compacted
from polars_anon.reports.render import names_text
from polars_anon.results.local import LocalRecoding
from polars_anon.roles.polars import identify
from polars_anon.roles.resolve import resolve
from polars_anon.roles.spec import Identifiers, roles_of


def local_recoding(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies,
    k: int,
    criteria: Criteria = None,
    identifiers: Identifiers | None = None,
    insensitive: Sequence[str] | None = None,
) -> LocalRecoding:
    """Top-down local recoding (Sun et al. 2010, Algorithm 1) for k-anonymity with
    sensitive-attribute ``criteria`` such as `PPlusSensitive` or `PAlphaSensitive`.

    The table is materialized (the algorithm moves individual tuples); row
    order is kept. The other columns are handled as in a release
    (``identifiers``, ``insensitive``: see `polars_anon.search`): an
    undeclared one that would identify records is refused.

    >>> import polars as pl
    >>> import polars_anon as pa
    >>> zip_h = pa.Hierarchy.from_rows([["14248", "1424*", "*"], ["14247", "1424*", "*"]])
    >>> df = pl.DataFrame({"zip": ["14248", "14248", "14248", "14247"],
    ...                    "disease": ["HIV", "Indigestion", "Flu", "Cancer"]})
    >>> cats = [["HIV", "Cancer"], ["Flu", "Indigestion"]]
    >>> out = local_recoding(df, ["zip"], {"zip": zip_h}, 2,
    ...                      [pa.PAlphaSensitive(2, 1, "disease", cats)])
    >>> out.data.get_column("zip").to_list()
    ['14248', '14248', '1424*', '1424*']
    """
    sens = sensitive_of(criteria)
    qis = columns_of(quasi_identifiers, sens)
    frame = as_lazy(data).collect()
    unknown = [c for c in qis + sens if c not in frame.columns]
    if unknown:
        raise ConfigError(unknown_columns(unknown, frame.columns))
    hs_by_col = resolve_hierarchies(hierarchies, qis)
    missing_h = [q for q in qis if q not in hs_by_col]
    if missing_h:
        raise ConfigError(
            "local recoding needs a hierarchy for every quasi-identifier; none for "
            + names_text(missing_h)
        )
    check_groupable(frame.schema, qis + sens, qis)
    check_zeros(hs_by_col, [q for q in qis if frame.schema[q].is_float()])
    frame = zeros_folded(frame.lazy(), qis + sens).collect()
    k = check_k(k, frame.height)
    roles = resolve(frame, "polars", frame.height, qis, sens, roles_of(identifiers, insensitive))
    hs = [hs_by_col[q] for q in qis]
    qi_codes: list[pl.Series | bytes] = []
    sens_codes: list[pl.Series | bytes] = []
    globals_: list[list[float]] = []
    values_of: dict[str, list[str]] = {}
    for q, h in zip(qis, hs, strict=True):
        col = frame.get_column(q).cast(pl.String)
        # local recoding takes no nulls="value": fill or drop them
        no_nulls(col, None, q, "a quasi-identifier of local recoding")
        distinct = col.unique(maintain_order=True).to_list()
        qi_codes.append(encode_values(col, distinct, h.encode(q, distinct)))
    for s in sens:
        col = frame.get_column(s).cast(pl.String)
        no_nulls(col, None, s, "a sensitive attribute")
        values = sorted(col.unique().to_list())
        raw = encode_values(col, values)
        sens_codes.append(raw)
        freq = raw.value_counts(name="n")
        values_seen = freq.get_column(raw.name).to_list()
        n_of = dict(zip(values_seen, freq.get_column("n").to_list(), strict=True))
        globals_.append([n_of.get(i, 0) / len(raw) for i in range(len(values))])
        values_of[s] = values
    levels, codes, groups, distortion = _core.localpk(
        hs, qi_codes, sens_codes, globals_, k, specs(criteria, values_of, rows=frame.height)
    )
    out_cols, level_cols = [], []
    for q, h, lv, cd in zip(qis, hs, levels, codes, strict=True):
        lv_s = pl.Series(q, list(lv), dtype=pl.UInt8)
        flat = pl.Series(q, [lab for level in h.levels for lab in level], dtype=pl.String)
        offsets = [0]
        for level in h.levels[:-1]:
            offsets.append(offsets[-1] + len(level))
        idx = pl.Series(offsets, dtype=pl.UInt32).gather(lv_s) + pl.Series(cd, dtype=pl.UInt32)
        out_cols.append(flat.gather(idx))
        level_cols.append(lv_s)
    # a column gathered from every label of every level points into all of
    # them, the recoded cells' own values too: copied out (`release.buffers`)
    data = identify(frame.with_columns(out_cols).lazy(), roles.ops).collect()
    return LocalRecoding(
        data=compacted(data, [c for c in data.columns if c not in qis]),
        levels=pl.DataFrame(level_cols),
        groups=groups,
        distortion_ratio=distortion,
    )
