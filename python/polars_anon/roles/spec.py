"""What a user declares: `Pseudonym` and `Mask` (what an identifier becomes;
a plain list of identifiers drops them) and the `Roles` of a table's
columns. A key never leaves its `Pseudonym` as text: not in a repr, a
pickle, an error or a job file (which records where the key comes from)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from polars_anon._core import ConfigError
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.params import one_column
from polars_anon.reports.render import names_text, plural

# HMAC takes any key; one shorter than this is refused as guessable
MIN_KEY_BYTES = 16
MAX_LENGTH = 64


class Pseudonym:
    """An identifier replaced by a pseudonym: the same value gets the same
    pseudonym in every release, a different value a different one.

    Keyed (``key=``, ``key_env=`` or ``key_file=``): HMAC-SHA-256 of the
    value's text under the key, as its first ``length`` lowercase hex
    digits; the same on Polars, DuckDB and Spark for text, integers and
    dates (floats and date-times are other text on each engine: cast them
    to text first). The key is text or bytes
    of at least 16 bytes, given here, or read from an environment variable
    or a file (its bytes, without a trailing newline) when a release is
    built; it is never shown, pickled or written.

    By table (``table=path``, a ``.parquet`` or ``.csv`` file): random
    pseudonyms of ``length`` hex digits, with the mapping (columns
    ``value``, ``pseudonym``) kept in that file for the data owner, apart
    from the release; a later release re-uses it and adds the values it has
    not seen.

    >>> Pseudonym(key_env="PA_KEY")
    Pseudonym(key_env='PA_KEY', length=32)
    >>> Pseudonym(key="a secret of 16+ bytes")
    Pseudonym(key=<hidden>, length=32)
    """

    __slots__ = ("_key", "key_env", "key_file", "length", "table")

    def __init__(
        self,
        key: str | bytes | None = None,
        *,
        key_env: str | None = None,
        key_file: str | Path | None = None,
        table: str | Path | None = None,
        length: int = 32,
    ) -> None:
        given = [
            n
            for n, v in [
                ("key", key),
                ("key_env", key_env),
                ("key_file", key_file),
                ("table", table),
            ]
            if v is not None
        ]
        if len(given) != 1:
            raise ConfigError(
                "Pseudonym takes one of key=, key_env=, key_file= (keyed hashing) or "
                f"table= (random pseudonyms kept in a file), got {given or 'none'}"
            )
        if key is not None and not isinstance(key, str | bytes):
            raise ConfigError(f"Pseudonym(key=...) is text or bytes, not {type(key).__name__}")
        if isinstance(length, bool) or not isinstance(length, int) or not 8 <= length <= 64:
            raise ConfigError(
                f"Pseudonym(length=...) is 8 to {MAX_LENGTH} hex digits, got {length!r}"
            )
        self._key = key.encode() if isinstance(key, str) else key
        if self._key is not None and len(self._key) < MIN_KEY_BYTES:
            raise ConfigError(
                f"a pseudonym key has at least {MIN_KEY_BYTES} bytes (this one has "
                f"{len(self._key)}): a short key can be guessed"
            )
        self.key_env = key_env
        self.key_file = None if key_file is None else Path(key_file)
        self.table = None if table is None else Path(table)
        if self.table is not None and self.table.suffix.lower() not in (".parquet", ".csv"):
            raise ConfigError(
                f"Pseudonym(table=...) is a .parquet or .csv file, got {str(self.table)!r}"
            )
        self.length = length

    @property
    def keyed(self) -> bool:
        """Whether the pseudonyms are keyed (HMAC), not drawn into a table."""
        return self.table is None

    def key(self) -> bytes:
        """The key's bytes, read now from where they are kept."""
        if self._key is not None:
            return self._key
        if self.key_env is not None:
            value = os.environ.get(self.key_env)
            if not value:
                raise ConfigError(
                    f"the pseudonym key's environment variable {self.key_env!r} is not set"
                )
            key = value.encode()
        elif self.key_file is not None:
            try:
                key = self.key_file.read_bytes().rstrip(b"\r\n")
            except OSError as e:
                raise ConfigError(
                    f"cannot read the pseudonym key file {str(self.key_file)!r}: {e.strerror}"
                ) from None
        else:
            raise ConfigError("a Pseudonym(table=...) has no key")
        if len(key) < MIN_KEY_BYTES:
            where = self.key_env or str(self.key_file)
            raise ConfigError(
                f"the pseudonym key from {where!r} has {len(key)} bytes, fewer than "
                f"{MIN_KEY_BYTES}: a short key can be guessed"
            )
        return key

    def source(self) -> dict[str, Any]:
        """Where the pseudonyms come from, for a job file: never the key."""
        if self._key is not None:
            raise ConfigError(
                "a key given in code is not written to a file: give it as "
                "Pseudonym(key_env=...) or Pseudonym(key_file=...) to save this job"
            )
        out: dict[str, Any] = {"length": self.length}
        if self.key_env is not None:
            out["key_env"] = self.key_env
        elif self.key_file is not None:
            out["key_file"] = str(self.key_file)
        else:
            out["table"] = str(self.table)
        return out

    def describe(self) -> str:
        """What becomes of the column, for a report."""
        if self.table is not None:
            return f"pseudonymized (random, mapping in {str(self.table)!r})"
        return "pseudonymized (HMAC-SHA-256, keyed)"

    def __repr__(self) -> str:
        if self._key is not None:
            where = "key=<hidden>"
        elif self.key_env is not None:
            where = f"key_env={self.key_env!r}"
        elif self.key_file is not None:
            where = f"key_file={str(self.key_file)!r}"
        else:
            where = f"table={str(self.table)!r}"
        return f"Pseudonym({where}, length={self.length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pseudonym) and all(
            getattr(self, s) == getattr(other, s) for s in self.__slots__
        )

    def __hash__(self) -> int:
        return hash((self.key_env, self.key_file, self.table, self.length))

    def __reduce__(self) -> Any:
        if self._key is not None:
            raise ConfigError(
                "a Pseudonym with a key given in code is not pickled (the pickle would "
                "hold the key): give it as key_env= or key_file="
            )
        return (_pseudonym, (self.source(),))


