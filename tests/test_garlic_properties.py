"""Property tests for the garlic-slap rules (rules/garlic-slap.md, S-S1..S-S12).

Nearly two thousand random complete games, on the pure rules (companion/sim/players/garlic.py): random dice,
random slappers (through the buzzers' referee), random claims, with the table's options varied.
Every game must end with one winner, keep the rules' invariants after every single event, keep
every coffin secret from every screen (its owner's included), and be replayable from its log. The
games are split into chunks so that `pytest -n 2` spreads them; the file takes about 75 s of CPU.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, GameDefinition, Rejection, Viewer, seat
from companion.games.garlic import GARLIC_SLAP
from companion.games.garlic.options import COMBINATIONS, FALSE_STARTS, PENALTY_CHOICES, TIE_POLICIES
from companion.games.garlic.state import GarlicState
from companion.sim.players.garlic import Played, new_game, play_game
from tests.support.leak import play, serialized
from tests.support.replay_check import assert_replays

BUDGET = 5_000
"""Commands a game may take before it counts as never ending (the longest here takes 1,131)."""


# -- the games --------------------------------------------------------------------------------

def random_table(seed: int, mode: str) -> tuple[int, dict[str, Any]]:
    """Players and options for one game: the defaults a third of the time, else varied choices."""
    rnd = random.Random(f"garlic table {seed}")
    players = rnd.randint(2, 6)
    options: dict[str, Any] = {"mode": mode}
    if rnd.random() < 1 / 3:
        return players, options
    options.update(
        tie_policy=rnd.choice(TIE_POLICIES),
        false_start=rnd.choice(FALSE_STARTS),
        penalty_card_choice=rnd.choice(PENALTY_CHOICES),
        only_first_slap_judged=rnd.random() < 0.5,
        moon_must_swap_after_looking=rnd.random() < 0.5,
        wrong_own_facedown_extra_penalty=rnd.random() < 0.3,
        dice_pass_direction=rnd.choice(["counter-clockwise"] * 3 + ["clockwise"]),
        confirm_by=rnd.choice(["host", "majority"]),
        coffins_to_win=rnd.choice([1, 2, 3, 4, 4, 4, 5]),
    )
    size = 4
    if rnd.random() < 0.2:
        size = options["display_size"] = rnd.choice([3, 5])
    if rnd.random() < 0.3:
        # Either colour wins on the mixed face (the unconfirmed die of one review).
        options["colour_die"] = rnd.choice([["yellow", "yellow", "violet", "violet", "!", "both"],
                                            ["yellow", "violet", "both", "!"]])
    if rnd.random() < 0.3:
        # A deck the owner counted: other counts, sometimes so few cards that the pile starts empty.
        total = rnd.randint(size * 6, 60)
        counts = Counter(rnd.choice(COMBINATIONS) for _ in range(total))
        options["deck"] = {c: counts[c] for c in COMBINATIONS}
        options["deck_counted"] = True
    # The goal must be reachable: a player holds `size` cards plus what they draw, and draws need a
    # pile (an unreachable goal is a game nobody can win; the host then ends it).
    pile = sum(options.get("deck", {"": 43}).values()) - players * size
    if options["coffins_to_win"] > size and pile < players * (options["coffins_to_win"] - size):
        options["coffins_to_win"] = size
    return players, options


# -- invariants after every event -------------------------------------------------------------

def counter_clockwise(state: GarlicState, seat_number: int) -> int:
    """Who gets the dice next, worked out here rather than by the rules: seats are numbered
    clockwise, so counter-clockwise is the previous number, wrapping (clockwise when the table
    chose that)."""
    numbers = sorted(p.seat for p in state.players)
    step = 1 if state.options["dice_pass_direction"] == "clockwise" else -1
    return numbers[(numbers.index(seat_number) + step) % len(numbers)]


@dataclass
class Invariants:
    """Checks the rules' invariants after every event of one game (`play_game`'s `check`)."""

    prev: GarlicState | None = None
    events: int = 0
    refill_due: int | None = None
    """The seat whose clear left it below the display size with cards in the pile: it refills next."""
    penalty_draw_due: int | None = None
    reopened: int | None = None
    """The seat that has just turned a coffin up to pay a penalty: the payment follows at once."""
    win_due: int | None = None
    """The seat whose clear reached the goal: the win follows at once."""
    next_roller: int | None = None
    handed_on: bool = True
    """The dice passed or were kept since the last roll."""
    seen: Counter[str] = field(default_factory=Counter)
    """Situations reached, for the coverage assertions."""

    def __call__(self, state: GarlicState, event: Event | None) -> None:
        prev = self.prev
        if event is None:
            self.start(state)
        else:
            assert prev is not None
            self.events += 1
            self.seen[event.type] += 1
            self.step(prev, state, event)
        # What held before still holds when what it is about did not change (the same objects).
        if prev is None or state.players is not prev.players or state.pile is not prev.pile \
                or state.shown is not prev.shown:
            self.cards(state)
        if prev is None or state.players is not prev.players or state.penalties is not prev.penalties \
                or (state.phase, state.winner, state.roller, state.round) != (prev.phase, prev.winner, prev.roller,
                                                                              prev.round):
            self.always(state)
        self.prev = state

    def start(self, state: GarlicState) -> None:
        size = state.options["display_size"]
        assert state.step == 0 and state.phase == "roll" and state.roller is None and state.winner is None
        assert all(len(p.slots) == size and all(s.up for s in p.slots) for p in state.players), "S-S1: dealt face up"
        assert len(state.pile) == len(state.deck) - size * len(state.players)
        assert len(state.deck) == sum(state.options["deck"].values())

    def cards(self, state: GarlicState) -> None:
        options = state.options
        deck = len(state.deck)
        # Cards are conserved across the pile, the displays and the cleared coffins.
        cards = list(state.pile)
        for player in state.players:
            cards += [s.card for s in player.slots]
            cards += [c.card for c in player.cleared]
        assert len(cards) == deck, f"{len(cards)} cards in play, the deck has {deck}"
        if state.physical:
            assert all(card is None for card in cards), "real cards are never seen"
        else:
            assert sorted(cards) == list(range(deck)), "every card exactly once"  # type: ignore[type-var]
            assert all(not state.player(s).slots[i].up for s, i in self.places(state, state.shown)), \
                "only coffins are shown after a check"
        # No display below the size while the pile has cards, except between a clear and its refill
        # (and the winner's, whose last clear ends the game before any refill).
        if state.pile and self.refill_due is None:
            short = [p.seat for p in state.players if len(p.slots) < options["display_size"]
                     and p.seat != self.win_due]
            assert not short, f"seats {short} hold fewer than {options['display_size']} cards, the pile has cards"

    def always(self, state: GarlicState) -> None:
        # One winner at most, the moment the goal is reached.
        goal = state.options["coffins_to_win"]
        done = [p.seat for p in state.players if len(p.cleared) >= goal]
        assert all(len(p.cleared) <= goal for p in state.players)
        assert (state.phase == "over") == (state.winner is not None)
        if state.phase == "over":
            assert done == [state.winner] and not state.penalties
        else:
            assert done == ([] if self.win_due is None else [self.win_due])
        assert all(state.seated(p.seat) for p in state.penalties), "a penalty for someone not playing"
        # After the first roll the dice are always in a seated player's hand.
        assert state.roller is None or state.seated(state.roller)
        assert (state.roller is None) == (state.round == 0)

    def settled(self, state: GarlicState) -> None:
        """After a command's last event, when the table waits for someone: a penalty waits only for
        a player with a coffin to turn up for it (S-S9), or nobody could ever pay it."""
        for offender in {p.seat for p in state.penalties}:
            assert state.player(offender).face_down(), f"seat {offender} owes a penalty, and has no coffin"
            self.seen["penalty_owed"] += 1

    def cards_turned(self, prev: GarlicState, state: GarlicState, event: Event) -> None:
        """Turns, swaps and checks do what the rules say, worked out here from the cards."""
        data = event.data
        kind = event.type
        if kind in ("card_turned_down", "card_turned_up"):
            down = kind == "card_turned_down"
            before = prev.player(data["seat"]).slots[data["slot"]]
            after = state.player(data["seat"]).slots[data["slot"]]
            assert before.up == down and after.up != down and before.card == after.card == data["card"]
            if down:  # S-S5a, S-S6: one's own face-up card
                assert data["seat"] == prev.turn.get("seat")
        elif kind == "cards_swapped":
            # S-S7: two coffins; face-up cards of two players only when the others (not the
            # slapper) have fewer than two coffins (ambiguity 8).
            if data["face"] == "up":
                assert sum(len(p.face_down()) for p in prev.players if p.seat != data["by"]) < 2
            if data["a"] is None:  # real cards: the table swaps them
                assert [len(p.face_down()) for p in state.players] == [len(p.face_down()) for p in prev.players]
                return
            (sa, ia), (sb, ib) = data["a"], data["b"]
            a, b = prev.player(sa).slots[ia], prev.player(sb).slots[ib]
            assert a.up == b.up == (data["face"] == "up") and (sa != sb or data["face"] == "down")
            assert state.player(sa).slots[ia] == b and state.player(sb).slots[ib] == a
        elif kind == "card_checked":
            # S-S5: the card shows the dice's colour (either, on the two-colour face) and symbol.
            dice, card = prev.dice, prev.deck[data["card"]]
            assert dice is not None and prev.player(data["seat"]).slots[data["slot"]].card == card.number
            right = dice.colour != "!" and card.symbol == dice.symbol and dice.colour in ("both", card.colour)
            assert data["right"] == right
            self.seen["check_right" if right else "check_wrong"] += 1

    @staticmethod
    def places(state: GarlicState, numbers: frozenset[int]) -> list[tuple[int, int]]:
        return [(p.seat, i) for p in state.players for i, s in enumerate(p.slots) if s.card in numbers]

    def step(self, prev: GarlicState, state: GarlicState, event: Event) -> None:
        data = event.data
        kind = event.type
        assert prev.phase != "over", f"{kind} after the game ended"
        assert state.step == prev.step + 1, "step counts events"
        size = state.options["display_size"]
        moved = state.players is not prev.players
        before = {p.seat: len(p.slots) for p in prev.players} if moved else {}
        after = {p.seat: len(p.slots) for p in state.players} if moved else {}
        changed = {s for s in after if after[s] != before[s]}

        # A display changes size only by a clear (one fewer) or a draw (one more); a moon swap,
        # a turn or a penalty paid by reopening never changes a count.
        if kind == "card_cleared":
            who, slot = data["seat"], data["slot"]
            gone = prev.player(who).slots[slot]
            assert not gone.up, "only a coffin is cleared"
            assert changed == {who} and after[who] == before[who] - 1
            cleared = state.player(who).cleared
            assert len(cleared) == len(prev.player(who).cleared) + 1
            assert cleared[-1].card == gone.card == data["card"] and cleared[-1].checked == data["checked"]
            assert self.refill_due is None and self.win_due is None
            if len(cleared) == state.options["coffins_to_win"]:
                self.win_due = who  # S-S12: the game ends at once, without the refill
            elif after[who] < size and state.pile:
                self.refill_due = who  # S-S5b: refill only below the display size
            self.seen["refill_needed" if self.refill_due else "no_refill_needed"] += 1
        elif kind == "card_drawn":
            who = data["seat"]
            assert changed == {who} and after[who] == before[who] + 1
            assert state.pile == prev.pile[1:] and prev.pile, "a draw takes the pile's top card"
            assert state.player(who).slots[-1].up and state.player(who).slots[-1].card == prev.pile[0] \
                == data["card"], "a drawn card joins the display face up"
            if data["cause"] == "refill":
                assert self.refill_due == who, "a refill follows a clear that left the display short"
                self.refill_due = None
            else:
                assert data["cause"] == "penalty" and self.refill_due is None
                assert not prev.player(who).face_down(), "S-S9: a penalty draws only without a coffin"
                self.penalty_draw_due = who
        else:
            assert self.refill_due is None, f"{kind} came between a clear and its refill"
            assert not changed, f"{kind} changed the size of seat {changed}'s display"
            assert state.pile == prev.pile, f"{kind} changed the pile"

        # Cleared coffins never come back.
        for player, old in zip(state.players, prev.players, strict=True) if moved else ():
            assert player.seat == old.seat
            assert player.cleared[:len(old.cleared)] == old.cleared
            if kind != "card_cleared" or player.seat != data["seat"]:
                assert len(player.cleared) == len(old.cleared)

        self.cards_turned(prev, state, event)
        if kind == "penalty_paid":
            # A payment settles the offender's earliest penalty if they owe one (never another's,
            # never one of another reason): no penalty is ever forgiven.
            owed_before = [p for p in prev.penalties if p.seat == data["seat"]]
            owed_after = [p for p in state.penalties if p.seat == data["seat"]]
            if data.get("chosen"):
                assert owed_before and owed_before[0].reason == data["reason"], \
                    f"seat {data['seat']} paid an owed {data['reason']} penalty, owing {owed_before}"
                assert owed_after == owed_before[1:]
            else:
                assert owed_after == owed_before, f"a penalty paid on the spot cancelled {owed_before}"
            assert [p for p in state.penalties if p.seat != data["seat"]] == \
                [p for p in prev.penalties if p.seat != data["seat"]]
            down_before = prev.player(data["seat"]).face_down()
            if data["how"] == "drew":
                assert self.penalty_draw_due == data["seat"]
            elif data["how"] == "void":
                assert not prev.pile and not down_before, "S-S11: only an empty pile voids a penalty"
                self.seen["penalty_void"] += 1
            else:
                assert data["how"] == "reopened" and self.reopened == data["seat"]
                assert prev.player(data["seat"]).slots[data["slot"]].up
            self.penalty_draw_due = self.reopened = None
        else:
            assert self.penalty_draw_due is None or kind == "card_drawn", "a penalty's draw pays it"
            assert self.reopened is None, "a coffin turned up for a penalty pays it"
            if kind == "card_turned_up" and data["cause"] == "penalty":
                self.reopened = data["seat"]

        if kind == "game_won":
            assert data["seat"] == self.win_due, "the game ends when someone clears the last coffin"
            assert state.winner == data["seat"] and state.phase == "over"
        elif self.win_due is not None:
            assert kind == "card_cleared", f"{kind} came between the winning clear and the win"

        # The dice.
        if kind == "dice_rolled":
            assert self.handed_on, "the dice were rolled twice without passing"
            if self.next_roller is not None:
                assert data["roller"] == self.next_roller, "the dice go to the next roller"
            assert state.roller == data["roller"]
            self.handed_on = False
            assert state.options["colour_die"][data["colour_face"]] == data["colour"]
            assert state.options["symbol_die"][data["symbol_face"]] == data["symbol"]
        elif kind == "dice_passed":
            assert not self.handed_on and prev.roller is not None
            assert data["from"] == prev.roller and data["to"] == counter_clockwise(state, prev.roller)
            self.next_roller = data["to"]
            self.handed_on = True
        elif kind == "dice_kept":
            assert not self.handed_on
            assert state.options["tie_policy"] == "reroll" and state.result is not None \
                and state.result["outcome"] == "tie", "the same roller rolls again only after a tie"
            assert data["roller"] == prev.roller
            self.next_roller = prev.roller
            self.handed_on = True
        else:
            assert state.roller == prev.roller
        if kind == "round_settled":
            self.seen[f"outcome:{data['outcome']}"] += 1
        elif kind in ("claim_made", "bat_chosen"):
            self.seen[f"{kind}:{data['kind']}"] += 1
        elif kind in ("card_drawn", "card_turned_up", "action_passed"):
            self.seen[f"{kind}:{data['cause']}"] += 1
        elif kind == "cards_swapped":
            self.seen[f"swapped:{data['face']}"] += 1


# -- secrets after every event ----------------------------------------------------------------

@dataclass
class Leak:
    step: int
    viewer: str
    value: str
    description: str


@dataclass
class SecretWatch:
    """After every event, renders every viewer's view as the wire carries it and looks for each
    secret that viewer may not know."""

    definition: GameDefinition[GarlicState] = GARLIC_SLAP
    viewers: tuple[Viewer, ...] = ()
    views: int = 0
    states: int = 0
    secrets: int = 0
    leaks: list[Leak] = field(default_factory=list)
    finders: dict[frozenset[str], re.Pattern[str]] = field(default_factory=dict)

    def __call__(self, state: GarlicState, event: Event | None) -> None:
        if not self.viewers:
            self.viewers = (TABLE, HOST, *(seat(p.seat) for p in state.players))
        secrets = self.definition.secrets(state)
        self.states += 1
        self.secrets += len(secrets)
        values = {s.value for s in secrets}
        shaped = all(map(_card_shaped, values))
        finder = None if shaped else self.finder(frozenset(values))
        bodies: dict[int, tuple[dict[str, Any], set[str]]] = {}
        for viewer in self.viewers:
            view = self.definition.view(state, viewer)
            self.views += 1
            # Viewers who get the very same object get the same bytes: serialize it once.
            if id(view) not in bodies:
                body = serialized(view)
                present = set()
                if shaped:
                    present = values.intersection(CARD_SHAPE.findall(body))
                elif finder is not None and finder.search(body):
                    present = {s.value for s in secrets if s.value in body}
                bodies[id(view)] = (view, present)
            present = bodies[id(view)][1]
            if not present:
                continue
            for secret in secrets:
                if secret.value in present and not secret.visible_to(viewer):
                    self.leaks.append(Leak(state.step, str(viewer), secret.value, secret.description))

    def finder(self, values: frozenset[str]) -> re.Pattern[str] | None:
        """One pattern that finds any of these values: a body it finds nothing in holds none of
        them (where it finds something, each value is then looked for on its own)."""
        if not values:
            return None
        if values not in self.finders:
            if len(self.finders) > 500:
                self.finders.clear()
            self.finders[values] = re.compile("|".join(re.escape(v) for v in sorted(values)))
        return self.finders[values]


CARD_SHAPE = re.compile(r"card-\d\d")
"""A card's token when the deck has fewer than 100 cards. Two occurrences never overlap ("card-"
holds neither "c" again nor a digit), so the texts of this shape found in a body are exactly the
ones it holds: the secrets in a body are found in one pass instead of one pattern per set of secrets."""


@functools.lru_cache(maxsize=1024)
def _card_shaped(value: str) -> bool:
    return CARD_SHAPE.fullmatch(value) is not None


def own_coffins_are_secret(state: GarlicState, event: Event | None) -> None:
    """Each coffin's identity is a secret nobody may see (S-S10: not even its owner), except the
    two cards a moon slapper looks at, which the slapper alone may see."""
    if state.physical or state.phase == "over":
        return
    by_value: dict[str, list[Callable[[Viewer], bool]]] = {}
    for secret in GARLIC_SLAP.secrets(state):
        by_value.setdefault(secret.value, []).append(secret.visible_to)
    looking: set[tuple[int, int]] = set()
    if state.phase == "moon_look":
        looking = {(where[0], where[1]) for where in (state.turn["a"], state.turn["b"])}
    for player in state.players:
        for index, slot in enumerate(player.slots):
            card = state.card(slot.card)
            assert card is not None
            if slot.up or card.number in state.shown:
                assert card.token not in by_value, f"{card.token} is on show, not a secret"
                continue
            checks = by_value.get(card.token)
            assert checks, f"seat {player.seat}'s coffin {card.token} is not among the secrets"
            for viewer in (TABLE, HOST, *(seat(p.seat) for p in state.players)):
                allowed = (viewer.kind == "seat" and (player.seat, index) in looking
                           and viewer.seat == state.turn["seat"])
                assert all(check(viewer) == allowed for check in checks), \
                    f"{card.token} (seat {player.seat}'s coffin) visible to {viewer}: {not allowed}"
        for item in player.cleared:  # a bat clears a coffin unseen (S-S6)
            if not item.checked:
                assert item.card is not None
                checks = by_value.get(state.deck[item.card].token, [])
                assert checks and not any(check(v) for check in checks for v in (TABLE, HOST, seat(player.seat)))
    for number in state.pile:
        assert number is not None
        assert state.deck[number].token in by_value, "the pile is secret"


# -- 1 and 2: complete games keep the invariants -------------------------------------------------

CHUNKS = 8
QUICK_FIRST = [0, *(pytest.param(c, marks=pytest.mark.slow) for c in range(1, CHUNKS))]
"""The first chunk in the quick loop, every chunk in the full suite."""
GAMES_PER_CHUNK = 260


@dataclass
class Tally:
    """What a test's games came to, and the checks every finished game passes."""

    games: int = 0
    commands: int = 0
    events: int = 0
    longest: int = 0
    seen: Counter[str] = field(default_factory=Counter)
    options: Counter[str] = field(default_factory=Counter)

    def add(self, played: Played, invariants: Invariants, players: int, options: Mapping[str, Any]) -> None:
        state = played.state
        assert played.commands < BUDGET, f"no winner after {played.commands} commands"
        assert state.phase == "over" and state.winner is not None
        winner = state.player(state.winner)
        assert len(winner.cleared) == state.options["coffins_to_win"]
        assert invariants.events == len(played.events) == state.step
        # Nothing can be done once the game is over.
        for viewer in (TABLE, HOST, SYSTEM, *(seat(n) for n in range(1, players + 1))):
            assert all(GARLIC_SLAP.validate(state, viewer, c) is not None for c in GARLIC_SLAP.actions(state, viewer))
        self.games += 1
        self.commands += played.commands
        self.events += len(played.events)
        self.longest = max(self.longest, played.commands)
        self.seen.update(invariants.seen)
        self.options.update(f"{key}={json.dumps(value)}" for key, value in options.items() if key != "deck")
        self.options[f"players={players}"] += 1


