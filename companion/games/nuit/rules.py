"""La nuit des vampires' rules (N-S*, N-L*, N-T*, N-F*, N-C*, N-E1 in rules/nuit-des-vampires.md),
as pure functions: the setup, the start roll, and the ledger primitives the turn flow is built on.

The primitives (`take_bottles`, `pay_bottles`, `take_magic`, `give_back_magic`, `draw_fate`,
`open_tower`, `peek_tower`) check a limit and return a Rejection, or the events that carry the
change out; the turn flow tells those events in its own story (`LedgerStory.apply`), which evolves
each as it is told (evolve.py), so every consequence is decided on the state the previous one left.

The turn itself (moving, magic cards, duels, the castle, the oubliettes) is told in turn.py, and
what each command may do is its move's (moves.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.fairness.rng import RandomSource, shuffled
from companion.fairness.sealed import seal
from companion.games.base import Event, Rejection, SeatInfo, Story
from companion.games.nuit.evolve import evolve
from companion.games.nuit.options import BOTTLES, FATE_COLOURS, TOWERS
from companion.games.nuit.state import (
    ONION,
    OUBLIETTES,
    TOMATO,
    FateCard,
    NuitState,
    Player,
    Tower,
    build_fate,
    build_magic,
)
from companion.games.options import whole

GAME_ID = "nuit-des-vampires"
SEAL_NAME = "tomato_tower"
SALT_WORDS = 4
"""The seal's salt: 4 draws of 32 bits (16 bytes, as companion/fairness/sealed.py)."""


# -- setup (N-S2, N-S4..N-S6) -------------------------------------------------------------------

def setup(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: RandomSource) -> NuitState:
    """Hide the tomato and seal its tower (N-S2), shuffle the fate stacks (N-S4) and the magic deck,
    deal the public hands and the display (N-S5), and hand out the bottles (N-S6).

    The tomato's tower is drawn like any card: nobody chose it, the host included. The commitment is
    public from the start; its salt, drawn too (a replay redraws it), stays secret until the end."""
    magic = build_magic(options["magic_cards"], options["elixir_values"])
    fate = build_fate(options["fate_stack"], FATE_COLOURS)
    commitment = salt = None
    if options["tower_mode"] == "physical":
        towers = tuple(Tower(n, None) for n in range(1, TOWERS + 1))
    else:
        tomato = rng.randbelow(TOWERS, "tomato tower") + 1
        words = [rng.randbelow(1 << 32, f"tower seal salt #{i}") for i in range(SALT_WORDS)]
        fact, salt = seal(GAME_ID, SEAL_NAME, str(tomato), b"".join(w.to_bytes(4, "big") for w in words))
        commitment = fact.commitment
        towers = tuple(Tower(n, TOMATO if n == tomato else ONION) for n in range(1, TOWERS + 1))
    stacks = tuple(
        tuple(shuffled(rng, [c.number for c in fate if c.colour == colour],
                       f"shuffle the {options['fate_colours'][colour]} fate stack"))
        for colour in range(FATE_COLOURS))
    deck = list(shuffled(rng, [c.number for c in magic], "shuffle the magic deck"))
    size = options["start_magic"]
    players = []
    for i, info in enumerate(sorted(seats, key=lambda s: s.number)):
        players.append(Player(info.number, info.name, options["start_bottles"], tuple(deck[i * size:(i + 1) * size])))
    dealt = len(players) * size
    display = tuple(deck[dealt:dealt + options["display_magic"]])
    rest = tuple(deck[dealt + len(display):])
    seen = frozenset(deck[:dealt + len(display)])
    order = tuple(p.seat for p in players)
    return NuitState(
        dict(options), magic, fate, tuple(players), BOTTLES - sum(p.bottles for p in players), rest, display,
        stacks, towers, commitment=commitment, salt=salt, order=order, phase="start_roll",
        start={"round": 1, "contenders": list(order), "rolls": {}}, magic_seen=seen)


# -- the ledger primitives (N-L1, N-L3, N-L4, N-T3, N-F*, N-C3) --------------------------------------

Outcome = Rejection | list[Event]


def _story_of(state: NuitState, tell: Callable[[LedgerStory], object]) -> list[Event]:
    story = LedgerStory(state, 0, _NoRandom())
    tell(story)
    return story.events


def _not_seated(state: NuitState, seat: int) -> Rejection | None:
    return None if state.seated(seat) else Rejection("not_seated")


def _count(count: Any) -> bool:
    return whole(count) and count >= 0


def take_bottles(state: NuitState, seat: int, count: int, cause: str) -> Outcome:
    """N-L1: bottles from the reserve, up to max_bottles; the excess is not taken (stays in the reserve)."""
    refused = _not_seated(state, seat)
    if refused or not _count(count):
        return refused or Rejection("bad_count")
    player = state.player(seat)
    taken = max(0, min(count, state.options["max_bottles"] - player.bottles, state.reserve))
    return [Event("bottles_taken", {"seat": seat, "count": count, "taken": taken, "cause": cause})]


