"""La nuit des vampires' moves: when each command is legal, who may make it, its check and its
telling on the turn's story (turn.py).

The board is not digitised: where a pawn stopped is what its player says (a fate colour, the
castle courtyard), and the companion checks what it can (the spaces paid, the colours, who stands
where as told, the limits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.fairness.rng import RandomSource
from companion.games.base import Args, Move, Rejection, Viewer, anyone, no_check
from companion.games.nuit.options import BRIDGES, ELIXIRS
from companion.games.nuit.rules import (
    give_back_magic,
    open_tower_refusal,
    pay_bottles,
    peek_tower,
    still_to_roll,
    take_bottles,
)
from companion.games.nuit.state import COURTYARD, OUBLIETTES, START, NuitState
from companion.games.nuit.turn import (
    BRIDGE_USES,
    FOUND,
    MOVE_SPACES,
    TEMPO_SPACES,
    WAYS_OUT,
    NuitTurn,
    awaits,
    card_in_hand,
    others_at,
    player_name,
    waiting_for,
)
from companion.games.options import whole

# -- the moves -----------------------------------------------------------------------------------
# Each check and telling speaks for the seat that makes the move (every turn move is a seat's).

# move or replenish (N-T1, N-T4, N-C4)

def _check_move(state: NuitState, seat: int, args: Args) -> Rejection | None:
    way = args.get("way")
    if state.player(seat).location != OUBLIETTES:
        return None if way is None else Rejection("not_in_oubliettes")
    if way not in WAYS_OUT:
        return Rejection("way_out_needed", {"bribe": state.options["oubliette_bribe"]})
    if way == "bridge":
        return card_in_hand(state, seat, args.get("card"), "bridge")
    if way == "bribe" and state.player(seat).bottles < state.options["oubliette_bribe"]:
        return Rejection("not_enough_bottles", {"needed": state.options["oubliette_bribe"],
                                                "held": state.player(seat).bottles})
    return None


def _tell_move(story: NuitTurn, seat: int, args: Args) -> None:
    way = args.get("way")
    if way == "roll":
        story.owe(seat, story.roll_both(seat, "escape"), "escape")
        return
    if way == "bribe":
        bribe = story.state.options["oubliette_bribe"]
        if bribe:
            story.apply(pay_bottles(story.state, seat, bribe, "escape"))
        story.tell("oubliettes_left", {"seat": seat, "way": "bribe", "paid": bribe})
    story.begin_move(seat)
    if way == "bridge":
        # The bridge card is the move's first magic card (N-L2).
        story.tell("magic_played", {"seat": seat, "card": args["card"], "kind": "bridge", "use": "escape",
                                    "counted": True})
        story.tell("oubliettes_left", {"seat": seat, "way": "bridge", "paid": 0})


def _tell_replenish(story: NuitTurn, seat: int, args: Args) -> None:
    story.split(seat, story.roll_both(seat, "replenish"))


# magic cards during a move (N-T1, N-L2, N-L3) and elixirs at any time (ambiguity 7)

def _counted_limit(state: NuitState) -> Rejection | None:
    limit = state.options["max_magic_per_move"]
    return Rejection("magic_limit", {"max": limit}) if state.move.get("played", 0) >= limit else None


def _check_play(state: NuitState, seat: int, args: Args) -> Rejection | None:
    card = args.get("card")
    refused = card_in_hand(state, seat, card, "tempo", "bridge", "glove") or _counted_limit(state)
    if refused:
        return refused
    kind = state.magic[args["card"]].kind
    if kind == "tempo":
        spaces = args.get("spaces")
        return None if whole(spaces) and spaces in TEMPO_SPACES else Rejection("tempo_spaces")
    if kind == "bridge":
        use = args.get("use")
        if use not in BRIDGE_USES:
            return Rejection("bad_arguments", {"detail": "use"})
        if use == "place":
            return Rejection("bridges_on_board") if state.bridges >= BRIDGES else None
        return None if state.bridges >= BRIDGES else Rejection("bridges_not_on_board")
    victim, taken = args.get("from"), args.get("take")
    if not whole(victim) or victim == seat or not state.seated(victim):
        return Rejection("choose_other_player")
    if not whole(taken) or taken not in state.player(victim).hand:
        return Rejection("bad_card")
    return Rejection("glove_on_glove") if state.magic[taken].kind == "glove" else None


def _tell_play(story: NuitTurn, seat: int, args: Args) -> None:
    card = args["card"]
    kind = story.state.magic[card].kind
    data: dict[str, Any] = {"seat": seat, "card": card, "kind": kind, "counted": True}
    if kind == "tempo":
        data["spaces"] = args["spaces"]
    elif kind == "bridge":
        data["use"] = args["use"]
    else:
        data["from"] = args["from"]
    story.tell("magic_played", data)
    if kind == "glove":
        story.tell("magic_stolen", {"seat": seat, "from": args["from"], "card": args["take"]})


def _check_cash(state: NuitState, seat: int, args: Args) -> Rejection | None:
    card = args.get("card")
    refused = card_in_hand(state, seat, card, *ELIXIRS)
    if refused:
        return refused
    if state.player(seat).bottles >= state.options["max_bottles"]:
        return Rejection("bottles_full", {"max": state.options["max_bottles"]})
    return _counted_limit(state) if _during_own_move(state, seat) else None


def _during_own_move(state: NuitState, seat: int) -> bool:
    return state.stage() == "moving" and state.turn.get("seat") == seat


def _tell_cash(story: NuitTurn, seat: int, args: Args) -> None:
    card = story.state.magic[args["card"]]
    story.tell("magic_played", {"seat": seat, "card": card.number, "kind": card.kind,
                                "counted": _during_own_move(story.state, seat)})
    story.apply(take_bottles(story.state, seat, card.value, "elixir"))


# display cards: the onion bonus, the replenish split, a good fate card, a duel's reward

def _check_take(state: NuitState, seat: int, args: Args) -> Rejection | None:
    stage = state.stage()
    if stage == "moving" and state.move.get("bonus", 0) <= 0:
        return Rejection("no_bonus")
    card = args.get("card")
    if not whole(card) or card not in state.display:
        return Rejection("not_on_display")
    if len(state.player(seat).hand) >= state.options["max_magic"]:
        return Rejection("hand_full", {"max": state.options["max_magic"]})
    return None


_TAKE_CAUSES = {"moving": "onion", "split": "replenish", "pick": "fate", "reward": "duel"}


def _tell_take(story: NuitTurn, seat: int, args: Args) -> None:
    stage = story.state.stage()
    pips = story.state.turn.get("pips", 0)
    story.take_magic(seat, args["card"], _TAKE_CAUSES[str(stage)])
    if stage == "split":
        story.split(seat, pips - 2)
    elif stage == "pick":
        story.end_turn()
    elif stage == "reward":
        story.ask_push()


# where the move stopped (N-T1, N-T2, N-C1) and who stands there

def _check_stop(state: NuitState, seat: int, args: Args) -> Rejection | None:
    spaces, at = args.get("spaces"), args.get("at")
    if spaces not in MOVE_SPACES or not whole(spaces):
        return Rejection("move_spaces")
    if at != COURTYARD and at not in state.colours:
        return Rejection("no_such_place")
    cost = spaces - 1
    held = state.player(seat).bottles
    return Rejection("not_enough_bottles", {"needed": cost, "held": held}) if held < cost else None


def _tell_stop(story: NuitTurn, seat: int, args: Args) -> None:
    spaces, at = args["spaces"], args["at"]
    if spaces > 1:
        story.apply(pay_bottles(story.state, seat, spaces - 1, "movement"))
    tempo = story.state.move.get("tempo", 0)
    started = story.state.move.get("from")
    story.tell("player_moved", {"seat": seat, "to": at, "cause": "move", "spaces": spaces, "tempo": tempo})
    if at == COURTYARD:
        story.owe(seat, story.roll_both(seat, "tax"), "tax")
        return
    met = others_at(story.state, seat, at)
    if met and not (started == START and spaces + tempo == 1):
        story.ask(seat, "meet", at=at, seats=met)
        return
    story.fate(seat, at)


def _check_duel(state: NuitState, seat: int, args: Args) -> Rejection | None:
    """N-T2: the mover names whom they meet; a player standing on the space may call the duel
    themselves, so it never rests on the mover's word alone."""
    other, met = args.get("seat"), state.turn.get("seats", [])
    if seat != state.turn["seat"]:
        if seat not in met:
            return Rejection("not_on_that_space")
        return None if whole(other) and other == seat else Rejection("bad_arguments", {"detail": "seat"})
    return None if whole(other) and other in met else Rejection("not_on_that_space")


