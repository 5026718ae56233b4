"""How an event changes La nuit des vampires' state: never random, never failing on a decided event,
so any game replays from its log."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.games.base import Event
from companion.games.nuit.options import BRIDGES
from companion.games.nuit.state import RECENT, NuitState, Player
from companion.games.states import Changes, Data, changed, evolve_by, with_changes


def _with_player(state: NuitState, seat: int, **changes: Any) -> tuple[Player, ...]:
    return tuple([with_changes(p, changes) if p.seat == seat else p for p in state.players])


def _happened(state: NuitState, kind: str, data: Mapping[str, Any], *keys: str) -> tuple[Mapping[str, Any], ...]:
    """A public line for the table display, latest first: the event's `keys` of `data` (all of it
    when none is named); never a tower's content before it is opened."""
    line = {"kind": kind}
    if keys:
        for key in keys:
            line[key] = data[key]
    else:
        line.update(data)
    return (line, *state.happenings[:RECENT - 1])


def evolve(state: NuitState, event: Event) -> NuitState:
    return evolve_by(state, event.type, event.data, _HANDLERS, "la nuit des vampires")


# -- the start roll (N-S7) ---------------------------------------------------------------------------

def _start_rolled(state: NuitState, data: Data) -> Changes:
    rolls = {**state.start["rolls"], str(data["seat"]): {k: data[k] for k in ("red", "black", "total")}}
    return dict(start={**state.start, "rolls": rolls})


def _start_tied(state: NuitState, data: Data) -> Changes:
    return dict(start={"round": data["round"] + 1, "contenders": list(data["seats"]), "rolls": {},
                       "last": dict(state.start["rolls"])},
                happenings=_happened(state, "start_tied", {"seats": list(data["seats"])}))


def _start_decided(state: NuitState, data: Data) -> Changes:
    return dict(phase="turn", current=data["seat"], order=tuple(data["order"]),
                turn={"stage": "choose", "seat": data["seat"]}, turns=1,
                happenings=_happened(state, "starts", data, "seat", "total"))


# -- the ledger: bottles, magic cards, fate cards, towers, places ------------------------------------

def _bottles_taken(state: NuitState, data: Data) -> Changes:
    player = state.player(data["seat"])
    taken = data["taken"]
    return dict(players=_with_player(state, player.seat, bottles=player.bottles + taken),
                reserve=state.reserve - taken,
                happenings=_happened(state, "bottles_taken", data, "seat", "taken", "cause"))


def _bottles_paid(state: NuitState, data: Data) -> Changes:
    player = state.player(data["seat"])
    paid = data["paid"]
    return dict(players=_with_player(state, player.seat, bottles=player.bottles - paid),
                reserve=state.reserve + paid,
                happenings=_happened(state, "bottles_paid", data, "seat", "paid", "cause"))


def _magic_taken(state: NuitState, data: Data) -> Changes:
    player = state.player(data["seat"])
    display = tuple(c for c in state.display if c != data["card"])
    move = state.move
    if data["cause"] == "onion":
        move = {**move, "bonus": move["bonus"] - 1}
    return dict(display=display, move=move,
                players=_with_player(state, player.seat, hand=(*player.hand, data["card"])),
                happenings=_happened(state, "magic_taken", data, "seat", "card", "cause"))


def _display_refilled(state: NuitState, data: Data) -> Changes:
    return dict(deck=state.deck[1:], display=(*state.display, data["card"]),
                magic_seen=state.magic_seen | {data["card"]})


def _magic_returned(state: NuitState, data: Data) -> Changes:
    player = state.player(data["seat"])
    hand = tuple(c for c in player.hand if c not in data["cards"])
    return dict(deck=(*state.deck, *data["cards"]),
                players=_with_player(state, player.seat, hand=hand),
                happenings=_happened(state, "magic_returned", data, "seat", "cards", "cause"))