def _pseudonym(source: dict[str, Any]) -> Pseudonym:
    return Pseudonym(**source)


@dataclass(frozen=True)
class Mask:
    """An identifier's characters masked: all but the first ``keep_first``
    and the last ``keep_last`` become ``char``, and the length is kept; a
    value no longer than the characters kept is masked whole. By default
    nothing is kept.

    >>> Mask(keep_last=4)
    Mask(keep_first=0, keep_last=4, char='*')
    """

    keep_first: int = 0
    keep_last: int = 0
    char: str = "*"

    def __post_init__(self) -> None:
        for name in ("keep_first", "keep_last"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ConfigError(f"Mask({name}=...) is a count of characters, got {v!r}")
        if not isinstance(self.char, str) or len(self.char) != 1:
            raise ConfigError(f"Mask(char=...) is one character, got {self.char!r}")

    def describe(self) -> str:
        """What becomes of the column, for a report."""
        kept = [f"first {self.keep_first}"] if self.keep_first else []
        kept += [f"last {self.keep_last}"] if self.keep_last else []
        if not kept:
            return "masked (whole)"
        n = self.keep_first + self.keep_last
        return f"masked ({' and '.join(kept)} kept; values of {n} characters or fewer all masked)"

    def source(self) -> dict[str, Any]:
        """The mask's entry in a job file."""
        return {
            "mask": {"keep_first": self.keep_first, "keep_last": self.keep_last, "char": self.char}
        }


@dataclass(frozen=True)
class Drop:
    """An identifier left out of the release (what a list of identifiers
    asks for)."""

    def describe(self) -> str:
        return "dropped"

    def source(self) -> dict[str, Any]:
        return {}


Transform: TypeAlias = "Pseudonym | Mask | Drop"
Identifiers: TypeAlias = "Iterable[str] | Mapping[str, Pseudonym | Mask | None]"


@dataclass(frozen=True)
class Roles:
    """The declared roles: identifiers (with what each becomes) and
    insensitive columns. Quasi-identifiers and sensitive attributes are
    given where they always are."""

    identifiers: dict[str, Transform] = field(default_factory=dict)
    insensitive: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.identifiers or self.insensitive)

    def merged(self, other: Roles) -> Roles:
        """These roles with `other`'s added: a column `other` declares an
        identifier becomes one (with `other`'s transform); one of our
        identifiers that `other` declares insensitive is refused, since a
        later call would release unchanged what was declared identifying."""
        weakened = [c for c in other.insensitive if c in self.identifiers]
        if weakened:
            raise ConfigError(
                f"{plural('column', weakened)} {names_text(weakened)}, declared "
                f"{'an identifier' if len(weakened) == 1 else 'identifiers'}, now insensitive: a "
                "release does not pass an identifier through unchanged; a column that identifies "
                "no one is declared insensitive where it was declared an identifier"
            )
        ids = {c: t for c, t in self.identifiers.items() if c not in other.insensitive}
        ids.update(other.identifiers)
        ins = [c for c in self.insensitive if c not in other.identifiers]
        ins += [c for c in other.insensitive if c not in ins]
        return Roles(ids, tuple(ins))

    def validate(
        self, columns: Iterable[str], quasi_identifiers: Iterable[str], sensitive: Iterable[str]
    ) -> None:
        """Every declared column is in the table and has one role."""
        names = list(columns)
        taken = {c: "a quasi-identifier" for c in quasi_identifiers}
        taken.update({c: "a sensitive attribute" for c in sensitive})
        for role, cols in (
            ("identifiers", list(self.identifiers)),
            ("insensitive", list(self.insensitive)),
        ):
            for c in cols:
                if c not in names:
                    more = ", ..." if len(names) > 20 else ""
                    raise ConfigError(
                        f"{role}: column {c!r} is not in the table "
                        f"(its columns: {names_text(names[:20])}{more})"
                    )
                if c in taken:
                    raise ConfigError(f"{role}: column {c!r} is already {taken[c]}")


