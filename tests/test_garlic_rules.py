"""The garlic-slap game's pure rules, rule by rule: S-S1..S-S12 and the resolutions of ambiguities
1..11 of rules/garlic-slap.md, then the options, the deadlines, real cards, the views, the log lines
and the refusals.

Positions are written as each player's display, left to right: `violet-moon` lies vampire side up,
`[violet-moon]` coffin side up. Dice faces, shuffles and draws come from a script, so every test
sees exactly the cards and faces it names.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, OptionsError, Rejection, SeatInfo, Viewer, seat
from companion.games.garlic import GARLIC_SLAP
from companion.games.garlic.offers import SampleDecisions
from companion.games.garlic.options import DEFAULTS, normalize_options
from companion.games.garlic.rules import deadline, is_over
from companion.games.garlic.state import Card, Cleared, GarlicState, Slot
from companion.sim.players.garlic import play_game
from tests.conftest import SeededRandomSource

NAMES = {1: "Ada", 2: "Ben", 3: "Cyd", 4: "Dee", 5: "Eve", 6: "Fay"}
START_US = 1_000_000
STEP_US = 100_000
"""Each command reaches the table 100 ms after the previous one (a timeout moves the clock on to its deadline)."""


# -- helpers -----------------------------------------------------------------------------------

class Script:
    """A RandomSource that returns the queued values, each checked against what the draw is for.

    The deck shuffle never swaps (the deck stays in its built order) unless a test queues it."""

    def __init__(self, *draws: tuple[str, int]) -> None:
        self.queue = list(draws)
        self.purposes: list[str] = []

    def randbelow(self, bound: int, purpose: str) -> int:
        self.purposes.append(purpose)
        if purpose.startswith("shuffle the deck") and not self.queue:
            return bound - 1
        assert self.queue, f"unexpected draw: {purpose!r} below {bound}"
        fragment, value = self.queue.pop(0)
        assert fragment in purpose, f"expected a draw for {fragment!r}, the rules drew for {purpose!r}"
        assert 0 <= value < bound, f"{value} is not below {bound} ({purpose})"
        return value

    def done(self) -> bool:
        return not self.queue


def seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(n, NAMES[n]) for n in range(1, players + 1)]


def name(card: Card) -> str:
    return f"{card.colour}-{card.symbol}"


def position(*hands: str, pile: str | None = None, **options: Any) -> GarlicState:
    """A game for len(hands) players (seats 1, 2, ...) holding exactly these displays; the pile is
    `pile` (top first) or, when not given, every other card."""
    state = GARLIC_SLAP.setup(normalize_options(options), seats(len(hands)), Script())
    free: dict[str, list[int]] = {}
    for card in state.deck:
        free.setdefault(name(card), []).append(card.number)

    def take(word: str) -> Slot:
        return Slot(free[word.strip("[]")].pop(0), up=not word.startswith("["))

    players = tuple(replace(p, slots=tuple(take(w) for w in text.split())) for p, text in zip(state.players, hands,
                                                                                              strict=True))
    if pile is None:
        rest = tuple(sorted(n for numbers in free.values() for n in numbers))
    else:
        rest = tuple(take(w).card for w in pile.split())
    return replace(state, players=players, pile=rest)


def row(who: int, after_us: int, first_us: int, at_us: int) -> dict[str, Any]:
    """A press as the referee reports it (companion/buzzers/referee.py `Decision.to_json`)."""
    return {"who": f"seat:{who}", "t_us": at_us + after_us, "uncertainty_us": 500, "source": "test",
            "after_arm_us": after_us, "gap_us": after_us - first_us}


class Game:
    """One game on the pure rules: every command is validated, decided and evolved, as the table does."""

    def __init__(self, state: GarlicState) -> None:
        self.state = state
        self.now = START_US
        self.events: list[Event] = []
        """The events of the last command."""

    # -- commands --------------------------------------------------------------------------

    def do(self, actor: Viewer, command: str, draws: Sequence[tuple[str, int]] = (), **args: Any) -> list[Event]:
        """Play a command that must be allowed; `draws` are the random values it may ask for."""
        order = Command(command, args, self.now)
        rejection = GARLIC_SLAP.validate(self.state, actor, order)
        assert rejection is None, f"{actor} {command} {args} was refused: {rejection}"
        script = Script(*draws)
        decision = GARLIC_SLAP.decide(self.state, actor, order, script)
        assert script.done(), f"draws left unused: {script.queue}"
        self.events = decision.events
        self.state = decision.states[-1]
        self.now += STEP_US
        return self.events

    def refusal(self, actor: Viewer, command: str, **args: Any) -> Rejection:
        rejection = GARLIC_SLAP.validate(self.state, actor, Command(command, args, self.now))
        assert rejection is not None, f"{actor} {command} {args} was allowed"
        return rejection

    def refuse(self, actor: Viewer, command: str, **args: Any) -> str:
        """The code `validate` refuses this command with (the test fails if it is allowed)."""
        return self.refusal(actor, command, **args).code

    def roll(self, colour: str, symbol: str, by: Viewer | None = None) -> list[Event]:
        """Roll these faces; by default the player whose turn it is (seat 1 for the first roll)."""
        options = self.state.options
        number = self.state.round + 1
        draws = [(f"round {number} colour die", options["colour_die"].index(colour)),
                 (f"round {number} symbol die", options["symbol_die"].index(symbol))]
        return self.do(by or seat(self.state.roller or 1), "roll", draws)

    def settle(self, *slaps: tuple[int, float], false_starts: Sequence[tuple[int, float]] = (),
               tied_first: Sequence[int] = (), draws: Sequence[tuple[str, int]] = ()) -> list[Event]:
        """Settle the open round: `slaps` are (seat, ms after the dice showed), earliest first;
        `false_starts` are (seat, ms before the dice showed)."""
        at = int(self.state.turn["at_us"])
        hands_off = self.state.turn["mode"] == "hands_off"
        first = int(slaps[0][1] * 1000) if slaps else 0
        order = [row(who, int(ms * 1000), first, at) for who, ms in slaps]
        early = [{"who": f"seat:{who}", "t_us": at - int(ms * 1000), "uncertainty_us": 500, "source": "test",
                  "early_us": int(ms * 1000)} for who, ms in false_starts]
        if hands_off:
            outcome = "faults" if slaps else "clean"
        else:
            outcome = "tie" if tied_first else "winner" if slaps else "no_reaction"
        decision = {"outcome": outcome, "winner": f"seat:{slaps[0][0]}" if outcome == "winner" else None,
                    "tied_first": [f"seat:{s}" for s in tied_first], "ties": [], "order": order,
                    "false_starts": early}
        self.now = max(self.now, at + first + 5_000)
        return self.do(SYSTEM, "settle", draws, round=self.state.round, decision=decision)

    def slap_first(self, colour: str, symbol: str, slapper: int, by: Viewer | None = None) -> None:
        """Roll these faces and let `slapper` slap first."""
        self.roll(colour, symbol, by)
        self.settle((slapper, 300))

    def time_out(self, draws: Sequence[tuple[str, int]] = ()) -> list[Event]:
        """Let the clock run to the deadline the game waits on, and send its system command."""
        due = deadline(self.state)
        assert due is not None, f"nothing to time out in phase {self.state.phase}"
        self.now = max(self.now, due.at_us)
        return self.do(SYSTEM, "timeout", draws, **due.command.args)

    # -- what players see ------------------------------------------------------------------

    def hand(self, who: int) -> str:
        """A display in the positions' notation."""
        words = []
        for slot in self.state.player(who).slots:
            card = self.state.card(slot.card)
            text = "?" if card is None else name(card)
            words.append(text if slot.up else f"[{text}]")
        return " ".join(words)

    def cleared(self, who: int) -> int:
        return len(self.state.player(who).cleared)

    def owes(self) -> list[int]:
        """Who still owes a penalty (a coffin to turn face up)."""
        return [p.seat for p in self.state.penalties]

    def kinds(self) -> list[str]:
        return [event.type for event in self.events]

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return GARLIC_SLAP.view(self.state, viewer)

    def slot_view(self, viewer: Viewer, who: int, slot: int) -> dict[str, Any]:
        return self.view(viewer)["players"][who - 1]["slots"][slot]

    def token(self, who: int, slot: int) -> str:
        card = self.state.card(self.state.player(who).slots[slot].card)
        assert card is not None
        return card.token

    def card_json(self, who: int, slot: int) -> dict[str, Any]:
        card = self.state.card(self.state.player(who).slots[slot].card)
        assert card is not None
        return card.to_json()


def viewers(players: int) -> list[Viewer]:
    return [TABLE, HOST, *(seat(n) for n in range(1, players + 1))]


def passes_to(game: Game, who: int) -> bool:
    """The action is over and `who` rolls next."""
    return game.state.phase == "roll" and game.state.roller == who


# -- S-S1 setup ------------------------------------------------------------------------------

def test_s_s1_setup_deals_four_face_up_cards_to_each_player_and_piles_the_rest() -> None:
    """S-S1: shuffle the 43 cards, deal 4 face up to each player, the rest is the face-down pile."""
    recorder = Script()
    state = GARLIC_SLAP.setup(normalize_options({}), seats(4), SeededRandomSource(7))
    GARLIC_SLAP.setup(normalize_options({}), seats(4), recorder)
    assert len(state.deck) == 43
    assert [len(p.slots) for p in state.players] == [4, 4, 4, 4]
    assert all(slot.up for p in state.players for slot in p.slots)
    dealt = [slot.card for p in state.players for slot in p.slots]
    assert len(state.pile) == 43 - 16
    assert sorted([*dealt, *state.pile]) == list(range(43)), "every card once: in a display or in the pile"
    assert len(recorder.purposes) == 42 and all(p.startswith("shuffle the deck") for p in recorder.purposes)
    other = GARLIC_SLAP.setup(normalize_options({}), seats(4), SeededRandomSource(8))
    assert [s.card for p in other.players for s in p.slots] != dealt, "the deal comes from the shuffle"
    table = GARLIC_SLAP.view(state, TABLE)
    assert table["pile"] == 27 and table["phase"] == "roll"
    assert all(s["up"] and "colour" in s for p in table["players"] for s in p["slots"]), "dealt face up"


# -- S-S2 who rolls --------------------------------------------------------------------------

def test_s_s2_the_youngest_takes_the_dice_first_then_they_pass_counter_clockwise() -> None:
    """S-S2: the youngest rolls first (any seat may claim the first roll, the table cannot); then
    the dice pass counter-clockwise: seats are numbered clockwise, so to the previous number."""
    game = Game(position("yellow-bat", "yellow-bat", "yellow-bat", "yellow-bat"))
    assert game.refuse(TABLE, "roll") == "youngest_rolls_first"
    assert game.refuse(HOST, "roll") == "youngest_rolls_first"
    game.roll("yellow", "moon", by=seat(3))
    assert game.state.roller == 3
    game.settle()
    assert passes_to(game, 2)
    refusal = game.refusal(seat(3), "roll")
    assert (refusal.code, refusal.params) == ("not_your_roll", {"name": "Ben"})
    game.roll("yellow", "moon", by=TABLE)  # the table's button rolls for whoever holds the dice
    assert game.state.dice is not None and game.state.dice.roller == 2
    game.settle()
    assert passes_to(game, 1)
    game.roll("yellow", "moon")
    game.settle()
    assert passes_to(game, 4), "from seat 1 the dice go round to the last seat"


