"""What each screen of the garlic game may show, its secrets and its log lines (its actions: offers.py).

S-S10 makes this game unusual: a coffin's identity is nobody's, not even its owner's. Every view
shows a coffin as a coffin; only the check of a claim (to everyone) and a moon look (to the one
who slapped) show one, and only while that lasts. The end of the game turns every coffin over.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from companion.games.base import Event, Secret, Viewer
from companion.games.garlic.options import DEFAULTS, UNVERIFIED
from companion.games.garlic.rules import face_up_swap_allowed
from companion.games.garlic.state import GarlicState, Player
from companion.games.lines import log_line
from companion.games.picture import shared_picture
from companion.games.reactions import ROUND_ARMED, ROUND_LATE_PRESS, ROUND_SETTLED


def _slot_json(state: GarlicState, slot_card: int | None, up: bool) -> dict[str, Any]:
    card = state.card(slot_card)
    if card is None:
        return {"up": up}
    if up:
        return {"up": True, **card.to_json()}
    if card.number in state.shown:
        return {"up": False, "shown": card.to_json()}
    if state.phase == "over":
        return {"up": False, "revealed": card.to_json()}
    return {"up": False}


def _player_json(state: GarlicState, player: Player) -> dict[str, Any]:
    cleared = []
    for item in player.cleared:
        card = state.card(item.card)
        if card is not None and (item.checked or state.phase == "over"):
            cleared.append({"checked": item.checked, **card.to_json()})
        else:
            cleared.append({"checked": item.checked})
    return {
        "seat": player.seat,
        "name": player.name,
        "slots": [_slot_json(state, s.card, s.up) for s in player.slots],
        "face_up": len(player.face_up()),
        "face_down": len(player.face_down()),
        "cleared": cleared,
    }


def _turn_json(state: GarlicState) -> dict[str, Any]:
    """The public part of what the table waits for (never the looked-at cards themselves)."""
    turn = state.turn
    shown: dict[str, Any] = {}
    for key in ("seat", "queue", "claim", "votes", "judge", "a", "b", "mode", "window_us"):
        if key in turn:
            shown[key] = turn[key]
    # When a wait began and when it runs out, on the host timeline: pages count down to the server's deadline.
    if state.phase in ("claim", "bat", "moon", "moon_look"):
        shown["timeout_s"] = state.options["claim_timeout_s"]
        if "since_us" in turn:
            shown["since_us"] = int(turn["since_us"])
            shown["ends_us"] = shown["since_us"] + int(state.options["claim_timeout_s"] * 1_000_000)
    if state.phase == "reaction" and "at_us" in turn and "window_us" in turn:
        shown["since_us"] = int(turn["at_us"])
        shown["ends_us"] = shown["since_us"] + int(turn["window_us"])
    return shown


def _picture(state: GarlicState) -> dict[str, Any]:
    return shared_picture(state.wall, lambda: _build_picture(state))


def _build_picture(state: GarlicState) -> dict[str, Any]:
    options = state.options
    assert state.roller is None or state.seated(state.roller)
    picture = {
        "game": "garlic-slap",
        "mode": options["mode"],
        "phase": state.phase,
        "round": state.round,
        "roller": state.roller,
        "next_roller": None if state.roller is None else state.next_seat(state.roller),
        "dice": None if state.dice is None else state.dice.to_json(),
        "players": [_player_json(state, p) for p in state.players],
        "pile": len(state.pile),
        "deck_size": len(state.deck),
        "turn": _turn_json(state),
        "penalties": [{"seat": p.seat, "reason": p.reason, "since_us": p.since_us,
                       "ends_us": p.since_us + int(options["penalty_choice_timeout_s"] * 1_000_000)}
                      for p in state.penalties],
        "penalty_timeout_s": options["penalty_choice_timeout_s"],
        "result": state.result,
        "happenings": list(state.happenings),
        "board": state.board,
        "winner": state.winner,
        "options": options,
        "unverified": [key for key in UNVERIFIED if options[key] == DEFAULTS[key]
                       and not (key == "deck" and options["deck_counted"])],
        "moon_face_up_allowed": state.phase == "moon" and state.turn.get("seat") is not None
        and face_up_swap_allowed(state, state.turn["seat"]),
    }
    return picture


def view(state: GarlicState, viewer: Viewer) -> dict[str, Any]:
    picture = _picture(state)
    if viewer.kind != "seat" or state.phase != "moon_look" or state.turn.get("seat") != viewer.seat:
        return picture
    # S-S7: the slapper, and only the slapper, sees the two cards they chose to look at.
    looked = [state.card(state.player(s).slots[i].card) for s, i in (state.turn["a"], state.turn["b"])]
    return {**picture, "looking": [card.to_json() for card in looked if card is not None]}


@functools.cache
def _only(seat: int | None) -> Callable[[Viewer], bool]:
    """Visible to that seat alone; to nobody when None."""
    return lambda viewer: seat is not None and viewer.kind == "seat" and viewer.seat == seat


@functools.lru_cache(maxsize=4096)
def _secret(token: str, seat: int | None, description: str) -> Secret:
    """Made once: the leak tests ask for every secret after every event, mostly the same ones."""
    return Secret(token, _only(seat), description)


@functools.cache
def _in_coffin(owner: int, slot: int) -> str:
    return f"seat {owner}'s coffin in slot {slot}"


@functools.cache
def _cleared(owner: int) -> str:
    return f"seat {owner}'s coffin cleared by a bat"


@functools.cache
def _in_pile(position: int) -> str:
    return f"the pile's card {position}"


def secrets(state: GarlicState) -> list[Secret]:
    """Every coffin's identity (its owner's too), the pile's order, and bat-cleared cards, until
    the end; the two cards of a moon look are the slapper's while they look."""
    if state.phase == "over":
        return []
    looking: dict[int, int] = {}
    if state.phase == "moon_look":
        for s, i in (state.turn["a"], state.turn["b"]):
            number = state.player(s).slots[i].card
            if number is not None:
                looking[number] = state.turn["seat"]
    deck = state.deck
    shown = state.shown
    hidden: list[Secret] = []
    for player in state.players:
        for index, slot in enumerate(player.slots):
            if slot.card is None or slot.up:
                continue
            card = deck[slot.card]
            if card.number not in shown:
                hidden.append(_secret(card.token, looking.get(card.number), _in_coffin(player.seat, index + 1)))
        for item in player.cleared:
            if item.card is not None and not item.checked:
                hidden.append(_secret(deck[item.card].token, None, _cleared(player.seat)))
    hidden += [_secret(deck[number].token, None, _in_pile(position))
               for position, number in enumerate(state.pile, 1) if number is not None]
    return hidden


