"""What each screen of Vampir may show, its secrets, its log lines and its actions.

Public (rules/vampir.md §2.5): the location piles, the hunts, every hand's size and the draw pile's
size. A hand is its owner's alone, the draw pile's order nobody's, and the hands removed at a
round's end are never shown (V-E3). The "if it ended now" projection uses public facts only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from companion.games.base import Command, Event, Secret, Viewer
from companion.games.lines import log_line
from companion.games.picture import shared_picture
from companion.games.vampir.options import COLOURS, DEFAULTS, UNVERIFIED
from companion.games.vampir.rules import GAME_ID, possible_hunts, score_round, supply_problems
from companion.games.vampir.state import CARDS, Player, VampirState

SOON = 2
"""The table warns when the draw pile holds this many cards or fewer: the next draw ends the round."""


_RANK = {colour: i for i, colour in enumerate(COLOURS)}
_ORDER = tuple((_RANK.get(card.colour or "", len(COLOURS)), card.heads, card.number) for card in CARDS)
"""Each card's place in a sorted hand, worked out once for the catalogue."""


def _sorted(cards: tuple[int, ...]) -> list[int]:
    """Grouped by colour in the screens' order, jokers last; fewer heads first within a colour."""
    return sorted(cards, key=_ORDER.__getitem__)


@functools.lru_cache(maxsize=1024)
def _hand(round_number: int, hand: tuple[int, ...]) -> tuple[list[dict[str, Any]], list[str]]:
    """A phone's hand and the colours it could hunt in: a hand rarely changes from one event to the
    next (only the current player's does), so every other phone's part is shared with the last
    state's, like the picture (a view is never modified once built)."""
    return [CARDS[c].to_json(round_number) for c in _sorted(hand)], possible_hunts(hand)


@functools.lru_cache(maxsize=64)
def _player_json(round_number: int, player: Player) -> dict[str, Any]:
    """Made once for a player as it is (most events leave most players as they were)."""
    return {"seat": player.seat, "name": player.name, "hand": len(player.hand),
            "hunts": [h.to_json(round_number) for h in player.hunts], "heads": player.heads(),
            "entered": player.entered}


@functools.lru_cache(maxsize=64)
def _location(round_number: int, colour: str, location: str, pile: tuple[int, ...]) -> dict[str, Any]:
    """Made once for a location pile as it is (an event changes one pile at most)."""
    return {"colour": colour, "location": location, "pile": [CARDS[c].to_json(round_number) for c in pile],
            "heads": sum(CARDS[c].heads for c in pile)}


@functools.lru_cache(maxsize=64)
def _projection(heads: tuple[tuple[int, tuple[tuple[str, int], ...]], ...], all_tied_discard: bool) -> dict[str, Any]:
    """The round scored if it ended now, once for each set of hunts on display (they change only
    when one is laid)."""
    return score_round({s: dict(hunts) for s, hunts in heads}, all_tied_discard)


def _warning(state: VampirState) -> str | None:
    if state.phase != "turn":
        return None
    if len(state.draw_pile) <= SOON:
        return "last_draw"
    if len(state.draw_pile) <= SOON * len(state.players):
        return "soon"
    return None


def _picture(state: VampirState) -> dict[str, Any]:
    return shared_picture(state.wall, lambda: _build_picture(state))


def _build_picture(state: VampirState) -> dict[str, Any]:
    options = state.options
    playing = state.phase in ("turn", "playing")
    picture = {
        "game": GAME_ID,
        "cards": options["cards"],
        "phase": state.phase,
        "round": state.round,
        "rounds": options["rounds"],
        "current": state.current,
        "stage": state.stage,
        "turns": state.turns,
        "locations": [_location(state.round, colour, state.location(colour), state.piles.get(colour, ()))
                      for colour in COLOURS] if state.digital else [],
        "players": [_player_json(state.round, p) for p in state.players],
        "draw_pile": len(state.draw_pile),
        "warning": _warning(state),
        "removed": len(state.removed),
        "drawn_count": len(state.drawn),
        "ending": state.ending,
        "happenings": list(state.happenings),
        "projection": _projection(tuple((p.seat, tuple((h.colour, h.heads) for h in p.hunts)) for p in state.players),
                                  options["all_tied_lowest_discard"])
        if options["projection"] and playing and state.digital else None,
        "supply": supply_problems(state) if state.phase == "entering" else [],
        "scores": [dict(s) for s in state.scores],
        "totals": {str(s): t for s, t in state.totals().items()},
        "winners": list(state.winners),
        "order": list(state.order),
        "options": dict(options),
        "unverified": [key for key in UNVERIFIED if options[key] == DEFAULTS[key]],
    }
    return picture