def test_s_s2_the_dice_can_be_passed_clockwise_when_the_table_says_so() -> None:
    """S-S2 (option dice_pass_direction): clockwise is the next seat number."""
    game = Game(position("yellow-bat", "yellow-bat", "yellow-bat", dice_pass_direction="clockwise"))
    game.roll("yellow", "moon", by=seat(2))
    game.settle()
    assert passes_to(game, 3)
    game.roll("yellow", "moon")
    game.settle()
    assert passes_to(game, 1)


def test_s_s2_the_dice_pass_after_an_action_after_a_penalty_and_after_a_timeout() -> None:
    """S-S2: after every action, penalty or timeout the next player counter-clockwise rolls."""
    game = Game(position("violet-moon", "yellow-bat [yellow-skull] [violet-bat]", "yellow-moon"))
    game.slap_first("violet", "moon", slapper=1, by=seat(3))
    game.do(seat(1), "claim", kind="own_up", slot=0)  # an action
    assert passes_to(game, 2)
    game.slap_first("yellow", "skull", slapper=2)
    game.do(seat(2), "claim", kind="own_up", slot=0)  # wrong: a penalty to pay first
    assert game.state.phase == "penalties" and game.state.roller == 2
    game.do(seat(2), "reopen", slot=2)
    assert passes_to(game, 1)
    game.slap_first("violet", "moon", slapper=3)
    game.time_out()  # no claim made in time
    assert passes_to(game, 3)


# -- S-S3 fairness ---------------------------------------------------------------------------

def test_s_s3_every_reaction_is_measured_from_the_instant_the_dice_show() -> None:
    """S-S3: hands start level; the round opens at the very moment the dice are shown, and a hand
    that left before then (a false start) is not the first slap."""
    game = Game(position("violet-moon", "violet-moon", "yellow-bat"))
    game.now = 7_000_000
    game.roll("violet", "moon")
    rolled, armed = game.events
    assert (rolled.type, armed.type) == ("dice_rolled", "round_armed")
    assert armed.data["at_us"] == rolled.data["at_us"] == 7_000_000
    assert armed.data["mode"] == "race"
    game.settle((2, 280), false_starts=[(1, 40)])
    assert game.state.phase == "claim" and game.state.turn["seat"] == 2
    assert game.owes() == [] and game.hand(1) == "violet-moon", "a false start is only a warning by default"


# -- S-S4 roll -------------------------------------------------------------------------------

def test_s_s4_both_dice_are_rolled_at_once_and_shown_to_everyone() -> None:
    """S-S4: one roll throws both dice; everyone sees them at once and may slap."""
    game = Game(position("violet-moon", "yellow-bat"))
    game.roll("violet", "moon", by=seat(2))
    assert game.state.phase == "reaction"
    dice = game.state.dice
    assert dice is not None and (dice.colour, dice.symbol, dice.roller) == ("violet", "moon", 2)
    for viewer in viewers(2):
        assert game.view(viewer)["dice"] == {"round": 1, "roller": 2, "colour": "violet", "symbol": "moon",
                                             "at_us": START_US}


def test_s_s4_the_roller_may_slap_too() -> None:
    """S-S4: the roller is a player like the others and may slap first."""
    game = Game(position("yellow-bat", "violet-moon"))
    game.roll("violet", "moon", by=seat(2))
    game.settle((2, 250), (1, 400))
    assert game.state.phase == "claim" and game.state.turn["seat"] == 2
    game.do(seat(2), "claim", kind="own_up", slot=0)
    assert game.hand(2) == "[violet-moon]"
    assert passes_to(game, 1)


# -- S-S5 colour results -------------------------------------------------------------------

def test_s_s5a_a_right_face_up_claim_turns_the_card_coffin_side_up() -> None:
    """S-S5a: the first slapper shows a face-up card matching the dice and turns it coffin side up."""
    game = Game(position("violet-moon yellow-bat", "yellow-skull violet-moon violet-bat"))
    game.roll("violet", "moon")
    game.settle((2, 300), (1, 320))
    game.do(seat(2), "claim", kind="own_up", slot=1)
    assert game.hand(2) == "yellow-skull [violet-moon] violet-bat"
    assert game.hand(1) == "violet-moon yellow-bat", "the later slapper gets nothing"
    assert game.owes() == []
    assert passes_to(game, 2)


def test_s_s5a_a_wrong_face_up_claim_is_penalised() -> None:
    """S-S5a: showing a card that does not match costs a penalty (S-S9)."""
    game = Game(position("yellow-bat", "yellow-moon [violet-bat] [yellow-skull]"))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_up", slot=0)
    assert game.hand(2) == "yellow-moon [violet-bat] [yellow-skull]", "the shown card stays face up"
    assert game.owes() == [2] and game.state.phase == "penalties"
    game.do(seat(2), "reopen", slot=2)
    assert game.hand(2) == "yellow-moon [violet-bat] yellow-skull"
    assert game.owes() == [] and passes_to(game, 2)


def test_s_s5b_right_guess_clears_and_refills_below_four() -> None:
    """S-S5b: a coffin that matches is checked, cleared (removed + 1), and a card drawn face up
    because the display fell below 4."""
    game = Game(position("yellow-bat", "[violet-moon] yellow-bat yellow-skull violet-bat",
                         pile="yellow-moon violet-skull"))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.kinds()[:3] == ["claim_made", "card_checked", "card_cleared"]
    assert game.cleared(2) == 1
    assert game.hand(2) == "yellow-bat yellow-skull violet-bat yellow-moon"
    assert [name(game.state.deck[n]) for n in game.state.pile if n is not None] == ["violet-skull"]
    assert game.view(TABLE)["players"][1]["cleared"][0]["colour"] == "violet", "a checked coffin was public"
    assert passes_to(game, 2)


def test_s_s5b_right_guess_does_not_refill_a_display_of_five() -> None:
    """S-S5b: the refill is drawn only if the display now has fewer than 4 cards."""
    game = Game(position("yellow-bat", "[violet-moon] yellow-bat yellow-skull violet-bat violet-skull",
                         pile="yellow-moon"))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.cleared(2) == 1
    assert game.hand(2) == "yellow-bat yellow-skull violet-bat violet-skull"
    assert len(game.state.pile) == 1 and "card_drawn" not in game.kinds()


def test_s_s5b_wrong_guess_turns_the_card_face_up_and_keeps_it() -> None:
    """S-S5b: a coffin that does not match is turned face up again and kept."""
    game = Game(position("yellow-bat", "[yellow-moon] [violet-bat] violet-skull"))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.hand(2) == "yellow-moon [violet-bat] violet-skull"
    assert game.cleared(2) == 0
    assert game.owes() == [] and passes_to(game, 2)


def test_s_s5c_right_check_of_another_players_coffin_leaves_it_face_up() -> None:
    """S-S5c: another player's coffin that matches stays face up, undoing its owner's progress."""
    game = Game(position("[violet-moon] yellow-bat", "[yellow-skull]", "yellow-moon"))
    game.slap_first("violet", "moon", slapper=3)
    game.do(seat(3), "claim", kind="other_down", seat=1, slot=0)
    assert game.hand(1) == "violet-moon yellow-bat"
    assert game.hand(3) == "yellow-moon" and game.owes() == []
    assert game.slot_view(seat(2), 1, 0) == {"up": True, **game.card_json(1, 0)}
    assert passes_to(game, 3), "counter-clockwise from seat 1 is the last seat"


def test_s_s5c_wrong_check_penalises_the_slapper_and_the_card_goes_back_coffin_side_up() -> None:
    """S-S5c: if the checked coffin does not match, the slapper takes a penalty and the card is
    turned coffin side up again."""
    game = Game(position("[yellow-bat] yellow-skull", "[violet-bat] [yellow-skull]"))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="other_down", seat=1, slot=0)
    assert game.hand(1) == "[yellow-bat] yellow-skull"
    assert game.owes() == [2]
    game.do(seat(2), "reopen", slot=0)
    assert game.hand(2) == "violet-bat [yellow-skull]"
    assert passes_to(game, 2)


# -- S-S6 bat --------------------------------------------------------------------------------

def test_s_s6_bat_turns_one_of_the_slappers_face_up_cards_coffin_side_up() -> None:
    """S-S6: "!" + bat: the first slapper may turn any of their own face-up cards down, no check."""
    game = Game(position("yellow-bat", "yellow-skull [violet-moon]"))
    game.slap_first("!", "bat", slapper=2)
    assert game.state.phase == "bat"
    game.do(seat(2), "bat", kind="turn_down", slot=0)
    assert game.hand(2) == "[yellow-skull] [violet-moon]"
    assert "card_checked" not in game.kinds()
    assert passes_to(game, 2)


def test_s_s6_bat_clears_an_own_coffin_without_a_check_and_refills() -> None:
    """S-S6: the bat clears one of the slapper's coffins unchecked, refilled as in S-S5b."""
    game = Game(position("yellow-bat", "[yellow-skull] violet-moon violet-bat yellow-bat", pile="violet-skull"))
    game.slap_first("!", "bat", slapper=2)
    game.do(seat(2), "bat", kind="clear", slot=0)
    assert "card_checked" not in game.kinds()
    assert game.cleared(2) == 1
    assert game.hand(2) == "violet-moon violet-bat yellow-bat violet-skull"
    assert game.view(TABLE)["players"][1]["cleared"] == [{"checked": False}], "cleared unseen"


def test_s_s6_bat_turns_another_players_coffin_back_to_the_vampire_side() -> None:
    """S-S6: the bat may turn one coffin of another player face up (but not one's own)."""
    game = Game(position("[violet-moon] yellow-bat", "[yellow-skull]"))
    game.slap_first("!", "bat", slapper=2)
    assert game.refuse(seat(2), "bat", kind="turn_up", seat=2, slot=0) == "choose_other_player"
    game.do(seat(2), "bat", kind="turn_up", seat=1, slot=0)
    assert game.hand(1) == "violet-moon yellow-bat"
    assert game.hand(2) == "[yellow-skull]"
    assert passes_to(game, 2)


def test_s_s6_bat_may_be_declined() -> None:
    """S-S6: the three choices are the slapper's; with none wanted they pass, unpunished."""
    game = Game(position("yellow-bat", "yellow-skull"))
    game.slap_first("!", "bat", slapper=1)
    game.do(seat(1), "pass")
    assert game.owes() == [] and game.hand(1) == "yellow-bat"
    assert passes_to(game, 2)


# -- S-S7 moon -------------------------------------------------------------------------------

def test_s_s7_moon_swaps_two_coffins_between_two_players() -> None:
    """S-S7: "!" + moon: the first slapper swaps two face-down cards between two players."""
    game = Game(position("[yellow-bat] [violet-moon]", "[yellow-skull] violet-bat", "violet-skull"))
    game.slap_first("!", "moon", slapper=3)
    assert game.state.phase == "moon"
    game.do(seat(3), "moon", a=[1, 0], b=[2, 0], look=False)
    assert game.hand(1) == "[yellow-skull] [violet-moon]"
    assert game.hand(2) == "[yellow-bat] violet-bat"
    assert passes_to(game, 3)


