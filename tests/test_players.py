"""The random players' draw among allowed moves: the property tests and the rules' speed lean on
it, so its law is checked here, not taken on trust."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from companion.games.base import Command, Rejection, Viewer, seat
from companion.sim.players import draw_allowed


class Refusing:
    """A game definition's `validate` that allows only some commands, counting what it is asked."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed
        self.asked = 0

    def validate(self, state: Any, actor: Viewer, command: Command) -> Rejection | None:
        self.asked += 1
        return None if command.name in self.allowed else Rejection("not_now")


OFFERS = [Command(name) for name in ("a", "b", "c", "d")]


def test_a_draw_among_the_allowed_keeps_their_weights_and_validates_only_what_it_draws() -> None:
    rules = Refusing({"b", "d"})
    rnd = random.Random(7)
    draws = 6000
    drawn = Counter(draw_allowed(rnd, rules, None, seat(1), OFFERS, [1.0, 2.0, 3.0, 4.0]).name
                    for _ in range(draws))
    assert set(drawn) == {"b", "d"}, "a refused move is never played"
    assert abs(drawn["b"] / draws - 2 / 6) < 0.02 and abs(drawn["d"] / draws - 4 / 6) < 0.02, \
        "each allowed move as likely as its weight among the allowed alone"
    assert rules.asked < draws * len(OFFERS) * 0.6, "not every offered move is validated at every draw"


def test_nothing_is_drawn_when_nothing_is_allowed_and_a_weightless_move_never() -> None:
    rnd = random.Random(1)
    assert draw_allowed(rnd, Refusing(set()), None, seat(1), OFFERS, [1.0] * 4) is None
    only = Refusing({"a", "b"})
    assert {draw_allowed(rnd, only, None, seat(1), OFFERS, [0.0, 1.0, 1.0, 1.0]).name
            for _ in range(200)} == {"b"}