def play_checked(seed: int, mode: str, tally: Tally, *extra: Callable[[GarlicState, Event | None], None]) -> Played:
    players, options = random_table(seed, mode)
    invariants = Invariants()

    def check(state: GarlicState, event: Event | None) -> None:
        invariants(state, event)
        for more in extra:
            more(state, event)

    played = play_game(players, options, seed, check=check, settled=invariants.settled, max_commands=BUDGET,
                       memory=random.Random(seed).uniform(0.6, 0.97))
    tally.add(played, invariants, players, options)
    return played


@pytest.mark.parametrize("chunk", QUICK_FIRST)
def test_random_complete_games_end_with_one_winner_and_keep_the_invariants(chunk: int) -> None:
    tally = Tally()
    for n in range(GAMES_PER_CHUNK):
        seed = chunk * GAMES_PER_CHUNK + n
        play_checked(seed, "deck" if seed % 2 else "physical", tally)
    assert tally.games == GAMES_PER_CHUNK
    # The random play reaches every corner of the rules, in both modes.
    for situation in ("outcome:winner", "outcome:no_reaction", "outcome:faults", "outcome:clean",
                      "claim_made:own_up", "claim_made:own_down", "claim_made:other_down",
                      "bat_chosen:turn_down", "bat_chosen:clear", "bat_chosen:turn_up",
                      "swapped:down", "card_drawn:refill", "card_drawn:penalty", "refill_needed",
                      "no_refill_needed", "penalty_due", "penalty_paid", "penalties_awaited", "card_checked",
                      "card_turned_up:check_right", "card_turned_up:wrong_guess", "card_turned_up:penalty",
                      "moon_looked", "judgement_asked", "claim_vote", "dice_kept", "outcome:drawn",
                      "action_passed:timeout", "claim_withdrawn"):
        assert tally.seen[situation] > 0, f"random play never reached {situation}"
    # ... with every choice of the table's options.
    varied = ["players=2", "players=6", 'mode="deck"', 'mode="physical"', "deck_counted=true", "display_size=3",
              "display_size=5", 'colour_die=["yellow", "violet", "both", "!"]', 'confirm_by="majority"',
              *(f"coffins_to_win={n}" for n in range(1, 6)), 'dice_pass_direction="clockwise"']
    for key, choices in {"tie_policy": TIE_POLICIES, "false_start": FALSE_STARTS,
                         "penalty_card_choice": PENALTY_CHOICES}.items():
        varied += [f"{key}={json.dumps(choice)}" for choice in choices]
    for flag in ("only_first_slap_judged", "moon_must_swap_after_looking", "wrong_own_facedown_extra_penalty"):
        varied += [f"{flag}=true", f"{flag}=false"]
    assert [v for v in varied if not tally.options[v]] == []


