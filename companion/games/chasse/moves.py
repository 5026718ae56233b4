"""La chasse au vampire's moves: when each command is legal, who may make it, its check and its
telling on the story (story.py).

On the table's own board a pawn stops where its player says (`stop`: a place, and the traveller it
bit on the way); on the companion's board the player taps a square (`move`) and the move is
checked against the map (C-M3, C-M4, C-B1).
"""

from __future__ import annotations

from typing import Any

from companion.games import countdown
from companion.games.base import Args, Move, Rejection, Viewer
from companion.games.chasse.board import place_of
from companion.games.chasse.rules import (
    board_of,
    donors,
    may_bite,
    may_stop,
    reachable,
    still_to_roll,
)
from companion.games.chasse.state import ChasseState, Square
from companion.games.chasse.story import ChasseStory, story
from companion.games.options import whole

SEAT_MOVES_REFUSED_WHEN_PAUSED = "glass_paused"


def _unpaused(state: ChasseState) -> Rejection | None:
    """A paused glass pauses everyone."""
    return Rejection(SEAT_MOVES_REFUSED_WHEN_PAUSED) if state.paused() else None


# -- the start roll (C-S1) --------------------------------------------------------------------------

def _start_roller(state: ChasseState, actor: Viewer) -> Rejection | None:
    if actor.kind == "seat" and actor.seat not in still_to_roll(state):
        return Rejection("not_in_start_roll")
    return None


def _tell_start_roll(story: ChasseStory, actor: Viewer) -> None:
    story.start_roll([actor.seat] if actor.seat is not None else still_to_roll(story.state))


def _roller(state: ChasseState, actor: Viewer) -> Rejection | None:
    """The start roll's seats still to roll; then the turn's player. The table's display (and the
    host, at the start) may roll for them: the die on the TV."""
    if state.phase == "start_roll":
        return _start_roller(state, actor)
    if actor.kind == "host":
        return Rejection("not_your_turn")
    return _current(state, actor)


def _tell_roll(story: ChasseStory, actor: Viewer, args: Args) -> None:
    if story.state.phase == "start_roll":
        _tell_start_roll(story, actor)
    else:
        assert story.state.current is not None
        story.roll(story.state.current)


# -- the turn ----------------------------------------------------------------------------------------

def _current(state: ChasseState, actor: Viewer) -> Rejection | None:
    """The turn's player (the table's display may roll for them), unless the glass is paused."""
    refused = _unpaused(state)
    if refused:
        return refused
    if actor.kind == "seat" and actor.seat != state.current:
        return Rejection("not_your_turn")
    return None


def _bite_arg(state: ChasseState, seat: int, args: Args) -> tuple[int | None, Rejection | None]:
    bite = args.get("bite")
    if bite is None:
        return None, None
    if not whole(bite):
        return None, Rejection("bad_arguments", {"detail": "bite"})
    if not state.player(seat).vampire:
        return None, Rejection("travellers_do_not_bite")
    problem = may_bite(state, seat, bite)
    if problem is None:
        return bite, None
    params = {"seat": bite, "max": max(state.order)} if problem == "no_such_seat" else {"seat": bite}
    return bite, Rejection(problem, params)


def _check_stop(state: ChasseState, actor: Viewer, args: Args) -> Rejection | None:
    if board_of(state) is not None:
        return Rejection("use_the_board")
    assert actor.seat is not None
    place = args.get("place")
    problem = may_stop(state, state.player(actor.seat), place) if isinstance(place, str) else "unknown_place"
    if problem:
        return Rejection(problem, {"place": str(place)[:20]})
    _, refused = _bite_arg(state, actor.seat, args)
    return refused


def _tell_stop(story: ChasseStory, actor: Viewer, args: Args) -> None:
    assert actor.seat is not None
    story.move(actor.seat, str(args["place"]), None, args.get("bite"))


def _square_arg(value: Any) -> Square | None:
    if isinstance(value, list | tuple) and len(value) == 2 and all(whole(v) for v in value):
        return int(value[0]), int(value[1])
    return None


def _victim_square(state: ChasseState, bite: int | None) -> Square | None:
    return None if bite is None else state.player(bite).square


def _check_move(state: ChasseState, actor: Viewer, args: Args) -> Rejection | None:
    if board_of(state) is None:
        return Rejection("use_your_board")
    assert actor.seat is not None
    to = _square_arg(args.get("to"))
    if to is None:
        return Rejection("bad_arguments", {"detail": "to"})
    bite, refused = _bite_arg(state, actor.seat, args)
    if refused:
        return refused
    options = reachable(state, actor.seat)
    if to not in options:
        return Rejection("square_out_of_reach", {"allowance": state.allowance})
    if _victim_square(state, bite) not in options[to]:
        return Rejection("victim_not_on_the_way", {"seat": bite})
    return None


def _tell_move(story: ChasseStory, actor: Viewer, args: Args) -> None:
    assert actor.seat is not None
    board = board_of(story.state)
    assert board is not None
    to = _square_arg(args["to"])
    assert to is not None
    story.move(actor.seat, place_of(board, to), to, args.get("bite"))


