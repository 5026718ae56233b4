"""Särge schubsen / Chasse-cercueils (Thierry Chapeau): the garlic-slap game, refereed with buzzers.

The companion rolls the two dice, runs the reaction round each roll opens, judges the first
slapper's claim (or, with real cards, asks the table to), applies penalties and refills, passes
the dice counter-clockwise and announces who cleared four coffins first.
"""

from __future__ import annotations

from companion.games.base import Command, GameDefinition
from companion.games.garlic.moves import MOVES, story
from companion.games.garlic.offers import actions
from companion.games.garlic.options import MAX_PLAYERS, normalize_options, options_schema
from companion.games.garlic.rules import awaited, deadline, evolve, is_over, setup
from companion.games.garlic.state import GarlicState
from companion.games.garlic.views import describe, secrets, view

GARLIC_SLAP: GameDefinition[GarlicState] = GameDefinition(
    id="garlic-slap",
    title={"en": "Clearing Coffins (garlic slap)", "fr": "Chasse-cercueils (tape l'ail)"},
    min_seats=2,
    max_seats=MAX_PLAYERS,
    normalize_options=normalize_options,
    setup=setup,
    moves=MOVES,
    phase=lambda state: state.phase,
    story=story,
    seated=GarlicState.seated,
    evolve=evolve,
    view=view,
    secrets=secrets,
    describe=describe,
    actions=actions,
    options_schema=options_schema,
    uses_buzzers=True,
    table_button=Command("roll"),
    seated_only=True,
    is_over=is_over,
    deadline=deadline,
    awaited=awaited,
)