def test_a_penalty_waits_while_the_moon_slapper_holds_two_coffins() -> None:
    """Found by the random games: the offender turned up, for a penalty, a coffin the moon slapper
    was looking at, and the swap then moved a face-up card as a coffin. Now the penalty waits."""
    state, rng = new_game(3, {"penalty_card_choice": "offender"}, b"moon look" * 4)
    coffins = [state.player(2).slots[i].card for i in (0, 1)]
    for event in [Event("card_turned_down", {"seat": 2, "slot": 0, "card": coffins[0], "cause": "claim"}),
                  Event("card_turned_down", {"seat": 2, "slot": 1, "card": coffins[1], "cause": "claim"}),
                  Event("dice_rolled", {"round": 1, "roller": 1, "by": "seat:1", "colour": "!", "symbol": "moon",
                                        "colour_face": 4, "symbol_face": 2, "at_us": 1_000}),
                  Event("round_armed", {"round": 1, "at_us": 1_000, "mode": "race", "window_us": 5_000_000}),
                  Event("penalty_due", {"seat": 2, "reason": "false_start", "since_us": 2_000}),
                  Event("slapper_called", {"seat": 1, "phase": "moon", "queue": [], "since_us": 2_000})]:
        state = GARLIC_SLAP.evolve(state, event)

    def run(actor: Viewer, command: Command) -> None:
        nonlocal state
        assert GARLIC_SLAP.validate(state, actor, command) is None
        state = GARLIC_SLAP.decide(state, actor, command, rng).states[-1]

    run(seat(1), Command("moon", {"a": [2, 0], "b": [2, 1], "look": True}, 3_000))
    assert state.phase == "moon_look"
    assert GARLIC_SLAP.validate(state, seat(2), Command("reopen", {"slot": 0})) == Rejection("not_now")
    due = GARLIC_SLAP.deadline(state)
    assert due is not None and due.command.args["for"] == "turn", "no penalty is paid by a timeout meanwhile"
    run(seat(1), Command("swap", {}, 4_000))
    assert [s.card for s in state.player(2).slots[:2]] == coffins[::-1]
    assert not any(s.up for s in state.player(2).slots[:2])
    assert state.phase == "penalties"
    run(seat(2), Command("reopen", {"slot": 0}, 5_000))
    assert state.phase == "roll" and not state.penalties


