"""A game's public picture: the part of its view every viewer shares, built once per state.

A state keeps it in a `wall` field declared `field(default_factory=dict, init=False, ...)`. Not
being an init field, it is never carried over by `dataclasses.replace`: every new state starts
with an empty cache, so no state can show an older state's picture (after an undo, a card back in
a hand), and evolve need not remember to clear it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def shared_picture(cache: dict[str, Any], build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    picture = cache.get("picture")
    if picture is None:
        picture = cache["picture"] = build()
    return picture
