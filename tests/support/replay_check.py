"""What `companion verify` relies on, checked on a game played on the pure rules: its log replays.

From the options, the seats and setup's recorded draws, evolving the logged events (as the store
gives them back: canonical JSON read again) rebuilds the final state; and each command, decided again
from the state before it with its recorded draws, tells exactly the logged events."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.fairness.rng import Draw, ReplayRandomSource
from companion.games.base import Command, Event, GameDefinition, SeatInfo, Viewer
from companion.store.records import canonical_json

Turn = tuple[Viewer, Command, Sequence[Draw], Sequence[Event]]
"""One command as the table logs it: who sent it, what, the draws it made, its events."""


def through_the_log(event: Event) -> Event:
    """The event as the store gives it back: canonical JSON, read again."""
    return Event(event.type, json.loads(canonical_json(dict(event.data))), event.reveals)


def assert_replays(game: GameDefinition[Any], options: Mapping[str, Any], seats: Sequence[SeatInfo],
                   setup_draws: Sequence[Draw], events: Iterable[Event], turns: Iterable[Turn], final: Any) -> None:
    """`events` is the whole log after setup; `turns` the commands that told it."""
    rng = ReplayRandomSource(setup_draws)
    state = game.setup(options, seats, rng)
    assert rng.finished(), "setup used every recorded draw"
    for event in events:
        state = game.evolve(state, through_the_log(event))
    assert state == final
    rng = ReplayRandomSource(setup_draws)
    state = game.setup(options, seats, rng)
    for actor, command, draws, events in turns:
        rng = ReplayRandomSource(draws)
        again = game.decide(state, actor, command, rng)
        assert rng.finished() and again.events == list(events)
        for event, told in zip(again.events, again.states, strict=True):
            state = game.evolve(state, event)
            assert state == told, "the states the rules hand back are those a fold of their events gives"
    assert state == final
