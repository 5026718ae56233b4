"""La nuit des vampires' turns (N-T*, N-D*, N-F*, N-C*): who the turn waits on, and the story its
moves tell (moves.py).

A turn waits on one stage at a time (`state.turn`): move or replenish, the move itself, who stands
on the space it stopped on, the duel, the winner's card and push, a fate card's choice, the
replenish split, a tax or escape roll the player may cash elixirs for, the tower to open. A move's
telling is followed by every consequence that needs no choice (the fate card after a move, the
duel's rolls once both sides are ready, the next player's turn), so the turn always rests on a
question to somebody.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import Rejection
from companion.games.nuit.options import ELIXIRS
from companion.games.nuit.rules import (
    LedgerStory,
    draw_fate,
    fate_effect,
    give_back_magic,
    pay_bottles,
    still_to_roll,
    take_bottles,
)
from companion.games.nuit.state import OUBLIETTES, NuitState
from companion.games.options import whole

WAYS_OUT = ("bridge", "bribe", "roll")
"""N-C4: a bridge card, the bribe in bottles, or a roll of both dice paid in bottles."""
MOVE_SPACES = (1, 2, 3)
TEMPO_SPACES = (1, 2, 3)
BRIDGE_USES = ("place", "move")
FOUND = ("tomato", "onion")


# -- small readings of the state -------------------------------------------------------------------

def card_in_hand(state: NuitState, seat: int, card: Any, *kinds: str) -> Rejection | None:
    if not whole(card) or card not in state.player(seat).hand:
        return Rejection("not_in_hand")
    if kinds and not state.magic[card].kind.startswith(kinds):
        return Rejection("not_that_card")
    return None


def held(state: NuitState, seat: int, *kinds: str) -> list[int]:
    return [c for c in state.player(seat).hand if state.magic[c].kind.startswith(kinds)]


def elixir_bottles(state: NuitState, seat: int) -> int:
    """The bottles a player could reach by cashing every elixir (N-L1 caps them)."""
    player = state.player(seat)
    total = player.bottles + sum(state.magic[c].value for c in held(state, seat, *ELIXIRS))
    return min(total, state.options["max_bottles"], player.bottles + state.reserve)


def others_at(state: NuitState, seat: int, place: str) -> list[int]:
    """N-T2 / N-D4: the vampires a move to `place` meets, as the players told their places (never in
    the oubliettes, the courtyard or at the start)."""
    if place not in state.colours:
        return []
    return [p.seat for p in state.players if p.seat != seat and p.location == place]


def player_name(state: NuitState, seat: int) -> str:
    return state.player(seat).name or f"#{seat}"


def duel_sides(state: NuitState) -> list[int]:
    """The duel's sides still choosing their cards for this roll (both phones at once, N-D1)."""
    duel = state.duel
    if duel is None or state.stage() != "duel":
        return []
    return [s for s in (duel["attacker"], duel["defender"]) if s not in duel["ready"]]


def waiting_for(state: NuitState) -> list[int]:
    """Who the turn waits for now."""
    return list(_waiting(state))


def awaits(state: NuitState, seat: int | None) -> bool:
    """Whether the turn waits for `seat` now."""
    return seat in _waiting(state)


def _waiting(state: NuitState) -> list[int]:
    """Worked out once per state (kept in its `wall`): the check of every command a screen offers
    asks it. The list is the cache's own: never changed."""
    waiting: list[int] | None = state.wall.get("waiting")
    if waiting is None:
        waiting = state.wall["waiting"] = _waiting_for(state)
    return waiting


def _waiting_for(state: NuitState) -> list[int]:
    if state.phase == "start_roll":
        return still_to_roll(state)
    if state.phase != "turn":
        return []
    if state.stage() == "duel":
        return duel_sides(state)
    return [state.turn["seat"]]


# -- the story of a turn ---------------------------------------------------------------------------

class NuitTurn(LedgerStory):
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
        elif elixir_bottles(self.state, seat) >= amount:
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
                if len(duel["played"][str(side)]) >= limit or not held(self.state, side, "duel_"):
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