def test_s_s7_moon_swaps_two_coffins_within_one_display() -> None:
    """S-S7: the two coffins may lie in one player's display."""
    game = Game(position("[yellow-bat] yellow-moon [violet-moon]", "violet-bat", "violet-skull"))
    game.slap_first("!", "moon", slapper=2)
    game.do(seat(2), "moon", a=[1, 0], b=[1, 2])
    assert game.hand(1) == "[violet-moon] yellow-moon [yellow-bat]"


def test_s_s7_moon_lets_the_slapper_look_at_both_cards_first() -> None:
    """S-S7: the slapper may look at both coffins privately before swapping them."""
    game = Game(position("[yellow-bat] [violet-moon]", "[yellow-skull] violet-bat", "violet-skull"))
    game.slap_first("!", "moon", slapper=3)
    game.do(seat(3), "moon", a=[1, 1], b=[2, 0], look=True)
    assert game.state.phase == "moon_look"
    assert game.view(seat(3))["looking"] == [game.card_json(1, 1), game.card_json(2, 0)]
    game.do(seat(3), "swap")
    assert game.hand(1) == "[yellow-bat] [yellow-skull]"
    assert game.hand(2) == "[violet-moon] violet-bat"
    assert "looking" not in game.view(seat(3)) and passes_to(game, 3)


def test_s_s7_moon_swaps_face_up_cards_only_when_the_others_have_no_coffins() -> None:
    """S-S7: the face-up swap is the fallback when the other players have no coffins to swap."""
    game = Game(position("[yellow-bat] [violet-moon] yellow-moon", "[yellow-skull] violet-bat", "violet-skull"))
    game.slap_first("!", "moon", slapper=3)
    assert game.refuse(seat(3), "moon", a=[1, 2], b=[2, 1]) == "moon_face_down_first"
    assert game.view(TABLE)["moon_face_up_allowed"] is False

    game = Game(position("yellow-bat", "violet-bat", "[violet-skull] yellow-moon"))
    game.slap_first("!", "moon", slapper=3)
    assert game.view(TABLE)["moon_face_up_allowed"] is True
    game.do(seat(3), "moon", a=[1, 0], b=[2, 0])
    assert (game.hand(1), game.hand(2)) == ("violet-bat", "yellow-bat")


def test_ambiguity_8_one_coffin_elsewhere_forbids_the_face_up_swap() -> None:
    """Ambiguity 8, read literally: the face-up swap is allowed only when no other player has a
    face-down card; a single coffin elsewhere can still be swapped with one of the slapper's own."""
    game = Game(position("[yellow-bat] violet-moon", "yellow-skull", "[violet-skull] yellow-moon"))
    game.slap_first("!", "moon", slapper=3)
    face_up_pairs = (([1, 1], [2, 0]), ([2, 0], [3, 1]))
    refusals = {game.refuse(seat(3), "moon", a=a, b=b) for a, b in face_up_pairs}
    assert refusals == {"moon_face_down_first"} and game.view(TABLE)["moon_face_up_allowed"] is False
    game.do(seat(3), "moon", a=[1, 0], b=[3, 0])
    assert (game.hand(1), game.hand(3)) == ("[violet-skull] violet-moon", "[yellow-bat] yellow-moon")

    real = physical("down up", "up", "down up")
    real.slap_first("!", "moon", slapper=3)
    assert real.refuse(seat(3), "moon", face="up") == "moon_face_down_first"
    real.do(seat(3), "moon", face="down")


# -- S-S8 skull ------------------------------------------------------------------------------

def test_s_s8_skull_nobody_slaps_and_the_next_player_rolls_after_five_seconds() -> None:
    """S-S8: "!" + skull opens a hands-off window of about 5 s; untouched, the dice pass."""
    game = Game(position("yellow-bat", "yellow-moon", "violet-moon"))
    game.roll("!", "skull", by=seat(2))
    armed = game.events[1]
    assert (armed.data["mode"], armed.data["window_us"]) == ("hands_off", 5_000_000)
    game.settle()
    assert game.owes() == [] and passes_to(game, 1)


def test_s_s8_skull_whoever_touches_the_garlic_is_penalised() -> None:
    """S-S8: anyone who touches the garlic card under the skull takes a penalty; then the dice pass."""
    game = Game(position("violet-skull", "[yellow-moon] violet-bat", "violet-moon", pile="yellow-bat"))
    game.roll("!", "skull", by=seat(2))
    game.settle((1, 310))
    assert game.hand(1) == "violet-skull yellow-bat", "no coffin: the penalty draws a card"
    assert game.hand(2) == "[yellow-moon] violet-bat"
    assert passes_to(game, 1)


# -- S-S9 penalty ----------------------------------------------------------------------------

def test_s_s9_the_offender_turns_a_coffin_of_their_choice_face_up() -> None:
    """S-S9 (with ambiguity 5): the offender chooses which of their coffins to turn face up; nobody
    else may choose for them, and a face-up card is not a choice."""
    game = Game(position("[yellow-bat] [violet-moon] yellow-moon", "violet-bat"))
    game.slap_first("violet", "skull", slapper=1)
    game.do(seat(1), "no_claim")
    assert game.owes() == [1] and game.state.phase == "penalties"
    assert game.refuse(seat(2), "reopen", slot=0) == "no_penalty_due"
    assert game.refuse(seat(1), "reopen", slot=2) == "card_face_up"
    game.do(seat(1), "reopen", slot=1)
    assert game.hand(1) == "[yellow-bat] violet-moon yellow-moon"
    assert passes_to(game, 2)


def test_s_s9_without_coffins_the_offender_draws_a_card_and_may_exceed_four() -> None:
    """S-S9: with no coffin to reopen the offender draws one card face up; the display may pass 4."""
    game = Game(position("yellow-bat yellow-moon violet-bat violet-skull", "violet-bat",
                         pile="yellow-skull violet-moon"))
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "claim", kind="own_up", slot=0)
    assert game.hand(1) == "yellow-bat yellow-moon violet-bat violet-skull yellow-skull"
    assert len(game.state.pile) == 1 and passes_to(game, 2)
    game.slap_first("yellow", "skull", slapper=1)
    game.do(seat(1), "claim", kind="own_up", slot=4)
    assert game.hand(1) == "yellow-bat yellow-moon violet-bat violet-skull [yellow-skull]", \
        "the drawn card is to be cleared like the others"


def test_s_s9_a_single_coffin_is_reopened_without_asking() -> None:
    """S-S9: with exactly one coffin there is nothing to choose: it is turned face up at once."""
    game = Game(position("[yellow-bat] violet-moon", "violet-bat"))
    game.slap_first("violet", "skull", slapper=1)
    game.do(seat(1), "claim", kind="own_up", slot=1)
    assert game.hand(1) == "yellow-bat violet-moon"
    assert game.owes() == [] and passes_to(game, 2)


def test_s_s9_the_penalty_card_may_be_drawn_at_random() -> None:
    """S-S9 with penalty_card_choice=random: the coffin to reopen is drawn, not chosen."""
    game = Game(position("[yellow-bat] [violet-moon] [yellow-moon]", "violet-bat", penalty_card_choice="random"))
    game.roll("violet", "skull")
    game.settle((1, 300))
    game.do(seat(1), "no_claim", draws=[("penalty card of seat 1", 2)])
    assert game.hand(1) == "[yellow-bat] [violet-moon] yellow-moon"
    assert passes_to(game, 2)


# -- S-S10 memory ----------------------------------------------------------------------------

def test_s_s10_a_player_never_sees_their_own_coffins() -> None:
    """S-S10: a player may never look at their own face-down cards: their screen shows coffins."""
    game = Game(position("[yellow-bat] violet-moon [violet-skull]", "violet-bat"))
    mine = game.view(seat(1))
    assert mine["players"][0]["slots"] == [{"up": False}, {"up": True, **game.card_json(1, 1)}, {"up": False}]
    text = json.dumps(mine)
    assert game.token(1, 0) not in text and game.token(1, 2) not in text
    assert not any(c.name == "look" for c in GARLIC_SLAP.actions(game.state, seat(1)))


# -- S-S11 empty pile ------------------------------------------------------------------------

def test_s_s11_with_an_empty_pile_a_cleared_coffin_is_not_replaced() -> None:
    """S-S11: if the pile is empty the player goes on with fewer cards."""
    game = Game(position("yellow-bat", "[violet-moon] yellow-bat yellow-skull", pile=""))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.cleared(2) == 1 and game.hand(2) == "yellow-bat yellow-skull"
    assert passes_to(game, 2)


def test_s_s11_a_penalty_that_would_draw_from_an_empty_pile_has_no_effect() -> None:
    """S-S11 (⚙ default): a penalty with no coffin and no pile does nothing."""
    game = Game(position("yellow-bat yellow-moon", "violet-bat", pile=""))
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "no_claim")
    assert game.hand(1) == "yellow-bat yellow-moon"
    paid = next(e for e in game.events if e.type == "penalty_paid")
    assert paid.data["how"] == "void"
    assert passes_to(game, 2)


# -- S-S12 win -------------------------------------------------------------------------------

def won_at_three() -> Game:
    """Seat 2 has cleared three coffins (checked) and holds a violet-moon coffin."""
    game = Game(position("yellow-bat", "[violet-moon] yellow-bat yellow-skull", pile="yellow-moon"))
    three = tuple(Cleared(n, checked=True) for n in (40, 41, 42))
    game.state = replace(game.state, players=(game.state.players[0], replace(game.state.player(2), cleared=three)))
    return game


def test_s_s12_the_fourth_cleared_coffin_wins_at_once() -> None:
    """S-S12: the first player to clear 4 coffins wins immediately: no refill, no next roll."""
    game = won_at_three()
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.cleared(2) == 4
    assert game.state.phase == "over" and game.state.winner == 2 and is_over(game.state)
    assert game.kinds()[-1] == "game_won" and "dice_passed" not in game.kinds()
    assert "card_drawn" not in game.kinds() and len(game.state.pile) == 1, "won: nothing more is drawn"
    assert game.view(TABLE)["winner"] == 2
    assert game.refuse(seat(1), "roll") == "game_over"
    assert deadline(game.state) is None


def test_s_s12_a_bat_clear_can_win_too() -> None:
    """S-S12: the fourth coffin wins however it is cleared (here by the bat, S-S6)."""
    game = won_at_three()
    game.slap_first("!", "bat", slapper=2)
    game.do(seat(2), "bat", kind="clear", slot=0)
    assert game.state.winner == 2 and is_over(game.state)


def test_s_s12_three_coffins_do_not_win() -> None:
    """S-S12: with coffins_to_win at 4, the third clear is not yet a win."""
    game = Game(position("yellow-bat", "[violet-moon] [violet-moon] [violet-moon] yellow-bat"))
    for _ in range(3):
        game.slap_first("violet", "moon", slapper=2)
        game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.cleared(2) == 3 and not is_over(game.state)