# -- 3: secrets after every event --------------------------------------------------------------

SECRET_CHUNKS = 4
SECRET_GAMES_PER_CHUNK = 36


@pytest.mark.parametrize("chunk", range(SECRET_CHUNKS))
def test_no_view_shows_a_secret_after_any_event(chunk: int) -> None:
    tally = Tally()
    watches = []
    for n in range(SECRET_GAMES_PER_CHUNK):
        seed = 1_000_000 + chunk * SECRET_GAMES_PER_CHUNK + n
        watch = SecretWatch()
        # Real cards carry no identities, so their games are few; the deck's are the point.
        play_checked(seed, "physical" if n % 10 == 0 else "deck", tally, watch)
        watches.append(watch)
    assert sum(w.states for w in watches) == tally.events + tally.games
    assert sum(w.secrets for w in watches) > 10 * tally.events, "much of the deck is hidden most of the time"
    assert [leak for w in watches for leak in w.leaks] == []


def test_the_secrets_include_each_players_own_coffins() -> None:
    tally = Tally()
    for seed in range(2_000_000, 2_000_013):
        play_checked(seed, "deck", tally, own_coffins_are_secret)
    assert tally.seen["moon_looked"] > 0 and tally.seen["card_turned_down:claim"] + tally.seen["bat_chosen:turn_down"]