def _tell_duel(story: NuitTurn, seat: int, args: Args) -> None:
    # N-D1: the moving player attacks (the red die), whoever called the duel.
    story.tell("duel_begun", {"attacker": story.state.turn["seat"], "defender": args["seat"],
                              "at": story.state.turn["at"]})
    story.duel_on()


def _check_duel_card(state: NuitState, seat: int, args: Args) -> Rejection | None:
    return card_in_hand(state, seat, args.get("card"), "duel_")


def _tell_duel_card(story: NuitTurn, seat: int, args: Args) -> None:
    card = story.state.magic[args["card"]]
    story.tell("magic_played", {"seat": seat, "card": card.number, "kind": card.kind, "counted": False})
    story.duel_on()


def _tell_ready(story: NuitTurn, seat: int, args: Args) -> None:
    story.tell("duel_ready", {"seat": seat})
    story.duel_on()


def _check_push(state: NuitState, seat: int, args: Args) -> Rejection | None:
    # N-D3: never onto a black space (nor a start space): a coloured one, 1 to 4 spaces away.
    return None if args.get("to") in state.colours else Rejection("push_to_colour")


def _tell_push(story: NuitTurn, seat: int, args: Args) -> None:
    duel = story.state.duel
    assert duel is not None
    story.tell("player_moved", {"seat": duel["loser"], "to": args["to"], "cause": "duel"})
    story.after_duel()