def pay_bottles(state: NuitState, seat: int, count: int, cause: str, as_many_as_held: bool = False) -> Outcome:
    """Bottles back to the reserve: a price must be paid in full (refused otherwise); a debt
    (`as_many_as_held`: a bad fate card N-F2) takes what the player has."""
    refused = _not_seated(state, seat)
    if refused or not _count(count):
        return refused or Rejection("bad_count")
    held = state.player(seat).bottles
    if held < count and not as_many_as_held:
        return Rejection("not_enough_bottles", {"needed": count, "held": held})
    return [Event("bottles_paid", {"seat": seat, "count": count, "paid": min(count, held), "cause": cause})]


def take_magic(state: NuitState, seat: int, card: int, cause: str) -> Outcome:
    """N-F3 / N-L4: a card from the display into the hand (at most max_magic, N-L1), and the
    display refilled from the top of the deck."""
    return _take_magic_refusal(state, seat, card) or _story_of(state, lambda story: story.take_magic(seat, card, cause))


def _take_magic_refusal(state: NuitState, seat: int, card: int) -> Rejection | None:
    refused = _not_seated(state, seat)
    if refused:
        return refused
    if isinstance(card, bool) or card not in state.display:
        return Rejection("not_on_display")
    if len(state.player(seat).hand) >= state.options["max_magic"]:
        return Rejection("hand_full", {"max": state.options["max_magic"]})
    return None


def give_back_magic(state: NuitState, seat: int, cards: Sequence[int], cause: str) -> Outcome:
    """N-L3 / N-F1: cards from the hand go under the magic deck, in the order given."""
    refused = _not_seated(state, seat)
    if refused:
        return refused
    hand = state.player(seat).hand
    if any(not _count(c) for c in cards) or len(set(cards)) != len(cards) or any(c not in hand for c in cards):
        return Rejection("not_in_hand")
    return [Event("magic_returned", {"seat": seat, "cards": list(cards), "cause": cause})]


def draw_fate(state: NuitState, seat: int, colour: str, cause: str) -> Outcome:
    """N-T3 / N-F6: the top card of that colour's stack, shown to everyone, put under the same
    stack (never reshuffled). Its effect is the turn flow's (see `fate_effect`)."""
    refused = _not_seated(state, seat)
    if refused:
        return refused
    if colour not in state.colours:
        return Rejection("no_fate_colour", {"colour": str(colour)[:24]})
    card = state.fate[state.stacks[state.colours.index(colour)][0]]
    return [Event("fate_drawn", {"seat": seat, "colour": colour, "card": card.number, "kind": card.kind,
                                 "n": card.n, "cause": cause}, reveals=True)]


def fate_effect(card: FateCard, reading: str) -> dict[str, Any]:
    """What a fate card does (N-F1..N-F5). Ambiguity 4: read as "kinds" (default), a good card gives
    a display card *or* its bottles; read as "both", either good card gives one display card and
    its printed bottles (none printed on "choose a magic card")."""
    effect = {"give_back_magic": 0, "give_back_bottles": 0, "display_cards": 0, "bottles": 0, "flying": False}
    if card.kind == "lose_magic":
        effect["give_back_magic"] = card.n
    elif card.kind == "lose_ketchup":
        effect["give_back_bottles"] = card.n
    elif card.kind == "flying_vampire":
        effect["flying"] = True
    elif reading == "both":
        effect.update(display_cards=1, bottles=card.n)
    elif card.kind == "choose_magic":
        effect["display_cards"] = 1
    else:
        effect["bottles"] = card.n
    return effect


def _tower_refusal(state: NuitState, seat: int, number: Any) -> Rejection | None:
    refused = _not_seated(state, seat)
    if refused:
        return refused
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= TOWERS:
        return Rejection("no_such_tower")
    if state.tower(number).opened:
        return Rejection("tower_opened", {"tower": number})
    return None


def open_tower(state: NuitState, seat: int, number: int, found: str | None = None) -> Outcome:
    """N-C3 / N-E1: the content is shown to everyone (ambiguity 14). The tomato wins at once and the
    seal is opened; an onion is taken (the tower stays empty) and its finder goes to the oubliettes.
    With physical towers the table says what was found (`found`)."""
    return open_tower_refusal(state, seat, number, found) or \
        _story_of(state, lambda story: story.open_tower(seat, number, found))


def open_tower_refusal(state: NuitState, seat: int, number: int, found: str | None) -> Rejection | None:
    """Why `open_tower` would refuse (None when it would not), without telling its events."""
    refused = _tower_refusal(state, seat, number)
    if refused:
        return refused
    if _found(state, number, found) not in (TOMATO, ONION):
        return Rejection("say_what_was_found")
    if state.physical and found == ONION and sum(t.found == ONION for t in state.towers) >= TOWERS - 1:
        # The box holds one tomato and four onions: the last closed tower holds the tomato.
        return Rejection("onions_all_found")
    return None


