"""The cheap copies of frozen values (companion/games/frozen.py) and the offered commands made once
(companion/games/offers.py) are the values `dataclasses.replace` and `Command(...)` would make."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields, replace
from typing import Any

import pytest

from companion.games.base import Command
from companion.games.frozen import changed
from companion.games.offers import offered
from companion.sim.players import chasse, dracula, nuit


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


@dataclass(frozen=True)
class Checked:
    n: int

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError("negative")


@dataclass(frozen=True)
class Cached:
    n: int
    seen: list[int] = field(default_factory=list, init=False, compare=False)


@dataclass(frozen=True, slots=True)
class Slotted:
    n: int
    name: str = "x"


def test_slots_and_caches_are_copied_as_replace_copies_them() -> None:
    assert changed(Slotted(1), name="y") == replace(Slotted(1), name="y") == Slotted(1, "y")
    cached = Cached(1)
    cached.seen.append(5)
    assert changed(cached, n=2).seen == [] and cached.seen == [5]


def test_what_a_copy_refuses() -> None:
    with pytest.raises(TypeError, match="no init field"):
        changed(Cached(1), seen=[2])
    with pytest.raises(TypeError, match="no init field"):
        changed(Cached(1), m=2)
    with pytest.raises(TypeError, match="__post_init__"):
        changed(Checked(1), n=-1)  # replace would run the check: a copy must not skip it


def test_an_offered_command_is_the_command_made_by_hand_and_is_made_once() -> None:
    assert offered("stop", spaces=2, at="courtyard") == Command("stop", {"spaces": 2, "at": "courtyard"})
    assert offered("skip") == Command("skip")
    assert offered("take", card=12) is offered("take", card=12)
    assert list(offered("stop", spaces=2, at="x").args) == ["spaces", "at"]


def test_offered_arguments_keep_their_type() -> None:
    """JSON tells true from 1: so must the cache (a plain cache would hand back the other one)."""
    assert offered("disguise", human=True).args["human"] is True
    assert offered("disguise", human=1).args["human"] == 1
    assert type(offered("disguise", human=1).args["human"]) is int