def view(state: VampirState, viewer: Viewer) -> dict[str, Any]:
    picture = _picture(state)
    if viewer.kind != "seat" or viewer.seat is None or not state.seated(viewer.seat):
        return picture
    hand, can_hunt = _hand(state.round, state.player(viewer.seat).hand)
    return {**picture,
            "hand": hand,
            "drawn": [CARDS[c].token(state.round) for c in state.drawn] if state.current == viewer.seat else [],
            "can_hunt": can_hunt}


@functools.cache
def _only(seat: int | None) -> Callable[[Viewer], bool]:
    """Visible to this seat alone; to nobody when None."""
    return lambda viewer: seat is not None and viewer.kind == "seat" and viewer.seat == seat


@functools.cache
def _in_hand(round_number: int, card: int, seat: int) -> Secret:
    return Secret(CARDS[card].token(round_number), _only(seat), f"a card in seat {seat}'s hand")


@functools.lru_cache(maxsize=1 << 16)
def _in_draw_pile(round_number: int, card: int, position: int) -> Secret:
    return Secret(CARDS[card].token(round_number), _only(None), f"the draw pile's card {position}")


@functools.lru_cache(maxsize=8)
def _draw_pile(round_number: int, pile: tuple[int, ...]) -> tuple[Secret, ...]:
    """The draw pile stays the same over the several events between two draws."""
    return tuple(_in_draw_pile(round_number, c, i) for i, c in enumerate(pile, 1))


@functools.cache
def _removed_unseen(round_number: int, card: int) -> Secret:
    return Secret(CARDS[card].token(round_number), _only(None), "a hand removed unseen")


def secrets(state: VampirState) -> list[Secret]:
    """Every hand card (its owner's), every card of the draw pile and every hand removed unseen
    (nobody's). The secrets are made once and kept (a card in one place of one round): the leak
    tests ask for them after every event."""
    number = state.round
    return [*(_in_hand(number, c, p.seat) for p in state.players for c in p.hand),
            *_draw_pile(number, state.draw_pile), *(_removed_unseen(number, c) for c in state.discarded)]


def _hunts_from(state: VampirState, hand: list[int], replace: set[str]) -> list[Command]:
    """A hunt per colour this hand could lay: all its cards of the colour with every joker, and
    without the jokers."""
    commands = []
    jokers = [c for c in hand if CARDS[c].joker]
    for colour in possible_hunts(tuple(hand)):
        own = [c for c in hand if CARDS[c].colour == colour]
        for cards in ({*own, *jokers}, set(own)):
            args: dict[str, Any] = {"cards": [CARDS[c].token(state.round) for c in _sorted(tuple(cards))]}
            if colour in replace:
                args["replace"] = True
            commands.append(Command("hunt", args))
    return commands