# -- ambiguity resolutions (§3.8) ------------------------------------------------------------

def test_ambiguity_1_default_dice_and_deck_are_the_proposed_guesses_flagged_unverified() -> None:
    """Ambiguity 1: ⚙ defaults: colour die yellow ×2, violet ×2, "!" ×2; symbol die two of each; 7 cards
    per combination plus one violet-skull (43); flagged unverified until the owner counts the deck."""
    options = normalize_options({})
    colours, symbols = options["colour_die"], options["symbol_die"]
    assert Counter(colours) == {"yellow": 2, "violet": 2, "!": 2}
    assert Counter(symbols) == {"bat": 2, "moon": 2, "skull": 2}
    faces = [(c, s) for c in colours for s in symbols]
    assert Fraction(faces.count(("yellow", "moon")), len(faces)) == Fraction(1, 9)
    assert Fraction(sum(c == "!" for c, _ in faces), len(faces)) == Fraction(1, 3)
    assert Fraction(faces.count(("!", "skull")), len(faces)) == Fraction(1, 9)
    deck = GARLIC_SLAP.setup(options, seats(2), Script()).deck
    assert Counter(name(c) for c in deck) == {"yellow-bat": 7, "yellow-moon": 7, "yellow-skull": 7,
                                              "violet-bat": 7, "violet-moon": 7, "violet-skull": 8}
    assert Game(position("yellow-bat", "yellow-bat")).view(TABLE)["unverified"] == ["colour_die", "symbol_die", "deck"]
    counted = Game(position("yellow-bat", "yellow-bat", deck_counted=True))
    assert counted.view(TABLE)["unverified"] == ["colour_die", "symbol_die"]


def test_ambiguity_1_a_counted_deck_is_dealt_as_counted() -> None:
    """Ambiguity 1: the owner's count of the real deck replaces the guess."""
    counts = {"yellow-bat": 8, "yellow-moon": 8, "yellow-skull": 6, "violet-bat": 7, "violet-moon": 7,
              "violet-skull": 7}
    state = GARLIC_SLAP.setup(normalize_options({"deck": counts, "deck_counted": True}), seats(3), Script())
    assert Counter(name(c) for c in state.deck) == counts
    assert len(state.pile) == 43 - 12


def test_ambiguity_1_the_unconfirmed_two_colour_face_matches_either_colour() -> None:
    """Ambiguity 1 (option wild_colour_face, off by default): a yellow-and-violet face matches
    both colours of its symbol."""
    assert "both" not in normalize_options({})["colour_die"]
    game = Game(position("violet-moon", "yellow-moon yellow-bat",
                         colour_die=["yellow", "yellow", "violet", "violet", "!", "both"]))
    game.slap_first("both", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_up", slot=0)
    assert game.hand(2) == "[yellow-moon] yellow-bat" and game.owes() == []


def test_ambiguity_2_a_block_without_a_matching_card_is_a_penalised_slap() -> None:
    """Ambiguity 2: only the first slap is judged, on its claim; slapping to block someone else
    with nothing to show is a wrong slap and is penalised."""
    game = Game(position("violet-moon yellow-bat", "yellow-skull", pile="violet-bat"))
    game.roll("violet", "moon")
    game.settle((2, 300), (1, 330))
    game.do(seat(2), "no_claim")
    assert game.hand(2) == "yellow-skull violet-bat", "the blocker paid: no coffin, so a card drawn"
    assert game.hand(1) == "violet-moon yellow-bat", "the blocked holder did not get to claim"
    assert passes_to(game, 2)


def test_ambiguity_2_later_slaps_are_ignored_by_default() -> None:
    """Ambiguity 2 (⚙ only_first_slap_judged=true): after a wrong first claim the round is over;
    the later slappers are neither judged nor penalised."""
    game = Game(position("violet-moon", "yellow-moon", "yellow-bat"))
    game.roll("violet", "moon")
    game.settle((2, 300), (1, 330), (3, 360))
    game.do(seat(2), "claim", kind="own_up", slot=0)
    assert game.hand(1) == "violet-moon" and game.hand(3) == "yellow-bat"
    assert game.owes() == [] and passes_to(game, 3)


def test_ambiguity_2_the_table_may_let_the_next_slapper_claim() -> None:
    """Ambiguity 2 (only_first_slap_judged=false): after a wrong claim the next slapper in time
    order may claim in turn."""
    game = Game(position("violet-moon", "yellow-moon", "yellow-bat", only_first_slap_judged=False))
    game.roll("violet", "moon")
    game.settle((2, 300), (1, 330), (3, 360))
    game.do(seat(2), "claim", kind="own_up", slot=0)
    assert game.state.phase == "claim" and game.state.turn["seat"] == 1
    assert game.refuse(seat(3), "claim", kind="own_up", slot=0) == "not_first_slapper"
    game.do(seat(1), "claim", kind="own_up", slot=0)
    assert game.hand(1) == "[violet-moon]"
    assert passes_to(game, 3)


def test_ambiguity_3_with_several_matching_cards_only_one_is_resolved() -> None:
    """Ambiguity 3: the first slapper resolves one card, even when they hold several matches."""
    game = Game(position("violet-moon violet-moon [violet-moon]", "yellow-bat"))
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "claim", kind="own_up", slot=1)
    assert game.hand(1) == "violet-moon [violet-moon] [violet-moon]"
    assert game.cleared(1) == 0 and passes_to(game, 2)


def test_ambiguity_4_a_wrong_guess_at_an_own_coffin_costs_no_penalty_by_default() -> None:
    """Ambiguity 4 (⚙ default): the wrong own coffin is only turned face up again."""
    game = Game(position("yellow-bat", "[yellow-moon] [violet-bat] [yellow-skull]"))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.hand(2) == "yellow-moon [violet-bat] [yellow-skull]"
    assert game.owes() == [] and "penalty_due" not in game.kinds()


def test_ambiguity_4_the_table_may_add_a_penalty_to_a_wrong_own_guess() -> None:
    """Ambiguity 4 (wrong_own_facedown_extra_penalty=true): the wrong guess also costs a penalty."""
    game = Game(position("yellow-bat", "[yellow-moon] [violet-bat] [yellow-skull]",
                         wrong_own_facedown_extra_penalty=True))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.hand(2) == "yellow-moon [violet-bat] [yellow-skull]"
    assert game.owes() == [2]
    game.do(seat(2), "reopen", slot=2)
    assert game.hand(2) == "yellow-moon [violet-bat] yellow-skull"
    assert passes_to(game, 2)


def test_ambiguity_5_the_offender_chooses_the_card_to_reopen() -> None:
    """Ambiguity 5 (⚙ default): the offender, and only they, is offered the coffins to reopen."""
    game = Game(position("[yellow-bat] violet-moon [violet-bat]", "yellow-skull"))
    game.slap_first("yellow", "moon", slapper=1)
    game.do(seat(1), "claim", kind="own_up", slot=1)
    offered = [c.args for c in GARLIC_SLAP.actions(game.state, seat(1)) if c.name == "reopen"]
    assert offered == [{"slot": 0}, {"slot": 2}]
    assert not [c for c in GARLIC_SLAP.actions(game.state, seat(2)) if c.name == "reopen"]
    [owed] = game.view(TABLE)["penalties"]
    assert (owed["seat"], owed["reason"]) == (1, "wrong_claim")
    assert owed["ends_us"] - owed["since_us"] == 10_000_000, "every screen counts down the choice's 10 s"
    game.do(seat(1), "reopen", slot=0)
    assert game.hand(1) == "yellow-bat violet-moon [violet-bat]"


def test_ambiguity_6_every_roll_times_out_after_five_seconds_without_a_slap() -> None:
    """Ambiguity 6: the 5 s no-reaction timeout applies to every roll, not only the skull; nobody
    slapping passes the dice with no penalty."""
    game = Game(position("yellow-bat", "violet-bat"))
    game.roll("yellow", "moon")
    assert (game.events[1].data["mode"], game.events[1].data["window_us"]) == ("race", 5_000_000)
    game.settle()
    assert game.owes() == [] and passes_to(game, 2)
    game = Game(position("yellow-bat", "violet-bat"))
    game.roll("!", "bat")
    assert game.events[1].data["window_us"] == 5_000_000
    game.settle()
    assert passes_to(game, 2), "an unused bat passes on too"


def test_ambiguity_6_the_no_reaction_timeout_is_configurable() -> None:
    """Ambiguity 6: the timeout is configurable (3 s at the least)."""
    game = Game(position("yellow-bat", "violet-bat", no_slap_timeout_s=3))
    game.roll("violet", "skull")
    assert game.events[1].data["window_us"] == 3_000_000
    with pytest.raises(OptionsError) as caught:
        normalize_options({"no_slap_timeout_s": 2.5})
    assert caught.value.key == "no_slap_timeout_s"


def test_ambiguity_7_every_skull_slapper_is_penalised() -> None:
    """Ambiguity 7: under the skull each player who touched the garlic is penalised, not only the
    first: no coffin draws, one coffin is reopened at once, several are the offender's choice."""
    game = Game(position("violet-skull", "[yellow-moon] violet-bat", "[violet-moon] [yellow-bat]", "yellow-skull",
                         pile="yellow-bat"))
    game.roll("!", "skull", by=seat(4))
    game.settle((3, 200), (1, 250), (2, 900))
    assert game.hand(1) == "violet-skull yellow-bat"
    assert game.hand(2) == "yellow-moon violet-bat"
    assert game.owes() == [3] and game.state.phase == "penalties"
    assert game.hand(4) == "yellow-skull", "who kept their hands off pays nothing"
    game.do(seat(3), "reopen", slot=1)
    assert game.hand(3) == "[violet-moon] yellow-bat"
    assert passes_to(game, 3)


def test_ambiguity_8_face_up_swap_when_no_other_player_has_a_coffin_own_display_allowed() -> None:
    """Ambiguity 8: when no other player has a coffin, the slapper may swap face-up cards between
    two players, their own display included (not within one display)."""
    game = Game(position("yellow-bat violet-moon", "yellow-moon", "[violet-skull] [violet-bat] yellow-skull"))
    game.slap_first("!", "moon", slapper=3)
    assert game.view(TABLE)["moon_face_up_allowed"] is True
    assert game.refuse(seat(3), "moon", a=[3, 0], b=[1, 1]) == "moon_same_side"
    assert game.refuse(seat(3), "moon", a=[3, 2], b=[3, 2]) == "bad_card"
    game.do(seat(3), "moon", a=[3, 2], b=[1, 1])
    assert game.hand(3) == "[violet-skull] [violet-bat] violet-moon"
    assert game.hand(1) == "yellow-bat yellow-skull"


def test_ambiguity_8_a_face_up_swap_needs_two_players() -> None:
    """Ambiguity 8: the face-up fallback swaps cards between two players."""
    game = Game(position("yellow-bat violet-moon", "yellow-moon"))
    game.slap_first("!", "moon", slapper=2)
    assert game.refuse(seat(2), "moon", a=[1, 0], b=[1, 1]) == "moon_two_players"


