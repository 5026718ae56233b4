"""The garlic game's rules (S-S1..S-S12 in rules/garlic-slap.md), as pure functions.

`validate` says whether a command may be played now; `decide` turns it into events, consequences
included (a check, a clear and its refill, a penalty, the dice passing, a win); `evolve` applies
one event. `decide` tells the story by evolving as it goes (`_Story`), so each consequence is
decided on the state the previous one left, exactly as a replay will see it.

A reaction round is refereed outside (companion/buzzers): rolling arms it, and the round keeper
settles it with the referee's decision, from which the rules take the first valid slapper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.fairness.rng import RandomSource, shuffled
from companion.games.base import Command, Deadline, Event, Rejection, SeatInfo, Viewer, seat_number
from companion.games.garlic.options import EFFECT
from companion.games.garlic.state import (
    BAT_KINDS,
    CLAIM_KINDS,
    RECENT,
    Cleared,
    Dice,
    GarlicState,
    Penalty,
    Player,
    Slot,
    build_deck,
)
from companion.games.reactions import ROUND_ARMED, ROUND_SETTLED, with_round
from companion.games.story import Story

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


# -- validate ---------------------------------------------------------------------------------

def _slot_of(state: GarlicState, seat: Any, slot: Any) -> tuple[int, int] | None:
    """A (seat, slot) pair from untrusted arguments, or None."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not state.seated(seat):
        return None
    if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < len(state.player(seat).slots):
        return None
    return seat, slot


def _is(value: Any, number: int) -> bool:
    """An untrusted argument names this number: True is not 1 (as with seats and slots)."""
    return not isinstance(value, bool) and value == number


def is_up(state: GarlicState, where: tuple[int, int]) -> bool:
    return state.player(where[0]).slots[where[1]].up


def face_up_swap_allowed(state: GarlicState, slapper: int) -> bool:
    """Ambiguity 8, read literally: the moon's face-up swap is the fallback for when no other
    player has a face-down card (one coffin elsewhere can still be swapped with the slapper's own)."""
    return not any(p.face_down() for p in state.players if p.seat != slapper)


