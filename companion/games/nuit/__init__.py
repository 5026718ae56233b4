"""La nuit des vampires / Jagd der Vampire (Randolph, Obert, De Toffoli; Ravensburger 1991).

The board stays physical: players move their pawns and tell the companion where they stopped. The
companion keeps what is secret, random or counted: the tomato's tower (sealed at setup), the fate
stacks' fixed cycles, the magic deck, the dice and every bottle and card.

The rules are split by concept: options.py (the table's choices and the unverified facts),
state.py, rules.py (setup and the ledger primitives), evolve.py (how an event changes the state),
turn.py (who the turn waits on and the story it tells), moves.py (each command: when, who, its
check and its telling), views.py (what each screen may see, secrets, actions, log lines).
"""

from __future__ import annotations

from operator import attrgetter

from companion.games.base import Command, GameDefinition
from companion.games.nuit.evolve import close, evolve, is_over
from companion.games.nuit.moves import MOVES, story
from companion.games.nuit.options import MAX_PLAYERS, MIN_PLAYERS, normalize_options, options_schema
from companion.games.nuit.rules import GAME_ID, setup
from companion.games.nuit.state import NuitState
from companion.games.nuit.turn import waiting_for
from companion.games.nuit.views import actions, describe, secrets, view

NUIT_DES_VAMPIRES: GameDefinition[NuitState] = GameDefinition(
    id=GAME_ID,
    title={"en": "Night of the Vampires (Jagd der Vampire)", "fr": "La nuit des vampires"},
    min_seats=MIN_PLAYERS,
    max_seats=MAX_PLAYERS,
    normalize_options=normalize_options,
    setup=setup,
    moves=MOVES,
    phase=attrgetter("phase"),
    stage=NuitState.stage,
    story=story,
    seated=NuitState.seated,
    evolve=evolve,
    view=view,
    secrets=secrets,
    describe=describe,
    actions=actions,
    options_schema=options_schema,
    table_button=Command("roll"),
    seated_only=True,
    is_over=is_over,
    close=close,
    awaited=lambda state: frozenset(waiting_for(state)),
)