_WORDS = {
    "en": {
        "rolled": "{by} rolled for seat {roller}: {colour} {symbol}", "armed": "round {round} open ({mode})",
        "settled": "round {round}: {outcome}", "called": "seat {seat} slapped first ({phase})",
        "late": "round {round}: a slap after the decision",
        "claim": "seat {seat} claims {kind} (seat {target})", "checked": "seat {seat}'s coffin checked: {verdict}",
        "right": "right", "wrong": "wrong", "turned_down": "seat {seat} turned a card coffin side up",
        "turned_up": "seat {seat}'s card turned face up ({cause})", "cleared": "seat {seat} cleared a coffin",
        "drew": "seat {seat} drew a card ({cause})", "swapped": "seat {by} swapped two cards ({face})",
        "looked": "seat {seat} looked at two cards", "passed": "seat {seat} passed ({cause})",
        "penalty_due": "seat {seat} owes a penalty ({reason})", "penalty_paid": "seat {seat} paid a penalty ({how})",
        "awaited": "waiting for penalties", "dice_passed": "the dice pass to seat {to}",
        "dice_kept": "tie: seat {roller} rolls again", "won": "seat {seat} wins",
        "judged": "claim judged {verdict} by {by}", "vote": "seat {seat} votes {verdict}",
        "asked": "the claim waits for a judgement", "withdrawn": "seat {seat} makes no claim ({cause})",
        "bat": "seat {seat} uses the bat ({kind})",
    },
    "fr": {
        "rolled": "{by} a lancé pour la place {roller} : {colour} {symbol}", "armed": "manche {round} ouverte ({mode})",
        "settled": "manche {round} : {outcome}", "called": "la place {seat} a tapé en premier ({phase})",
        "late": "manche {round} : une tape après la décision",
        "claim": "la place {seat} annonce {kind} (place {target})",
        "checked": "cercueil de la place {seat} vérifié : {verdict}", "right": "juste", "wrong": "faux",
        "turned_down": "la place {seat} a retourné une carte côté cercueil",
        "turned_up": "carte de la place {seat} remise face visible ({cause})",
        "cleared": "la place {seat} a chassé un cercueil", "drew": "la place {seat} a pioché une carte ({cause})",
        "swapped": "la place {by} a permuté deux cartes ({face})", "looked": "la place {seat} a regardé deux cartes",
        "passed": "la place {seat} passe ({cause})", "penalty_due": "la place {seat} doit une sanction ({reason})",
        "penalty_paid": "la place {seat} a payé une sanction ({how})", "awaited": "en attente des sanctions",
        "dice_passed": "les dés passent à la place {to}", "dice_kept": "égalité : la place {roller} relance",
        "won": "la place {seat} gagne", "judged": "annonce jugée {verdict} par {by}",
        "vote": "la place {seat} vote {verdict}", "asked": "l'annonce attend un jugement",
        "withdrawn": "la place {seat} n'annonce rien ({cause})",
        "bat": "la place {seat} utilise la chauve-souris ({kind})",
    },
}
_LINE = {
    "dice_rolled": "rolled", ROUND_ARMED: "armed", ROUND_SETTLED: "settled", ROUND_LATE_PRESS: "late",
    "slapper_called": "called",
    "claim_made": "claim", "card_checked": "checked", "card_turned_down": "turned_down", "card_turned_up": "turned_up",
    "card_cleared": "cleared", "card_drawn": "drew", "cards_swapped": "swapped", "moon_looked": "looked",
    "action_passed": "passed", "penalty_due": "penalty_due", "penalty_paid": "penalty_paid",
    "penalties_awaited": "awaited", "dice_passed": "dice_passed", "dice_kept": "dice_kept", "game_won": "won",
    "claim_judged": "judged", "claim_vote": "vote", "judgement_asked": "asked", "claim_withdrawn": "withdrawn",
    "bat_chosen": "bat",
}


def describe(event: Event, lang: str) -> str:
    """One line for logs and `companion replay`: who did what, never which card a coffin is."""
    words = _WORDS.get(lang, _WORDS["en"])
    params: dict[str, Any] = {k: v for k, v in event.data.items() if k not in ("card", "cards", "colour_face",
                                                                               "symbol_face")}
    if event.type in ("card_checked", "claim_judged", "claim_vote"):
        params["verdict"] = words["right"] if event.data["right"] else words["wrong"]
    if event.type == "card_checked":
        params.pop("colour", None)
        params.pop("symbol", None)
    return log_line(_WORDS, lang, _LINE.get(event.type, ""), params, event.type)
