"""Dracula's moves: when each command is legal, who may make it, its check and its telling.

Every answer a phase asks for is final once given (a vote, a room, an action, a stance): the
table sees them arrive and no one may take one back to react to another's. The phone sends them;
the server checks every one (a forged request is refused and changes nothing).
"""

from __future__ import annotations

from typing import Any

from companion.games import countdown
from companion.games.base import Args, Move, Rejection, Viewer, ViewerKind
from companion.games.dracula import letters as letter_rules
from companion.games.dracula import night as night_rules
from companion.games.dracula import vote as vote_rules
from companion.games.dracula.options import ROOMS
from companion.games.dracula.rules import deal, eligible
from companion.games.dracula.state import DraculaState
from companion.games.dracula.story import DraculaStory, awaits, positions_of, story, votes_today
from companion.games.options import whole

MAX_EXTEND_S = 600


def _unpaused(state: DraculaState) -> Rejection | None:
    return Rejection("clock_paused") if state.paused() else None


def _awaited(state: DraculaState, actor: Viewer) -> Rejection | None:
    """The phase waits on this player's answer (and has not had it yet)."""
    if state.paused():
        return Rejection("clock_paused")
    if not awaits(state, actor.seat):
        return Rejection("already_answered" if _answered(state, actor.seat) else "nothing_asked_of_you")
    return None


def _answered(state: DraculaState, seat: int | None) -> bool:
    if seat is None:
        return False
    p = state.player(seat)
    return {"day": state.voted(seat) or p.ready, "dusk": p.choice is not None, "actions": p.action is not None,
            "final_choice": p.stance is not None, "final_target": p.named_done}.get(state.phase, p.ready)


# -- ready: the role read, day 1's talk done, the dawn's news read ---------------------------------

