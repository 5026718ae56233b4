"""La nuit des vampires' turns (N-T*, N-D*, N-F*, N-C*): what a player may do now, and the story
each command tells.

A turn waits on one stage at a time (`state.turn`): move or replenish, the move itself, who stands
on the space it stopped on, the duel, the winner's card and push, a fate card's choice, the
replenish split, a tax or escape roll the player may cash elixirs for, the tower to open. Each
command has a check (may this seat send it now, with these arguments?) and a telling: its events,
followed by every consequence that needs no choice (the fate card after a move, the duel's rolls
once both sides are ready, the next player's turn), so the turn always rests on a question to
somebody.

The board is not digitised: where a pawn stopped is what its player says (a fate colour, the
castle courtyard), and the companion checks what it can (the spaces paid, the colours, who stands
where as told, the limits).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.fairness.rng import RandomSource
from companion.games.base import Command, Event, Rejection, Viewer
from companion.games.nuit.options import BRIDGES, ELIXIRS
from companion.games.nuit.rules import (
    _Story,
    draw_fate,
    fate_effect,
    give_back_magic,
    open_tower,
    pay_bottles,
    peek_tower,
    still_to_roll,
    take_bottles,
    take_magic,
)
from companion.games.nuit.state import COURTYARD, OUBLIETTES, START, NuitState
from companion.games.options import whole

WAYS_OUT = ("bridge", "bribe", "roll")
"""N-C4: a bridge card, the bribe in bottles, or a roll of both dice paid in bottles."""
MOVE_SPACES = (1, 2, 3)
TEMPO_SPACES = (1, 2, 3)
BRIDGE_USES = ("place", "move")
FOUND = ("tomato", "onion")

Args = Mapping[str, Any]


# -- small readings of the state -------------------------------------------------------------------

def _card_in_hand(state: NuitState, seat: int, card: Any, *kinds: str) -> Rejection | None:
    if not whole(card) or card not in state.player(seat).hand:
        return Rejection("not_in_hand")
    if kinds and not any(state.magic[card].kind.startswith(k) for k in kinds):
        return Rejection("not_that_card")
    return None


def _held(state: NuitState, seat: int, *kinds: str) -> list[int]:
    return [c for c in state.player(seat).hand if any(state.magic[c].kind.startswith(k) for k in kinds)]


def _elixir_bottles(state: NuitState, seat: int) -> int:
    """The bottles a player could reach by cashing every elixir (N-L1 caps them)."""
    player = state.player(seat)
    total = player.bottles + sum(state.magic[c].value for c in _held(state, seat, *ELIXIRS))
    return min(total, state.options["max_bottles"], player.bottles + state.reserve)


def _others_at(state: NuitState, seat: int, place: str) -> list[int]:
    """N-T2 / N-D4: the vampires a move to `place` meets, as the players told their places (never in
    the oubliettes, the courtyard or at the start)."""
    if place not in state.colours:
        return []
    return [p.seat for p in state.players if p.seat != seat and p.location == place]


def _name(state: NuitState, seat: int) -> str:
    return state.player(seat).name or f"#{seat}"


def duel_sides(state: NuitState) -> list[int]:
    """The duel's sides still choosing their cards for this roll (both phones at once, N-D1)."""
    duel = state.duel
    if duel is None or state.stage() != "duel":
        return []
    return [s for s in (duel["attacker"], duel["defender"]) if s not in duel["ready"]]


def waiting_for(state: NuitState) -> list[int]:
    """Who the turn waits for now."""
    if state.phase == "start_roll":
        return still_to_roll(state)
    if state.phase != "turn":
        return []
    if state.stage() == "duel":
        return duel_sides(state)
    return [state.turn["seat"]]


# -- the story of a turn ---------------------------------------------------------------------------

