"""Buzzer quiz: the host arms a round, the first press wins, the table shows who and by how much.

Useful on its own for any quiz, and the proving ground of the reaction referee. The presses
never pass through here one by one: the round keeper (an I/O-side component) referees them and
settles the round with one command carrying the referee's decision, so the log keeps every
press of every round and a round can be explained later. A tie is settled by the table's rule:
a verifiable random draw among the tied, or a new round. A press after the decision, while the
round's window is still open, is listed with the round too (`late`): every press shows its time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.fairness.rng import RandomSource
from companion.games.base import (
    Args,
    Command,
    Event,
    GameDefinition,
    Move,
    OptionsError,
    Rejection,
    SeatInfo,
    Secret,
    Story,
    Viewer,
    ViewerKind,
)
from companion.games.reactions import (
    ROUND_ARMED,
    ROUND_CANCELLED,
    ROUND_LATE_PRESS,
    ROUND_SETTLED,
    late_press_fits,
    with_round,
)

MODES = ("race", "hands_off")
TIE_RULES = ("draw", "rearm")
PENALTIES = ("none", "lockout_round", "lockout_ms")
RECENT_ROUNDS = 10


@dataclass(frozen=True, slots=True)
class QuizState:
    seats: tuple[SeatInfo, ...]
    options: Mapping[str, Any]
    round: int = 0
    armed: Mapping[str, Any] | None = None
    results: list[Mapping[str, Any]] = field(default_factory=list)
    """The latest rounds first. This list and the board are new objects at each settled round
    and never changed afterwards, so every viewer's view shares them and fourteen screens cost
    one comparison, not fourteen."""
    board: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per contestant: race reaction times (see reactions.py), their count, best, median."""


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    window = options.get("window_s", 5.0)
    if isinstance(window, bool) or not isinstance(window, int | float) or not 0.5 <= window <= 60:
        raise OptionsError("window_s", "a number of seconds from 0.5 to 60")
    tie = options.get("tie_rule", "draw")
    if tie not in TIE_RULES:
        raise OptionsError("tie_rule", f"one of {', '.join(TIE_RULES)}")
    penalty = options.get("false_start", "none")
    if penalty not in PENALTIES:
        raise OptionsError("false_start", f"one of {', '.join(PENALTIES)}")
    lockout = options.get("lockout_ms", 250)
    if isinstance(lockout, bool) or not isinstance(lockout, int) or not 0 <= lockout <= 10_000:
        raise OptionsError("lockout_ms", "whole milliseconds from 0 to 10000")
    grace = options.get("grace_ms", 2)
    if isinstance(grace, bool) or not isinstance(grace, int | float) or not 0 <= grace <= 1000:
        raise OptionsError("grace_ms", "milliseconds from 0 to 1000")
    return {"window_s": float(window), "tie_rule": tie, "false_start": penalty, "lockout_ms": lockout,
            "grace_ms": float(grace)}


def setup(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: RandomSource) -> QuizState:
    return QuizState(tuple(seats), dict(options))


def phase(state: QuizState) -> str:
    return "armed" if state.armed is not None else "waiting"


def _check_arm(state: QuizState, actor: Viewer, args: Args) -> Rejection | None:
    return None if args.get("mode", "race") in MODES else Rejection("bad_arguments", {"detail": "mode"})


def _tell_arm(story: Story[QuizState], actor: Viewer, args: Args) -> None:
    opts = story.state.options
    story.tell(ROUND_ARMED, {
        "round": story.state.round + 1, "at_us": story.at_us, "mode": args.get("mode", "race"),
        "window_us": int(opts["window_s"] * 1_000_000), "grace_us": int(opts["grace_ms"] * 1000),
        "penalty": opts["false_start"], "lockout_us": opts["lockout_ms"] * 1000,
        "signal": "phones",  # each phone lights its own buzzer: phones are timed by their reaction
    })


def _tell_cancel(story: Story[QuizState], actor: Viewer, args: Args) -> None:
    story.tell(ROUND_CANCELLED, {"round": story.state.round})