def test_ambiguity_8_having_looked_the_slapper_must_swap() -> None:
    """Ambiguity 8 (⚙ moon_must_swap_after_looking=true): after looking, keeping is refused."""
    game = Game(position("[yellow-bat] [violet-moon]", "yellow-moon"))
    game.slap_first("!", "moon", slapper=2)
    game.do(seat(2), "moon", a=[1, 0], b=[1, 1], look=True)
    assert game.refuse(seat(2), "keep") == "must_swap"
    game.do(seat(2), "swap")
    assert game.hand(1) == "[violet-moon] [yellow-bat]"


def test_ambiguity_8_the_table_may_let_the_slapper_keep_the_cards_after_looking() -> None:
    """Ambiguity 8 (moon_must_swap_after_looking=false): the slapper may look and leave them."""
    game = Game(position("[yellow-bat] [violet-moon]", "yellow-moon", moon_must_swap_after_looking=False))
    game.slap_first("!", "moon", slapper=2)
    game.do(seat(2), "moon", a=[1, 0], b=[1, 1], look=True)
    game.do(seat(2), "keep")
    assert game.hand(1) == "[yellow-bat] [violet-moon]"
    assert passes_to(game, 2)


def test_ambiguity_9_the_earliest_slap_wins_beyond_epsilon() -> None:
    """Ambiguity 9: the earliest timestamp wins when the next is more than ε = 10 ms behind."""
    game = Game(position("violet-moon", "violet-moon"))
    game.roll("violet", "moon")
    game.settle((2, 300), (1, 312))
    assert game.state.phase == "claim" and game.state.turn["seat"] == 2


def test_ambiguity_9_slaps_within_epsilon_are_a_tie_and_the_same_roller_rolls_again() -> None:
    """Ambiguity 9: two slaps within ε = 10 ms are a tie: nobody claims and the same roller re-rolls."""
    game = Game(position("violet-moon", "violet-moon", "yellow-bat"))
    game.roll("violet", "moon", by=seat(3))
    game.settle((2, 300), (1, 306))
    assert game.kinds()[-1] == "dice_kept"
    assert game.view(TABLE)["result"]["outcome"] == "tie"
    assert game.view(TABLE)["result"]["tied"] == [2, 1]
    assert passes_to(game, 3), "the same roller keeps the dice"
    assert game.hand(1) == game.hand(2) == "violet-moon" and game.owes() == []
    assert game.refuse(seat(2), "roll") == "not_your_roll"
    game.roll("yellow", "bat")
    assert game.state.round == 2


def test_ambiguity_9_a_tie_the_buzzers_cannot_split_is_a_tie_whatever_epsilon() -> None:
    """Ambiguity 9: presses the referee calls too close (within their own uncertainty) tie even
    with ε = 0."""
    game = Game(position("violet-moon", "violet-moon", tie_epsilon_ms=0))
    game.roll("violet", "moon")
    game.settle((2, 300), (1, 300.4), tied_first=[2, 1])
    assert game.kinds()[-1] == "dice_kept"
    game = Game(position("violet-moon", "violet-moon", tie_epsilon_ms=0))
    game.roll("violet", "moon")
    game.settle((2, 300), (1, 301))
    assert game.state.turn["seat"] == 2, "1 ms apart is a win with ε = 0"


def test_ambiguity_9_the_table_may_draw_the_first_slapper_of_a_tie() -> None:
    """Ambiguity 9 (tie_policy=draw): the first slapper of a tie is drawn at random among the tied."""
    game = Game(position("violet-moon", "violet-moon", "yellow-bat", tie_policy="draw"))
    game.roll("violet", "moon")
    game.settle((3, 300), (2, 304), (1, 309), draws=[("round 1 tie among 3", 1)])
    assert game.state.phase == "claim" and game.state.turn["seat"] == 2
    assert game.view(TABLE)["result"]["drawn_from"] == [3, 2, 1]


def test_ambiguity_10_a_false_start_is_shown_as_a_warning_by_default() -> None:
    """Ambiguity 10 (⚙ default): a slap before the dice show is ignored, with a warning."""
    game = Game(position("violet-moon", "violet-moon yellow-bat", pile="yellow-skull"))
    game.roll("violet", "moon")
    assert game.events[1].data["penalty"] == "none"
    game.settle((1, 300), false_starts=[(2, 60)])
    result = game.view(TABLE)["result"]
    assert [(f["who"], f["early_us"]) for f in result["false_starts"]] == [("seat:2", 60_000)]
    assert game.hand(2) == "violet-moon yellow-bat" and game.owes() == []
    assert game.state.turn["seat"] == 1


def test_ambiguity_10_a_false_start_may_be_penalised() -> None:
    """Ambiguity 10 (false_start=penalty): the false starter is locked out of the round and penalised."""
    game = Game(position("violet-moon", "violet-moon yellow-bat", pile="yellow-skull", false_start="penalty"))
    game.roll("violet", "moon")
    assert game.events[1].data["penalty"] == "lockout_round"
    game.settle((1, 300), false_starts=[(2, 60)])
    assert game.hand(2) == "violet-moon yellow-bat yellow-skull"
    assert game.state.phase == "claim" and game.state.turn["seat"] == 1


def test_ambiguity_9_and_10_a_tie_waits_for_a_false_starters_penalty_then_the_same_roller_rolls() -> None:
    """Ambiguities 9 and 10 together: a tie keeps the dice with the roller, but only once the false
    starter has paid (their choice of coffin); nobody rolls while a penalty is owed."""
    game = Game(position("violet-moon", "[yellow-bat] [violet-bat] yellow-moon", "violet-moon",
                         false_start="penalty"))
    game.roll("violet", "moon")
    game.settle((1, 300), (3, 300.2), false_starts=[(2, 60)], tied_first=[1, 3])
    assert game.owes() == [2] and game.state.phase == "penalties"
    assert game.refuse(seat(1), "roll") == "dice_in_play"
    game.do(seat(2), "reopen", slot=1)
    assert game.hand(2) == "[yellow-bat] violet-bat yellow-moon"
    assert game.state.phase == "roll" and game.state.roller == 1, "the tie's roller rolls again"


def test_s_s9_a_second_penalty_waits_behind_the_first_and_is_paid_at_once_when_no_choice_is_left() -> None:
    """S-S9: two offences, two penalties, paid one after the other. Seat 2 false-started (a choice
    between two coffins, pending) and then, called after seat 1's wrong claim, claims wrongly too:
    the second penalty waits in line; once seat 2 has turned one coffin up, the last coffin is the
    only choice left, so it is turned up at once, and then the dice pass."""
    game = Game(position("violet-moon", "[yellow-bat] [violet-bat] yellow-moon", "[yellow-skull]",
                         false_start="penalty", only_first_slap_judged=False))
    game.roll("violet", "moon")
    game.settle((1, 300), (2, 350), false_starts=[(2, 60)])
    assert game.owes() == [2]
    game.do(seat(1), "claim", kind="other_down", seat=2, slot=0)  # yellow-bat: wrong, seat 1 pays
    assert game.state.phase == "claim" and game.state.turn["seat"] == 2
    game.do(seat(2), "claim", kind="other_down", seat=3, slot=0)
    assert game.owes() == [2, 2], "the second penalty waits behind the first"
    game.do(seat(2), "reopen", slot=1)
    assert game.owes() == [] and game.hand(2) == "yellow-bat violet-bat yellow-moon"
    assert game.state.phase == "roll" and game.state.roller == 3