def actions(state: VampirState, viewer: Viewer) -> list[Command]:
    """Everything this viewer might do now; the table marks each allowed or not, with the reason.
    The phone composes hunts from the cards its player picks; these are the obvious ones."""
    if viewer.kind == "host":
        if state.phase == "starter":
            return [Command("choose_starter", {"seat": s}) for s in state.order]
        return {"scored": [Command("next_round")], "playing": [Command("round_over")]}.get(state.phase, [])
    me = viewer.seat
    if viewer.kind != "seat" or me is None or not state.seated(me):
        return []
    if state.phase == "scored":
        return [Command("next_round")]
    if state.phase == "playing":
        return [Command("round_over")]
    if state.phase == "entering":
        sample = {"colour": COLOURS[me % len(COLOURS)], "one": 3, "two": 1, "jokers": 1}
        return [Command("enter_hunts", {"hunts": [sample]}), Command("enter_hunts", {"hunts": []})]
    if state.phase != "turn" or state.current != me:
        return []
    player = state.player(me)
    held = {h.colour for h in player.hunts}

    def token(card: int) -> str:
        return CARDS[card].token(state.round)

    if state.stage == "choose":
        commands = [Command("draw")]
        for colour in COLOURS:
            if not state.piles[colour]:
                continue
            own = [c for c in player.hand if CARDS[c].colour in (colour, None)]
            for cards in (own, []):
                args: dict[str, Any] = {"location": colour, "cards": [token(c) for c in _sorted(tuple(cards))]}
                if colour in held:
                    args["replace"] = True
                commands.append(Command("take", args))
        return commands
    if state.stage == "done":
        return [Command("end_turn")]  # a discard ends the turn at once: only an old log rests here
    hunts = _hunts_from(state, list(player.hand), held)
    if state.stage == "hunting":
        return [*hunts, Command("end_turn")]
    discards = []
    for card in _sorted(player.hand):
        if CARDS[card].joker:
            discards += [Command("discard", {"card": token(card), "location": colour}) for colour in COLOURS]
        else:
            discards.append(Command("discard", {"card": token(card)}))
    return discards + hunts


_WORDS = {
    "en": {
        "round_begun": "round {round} dealt", "starter_chosen": "seat {seat} starts ({how})",
        "cards_drawn": "seat {seat} drew {count} {count|card|cards} ({left} left)",
        "card_discarded": ("seat {seat} placed a card ({colour}, {heads} {heads|head|heads}) under the {location}"
                           " location"),
        "hunt_laid": ("seat {seat} laid a hunt ({colour}): {count} {count|card|cards}, {heads} {heads|head|heads}"
                      " (location taken: {taken})"),
        "turn_passed": "seat {seat}'s turn", "round_ended": "the round ended ({reason}); hands removed unseen",
        "hunts_entered": "seat {seat} entered {count} {count|hunt|hunts}",
        "round_scored": "round {round} scored: {points}",
    },
    "fr": {
        "round_begun": "manche {round} distribuée", "starter_chosen": "la place {seat} commence ({how})",
        "cards_drawn": "la place {seat} a pioché {count} {count|carte|cartes} (reste {left})",
        "card_discarded": ("la place {seat} a posé une carte ({colour}, {heads} {heads|tête|têtes}) sous le lieu"
                           " {location}"),
        "hunt_laid": ("la place {seat} a posé une chasse ({colour}) : {count} {count|carte|cartes},"
                      " {heads} {heads|tête|têtes} (lieu pris : {taken})"),
        "turn_passed": "au tour de la place {seat}",
        "round_ended": "la manche est finie ({reason}) ; mains retirées sans être vues",
        "hunts_entered": "la place {seat} a saisi {count} {count|chasse|chasses}",
        "round_scored": "manche {round} comptée : {points}",
    },
}


def describe(event: Event, lang: str) -> str:
    """One line for logs and `companion replay`: counts, never a hand's or the draw pile's cards."""
    data = event.data
    params: dict[str, Any] = {k: v for k, v in data.items() if k not in ("cards", "hands", "draw_pile", "piles")}
    if event.type == "cards_drawn":
        params["count"] = len(data["cards"])
    elif event.type == "card_discarded":
        card = CARDS[data["card"]]
        params.update(colour=card.colour or "joker", heads=card.heads, location=data["location"])
    elif event.type == "hunt_laid":
        taken = data.get("taken") or {"cards": [], "location": None}
        cards = [*taken["cards"], *data["cards"]]
        params.update(count=len(cards), heads=sum(CARDS[c].heads for c in cards), taken=taken["location"])
    elif event.type == "hunts_entered":
        params["count"] = len(data["hunts"])
    elif event.type == "round_scored":
        params["points"] = ", ".join(f"{seat}: {n}" for seat, n in data["points"].items())
    return log_line(_WORDS, lang, event.type, params, event.type)
