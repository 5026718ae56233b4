"""Random complete garlic games, played on the pure rules (no table, no store): the property
tests' engine, and a quick way to reach every corner of the rules."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from companion.buzzers import referee
from companion.buzzers.referee import RoundSpec, TimedPress
from companion.fairness.drbg import SeededRandomSource
from companion.fairness.rng import Draw
from companion.games.base import HOST, SYSTEM, TABLE, Command, Event, SeatInfo, Viewer, seat
from companion.games.garlic import GARLIC_SLAP
from companion.games.garlic.offers import Block, Lazy, SampleDecisions, offers
from companion.games.garlic.options import normalize_options
from companion.games.garlic.state import GarlicState
from companion.games.reactions import ROUND_ARMED

Check = Callable[[GarlicState, Event | None], None]


@dataclass(frozen=True)
class Turn:
    """One command as the table would log it: who sent it, what, the draws it made, its events."""

    actor: Viewer
    command: Command
    draws: tuple[Draw, ...]
    events: tuple[Event, ...]


def told(definition: Any, state: Any, actor: Viewer, command: Command, rng: Any,
         check: Callable[[Any, Any, Event], None] | None = None) -> tuple[Any, Turn]:
    """One allowed command on the pure rules: its events and the state after each, as the rules
    decided them (`check(before, after, event)` after each), and the Turn the table would log."""
    drawn = len(rng.draws)
    decision = definition.decide(state, actor, command, rng)
    assert decision.events, f"{command} was allowed but told nothing"
    for event, after in zip(decision.events, decision.states, strict=True):
        if check is not None:
            check(state, after, event)
        state = after
    return state, Turn(actor, command, tuple(rng.draws[drawn:]), tuple(decision.events))


@dataclass
class Played:
    state: GarlicState
    seats: tuple[SeatInfo, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    setup_draws: tuple[Draw, ...] = ()
    commands: int = 0
    events: list[Event] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)


def seats_for(players: int) -> tuple[SeatInfo, ...]:
    return tuple(SeatInfo(n, f"Player {n}") for n in range(1, players + 1))


def new_game(players: int, options: Mapping[str, Any], key: bytes) -> tuple[GarlicState, SeededRandomSource]:
    rng = SeededRandomSource(key)
    return GARLIC_SLAP.setup(normalize_options(options), seats_for(players), rng), rng


def right_claim(state: GarlicState, command: Command) -> bool:
    """A claim that the cards bear out (what a player with a good memory would make)."""
    if command.name != "claim" or state.dice is None or state.physical:
        return False
    owner = command.args.get("seat", state.turn.get("seat"))
    card = state.card(state.player(owner).slots[command.args["slot"]].card)
    return card is not None and state.dice.matches(card)


def own_claim(command: Command) -> bool:
    """Real cards: a claim on one's own card, the kind that moves a player on (the table judges it)."""
    return command.name == "claim" and command.args.get("kind") in ("own_up", "own_down")


def holders(state: GarlicState) -> set[int]:
    """The players who hold a card that matches the dice (as far as the companion can see)."""
    dice = state.dice
    if dice is None or state.physical or dice.effect:  # nothing matches an effect
        return set()
    deck = state.deck
    return {p.seat for p in state.players for slot in p.slots
            if slot.card is not None and dice.matches(deck[slot.card])}