def _found(state: NuitState, number: int, found: str | None) -> str | None:
    """What opening the tower shows: the table says it with physical towers."""
    return found if state.physical else state.tower(number).content


def peek_tower(state: NuitState, seat: int, number: int) -> Outcome:
    """N-F5 (Flying Vampire): only the peeker learns the content; the pawn stays, nothing is taken
    (ambiguity 6). With physical towers the player looks into the real one: the companion only
    records which tower was looked into."""
    refused = _tower_refusal(state, seat, number)
    if refused:
        return refused
    content = None if state.physical else state.tower(number).content
    return [Event("tower_peeked", {"seat": seat, "tower": number, "content": content}, reveals=not state.physical)]


def still_to_roll(state: NuitState) -> list[int]:
    """N-S7: the contenders of this start round who have not rolled yet."""
    rolls = state.start.get("rolls", {})
    return [s for s in state.start.get("contenders", []) if str(s) not in rolls]


# -- the story of a command ----------------------------------------------------------------------

class _NoRandom:
    """The primitives decide nothing by chance."""

    def randbelow(self, bound: int, purpose: str) -> int:
        raise AssertionError(f"a ledger primitive asked for a random draw ({purpose})")


_UNDER_THE_DECK = ("magic_played", "magic_returned")
"""The events that put magic cards under the deck (N-L3)."""


class LedgerStory(Story[NuitState]):
    """The events of one command, each applied as soon as it is told (see story.py)."""

    def __init__(self, state: NuitState, at_us: int, rng: RandomSource) -> None:
        super().__init__(state, at_us, rng, evolve)

    def apply(self, outcome: Outcome) -> Rejection | None:
        """Tell the events of a primitive; its Rejection, if it refused."""
        if isinstance(outcome, Rejection):
            return outcome
        for event in outcome:
            self.tell(event.type, event.data, event.reveals)
        return None

    def tell(self, kind: str, data: Mapping[str, Any], reveals: bool = False) -> None:
        super().tell(kind, data, reveals)
        if kind in _UNDER_THE_DECK:
            # The deck may have been empty with a short display: it is never left short (N-L4).
            self.refill()

    def take_magic(self, seat: int, card: int, cause: str) -> Rejection | None:
        """`take_magic` told in this story, where its events are evolved once (the module's function
        tries them on a story of its own to list them)."""
        refused = _take_magic_refusal(self.state, seat, card)
        if refused:
            return refused
        self.tell("magic_taken", {"seat": seat, "card": card, "cause": cause})
        self.refill()
        return None

    def open_tower(self, seat: int, number: int, found: str | None = None) -> Rejection | None:
        """`open_tower` told in this story (see `take_magic`)."""
        state = self.state
        refused = open_tower_refusal(state, seat, number, found)
        if refused:
            return refused
        content = _found(state, number, found)
        self.tell("tower_opened", {"seat": seat, "tower": number, "content": content}, reveals=not state.physical)
        if content == TOMATO:
            self.tell("game_won", {"seat": seat, "tower": number, "salt": state.salt,
                                   "commitment": state.commitment}, reveals=state.salt is not None)
        else:
            self.tell("onion_taken", {"seat": seat, "tower": number})
            self.tell("player_moved", {"seat": seat, "to": OUBLIETTES, "cause": "onion"})
        return None

    def refill(self) -> None:
        """N-L4: the display back to display_magic cards, while the deck has any."""
        while len(self.state.display) < self.state.options["display_magic"] and self.state.deck:
            # The deck's top card comes face up: undoing the take must not hide it again.
            self.tell("display_refilled", {"card": self.state.deck[0]}, reveals=True)

    def roll_die(self, die: str, purpose: str) -> int:
        faces = self.state.options[f"{die}_die"]
        return int(faces[self.rng.randbelow(len(faces), purpose)])

    def start_roll(self, seats: list[int]) -> None:
        """N-S7: both dice for each seat; when every contender has rolled, the highest total starts,
        and the tied roll again among themselves."""
        number = self.state.start["round"]
        for s in seats:
            red = self.roll_die("red", f"start roll {number} seat {s} red die")
            black = self.roll_die("black", f"start roll {number} seat {s} black die")
            self.tell("start_rolled", {"seat": s, "round": number, "red": red, "black": black, "total": red + black})
        if still_to_roll(self.state):
            return
        rolls = self.state.start["rolls"]
        best = max(r["total"] for r in rolls.values())
        tied = [s for s in self.state.start["contenders"] if rolls[str(s)]["total"] == best]
        if len(tied) > 1:
            self.tell("start_tied", {"round": number, "seats": tied, "total": best})
            return
        seats_in_order = list(self.state.order)
        i = seats_in_order.index(tied[0])
        self.tell("start_decided", {"seat": tied[0], "total": best,
                                    "order": seats_in_order[i:] + seats_in_order[:i]})