class _Turn(_Story):
    def ask(self, seat: int, choice: str, **params: Any) -> None:
        self.tell("asked", {"seat": seat, "choice": choice, **params})

    def end_turn(self) -> None:
        if self.state.phase != "turn":
            return
        order = list(self.state.order)
        current = self.state.current
        following = order[(order.index(current) + 1) % len(order)] if current in order else order[0]
        self.tell("turn_passed", {"seat": following})

    def roll_both(self, seat: int, purpose: str) -> int:
        """Both dice, as the tax, the replenish and the escape roll them (N-C1, N-T4, N-C4c)."""
        turn = self.state.turns
        red = self.roll_die("red", f"{purpose} roll turn {turn} red die")
        black = self.roll_die("black", f"{purpose} roll turn {turn} black die")
        self.tell("dice_rolled", {"seat": seat, "purpose": purpose, "red": red, "black": black, "total": red + black})
        return red + black

    # -- debts: the castle tax and the escape roll (N-C1, N-C2, N-C4c)

    def owe(self, seat: int, amount: int, why: str) -> None:
        """Paid at once when the bottles are there; a choice when cashing elixirs could pay it
        (ambiguity 7: elixirs are cashed at the owner's choice); given up otherwise."""
        if self.state.player(seat).bottles >= amount:
            self.settle(seat, amount, why)
        elif _elixir_bottles(self.state, seat) >= amount:
            self.ask(seat, "debt", amount=amount, why=why)
        else:
            self.give_up(seat, amount, why)

    def settle(self, seat: int, amount: int, why: str) -> None:
        if amount:
            self.apply(pay_bottles(self.state, seat, amount, why))
        if why == "tax":
            self.ask(seat, "tower")
        else:
            self.tell("oubliettes_left", {"seat": seat, "way": "roll", "paid": amount})
            self.begin_move(seat)

    def give_up(self, seat: int, amount: int, why: str) -> None:
        if why == "tax":
            # N-C2 / ambiguity 10: straight to the oubliettes, keeping the bottles (or losing them all).
            kept = self.state.options["unpaid_tax"] == "keep_bottles"
            self.tell("tax_unpaid", {"seat": seat, "tax": amount, "kept": kept})
            held = self.state.player(seat).bottles
            if not kept and held:
                self.apply(pay_bottles(self.state, seat, held, "tax"))
            self.tell("player_moved", {"seat": seat, "to": OUBLIETTES, "cause": "tax"})
        else:
            self.tell("escape_failed", {"seat": seat, "needed": amount})
        self.end_turn()

    # -- moving (N-T0, N-T1)

    def begin_move(self, seat: int) -> None:
        """N-T0: one display card per onion before the move (ambiguity 9), taken on the phone."""
        player = self.state.player(seat)
        self.tell("move_begun", {"seat": seat, "bonus": player.onions, "from": player.location})

    # -- fate cards (N-T3, N-F*)

    def fate(self, seat: int, colour: str) -> None:
        outcome = draw_fate(self.state, seat, colour, "space")
        self.apply(outcome)
        assert not isinstance(outcome, Rejection)
        card = self.state.fate[outcome[0].data["card"]]
        effect = fate_effect(card, self.state.options["good_card_reading"])
        player = self.state.player(seat)
        if effect["give_back_magic"]:
            if len(player.hand) > effect["give_back_magic"]:
                self.ask(seat, "give_back", count=effect["give_back_magic"])
                return
            if player.hand:
                self.apply(give_back_magic(self.state, seat, list(player.hand), "fate"))
        if effect["give_back_bottles"] and player.bottles:
            self.apply(pay_bottles(self.state, seat, effect["give_back_bottles"], "fate", as_many_as_held=True))
        if effect["bottles"]:
            self.apply(take_bottles(self.state, seat, effect["bottles"], "fate"))
        if effect["display_cards"] and self.may_take(seat):
            self.ask(seat, "pick")
            return
        if effect["flying"]:
            self.ask(seat, "flying")
            return
        self.end_turn()

    def may_take(self, seat: int) -> bool:
        return bool(self.state.display) and len(self.state.player(seat).hand) < self.state.options["max_magic"]

    # -- replenishing (N-T4)

    def split(self, seat: int, pips: int) -> None:
        """2 pips buy a display card while the hand has room; what is left becomes bottles."""
        if pips >= 2 and self.may_take(seat):
            self.ask(seat, "split", pips=pips)
            return
        self.rest_as_bottles(seat, pips)

    def rest_as_bottles(self, seat: int, pips: int) -> None:
        """The pips left become bottles (as many as N-L1 lets in); then the optional fate card of
        the space the player stands on, none on a black space (ambiguity 12)."""
        if pips:
            self.apply(take_bottles(self.state, seat, pips, "replenish"))
        if self.state.player(seat).location in self.state.colours:
            self.ask(seat, "fate")
        else:
            self.end_turn()

    # -- duels (N-D*)

    def duel_on(self) -> None:
        """Sides with nothing to choose are ready at once; when both are, the dice roll (and roll
        again after a tie, with the dice swapped), until someone wins."""
        while self.state.duel is not None and self.state.duel.get("winner") is None:
            duel = self.state.duel
            limit = self.state.options["duel_cards_per_roll"]
            for side in duel_sides(self.state):
                if len(duel["played"][str(side)]) >= limit or not _held(self.state, side, "duel_"):
                    self.tell("duel_ready", {"seat": side})
                    duel = self.state.duel
            if duel_sides(self.state):
                return
            self.duel_roll()

    def duel_roll(self) -> None:
        duel = self.state.duel
        assert duel is not None
        rolls = {}
        for side in (duel["attacker"], duel["defender"]):
            die = duel["dice"][str(side)]
            face = self.roll_die(die, f"duel turn {self.state.turns} round {duel['round']} seat {side} {die} die")
            bonus = sum(self.state.magic[c].value for c in duel["played"][str(side)])
            rolls[str(side)] = {"die": die, "face": face, "bonus": bonus, "total": face + bonus}
        self.tell("duel_rolled", {"round": duel["round"], "rolls": rolls})
        attacker, defender = rolls[str(duel["attacker"])]["total"], rolls[str(duel["defender"])]["total"]
        if attacker == defender:
            self.tell("duel_tied", {"round": duel["round"], "total": attacker})
            return
        winner, loser = ((duel["attacker"], duel["defender"]) if attacker > defender
                         else (duel["defender"], duel["attacker"]))
        self.tell("duel_won", {"winner": winner, "loser": loser})
        # N-D3: two bottles from the loser, as many as they have (no elixir cashed for them);
        # what the winner cannot hold stays in the reserve (N-L1).
        held = self.state.player(loser).bottles
        if held:
            paid = min(2, held)
            self.apply(pay_bottles(self.state, loser, paid, "duel"))
            self.apply(take_bottles(self.state, winner, paid, "duel"))
        if self.may_take(winner):
            self.ask(winner, "reward")
        else:
            self.ask_push()

    def ask_push(self) -> None:
        duel = self.state.duel
        assert duel is not None
        self.ask(duel["winner"], "push", loser=duel["loser"])

    def after_duel(self) -> None:
        """N-T3 and ambiguity 11: the moving player draws for the space they finally occupy."""
        duel = self.state.duel
        assert duel is not None
        attacker = duel["attacker"]
        self.fate(attacker, self.state.player(attacker).location)