def _fate_drawn(state: NuitState, data: Data) -> Changes:
    colour = state.colours.index(data["colour"])
    stacks = tuple((*s[1:], s[0]) if i == colour else s for i, s in enumerate(state.stacks))
    return dict(stacks=stacks, fate_drawn=(*state.fate_drawn, data["card"]),
                happenings=_happened(state, "fate_drawn", data, "seat", "colour", "card", "cause"))


def _tower_peeked(state: NuitState, data: Data) -> Changes:
    peek = (data["seat"], data["tower"])
    peeks = state.peeks if peek in state.peeks else (*state.peeks, peek)
    return dict(peeks=peeks,
                happenings=_happened(state, "tower_peeked", data, "seat", "tower"))


def _tower_opened(state: NuitState, data: Data) -> Changes:
    content = data["content"]
    towers = tuple(changed(t, opened=True, content=content, found=content) if t.number == data["tower"] else t
                   for t in state.towers)
    return dict(towers=towers,
                happenings=_happened(state, "tower_opened", data, "seat", "tower", "content"))


def _onion_taken(state: NuitState, data: Data) -> Changes:
    player = state.player(data["seat"])
    towers = tuple(changed(t, content=None) if t.number == data["tower"] else t for t in state.towers)
    return dict(towers=towers, players=_with_player(state, player.seat, onions=player.onions + 1))


def _player_moved(state: NuitState, data: Data) -> Changes:
    return dict(players=_with_player(state, data["seat"], location=data["to"]),
                happenings=_happened(state, "moved", data, "seat", "to", "cause"))


def _game_won(state: NuitState, data: Data) -> Changes:
    return dict(phase="over", winner=data["seat"], current=None, turn={},
                happenings=_happened(state, "won", data, "seat", "tower"))


# -- the turn ----------------------------------------------------------------------------------------

def _turn_passed(state: NuitState, data: Data) -> Changes:
    return dict(current=data["seat"], turn={"stage": "choose", "seat": data["seat"]}, move={},
                duel=None, turns=state.turns + 1)


def _asked(state: NuitState, data: Data) -> Changes:
    return dict(turn={"stage": data["choice"], **{k: v for k, v in data.items() if k != "choice"}})


def _move_begun(state: NuitState, data: Data) -> Changes:
    return dict(turn={"stage": "moving", "seat": data["seat"]},
                move={"played": 0, "tempo": 0, "bonus": data["bonus"], "from": data["from"]},
                happenings=_happened(state, "move_begun", data, "seat"))


def _magic_played(state: NuitState, data: Data) -> Changes:
    """N-L3: a used card goes under the deck; it counts toward N-L2 unless it is a duel card."""
    player = state.player(data["seat"])
    card = data["card"]
    changes: dict[str, Any] = {
        "players": _with_player(state, player.seat, hand=tuple(c for c in player.hand if c != card)),
        "deck": (*state.deck, card),
        "happenings": _happened(state, "magic_played", {"seat": data["seat"], "card": card, "card_kind": data["kind"]}
                                | {k: data[k] for k in ("spaces", "use", "from") if k in data}),
    }
    if data["counted"]:
        changes["move"] = {**state.move, "played": state.move.get("played", 0) + 1,
                           "tempo": state.move.get("tempo", 0) + data.get("spaces", 0)}
    if data.get("use") == "place" or (data.get("use") == "escape" and state.bridges < BRIDGES):
        # N-C4a: the bridge card that leaves the oubliettes places a bridge (or moves one of the two).
        changes["bridges"] = state.bridges + 1
    if state.duel is not None and data["kind"].startswith("duel_"):
        played = {**state.duel["played"], str(data["seat"]): [*state.duel["played"][str(data["seat"])], card]}
        changes["duel"] = {**state.duel, "played": played}
    return changes


def _magic_stolen(state: NuitState, data: Data) -> Changes:
    thief, victim = state.player(data["seat"]), state.player(data["from"])
    players = tuple(changed(p, hand=(*p.hand, data["card"])) if p.seat == thief.seat
                    else changed(p, hand=tuple(c for c in p.hand if c != data["card"])) if p.seat == victim.seat
                    else p for p in state.players)
    return dict(players=players,
                happenings=_happened(state, "magic_stolen", data, "seat", "from", "card"))