def test_the_secret_check_catches_a_view_that_shows_a_player_their_own_coffins() -> None:
    def leaky_view(state: GarlicState, viewer: Viewer) -> dict[str, Any]:
        shown = GARLIC_SLAP.view(state, viewer)
        if viewer.kind != "seat" or state.phase == "over" or state.physical:
            return shown
        mine = state.player(viewer.seat or 0)
        coffins = [state.deck[s.card].to_json() for s in mine.slots if not s.up and s.card is not None]
        return {**shown, "my_coffins": coffins}

    leaky = replace(GARLIC_SLAP, view=leaky_view)
    tally = Tally()
    honest, caught = SecretWatch(), SecretWatch(leaky)
    for seed in range(3_000_000, 3_000_003):
        play_checked(seed, "deck", tally, honest, caught)
    assert honest.leaks == []
    assert caught.leaks, "a seat shown its own coffins must be caught"
    assert all(leak.description.startswith(f"{leak.viewer.replace(':', ' ')}'s coffin") for leak in caught.leaks)


# -- 4: replays ----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["deck", "physical"])
def test_a_finished_game_replays_from_its_log(mode: str) -> None:
    tally = Tally()
    for seed in range(4_000_000, 4_000_016):
        played = play_checked(seed, mode, tally)
        # The log: the options, the seats, setup's draws, then the events; and each command decided again.
        assert_replays(GARLIC_SLAP, played.options, played.seats, played.setup_draws, played.events,
                       ((t.actor, t.command, t.draws, t.events) for t in played.turns), played.state)
        for event in played.events:
            for lang in ("en", "fr"):
                line = GARLIC_SLAP.describe(event, lang)
                assert line and "card-" not in line, "a log line never names a card"


# -- 5: the real table pipeline -------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["deck", "physical"])
def test_random_table_play_leaks_nothing(mode: str) -> None:
    report = play(GARLIC_SLAP, {"mode": mode}, seats=4, games=12, steps=125, seed=11)
    assert report.leaks == []
    assert report.views_checked == 6 * (report.commands + 12)
    assert report.accepted > 280, "random play must consist of enough legal commands"
    reached = {"dice_rolled", "round_armed", "round_settled", "slapper_called", "claim_made", "card_turned_down",
               "card_turned_up", "cards_swapped", "penalty_paid", "dice_passed", "dice_kept", "seed_revealed"}
    reached |= {"card_checked"} if mode == "deck" else {"judgement_asked", "claim_judged"}
    assert reached <= report.event_types, f"never reached {reached - report.event_types}"
