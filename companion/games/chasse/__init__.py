"""La chasse au vampire (Miro Meccano 1982).

A real-time day/night sand glass that changes the rules mid-turn, and card stacks nobody may look
at, their owners included: the companion keeps the stacks, the chapel pile and the glass, deals
and reveals, answers a volunteer's blood yes or no, and calls the win. The board is the table's
own (players say where they stopped) or the companion's, drawn on the TV from a board file.

Split by concept: options.py (the table's choices and the unverified facts), board.py (the map and
where a pawn may go), state.py, rules.py (setup and the rules' judgements), evolve.py, story.py
(the consequences moves share), moves.py, views.py (what each screen may see, secrets, actions).
"""

from __future__ import annotations

from operator import attrgetter

from companion.games.base import Command, GameDefinition
from companion.games.chasse.evolve import evolve, is_over
from companion.games.chasse.moves import MOVES, story
from companion.games.chasse.options import MAX_PLAYERS, MIN_PLAYERS, normalize_options, options_schema
from companion.games.chasse.rules import GAME_ID, setup
from companion.games.chasse.state import ChasseState
from companion.games.chasse.views import actions, deadline, describe, runs_in_real_time, secrets, view, waiting_for

CHASSE_AU_VAMPIRE: GameDefinition[ChasseState] = GameDefinition(
    id=GAME_ID,
    title={"en": "The Vampire Hunt (La chasse au vampire)", "fr": "La chasse au vampire"},
    min_seats=MIN_PLAYERS,
    max_seats=MAX_PLAYERS,
    normalize_options=normalize_options,
    setup=setup,
    moves=MOVES,
    phase=attrgetter("phase"),
    stage=ChasseState.stage,
    story=story,
    seated=ChasseState.seated,
    evolve=evolve,
    view=view,
    secrets=secrets,
    describe=describe,
    actions=actions,
    options_schema=options_schema,
    table_button=Command("roll"),
    seated_only=True,
    is_over=is_over,
    deadline=deadline,
    awaited=lambda state: frozenset(waiting_for(state)),
    runs_in_real_time=runs_in_real_time,
)
