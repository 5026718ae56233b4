"""The consequences La chasse au vampire's moves share, told on one story: the deal, a bite and
its riposte, a traveller's arrival (chapel, crypt, Doctor's House, magic circle), the glass turned
over, the next turn and the win.

Each `tell` is applied at once, so every consequence is decided on the state the one before left.
"""

from __future__ import annotations

from companion.fairness.rng import RandomSource, shuffled
from companion.games.base import Story
from companion.games.chasse.evolve import evolve
from companion.games.chasse.options import DIE, TRIO, WEAPONS
from companion.games.chasse.rules import (
    CLOSED,
    VAMPIRES_NEVER,
    board_of,
    donors,
    doubled,
    next_night,
    still_to_roll,
)
from companion.games.chasse.state import ChasseState, Side, Square


def square_json(square: Square | None) -> list[int] | None:
    return None if square is None else [square[0], square[1]]


class ChasseStory(Story[ChasseState]):
    def die(self, purpose: str) -> int:
        return self.rng.randbelow(DIE, purpose) + 1

    # -- the start (C-S1..C-S5) -------------------------------------------------------------------

    def start_roll(self, seats: list[int]) -> None:
        """C-S1: the highest roll is the master vampire; a tie rolls again among the tied."""
        number = self.state.start["round"]
        for seat in seats:
            roll = self.die(f"start roll {number} seat {seat}")
            self.tell("start_rolled", {"seat": seat, "round": number, "roll": roll})
        if still_to_roll(self.state):
            return
        rolls = {int(s): r for s, r in self.state.start["rolls"].items()}
        best = max(rolls.values())
        tied = sorted(s for s, r in rolls.items() if r == best)
        if len(tied) > 1:
            self.tell("start_tied", {"round": number, "seats": tied, "roll": best})
            return
        self.tell("master_chosen", {"seat": tied[0], "roll": best})
        self.deal()

    def deal(self) -> None:
        """C-S2..C-S5: each traveller one blood-group card and one riposte, face down and in random
        order; the rest, with every vampire card, shuffled into the chapel pile; the glass set to day."""
        state = self.state
        blood = [c.number for c in state.cards if c.kind == "blood"]
        ripostes = [c.number for c in state.cards if c.kind in ("garlic", "water", "cross", "stake")]
        blood = shuffled(self.rng, blood, "deal the blood-group cards")
        ripostes = shuffled(self.rng, ripostes, "deal the riposte cards")
        stacks: dict[str, list[int]] = {}
        travellers = state.travellers()
        for i, pawn in enumerate(travellers):
            pair = [c for c in (blood[i] if i < len(blood) else None, ripostes[i]) if c is not None]
            stacks[str(pawn.seat)] = shuffled(self.rng, pair, f"order seat {pawn.seat}'s two cards")
        vampires = [c.number for c in state.cards if c.kind == "vampire"]
        rest = blood[len(travellers):] + ripostes[len(travellers):] + vampires
        chapel = shuffled(self.rng, rest, "shuffle the chapel pile")
        board = board_of(state)
        squares = {}
        if board is not None:
            squares = {str(p.seat): square_json(board.places["crypt" if p.role == "master" else "inn"])
                       for p in state.players}
        self.tell("cards_dealt", {"stacks": stacks, "chapel": chapel, "squares": squares})
        full = int(state.options["phase_seconds"] * 1_000_000)
        self.tell("glass_turned", {"side": "day", "turns": 0, "full_us": full, "since_us": self.at_us})
        self.tell("turn_begun", {"seat": self.state.master})

    # -- a turn (C-M1..C-M4) ------------------------------------------------------------------------

    def roll(self, seat: int) -> None:
        """C-M2: the allowance is fixed with the roll (5.8 item 4), doubled by the side of the glass."""
        roll = self.die(f"turn roll seat {seat}")
        pawn = self.state.player(seat)
        twice = doubled(pawn, self.state.side)
        self.tell("turn_rolled", {"seat": seat, "roll": roll, "allowance": roll * 2 if twice else roll,
                                  "doubled": twice, "side": self.state.side})

    def move(self, seat: int, place: str, square: Square | None, bite: int | None) -> None:
        """The pawn's move: the bite on the way (C-B1), then where it stopped and what that does."""
        if bite is not None:
            repelled = self.bite(seat, bite)
            if self.over():
                return
            if repelled:
                self.next_turn()
                return
        self.tell("pawn_moved", {"seat": seat, "place": place, "square": square_json(square)})
        self.arrive(seat)
        if not self.over():
            self.next_turn()

    def bite(self, biter: int, victim: int) -> bool:
        """C-B2, C-B3: the victim's top card answers. True when the biter was repelled."""
        prey = self.state.player(victim)
        for pending in self.state.transfusions:
            if pending.donor == victim:  # C-B3: a donor bitten on the way can no longer give
                self.tell("donor_lost", {"victim": pending.victim, "donor": victim})
        if not prey.stack:
            self.tell("bite_unanswered", {"biter": biter, "victim": victim})
            self.convert(victim, "empty_stack")
            return False
        card = self.state.cards[prey.stack[0]]
        freed = card.kind == "stake" and self.state.player(biter).role == "disciple"
        converted = None
        if card.kind == "vampire":
            converted = "vampire_card"
        elif card.kind == "blood" and prey.transfused:
            converted = "second_transfusion"
        elif card.kind == "blood" and self.state.transfusion_of(victim) is None \
                and not donors(self.state, victim, str(card.group)):
            converted = "no_donor"
        effect = ("freed" if freed else "repelled") if card.kind in WEAPONS \
            else "disciple" if converted else "transfusion"
        self.tell("bite_answered", {"biter": biter, "victim": victim, "card": card.number, "kind": card.kind,
                                    "group": card.group, "effect": effect}, reveals=True)
        if card.kind in WEAPONS:
            self.send_to_cemetery([biter], "repelled", [biter] if freed else [])
            return True
        if converted:
            self.convert(victim, converted)
        elif self.state.transfusion_of(victim) is None:
            self.tell("transfusion_needed", {"victim": victim, "group": str(card.group), "biter": biter,
                                             "deadline_turns": next_night(self.glass_turns())})
        return False

    def glass_turns(self) -> int:
        return self.state.glass.turns if self.state.glass else 0

    def convert(self, seat: int, why: str) -> None:
        """A traveller becomes a disciple. One converted where no vampire may stand (the inn, the
        chapel or beyond the torrent: nightfall catches a transfusion there) leaves for the cemetery,
        where vampires go; the rules say nothing of it, and a disciple cannot stay in a chapel."""
        pawn = self.state.player(seat)
        board = board_of(self.state)
        moved: dict[str, object] = {}
        if pawn.place in VAMPIRES_NEVER or (board is not None and pawn.square in board.chapel_zone):
            moved = {"place": "cemetery", "square": square_json(board.places["cemetery"]) if board else None}
        self.tell("converted", {"seat": seat, "why": why, **moved})
        if not self.state.travellers():
            self.win("master", [self.state.master])

    def send_to_cemetery(self, seats: list[int], why: str, freed: list[int] | None = None) -> None:
        board = board_of(self.state)
        square = square_json(board.places["cemetery"]) if board is not None else None
        self.tell("vampire_sent", {"seats": seats, "why": why, "freed": freed or [], "square": square})

    def arrive(self, seat: int) -> None:
        """What a traveller's stop does: a chapel draw by day (C-K2), a crypt deposit (C-K5), the
        Doctor's House (C-B3), the magic circle (C-X1)."""
        pawn = self.state.player(seat)
        if pawn.role != "traveller":
            return
        if pawn.place == "chapel" and self.state.side == "day":
            if self.state.chapel:
                self.tell("card_drawn", {"seat": seat, "card": self.state.chapel[0]})
            else:
                self.tell("chapel_empty", {"seat": seat})
        elif pawn.place == "crypt" and not pawn.deposited:
            self.deposit(seat)
        elif pawn.place == "doctor":
            for pending in self.state.transfusions:
                if seat in (pending.victim, pending.donor) and seat not in pending.reached:
                    self.tell("doctor_reached", {"victim": pending.victim, "seat": seat})
            self.transfuse()
        elif pawn.place == "circle" and not self.state.circle_used:
            vampires = [p.seat for p in self.state.players if p.vampire]
            self.tell("circle_used", {"seat": seat, "side": self.state.side})
            self.send_to_cemetery(vampires, "circle")

    def transfuse(self) -> None:
        for pending in self.state.transfusions:
            if pending.donor is not None and {pending.victim, pending.donor} <= pending.reached:
                self.tell("transfusion_done", {"victim": pending.victim, "donor": pending.donor})

    def deposit(self, seat: int) -> None:
        """C-K3..C-K5: the top card, face up; the stake or the trio wins at once."""
        pawn = self.state.player(seat)
        if not pawn.stack:
            self.tell("nothing_to_deposit", {"seat": seat})
            return
        card = self.state.cards[pawn.stack[0]]
        held = {self.state.cards[c].kind for c in self.state.crypt}
        wins = card.kind == "stake" or (card.kind in TRIO and set(TRIO) <= held | {card.kind})
        effect = "win" if wins else "kept" if card.kind in WEAPONS else "void"
        self.tell("card_deposited", {"seat": seat, "card": card.number, "kind": card.kind, "group": card.group,
                                     "effect": effect}, reveals=True)
        for pending in self.state.transfusions:  # a donor who left its blood in the crypt has none to give
            if pending.donor == seat and seat not in donors(self.state, pending.victim, pending.group):
                self.tell("donor_lost", {"victim": pending.victim, "donor": seat})
        if wins:
            how = "stake" if card.kind == "stake" else "trio"
            self.win("travellers", [p.seat for p in self.state.travellers()], how)

    def next_turn(self) -> None:
        """C-M1: clockwise from the current seat; disciples keep their place."""
        order = self.state.order
        current = self.state.current
        following = order[(order.index(current) + 1) % len(order)] if current in order else self.state.master
        self.tell("turn_begun", {"seat": following})

    # -- the glass (C-M5) ---------------------------------------------------------------------------

    def turn_over(self) -> None:
        """The glass ran out: day and night swap at once, mid-turn included (5.8 item 4). At nightfall
        an unfinished transfusion converts its victim (C-B3); a closing building's travellers are told."""
        glass = self.state.glass
        assert glass is not None and glass.ends_us is not None
        side: Side = "night" if glass.side == "day" else "day"
        turns = glass.turns + 1
        self.tell("glass_turned", {"side": side, "turns": turns, "full_us": glass.full_us, "since_us": glass.ends_us})
        if side == "night":
            for pending in list(self.state.transfusions):
                if pending.deadline_turns <= turns and self.state.transfusion_of(pending.victim) is not None:
                    self.tell("transfusion_failed", {"victim": pending.victim})
                    self.convert(pending.victim, "nightfall")
                    if self.over():
                        return
        closing = CLOSED[side]
        inside = [p.seat for p in self.state.travellers() if p.place == closing]
        if inside:
            self.tell("building_closed", {"place": closing, "seats": inside})

    def win(self, winner: str, winners: list[int], how: str | None = None) -> None:
        """C-E1, C-E2."""
        self.tell("game_won", {"winner": winner, "winners": winners, "how": how or winner, "at_us": self.at_us})

    def over(self) -> bool:
        return self.state.phase == "over"


def story(state: ChasseState, at_us: int, rng: RandomSource) -> ChasseStory:
    return ChasseStory(state, at_us, rng, evolve)
