"""`changed`, the rules' copy of a state, against `dataclasses.replace`: the same values, a cache
never carried over, the same errors."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field, fields, replace
from typing import Any

import pytest

from companion.games.states import changed
from companion.sim.players import chasse, dracula, nuit


@dataclass(frozen=True)
class Plain:
    a: int
    b: tuple[int, ...] = ()
    wall: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)


@dataclass(frozen=True)
class Marked:
    a: int
    mark: str = field(default="fresh", init=False)


@dataclass(frozen=True, slots=True)
class Slotted:
    a: int
    b: int = 0


@dataclass(frozen=True)
class Checked:
    a: int

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("negative")


def test_a_changed_state_equals_the_replaced_one_and_shares_no_cache() -> None:
    state = Plain(1, (2, 3))
    state.wall["picture"] = "old"
    new = changed(state, b=(4,))
    assert new == dataclasses.replace(state, b=(4,)) == Plain(1, (4,))
    assert new.wall == {} and new.wall is not state.wall
    assert state.b == (2, 3) and state.wall == {"picture": "old"}


def test_anything_beyond_the_fields_is_left_behind() -> None:
    state = Plain(1)
    state.__dict__["cached"] = 42  # as functools.cached_property keeps its value
    assert "cached" not in changed(state, a=2).__dict__


def test_names_replace_refuses_are_refused_alike() -> None:
    with pytest.raises(TypeError):
        changed(Plain(1), c=3)
    with pytest.raises(ValueError):
        changed(Plain(1), wall={})


def test_a_field_with_no_init_starts_again_from_its_default() -> None:
    state = Marked(1)
    object.__setattr__(state, "mark", "stale")
    assert changed(state, a=2).mark == "fresh"


@pytest.mark.parametrize("state, changes", [(Slotted(1), {"b": 2}), (Checked(1), {"a": 2})])
def test_a_state_a_dict_copy_would_not_make_goes_through_replace(state: Any, changes: dict[str, Any]) -> None:
    assert changed(state, **changes) == dataclasses.replace(state, **changes)


def test_post_init_still_runs() -> None:
    with pytest.raises(ValueError):
        changed(Checked(1), a=-1)


def some_states() -> list[Any]:
    """States of every kind a copy meets: a finished game of three boards, and its players."""
    key = (7).to_bytes(8, "big") * 4
    states = [nuit.play_game(4, {}, key, random.Random(7)).state,
              chasse.play_game(4, {}, key, random.Random(7)).state,
              dracula.play_series(4, 7, rounds=1).state]
    return states + [p for state in states for p in state.players]


@pytest.mark.parametrize("value", some_states(), ids=lambda v: type(v).__name__)
def test_a_copy_with_changes_is_the_value_replace_makes(value: Any) -> None:
    for f in fields(value):
        if not f.init:
            continue
        new = getattr(value, f.name) if f.name != "seat" else 99
        copy = changed(value, **{f.name: new})
        assert copy == replace(value, **{f.name: new}) and type(copy) is type(value)
        assert copy is not value and getattr(copy, f.name) is new
    assert changed(value) == value


def test_a_copy_starts_with_an_empty_cache_and_the_original_keeps_its_own() -> None:
    state = nuit.play_game(3, {}, b"\x05" * 32, random.Random(5)).state
    state.wall["picture"] = {"kept": True}
    copy = changed(state, turns=state.turns + 1)
    assert copy.wall == {} and state.wall == {"picture": {"kept": True}}
