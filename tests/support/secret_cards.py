"""A tiny game with hidden hands, used to prove the leak test catches leaks (tests only).

Each seat is dealt one card from a shuffled deck; a seat may reveal its own card. `LEAKY` is the
same game with one bug: the table display shows every hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.fairness.rng import RandomSource, shuffled
from companion.games.base import Args, Command, Event, GameDefinition, Move, Rejection, SeatInfo, Secret, Story, Viewer

DECK = [f"card-{name}" for name in ("bat", "moon", "skull", "garlic", "stake", "cross", "coffin", "crypt")]


@dataclass(frozen=True)
class CardsState:
    hands: Mapping[int, str]
    revealed: frozenset[int] = frozenset()


def setup(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: RandomSource) -> CardsState:
    deck = shuffled(rng, DECK, "deal")
    return CardsState({s.number: deck[i] for i, s in enumerate(seats)})


def _unrevealed(state: CardsState, actor: Viewer) -> Rejection | None:
    return Rejection("nothing_happened") if actor.seat in state.revealed else None


def _tell_reveal(story: Story[CardsState], actor: Viewer, args: Args) -> None:
    story.tell("card_revealed", {"seat": actor.seat, "card": story.state.hands[actor.seat or 0]}, reveals=True)


def evolve(state: CardsState, event: Event) -> CardsState:
    return replace(state, revealed=state.revealed | {event.data["seat"]})


def view(state: CardsState, viewer: Viewer) -> dict[str, Any]:
    public = {str(n): state.hands[n] for n in sorted(state.revealed)}
    shown: dict[str, Any] = {"revealed": public}
    if viewer.kind == "seat" and viewer.seat in state.hands:
        shown["private"] = {"my_card": state.hands[viewer.seat]}
    return shown


def leaky_view(state: CardsState, viewer: Viewer) -> dict[str, Any]:
    shown = view(state, viewer)
    if viewer.kind == "table":
        shown["debug"] = dict(state.hands)
    return shown


def secrets(state: CardsState) -> list[Secret]:
    return [
        Secret(card, lambda viewer, n=n: viewer.kind == "seat" and viewer.seat == n, f"seat {n}'s hidden card")
        for n, card in state.hands.items()
        if n not in state.revealed
    ]


SECRET_CARDS: GameDefinition[CardsState] = GameDefinition(
    id="secret-cards",
    title={"en": "Secret cards", "fr": "Cartes secrètes"},
    min_seats=2,
    max_seats=8,
    normalize_options=lambda options: {},
    setup=setup,
    moves={"reveal": Move(_tell_reveal, by=("seat",), refused="not_seated", whose=_unrevealed)},
    seated=lambda state, seat: seat in state.hands,
    evolve=evolve,
    view=view,
    secrets=secrets,
    describe=lambda event, lang: event.type,
    actions=lambda state, viewer: [Command("reveal")],
)

LEAKY = replace(SECRET_CARDS, id="leaky-cards", view=leaky_view)
