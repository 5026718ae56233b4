"""The garlic game's story: the consequences its moves share (a check, a clear and its refill, a
penalty, the dice passing, a win), each event applied as soon as it is told, so every consequence is
decided on the state the previous one left, exactly as a replay will see it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.fairness.rng import RandomSource
from companion.games.base import Story, seat_number
from companion.games.garlic.options import EFFECT
from companion.games.garlic.rules import evolve
from companion.games.garlic.state import GarlicState, Penalty
from companion.games.reactions import ROUND_ARMED, ROUND_SETTLED


class GarlicStory(Story[GarlicState]):
    """The events of one command, each applied as soon as it is told (see story.py)."""

    def __init__(self, state: GarlicState, at_us: int, rng: RandomSource) -> None:
        super().__init__(state, at_us, rng, evolve)

    def card_facts(self, number: int | None) -> dict[str, Any]:
        card = self.state.card(number)
        return {} if card is None else {"colour": card.colour, "symbol": card.symbol}

    # -- consequences ----------------------------------------------------------------------

    def draw(self, seat: int, cause: str) -> bool:
        """One card from the pile, face up; False when the pile is empty (S-S11)."""
        if not self.state.pile:
            return False
        card = self.state.pile[0]
        self.tell("card_drawn", {"seat": seat, "card": card, "cause": cause, **self.card_facts(card)},
                  reveals=card is not None)
        return True

    def clear(self, seat: int, slot: int, checked: bool) -> None:
        """S-S5b: set the coffin aside and refill only below the display size. The coffin that
        reaches the goal wins at once (S-S12): nothing more happens, not even the refill (which
        would uncover the pile's top card for nothing)."""
        card = self.state.player(seat).slots[slot].card
        self.tell("card_cleared", {"seat": seat, "slot": slot, "card": card, "checked": checked})
        if len(self.state.player(seat).cleared) >= self.state.options["coffins_to_win"]:
            self.tell("game_won", {"seat": seat})
            return
        if len(self.state.player(seat).slots) < self.state.options["display_size"]:
            self.draw(seat, "refill")

    def turn_up(self, seat: int, slot: int, cause: str) -> None:
        card = self.state.player(seat).slots[slot].card
        # Showing a coffin uncovers it, unless a check has just shown it to everyone.
        hidden = card is not None and card not in self.state.shown
        self.tell("card_turned_up", {"seat": seat, "slot": slot, "card": card, "cause": cause,
                                     **self.card_facts(card)}, reveals=hidden)

    def penalise(self, seat: int, reason: str) -> None:
        """S-S9: turn a coffin face up (the offender's choice, or at random), or draw a card.

        A player who already owes a penalty pays the next one after it: it waits in line."""
        down = self.state.player(seat).face_down()
        if not any(p.seat == seat for p in self.state.penalties):
            if not down:
                self.pay_by_drawing(seat, reason)
                return
            if self.state.physical or len(down) == 1:
                self.pay_by_reopening(seat, reason, down[0])
                return
            if self.state.options["penalty_card_choice"] == "random":
                slot = down[self.rng.randbelow(len(down), f"penalty card of seat {seat}")]
                self.pay_by_reopening(seat, reason, slot)
                return
        self.tell("penalty_due", {"seat": seat, "reason": reason, "since_us": self.at_us})

    def pay_by_drawing(self, seat: int, reason: str, chosen: bool = False) -> None:
        drew = self.draw(seat, "penalty")
        self.tell("penalty_paid", {"seat": seat, "reason": reason, "how": "drew" if drew else "void",
                                   "chosen": chosen})

    def pay_what_leaves_no_choice(self) -> None:
        """A penalty waiting in line whose offender now has one coffin, or none, is paid at once."""
        while True:
            first: dict[int, Penalty] = {}
            for penalty in self.state.penalties:
                first.setdefault(penalty.seat, penalty)
            forced = [p for p in first.values() if len(self.state.player(p.seat).face_down()) <= 1]
            if not forced:
                return
            penalty = forced[0]
            down = self.state.player(penalty.seat).face_down()
            if down:
                self.pay_by_reopening(penalty.seat, penalty.reason, down[0], chosen=True)
            else:
                self.pay_by_drawing(penalty.seat, penalty.reason, chosen=True)

    def pay_by_reopening(self, seat: int, reason: str, slot: int, chosen: bool = False) -> None:
        """`chosen`: this pays a penalty that waited for the offender's choice (not one paid on
        the spot, which must not cancel another the same player still owes)."""
        self.turn_up(seat, slot, "penalty")
        self.tell("penalty_paid", {"seat": seat, "reason": reason, "how": "reopened", "slot": slot,
                                   "chosen": chosen})

    def next_slapper_or_end(self) -> None:
        """After a wrong claim: the next slapper in line may claim (when the table plays so)."""
        queue = list(self.state.turn.get("queue", []))
        if self.state.phase == "over":
            return
        if queue and not self.state.options["only_first_slap_judged"]:
            self.tell("slapper_called", {"seat": queue[0], "phase": "claim", "queue": queue[1:],
                                         "since_us": self.at_us})
        else:
            self.end_action()

    def end_action(self, then: str = "pass") -> None:
        """The action is over: once every penalty is paid, the dice pass on (S-S2), or stay with
        the roller after a tie (`then="reroll"`, ambiguity 9)."""
        if self.state.phase == "over":
            return
        if self.state.penalties:
            self.tell("penalties_awaited", {"seats": [p.seat for p in self.state.penalties], "then": then})
            return
        assert self.state.roller is not None
        if then == "reroll":
            self.tell("dice_kept", {"roller": self.state.roller, "reason": "tie"})
        else:
            self.tell("dice_passed", {"from": self.state.roller, "to": self.state.next_seat(self.state.roller)})

    def finish(self) -> None:
        """Whatever the command, a penalty that leaves no choice is paid now, and the turn ends
        once the last penalty it waited for is paid."""
        if self.state.phase == "over":
            return
        self.pay_what_leaves_no_choice()
        if self.state.phase == "penalties" and not self.state.penalties:
            self.end_action(then=self.state.turn.get("then", "pass"))

    # -- the parts of a turn ---------------------------------------------------------------

    def roll(self, roller: int, by: str) -> None:
        """S-S4: both dice at once; the moment they are shown arms the reaction round."""
        options = self.state.options
        number = self.state.round + 1
        colour_face = self.rng.randbelow(len(options["colour_die"]), f"round {number} colour die")
        symbol_face = self.rng.randbelow(len(options["symbol_die"]), f"round {number} symbol die")
        colour, symbol = options["colour_die"][colour_face], options["symbol_die"][symbol_face]
        self.tell("dice_rolled", {"round": number, "roller": roller, "by": by, "colour": colour, "symbol": symbol,
                                  "colour_face": colour_face, "symbol_face": symbol_face, "at_us": self.at_us})
        skull = colour == EFFECT and symbol == "skull"
        window_s = options["skull_window_s"] if skull else options["no_slap_timeout_s"]
        # The decision waits the tie window too: a slap within epsilon of the first must be seen
        # to make the tie (ambiguity 9).
        grace_ms = max(options["grace_ms"], options["tie_epsilon_ms"])
        self.tell(ROUND_ARMED, {
            "round": number, "at_us": self.at_us, "mode": "hands_off" if skull else "race",
            "window_us": int(window_s * 1_000_000), "grace_us": int(grace_ms * 1000),
            "penalty": "lockout_round" if options["false_start"] == "penalty" else "none", "lockout_us": 0,
            "signal": "table",  # the dice on the TV: phones are timed by their tap's instant
        })

    def settle(self, decision: Mapping[str, Any]) -> None:
        state = self.state
        options = state.options
        mode = state.turn.get("mode", "race")
        order = [row for row in decision.get("order", []) if seat_number(row.get("who")) is not None]
        false_starts = [seat_number(row.get("who")) for row in decision.get("false_starts", [])]
        slappers = [s for s in dict.fromkeys(seat_number(row["who"]) for row in order)
                    if s is not None and state.seated(s)]
        outcome, winner, tied, drawn_from = "no_reaction", None, [], None
        if mode == "hands_off":
            outcome = "faults" if slappers else "clean"
        elif slappers:
            # Ambiguity 9: too close to call within the buzzers' own uncertainty (the referee's
            # tie) or within the table's epsilon; never settled by seat order.
            first_gap = int(order[0].get("gap_us", 0))
            epsilon_us = options["tie_epsilon_ms"] * 1000
            close = {seat_number(w) for w in decision.get("tied_first") or []}
            close |= {seat_number(row["who"]) for row in order if int(row.get("gap_us", 0)) - first_gap <= epsilon_us}
            tied = [s for s in slappers if s in close]
            if len(tied) > 1 and options["tie_policy"] == "draw":
                drawn_from = tied
                winner = tied[self.rng.randbelow(len(tied), f"round {state.round} tie among {len(tied)}")]
                outcome = "drawn"
            elif len(tied) > 1:
                outcome = "tie"
            else:
                outcome, winner, tied = "winner", slappers[0], []
        self.tell(ROUND_SETTLED, {"round": state.round, "mode": mode, "outcome": outcome, "winner": winner,
                                    "tied": tied, "drawn_from": drawn_from, "decision": dict(decision)})
        if options["false_start"] == "penalty":
            for seat in dict.fromkeys(false_starts):
                if state.seated(seat):
                    assert seat is not None
                    self.penalise(seat, "false_start")
        if mode == "hands_off":
            for seat in slappers:  # S-S8 and ambiguity 7: everyone who touched the garlic
                self.penalise(seat, "skull")
            self.end_action()
            return
        if outcome == "tie":
            self.end_action(then="reroll")
            return
        if winner is None:
            self.end_action()  # ambiguity 6: nobody slapped in time
            return
        assert state.dice is not None
        phase = {"bat": "bat", "moon": "moon"}.get(state.dice.symbol, "claim") if state.dice.effect else "claim"
        queue = [s for s in slappers if s != winner] if phase == "claim" else []
        self.tell("slapper_called", {"seat": winner, "phase": phase, "queue": queue, "since_us": self.at_us})

    def claim(self, seat: int, kind: str, where: tuple[int, int]) -> None:
        """S-S5 (a), (b), (c), judged at once: the companion sees the cards."""
        dice = self.state.dice
        assert dice is not None
        owner, slot = where
        card = self.state.card(self.state.player(owner).slots[slot].card)
        assert card is not None
        right = dice.matches(card)
        self.tell("claim_made", {"seat": seat, "kind": kind, "target": owner, "slot": slot})
        if kind != "own_up":  # a coffin is flipped for everyone to check
            self.tell("card_checked", {"seat": owner, "slot": slot, "card": card.number, "colour": card.colour,
                                       "symbol": card.symbol, "by": seat, "right": right}, reveals=True)
        self.consequence(seat, kind, where, right)

    def consequence(self, seat: int, kind: str, where: tuple[int, int], right: bool) -> None:
        """What a judged claim does (after the check, for coffins)."""
        owner, slot = where
        if kind == "own_up":
            if right:
                card = self.state.player(owner).slots[slot].card
                self.tell("card_turned_down", {"seat": seat, "slot": slot, "card": card, "cause": "claim"})
            else:
                self.penalise(seat, "wrong_claim")
        elif kind == "own_down":
            if right:
                self.clear(seat, slot, checked=True)
            else:
                self.turn_up(seat, slot, "wrong_guess")  # ambiguity 4: kept, face up
                if self.state.options["wrong_own_facedown_extra_penalty"]:
                    self.penalise(seat, "wrong_claim")
        elif right:
            self.turn_up(owner, slot, "check_right")  # S-S5c: it stays face up
        else:
            self.penalise(seat, "wrong_claim")  # the card goes back coffin side up
        if right:
            self.end_action()
        else:
            self.next_slapper_or_end()

    def bat(self, seat: int, kind: str, where: tuple[int, int]) -> None:
        """S-S6: no check; the slapper's choice is done as said."""
        owner, slot = where
        card = self.state.player(owner).slots[slot].card
        if kind == "turn_down":
            self.tell("card_turned_down", {"seat": seat, "slot": slot, "card": card, "cause": "bat"})
        elif kind == "clear":
            self.clear(seat, slot, checked=False)
        else:
            self.turn_up(owner, slot, "bat")
        self.end_action()

    def swap(self, a: tuple[int, ...], b: tuple[int, ...], face: str) -> None:
        self.tell("cards_swapped", {"by": self.state.turn["seat"], "a": list(a), "b": list(b), "face": face})
        self.end_action()


