"""Hierarchy builders: hierarchies from a column's values and a small spec,
instead of a hand-written CSV. Each returns a `polars_anon.Hierarchy` (a
validated tree over exactly the values given, exportable with ``to_csv`` in
ARX's layout); each spec (`Interval`, `Date`, `Masking`, `Ordered`) serialises
with ``to_json`` and comes back with `from_json`, which is how a job file
records it.

>>> import polars_anon as pa
>>> pa.hierarchy.interval([17, 33, 64], widths=[10, 20]).levels
[['17', '33', '64'], ['[10-20)', '[30-40)', '[60-70)'], ['[0-20)', '[20-40)', '[60-80)'], ['*']]
"""

from polars_anon.hierarchy._spec import BUILDERS, Spec, from_dict, from_json
from polars_anon.hierarchy.date import Date, date
from polars_anon.hierarchy.interval import Interval, interval
from polars_anon.hierarchy.masking import Masking, masking
from polars_anon.hierarchy.ordered import Ordered, ordered

__all__ = [
    "BUILDERS",
    "Date",
    "Interval",
    "Masking",
    "Ordered",
    "Spec",
    "date",
    "from_dict",
    "from_json",
    "interval",
    "masking",
    "ordered",
]
