"""Dates and datetimes by calendar levels: ``hour`` (datetimes), ``day``,
``month``, ``quarter``, ``year``, ``decade``, ``century``, chosen in that
order (each nests in the next; weeks do not nest in months, so they are not
offered). String values are parsed with ``format`` (ISO dates by default)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.hierarchy._spec import Spec, as_text, option, sequence
from polars_anon.reports.render import counted, listing, names_text

LEVELS = ("hour", "day", "month", "quarter", "year", "decade", "century")


def _label(level: str) -> pl.Expr:
    d = pl.col("d")
    year = d.dt.year()
    match level:
        case "hour":
            return d.dt.strftime("%Y-%m-%d %H:00")
        case "day":
            return d.dt.strftime("%Y-%m-%d")
        case "month":
            return d.dt.strftime("%Y-%m")
        case "quarter":
            return pl.format("{}-Q{}", year, d.dt.quarter())
        case "year":
            return year.cast(pl.String)
        case "decade":
            return pl.format("{}s", (year // 10) * 10)
        case _:
            return pl.format("{}-{}", (year // 100) * 100, (year // 100) * 100 + 99)


@dataclass(frozen=True)
class Date(Spec):
    """The spec of `date`: calendar ``levels`` of dates and datetimes, strings
    parsed with ``format`` (see the module)."""

    levels: tuple[str, ...] = option(
        "some of hour,day,month,quarter,year,decade,century",
        "names",
        default=("month", "quarter", "year", "decade"),
    )
    format: str | None = option("strptime format of string dates", default=None)

    builder = "date"
    summary = "calendar levels of dates and datetimes"

    def __post_init__(self) -> None:
        levels = tuple(sequence("levels", self.levels))
        unknown = [lv for lv in levels if lv not in LEVELS]
        if unknown:
            raise ConfigError(
                f"levels: unknown date {listing('level', unknown)}; "
                f"expected some of {names_text(LEVELS)}"
            )
        ranks = [LEVELS.index(lv) for lv in levels]
        if ranks != sorted(set(ranks)):
            raise ConfigError(
                f"date levels must go from fine to coarse without repeats, in the order "
                f"{list(LEVELS)}; got {list(levels)}"
            )
        object.__setattr__(self, "levels", levels)

    def rows(self, values: pl.Series) -> list[list[str]]:
        if values.dtype in (pl.Date,) or isinstance(values.dtype, pl.Datetime):
            parsed = values
        elif values.dtype == pl.String:
            try:
                parsed = values.str.to_datetime(self.format, strict=False)
            except pl.exceptions.PolarsError:
                # no format fits any value: every one is "not a date"
                parsed = pl.Series(values.name, [None] * values.len(), dtype=pl.Datetime)
            bad = values.filter(parsed.is_null())
            if bad.len():
                raise ConfigError(
                    f"column '{values.name}': {counted(bad.len(), 'value')} "
                    + ("is not a date" if bad.len() == 1 else "are not dates")
                    + (f" in the format {self.format!r}" if self.format else "")
                    + f", first: {bad.head(3).to_list()}"
                )
            offset = isinstance(parsed.dtype, pl.Datetime) and parsed.dtype.time_zone is not None
            if offset and not values.str.contains(UTC).all():
                # parsed into UTC: 2020-01-01T01:00+09:00 would be labelled 2019
                raise ConfigError(
                    f"column '{values.name}': its dates are written with UTC offsets, which "
                    "name no calendar to label them in; parse them into a zoned column first "
                    "(pl.col(c).str.to_datetime(...).dt.convert_time_zone('Europe/Paris'))"
                )
            dates_only = self.format is None and bool(
                values.str.to_date(strict=False).is_not_null().all()
            )
            coarsest = "day" if dates_only else _finest(self.format)
            finer = [lv for lv in self.levels if LEVELS.index(lv) < LEVELS.index(coarsest)]
            if finer:
                raise ConfigError(
                    f"column '{values.name}': its dates are written to the {coarsest}"
                    + (f" (format {self.format!r})" if self.format else "")
                    + f": they have no {' or '.join(repr(lv) for lv in finer)} level"
                )
        else:
            raise ConfigError(
                f"column '{values.name}' is of type {values.dtype}: date hierarchies need "
                "dates, datetimes or strings of dates"
            )
        if "hour" in self.levels and parsed.dtype == pl.Date:
            raise ConfigError(f"column '{values.name}' holds dates: it has no 'hour' level")
        frame = pl.DataFrame({"d": parsed}).select([_label(lv).alias(lv) for lv in self.levels])
        labels = [frame.get_column(lv).to_list() for lv in self.levels]
        return [[leaf, *row] for leaf, *row in zip(as_text(values), *labels, strict=True)]


# strptime fields that write a date to the hour, the day, the month (or
# finer); a format with none of them writes years (ISO week dates give the
# day by the weekday)
TO_THE = {
    "hour": ("%H", "%I", "%k", "%l", "%T", "%R", "%r", "%c", "%X", "%s"),
    "day": ("%d", "%e", "%j", "%F", "%D", "%x", "%v", "%u", "%w", "%a", "%A"),
    "month": ("%m", "%b", "%B", "%h"),
}
# a date-time written in UTC itself: labelled in UTC, as it says
UTC = r"(Z|[+-]00:?00)$"


def _finest(format: str | None) -> str:
    """The finest date level `format` writes ("hour" when none is given:
    Polars reads the values as they come)."""
    if format is None:
        return "hour"
    fields_of = format.replace("%%", "")  # a percent sign, written
    for level, fields in TO_THE.items():
        if any(f in fields_of for f in fields):
            return level
    return "year"


def date(
    values: Any,
    levels: list[str] | None = None,
    format: str | None = None,
) -> Hierarchy:
    """A calendar hierarchy over date or datetime ``values``.

    >>> import datetime as dt
    >>> h = date([dt.date(1999, 12, 31), dt.date(2004, 2, 29)], levels=["month", "decade"])
    >>> h.rows
    [['1999-12-31', '1999-12', '1990s', '*'], ['2004-02-29', '2004-02', '2000s', '*']]
    """
    chosen = sequence("levels", levels) if levels is not None else Date.levels
    return Date(chosen, format).build(values)