def test_ambiguity_11_clearing_removes_a_coffin_flipping_keeps_it() -> None:
    """Ambiguity 11: "chasser" = clear (the card leaves the display and counts), "retourner" = flip
    (the card stays); the French log says so."""
    game = Game(position("yellow-bat", "[violet-moon] yellow-moon"))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    cleared = next(e for e in game.events if e.type == "card_cleared")
    assert game.cleared(2) == 1 and "[violet-moon]" not in game.hand(2)
    assert GARLIC_SLAP.describe(cleared, "fr") == "la place 2 a chassé un cercueil"
    game.slap_first("yellow", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_up", slot=0)
    flipped = next(e for e in game.events if e.type == "card_turned_down")
    assert game.cleared(2) == 1 and game.hand(2).startswith("[yellow-moon]")
    assert GARLIC_SLAP.describe(flipped, "fr") == "la place 2 a retourné une carte côté cercueil"


# -- options ---------------------------------------------------------------------------------

SAERGE_SCHUBSEN = {
    "players": [2, 6],
    "colour_die_UNVERIFIED": ["yellow", "yellow", "violet", "violet", "!", "!"],
    "symbol_die_UNVERIFIED": ["bat", "bat", "moon", "moon", "skull", "skull"],
    "wild_colour_face": False,
    "deck_UNVERIFIED": {"per_combination": 7, "extra_card": ["violet", "skull"]},
    "display_size": 4,
    "coffins_to_win": 4,
    "no_slap_timeout_s": 5.0,
    "skull_window_s": 5.0,
    "tie_epsilon_ms": 10,
    "tie_policy": "reroll",
    "only_first_slap_judged": True,
    "penalty_card_choice": "offender",
    "wrong_own_facedown_extra_penalty": False,
    "moon_must_swap_after_looking": True,
    "dice_pass_direction": "counter-clockwise",
}
"""A copy of `saerge_schubsen` in the rules' defaults.json (/work/shared/rules/defaults.json)."""
SHARED_DEFAULTS = Path("/work/shared/rules/defaults.json")

COPIED = ("display_size", "coffins_to_win", "no_slap_timeout_s", "skull_window_s", "tie_epsilon_ms", "tie_policy",
          "only_first_slap_judged", "penalty_card_choice", "wrong_own_facedown_extra_penalty",
          "moon_must_swap_after_looking", "dice_pass_direction")


@pytest.mark.skipif(not SHARED_DEFAULTS.exists(), reason="the shared rules folder is not here")
def test_options_the_copy_of_the_shared_defaults_is_up_to_date() -> None:
    """The values below are checked against the rules' own defaults.json when it is at hand."""
    assert json.loads(SHARED_DEFAULTS.read_text())["saerge_schubsen"] == SAERGE_SCHUBSEN


def test_options_defaults_are_the_rules_proposed_defaults() -> None:
    """Every default equals the `saerge_schubsen` value of defaults.json."""
    options = normalize_options({})
    assert options == DEFAULTS
    for key in COPIED:
        assert options[key] == SAERGE_SCHUBSEN[key], key
    assert options["colour_die"] == SAERGE_SCHUBSEN["colour_die_UNVERIFIED"]
    assert options["symbol_die"] == SAERGE_SCHUBSEN["symbol_die_UNVERIFIED"]
    assert ("both" in options["colour_die"]) is SAERGE_SCHUBSEN["wild_colour_face"]
    extra = "-".join(SAERGE_SCHUBSEN["deck_UNVERIFIED"]["extra_card"])
    per = SAERGE_SCHUBSEN["deck_UNVERIFIED"]["per_combination"]
    assert options["deck"] == {c: per + (c == extra) for c in options["deck"]}
    assert [GARLIC_SLAP.min_seats, GARLIC_SLAP.max_seats] == SAERGE_SCHUBSEN["players"]
    assert options["penalty_choice_timeout_s"] == 10.0, "§3.9: a random card after 10 s"


def test_options_are_normalized_to_plain_values() -> None:
    """Whole numbers are taken for seconds; a tuple of faces becomes a list; the input is not kept."""
    given = {"no_slap_timeout_s": 8, "symbol_die": ("bat", "moon", "skull"), "mode": "physical"}
    options = normalize_options(given)
    assert options["no_slap_timeout_s"] == 8.0 and isinstance(options["no_slap_timeout_s"], float)
    assert options["symbol_die"] == ["bat", "moon", "skull"]
    assert options["mode"] == "physical"
    assert normalize_options(options) == options, "normalizing twice changes nothing"


def deck(**changes: Any) -> dict[str, Any]:
    return {**DEFAULTS["deck"], **changes}


BAD_OPTIONS = [
    ("mode", "cards", "mode"),
    ("mode", None, "mode"),
    ("colour_die", ["yellow"], "colour_die"),
    ("colour_die", ["yellow"] * 13, "colour_die"),
    ("colour_die", ["yellow", "red"], "colour_die"),
    ("colour_die", "yellow violet", "colour_die"),
    ("colour_die", ["!", "!", "!"], "colour_die"),
    ("symbol_die", ["bat", "!"], "symbol_die"),
    ("symbol_die", {"bat": 2}, "symbol_die"),
    ("deck", [7] * 6, "deck"),
    ("deck", {k: v for k, v in DEFAULTS["deck"].items() if k != "yellow-bat"}, "deck"),
    ("deck", deck(**{"green-bat": 7}), "deck"),
    ("deck", deck(**{"yellow-bat": -1}), "deck.yellow-bat"),
    ("deck", deck(**{"violet-moon": True}), "deck.violet-moon"),
    ("deck", deck(**{"yellow-skull": 7.0}), "deck.yellow-skull"),
    ("deck", deck(**{"yellow-skull": 41}), "deck.yellow-skull"),
    ("deck", {k: 3 for k in DEFAULTS["deck"]}, "deck"),
    ("deck", {k: 17 for k in DEFAULTS["deck"]}, "deck"),
    ("deck_counted", "yes", "deck_counted"),
    ("display_size", 4.5, "display_size"),
    ("display_size", 1, "display_size"),
    ("display_size", 7, "display_size"),
    ("display_size", True, "display_size"),
    ("coffins_to_win", 0, "coffins_to_win"),
    ("coffins_to_win", 11, "coffins_to_win"),
    ("no_slap_timeout_s", 2, "no_slap_timeout_s"),
    ("no_slap_timeout_s", "5", "no_slap_timeout_s"),
    ("no_slap_timeout_s", float("nan"), "no_slap_timeout_s"),
    ("skull_window_s", 16, "skull_window_s"),
    ("skull_window_s", float("inf"), "skull_window_s"),
    ("tie_epsilon_ms", -1, "tie_epsilon_ms"),
    ("tie_epsilon_ms", False, "tie_epsilon_ms"),
    ("tie_policy", "coin", "tie_policy"),
    ("false_start", "lockout", "false_start"),
    ("only_first_slap_judged", 1, "only_first_slap_judged"),
    ("penalty_card_choice", "host", "penalty_card_choice"),
    ("penalty_choice_timeout_s", 2, "penalty_choice_timeout_s"),
    ("claim_timeout_s", 301, "claim_timeout_s"),
    ("wrong_own_facedown_extra_penalty", None, "wrong_own_facedown_extra_penalty"),
    ("moon_must_swap_after_looking", "true", "moon_must_swap_after_looking"),
    ("dice_pass_direction", "left", "dice_pass_direction"),
    ("confirm_by", "table", "confirm_by"),
    ("grace_ms", 1001, "grace_ms"),
    ("players", 4, "players"),
]


@pytest.mark.parametrize(("key", "value", "named"), BAD_OPTIONS)
def test_options_every_bad_value_is_refused_with_its_key_named(key: str, value: Any, named: str) -> None:
    """A bad option never reaches the rules: OptionsError names the option (or the deck's entry)."""
    with pytest.raises(OptionsError) as caught:
        normalize_options({key: value})
    assert caught.value.key == named
    assert str(caught.value).startswith(f"{named}: ")


def test_options_a_bigger_display_needs_a_bigger_deck() -> None:
    """The deck must deal a full display to six players: 36 cards for displays of 6."""
    with pytest.raises(OptionsError) as caught:
        normalize_options({"display_size": 6, "deck": {k: 5 for k in DEFAULTS["deck"]}})
    assert caught.value.key == "deck"
    assert normalize_options({"display_size": 6, "deck": {k: 6 for k in DEFAULTS["deck"]}})["display_size"] == 6


def test_options_a_goal_the_deck_cannot_reach_is_refused() -> None:
    """S-S12 must stay reachable: six players each one coffin short of the goal need one more card.
    The 43-card deck allows up to 8 coffins; 9 is refused, naming how many it allows."""
    assert normalize_options({"coffins_to_win": 8})["coffins_to_win"] == 8
    with pytest.raises(OptionsError) as caught:
        normalize_options({"coffins_to_win": 9})
    assert caught.value.key == "coffins_to_win" and "at most 8" in caught.value.problem


# -- deadlines -------------------------------------------------------------------------------

def test_deadline_a_claim_never_made_is_a_penalised_slap() -> None:
    """The first slapper who makes no claim within claim_timeout_s is penalised (no claim, as in
    ambiguity 2), and the dice pass."""
    game = Game(position("[violet-skull] yellow-bat", "violet-moon"))
    game.slap_first("violet", "moon", slapper=1)
    called_at = game.now - STEP_US
    due = deadline(game.state)
    assert due is not None
    assert (due.since_us, due.at_us) == (called_at, called_at + 30_000_000)
    assert due.command == Command("timeout", {"step": game.state.step, "for": "turn"})
    game.time_out()
    assert game.kinds()[0] == "claim_withdrawn" and game.events[0].data["cause"] == "timeout"
    assert game.hand(1) == "violet-skull yellow-bat", "the one coffin is reopened"
    assert game.hand(2) == "violet-moon"
    assert passes_to(game, 2)


@pytest.mark.parametrize("symbol", ["bat", "moon"])
def test_deadline_an_unused_bat_or_moon_passes(symbol: str) -> None:
    """A bat or moon left unused until the timeout passes, unpunished; the dice move on."""
    game = Game(position("[violet-skull] yellow-bat", "[violet-moon] [yellow-moon]"))
    game.slap_first("!", symbol, slapper=1)
    game.time_out()
    assert game.kinds()[0] == "action_passed" and game.events[0].data["cause"] == "timeout"
    assert game.hand(1) == "[violet-skull] yellow-bat" and game.hand(2) == "[violet-moon] [yellow-moon]"
    assert passes_to(game, 2)


def test_deadline_looked_at_moon_cards_are_swapped_when_the_time_runs_out() -> None:
    """Ambiguity 8 with the timeout: cards looked at must be swapped, so the timeout swaps them."""
    game = Game(position("[violet-skull] yellow-bat", "[violet-moon] [yellow-moon]"))
    game.slap_first("!", "moon", slapper=1)
    game.do(seat(1), "moon", a=[2, 0], b=[1, 0], look=True)
    looked_at = game.now - STEP_US
    due = deadline(game.state)
    assert due is not None and due.since_us == looked_at
    game.time_out()
    assert game.hand(1) == "[violet-moon] yellow-bat" and game.hand(2) == "[violet-skull] [yellow-moon]"
    assert passes_to(game, 2)


def test_deadline_looked_at_moon_cards_stay_put_when_swapping_is_optional() -> None:
    """With moon_must_swap_after_looking=false the timeout leaves the looked-at cards in place."""
    game = Game(position("[violet-skull] yellow-bat", "[violet-moon] [yellow-moon]",
                         moon_must_swap_after_looking=False))
    game.slap_first("!", "moon", slapper=1)
    game.do(seat(1), "moon", a=[2, 0], b=[1, 0], look=True)
    game.time_out()
    assert game.hand(1) == "[violet-skull] yellow-bat" and game.hand(2) == "[violet-moon] [yellow-moon]"
    assert passes_to(game, 2)


def test_deadline_a_penalty_not_chosen_in_time_reopens_a_random_coffin() -> None:
    """Ambiguity 5 with the timeout (§3.9): after penalty_choice_timeout_s a coffin is drawn."""
    game = Game(position("[violet-skull] [yellow-bat] [yellow-moon]", "violet-moon"))
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "no_claim")
    owed_at = game.now - STEP_US
    due = deadline(game.state)
    assert due is not None and (due.since_us, due.at_us) == (owed_at, owed_at + 10_000_000)
    assert due.command.args["for"] == "penalty"
    game.time_out(draws=[("penalty card of seat 1", 2)])
    assert game.hand(1) == "[violet-skull] [yellow-bat] yellow-moon"
    assert game.owes() == [] and passes_to(game, 2)


def test_deadline_a_stale_timeout_is_refused() -> None:
    """A timeout names the step it was set at: once anything has happened since, it is refused."""
    game = Game(position("violet-skull", "[violet-moon] [yellow-moon] [yellow-bat] violet-bat",
                         "[yellow-skull] [violet-bat]"))
    game.slap_first("violet", "moon", slapper=2)
    stale = deadline(game.state)
    assert stale is not None
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert game.refuse(SYSTEM, "timeout", **stale.command.args) == "not_now"
    # Two offenders under the skull: one pays, the other's wait goes on under a new step.
    game.roll("!", "skull")
    game.settle((2, 300), (3, 320))
    assert game.owes() == [2, 3]
    both = deadline(game.state)
    assert both is not None
    game.do(seat(2), "reopen", slot=0)
    assert game.refuse(SYSTEM, "timeout", **both.command.args) == "not_now"
    left = deadline(game.state)
    assert left is not None and left.at_us == both.at_us and left.command.args["step"] == game.state.step
    game.time_out(draws=[("penalty card of seat 3", 1)])
    assert game.hand(3) == "[yellow-skull] violet-bat"
    assert game.owes() == [] and game.state.phase == "roll"


def test_deadline_nothing_waits_while_the_dice_or_a_round_are_in_play() -> None:
    """No deadline before a roll or during a reaction round (the round keeper settles it); and only
    the system may send a timeout."""
    game = Game(position("violet-skull", "violet-moon"))
    assert deadline(game.state) is None
    assert game.refuse(SYSTEM, "timeout", step=game.state.step, **{"for": "turn"}) == "not_now"
    game.roll("violet", "moon")
    assert deadline(game.state) is None
    game.settle((2, 300))
    due = deadline(game.state)
    assert due is not None
    assert game.refuse(seat(1), "timeout", **due.command.args) == "not_authorized"
    assert game.refuse(HOST, "timeout", **due.command.args) == "not_authorized"


# -- real cards (mode physical) ----------------------------------------------------------

def physical(*hands: str, **options: Any) -> Game:
    """Real cards: each display as `up`/`down` words; the companion sees no card."""
    state = GARLIC_SLAP.setup(normalize_options({"mode": "physical", **options}), seats(len(hands)), Script())
    players = tuple(replace(p, slots=tuple(Slot(None, w == "up") for w in text.split()))
                    for p, text in zip(state.players, hands, strict=True))
    dealt = sum(len(text.split()) for text in hands)
    return Game(replace(state, players=players, pile=(None,) * (len(state.deck) - dealt)))