def _dice_rolled(state: NuitState, data: Data) -> Changes:
    return dict(last_roll=dict(data), happenings=_happened(state, "dice_rolled", data))


def _duel_begun(state: NuitState, data: Data) -> Changes:
    attacker, defender = data["attacker"], data["defender"]
    duel = {"attacker": attacker, "defender": defender, "at": data["at"], "round": 1,
            "dice": {str(attacker): "red", str(defender): "black"},
            "played": {str(attacker): [], str(defender): []}, "ready": [], "rolls": None, "winner": None}
    return dict(duel=duel, turn={"stage": "duel", "seat": attacker},
                happenings=_happened(state, "duel_begun", data))


def _duel_ready(state: NuitState, data: Data) -> Changes:
    assert state.duel is not None
    return dict(duel={**state.duel, "ready": [*state.duel["ready"], data["seat"]]})


def _duel_rolled(state: NuitState, data: Data) -> Changes:
    assert state.duel is not None
    return dict(duel={**state.duel, "rolls": dict(data["rolls"])},
                happenings=_happened(state, "duel_rolled", data))


def _duel_tied(state: NuitState, data: Data) -> Changes:
    """N-D2: the two swap dice and roll again; each may play a duel card again."""
    duel = state.duel
    assert duel is not None
    dice = {seat: "black" if die == "red" else "red" for seat, die in duel["dice"].items()}
    return dict(duel={**duel, "round": duel["round"] + 1, "dice": dice,
                      "played": {seat: [] for seat in duel["played"]}, "ready": [], "rolls": None,
                      "tied": dict(duel["rolls"] or {})})


def _duel_won(state: NuitState, data: Data) -> Changes:
    assert state.duel is not None
    return dict(duel={**state.duel, "winner": data["winner"], "loser": data["loser"]},
                happenings=_happened(state, "duel_won", data, "winner", "loser"))


def _noted(kind: str) -> Callable[[NuitState, Data], Changes]:
    """An event that changes nothing but the table's list of what happened."""
    return lambda state, data: dict(happenings=_happened(state, kind, data))


def _flew(state: NuitState, data: Data) -> Changes:
    return dict(players=_with_player(state, data["seat"], location=data["to"]),
                happenings=_happened(state, "flew", data))


_HANDLERS: dict[str, Callable[[NuitState, Data], Changes]] = {
    "start_rolled": _start_rolled,
    "start_tied": _start_tied,
    "start_decided": _start_decided,
    "bottles_taken": _bottles_taken,
    "bottles_paid": _bottles_paid,
    "magic_taken": _magic_taken,
    "display_refilled": _display_refilled,
    "magic_returned": _magic_returned,
    "fate_drawn": _fate_drawn,
    "tower_peeked": _tower_peeked,
    "tower_opened": _tower_opened,
    "onion_taken": _onion_taken,
    "player_moved": _player_moved,
    "game_won": _game_won,
    "turn_passed": _turn_passed,
    "asked": _asked,
    "move_begun": _move_begun,
    "magic_played": _magic_played,
    "magic_stolen": _magic_stolen,
    "dice_rolled": _dice_rolled,
    "duel_begun": _duel_begun,
    "duel_ready": _duel_ready,
    "duel_rolled": _duel_rolled,
    "duel_tied": _duel_tied,
    "duel_won": _duel_won,
    "flew": _flew,
    "oubliettes_left": _noted("oubliettes_left"),
    "escape_failed": _noted("escape_failed"),
    "tax_unpaid": _noted("tax_unpaid"),
}


def close(state: NuitState) -> NuitState:
    """The table closed the game (the host ended it): the placement becomes everyone's (its proof
    is the seal's salt, in the view from now on)."""
    if state.phase == "over":
        return state
    return changed(state, phase="over", current=None, turn={})


def is_over(state: NuitState) -> bool:
    return state.phase == "over"