def roles_of(
    identifiers: Identifiers | None = None, insensitive: Iterable[str] | None = None
) -> Roles:
    """The roles as given to `check`, `search`, `generalize` or `apply`."""
    ids: dict[str, Transform] = {}
    if identifiers is not None:
        if isinstance(identifiers, str):
            raise ConfigError(f"identifiers is a list of columns, got the string {identifiers!r}")
        if not isinstance(identifiers, Mapping | list | tuple | set | frozenset):
            raise ParameterError(
                "identifiers is a list of columns (dropped) or a dict of column to "
                f"pa.Pseudonym(...) or pa.Mask(...), got {type(identifiers).__name__}"
            )
        items = (
            identifiers.items()
            if isinstance(identifiers, Mapping)
            else ((c, None) for c in identifiers)
        )
        for c, t in items:
            if not isinstance(c, str) or not c:
                raise ParameterError(f"identifiers: a column is named by a string, got {c!r}")
            one_column("identifiers", c)
            if t is None or t == "drop":
                t = Drop()
            if not isinstance(t, Pseudonym | Mask | Drop):
                raise ConfigError(
                    f"identifiers: column {c!r} becomes a pa.Pseudonym(...), a pa.Mask(...) "
                    f"or None (dropped), not {type(t).__name__}"
                )
            ids[c] = t
    ins: list[str] = []
    if insensitive is not None:
        if isinstance(insensitive, str):
            raise ConfigError(f"insensitive is a list of columns, got the string {insensitive!r}")
        if not isinstance(insensitive, list | tuple | set | frozenset):
            raise ParameterError(
                f"insensitive is a list of columns, got {type(insensitive).__name__}"
            )
        for c in insensitive:
            if not isinstance(c, str) or not c:
                raise ParameterError(f"insensitive: a column is named by a string, got {c!r}")
            one_column("insensitive", c)
            if c in ids:
                raise ConfigError(f"column {c!r} is both an identifier and insensitive")
            if c not in ins:
                ins.append(c)
    return Roles(ids, tuple(ins))
