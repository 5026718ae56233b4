"""What follows Dracula's moves: a phase ends when everyone it waits on has answered, when its time
runs out (then each late player gets the default that gives nobody an edge, and the host is told
who), or when the host ends it; the next phase then begins, and the night is resolved in the
rules' order.

The defaults when time runs out (the start form's phase lengths):
* day: no vote cast; dusk and the maps: last night's room (the first night: a room drawn at
  random), no object used; night actions: no action; the tortured asked whether to pass for
  human: the truth is shown (6.7);
  final phase: a human who did not choose neither flees nor fights, a fighter who named nobody
  has named nobody (and fights all the same).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.fairness.rng import RandomSource
from companion.games.base import Story
from companion.games.dracula import final as final_rules
from companion.games.dracula import night as night_rules
from companion.games.dracula import vote as vote_rules
from companion.games.dracula.evolve import evolve
from companion.games.dracula.options import NIGHTS
from companion.games.dracula.rules import deal, default_room, hand_out, human_map_users
from companion.games.dracula.state import CLOCKED, Action, DraculaState, Phase

DURATION_OF: dict[str, str] = {
    "day": "day_s", "dusk": "dusk_s", "maps": "dusk_s", "dracula": "dusk_s", "actions": "actions_s",
    "torture": "torture_s", "dawn": "dawn_s", "final_choice": "final_s", "final_target": "final_s",
}


_ENDS_WHEN_ANSWERED = frozenset((*CLOCKED, "roles"))
"""The phases that end early once nobody is left to answer."""


def waiting_for(state: DraculaState) -> list[int]:
    """The seats the phase waits on: when none is left, it ends early. Nobody while the clock is
    paused (the table stopped to talk) or while the game waits on the host."""
    return list(_waiting(state))


def awaits(state: DraculaState, seat: int | None) -> bool:
    """Whether the phase waits on `seat` now (every answer's check asks it)."""
    return seat in _waiting(state)


def _waiting(state: DraculaState) -> Sequence[int]:
    """`waiting_for`, worked out once per state (kept in its `wall`, the pause included) and never
    copied: the sequence is the cache's own, never changed."""
    waiting: Sequence[int] | None = state.wall.get("waiting")
    if waiting is None:
        waiting = state.wall["waiting"] = () if state.paused() else owed(state)
    return waiting


def owed(state: DraculaState) -> list[int]:
    """The seats whose answer the phase still needs, paused or not."""
    phase = state.phase
    players = state.players
    if phase in ("roles", "dawn", "dracula") or (phase == "day" and not votes_today(state)):
        return [p.seat for p in players if not p.ready and (phase != "dracula" or p.seat not in state.sanctuary)]
    if phase == "day":
        voters = {b.voter for b in state.ballots}
        return [p.seat for p in players if p.seat not in voters and not p.ready]
    if phase == "dusk":
        return [p.seat for p in state.in_rooms() if p.choice is None]
    if phase == "maps":
        return sorted(s for s in human_map_users(state) if state.player(s).room is None)
    if phase == "actions":
        return [p.seat for p in state.in_rooms() if p.action is None]
    if phase == "torture":
        return [s for s in state.tortured if s not in state.torture_answers]
    if phase == "final_choice":
        return [p.seat for p in players if p.alive and not p.vampire and p.stance is None]
    if phase == "final_target":
        return [p.seat for p in players if p.stance == "fight" and not p.named_done]
    return []


def votes_today(state: DraculaState) -> bool:
    """D-1, 6.8 item 1: the vote is held only on a day before a night that uses the sanctuary."""
    return state.night >= 2 and state.options["sanctuary_capacity"] > 0


class DraculaStory(Story[DraculaState]):
    # -- phases ----------------------------------------------------------------------------------

    def begin(self, phase: Phase, night: int | None = None) -> None:
        data: dict[str, Any] = {"phase": phase, "since_us": self.at_us}
        if night is not None:
            data["night"] = night
        if phase in CLOCKED:
            data["full_us"] = int(self.state.options[DURATION_OF[phase]]) * 1_000_000
        self.tell("phase_begun", data)

    def finish(self) -> None:
        """A phase nobody is waiting on any more ends (repeatedly: the next one may need nobody)."""
        for _ in range(20):
            state = self.state
            if state.phase not in _ENDS_WHEN_ANSWERED or state.paused() or _waiting(state):
                return
            self.close()

    def close(self, timed_out: bool = False) -> None:
        """End the phase: defaults for whoever did not answer, then what comes next."""
        late = owed(self.state) if timed_out else []
        if late:
            self.tell("phase_timed_out", {"phase": self.state.phase, "seats": late})
            self.defaults(late)
        getattr(self, f"_after_{self.state.phase}")()

    def defaults(self, late: list[int]) -> None:
        phase = self.state.phase
        for seat in late:
            if phase == "dusk":
                self.tell("room_chosen", {"seat": seat, "room": default_room(self.state, seat, self.rng), "use": False})
            elif phase == "maps":
                self.tell("room_settled", {"seat": seat, "room": default_room(self.state, seat, self.rng)})
            elif phase == "actions":
                self.tell("action_chosen", {"seat": seat})
            elif phase == "torture":
                self.tell("disguise_chosen", {"seat": seat, "human": False})
            elif phase == "final_choice":
                self.tell("stance_taken", {"seat": seat, "stance": "none"})
            elif phase == "final_target":
                self.tell("vampire_named", {"seat": seat, "named": None})

    def _after_roles(self) -> None:
        self.begin("day")

    def _after_day(self) -> None:
        if votes_today(self.state):
            ballots = [vote_rules.Ballot(b.voter, b.candidate, b.sent_us, b.uncertainty_us) for b in self.state.ballots]
            tally = vote_rules.sanctuary(ballots, int(self.state.options["sanctuary_capacity"]), self.rng.randbelow)
            self.tell("sanctuary_chosen", {"chosen": list(tally.chosen), "tally": tally.to_json()})
        self.begin("dusk")

    def _after_dusk(self) -> None:
        state = self.state
        rooms = {p.seat: p.choice.room if p.choice else None for p in state.in_rooms()}
        curses = {p.seat: p.choice.curse for p in state.in_rooms()
                  if p.vampire and p.choice is not None and p.choice.use and p.obj == "map" and p.choice.curse}
        settled = night_rules.apply_curses(rooms, curses, state.vampires())
        self.tell("rooms_settled", {"rooms": {str(s): r for s, r in settled.items()}})
        if human_map_users(self.state):
            self.begin("maps")
        else:
            self._rooms_known()

    def _after_maps(self) -> None:
        self._rooms_known()

    def _rooms_known(self) -> None:
        """D-3: on the first night Dracula sees everyone's room and chooses his; then the positions."""
        if self.state.night == 1 and self.state.phase != "dracula":
            self.begin("dracula")
        else:
            self.post_positions()

    def _after_dracula(self) -> None:
        self.post_positions()

    def post_positions(self) -> None:
        rooms = {str(p.seat): p.room for p in self.state.in_rooms()}
        self.tell("positions_posted", {"rooms": rooms}, reveals=True)
        self.begin("actions")

    def _after_actions(self) -> None:
        state = self.state
        victims = night_rules.tortured(self.night())
        if victims and not state.tortured:
            # D-S4: Dracula may pass for human. Every tortured player is asked alike, so that the
            # question, and the table's wait for the answer, says nothing of who is Dracula.
            self.tell("torture_asked", {"seats": sorted(victims)})
            self.begin("torture")
        else:
            self.resolve()

    def _after_torture(self) -> None:
        self.resolve()

    def night(self) -> night_rules.Night:
        return night_of(self.state)

    def resolve(self) -> None:
        """D-5: the night's outcome; a person GM confirms it before anyone is told."""
        night = self.night()
        outcome = night_rules.outcome(night)
        data = outcome_json(self.state, outcome, night_rules.treasure_rooms(night) if self.state.night < NIGHTS else ())
        if self.state.options["gm"] == "person":
            self.tell("night_prepared", data)
            self.begin("confirm")
        else:
            self.announce(data)

    def announce(self, data: Mapping[str, Any]) -> None:
        self.tell("night_resolved", data, reveals=True)
        if self.state.night == 2:
            objects = hand_out(self.state, self.rng)
            self.tell("objects_dealt", {"objects": {str(s): kind for s, kind in objects.items()}})
        self.begin("dawn")

    def _after_dawn(self) -> None:
        state = self.state
        if not state.humans():
            self.end_round()
        elif state.night >= NIGHTS:
            self.begin("final_choice")
        else:
            self.begin("day", state.night + 1)

    def _after_final_choice(self) -> None:
        if any(p.stance == "fight" for p in self.state.players):
            self.begin("final_target")
        else:
            self.resolve_final()

    def _after_final_target(self) -> None:
        self.resolve_final()

    def resolve_final(self) -> None:
        """D-F3..5. A human who let the time run out neither fled nor fought: the phase is settled
        among those who chose (nobody chose: no fight, nobody dies, nobody is awarded)."""
        state = self.state
        fighters = {p.seat: p.named for p in state.players if p.stance == "fight"}
        fled = frozenset(p.seat for p in state.players if p.stance == "flee")
        points = {p.seat: p.halves / 2 for p in state.players}
        if fighters or fled:
            outcome = final_rules.final_outcome(state.vampires(), state.dracula, frozenset(fighters) | fled,
                                                fighters, fled, points)
        else:
            outcome = final_rules.Final(True, frozenset(), frozenset(), False, points)
        self.tell("final_resolved", {**outcome.to_json(), "vampires": sorted(state.vampires()),
                                     "halves": {str(s): round(v * 2) for s, v in outcome.points.items()}},
                  reveals=True)
        self.end_round()

    def end_round(self) -> None:
        """The round's points are revealed, and its Dracula with the seal's salt (6.5 default)."""
        state = self.state
        self.tell("round_ended", {
            "round": state.round, "dracula": state.dracula, "commitment": state.commitment, "salt": state.salt,
            "halves": {str(p.seat): p.halves for p in state.players},
            "dead": sorted(p.seat for p in state.players if not p.alive),
            "vampires": sorted(state.vampires())}, reveals=True)

    def next_round(self) -> None:
        state = self.state
        if state.round >= int(state.options["rounds"]):
            self.tell("series_ended", {"totals": {str(p.seat): p.total_halves for p in state.players}})
        else:
            self.tell("round_dealt", deal(state, state.round + 1, self.rng))


def night_of(state: DraculaState) -> night_rules.Night:
    """Tonight as the night's rules see it: where each player is, the object used and the action
    (made once per state, for the night's resolution)."""
    night = state.wall.get("night")
    if night is None:
        night = state.wall["night"] = _night(state, with_actions=True)
    return night


def positions_of(state: DraculaState) -> night_rules.Night:
    """Tonight as an action is checked against (`night.action_problem`): where each player is,
    their nature and object, without the actions, which no check reads. Every phone's choices are
    checked against it, and the actions chosen leave it as it is, so evolve hands it on through
    the actions phase."""
    night = state.wall.get("positions")
    if night is None:
        night = state.wall["positions"] = _night(state, with_actions=False)
    return night


_NO_ACTION = Action()


def _night(state: DraculaState, with_actions: bool) -> night_rules.Night:
    sleepers = []
    for p in state.players:
        action = p.action if with_actions and p.action is not None else _NO_ACTION
        curse = p.choice.curse if p.choice is not None and p.used == "map" and p.vampire else None
        sleepers.append(night_rules.Sleeper(
            p.seat, p.vampire, p.dracula, None if p.seat in state.sanctuary else p.room, p.used,
            curse[0] if curse else None, action.bite, action.snoop, action.snoop_target, action.treasure,
            p.halves / 2))
    return night_rules.Night(state.night, tuple(sleepers), frozenset(state.treasure_rooms),
                             {p.seat: p.snooped for p in state.players}, bool(state.disguised))


def outcome_json(state: DraculaState, outcome: night_rules.Outcome, treasure: tuple[str, ...]) -> dict[str, Any]:
    """A night's outcome as an event's data (the whole of it: the events stay on the server)."""
    return {
        "night": state.night,
        "converted": sorted(outcome.converted),
        "halves": {str(s): round(points * 2) for s, points in outcome.points.items()},
        "snooped": {str(s): room for s, room in outcome.snooped.items()},
        "waltzes": [list(pair) for pair in outcome.waltzes],
        "boudoir": sorted(outcome.boudoir),
        "caged": sorted(outcome.caged),
        "tortured": sorted(outcome.tortured),
        "notices": {str(s): [dict(n) for n in news] for s, news in outcome.notices.items()},
        "room_log": {room: [dict(e) for e in log] for room, log in outcome.room_log.items()},
        "treasure_rooms": list(treasure),
    }


def story(state: DraculaState, at_us: int, rng: RandomSource) -> DraculaStory:
    return DraculaStory(state, at_us, rng, evolve)