# fate cards' choices (N-F1, N-F5) and the replenish fate card (ambiguity 12)

def _check_give_back(state: NuitState, seat: int, args: Args) -> Rejection | None:
    cards = args.get("cards")
    hand = state.player(seat).hand
    count = min(state.turn["count"], len(hand))
    if not isinstance(cards, list) or len(cards) != count:
        return Rejection("give_back_count", {"count": count})
    outcome = give_back_magic(state, seat, cards, "fate")
    return outcome if isinstance(outcome, Rejection) else None


def _tell_give_back(story: NuitTurn, seat: int, args: Args) -> None:
    story.apply(give_back_magic(story.state, seat, list(args["cards"]), "fate"))
    story.end_turn()


def _check_fly(state: NuitState, seat: int, args: Args) -> Rejection | None:
    to = args.get("to")
    if to not in state.colours:
        return Rejection("no_fate_colour", {"colour": str(to)[:24]})
    here = state.player(seat).location
    if state.options["flying_vampire_target"] == "same_colour_space" and here in state.colours and to != here:
        return Rejection("same_colour_only", {"colour": here})
    return None


def _tell_fly(story: NuitTurn, seat: int, args: Args) -> None:
    story.tell("flew", {"seat": seat, "to": args["to"]})
    story.end_turn()


def _check_peek(state: NuitState, seat: int, args: Args) -> Rejection | None:
    outcome = peek_tower(state, seat, args.get("tower"))  # type: ignore[arg-type]  # it checks the number
    return outcome if isinstance(outcome, Rejection) else None


def _tell_peek(story: NuitTurn, seat: int, args: Args) -> None:
    story.apply(peek_tower(story.state, seat, args["tower"]))
    story.end_turn()


def _tell_draw_fate(story: NuitTurn, seat: int, args: Args) -> None:
    story.fate(seat, story.state.player(seat).location)


# the castle (N-C1..N-C3)

def _check_pay(state: NuitState, seat: int, args: Args) -> Rejection | None:
    amount, held = state.turn["amount"], state.player(seat).bottles
    return Rejection("not_enough_bottles", {"needed": amount, "held": held}) if held < amount else None


def _tell_pay(story: NuitTurn, seat: int, args: Args) -> None:
    story.settle(seat, story.state.turn["amount"], story.state.turn["why"])


def _check_open(state: NuitState, seat: int, args: Args) -> Rejection | None:
    if state.physical and args.get("found") not in FOUND:
        return Rejection("say_what_was_found")
    return open_tower_refusal(state, seat, args.get("tower"), args.get("found"))  # type: ignore[arg-type]


def _tell_open(story: NuitTurn, seat: int, args: Args) -> None:
    story.open_tower(seat, args["tower"], args.get("found"))
    if story.state.phase == "turn":
        story.end_turn()