# -- the commands --------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Order:
    stages: tuple[str, ...]
    """The stages in which it may be sent; empty: at any moment of the turns."""
    check: Callable[[NuitState, int, Args], Rejection | None]
    tell: Callable[[_Turn, int, Args], None]
    anyone: bool = False
    """Any player may send it in its stages (its check says who may), not only the awaited one."""


def _ok(state: NuitState, seat: int, args: Args) -> Rejection | None:
    return None


# move or replenish (N-T1, N-T4, N-C4)

def _check_move(state: NuitState, seat: int, args: Args) -> Rejection | None:
    way = args.get("way")
    if state.player(seat).location != OUBLIETTES:
        return None if way is None else Rejection("not_in_oubliettes")
    if way not in WAYS_OUT:
        return Rejection("way_out_needed", {"bribe": state.options["oubliette_bribe"]})
    if way == "bridge":
        return _card_in_hand(state, seat, args.get("card"), "bridge")
    if way == "bribe" and state.player(seat).bottles < state.options["oubliette_bribe"]:
        return Rejection("not_enough_bottles", {"needed": state.options["oubliette_bribe"],
                                                "held": state.player(seat).bottles})
    return None


def _tell_move(story: _Turn, seat: int, args: Args) -> None:
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


def _tell_replenish(story: _Turn, seat: int, args: Args) -> None:
    story.split(seat, story.roll_both(seat, "replenish"))


# magic cards during a move (N-T1, N-L2, N-L3) and elixirs at any time (ambiguity 7)