def _check_ready(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    if state.phase == "day" and votes_today(state) and _may_vote(state, actor.seat):
        return Rejection("vote_first")
    return None


def _may_vote(state: DraculaState, seat: int | None) -> bool:
    assert seat is not None
    seats, voters, ineligible = [p.seat for p in state.players], _voters(state), _ineligible(state)
    self_vote = bool(state.options["self_vote"])
    return any(vote_rules.ballot_problem(seat, c, seats, voters, ineligible, self_vote) is None
               for c in eligible(state))


def _tell_ready(story: DraculaStory, actor: Viewer, args: Args) -> None:
    story.tell("ready", {"seat": actor.seat})


# -- the vote (D-1, 6.7, 6.8 items 1-3) ------------------------------------------------------------

def _voters(state: DraculaState) -> set[int]:
    return {b.voter for b in state.ballots}


def _ineligible(state: DraculaState) -> set[int]:
    return {p.seat for p in state.players} - set(eligible(state))


def _check_vote(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    if not votes_today(state):
        return Rejection("no_vote_today")
    candidate = args.get("candidate")
    assert actor.seat is not None
    if not whole(candidate):
        return Rejection("bad_arguments", {"detail": "candidate"})
    problem = vote_rules.ballot_problem(actor.seat, candidate, [p.seat for p in state.players], _voters(state),
                                        _ineligible(state), bool(state.options["self_vote"]))
    return Rejection(problem, {"seat": candidate}) if problem else None


def _tell_vote(story: DraculaStory, actor: Viewer, args: Args) -> None:
    story.tell("voted", {"voter": actor.seat, "candidate": int(args["candidate"]), "at_us": story.at_us,
                         "sent_us": story.sent_us, "uncertainty_us": story.uncertainty_us})


# -- rooms and objects (D-2, D-3, D-O) ---------------------------------------------------------------

def _room_arg(args: Args) -> str | Rejection | None:
    room = args.get("room")
    if room is None or room in ROOMS:
        return room
    return Rejection("unknown_room", {"room": str(room)[:20]})


def _check_dusk(state: DraculaState, seat: int, args: Args) -> Rejection | None:
    room = _room_arg(args)
    if isinstance(room, Rejection):
        return room
    use = args.get("use", False)
    if not isinstance(use, bool):
        return Rejection("bad_arguments", {"detail": "use"})
    me = state.player(seat)
    if use and me.obj is None:
        return Rejection("no_object")
    human_map = use and me.obj == "map" and not me.vampire
    if human_map and room is not None:
        return Rejection("map_chooses_later")
    if not human_map and room is None:
        return Rejection("choose_a_room")
    if use and me.obj == "map" and me.vampire:
        target, target_room = args.get("curse_target"), args.get("curse_room")
        if not whole(target) or not state.seated(target) or target == seat:
            return Rejection("curse_needs_a_player")
        if target_room not in ROOMS:
            return Rejection("curse_needs_a_room")
    return None


def _check_room(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    assert actor.seat is not None
    if state.phase == "dusk":
        return _check_dusk(state, actor.seat, args)
    room = _room_arg(args)
    if isinstance(room, Rejection):
        return room
    if room is None:
        return Rejection("choose_a_room")
    me = state.player(actor.seat)
    if state.phase == "dracula" and not me.dracula and room != me.room:
        return Rejection("your_room_is_set", {"room": me.room})
    if state.phase == "dracula" and me.dracula and not any(p.room == room for p in state.players if p.seat != me.seat):
        return Rejection("dracula_must_bite")  # D-N1: a room with nobody to bite
    return None


def _tell_room(story: DraculaStory, actor: Viewer, args: Args) -> None:
    state = story.state
    if state.phase == "dusk":
        data: dict[str, Any] = {"seat": actor.seat, "room": args.get("room"), "use": bool(args.get("use", False))}
        if "curse_target" in args and data["use"] and state.player(actor.seat).vampire:  # type: ignore[arg-type]
            data["curse"] = [int(args["curse_target"]), str(args["curse_room"])]
        story.tell("room_chosen", data)
    else:
        story.tell("room_settled", {"seat": actor.seat, "room": args["room"]})


# -- night actions (D-4) -----------------------------------------------------------------------------

def _action_args(args: Args) -> tuple[int | None, bool, int | None, bool] | Rejection:
    bite, snoop, target, treasure = args.get("bite"), args.get("snoop", False), args.get("target"), \
        args.get("treasure", False)
    if bite is not None and not whole(bite):
        return Rejection("bad_arguments", {"detail": "bite"})
    if target is not None and not whole(target):
        return Rejection("bad_arguments", {"detail": "target"})
    if not isinstance(snoop, bool) or not isinstance(treasure, bool):
        return Rejection("bad_arguments", {"detail": "snoop"})
    return bite, snoop, target, treasure


def _check_act(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    parsed = _action_args(args)
    if isinstance(parsed, Rejection):
        return parsed
    assert actor.seat is not None
    problem = action_problem(state, actor.seat, *parsed)
    return Rejection(problem) if problem else None


def action_problem(state: DraculaState, seat: int, bite: int | None, snoop: bool, target: int | None,
                   treasure: bool) -> str | None:
    """The night's rule, and one case it cannot see: Dracula alone in his room on the first night
    (his own choice ran out of time) cannot bite, so doing nothing is all he can do."""
    problem = night_rules.action_problem(positions_of(state), seat, bite, snoop, target, treasure)
    me = state.player(seat)
    if problem == "dracula_must_bite" and not any(p.room == me.room for p in state.players if p.seat != seat):
        return None
    return problem


def _tell_act(story: DraculaStory, actor: Viewer, args: Args) -> None:
    parsed = _action_args(args)
    assert not isinstance(parsed, Rejection)
    bite, snoop, target, treasure = parsed
    story.tell("action_chosen", {"seat": actor.seat, "bite": bite, "snoop": snoop, "snoop_target": target,
                                 "treasure": treasure})


def _unanswered_torture(state: DraculaState, actor: Viewer) -> Rejection | None:
    """Every phone shows the torture step's two answers, and any player may tap one (an answer of
    someone nobody tortured changes nothing): a glance at a phone, or a tap, tells nobody who was
    tortured. Only the tortured are waited on."""
    refused = _unpaused(state)
    if refused:
        return refused
    return Rejection("already_answered") if actor.seat in state.torture_answers else None


def _check_disguise(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    return None if isinstance(args.get("human"), bool) else Rejection("bad_arguments", {"detail": "human"})


def _tell_disguise(story: DraculaStory, actor: Viewer, args: Args) -> None:
    """Any tortured player answers; only Dracula's answer changes what the torturers learn."""
    story.tell("disguise_chosen", {"seat": actor.seat, "human": bool(args["human"])})


# -- private messages (6.9) --------------------------------------------------------------------------

def _check_write(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    to, kind = args.get("to"), args.get("kind", "message")
    assert actor.seat is not None
    if not whole(to):
        return Rejection("bad_arguments", {"detail": "to"})
    if not isinstance(kind, str) or not isinstance(args.get("text"), str) or \
            not isinstance(args.get("title", ""), str):
        return Rejection("bad_arguments", {"detail": "text"})
    problem = letter_rules.text_problem(args.get("title", ""), args["text"], kind) or \
        letter_rules.write_problem(post_of(state), actor.seat, to, kind)
    return Rejection(problem) if problem else None


def post_of(state: DraculaState) -> letter_rules.Post:
    """What the message rules need to know of the table now: the night's phases are all "night"
    (nobody writes from dusk to dawn); the final phase's two steps are "final". Made once per state."""
    post = state.wall.get("post")
    if post is None:
        post = state.wall["post"] = _post(state)
    return post


_POST_PHASES = {"maps": "night", "dracula": "night", "actions": "night", "torture": "night", "confirm": "night",
                "dawn": "night", "final_choice": "final", "final_target": "final"}


def post_phase(state: DraculaState) -> str:
    """The phase as the message rules name it."""
    return _POST_PHASES.get(state.phase, state.phase)


def _post(state: DraculaState) -> letter_rules.Post:
    return letter_rules.Post(
        phase=post_phase(state), number=state.night, players=frozenset(p.seat for p in state.players),
        vampires=state.vampires(), living=state.living(),
        fled=frozenset(p.seat for p in state.players if p.stance == "flee"), waltzes=state.waltzes,
        boudoir_writers=state.boudoir,
        letters=tuple(x for x in state.letters if x.round == state.round))


def _tell_write(story: DraculaStory, actor: Viewer, args: Args) -> None:
    state = story.state
    kind = str(args.get("kind", "message"))
    title = str(args.get("title", "")).strip()
    story.tell("letter_sent", {"number": len(state.letters) + 1, "sender": actor.seat, "recipient": int(args["to"]),
                               "kind": kind, "title": title, "text": str(args["text"]).strip(), "day": state.night,
                               "round": state.round, "phase": state.phase})


# -- the final phase (D-F) ---------------------------------------------------------------------------

def _check_stance(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    return None if args.get("stance") in ("flee", "fight") else Rejection("bad_arguments", {"detail": "stance"})


def _tell_stance(story: DraculaStory, actor: Viewer, args: Args) -> None:
    story.tell("stance_taken", {"seat": actor.seat, "stance": args["stance"]})


def _check_name(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    named = args.get("vampire")
    if not whole(named) or not state.seated(named):
        return Rejection("bad_arguments", {"detail": "vampire"})
    if not state.player(named).vampire:
        return Rejection("not_a_vampire", {"seat": named})
    return None


def _tell_name(story: DraculaStory, actor: Viewer, args: Args) -> None:
    story.tell("vampire_named", {"seat": actor.seat, "named": int(args["vampire"])})


# -- the clock and the host --------------------------------------------------------------------------

def _clocked(state: DraculaState, actor: Viewer) -> Rejection | None:
    return None if state.clock is not None else Rejection("no_clock_now")


def _endable(state: DraculaState, actor: Viewer) -> Rejection | None:
    """The host ends a phase on the clock, and the role reading too: it has no clock (nobody is
    rushed to read a role), but a phone that never answers must not hold the whole table."""
    return None if state.phase == "roles" else _clocked(state, actor)


def _running(state: DraculaState, actor: Viewer) -> Rejection | None:
    return None if state.clock is not None and state.clock.running else Rejection("clock_not_running")


def _stopped(state: DraculaState, actor: Viewer) -> Rejection | None:
    return None if state.clock is not None and not state.clock.running else Rejection("clock_running")


def _tell_pause(story: DraculaStory, actor: Viewer, args: Args) -> None:
    clock = story.state.clock
    assert clock is not None
    story.tell("clock_paused", countdown.paused(clock, story.at_us))


def _tell_resume(story: DraculaStory, actor: Viewer, args: Args) -> None:
    clock = story.state.clock
    assert clock is not None
    story.tell("clock_resumed", countdown.resumed(clock, story.at_us))


def _check_extend(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    seconds = args.get("seconds")
    return None if whole(seconds) and 10 <= seconds <= MAX_EXTEND_S else \
        Rejection("bad_arguments", {"detail": "seconds"})


def _tell_extend(story: DraculaStory, actor: Viewer, args: Args) -> None:
    clock = story.state.clock
    assert clock is not None
    by = int(args["seconds"]) * 1_000_000
    story.tell("clock_extended", {"left_us": clock.left_at(story.at_us) + by, "since_us": story.at_us, "by_us": by})


def _tell_end_phase(story: DraculaStory, actor: Viewer, args: Args) -> None:
    story.close(timed_out=True)


def _check_time_up(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    """A timer for a phase already over (a late or doubled one) is stale."""
    return None if args.get("step") == state.step else Rejection("stale_time_up")


def _check_outage(state: DraculaState, actor: Viewer, args: Args) -> Rejection | None:
    return None if whole(args.get("stopped_us")) else Rejection("bad_arguments", {"detail": "stopped_us"})


def _tell_outage(story: DraculaStory, actor: Viewer, args: Args) -> None:
    """The service was down from `stopped_us`: the phase's clock ran until then, and runs on from
    now with the time it had left."""
    clock = story.state.clock
    assert clock is not None
    story.tell("clock_held", countdown.held(clock, story.at_us, int(args["stopped_us"])))


def _tell_confirm(story: DraculaStory, actor: Viewer, args: Args) -> None:
    assert story.state.pending is not None
    story.announce(story.state.pending)


def _tell_next_round(story: DraculaStory, actor: Viewer, args: Args) -> None:
    story.next_round()


NIGHT_ROOM_PHASES = ("dusk", "maps", "dracula")
HOST: tuple[ViewerKind, ...] = ("host",)
MOVES: dict[str, Move[DraculaState, Any]] = {
    "ready": Move(_tell_ready, phases=("roles", "day", "dawn"), whose=_awaited, check=_check_ready),
    "vote": Move(_tell_vote, irrevocable=True, phases=("day",), whose=_awaited, check=_check_vote),
    "choose_room": Move(_tell_room, irrevocable=True, phases=NIGHT_ROOM_PHASES, whose=_awaited, check=_check_room),
    "act": Move(_tell_act, irrevocable=True, phases=("actions",), whose=_awaited, check=_check_act),
    "disguise": Move(_tell_disguise, irrevocable=True, phases=("torture",), whose=_unanswered_torture,
                     check=_check_disguise),
    "write": Move(_tell_write, irrevocable=True, check=_check_write),
    "stance": Move(_tell_stance, irrevocable=True, phases=("final_choice",), whose=_awaited, check=_check_stance),
    "name_vampire": Move(_tell_name, irrevocable=True, phases=("final_target",), whose=_awaited, check=_check_name),
    "pause_clock": Move(_tell_pause, by=HOST, refused="host_only", whose=_running),
    "resume_clock": Move(_tell_resume, by=HOST, refused="host_only", whose=_stopped),
    "extend_clock": Move(_tell_extend, by=HOST, refused="host_only", whose=_clocked, check=_check_extend),
    "end_phase": Move(_tell_end_phase, by=HOST, refused="host_only", whose=_endable),
    "confirm_night": Move(_tell_confirm, phases=("confirm",), by=HOST, refused="host_only"),
    "next_round": Move(_tell_next_round, phases=("round_over",), by=HOST, refused="host_only"),
    "time_up": Move(_tell_end_phase, by=("system",), whose=_running, check=_check_time_up),
    "clock_outage": Move(_tell_outage, by=("system",), whose=_running, check=_check_outage),
}

__all__ = ["MOVES", "deal", "story"]
