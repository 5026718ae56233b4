"""The reaction-round referee: who pressed first, by how much, who was too early, and when it is
too close to call. Pure and independent of any game; every time is a point on the host timeline.

A round is armed at the moment the stimulus was published (`armed_at_us`). In a `race` the first
valid press wins; in `hands_off` (the skull of the garlic game) any press in the window is a fault.
Presses before the arm are false starts, recorded with how early they were; a press that may
have come after the arm, given its uncertainty (a phone on a slow link), is not called early. The decision waits a
grace period after the first press, so near-simultaneous presses still in flight are counted.
Two presses no further apart than the sum of their sources' uncertainties are a tie: the referee
says so, and the game settles it by its own rule, never by pin or seat order. Two presses stamped
by the same clock (one buzzer box) are compared on that clock instead: the box orders its own
presses exactly, however well its clock is mapped onto the host's, and calls a tie only when it
saw both in the same snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Mode = Literal["race", "hands_off"]
FalseStartPenalty = Literal["none", "lockout_round", "lockout_ms"]


@dataclass(frozen=True, slots=True)
class TimedPress:
    """A press by a contestant (a seat), with the precision of the source that saw it."""

    who: str
    t_us: int
    uncertainty_us: int = 0
    source: str = ""
    clock: str = ""
    """Set when a clock other than the host's stamped the press (see `Press.clock`)."""
    local_ns: int = 0
    method: str = ""
    """How a phone's press was timed ("reaction", "mapped", "arrival", "before_signal"; see
    phoneclock.py); empty for a wired or simulated button."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"who": self.who, "t_us": self.t_us, "uncertainty_us": self.uncertainty_us,
                                "source": self.source}
        if self.clock:
            data["clock"], data["local_ns"] = self.clock, self.local_ns
        if self.method:
            data["method"] = self.method
        return data

    def order_key(self) -> tuple[int, str, int, str]:
        """Host time first; presses of one box at the same microsecond by the box's own clock."""
        return (self.t_us, self.clock, self.local_ns, self.who)


@dataclass(frozen=True, slots=True)
class RoundSpec:
    mode: Mode
    armed_at_us: int
    window_us: int
    """How long the round stays open: the timeout of a race, the length of a hands-off window."""
    grace_us: int = 2_000
    """How long to wait after the first press for presses still in flight (longer with phones)."""
    penalty: FalseStartPenalty = "none"
    lockout_us: int = 250_000
    """With `lockout_ms`: how long a false start locks that contestant out after the arm."""


@dataclass(frozen=True, slots=True)
class RoundState:
    spec: RoundSpec
    presses: tuple[TimedPress, ...] = ()
    """First valid press of each contestant, in arrival order (not time order)."""
    false_starts: tuple[TimedPress, ...] = ()
    ignored: tuple[TimedPress, ...] = field(default=())
    """Later presses of the same contestant, and presses of a locked-out contestant."""


def arm(spec: RoundSpec) -> RoundState:
    if spec.window_us <= 0 or spec.grace_us < 0:
        raise ValueError("a round needs a positive window and a non-negative grace period")
    return RoundState(spec)


def _locked_out(state: RoundState, press: TimedPress) -> bool:
    early = [f for f in state.false_starts if f.who == press.who]
    if not early or state.spec.penalty == "none":
        return False
    if state.spec.penalty == "lockout_round":
        return True
    return press.t_us < state.spec.armed_at_us + state.spec.lockout_us


def press(state: RoundState, pressed: TimedPress) -> RoundState:
    """Take one press into the round, in whatever order the sources deliver them.

    The next state is made by its constructor: `dataclasses.replace` costs several times as much,
    and a round takes a press from every contestant."""
    spec, presses, false_starts, ignored = state.spec, state.presses, state.false_starts, state.ignored
    if pressed.t_us + pressed.uncertainty_us < spec.armed_at_us:
        if any(f.who == pressed.who for f in false_starts):
            return RoundState(spec, presses, false_starts, (*ignored, pressed))
        return RoundState(spec, presses, (*false_starts, pressed), ignored)
    if pressed.t_us > spec.armed_at_us + spec.window_us:
        return RoundState(spec, presses, false_starts, (*ignored, pressed))
    earlier = next((p for p in presses if p.who == pressed.who), None)
    if earlier is not None or _locked_out(state, pressed):
        if earlier is not None and (pressed.t_us, pressed.uncertainty_us) < (earlier.t_us, earlier.uncertainty_us):
            # A source delivered out of order: the earlier edge (the more precise at the same
            # time) is the contestant's press.
            kept = tuple(pressed if p is earlier else p for p in presses)
            return RoundState(spec, kept, false_starts, (*ignored, earlier))
        return RoundState(spec, presses, false_starts, (*ignored, pressed))
    return RoundState(spec, (*presses, pressed), false_starts, ignored)


def due_at_us(state: RoundState) -> int:
    """When the decision can be published: grace after the first press, or the end of the window."""
    end = state.spec.armed_at_us + state.spec.window_us
    if state.spec.mode == "race" and state.presses:
        first = min(p.t_us for p in state.presses)
        latest_uncertainty = max(p.uncertainty_us for p in state.presses)
        return min(end, first + state.spec.grace_us + latest_uncertainty)
    return end


def tied(a: TimedPress, b: TimedPress) -> bool:
    """Too close to call: no further apart than their combined uncertainty, or, on one box's
    clock, seen at the same instant."""
    if a.clock and a.clock == b.clock:
        return a.local_ns == b.local_ns
    return abs(a.t_us - b.t_us) <= a.uncertainty_us + b.uncertainty_us


@dataclass(frozen=True, slots=True)
class Decision:
    outcome: Literal["winner", "tie", "no_reaction", "faults", "clean"]
    order: tuple[TimedPress, ...]
    winner: str | None
    tied_first: tuple[str, ...]
    """With a tie: everyone too close to the first press to be told apart from it."""
    ties: tuple[tuple[str, str], ...]
    false_starts: tuple[TimedPress, ...]
    armed_at_us: int

    def to_json(self) -> dict[str, Any]:
        first = self.order[0].t_us if self.order else None
        return {
            "outcome": self.outcome,
            "winner": self.winner,
            "tied_first": list(self.tied_first),
            "ties": [list(pair) for pair in self.ties],
            "order": [{**p.to_json(), "after_arm_us": p.t_us - self.armed_at_us,
                       "gap_us": 0 if first is None else p.t_us - first} for p in self.order],
            "false_starts": [{**p.to_json(), "early_us": self.armed_at_us - p.t_us} for p in self.false_starts],
        }


def decide(state: RoundState, now_us: int) -> Decision | None:
    """The round's decision once it is due (None before): the full order, ties and false starts."""
    if now_us < due_at_us(state):
        return None
    spec = state.spec
    order = tuple(sorted(state.presses, key=TimedPress.order_key))
    ties = tuple((a.who, b.who) for i, a in enumerate(order) for b in order[i + 1:] if tied(a, b))
    false_starts = tuple(sorted(state.false_starts, key=TimedPress.order_key))
    if spec.mode == "hands_off":
        return Decision("faults" if order else "clean", order, None, (), ties, false_starts, spec.armed_at_us)
    if not order:
        return Decision("no_reaction", order, None, (), ties, false_starts, spec.armed_at_us)
    leading = tuple(p.who for p in order if tied(order[0], p))
    if len(leading) > 1:
        return Decision("tie", order, None, leading, ties, false_starts, spec.armed_at_us)
    return Decision("winner", order, order[0].who, (), ties, false_starts, spec.armed_at_us)
