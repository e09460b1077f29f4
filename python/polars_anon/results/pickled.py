"""What a pickle of a search's result keeps: the answer, and what it
takes to prepare the searched table again (its lazy plan, which holds an
in-memory table's rows or a scan's path; the hierarchies)."""

from __future__ import annotations

from typing import Any

from polars_anon.inputs.counts import FrequencySet
from polars_anon.prepare.f0 import prepare
from polars_anon.prepare.prepared import Prepared
from polars_anon.results.nodes import Nodes
from polars_anon.roles.spec import Roles

# the slots made again from the rest rather than kept
MADE_AGAIN = ("_prep", "_anonymous", "_table", "_lists", "_walks")


def kept(result: Any, prep: Prepared, lists: Nodes) -> dict[str, Any]:
    """The state of `result` (a `SearchResult`, of table `prep` and nodes
    `lists`) that a pickle keeps."""
    slots = [n for cls in type(result).__mro__ for n in getattr(cls, "__slots__", ())]
    state = {k: getattr(result, k) for k in slots if k not in MADE_AGAIN}
    state.update(lists.state())
    state["_source"] = table_kept(prep)
    return state


def table_kept(prep: Prepared) -> tuple[Any, ...]:
    """What prepares `prep`'s table again (`table_again`): its lazy plan on
    Polars; off Polars the table is a connection's, so its frequency set,
    from which a release needs the table again (apply(table))."""
    source = prep.lazy if prep.engine == "polars" else FrequencySet(prep.f0, prep.count)
    qis = prep.quasi_identifiers
    hs = dict(zip(qis, prep.hierarchies, strict=True))
    return (source, qis, hs, prep.sensitive, prep.nulls, prep.floors)


def table_again(kept: tuple[Any, ...]) -> Prepared:
    """The table `table_kept` kept, prepared again."""
    lazy, qis, hierarchies, sensitive, nulls, floors = kept
    return prepare(lazy, qis, hierarchies, sensitive, nulls, floored_at=floors)


def restore(result: Any, state: dict[str, Any]) -> None:
    """`result` made again from a pickle's `state` (`kept`)."""
    source = state.pop("_source")
    # pickles made before columns had roles, or before auto put a search off
    state.setdefault("roles", Roles())
    state.setdefault("_deferred", None)
    state.setdefault("_walk_ms", None)
    state.setdefault("_walk", None)
    state["_walks"] = {}
    state["_lists"] = Nodes.from_state(state)
    for k, v in state.items():
        object.__setattr__(result, k, v)
    object.__setattr__(result, "_anonymous", None)
    object.__setattr__(result, "_table", None)
    object.__setattr__(result, "_prep", table_again(source))