def _counted_limit(state: NuitState) -> Rejection | None:
    limit = state.options["max_magic_per_move"]
    return Rejection("magic_limit", {"max": limit}) if state.move.get("played", 0) >= limit else None


def _check_play(state: NuitState, seat: int, args: Args) -> Rejection | None:
    card = args.get("card")
    refused = _card_in_hand(state, seat, card, "tempo", "bridge", "glove") or _counted_limit(state)
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


def _tell_play(story: _Turn, seat: int, args: Args) -> None:
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
    refused = _card_in_hand(state, seat, card, *ELIXIRS)
    if refused:
        return refused
    if state.player(seat).bottles >= state.options["max_bottles"]:
        return Rejection("bottles_full", {"max": state.options["max_bottles"]})
    return _counted_limit(state) if _during_own_move(state, seat) else None


def _during_own_move(state: NuitState, seat: int) -> bool:
    return state.stage() == "moving" and state.turn.get("seat") == seat


def _tell_cash(story: _Turn, seat: int, args: Args) -> None:
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


def _tell_take(story: _Turn, seat: int, args: Args) -> None:
    stage = story.state.stage()
    pips = story.state.turn.get("pips", 0)
    story.apply(take_magic(story.state, seat, args["card"], _TAKE_CAUSES[str(stage)]))
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


def _tell_stop(story: _Turn, seat: int, args: Args) -> None:
    spaces, at = args["spaces"], args["at"]
    if spaces > 1:
        story.apply(pay_bottles(story.state, seat, spaces - 1, "movement"))
    tempo = story.state.move.get("tempo", 0)
    started = story.state.move.get("from")
    story.tell("player_moved", {"seat": seat, "to": at, "cause": "move", "spaces": spaces, "tempo": tempo})
    if at == COURTYARD:
        story.owe(seat, story.roll_both(seat, "tax"), "tax")
        return
    met = _others_at(story.state, seat, at)
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


def _tell_duel(story: _Turn, seat: int, args: Args) -> None:
    # N-D1: the moving player attacks (the red die), whoever called the duel.
    story.tell("duel_begun", {"attacker": story.state.turn["seat"], "defender": args["seat"],
                              "at": story.state.turn["at"]})
    story.duel_on()


def _check_duel_card(state: NuitState, seat: int, args: Args) -> Rejection | None:
    return _card_in_hand(state, seat, args.get("card"), "duel_")


def _tell_duel_card(story: _Turn, seat: int, args: Args) -> None:
    card = story.state.magic[args["card"]]
    story.tell("magic_played", {"seat": seat, "card": card.number, "kind": card.kind, "counted": False})
    story.duel_on()


def _tell_ready(story: _Turn, seat: int, args: Args) -> None:
    story.tell("duel_ready", {"seat": seat})
    story.duel_on()


def _check_push(state: NuitState, seat: int, args: Args) -> Rejection | None:
    # N-D3: never onto a black space (nor a start space): a coloured one, 1 to 4 spaces away.
    return None if args.get("to") in state.colours else Rejection("push_to_colour")


def _tell_push(story: _Turn, seat: int, args: Args) -> None:
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


def _tell_give_back(story: _Turn, seat: int, args: Args) -> None:
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


def _tell_fly(story: _Turn, seat: int, args: Args) -> None:
    story.tell("flew", {"seat": seat, "to": args["to"]})
    story.end_turn()


def _check_peek(state: NuitState, seat: int, args: Args) -> Rejection | None:
    outcome = peek_tower(state, seat, args.get("tower"))  # type: ignore[arg-type]  # it checks the number
    return outcome if isinstance(outcome, Rejection) else None


def _tell_peek(story: _Turn, seat: int, args: Args) -> None:
    story.apply(peek_tower(story.state, seat, args["tower"]))
    story.end_turn()


def _tell_draw_fate(story: _Turn, seat: int, args: Args) -> None:
    story.fate(seat, story.state.player(seat).location)


# the castle (N-C1..N-C3)

def _check_pay(state: NuitState, seat: int, args: Args) -> Rejection | None:
    amount, held = state.turn["amount"], state.player(seat).bottles
    return Rejection("not_enough_bottles", {"needed": amount, "held": held}) if held < amount else None


