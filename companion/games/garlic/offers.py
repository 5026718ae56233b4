"""What each viewer of the garlic game is offered now (`GameDefinition.actions`), in blocks.

A block is a list of commands, or one made as it is read: the moon offers every pair of cards on
the table (hundreds of commands) and the round keeper's sample decisions are deep dicts, yet a
random player reads one or two of them. `actions` is every block read in full, in order; a player
that draws from them reads `offers` instead and makes only what it draws.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from companion.games.base import Command, Viewer
from companion.games.garlic.rules import deadline, face_up_pair_refusal, face_up_swap_allowed
from companion.games.garlic.state import BAT_KINDS, CLAIM_KINDS, GarlicState
from companion.games.offers import offered

ROLL = Command("roll")
NO_CLAIM = Command("no_claim")
PASS = Command("pass")
SWAP = Command("swap")
KEEP = Command("keep")
JUDGE = (Command("judge", {"right": True}), Command("judge", {"right": False}))
"""Commands without a choice in them are made once (a command is a value, never changed)."""


class Lazy:
    """A block whose commands are made as they are read (each once); they all have one name."""

    name = ""

    def __init__(self, size: int) -> None:
        self.size = size
        self.made: dict[int, Command] = {}

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int, /) -> Command:
        command = self.made.get(index)
        if command is None:
            if not 0 <= index < self.size:
                raise IndexError(index)
            command = self.made[index] = self.make(index)
        return command

    def make(self, index: int) -> Command:
        raise NotImplementedError

    def refused(self, index: int) -> bool:
        """The rules refuse this command whatever else holds (a block that can tell says so
        cheaply); False means only that `validate` must be asked."""
        return False


Block = list[Command] | tuple[Command, ...] | Lazy
"""Commands offered together, read by position."""


def offers(state: GarlicState, viewer: Viewer) -> list[Block]:
    """Everything this viewer might do now, in blocks; `actions` reads them all."""
    if viewer.kind == "system":
        return _system_offers(state)
    blocks: list[Block] = []
    if state.phase == "roll":
        blocks.append([ROLL])
    if viewer.kind == "host" and state.phase == "confirm":
        blocks.append(JUDGE)
    if viewer.kind != "seat" or viewer.seat is None or not state.seated(viewer.seat):
        return blocks
    me = viewer.seat
    if state.phase == "confirm" and state.options["confirm_by"] == "majority" and state.turn.get("seat") != me:
        blocks.append(JUDGE)
    for penalty in state.penalties:
        if penalty.seat == me:
            blocks.append([offered("reopen", slot=i) for i in state.player(me).face_down()])
            break
    if state.turn.get("seat") != me:
        return blocks
    if state.phase == "claim":
        blocks += [_card_commands(state, me, "claim", CLAIM_KINDS), [NO_CLAIM]]
    elif state.phase == "bat":
        blocks += [_card_commands(state, me, "bat", BAT_KINDS), [PASS]]
    elif state.phase == "moon":
        blocks += [_moon_offers(state, me), [PASS]]
    elif state.phase == "moon_look":
        blocks.append([SWAP, KEEP])
    return blocks


def actions(state: GarlicState, viewer: Viewer) -> list[Command]:
    """Everything this viewer might do now; the table marks each allowed or not, with the reason."""
    return [command for block in offers(state, viewer) for command in _read(block)]


def _read(block: Block) -> Iterator[Command]:
    return (block[i] for i in range(len(block))) if isinstance(block, Lazy) else iter(block)


def _card_commands(state: GarlicState, me: int, name: str, kinds: tuple[str, ...]) -> list[Command]:
    """One command per card the choice could name (per other player, with real cards)."""
    commands = []
    physical = state.physical
    for kind in kinds:
        others = kind in ("other_down", "turn_up")
        for player in state.players:
            if (player.seat != me) != others:
                continue
            whose = {"seat": player.seat} if others else {}
            if physical:
                commands.append(offered(name, kind=kind, **whose))
                continue
            up = kind in ("own_up", "turn_down")
            commands += [offered(name, kind=kind, **whose, slot=i) for i, slot in enumerate(player.slots)
                         if slot.up == up]
    return commands


def _moon_offers(state: GarlicState, me: int) -> Block:
    if state.physical:
        return [Command("moon", {"face": "down"}), Command("moon", {"face": "up"})]
    return MoonPairs(state, me)


Place = tuple[int, int]


class MoonPairs(Lazy):
    """S-S7: every two cards on the same side, coffins to be looked at first or not, in table
    order; each made into its command only when read. Which of them the rules refuse is known
    from the cards alone (`refused`): a face-up pair, unless no other player has a coffin."""

    name = "moon"

    def __init__(self, state: GarlicState, slapper: int) -> None:
        places = [((p.seat, i), slot.up) for p in state.players for i, slot in enumerate(p.slots)]
        self.pairs = [(a, b, look) for (a, up), (b, b_up) in combinations(places, 2) if up == b_up
                      for look in ((None,) if up else (True, False))]
        """(a, b, look): look is None for two face-up cards."""
        self.swap_allowed = face_up_swap_allowed(state, slapper)
        super().__init__(len(self.pairs))

    def make(self, index: int) -> Command:
        a, b, look = self.pairs[index]
        args = {"a": list(a), "b": list(b)}
        return Command("moon", args if look is None else {**args, "look": look})

    def refused(self, index: int) -> bool:
        a, b, look = self.pairs[index]
        return look is None and face_up_pair_refusal(self.swap_allowed, a, b) is not None


def _system_offers(state: GarlicState) -> list[Block]:
    """The timeout when one is due; a slap listed late; in a round, sample decisions (the round
    keeper sends the referee's real one) so random play reaches every kind of outcome."""
    commands = []
    due = deadline(state)
    if due is not None:
        commands.append(due.command)
    last = state.result
    if last and last.get("mode") == "race" and last.get("order") and state.phase != "reaction":
        listed = {row["who"] for row in (*last["order"], *last.get("false_starts", []), *last.get("late", []))}
        later = next((p.seat for p in state.players if f"seat:{p.seat}" not in listed), None)
        if later is not None:  # a slap after the decision, listed late
            first = last["order"][0]
            commands.append(Command("late_press", {"round": state.round, "press": {
                "who": f"seat:{later}", "t_us": first["t_us"] + 900_000, "uncertainty_us": 500, "source": "simulated",
                "after_arm_us": first["after_arm_us"] + 900_000, "gap_us": 900_000, "late": True}}))
    if state.phase != "reaction" or "at_us" not in state.turn:
        return [commands]
    return [commands, SampleDecisions(state)]


class SampleDecisions(Lazy):
    """A round's sample decisions: each seat first (ahead of another seat by 40 ms, and with a
    false start in the first), a tie of the first two seats, and nobody; in a skull round the
    same presses are faults."""

    name = "settle"

    def __init__(self, state: GarlicState) -> None:
        self.round = state.round
        self.at = int(state.turn["at_us"])
        self.seats = [p.seat for p in state.players]
        self.hands_off = state.turn.get("mode") == "hands_off"
        super().__init__(len(self.seats) + 2)

    def winner(self, index: int) -> int | None:
        """The seat the decision at `index` names as the winner (None: a tie, nobody, a skull
        round's faults), known without making its command: a player looking for the decisions
        that favour some seats reads one of them."""
        return None if self.hands_off or index >= len(self.seats) else self.seats[index]

    def make(self, index: int) -> Command:
        seats = self.seats
        if index < len(seats):
            return self._first(seats[index])
        if index == len(seats):
            a, b = seats[:2]
            return self._settle({"outcome": "tie", "winner": None, "tied_first": [f"seat:{a}", f"seat:{b}"],
                                 "ties": [[f"seat:{a}", f"seat:{b}"]],
                                 "order": [self._row(a, 250_000, 250_000), self._row(b, 250_400, 250_000)],
                                 "false_starts": []})
        return self._settle({"outcome": "clean" if self.hands_off else "no_reaction", "winner": None,
                             "tied_first": [], "ties": [], "order": [], "false_starts": []})

    def _first(self, winner: int) -> Command:
        other = next(s for s in self.seats if s != winner)
        order = [self._row(winner, 300_000, 300_000), self._row(other, 340_000, 300_000)]
        early = [{"who": f"seat:{other}", "t_us": self.at - 80_000, "uncertainty_us": 500, "source": "simulated",
                  "early_us": 80_000}]
        return self._settle({
            "outcome": "faults" if self.hands_off else "winner", "winner": None if self.hands_off else f"seat:{winner}",
            "tied_first": [], "ties": [], "order": order, "false_starts": early if winner == self.seats[0] else []})

    def _row(self, seat: int, after_us: int, first_us: int) -> dict[str, Any]:
        return {"who": f"seat:{seat}", "t_us": self.at + after_us, "uncertainty_us": 500, "source": "simulated",
                "after_arm_us": after_us, "gap_us": after_us - first_us}

    def _settle(self, decision: dict[str, Any]) -> Command:
        return Command("settle", {"round": self.round, "decision": decision})