def _check_settle(state: QuizState, actor: Viewer, args: Args) -> Rejection | None:
    """The round keeper settles the round it watched, with the referee's decision."""
    fits = args.get("round") == state.round and isinstance(args.get("decision"), dict)
    return None if fits else Rejection("no_round")


def _tell_settle(story: Story[QuizState], actor: Viewer, args: Args) -> None:
    state = story.state
    decision = dict(args["decision"])
    settled = {"round": state.round, "decision": decision, "drawn_from": None, "winner": decision.get("winner")}
    if decision.get("outcome") == "tie" and state.options["tie_rule"] == "draw":
        tied = sorted(decision.get("tied_first") or [])
        if tied:
            settled["drawn_from"] = tied
            settled["winner"] = tied[story.rng.randbelow(len(tied), f"round {state.round} tie among {len(tied)}")]
    story.tell(ROUND_SETTLED, settled)


def _check_late(state: QuizState, actor: Viewer, args: Args) -> Rejection | None:
    """The round keeper lists a press that came after the last race's decision."""
    last = state.results[0] if state.results else None
    if last is None or last["round"] != state.round:
        return Rejection("no_round")
    listed = [p["who"] for p in (*last["decision"].get("order", []), *last.get("late", []))]
    return None if late_press_fits(state.round, last.get("mode"), listed, args) else Rejection("no_round")


def _tell_late(story: Story[QuizState], actor: Viewer, args: Args) -> None:
    story.tell(ROUND_LATE_PRESS, {"round": args["round"], "press": dict(args["press"])})


HOSTS: tuple[ViewerKind, ...] = ("host", "table")
MOVES: dict[str, Move[QuizState, Story[QuizState]]] = {
    "arm": Move(_tell_arm, phases=("waiting",), off_phase="round_in_progress", by=HOSTS, refused="host_only",
                check=_check_arm),
    "cancel_round": Move(_tell_cancel, phases=("armed",), off_phase="no_round", by=HOSTS, refused="host_only"),
    "settle": Move(_tell_settle, phases=("armed",), off_phase="no_round", by=("system",), check=_check_settle),
    "late_press": Move(_tell_late, phases=("waiting",), off_phase="no_round", by=("system",), check=_check_late),
}


def evolve(state: QuizState, event: Event) -> QuizState:
    data = event.data
    if event.type == ROUND_ARMED:
        return replace(state, round=data["round"], armed=dict(data))
    if event.type == ROUND_CANCELLED:
        return replace(state, armed=None)
    if event.type == ROUND_SETTLED:
        armed = state.armed or {}
        board = state.board
        if armed.get("mode") == "race":
            board = with_round(board, data["decision"].get("order", []))
        result = {**data, "mode": armed.get("mode"), "late": []}
        return replace(state, armed=None, results=[result, *state.results][:RECENT_ROUNDS], board=board)
    if event.type == ROUND_LATE_PRESS:
        last = state.results[0]
        result = {**last, "late": [*last.get("late", []), data["press"]]}
        return replace(state, results=[result, *state.results[1:]], board=with_round(state.board, [data["press"]]))
    raise ValueError(f"the buzzer quiz has no event {event.type!r}")


def view(state: QuizState, viewer: Viewer) -> dict[str, Any]:
    return {
        "game": "buzzer-quiz",
        "round": state.round,
        "armed": None if state.armed is None else {
            **{k: state.armed[k] for k in ("round", "mode", "window_us", "at_us")},
            "ends_us": state.armed["at_us"] + state.armed["window_us"]},  # host timeline: pages count down to it
        "results": state.results,
        "board": state.board,
        "options": state.options,
    }


