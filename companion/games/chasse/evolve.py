"""How each event of La chasse au vampire changes the state: never random, never failing on an
event the moves decided."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import Event
from companion.games.chasse.state import RECENT, ChasseState, Glass, Transfusion
from companion.games.states import changed


def _pawn(state: ChasseState, seat: int, **changes: Any) -> ChasseState:
    return changed(state, players=tuple(changed(p, **changes) if p.seat == seat else p for p in state.players))


def _told(state: ChasseState, kind: str, data: Mapping[str, Any]) -> ChasseState:
    """The event as a happening the screens list, newest first (the private parts left out)."""
    shown = {k: v for k, v in data.items() if k not in ("stacks", "chapel", "card", "left_us", "since_us", "squares")}
    if "kind" in shown:  # a card's kind (a riposte, a deposit): the happening's own kind is the event's
        shown["card_kind"] = shown.pop("kind")
    return changed(state, happenings=({**shown, "kind": kind}, *state.happenings)[:RECENT])


def _square(data: Mapping[str, Any]) -> tuple[int, int] | None:
    square = data.get("square")
    return (int(square[0]), int(square[1])) if square is not None else None


def _revealed(state: ChasseState, seat: int, number: int, why: str, by: int | None, effect: str) -> ChasseState:
    """The top card of a stack turned face up: off the stack, and remembered as the latest reveal
    (what it is, never which card: it goes back into the pile, where every card is anyone's guess)."""
    pawn = state.player(seat)
    card = state.cards[number]
    shown = {"seat": seat, "why": why, "by": by, "kind": card.kind, "group": card.group, "effect": effect}
    return changed(_pawn(state, seat, stack=pawn.stack[1:]), revealed=shown)


def _under_chapel(state: ChasseState, *numbers: int) -> ChasseState:
    return changed(state, chapel=(*state.chapel, *numbers))


def _convert(state: ChasseState, seat: int) -> ChasseState:
    """A traveller becomes a disciple: its cards go back under the chapel pile (5.8 item 10), its
    transfusion and its promise to give end."""
    pawn = state.player(seat)
    state = _under_chapel(state, *pawn.stack)
    transfusions = tuple(t if t.donor != seat else changed(t, donor=None, reached=t.reached - {seat})
                         for t in state.transfusions if t.victim != seat)
    return changed(_pawn(state, seat, role="disciple", stack=(), deposited=False), transfusions=transfusions)


def evolve(state: ChasseState, event: Event) -> ChasseState:
    kind, data = event.type, event.data
    handler = _HANDLERS.get(kind)
    if handler is None:
        return state
    return _told(handler(state, data), kind, data)


def _start_rolled(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    return changed(state, start={**state.start, "rolls": {**state.start["rolls"], str(data["seat"]): data["roll"]}})


def _start_tied(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    return changed(state, start={"round": data["round"] + 1, "contenders": list(data["seats"]), "rolls": {},
                                 "last": dict(state.start["rolls"])})


def _master_chosen(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    return _pawn(state, data["seat"], role="master")


def _cards_dealt(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    """C-S2..C-S4: the stacks, the chapel pile; travellers in the inn, the master in the crypt."""
    stacks = data["stacks"]
    squares = data.get("squares", {})
    players = tuple(changed(p, stack=tuple(stacks.get(str(p.seat), ())),
                            place="crypt" if p.role == "master" else "inn",
                            square=_square({"square": squares.get(str(p.seat))})) for p in state.players)
    return changed(state, players=players, chapel=tuple(data["chapel"]), phase="play",
                   start={**state.start, "rolls": dict(state.start["rolls"])})


def _glass_turned(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    glass = Glass(data["side"], data["full_us"], data["full_us"], data["since_us"], True, data["turns"])
    return changed(state, glass=glass, circle_used=False)


def _glass_paused(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    assert state.glass is not None
    return changed(state, glass=changed(state.glass, running=False, left_us=data["left_us"], since_us=data["since_us"]))


def _glass_resumed(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    assert state.glass is not None
    return changed(state, glass=changed(state.glass, running=True, left_us=data["left_us"], since_us=data["since_us"]))


def _turn_begun(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    return changed(state, current=data["seat"], roll=None, allowance=None)


def _turn_rolled(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    return changed(state, roll=data["roll"], allowance=data["allowance"])


def _pawn_moved(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    pawn = state.player(data["seat"])
    stays = pawn.place == "crypt" and data["place"] == "crypt"
    return _pawn(state, data["seat"], place=data["place"], square=_square(data), deposited=pawn.deposited and stays)


def _vampire_sent(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    """To the cemetery (a repelled bite, the magic circle); a freed disciple is a traveller again."""
    for seat in data["seats"]:
        role = "traveller" if seat in data.get("freed", ()) else state.player(seat).role
        state = _pawn(state, seat, place="cemetery", square=_square(data), role=role)
    return state


def _bite_answered(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    """C-B2, C-B4: the victim's top card is shown, then goes under the chapel pile."""
    state = _revealed(state, data["victim"], data["card"], "riposte", data["biter"], data["effect"])
    return _under_chapel(state, data["card"])


def _converted(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    """Converted where no vampire may stand, the new disciple is in the cemetery at once."""
    state = _convert(state, data["seat"])
    if "place" in data:
        state = _pawn(state, data["seat"], place=data["place"], square=_square(data))
    return state


def _transfusion_needed(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    pending = Transfusion(data["victim"], data["group"], data["biter"], data["deadline_turns"])
    reached = frozenset({data["victim"]}) if state.player(data["victim"]).place == "doctor" else frozenset()
    return changed(state, transfusions=(*state.transfusions, changed(pending, reached=reached)))


def _donor_lost(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    donor = data["donor"]
    return changed(state, transfusions=tuple(
        changed(t, donor=None, reached=t.reached - {donor}) if t.victim == data["victim"] else t
        for t in state.transfusions))


def _blood_offered(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    if not data["compatible"]:
        return state
    donor = data["donor"]
    here = state.player(donor).place == "doctor"
    return changed(state, transfusions=tuple(
        changed(t, donor=donor, reached=t.reached | ({donor} if here else set())) if t.victim == data["victim"] else t
        for t in state.transfusions))


def _doctor_reached(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    return changed(state, transfusions=tuple(
        changed(t, reached=t.reached | {data["seat"]}) if t.victim == data["victim"] else t
        for t in state.transfusions))


def _transfusion_done(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    state = _pawn(state, data["victim"], transfused=True)
    return changed(state, transfusions=tuple(t for t in state.transfusions if t.victim != data["victim"]))


def _card_drawn(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    """C-K2: the chapel pile's top card onto the top of the stack, unseen."""
    pawn = state.player(data["seat"])
    state = changed(state, chapel=state.chapel[1:])
    return _pawn(state, data["seat"], stack=(data["card"], *pawn.stack))


def _card_deposited(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    """C-K5: garlic, holy water and cross stay in the crypt; the others go back under the pile."""
    state = _revealed(state, data["seat"], data["card"], "crypt", None, data["effect"])
    state = _pawn(state, data["seat"], deposited=True)
    if data["kind"] in ("garlic", "water", "cross", "stake"):
        return changed(state, crypt=(*state.crypt, data["card"]))
    return _under_chapel(state, data["card"])


def _circle_used(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    return changed(state, circle_used=True)


def _game_won(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    glass = state.glass
    if glass is not None and glass.running:
        glass = changed(glass, running=False, left_us=glass.left_at(data["at_us"]), since_us=data["at_us"])
    return changed(state, phase="over", winner=data["winner"], winners=tuple(data["winners"]), glass=glass,
                   current=None, roll=None, allowance=None)


def _nothing(state: ChasseState, data: Mapping[str, Any]) -> ChasseState:
    """A happening to list, no change (an empty stack at the crypt, a building closing)."""
    return state


_HANDLERS = {
    "start_rolled": _start_rolled, "start_tied": _start_tied, "master_chosen": _master_chosen,
    "cards_dealt": _cards_dealt, "glass_turned": _glass_turned, "glass_paused": _glass_paused,
    "glass_resumed": _glass_resumed, "glass_held": _glass_resumed, "turn_begun": _turn_begun,
    "turn_rolled": _turn_rolled,
    "pawn_moved": _pawn_moved, "vampire_sent": _vampire_sent, "bite_answered": _bite_answered,
    "converted": _converted, "transfusion_needed": _transfusion_needed, "donor_lost": _donor_lost,
    "blood_offered": _blood_offered, "doctor_reached": _doctor_reached, "transfusion_done": _transfusion_done,
    "card_drawn": _card_drawn, "card_deposited": _card_deposited, "circle_used": _circle_used,
    "game_won": _game_won, "nothing_to_deposit": _nothing, "building_closed": _nothing,
    "chapel_empty": _nothing, "bite_unanswered": _nothing, "transfusion_failed": _nothing,
    "pawn_blocked": _nothing,
}


def is_over(state: ChasseState) -> bool:
    return state.phase == "over"

