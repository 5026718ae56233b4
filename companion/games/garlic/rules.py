"""The garlic game's rules (S-S1..S-S12 in rules/garlic-slap.md), as pure functions: the deal, what
the cards on the table say (which card an argument names, whether the moon may swap face-up cards),
when a wait runs out, and how an event changes the state.

What a command may do and the events it decides are its move's (moves.py), told on the game's story
(story.py). A reaction round is refereed outside (companion/buzzers): rolling arms it, and the round
keeper settles it with the referee's decision, from which the rules take the first valid slapper.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.fairness.rng import RandomSource, shuffled
from companion.games.base import Command, Deadline, Event, Rejection, SeatInfo
from companion.games.garlic.state import RECENT, Cleared, Dice, GarlicState, Penalty, Player, Slot, build_deck
from companion.games.reactions import ROUND_ARMED, ROUND_LATE_PRESS, ROUND_SETTLED, with_round
from companion.games.states import Changes, Data, evolve_by

TURN_PHASES = ("claim", "bat", "moon", "moon_look")
"""Phases where the first slapper must act before a timeout."""
BAT_TARGETS = {"turn_down": "own_up", "clear": "own_down", "turn_up": "other_down"}
"""S-S6's three choices name the same cards as the claims of S-S5."""


# -- setup (S-S1) -----------------------------------------------------------------------------

def setup(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: RandomSource) -> GarlicState:
    """Shuffle the deck and deal each player `display_size` cards face up; the rest is the pile.

    With real cards the companion deals nothing: it keeps the same counts, cards unseen.
    """
    deck = build_deck(options["deck"])
    size = options["display_size"]
    if options["mode"] == "physical":
        order: list[int | None] = [None] * len(deck)
    else:
        order = list(shuffled(rng, list(range(len(deck))), "shuffle the deck"))
    players = []
    for i, seat in enumerate(seats):
        dealt = order[i * size:(i + 1) * size]
        players.append(Player(seat.number, seat.name, tuple(Slot(card, True) for card in dealt)))
    return GarlicState(dict(options), deck, tuple(players), tuple(order[len(seats) * size:]))


# -- what the cards on the table say --------------------------------------------------------------

