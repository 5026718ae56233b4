"""Random players of complete games on the pure rules (no table, no store), one module per board
game: the property tests' engines, the rules' speed in the benchmarks, and a quick way to reach
every corner of a game's rules."""

from __future__ import annotations

import random
from typing import Any

from companion.games.base import Command, GameDefinition, Viewer


def draw_allowed(rnd: random.Random, definition: GameDefinition[Any], state: Any, actor: Viewer,
                 offers: list[Command], weights: list[float]) -> Command | None:
    """One of the offered commands that `validate` allows this actor now, drawn with these weights
    (None when it allows none).

    The same law as weighing the allowed commands alone (a refused one is set aside and the draw
    made again among the rest), but only the drawn commands are validated: one or two of the
    moves offered, not all of them."""
    weights = list(weights)
    indexes = range(len(offers))
    while any(weight > 0 for weight in weights):
        index = rnd.choices(indexes, weights)[0]
        if definition.validate(state, actor, offers[index]) is None:
            return offers[index]
        weights[index] = 0.0
    return None
