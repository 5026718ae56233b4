"""Vampir (Reiner Knizia, Goldsieber 2000): a card game of hands kept secret on the phones.

The companion is the deck: it shuffles and deals through the verifiable rng, keeps each hand on its
player's phone, shows the location piles and the hunts on the table, and scores every round colour
by colour. With the real cards it is the scoring referee: each phone enters its hunts at the end.

The rules are split by concept: options.py (the table's choices and the unverified colour-to-location
mapping), state.py (the cards, hunts and players), rules.py (the deal, hunts, scoring, evolve),
turn.py (what may be done now and the events it decides), views.py (screens, secrets, actions, log lines).
"""

from __future__ import annotations

from operator import attrgetter

from companion.games.base import GameDefinition
from companion.games.vampir.options import MAX_PLAYERS, MIN_PLAYERS, normalize_options, options_schema
from companion.games.vampir.rules import GAME_ID, awaited, evolve, is_over, setup
from companion.games.vampir.state import VampirState
from companion.games.vampir.turn import MOVES, story
from companion.games.vampir.views import actions, describe, secrets, view

VAMPIR: GameDefinition[VampirState] = GameDefinition(
    id=GAME_ID,
    title={"en": "Vampir", "fr": "Vampir"},
    min_seats=MIN_PLAYERS,
    max_seats=MAX_PLAYERS,
    normalize_options=normalize_options,
    setup=setup,
    moves=MOVES,
    phase=attrgetter("phase"),
    stage=attrgetter("stage"),
    story=story,
    seated=VampirState.seated,
    evolve=evolve,
    view=view,
    secrets=secrets,
    describe=describe,
    actions=actions,
    options_schema=options_schema,
    seated_only=True,
    is_over=is_over,
    awaited=awaited,
)