def counts(game: Game, who: int) -> tuple[int, int, int]:
    """(face up, coffins, cleared) of a display, all the companion knows with real cards."""
    player = game.state.player(who)
    return len(player.face_up()), len(player.face_down()), len(player.cleared)


def test_physical_cards_are_only_counted() -> None:
    """With real cards the companion deals nothing: it keeps counts, and every card is None."""
    state = GARLIC_SLAP.setup(normalize_options({"mode": "physical"}), seats(3), Script())
    assert all(slot.card is None and slot.up for p in state.players for slot in p.slots)
    assert len(state.pile) == 43 - 12 and set(state.pile) == {None}
    table = GARLIC_SLAP.view(state, TABLE)
    assert table["mode"] == "physical" and table["pile"] == 31
    assert all(s == {"up": True} for p in table["players"] for s in p["slots"])


def test_physical_a_claim_waits_for_the_host_who_judges_it() -> None:
    """Real cards: the claim is judged by the host; a right own face-up claim turns a card down."""
    game = physical("up up down", "up up")
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "claim", kind="own_up")
    assert game.state.phase == "confirm"
    assert game.view(TABLE)["turn"]["claim"] == {"kind": "own_up", "target": 1, "slot": None}
    assert deadline(game.state) is None, "the table waits for the judgement"
    assert game.refuse(seat(2), "judge", right=True) == "host_judges"
    assert game.refuse(seat(1), "claim", kind="own_up") == "not_now"
    game.do(HOST, "judge", right=True)
    assert counts(game, 1) == (1, 2, 0)
    assert passes_to(game, 2)


def test_physical_a_right_own_coffin_claim_clears_it_and_draws_a_refill() -> None:
    """Real cards, S-S5b: cleared + 1, a refill counted from the pile; wrong: the coffin turns up."""
    game = physical("up up up down", "up up")
    pile = len(game.state.pile)
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "claim", kind="own_down")
    game.do(HOST, "judge", right=True)
    assert counts(game, 1) == (4, 0, 1) and len(game.state.pile) == pile - 1
    game = physical("up down down", "up up")
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "claim", kind="own_down")
    game.do(HOST, "judge", right=False)
    assert counts(game, 1) == (2, 1, 0) and game.owes() == []


def test_physical_the_other_phones_judge_by_majority() -> None:
    """Real cards, confirm_by=majority: the other players vote; two of three decide."""
    game = physical("down up", "up up", "up", "up down", confirm_by="majority")
    game.slap_first("violet", "moon", slapper=2)
    assert game.refuse(seat(2), "claim", kind="other_down", seat=3) == "no_face_down_card"
    game.do(seat(2), "claim", kind="other_down", seat=1)
    assert game.refuse(seat(2), "judge", right=True) == "others_judge"
    game.do(seat(1), "judge", right=True)
    assert game.refuse(seat(1), "judge", right=False) == "already_voted"
    assert game.state.phase == "confirm"
    game.do(seat(4), "judge", right=True)
    assert counts(game, 1) == (2, 0, 0), "the checked coffin stays face up (S-S5c)"
    assert game.view(TABLE)["happenings"][1]["kind"] == "judged"
    assert passes_to(game, 4)


def test_physical_a_split_vote_waits_for_the_host() -> None:
    """Real cards, majority: one vote each way out of two is no majority; the host decides."""
    game = physical("up down", "up up", "up", confirm_by="majority")
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "claim", kind="own_up")
    game.do(seat(2), "judge", right=True)
    game.do(seat(3), "judge", right=False)
    assert game.state.phase == "confirm" and game.state.turn["votes"] == {"2": True, "3": False}
    assert deadline(game.state) is None
    assert any(c.name == "judge" for c in GARLIC_SLAP.actions(game.state, HOST))
    game.do(HOST, "judge", right=False)
    assert counts(game, 1) == (2, 0, 0), "a wrong claim: the penalty turns the coffin up"
    assert passes_to(game, 3)


def test_physical_the_moon_swap_is_recorded_without_cards() -> None:
    """Real cards, S-S7: the moon only says which kind of cards were swapped; counts are unchanged,
    and the face-up fallback follows ambiguity 8."""
    game = physical("down down", "up down", "up")
    game.slap_first("!", "moon", slapper=3)
    assert game.refuse(seat(3), "moon", face="up") == "moon_face_down_first"
    assert game.refuse(seat(3), "moon", face="sideways") == "bad_arguments"
    game.do(seat(3), "moon", face="down")
    assert (counts(game, 1), counts(game, 2)) == ((0, 2, 0), (1, 1, 0))
    assert passes_to(game, 3)


def test_physical_a_bat_and_a_penalty_work_on_counts() -> None:
    """Real cards: the bat and the penalty change the counts the table reports."""
    game = physical("up down", "up up")
    game.slap_first("!", "bat", slapper=1)
    game.do(seat(1), "bat", kind="clear")
    assert counts(game, 1) == (2, 0, 1), "cleared and refilled"
    game.roll("!", "skull")
    game.settle((1, 200), (2, 250))
    assert counts(game, 1) == (3, 0, 1) and counts(game, 2) == (3, 0, 0), "no coffin: each drew a card"


# -- views -----------------------------------------------------------------------------------

def coffins_hidden(game: Game, except_for: Viewer | None = None) -> None:
    """No viewer (but `except_for`, looking under a moon) sees a coffin's identity: its slot is a
    bare coffin and its card's name is nowhere in the view."""
    hidden = [(p.seat, i) for p in game.state.players for i in p.face_down()
              if game.state.player(p.seat).slots[i].card not in game.state.shown]
    for viewer in viewers(len(game.state.players)):
        if viewer == except_for:
            continue
        text = json.dumps(game.view(viewer))
        for who, slot in hidden:
            assert game.slot_view(viewer, who, slot) == {"up": False}, (viewer, who, slot)
            assert game.token(who, slot) not in text, f"{viewer} sees seat {who}'s coffin {slot}"


def test_view_a_coffin_never_shows_its_identity_to_anyone_owner_included() -> None:
    """S-S10 and §3.5: nobody, not the owner, the host or the table, sees a coffin, before and
    after every kind of move that touches coffins."""
    game = Game(position("[yellow-bat] violet-moon [violet-skull]", "[yellow-moon] [violet-moon] violet-bat",
                         "[yellow-skull] yellow-moon"))
    coffins_hidden(game)
    for secret in GARLIC_SLAP.secrets(game.state):
        assert not any(secret.visible_to(v) for v in [*viewers(3), SYSTEM])
    assert {s.value for s in GARLIC_SLAP.secrets(game.state)} >= {game.token(1, 0), game.token(2, 1)}
    game.slap_first("violet", "moon", slapper=1)
    game.do(seat(1), "claim", kind="own_up", slot=1)
    coffins_hidden(game)
    game.slap_first("!", "moon", slapper=3)
    game.do(seat(3), "moon", a=[1, 0], b=[2, 1], look=False)
    coffins_hidden(game)
    game.slap_first("!", "bat", slapper=2)
    game.do(seat(2), "bat", kind="clear", slot=1)
    coffins_hidden(game)
    cleared = game.state.player(2).cleared[0].card
    assert cleared is not None
    assert all(game.state.deck[cleared].token not in json.dumps(game.view(v)) for v in viewers(3)), \
        "a coffin the bat cleared was never checked: it stays unknown"


def test_view_a_moon_look_shows_the_two_cards_only_on_the_slappers_screen() -> None:
    """S-S7 and §3.5: the looked-at cards appear in the slapper's seat view, nowhere else, and only
    while they look."""
    game = Game(position("[yellow-bat] violet-moon", "[yellow-moon] [violet-skull]", "[yellow-skull] yellow-moon"))
    game.slap_first("!", "moon", slapper=3)
    game.do(seat(3), "moon", a=[1, 0], b=[3, 0], look=True)
    mine = game.view(seat(3))
    assert mine["looking"] == [game.card_json(1, 0), game.card_json(3, 0)]
    assert mine["players"][0]["slots"][0] == {"up": False}, "the display itself still shows a coffin"
    coffins_hidden(game, except_for=seat(3))
    for viewer in (TABLE, HOST, seat(1), seat(2)):
        assert "looking" not in game.view(viewer)
    secrets = {s.value: s for s in GARLIC_SLAP.secrets(game.state)}
    assert secrets[game.token(1, 0)].visible_to(seat(3)) and not secrets[game.token(1, 0)].visible_to(seat(1))
    game.do(seat(3), "swap")
    assert "looking" not in game.view(seat(3))
    coffins_hidden(game)


def test_view_a_wrong_check_of_another_players_coffin_shows_it_to_everyone_until_the_next_roll() -> None:
    """S-S5c: the checked coffin was flipped in front of everyone: every screen shows it until the
    next roll, then it is a coffin again."""
    game = Game(position("[yellow-bat] yellow-skull", "[violet-bat] [yellow-skull]", "violet-moon"))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="other_down", seat=1, slot=0)
    shown = {"up": False, "shown": game.card_json(1, 0)}
    for viewer in viewers(3):
        assert game.slot_view(viewer, 1, 0) == shown
    game.do(seat(2), "reopen", slot=1)
    assert game.state.phase == "roll" and game.slot_view(seat(1), 1, 0) == shown
    game.roll("yellow", "bat")
    for viewer in viewers(3):
        assert game.slot_view(viewer, 1, 0) == {"up": False}
    coffins_hidden(game)


def test_view_at_game_over_every_coffin_is_revealed() -> None:
    """§3.5: the end of the game turns every coffin over for everyone, bat-cleared ones included."""
    game = Game(position("[yellow-bat] violet-moon", "[violet-moon] [yellow-skull] yellow-bat", pile="yellow-moon"))
    three = (Cleared(40, checked=False), Cleared(41, checked=True), Cleared(42, checked=True))
    game.state = replace(game.state, players=(game.state.players[0], replace(game.state.player(2), cleared=three)))
    game.slap_first("violet", "moon", slapper=2)
    game.do(seat(2), "claim", kind="own_down", slot=0)
    assert is_over(game.state)
    for viewer in viewers(2):
        view = game.view(viewer)
        assert view["players"][0]["slots"][0] == {"up": False, "revealed": game.card_json(1, 0)}
        assert view["players"][1]["slots"][0] == {"up": False, "revealed": game.card_json(2, 0)}
        assert view["players"][1]["cleared"][0] == {"checked": False, **game.state.deck[40].to_json()}
    assert GARLIC_SLAP.secrets(game.state) == []


def test_view_the_pile_is_a_number() -> None:
    """§3.5: nobody knows the draw pile: views show how many cards it holds, never which."""
    game = Game(position("yellow-bat", "violet-bat", pile="violet-moon yellow-skull"))
    for viewer in viewers(2):
        view = game.view(viewer)
        assert view["pile"] == 2
        assert all(game.state.deck[n].token not in json.dumps(view) for n in game.state.pile if n is not None)