def slot_of(state: GarlicState, seat: Any, slot: Any) -> tuple[int, int] | None:
    """A (seat, slot) pair from untrusted arguments, or None."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not state.seated(seat):
        return None
    if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < len(state.player(seat).slots):
        return None
    return seat, slot


def names_number(value: Any, number: int) -> bool:
    """An untrusted argument names this number: True is not 1 (as with seats and slots)."""
    return not isinstance(value, bool) and value == number


def is_up(state: GarlicState, where: tuple[int, int]) -> bool:
    return state.player(where[0]).slots[where[1]].up


def face_up_swap_allowed(state: GarlicState, slapper: int) -> bool:
    """Ambiguity 8, read literally: the moon's face-up swap is the fallback for when no other
    player has a face-down card (one coffin elsewhere can still be swapped with the slapper's own)."""
    return not any(not slot.up for p in state.players if p.seat != slapper for slot in p.slots)


def target(state: GarlicState, actor: int, kind: str, args: Mapping[str, Any]
            ) -> tuple[tuple[int, int] | None, Rejection | None]:
    """The card a claim or a bat action names. Real cards: the player only names whose card it is
    (which one is for the table to see), so the first card of the right side stands for it."""
    want_up = kind == "own_up"
    seat = args.get("seat") if kind == "other_down" else actor
    if isinstance(seat, bool) or not isinstance(seat, int) or (seat == actor and kind == "other_down") \
            or not state.seated(seat):
        return None, Rejection("choose_other_player")
    player = state.player(seat)
    if state.physical:
        slots = player.face_up() if want_up else player.face_down()
        if not slots:
            return None, Rejection("no_face_up_card" if want_up else "no_face_down_card")
        return (seat, slots[0]), None
    where = slot_of(state, seat, args.get("slot"))
    if where is None:
        return None, Rejection("bad_card")
    if is_up(state, where) != want_up:
        return None, Rejection("card_face_down" if want_up else "card_face_up")
    return where, None


def moon_pair(state: GarlicState, actor: int, args: Mapping[str, Any]
               ) -> tuple[tuple[tuple[int, int], tuple[int, int]] | None, Rejection | None]:
    """S-S7 and ambiguity 8: two coffins anywhere, or, when no other player has a coffin, two
    face-up cards of two different players (the slapper's own display allowed)."""
    raw_a, raw_b = args.get("a"), args.get("b")
    if not (isinstance(raw_a, list | tuple) and isinstance(raw_b, list | tuple) and len(raw_a) == len(raw_b) == 2):
        return None, Rejection("bad_card")
    a, b = slot_of(state, *raw_a), slot_of(state, *raw_b)
    if a is None or b is None or a == b:
        return None, Rejection("bad_card")
    up_a, up_b = is_up(state, a), is_up(state, b)
    if up_a != up_b:
        return None, Rejection("moon_same_side")
    if up_a:
        refusal = face_up_pair_refusal(face_up_swap_allowed(state, actor), a, b)
        if refusal is not None:
            return None, refusal
    return (a, b), None


_FACE_DOWN_FIRST = Rejection("moon_face_down_first")
_TWO_PLAYERS = Rejection("moon_two_players")


def face_up_pair_refusal(swap_allowed: bool, a: tuple[int, int], b: tuple[int, int]) -> Rejection | None:
    """Why the moon may not swap these two face-up cards: only when `face_up_swap_allowed`, and
    never two of one player's. (Its refusals are made once: a random moon asks about dozens of
    pairs.)"""
    if not swap_allowed:
        return _FACE_DOWN_FIRST
    if a[0] == b[0]:
        return _TWO_PLAYERS
    return None


# -- deadlines --------------------------------------------------------------------------------

def deadline(state: GarlicState) -> Deadline | None:
    """The earliest wait that can run out: a penalty's card choice, or the first slapper's action."""
    options = state.options
    due: list[tuple[int, int, str]] = []
    if state.phase not in ("over", "moon_look") and state.penalties:  # no payment during a moon look
        since = state.penalties[0].since_us
        due.append((since + int(options["penalty_choice_timeout_s"] * 1_000_000), since, "penalty"))
    if state.phase in TURN_PHASES:
        since = int(state.turn["since_us"])
        due.append((since + int(options["claim_timeout_s"] * 1_000_000), since, "turn"))
    if not due:
        return None
    at_us, since_us, what = min(due)
    return Deadline(at_us, since_us, Command("timeout", {"step": state.step, "for": what}))


def awaited(state: GarlicState) -> frozenset[int]:
    """Who must act before the game goes on: the slapper in their turn, and a penalised player
    choosing a coffin (not during a moon look, which pauses payments)."""
    seats = set()
    if state.phase in TURN_PHASES and state.turn.get("seat") is not None:
        seats.add(int(state.turn["seat"]))
    if state.phase not in ("over", "moon_look"):
        seats.update(p.seat for p in state.penalties)
    return frozenset(seats)


# -- evolve -----------------------------------------------------------------------------------

def _with_player(state: GarlicState, player: Player) -> tuple[Player, ...]:
    """The players with this one (by seat) as given."""
    return tuple(player if p.seat == player.seat else p for p in state.players)


def _with_slot(player: Player, index: int, slot: Slot) -> Player:
    return Player(player.seat, player.name, _put(player.slots, index, slot), player.cleared)


def _set_slot(state: GarlicState, seat: int, slot: int, up: bool) -> tuple[Player, ...]:
    player = state.player(seat)
    return _with_player(state, _with_slot(player, slot, Slot(player.slots[slot].card, up)))


def _happened(state: GarlicState, kind: str, data: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    """A public line for the table display. Never a card's identity: a coffin's is nobody's to
    recall from a screen, and a face-up card is shown where it lies."""
    return ({"kind": kind, "round": state.round, **data}, *state.happenings)[:RECENT]


def evolve(state: GarlicState, event: Event) -> GarlicState:
    return evolve_by(state, event.type, event.data, _ON, "the garlic game")


def _dice_rolled(state: GarlicState, data: Data) -> Changes:
    dice = Dice(data["round"], data["roller"], data["colour"], data["symbol"], data["at_us"])
    # The check is over: a card shown after a wrong claim goes back coffin side up for good.
    return dict(phase="reaction", round=dice.round, roller=dice.roller, dice=dice, turn={},
                shown=frozenset(), result=None)


def _round_armed(state: GarlicState, data: Data) -> Changes:
    return dict(turn={"mode": data["mode"], "at_us": data["at_us"], "window_us": data["window_us"]})


def _round_settled(state: GarlicState, data: Data) -> Changes:
    board = state.board
    if data["mode"] == "race":
        board = with_round(board, data["decision"].get("order", []))
    result = {k: data[k] for k in ("round", "mode", "outcome", "winner", "tied", "drawn_from")}
    result["order"] = data["decision"].get("order", [])
    result["false_starts"] = data["decision"].get("false_starts", [])
    result["late"] = []
    result["signal"] = data["decision"].get("signal", "table")
    return dict(result=result, board=board, turn={**state.turn, "settled": True})


def _round_late_press(state: GarlicState, data: Data) -> Changes:
    # A slap after the decision: listed with its time, and on the board; it changes no turn (the
    # turn's deadline is due when it was, named by the new step).
    result = {**(state.result or {}), "late": [*(state.result or {}).get("late", []), data["press"]]}
    return dict(result=result, board=with_round(state.board, [data["press"]]))


def _slapper_called(state: GarlicState, data: Data) -> Changes:
    return dict(phase=data["phase"], turn={"seat": data["seat"], "queue": list(data["queue"]),
                                           "since_us": data["since_us"]})


def _claim_made(state: GarlicState, data: Data) -> Changes:
    claim = {"kind": data["kind"], "target": data["target"], "slot": data["slot"]}
    return dict(turn={**state.turn, "claim": claim},
                happenings=_happened(state, "claim", {"seat": data["seat"], "claim": data["kind"],
                                                      "target": data["target"], "slot": data["slot"]}))


def _judgement_asked(state: GarlicState, data: Data) -> Changes:
    return dict(phase="confirm", turn={**state.turn, "votes": {}, "judge": data["by"]})


def _claim_vote(state: GarlicState, data: Data) -> Changes:
    votes = {**state.turn.get("votes", {}), str(data["seat"]): data["right"]}
    return dict(turn={**state.turn, "votes": votes})


def _claim_judged(state: GarlicState, data: Data) -> Changes:
    return dict(happenings=_happened(state, "judged", {"seat": data["seat"], "right": data["right"],
                                                        "by": data["by"]}))


def _claim_withdrawn(state: GarlicState, data: Data) -> Changes:
    return dict(happenings=_happened(state, "no_claim", {"seat": data["seat"], "cause": data["cause"]}))


def _card_checked(state: GarlicState, data: Data) -> Changes:
    # Shown to everyone until it is turned face up, cleared, or (a wrong check) the next roll.
    return dict(shown=state.shown | {data["card"]}, happenings=_happened(state, "checked", {
        "seat": data["seat"], "slot": data["slot"], "by": data["by"], "right": data["right"]}))


def _card_turned_down(state: GarlicState, data: Data) -> Changes:
    return dict(players=_set_slot(state, data["seat"], data["slot"], False),
                happenings=_happened(state, "turned_down", {k: data[k] for k in ("seat", "slot", "cause")}))


def _card_turned_up(state: GarlicState, data: Data) -> Changes:
    return dict(players=_set_slot(state, data["seat"], data["slot"], True),
                shown=state.shown - {data["card"]},
                happenings=_happened(state, "turned_up", {k: data[k] for k in ("seat", "slot", "cause")}))


def _card_cleared(state: GarlicState, data: Data) -> Changes:
    player = state.player(data["seat"])
    slots = player.slots[:data["slot"]] + player.slots[data["slot"] + 1:]
    cleared = (*player.cleared, Cleared(data["card"], data["checked"]))
    return dict(players=_with_player(state, Player(player.seat, player.name, slots, cleared)),
                shown=state.shown - {data["card"]},
                happenings=_happened(state, "cleared", {"seat": data["seat"], "checked": data["checked"],
                                                        "count": len(cleared)}))


def _card_drawn(state: GarlicState, data: Data) -> Changes:
    player = state.player(data["seat"])
    slots = (*player.slots, Slot(data["card"], True))
    return dict(pile=state.pile[1:], players=_with_player(state, Player(player.seat, player.name, slots,
                                                                        player.cleared)),
                happenings=_happened(state, "drew", {"seat": data["seat"], "cause": data["cause"]}))


def _cards_swapped(state: GarlicState, data: Data) -> Changes:
    players = state.players
    if data["a"] is not None:
        (sa, ia), (sb, ib) = data["a"], data["b"]
        card_a, card_b = state.player(sa).slots[ia], state.player(sb).slots[ib]
        moved = _with_player(state, _with_slot(state.player(sa), ia, card_b))
        after_a = next(p for p in moved if p.seat == sb)
        players = tuple(_with_slot(after_a, ib, card_a) if p.seat == sb else p for p in moved)
    return dict(players=players, happenings=_happened(state, "swapped", {
        "seat": data["by"], "a": data["a"], "b": data["b"], "face": data["face"]}))


def _moon_looked(state: GarlicState, data: Data) -> Changes:
    return dict(phase="moon_look", turn={**state.turn, "a": data["a"], "b": data["b"],
                                          "since_us": data["since_us"]},
                happenings=_happened(state, "looked", {"seat": data["seat"], "a": data["a"], "b": data["b"]}))


def _bat_chosen(state: GarlicState, data: Data) -> Changes:
    return {}


def _action_passed(state: GarlicState, data: Data) -> Changes:
    return dict(happenings=_happened(state, "passed", {"seat": data["seat"], "cause": data["cause"]}))


def _penalty_due(state: GarlicState, data: Data) -> Changes:
    return dict(penalties=(*state.penalties, Penalty(data["seat"], data["reason"], data["since_us"])))


def _penalty_paid(state: GarlicState, data: Data) -> Changes:
    waiting = list(state.penalties)
    index = next((i for i, p in enumerate(waiting) if p.seat == data["seat"]), None) if data.get("chosen") else None
    if index is not None:
        del waiting[index]
    return dict(penalties=tuple(waiting), happenings=_happened(state, "penalty", {
        "seat": data["seat"], "reason": data["reason"], "how": data["how"]}))


def _penalties_awaited(state: GarlicState, data: Data) -> Changes:
    return dict(phase="penalties", turn={"then": data.get("then", "pass")})


def _dice_passed(state: GarlicState, data: Data) -> Changes:
    return dict(phase="roll", roller=data["to"], turn={})


def _dice_kept(state: GarlicState, data: Data) -> Changes:
    return dict(phase="roll", turn={}, happenings=_happened(state, "tie", {"seat": data["roller"]}))


def _game_won(state: GarlicState, data: Data) -> Changes:
    return dict(phase="over", winner=data["seat"], turn={}, penalties=(),
                happenings=_happened(state, "won", {"seat": data["seat"]}))


_ON: dict[str, Callable[[GarlicState, Data], Changes]] = {
    "dice_rolled": _dice_rolled,
    ROUND_ARMED: _round_armed,
    ROUND_SETTLED: _round_settled,
    ROUND_LATE_PRESS: _round_late_press,
    "slapper_called": _slapper_called,
    "claim_made": _claim_made,
    "judgement_asked": _judgement_asked,
    "claim_vote": _claim_vote,
    "claim_judged": _claim_judged,
    "claim_withdrawn": _claim_withdrawn,
    "card_checked": _card_checked,
    "card_turned_down": _card_turned_down,
    "card_turned_up": _card_turned_up,
    "card_cleared": _card_cleared,
    "card_drawn": _card_drawn,
    "cards_swapped": _cards_swapped,
    "moon_looked": _moon_looked,
    "bat_chosen": _bat_chosen,
    "action_passed": _action_passed,
    "penalty_due": _penalty_due,
    "penalty_paid": _penalty_paid,
    "penalties_awaited": _penalties_awaited,
    "dice_passed": _dice_passed,
    "dice_kept": _dice_kept,
    "game_won": _game_won,
}
"""What each event changes in the state: one function per event, found by its type (a table rather
than a chain of tests, which every event would walk down to its own)."""


def _put(slots: tuple[Slot, ...], index: int, slot: Slot) -> tuple[Slot, ...]:
    return (*slots[:index], slot, *slots[index + 1:])


def is_over(state: GarlicState) -> bool:
    return state.phase == "over"