def _target(state: GarlicState, actor: int, kind: str, args: Mapping[str, Any]
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
    where = _slot_of(state, seat, args.get("slot"))
    if where is None:
        return None, Rejection("bad_card")
    if is_up(state, where) != want_up:
        return None, Rejection("card_face_down" if want_up else "card_face_up")
    return where, None


def _moon_pair(state: GarlicState, actor: int, args: Mapping[str, Any]
               ) -> tuple[tuple[tuple[int, int], tuple[int, int]] | None, Rejection | None]:
    """S-S7 and ambiguity 8: two coffins anywhere, or, when no other player has a coffin, two
    face-up cards of two different players (the slapper's own display allowed)."""
    raw_a, raw_b = args.get("a"), args.get("b")
    if not (isinstance(raw_a, list | tuple) and isinstance(raw_b, list | tuple) and len(raw_a) == len(raw_b) == 2):
        return None, Rejection("bad_card")
    a, b = _slot_of(state, *raw_a), _slot_of(state, *raw_b)
    if a is None or b is None or a == b:
        return None, Rejection("bad_card")
    up_a, up_b = is_up(state, a), is_up(state, b)
    if up_a != up_b:
        return None, Rejection("moon_same_side")
    if up_a:
        if not face_up_swap_allowed(state, actor):
            return None, Rejection("moon_face_down_first")
        if a[0] == b[0]:
            return None, Rejection("moon_two_players")
    return (a, b), None


def validate(state: GarlicState, actor: Viewer, command: Command) -> Rejection | None:
    name, args = command.name, command.args
    if actor.kind == "seat" and not state.seated(actor.seat):
        return Rejection("not_seated")
    if name == "timeout":
        if actor.kind != "system":
            return Rejection("not_authorized")
        return None if _is(args.get("step"), state.step) and deadline(state) is not None else Rejection("not_now")
    if state.phase == "over":
        return Rejection("game_over")
    if name == "roll":
        return _validate_roll(state, actor)
    if name == "settle":
        if actor.kind != "system":
            return Rejection("not_authorized")
        if state.phase != "reaction" or not _is(args.get("round"), state.round) \
                or not isinstance(args.get("decision"), dict):
            return Rejection("no_round")
        return None
    if name == "reopen":
        if actor.kind != "seat" or not any(p.seat == actor.seat for p in state.penalties):
            return Rejection("no_penalty_due")
        if state.phase == "moon_look":
            # The moon slapper holds two coffins until they swap them: penalties wait (S-S7).
            return Rejection("not_now")
        assert actor.seat is not None
        where = _slot_of(state, actor.seat, args.get("slot"))
        if where is None:
            return Rejection("bad_card")
        return Rejection("card_face_up") if is_up(state, where) else None
    if name == "judge":
        return _validate_judge(state, actor, args)
    if name not in ("claim", "no_claim", "bat", "moon", "swap", "keep", "pass"):
        return Rejection("unknown_command", {"command": str(name)[:40]})
    return _validate_slapper(state, actor, name, args)


def _validate_roll(state: GarlicState, actor: Viewer) -> Rejection | None:
    if state.phase != "roll":
        return Rejection("dice_in_play")
    if state.roller is None:
        # S-S2: the youngest rolls first; the companion cannot tell, so whoever rolls first is it.
        return None if actor.kind == "seat" else Rejection("youngest_rolls_first")
    if actor.kind == "seat" and actor.seat != state.roller:
        return Rejection("not_your_roll", {"name": state.player(state.roller).name})
    return None if actor.kind in ("seat", "table", "host") else Rejection("not_authorized")


def _validate_judge(state: GarlicState, actor: Viewer, args: Mapping[str, Any]) -> Rejection | None:
    if state.phase != "confirm":
        return Rejection("nothing_to_judge")
    if not isinstance(args.get("right"), bool):
        return Rejection("bad_arguments", {"detail": "right"})
    if actor.kind == "host":
        return None
    if actor.kind != "seat" or state.options["confirm_by"] != "majority":
        return Rejection("host_judges")
    if actor.seat == state.turn["seat"]:
        return Rejection("others_judge")
    return Rejection("already_voted") if str(actor.seat) in state.turn.get("votes", {}) else None


def _validate_slapper(state: GarlicState, actor: Viewer, name: str, args: Mapping[str, Any]) -> Rejection | None:
    phase = state.phase
    wanted = {"claim": ("claim", "no_claim"), "bat": ("bat", "pass"), "moon": ("moon", "pass"),
              "moon_look": ("swap", "keep")}
    if name not in wanted.get(phase, ()):
        return Rejection("not_now")
    slapper = state.turn["seat"]
    if actor.kind != "seat" or actor.seat != slapper:
        return Rejection("not_first_slapper", {"name": state.player(slapper).name})
    if name == "claim":
        kind = args.get("kind")
        if kind not in CLAIM_KINDS:
            return Rejection("bad_arguments", {"detail": "kind"})
        return _target(state, slapper, str(kind), args)[1]
    if name == "bat":
        kind = args.get("kind")
        if kind not in BAT_KINDS:
            return Rejection("bad_arguments", {"detail": "kind"})
        return _target(state, slapper, BAT_TARGETS[kind], args)[1]
    if name == "moon":
        if state.physical:
            face = args.get("face")
            if face not in ("down", "up"):
                return Rejection("bad_arguments", {"detail": "face"})
            if face == "up" and not face_up_swap_allowed(state, slapper):
                return Rejection("moon_face_down_first")
            return None
        pair, rejection = _moon_pair(state, slapper, args)
        if rejection is not None:
            return rejection
        assert pair is not None
        if args.get("look") and is_up(state, pair[0]):
            return Rejection("moon_look_face_down")
        return None
    if name == "keep" and state.options["moon_must_swap_after_looking"]:
        return Rejection("must_swap")
    return None


# -- decide -----------------------------------------------------------------------------------

class _Story(Story[GarlicState]):
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


def decide(state: GarlicState, actor: Viewer, command: Command, rng: RandomSource) -> list[Event]:
    story = _Story(state, command.at_us, rng)
    name, args = command.name, command.args
    if name == "roll":
        roller = actor.seat if actor.kind == "seat" and state.roller is None else state.roller
        assert roller is not None
        story.roll(roller, str(actor))
    elif name == "settle":
        story.settle(args["decision"])
    elif name == "timeout":
        _time_out(story)
    elif name == "reopen":
        assert actor.seat is not None
        reason = next(p.reason for p in state.penalties if p.seat == actor.seat)
        story.pay_by_reopening(actor.seat, reason, int(args["slot"]), chosen=True)
    elif name == "claim":
        assert actor.seat is not None
        where, _ = _target(state, actor.seat, args["kind"], args)
        assert where is not None
        if state.physical:
            story.tell("claim_made", {"seat": actor.seat, "kind": args["kind"], "target": where[0], "slot": None})
            story.tell("judgement_asked", {"by": state.options["confirm_by"], "since_us": command.at_us})
        else:
            story.claim(actor.seat, args["kind"], where)
    elif name == "no_claim":
        assert actor.seat is not None
        story.tell("claim_withdrawn", {"seat": actor.seat, "cause": "no_claim"})
        story.penalise(actor.seat, "no_claim")  # ambiguity 2: a slap with nothing to show
        story.next_slapper_or_end()
    elif name == "judge":
        _judge(story, actor, bool(args["right"]))
    elif name == "bat":
        assert actor.seat is not None
        kind = args["kind"]
        where, _ = _target(state, actor.seat, BAT_TARGETS[kind], args)
        assert where is not None
        story.tell("bat_chosen", {"seat": actor.seat, "kind": kind, "target": where[0]})
        story.bat(actor.seat, kind, where)
    elif name == "moon":
        _moon(story, actor, args)
    elif name in ("swap", "keep"):
        a, b = tuple(state.turn["a"]), tuple(state.turn["b"])
        if name == "swap":
            story.swap(a, b, "down")
        else:
            story.tell("action_passed", {"seat": state.turn["seat"], "cause": "kept"})
            story.end_action()
    elif name == "pass":
        story.tell("action_passed", {"seat": state.turn["seat"], "cause": "declined"})
        story.end_action()
    if story.state.phase != "over":
        # Whatever the command, a penalty that leaves no choice is paid now, and the turn ends
        # once the last penalty it waited for is paid.
        story.pay_what_leaves_no_choice()
        _after_penalty(story)
    return story.events


def _moon(story: _Story, actor: Viewer, args: Mapping[str, Any]) -> None:
    state = story.state
    if state.physical:
        story.tell("cards_swapped", {"by": actor.seat, "a": None, "b": None, "face": args["face"]})
        story.end_action()
        return
    pair, _ = _moon_pair(state, state.turn["seat"], args)
    assert pair is not None
    a, b = pair
    if args.get("look"):
        cards = [state.player(s).slots[i].card for s, i in (a, b)]
        story.tell("moon_looked", {"seat": state.turn["seat"], "a": list(a), "b": list(b), "cards": cards,
                                   "since_us": story.at_us}, reveals=True)
        return
    story.swap(a, b, "up" if is_up(state, a) else "down")


def _judge(story: _Story, actor: Viewer, right: bool) -> None:
    state = story.state
    if actor.kind == "seat":
        story.tell("claim_vote", {"seat": actor.seat, "right": right})
        votes = list(story.state.turn.get("votes", {}).values())
        voters = len(state.players) - 1
        needed = voters // 2 + 1
        if votes.count(right) < needed:
            return
        by = "majority"
    else:
        by = "host"
    claim = state.turn["claim"]
    seat = state.turn["seat"]
    story.tell("claim_judged", {"seat": seat, "right": right, "by": by})
    where, _ = _target(story.state, seat, claim["kind"], {"seat": claim["target"]})
    assert where is not None
    story.consequence(seat, claim["kind"], where, right)


def _after_penalty(story: _Story) -> None:
    if story.state.phase == "penalties" and not story.state.penalties:
        story.end_action(then=story.state.turn.get("then", "pass"))


def _time_out(story: _Story) -> None:
    """A wait ran out: the earliest penalty gets a random coffin; an unmade claim is a wrong slap;
    an unused bat or moon passes; looked-at cards are swapped when the table says so."""
    state = story.state
    due = deadline(state)
    assert due is not None
    if due.command.args.get("for") == "penalty":
        penalty = state.penalties[0]
        down = state.player(penalty.seat).face_down()
        slot = down[story.rng.randbelow(len(down), f"penalty card of seat {penalty.seat}")]
        story.pay_by_reopening(penalty.seat, penalty.reason, slot, chosen=True)
        return
    seat = state.turn["seat"]
    if state.phase == "claim":
        story.tell("claim_withdrawn", {"seat": seat, "cause": "timeout"})
        story.penalise(seat, "no_claim")
        story.next_slapper_or_end()
    elif state.phase == "moon_look" and state.options["moon_must_swap_after_looking"]:
        story.swap(tuple(state.turn["a"]), tuple(state.turn["b"]), "down")
    else:
        story.tell("action_passed", {"seat": seat, "cause": "timeout"})
        story.end_action()


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


# -- evolve -----------------------------------------------------------------------------------

def _with_player(state: GarlicState, seat: int, **changes: Any) -> tuple[Player, ...]:
    return tuple(replace(p, **changes) if p.seat == seat else p for p in state.players)


def _set_slot(state: GarlicState, seat: int, slot: int, up: bool) -> tuple[Player, ...]:
    slots = list(state.player(seat).slots)
    slots[slot] = replace(slots[slot], up=up)
    return _with_player(state, seat, slots=tuple(slots))


def _happened(state: GarlicState, kind: str, data: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    """A public line for the table display. Never a card's identity: a coffin's is nobody's to
    recall from a screen, and a face-up card is shown where it lies."""
    return ({"kind": kind, "round": state.round, **data}, *state.happenings)[:RECENT]


def evolve(state: GarlicState, event: Event) -> GarlicState:
    new = _evolve(state, event)
    return replace(new, step=state.step + 1)


def _evolve(state: GarlicState, event: Event) -> GarlicState:
    data = event.data
    kind = event.type
    if kind == "dice_rolled":
        dice = Dice(data["round"], data["roller"], data["colour"], data["symbol"], data["at_us"])
        # The check is over: a card shown after a wrong claim goes back coffin side up for good.
        return replace(state, phase="reaction", round=dice.round, roller=dice.roller, dice=dice, turn={},
                       shown=frozenset(), result=None)
    if kind == ROUND_ARMED:
        return replace(state, turn={"mode": data["mode"], "at_us": data["at_us"], "window_us": data["window_us"]})
    if kind == ROUND_SETTLED:
        board = state.board
        if data["mode"] == "race":
            board = with_round(board, data["decision"].get("order", []))
        result = {k: data[k] for k in ("round", "mode", "outcome", "winner", "tied", "drawn_from")}
        result["order"] = data["decision"].get("order", [])
        result["false_starts"] = data["decision"].get("false_starts", [])
        return replace(state, result=result, board=board, turn={**state.turn, "settled": True})
    if kind == "slapper_called":
        return replace(state, phase=data["phase"], turn={"seat": data["seat"], "queue": list(data["queue"]),
                                                         "since_us": data["since_us"]})
    if kind == "claim_made":
        claim = {"kind": data["kind"], "target": data["target"], "slot": data["slot"]}
        return replace(state, turn={**state.turn, "claim": claim},
                       happenings=_happened(state, "claim", {"seat": data["seat"], "claim": data["kind"],
                                                             "target": data["target"], "slot": data["slot"]}))
    if kind == "judgement_asked":
        return replace(state, phase="confirm", turn={**state.turn, "votes": {}, "judge": data["by"]})
    if kind == "claim_vote":
        votes = {**state.turn.get("votes", {}), str(data["seat"]): data["right"]}
        return replace(state, turn={**state.turn, "votes": votes})
    if kind == "claim_judged":
        return replace(state, happenings=_happened(state, "judged", {"seat": data["seat"], "right": data["right"],
                                                                      "by": data["by"]}))
    if kind == "claim_withdrawn":
        return replace(state, happenings=_happened(state, "no_claim", {"seat": data["seat"], "cause": data["cause"]}))
    if kind == "card_checked":
        # Shown to everyone until it is turned face up, cleared, or (a wrong check) the next roll.
        return replace(state, shown=state.shown | {data["card"]}, happenings=_happened(state, "checked", {
            "seat": data["seat"], "slot": data["slot"], "by": data["by"], "right": data["right"]}))
    if kind == "card_turned_down":
        return replace(state, players=_set_slot(state, data["seat"], data["slot"], False),
                       happenings=_happened(state, "turned_down", {k: data[k] for k in ("seat", "slot", "cause")}))
    if kind == "card_turned_up":
        return replace(state, players=_set_slot(state, data["seat"], data["slot"], True),
                       shown=state.shown - {data["card"]},
                       happenings=_happened(state, "turned_up", {k: data[k] for k in ("seat", "slot", "cause")}))
    if kind == "card_cleared":
        player = state.player(data["seat"])
        slots = player.slots[:data["slot"]] + player.slots[data["slot"] + 1:]
        cleared = (*player.cleared, Cleared(data["card"], data["checked"]))
        return replace(state, players=_with_player(state, data["seat"], slots=slots, cleared=cleared),
                       shown=state.shown - {data["card"]},
                       happenings=_happened(state, "cleared", {"seat": data["seat"], "checked": data["checked"],
                                                               "count": len(cleared)}))
    if kind == "card_drawn":
        player = state.player(data["seat"])
        slots = (*player.slots, Slot(data["card"], True))
        return replace(state, pile=state.pile[1:], players=_with_player(state, data["seat"], slots=slots),
                       happenings=_happened(state, "drew", {"seat": data["seat"], "cause": data["cause"]}))
    if kind == "cards_swapped":
        players = state.players
        if data["a"] is not None:
            (sa, ia), (sb, ib) = data["a"], data["b"]
            card_a, card_b = state.player(sa).slots[ia], state.player(sb).slots[ib]
            moved = replace(state, players=_with_player(state, sa, slots=_put(state.player(sa).slots, ia, card_b)))
            players = _with_player(moved, sb, slots=_put(moved.player(sb).slots, ib, card_a))
        return replace(state, players=players, happenings=_happened(state, "swapped", {
            "seat": data["by"], "a": data["a"], "b": data["b"], "face": data["face"]}))
    if kind == "moon_looked":
        return replace(state, phase="moon_look", turn={**state.turn, "a": data["a"], "b": data["b"],
                                                        "since_us": data["since_us"]},
                       happenings=_happened(state, "looked", {"seat": data["seat"], "a": data["a"], "b": data["b"]}))
    if kind == "bat_chosen":
        return state
    if kind == "action_passed":
        return replace(state, happenings=_happened(state, "passed", {"seat": data["seat"], "cause": data["cause"]}))
    if kind == "penalty_due":
        return replace(state, penalties=(*state.penalties, Penalty(data["seat"], data["reason"], data["since_us"])))
    if kind == "penalty_paid":
        waiting = list(state.penalties)
        index = next((i for i, p in enumerate(waiting) if p.seat == data["seat"]), None) if data.get("chosen") else None
        if index is not None:
            del waiting[index]
        return replace(state, penalties=tuple(waiting), happenings=_happened(state, "penalty", {
            "seat": data["seat"], "reason": data["reason"], "how": data["how"]}))
    if kind == "penalties_awaited":
        return replace(state, phase="penalties", turn={"then": data.get("then", "pass")})
    if kind == "dice_passed":
        return replace(state, phase="roll", roller=data["to"], turn={})
    if kind == "dice_kept":
        return replace(state, phase="roll", turn={},
                       happenings=_happened(state, "tie", {"seat": data["roller"]}))
    if kind == "game_won":
        return replace(state, phase="over", winner=data["seat"], turn={}, penalties=(),
                       happenings=_happened(state, "won", {"seat": data["seat"]}))
    raise ValueError(f"the garlic game has no event {kind!r}")


def _put(slots: tuple[Slot, ...], index: int, slot: Slot) -> tuple[Slot, ...]:
    return (*slots[:index], slot, *slots[index + 1:])


def is_over(state: GarlicState) -> bool:
    return state.phase == "over"
