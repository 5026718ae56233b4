"""The garlic game's moves: who may make each one when, its check, and the story it tells.

A turn runs roll -> reaction (the round keeper settles it) -> the first slapper's claim, or the
bat's or the moon's action -> penalties -> the dice pass. The first slapper answers for their slap;
the host or the other phones judge a claim when the cards are real; a wait that runs out is the
system's `timeout`, which its own check refuses when the game has moved on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

from companion.fairness.rng import RandomSource
from companion.games.base import EVERYONE, Args, Move, Rejection, Viewer, no_check
from companion.games.garlic.rules import (
    BAT_TARGETS,
    deadline,
    face_up_swap_allowed,
    is_up,
    moon_pair,
    names_number,
    slot_of,
    target,
)
from companion.games.garlic.state import BAT_KINDS, CLAIM_KINDS, GarlicState, Phase
from companion.games.garlic.story import GarlicStory
from companion.games.reactions import ROUND_LATE_PRESS, late_press_fits

# -- the dice and the round (S-S2, S-S4) ------------------------------------------------------------

def _roller(state: GarlicState, actor: Viewer) -> Rejection | None:
    if state.roller is None:
        # S-S2: the youngest rolls first; the companion cannot tell, so whoever rolls first is it.
        return None if actor.kind == "seat" else Rejection("youngest_rolls_first")
    if actor.kind == "seat" and actor.seat != state.roller:
        return Rejection("not_your_roll", {"name": state.player(state.roller).name})
    return None


def _tell_roll(story: GarlicStory, actor: Viewer, args: Args) -> None:
    roller = actor.seat if actor.kind == "seat" and story.state.roller is None else story.state.roller
    assert roller is not None
    story.roll(roller, str(actor))


def _check_settle(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    fits = names_number(args.get("round"), state.round) and isinstance(args.get("decision"), dict)
    return None if fits else Rejection("no_round")


def _tell_settle(story: GarlicStory, actor: Viewer, args: Args) -> None:
    story.settle(args["decision"])


def _check_late(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    """The round keeper lists a slap that came after the last race's decision (it changes no turn)."""
    last = state.result
    if not last:
        return Rejection("no_round")
    listed = [p["who"] for p in (*last.get("order", []), *last.get("false_starts", []), *last.get("late", []))]
    return None if late_press_fits(state.round, last.get("mode"), listed, args) else Rejection("no_round")


def _tell_late(story: GarlicStory, actor: Viewer, args: Args) -> None:
    story.tell(ROUND_LATE_PRESS, {"round": args["round"], "press": dict(args["press"])})


# -- a wait that ran out, and a penalty's chosen coffin (S-S9) --------------------------------------