# -- describe --------------------------------------------------------------------------------

COFFIN_EVENTS = ("card_checked", "card_turned_down", "card_cleared", "moon_looked")
"""Events about a card that is (or was just) a coffin, whose log line must not name it."""


def coffin_lines_are_silent(state: GarlicState, events: Sequence[Event]) -> int:
    """Check every coffin event's log line in both languages; returns how many were checked."""
    checked = 0
    for event in events:
        if event.type not in COFFIN_EVENTS:
            continue
        numbers = event.data.get("cards") or [event.data.get("card")]
        cards = [state.deck[n] for n in numbers if n is not None]
        for lang in ("en", "fr"):
            line = GARLIC_SLAP.describe(event, lang)
            for card in cards:
                for word in (card.colour, card.symbol, card.token, "jaune", "lune", "crâne", "chauve-souris"):
                    assert word not in line, f"{event.type} names {word!r}: {line!r}"
        checked += 1
    return checked


def test_describe_never_names_a_coffins_colour_or_symbol() -> None:
    """A log line says who did what, never which card a coffin is (checks, flips, clears, looks)."""
    game = Game(position("[yellow-bat] violet-moon", "[violet-moon] [yellow-skull] yellow-bat", "[violet-bat]"))
    told: list[Event] = []
    game.slap_first("violet", "moon", slapper=2)
    told += game.do(seat(2), "claim", kind="own_down", slot=0)
    game.slap_first("violet", "moon", slapper=1)
    told += game.do(seat(1), "claim", kind="own_up", slot=1)
    game.slap_first("!", "moon", slapper=3)
    told += game.do(seat(3), "moon", a=[1, 0], b=[2, 0], look=True)
    told += game.do(seat(3), "swap")
    game.slap_first("!", "bat", slapper=2)
    told += game.do(seat(2), "bat", kind="clear", slot=0)
    game.slap_first("yellow", "moon", slapper=3)
    told += game.do(seat(3), "claim", kind="other_down", seat=1, slot=0)
    assert coffin_lines_are_silent(game.state, told) == 6
    checked = next(e for e in told if e.type == "card_checked")
    assert GARLIC_SLAP.describe(checked, "en") == "seat 2's coffin checked: right"


def test_describe_stays_silent_about_coffins_over_a_whole_random_game() -> None:
    """Every coffin line of a complete random game (companion/sim/players/garlic.py) keeps its card unnamed,
    and every event has a line of its own."""
    played = play_game(3, {}, seed=11)
    assert coffin_lines_are_silent(played.state, played.events) > 10
    for event in played.events:
        assert GARLIC_SLAP.describe(event, "en") != event.type, f"no line for {event.type}"


# -- validate --------------------------------------------------------------------------------

def claim_phase() -> Game:
    """Seat 2 has slapped first on a violet moon; seat 1 holds a coffin."""
    game = Game(position("[yellow-bat] violet-moon", "violet-moon [yellow-skull]", "yellow-moon"))
    game.slap_first("violet", "moon", slapper=2)
    return game


def test_validate_refuses_the_wrong_player_or_the_wrong_moment() -> None:
    """Only the first slapper acts; commands out of their phase are refused, each with its code."""
    game = claim_phase()
    refusal = game.refusal(seat(1), "claim", kind="own_up", slot=1)
    assert (refusal.code, refusal.params) == ("not_first_slapper", {"name": "Ben"})
    assert game.refuse(HOST, "claim", kind="own_up", slot=0) == "not_first_slapper"
    assert game.refuse(TABLE, "no_claim") == "not_first_slapper"
    assert game.refuse(seat(2), "bat", kind="clear", slot=1) == "not_now"
    assert game.refuse(seat(2), "moon", a=[1, 0], b=[2, 1]) == "not_now"
    assert game.refuse(seat(2), "swap") == "not_now"
    assert game.refuse(seat(2), "pass") == "not_now"
    assert game.refuse(seat(2), "roll") == "dice_in_play"
    assert game.refuse(seat(2), "reopen", slot=1) == "no_penalty_due"
    assert game.refuse(HOST, "judge", right=True) == "nothing_to_judge"
    assert game.refuse(SYSTEM, "settle", round=1, decision={}) == "no_round"
    assert game.refuse(seat(2), "settle", round=1, decision={}) == "not_authorized"
    assert game.refuse(seat(7), "claim", kind="own_up", slot=0) == "not_seated"
    refusal = game.refusal(seat(2), "slap_harder")
    assert (refusal.code, refusal.params) == ("unknown_command", {"command": "slap_harder"})
    game.do(seat(2), "claim", kind="own_up", slot=0)
    assert game.state.phase == "roll"
    assert game.refuse(seat(2), "claim", kind="own_up", slot=0) == "not_now"
    game.roll("yellow", "moon")
    assert game.refuse(seat(2), "claim", kind="own_up", slot=0) == "not_now", "nobody has slapped yet"
    assert game.refuse(seat(2), "no_claim") == "not_now"


@pytest.mark.parametrize(("args", "code"), [
    ({"kind": "own_left"}, "bad_arguments"),
    ({"kind": "own_up"}, "bad_card"),
    ({"kind": "own_up", "slot": 2}, "bad_card"),
    ({"kind": "own_up", "slot": -1}, "bad_card"),
    ({"kind": "own_up", "slot": "0"}, "bad_card"),
    ({"kind": "own_up", "slot": False}, "bad_card"),
    ({"kind": "own_down", "slot": True}, "bad_card"),
    ({"kind": "own_up", "slot": 1}, "card_face_down"),
    ({"kind": "own_down", "slot": 0}, "card_face_up"),
    ({"kind": "other_down", "seat": True, "slot": 0}, "choose_other_player"),
    ({"kind": "other_down", "seat": 2, "slot": 1}, "choose_other_player"),
    ({"kind": "other_down", "seat": 9, "slot": 0}, "choose_other_player"),
    ({"kind": "other_down", "seat": "1", "slot": 0}, "choose_other_player"),
    ({"kind": "other_down", "slot": 0}, "choose_other_player"),
    ({"kind": "other_down", "seat": 1, "slot": 1}, "card_face_up"),
    ({"kind": "other_down", "seat": 3, "slot": 0}, "card_face_up"),
    ({"kind": "other_down", "seat": 1, "slot": 5}, "bad_card"),
])
def test_validate_refuses_a_claim_on_a_bad_card(args: dict[str, Any], code: str) -> None:
    """A claim must name a card of the right side in the right display; a bool is never a seat or
    a slot (True would otherwise pass for seat or slot 1)."""
    assert claim_phase().refuse(seat(2), "claim", **args) == code


def test_validate_refuses_bad_bat_and_moon_choices() -> None:
    """S-S6 and S-S7 choices name real cards on the right side; anything else is refused."""
    game = Game(position("[yellow-bat] violet-moon [yellow-moon]", "violet-moon [yellow-skull]", "yellow-moon"))
    game.slap_first("!", "bat", slapper=2)
    assert game.refuse(seat(2), "bat", kind="fly", slot=0) == "bad_arguments"
    assert game.refuse(seat(2), "bat", kind="clear", slot=0) == "card_face_up"
    assert game.refuse(seat(2), "bat", kind="turn_down", slot=1) == "card_face_down"
    assert game.refuse(seat(2), "bat", kind="turn_up", seat=True, slot=0) == "choose_other_player"
    assert game.refuse(seat(2), "claim", kind="own_up", slot=0) == "not_now"
    game.do(seat(2), "pass")
    game.slap_first("!", "moon", slapper=2)
    assert game.refuse(seat(2), "moon", a=[1, 0], b=[1, 0]) == "bad_card"
    assert game.refuse(seat(2), "moon", a=[True, 0], b=[2, 1]) == "bad_card"
    assert game.refuse(seat(2), "moon", a=[1, 0], b=[2, 9]) == "bad_card"
    assert game.refuse(seat(2), "moon", a=[1, 0], b=2) == "bad_card"
    assert game.refuse(seat(2), "moon", a=[1, 0, 0], b=[2, 1]) == "bad_card"
    assert game.refuse(seat(2), "moon", a=[1, 0], b=[2, 0]) == "moon_same_side"
    assert game.refuse(seat(2), "moon", a=[1, 1], b=[2, 0]) == "moon_face_down_first"
    assert game.refuse(seat(2), "keep") == "not_now"
    assert game.refuse(seat(1), "moon", a=[1, 0], b=[2, 1]) == "not_first_slapper"


def test_validate_refuses_looking_at_face_up_cards() -> None:
    """S-S7: a look is for coffins; face-up cards are already public."""
    game = Game(position("yellow-bat", "violet-moon", "[violet-skull]"))
    game.slap_first("!", "moon", slapper=3)
    assert game.refuse(seat(3), "moon", a=[1, 0], b=[2, 0], look=True) == "moon_look_face_down"


def test_validate_refuses_a_bad_reopen_or_judgement() -> None:
    """A penalty reopens one of the offender's coffins; a judgement is a true or false verdict."""
    game = Game(position("[yellow-bat] violet-moon [yellow-moon]", "violet-bat"))
    game.slap_first("violet", "skull", slapper=1)
    game.do(seat(1), "no_claim")
    assert game.refuse(seat(1), "reopen", slot=7) == "bad_card"
    assert game.refuse(seat(1), "reopen", slot=True) == "bad_card"
    assert game.refuse(seat(1), "reopen") == "bad_card"
    assert game.refuse(HOST, "reopen", slot=0) == "no_penalty_due"
    assert game.refuse(seat(1), "roll") == "dice_in_play"
    real = physical("up down", "up")
    real.slap_first("violet", "moon", slapper=1)
    real.do(seat(1), "claim", kind="own_up")
    assert real.refuse(HOST, "judge", right="yes") == "bad_arguments"
    assert real.refuse(HOST, "judge") == "bad_arguments"


def test_validate_refuses_a_bool_for_a_round_or_a_step() -> None:
    """A system command names its round or step by number; True is not round 1 or step n."""
    game = Game(position("yellow-bat", "violet-bat"))
    game.roll("violet", "moon")
    assert game.state.round == 1
    assert game.refuse(SYSTEM, "settle", round=True, decision={"order": []}) == "no_round"
    assert game.refuse(SYSTEM, "settle", round=1, decision=[]) == "no_round"
    game.settle((2, 300))
    game.state = replace(game.state, step=1)
    assert deadline(game.state) is not None
    assert game.refuse(SYSTEM, "timeout", step=True, **{"for": "turn"}) == "not_now"


@pytest.mark.parametrize(("colour", "symbol"), [("violet", "moon"), ("!", "skull")])
def test_the_sample_decisions_say_their_winner_as_their_commands_name_it(colour: str, symbol: str) -> None:
    """A random player looks for the decisions won by some seats without making every one of them."""
    game = Game(position("yellow-bat", "yellow-moon", "violet-moon"))
    game.roll(colour, symbol, by=seat(2))
    decisions = SampleDecisions(game.state)
    for index in range(len(decisions)):
        named = decisions[index].args["decision"]["winner"]
        assert decisions.winner(index) == (None if named is None else int(named.removeprefix("seat:")))
