"""A game state's next value, made the way `dataclasses.replace` makes it, at a fraction of the cost.

Every event of every game copies its state once (evolve is a pure fold), so the copy is the rules'
most frequent operation: `replace` looks up the fields, reads each one by name into keyword
arguments and runs the generated `__init__`, which sets them one `object.__setattr__` at a time.
A state is a frozen dataclass of plain values with no `__post_init__`, so copying its instance
dict gives the same value. The one promise of `replace` that matters beyond the values is kept: a
field declared `init=False` (a cache such as the picture's `wall`, see picture.py) is never carried
over but made again from its default, so no state can show a cache of an older state.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

S = TypeVar("S")


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    """What copying one state class needs: its init fields, and how to remake the others."""

    fields: frozenset[str]
    fresh: tuple[tuple[str, Callable[[], Any]], ...]
    """The fields with no init, each made again by its default factory."""
    size: int
    """How many entries a state's dict holds (every field)."""
    plain: bool
    """A dict copy is the same value: a frozen dataclass with an instance dict, no __post_init__,
    and a default factory for every field with no init."""


@functools.cache
def _plan(cls: type) -> _Plan:
    every = dataclasses.fields(cls)
    caches = [f for f in every if not f.init]
    fresh = tuple((f.name, f.default_factory) for f in caches if f.default_factory is not dataclasses.MISSING)
    # A field with a plain default and no init is read from the class until it is set: not in
    # every state's dict, so not copied this way.
    plain = (cls.__dataclass_params__.frozen and cls.__dictoffset__ != 0  # type: ignore[attr-defined]
             and not hasattr(cls, "__post_init__") and len(fresh) == len(caches))
    return _Plan(frozenset(f.name for f in every if f.init), fresh, len(every), plain)


def changed(state: S, **changes: Any) -> S:
    """`dataclasses.replace(state, **changes)`: the same value, made faster for a plain state."""
    return with_changes(state, changes)


def with_changes(state: S, changes: Mapping[str, Any]) -> S:
    """`changed` with the changes in a mapping (an evolve that gathers them saves a call's worth of
    keyword arguments). Anything a dict copy would not make right (a name that is no init field,
    a class this copy would not do) goes to `dataclasses.replace` itself, errors included."""
    cls: type = type(state)
    plan = _plan(cls)
    if not plan.plain or not plan.fields.issuperset(changes):
        return dataclasses.replace(state, **changes)  # type: ignore[type-var]
    values = state.__dict__.copy()
    if len(values) != plan.size:  # something besides the fields (a cached property): leave it behind
        return dataclasses.replace(state, **changes)  # type: ignore[type-var]
    values.update(changes)
    for name, make in plan.fresh:
        values[name] = make()
    new: S = object.__new__(cls)
    object.__setattr__(new, "__dict__", values)  # a frozen class refuses a plain assignment
    return new


Data = Mapping[str, Any]
"""An event's data."""
Changes = dict[str, Any]
"""The fields an event changes, with their new values."""


class Stepped(Protocol):
    @property
    def step(self) -> int: ...


T = TypeVar("T", bound=Stepped)


def evolve_by(state: T, event_type: str, data: Data, handlers: Mapping[str, Callable[[T, Data], Changes]],
              game: str) -> T:
    """The state after one more event, in one copy: the event's handler says which fields it
    changes, and the state's `step` counts the event."""
    handler = handlers.get(event_type)
    if handler is None:
        raise ValueError(f"{game} has no event {event_type!r}")
    changes = handler(state, data)
    changes["step"] = state.step + 1
    return with_changes(state, changes)