class Offered:
    """Every (viewer, command) the acting viewers are offered now, in the order `actions` lists
    them, each command made only when it is read (the moon offers hundreds; a step plays one)."""

    def __init__(self, state: GarlicState, blocks: list[tuple[Viewer, Block]]) -> None:
        self.state = state
        self.blocks: list[tuple[Viewer, Block, int]] = []
        self.size = 0
        for viewer, block in blocks:  # one pass: a step makes one Offered, and most blocks hold a command or two
            size = len(block)
            if size:
                self.blocks.append((viewer, block, size))
                self.size += size
        self.checked_refusal = False

    @classmethod
    def to(cls, state: GarlicState, viewers: list[Viewer]) -> Offered:
        return cls(state, [(viewer, block) for viewer in viewers for block in offers(state, viewer)])

    def without(self, name: str) -> Offered:
        """The same offers less the commands of this name."""
        kept: list[tuple[Viewer, Block]] = []
        for viewer, block, _ in self.blocks:
            if not isinstance(block, Lazy):
                kept.append((viewer, [command for command in block if command.name != name]))
            elif block.name != name:
                kept.append((viewer, block))
        return Offered(self.state, kept)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[Viewer, Command]:
        viewer, block, at = self._locate(index)
        return viewer, block[at]

    def __iter__(self) -> Iterator[tuple[Viewer, Command]]:
        for viewer, block, size in self.blocks:
            for at in range(size):
                yield viewer, block[at]

    def of(self, viewer: Viewer) -> Iterator[Command]:
        """The commands offered to this viewer."""
        for offered_to, block, size in self.blocks:
            if offered_to == viewer:
                for at in range(size):
                    yield block[at]

    def settles_won_by(self, seats: set[int]) -> list[Command]:
        """The round's sample decisions that name one of these seats the winner, in offer order,
        each made only if it is one (a decision is a deep dict, and a step plays one)."""
        return [block[at] for _, block, size in self.blocks if isinstance(block, SampleDecisions)
                for at in range(size) if block.winner(at) in seats]

    def allowed(self, index: int) -> bool:
        """`validate` allows it. A command the rules refuse from its block alone is not made, nor
        asked of `validate`, except the first of each step, which must be refused there too."""
        viewer, block, at = self._locate(index)
        if isinstance(block, Lazy) and block.refused(at):
            if not self.checked_refusal:
                self.checked_refusal = True
                assert GARLIC_SLAP.validate(self.state, viewer, block[at]) is not None, f"{block[at]} is allowed"
            return False
        return GARLIC_SLAP.validate(self.state, viewer, block[at]) is None

    def _locate(self, index: int) -> tuple[Viewer, Block, int]:
        for viewer, block, size in self.blocks:
            if index < size:
                return viewer, block, index
            index -= size
        raise IndexError(index)


def _draw(rnd: random.Random, size: int, allowed: Callable[[int], bool]) -> int | None:
    """A uniformly random index below `size` that `allowed` accepts, or None.

    Asking only what is drawn (and setting aside what is refused) draws uniformly among the allowed
    candidates without asking about every one of them: a moon offers hundreds of card pairs. A
    refused index takes the last one's place, as in a list where it is swapped with the last and
    dropped (`moved` keeps the places that changed)."""
    moved: dict[int, int] = {}
    while size:
        index = rnd.randrange(size)
        candidate = moved.get(index, index)
        if allowed(candidate):
            return candidate
        size -= 1
        moved[index] = moved.get(size, size)
    return None


def _pick(rnd: random.Random, offered: Offered) -> tuple[Viewer, Command] | None:
    """A uniformly random allowed candidate, or None."""
    found = _draw(rnd, len(offered), offered.allowed)
    return None if found is None else offered[found]


def referee_decision(rnd: random.Random, armed: Mapping[str, Any], state: GarlicState, keen: set[int],
                     memory: float) -> dict[str, Any]:
    """A reaction round as the buzzers' referee would settle it, from random presses: any number of
    slappers (the players holding the target the likelier and the quicker), presses too close to
    call, false starts, and in a skull round the careless few."""
    spec = RoundSpec(armed["mode"], armed["at_us"], armed["window_us"], armed["grace_us"], armed["penalty"],
                     armed["lockout_us"])
    at = spec.armed_at_us
    first = at + rnd.randint(150_000, 1_500_000)
    presses = []
    for player in state.players:
        who = f"seat:{player.seat}"
        if rnd.random() < 0.04:
            presses.append(TimedPress(who, at - rnd.randint(1_000, 300_000), 500, "simulated"))
        eager = player.seat in keen and rnd.random() < memory
        if rnd.random() < (0.1 if spec.mode == "hands_off" else 0.85 if eager else 0.35):
            late = rnd.randint(0, 80_000) if eager else rnd.randint(0, 700_000)
            presses.append(TimedPress(who, first + late, rnd.choice([0, 200, 500, 2_000]), "simulated"))
    rnd.shuffle(presses)  # sources deliver in any order
    round_state = referee.arm(spec)
    for pressed in presses:
        round_state = referee.press(round_state, pressed)
    decision = referee.decide(round_state, referee.due_at_us(round_state))
    assert decision is not None
    return {**decision.to_json(), "grace_us": spec.grace_us}


