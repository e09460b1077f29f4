"""The errors polars-anon raises: one tree rooted at `AnonError`, raised by
the core and by the package alike, each re-exported as ``pa.<Name>``.

- `AnonError`: the base of every polars-anon error.
- `HierarchyError`: a hierarchy that cannot be used (not a tree, ragged...).
- `ConfigError`: a request that does not fit the data (unknown column, bad k,
  levels above a hierarchy's height...); `SearchTooLargeError`, one of them,
  is a search refused before it starts because it would pass its memory budget.
- `MissingValueError`: values (or nulls) in a quasi-identifier that its
  hierarchy does not cover; the message names the column and the values.
- `NotAnonymousError`: a release that would break the privacy model.

- `ParameterError`: a parameter of the wrong type (a `ConfigError` that is
  also a `TypeError`, as Python's own calls raise); the message names it.

And two warnings (not errors: the work goes on):

- `UndeclaredColumnsWarning`: a release passes columns with no role through
  unchanged; the message names them, with their distinct values.
- `InputChangedWarning`: a resolved job is run again over its input file,
  which changed since (its recorded checksum differs).

>>> import polars_anon as pa
>>> pa.ConfigError.__module__
'polars_anon.exceptions'
>>> issubclass(pa.SearchTooLargeError, pa.ConfigError)
True
"""

from pathlib import Path

from polars_anon._core import (
    AnonError,
    ConfigError,
    HierarchyError,
    MissingValueError,
    NotAnonymousError,
    SearchTooLargeError,
)


class ParameterError(ConfigError, TypeError):
    """A parameter of the wrong type; the message names the parameter."""

    __module__ = "polars_anon.exceptions"


class UndeclaredColumnsWarning(UserWarning):
    """A release passes columns that have no role through unchanged.

    The rule for such columns refuses one that would identify records on
    its own (more distinct values than half the rows that hold one), but an
    identifier repeated over rows (a patient's record number on each of
    their visits) passes it. Declaring every column (``insensitive=`` to
    release it as it is, ``identifiers=`` to drop or transform it) silences
    the warning; so does Python's ``warnings.filterwarnings("ignore",
    category=pa.UndeclaredColumnsWarning)``. `columns`: the columns named."""

    __module__ = "polars_anon.exceptions"

    def __init__(self, message: str, columns: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.columns = columns


class InputChangedWarning(UserWarning):
    """A resolved job run over its input, which changed since the job was
    resolved (the ``[input] sha256`` it recorded differs): the run goes on,
    as a run on new data does (its levels re-checked), and says so.
    `path`, `recorded`, `current`: the file and its two checksums."""

    __module__ = "polars_anon.exceptions"

    def __init__(self, message: str, path: Path, recorded: str, current: str) -> None:
        super().__init__(message)
        self.path, self.recorded, self.current = path, recorded, current


__all__ = [
    "AnonError",
    "ConfigError",
    "HierarchyError",
    "InputChangedWarning",
    "MissingValueError",
    "NotAnonymousError",
    "ParameterError",
    "SearchTooLargeError",
    "UndeclaredColumnsWarning",
]