# declining an optional choice

def _tell_skip(story: NuitTurn, seat: int, args: Args) -> None:
    turn = story.state.turn
    stage = turn["stage"]
    if stage == "split":
        story.rest_as_bottles(seat, turn["pips"])
    elif stage == "meet":
        story.fate(seat, turn["at"])
    elif stage == "reward":
        story.ask_push()
    elif stage == "push":
        story.after_duel()
    elif stage == "debt":
        story.give_up(seat, turn["amount"], turn["why"])
    else:  # pick, flying, fate: nothing taken, nobody flies, no fate card
        story.end_turn()


# -- who may move, and the moves ---------------------------------------------------------------------

def _start_roller(state: NuitState, actor: Viewer) -> Rejection | None:
    """N-S7: each contender rolls on their phone, or the table (or host) rolls for those left."""
    waiting = still_to_roll(state)
    if actor.kind == "seat":
        if actor.seat not in state.start["contenders"]:
            return Rejection("not_in_start_roll")
        return None if actor.seat in waiting else Rejection("already_rolled")
    return None if waiting else Rejection("not_now")


def _tell_start_roll(story: NuitTurn, actor: Viewer, args: Args) -> None:
    story.start_roll([actor.seat] if actor.seat is not None else still_to_roll(story.state))


def _awaited(state: NuitState, actor: Viewer) -> Rejection | None:
    """The turn waits on one seat (both sides of a duel at once)."""
    if awaits(state, actor.seat):
        return None
    duel = state.duel
    if state.stage() == "duel" and duel and actor.seat in (duel["attacker"], duel["defender"]):
        return Rejection("already_ready")
    return Rejection("waiting_for", {"name": ", ".join(player_name(state, s) for s in waiting_for(state))})


SeatCheck = Callable[[NuitState, int, Args], Rejection | None]
SeatTell = Callable[[NuitTurn, int, Args], None]


def _turn(stages: tuple[str, ...], tell: SeatTell, check: SeatCheck | None = None,
          awaited: bool = True) -> Move[NuitState, NuitTurn]:
    """A move of the turns, made by a seat; `awaited`: only by the seat the turn waits on (else any
    seat, whose check says who may)."""

    def told(story: NuitTurn, actor: Viewer, args: Args) -> None:
        assert actor.seat is not None
        tell(story, actor.seat, args)

    def checked(state: NuitState, actor: Viewer, args: Args) -> Rejection | None:
        assert actor.seat is not None and check is not None
        return check(state, actor.seat, args)

    return Move(told, phases=("turn",), stages=stages, whose=_awaited if awaited else anyone,
                check=checked if check else no_check)


MOVES: dict[str, Move[NuitState, NuitTurn]] = {
    "roll": Move(_tell_start_roll, phases=("start_roll",), by=("seat", "table", "host"), whose=_start_roller),
    "move": _turn(("choose",), _tell_move, _check_move),
    "replenish": _turn(("choose",), _tell_replenish),
    "play": _turn(("moving",), _tell_play, _check_play),
    "cash": _turn((), _tell_cash, _check_cash, awaited=False),
    "take": _turn(("moving", "split", "pick", "reward"), _tell_take, _check_take),
    "stop": _turn(("moving",), _tell_stop, _check_stop),
    "duel": _turn(("meet",), _tell_duel, _check_duel, awaited=False),
    "duel_card": _turn(("duel",), _tell_duel_card, _check_duel_card),
    "ready": _turn(("duel",), _tell_ready),
    "push": _turn(("push",), _tell_push, _check_push),
    "give_back": _turn(("give_back",), _tell_give_back, _check_give_back),
    "fly": _turn(("flying",), _tell_fly, _check_fly),
    "peek": _turn(("flying",), _tell_peek, _check_peek),
    "draw_fate": _turn(("fate",), _tell_draw_fate),
    "pay": _turn(("debt",), _tell_pay, _check_pay),
    "open": _turn(("tower",), _tell_open, _check_open),
    "skip": _turn(("split", "meet", "reward", "push", "debt", "pick", "flying", "fate"), _tell_skip),
}


def story(state: NuitState, at_us: int, rng: RandomSource) -> NuitTurn:
    return NuitTurn(state, at_us, rng)