def may_act(state: GarlicState, viewers: list[Viewer]) -> list[Viewer]:
    """The viewers who may have something to do now: the system always (a settle, a timeout); the
    table and the host at a roll; the host at a judgement; whoever rolls (anyone, at the first
    roll); the first slapper in a turn; the judges; offenders owing a penalty.

    Asking only them for actions saves most of a step's time; `play_game` checks now and then that
    nobody else could have acted.
    """
    phase = state.phase
    seats: set[int] = {p.seat for p in state.penalties}
    if phase == "roll":
        seats |= {p.seat for p in state.players} if state.roller is None else {state.roller}
    elif phase == "confirm" and state.options["confirm_by"] == "majority":
        seats |= {p.seat for p in state.players} - {state.turn.get("seat")}
    elif phase in ("claim", "bat", "moon", "moon_look"):
        seats.add(state.turn["seat"])
    kinds = _ACTING_KINDS.get(phase, _SYSTEM_ONLY)
    return [v for v in viewers if v.kind in kinds or v.seat in seats]


_SYSTEM_ONLY = frozenset({"system"})
_ACTING_KINDS = {"roll": frozenset({"system", "table", "host"}), "confirm": frozenset({"system", "host"})}
"""Who besides the seats may act in a phase: the system always (made once, asked at every step)."""


def play_game(players: int, options: Mapping[str, Any], seed: int, check: Check | None = None,
              max_commands: int = 20_000, memory: float = 0.7,
              settled: Callable[[GarlicState], None] | None = None) -> Played:
    """Random legal commands from random viewers until someone wins (or the budget runs out).

    Each step draws uniformly among every (viewer, command) the rules allow now. A slapper who can
    make a right claim (with real cards: a claim on their own card) makes one with probability
    `memory` (a clear when they can), players mostly act before their time runs out, and the
    players holding the target are the likelier to slap first and the quicker; half the rounds
    are settled by the buzzers' referee from random presses (any number of slappers, near ties,
    false starts), the others by the game's sample decisions. Everything else (the dice, bat and
    moon choices, penalties, judgements) is random. `check` sees the state after every event,
    `settled` the state after every command.
    """
    rnd = random.Random(seed)
    state, rng = new_game(players, options, seed.to_bytes(8, "big") * 4)
    played = Played(state, seats_for(players), state.options, tuple(rng.draws))
    if check:
        check(state, None)
    viewers: list[Viewer] = [TABLE, HOST, SYSTEM, *(seat(n) for n in range(1, players + 1))]
    clock = 1_000_000
    while state.phase != "over" and played.commands < max_commands:
        clock += rnd.randint(1_000, 400_000)
        acting = may_act(state, viewers)
        if played.commands % 32 == 0:
            for idle in (v for v in viewers if v not in acting):
                allowed = [c for c in GARLIC_SLAP.actions(state, idle) if GARLIC_SLAP.validate(state, idle, c) is None]
                assert not allowed, f"{idle} may {allowed[0]} in phase {state.phase}, unforeseen"
        candidates = Offered.to(state, acting)
        picked = _pick(rnd, candidates)
        if picked is None:
            raise AssertionError(f"stuck in phase {state.phase}: nobody can do anything")
        actor, command = picked
        if command.name == "timeout" and rnd.random() < memory:
            # Players mostly act before their time runs out.
            actor, command = _pick(rnd, candidates.without("timeout")) or picked
        if command.name in ("claim", "no_claim") and rnd.random() < memory:
            better = own_claim if state.physical else partial(right_claim, state)
            right = [c for c in candidates.of(actor) if better(c) and GARLIC_SLAP.validate(state, actor, c) is None]
            clearing = [c for c in right if c.args.get("kind") == "own_down"]
            command = rnd.choice(clearing or right) if right else command
        elif command.name == "judge" and rnd.random() < memory:
            command = Command("judge", {"right": True})  # real cards: the slapper mostly knew
        elif command.name == "settle" and rnd.random() < 0.5:
            # Random presses through the real referee.
            keen = holders(state)
            armed = next(e.data for e in reversed(played.events) if e.type == ROUND_ARMED)
            command = Command("settle", {"round": state.round,
                                         "decision": referee_decision(rnd, armed, state, keen, memory)})
        elif command.name == "settle" and rnd.random() < memory:
            # The game's own sample decisions; the players who hold the target are the likelier
            # to slap first.
            keen = holders(state)
            eager = candidates.settles_won_by(keen)
            command = rnd.choice(eager) if eager else command
        command = Command(command.name, command.args, clock)
        drawn = len(rng.draws)
        decision = GARLIC_SLAP.decide(state, actor, command, rng)
        events = decision.events
        assert events, f"{command.name} was allowed but decided nothing"
        for event, state in zip(events, decision.states, strict=True):
            played.events.append(event)
            if check:
                check(state, event)
        if settled:
            settled(state)
        played.turns.append(Turn(actor, command, tuple(rng.draws[drawn:]), tuple(events)))
        played.commands += 1
    played.state = state
    return played