def _check_timeout(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    """A timer that fires late or twice names a step the game has left: refused, harmless."""
    return None if names_number(args.get("step"), state.step) and deadline(state) is not None \
        else Rejection("not_now")


def _tell_timeout(story: GarlicStory, actor: Viewer, args: Args) -> None:
    """The earliest penalty gets a random coffin; an unmade claim is a wrong slap; an unused bat or
    moon passes; looked-at cards are swapped when the table says so."""
    state = story.state
    due = deadline(state)
    assert due is not None
    if due.command.args.get("for") == "penalty":
        penalty = state.penalties[0]
        down = state.player(penalty.seat).face_down()
        slot = down[story.rng.randbelow(len(down), f"penalty card of seat {penalty.seat}")]
        story.pay_by_reopening(penalty.seat, penalty.reason, slot, chosen=True)
        return
    seat = state.turn["seat"]
    if state.phase == "claim":
        story.tell("claim_withdrawn", {"seat": seat, "cause": "timeout"})
        story.penalise(seat, "no_claim")
        story.next_slapper_or_end()
    elif state.phase == "moon_look" and state.options["moon_must_swap_after_looking"]:
        story.swap(tuple(state.turn["a"]), tuple(state.turn["b"]), "down")
    else:
        story.tell("action_passed", {"seat": seat, "cause": "timeout"})
        story.end_action()


def _owes(state: GarlicState, actor: Viewer) -> Rejection | None:
    return None if any(p.seat == actor.seat for p in state.penalties) else Rejection("no_penalty_due")


def _check_reopen(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    assert actor.seat is not None
    where = slot_of(state, actor.seat, args.get("slot"))
    if where is None:
        return Rejection("bad_card")
    return Rejection("card_face_up") if is_up(state, where) else None


def _tell_reopen(story: GarlicStory, actor: Viewer, args: Args) -> None:
    assert actor.seat is not None
    reason = next(p.reason for p in story.state.penalties if p.seat == actor.seat)
    story.pay_by_reopening(actor.seat, reason, int(args["slot"]), chosen=True)


# -- the first slapper's action (S-S5..S-S7, ambiguities 2 and 8) ------------------------------------

def _slapper(state: GarlicState, actor: Viewer) -> Rejection | None:
    slapper = state.turn["seat"]
    if actor.kind != "seat" or actor.seat != slapper:
        return Rejection("not_first_slapper", {"name": state.player(slapper).name})
    return None


def _seat(actor: Viewer) -> int:
    assert actor.seat is not None
    return actor.seat


def _check_claim(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    kind = args.get("kind")
    if kind not in CLAIM_KINDS:
        return Rejection("bad_arguments", {"detail": "kind"})
    return target(state, _seat(actor), str(kind), args)[1]


def _tell_claim(story: GarlicStory, actor: Viewer, args: Args) -> None:
    state, seat = story.state, _seat(actor)
    where, _ = target(state, seat, args["kind"], args)
    assert where is not None
    if state.physical:
        story.tell("claim_made", {"seat": seat, "kind": args["kind"], "target": where[0], "slot": None})
        story.tell("judgement_asked", {"by": state.options["confirm_by"], "since_us": story.at_us})
    else:
        story.claim(seat, args["kind"], where)


def _tell_no_claim(story: GarlicStory, actor: Viewer, args: Args) -> None:
    seat = _seat(actor)
    story.tell("claim_withdrawn", {"seat": seat, "cause": "no_claim"})
    story.penalise(seat, "no_claim")  # ambiguity 2: a slap with nothing to show
    story.next_slapper_or_end()


def _check_bat(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    kind = args.get("kind")
    if kind not in BAT_KINDS:
        return Rejection("bad_arguments", {"detail": "kind"})
    return target(state, _seat(actor), BAT_TARGETS[kind], args)[1]


def _tell_bat(story: GarlicStory, actor: Viewer, args: Args) -> None:
    seat, kind = _seat(actor), args["kind"]
    where, _ = target(story.state, seat, BAT_TARGETS[kind], args)
    assert where is not None
    story.tell("bat_chosen", {"seat": seat, "kind": kind, "target": where[0]})
    story.bat(seat, kind, where)


def _check_moon(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    slapper = _seat(actor)
    if state.physical:
        face = args.get("face")
        if face not in ("down", "up"):
            return Rejection("bad_arguments", {"detail": "face"})
        if face == "up" and not face_up_swap_allowed(state, slapper):
            return Rejection("moon_face_down_first")
        return None
    pair, rejection = moon_pair(state, slapper, args)
    if rejection is not None:
        return rejection
    assert pair is not None
    return Rejection("moon_look_face_down") if args.get("look") and is_up(state, pair[0]) else None


def _tell_moon(story: GarlicStory, actor: Viewer, args: Args) -> None:
    state = story.state
    if state.physical:
        story.tell("cards_swapped", {"by": actor.seat, "a": None, "b": None, "face": args["face"]})
        story.end_action()
        return
    pair, _ = moon_pair(state, state.turn["seat"], args)
    assert pair is not None
    a, b = pair
    if args.get("look"):
        cards = [state.player(s).slots[i].card for s, i in (a, b)]
        story.tell("moon_looked", {"seat": state.turn["seat"], "a": list(a), "b": list(b), "cards": cards,
                                   "since_us": story.at_us}, reveals=True)
        return
    story.swap(a, b, "up" if is_up(state, a) else "down")


def _tell_swap(story: GarlicStory, actor: Viewer, args: Args) -> None:
    story.swap(tuple(story.state.turn["a"]), tuple(story.state.turn["b"]), "down")


def _check_keep(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    return Rejection("must_swap") if state.options["moon_must_swap_after_looking"] else None


def _tell_keep(story: GarlicStory, actor: Viewer, args: Args) -> None:
    story.tell("action_passed", {"seat": story.state.turn["seat"], "cause": "kept"})
    story.end_action()


def _tell_pass(story: GarlicStory, actor: Viewer, args: Args) -> None:
    story.tell("action_passed", {"seat": story.state.turn["seat"], "cause": "declined"})
    story.end_action()


# -- a claim the table judges (real cards, S-S5 with ambiguity 5) -----------------------------------

def _check_judge(state: GarlicState, actor: Viewer, args: Args) -> Rejection | None:
    if not isinstance(args.get("right"), bool):
        return Rejection("bad_arguments", {"detail": "right"})
    if actor.kind == "host":
        return None
    if state.options["confirm_by"] != "majority":
        return Rejection("host_judges")
    if actor.seat == state.turn["seat"]:
        return Rejection("others_judge")
    return Rejection("already_voted") if str(actor.seat) in state.turn.get("votes", {}) else None


def _tell_judge(story: GarlicStory, actor: Viewer, args: Args) -> None:
    state, right = story.state, bool(args["right"])
    if actor.kind == "seat":
        story.tell("claim_vote", {"seat": actor.seat, "right": right})
        votes = list(story.state.turn.get("votes", {}).values())
        needed = (len(state.players) - 1) // 2 + 1
        if votes.count(right) < needed:
            return
        by = "majority"
    else:
        by = "host"
    claim = state.turn["claim"]
    seat = state.turn["seat"]
    story.tell("claim_judged", {"seat": seat, "right": right, "by": by})
    where, _ = target(story.state, seat, claim["kind"], {"seat": claim["target"]})
    assert where is not None
    story.consequence(seat, claim["kind"], where, right)


# -- the moves --------------------------------------------------------------------------------------

Tell = Callable[[GarlicStory, Viewer, Args], None]


def _slappers(phases: tuple[str, ...], tell: Tell, check: Callable[..., Rejection | None] = no_check
              ) -> Move[GarlicState, GarlicStory]:
    """A move of the first slapper: anyone else is told whose it is."""
    return Move(tell, phases=phases, by=EVERYONE, whose=_slapper, check=check)


PAYING = tuple(phase for phase in get_args(Phase) if phase not in ("moon_look", "over"))
"""Where an owed coffin may be chosen: any time but while the moon slapper holds two coffins (S-S7)."""
MOVES: dict[str, Move[GarlicState, GarlicStory]] = {
    "roll": Move(_tell_roll, phases=("roll",), off_phase="dice_in_play", by=("seat", "table", "host"),
                 whose=_roller),
    "settle": Move(_tell_settle, phases=("reaction",), off_phase="no_round", by=("system",), check=_check_settle),
    "late_press": Move(_tell_late, by=("system",), check=_check_late),
    "timeout": Move(_tell_timeout, by=("system",), check=_check_timeout, when_over=True),
    "reopen": Move(_tell_reopen, phases=PAYING, by=("seat",), refused="no_penalty_due", whose=_owes,
                   check=_check_reopen),
    "claim": _slappers(("claim",), _tell_claim, _check_claim),
    "no_claim": _slappers(("claim",), _tell_no_claim),
    "bat": _slappers(("bat",), _tell_bat, _check_bat),
    "moon": _slappers(("moon",), _tell_moon, _check_moon),
    "pass": _slappers(("bat", "moon"), _tell_pass),
    "swap": _slappers(("moon_look",), _tell_swap),
    "keep": _slappers(("moon_look",), _tell_keep, _check_keep),
    "judge": Move(_tell_judge, phases=("confirm",), off_phase="nothing_to_judge", by=("host", "seat"),
                  refused="host_judges", check=_check_judge),
}


def story(state: GarlicState, at_us: int, rng: RandomSource) -> GarlicStory:
    return GarlicStory(state, at_us, rng)