def _tell_pay(story: _Turn, seat: int, args: Args) -> None:
    story.settle(seat, story.state.turn["amount"], story.state.turn["why"])


def _check_open(state: NuitState, seat: int, args: Args) -> Rejection | None:
    if state.physical and args.get("found") not in FOUND:
        return Rejection("say_what_was_found")
    outcome = open_tower(state, seat, args.get("tower"), args.get("found"))  # type: ignore[arg-type]
    return outcome if isinstance(outcome, Rejection) else None


def _tell_open(story: _Turn, seat: int, args: Args) -> None:
    story.apply(open_tower(story.state, seat, args["tower"], args.get("found")))
    if story.state.phase == "turn":
        story.end_turn()


# declining an optional choice

def _tell_skip(story: _Turn, seat: int, args: Args) -> None:
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


ORDERS: dict[str, _Order] = {
    "move": _Order(("choose",), _check_move, _tell_move),
    "replenish": _Order(("choose",), _ok, _tell_replenish),
    "play": _Order(("moving",), _check_play, _tell_play),
    "cash": _Order((), _check_cash, _tell_cash),
    "take": _Order(("moving", "split", "pick", "reward"), _check_take, _tell_take),
    "stop": _Order(("moving",), _check_stop, _tell_stop),
    "duel": _Order(("meet",), _check_duel, _tell_duel, anyone=True),
    "duel_card": _Order(("duel",), _check_duel_card, _tell_duel_card),
    "ready": _Order(("duel",), _ok, _tell_ready),
    "push": _Order(("push",), _check_push, _tell_push),
    "give_back": _Order(("give_back",), _check_give_back, _tell_give_back),
    "fly": _Order(("flying",), _check_fly, _tell_fly),
    "peek": _Order(("flying",), _check_peek, _tell_peek),
    "draw_fate": _Order(("fate",), _ok, _tell_draw_fate),
    "pay": _Order(("debt",), _check_pay, _tell_pay),
    "open": _Order(("tower",), _check_open, _tell_open),
    "skip": _Order(("split", "meet", "reward", "push", "debt", "pick", "flying", "fate"), _ok, _tell_skip),
}


# -- validate and decide ---------------------------------------------------------------------------

def _start_roll_refusal(state: NuitState, actor: Viewer) -> Rejection | None:
    if state.phase != "start_roll" or actor.kind == "system":
        return Rejection("not_now" if actor.kind != "system" else "not_authorized")
    waiting = still_to_roll(state)
    if actor.kind == "seat":
        if actor.seat not in state.start["contenders"]:
            return Rejection("not_in_start_roll")
        return None if actor.seat in waiting else Rejection("already_rolled")
    return None if waiting else Rejection("not_now")


def validate(state: NuitState, actor: Viewer, command: Command) -> Rejection | None:
    if actor.kind == "seat" and not state.seated(actor.seat):
        return Rejection("not_seated")
    if state.phase == "over":
        return Rejection("game_over")
    if command.name == "roll":
        return _start_roll_refusal(state, actor)
    order = ORDERS.get(command.name)
    if order is None:
        return Rejection("unknown_command", {"command": str(command.name)[:40]})
    if actor.kind != "seat" or actor.seat is None:
        return Rejection("not_authorized")
    if state.phase != "turn":
        return Rejection("not_now")
    if not isinstance(command.args, Mapping):
        return Rejection("bad_arguments", {"detail": "args"})
    if order.stages:
        if state.stage() not in order.stages:
            return Rejection("not_now")
        waiting = waiting_for(state)
        if actor.seat not in waiting and not order.anyone:
            duel = state.duel
            if state.stage() == "duel" and duel and actor.seat in (duel["attacker"], duel["defender"]):
                return Rejection("already_ready")
            return Rejection("waiting_for", {"name": ", ".join(_name(state, s) for s in waiting)})
    return order.check(state, actor.seat, command.args)


def decide(state: NuitState, actor: Viewer, command: Command, rng: RandomSource) -> list[Event]:
    story = _Turn(state, command.at_us, rng)
    if command.name == "roll":
        seats = [actor.seat] if actor.kind == "seat" and actor.seat is not None else still_to_roll(state)
        story.start_roll(seats)
    elif actor.seat is not None:
        ORDERS[command.name].tell(story, actor.seat, command.args)
    return story.events