def _system_examples(state: QuizState) -> list[Command]:
    """Decisions for random play: a tie and no reaction while a round is armed, then a late press."""
    if len(state.seats) < 2:
        return []
    if state.armed is None:
        if not state.results or len(state.seats) < 3:
            return []
        late = {"who": f"seat:{state.seats[2].number}", "t_us": 900_000, "uncertainty_us": 0, "source": "simulated",
                "after_arm_us": 900_000, "gap_us": 600_000}
        return [Command("late_press", {"round": state.round, "press": late})]
    a, b = (f"seat:{s.number}" for s in state.seats[:2])
    at = int(state.armed["at_us"])
    tie = {"outcome": "tie", "winner": None, "tied_first": [a, b], "ties": [[a, b]], "false_starts": [],
           "order": [{"who": who, "t_us": at + 300_000, "uncertainty_us": 0, "source": "simulated",
                      "after_arm_us": 300_000, "gap_us": 0} for who in (a, b)]}
    none: dict[str, Any] = {"outcome": "no_reaction", "winner": None, "tied_first": [], "ties": [], "order": [],
                            "false_starts": []}
    return [Command("settle", {"round": state.round, "decision": d}) for d in (tie, none)]


def actions(state: QuizState, viewer: Viewer) -> list[Command]:
    """The host and the table arm and cancel rounds; the system settles them and lists late presses
    (the round keeper sends the real ones; the examples let random play reach every event)."""
    if viewer.kind == "system":
        return _system_examples(state)
    if viewer.kind not in ("host", "table"):
        return []
    return [Command("arm", {"mode": "race"}), Command("arm", {"mode": "hands_off"}), Command("cancel_round")]


def describe(event: Event, lang: str) -> str:
    data = event.data
    if event.type == ROUND_ARMED:
        return f"round {data['round']} armed ({data['mode']})"
    if event.type == ROUND_SETTLED:
        return f"round {data['round']}: {data['decision'].get('outcome')}, winner {data.get('winner')}"
    if event.type == ROUND_LATE_PRESS:
        return f"round {data['round']}: {data['press']['who']} pressed after the decision"
    return event.type


def secrets(state: QuizState) -> list[Secret]:
    return []


BUZZER_QUIZ: GameDefinition[QuizState] = GameDefinition(
    id="buzzer-quiz",
    title={"en": "Buzzer quiz", "fr": "Quiz aux buzzers"},
    min_seats=2,
    max_seats=13,
    normalize_options=normalize_options,
    setup=setup,
    moves=MOVES,
    phase=phase,
    evolve=evolve,
    view=view,
    secrets=secrets,
    describe=describe,
    actions=actions,
    # The quiz hides nothing, and its players are offered nothing (they press their buzzers).
    offers_alike=lambda state, viewer: "players" if viewer.kind == "seat" else str(viewer),
    sees_alike=lambda state, viewer: "everyone",
    uses_buzzers=True,
    table_button=Command("arm", {"mode": "race"}),
    options_schema=lambda defaults: [{
        "key": "tie_rule",
        "label": {"en": "When two presses are too close to call", "fr": "Quand deux appuis sont trop proches"},
        "choices": [
            {"value": "draw",
             "label": {"en": "draw the winner (verifiable)", "fr": "tirer le gagnant au sort (vérifiable)"}},
            {"value": "rearm", "label": {"en": "play the round again", "fr": "rejouer la manche"}},
        ],
        "default": "draw",
    }, {
        "key": "false_start",
        "label": {"en": "A press before the signal", "fr": "Un appui avant le signal"},
        "choices": [
            {"value": "none", "label": {"en": "is shown, no penalty", "fr": "est affiché, sans pénalité"}},
            {"value": "lockout_ms", "label": {"en": "locks that player out for 250 ms after the signal",
                                              "fr": "bloque ce joueur 250 ms après le signal"}},
            {"value": "lockout_round", "label": {"en": "locks that player out of the round",
                                                 "fr": "exclut ce joueur de la manche"}},
        ],
        "default": "none",
    }, {
        "key": "window_s",
        "label": {"en": "A round stays open for", "fr": "Une manche reste ouverte"},
        "choices": [{"value": seconds, "label": {"en": f"{seconds} s", "fr": f"{seconds} s"}}
                    for seconds in (5, 10, 20, 60)],
        "default": 5,
    }],
)