def _check_stay(state: ChasseState, actor: Viewer, args: Args) -> Rejection | None:
    """Moving is compulsory (C-M3): a pawn stays only when the board leaves it no square at all."""
    if board_of(state) is None:
        return Rejection("use_your_board")
    assert actor.seat is not None
    return Rejection("must_move") if reachable(state, actor.seat) else None


def _tell_stay(story: ChasseStory, actor: Viewer, args: Args) -> None:
    assert actor.seat is not None
    story.tell("pawn_blocked", {"seat": actor.seat})
    story.next_turn()


# -- transfusions (C-B3, 5.8 item 7) -----------------------------------------------------------------

def _volunteer(state: ChasseState, actor: Viewer) -> Rejection | None:
    refused = _unpaused(state)
    if refused:
        return refused
    assert actor.seat is not None
    if state.player(actor.seat).role != "traveller":
        return Rejection("only_travellers_give")
    if state.transfusion_of(actor.seat) is not None:
        return Rejection("bitten_cannot_give")
    return None


def _check_offer(state: ChasseState, actor: Viewer, args: Args) -> Rejection | None:
    victim = args.get("victim")
    pending = state.transfusion_of(victim) if whole(victim) else None
    if pending is None:
        return Rejection("no_transfusion_pending")
    if pending.victim == actor.seat:
        return Rejection("cannot_give_to_yourself")
    if pending.donor is not None:
        return Rejection("donor_found", {"seat": pending.donor})
    return None


def _tell_offer(story: ChasseStory, actor: Viewer, args: Args) -> None:
    """The companion looks into the volunteer's hidden stack and says only yes or no."""
    assert actor.seat is not None
    victim = int(args["victim"])
    pending = story.state.transfusion_of(victim)
    assert pending is not None
    compatible = actor.seat in donors(story.state, victim, pending.group)
    story.tell("blood_offered", {"donor": actor.seat, "victim": victim, "compatible": compatible}, reveals=True)
    story.transfuse()


# -- the glass (C-M5) --------------------------------------------------------------------------------

def _running(state: ChasseState, actor: Viewer) -> Rejection | None:
    return None if state.glass is not None and state.glass.running else Rejection("glass_not_running")


def _stopped(state: ChasseState, actor: Viewer) -> Rejection | None:
    return None if state.glass is not None and not state.glass.running else Rejection("glass_running")


def _tell_pause(story: ChasseStory, actor: Viewer, args: Args) -> None:
    glass = story.state.glass
    assert glass is not None
    story.tell("glass_paused", countdown.paused(glass, story.at_us))


def _tell_resume(story: ChasseStory, actor: Viewer, args: Args) -> None:
    glass = story.state.glass
    assert glass is not None
    story.tell("glass_resumed", countdown.resumed(glass, story.at_us))


def _check_turn_over(state: ChasseState, actor: Viewer, args: Args) -> Rejection | None:
    """A turn-over for a glass already turned (a late or doubled timer) is stale."""
    assert state.glass is not None
    return None if args.get("turns") == state.glass.turns else Rejection("stale_turn_over")


def _tell_turn_over(story: ChasseStory, actor: Viewer, args: Args) -> None:
    story.turn_over()


def _check_outage(state: ChasseState, actor: Viewer, args: Args) -> Rejection | None:
    return None if whole(args.get("stopped_us")) else Rejection("bad_arguments", {"detail": "stopped_us"})


def _tell_outage(story: ChasseStory, actor: Viewer, args: Args) -> None:
    """The service was down from `stopped_us` (its last mark, on the timeline it had then): the
    glass ran until then, and runs on from now with the sand it had left (countdown.held)."""
    glass = story.state.glass
    assert glass is not None
    story.tell("glass_held", countdown.held(glass, story.at_us, int(args["stopped_us"])))


MOVES: dict[str, Move[ChasseState, Any]] = {
    "roll": Move(_tell_roll, phases=("start_roll", "play"), stages=(None, "roll"), by=("seat", "table", "host"),
                 whose=_roller),
    "stop": Move(_tell_stop, phases=("play",), stages=("move",), whose=_current, check=_check_stop),
    "move": Move(_tell_move, phases=("play",), stages=("move",), whose=_current, check=_check_move),
    "stay": Move(_tell_stay, phases=("play",), stages=("move",), whose=_current, check=_check_stay),
    "offer_blood": Move(_tell_offer, phases=("play",), whose=_volunteer, check=_check_offer),
    "pause_glass": Move(_tell_pause, phases=("play",), by=("host",), refused="host_only", whose=_running),
    "resume_glass": Move(_tell_resume, phases=("play",), by=("host",), refused="host_only", whose=_stopped),
    "turn_over": Move(_tell_turn_over, phases=("play",), by=("system",), whose=_running, check=_check_turn_over),
    "clock_outage": Move(_tell_outage, phases=("play",), by=("system",), whose=_running, check=_check_outage),
}

__all__ = ["MOVES", "story"]
