"""Dracula (a play-by-forum hidden-role game, Magic Corporation forum, 2011): the companion is
the game master.

Thirteen players, one of them Dracula, five nights a round and several rounds: the companion
deals Dracula in secret (sealed on the TV), runs every phase on a clock, counts the sanctuary
vote with the phones' send times, takes every room, object and action in secret, resolves the
night in the rules' order and tells each player exactly what the rules' matrix says, on their
phone only. The TV stands in for the forum, the phones for the private messages.

Split by concept: options.py, state.py, rules.py (the deal, the objects, defaults), night.py (the
night's resolution), vote.py (the sanctuary), letters.py (who may write to whom), final.py (the
final phase and scores), evolve.py, story.py (the phases and what follows each answer),
moves.py, views.py (the 6.5 matrix, secrets, actions).
"""

from __future__ import annotations

from operator import attrgetter

from companion.games.base import GameDefinition
from companion.games.dracula.evolve import evolve, is_over
from companion.games.dracula.moves import MOVES, story
from companion.games.dracula.options import GAME_ID, MAX_PLAYERS, MIN_PLAYERS, normalize_options, options_schema
from companion.games.dracula.rules import setup
from companion.games.dracula.state import DraculaState
from companion.games.dracula.story import waiting_for
from companion.games.dracula.views import actions, deadline, describe, runs_in_real_time, secrets, times_phones, view

DRACULA: GameDefinition[DraculaState] = GameDefinition(
    id=GAME_ID,
    title={"en": "Dracula", "fr": "Dracula"},
    min_seats=MIN_PLAYERS,
    max_seats=MAX_PLAYERS,
    normalize_options=normalize_options,
    setup=setup,
    moves=MOVES,
    phase=attrgetter("phase"),
    story=story,
    seated=DraculaState.seated,
    evolve=evolve,
    view=view,
    secrets=secrets,
    describe=describe,
    actions=actions,
    options_schema=options_schema,
    seated_only=True,
    is_over=is_over,
    deadline=deadline,
    awaited=lambda state: frozenset(waiting_for(state)),
    runs_in_real_time=runs_in_real_time,
    times_phones=times_phones,
)
