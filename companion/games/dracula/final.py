"""Dracula's final phase and scoring (D-F, the scoring summary, 6.8 items 15-17, D-6 last bullet).

After night 5, if humans remain, each human flees (+0.5) or fights; each fighter names a vampire; the
named vampires burn. If Dracula burns, his namer gets +3 (+2 each if several named him), every other
fighter +1, and all vampires die. Otherwise the fighters die, and every living vampire with no point
this round gets +1. A dead player loses the round's points.

Readings decided here:
* A fighter who named nobody in time still fought: he burns nobody, shares the +1 of "every other
  fighter" when someone else burns Dracula, and dies with the others when nobody does. The choice to
  fight was public and irrevocable (D-F2); naming nobody is a miss, not a retreat.
* The 0-point bonus (D-F5) needs fighters who missed Dracula, so it applies when at least one human
  fought, named or not, and does not when everyone fled (6.8 item 15).
* "0 points" is the vampire's points of this round before the final phase (bites, garlic thefts).

Pure functions: the state machine checks each choice with `choice_problem` and `naming_problem`, then
asks `final_outcome` once every fighter has named (or the clock has run out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

CHOICES = ("flee", "fight")
AWARDS: Mapping[str, float] = {
    "fled": 0.5,
    "named_dracula": 3.0,
    "shared_dracula": 2.0,
    "fighter_bonus": 1.0,
    "unbitten_vampire_bonus": 1.0,
}
"""Every award the final phase gives, and its points (D-F2, D-F4, D-F5)."""
PODIUM_PLACES = 3


@dataclass(frozen=True, slots=True)
class Award:
    """Points one seat got in the final phase, and why (a key of AWARDS)."""

    reason: str
    points: float

    @classmethod
    def of(cls, reason: str) -> Award:
        return cls(reason, AWARDS[reason])


@dataclass(frozen=True, slots=True)
class Final:
    """How a round ended: who burned, who died, and the round's points after it."""

    held: bool
    """False when the round ended at dawn with no human left (D-6): no final phase."""
    burned: frozenset[int]
    dead: frozenset[int]
    dracula_burned: bool
    points: Mapping[int, float]
    """Every seat's round points after the final phase; a dead seat has 0."""
    awards: Mapping[int, tuple[Award, ...]] = field(default_factory=dict)
    fighters: frozenset[int] = frozenset()
    fled: frozenset[int] = frozenset()

    def to_json(self) -> dict[str, object]:
        """The public outcome (who fought and fled was said aloud; who named whom is not shown)."""
        return {
            "held": self.held, "burned": sorted(self.burned), "dead": sorted(self.dead),
            "dracula_burned": self.dracula_burned, "fighters": sorted(self.fighters), "fled": sorted(self.fled),
            "points": {str(seat): self.points[seat] for seat in sorted(self.points)},
            "awards": {str(seat): [{"reason": a.reason, "points": a.points} for a in self.awards[seat]]
                       for seat in sorted(self.awards)},
        }


def choice_problem(seat: int, choice: str, humans: Iterable[int], chosen: Iterable[int]) -> str | None:
    """Why this flee-or-fight choice cannot be taken (D-F2: humans only, once, irrevocably), or None."""
    if choice not in CHOICES:
        return "unknown_choice"
    if seat not in set(humans):
        return "not_a_human"
    if seat in set(chosen):
        return "already_chose"
    return None


def naming_problem(fighter: int, named: int, fighters: Iterable[int], vampires: Iterable[int],
                   already_named: Iterable[int]) -> str | None:
    """Why this fighter cannot name this player (D-F3: one vampire, once), or None. Any vampire may
    be named, also one another fighter named."""
    if fighter not in set(fighters):
        return "not_a_fighter"
    if fighter in set(already_named):
        return "already_named"
    if named not in set(vampires):
        return "not_a_vampire"
    return None


def _check(vampires: frozenset[int], dracula: int, humans: frozenset[int], fighters: Mapping[int, int | None],
           fled: frozenset[int]) -> None:
    if not humans:
        raise ValueError("no final phase without humans: the round ended at dawn (round_without_humans)")
    if vampires & humans:
        raise ValueError(f"seats both human and vampire: {sorted(vampires & humans)}")
    if dracula not in vampires:
        raise ValueError(f"Dracula ({dracula}) is not among the vampires")
    if set(fighters) & fled or set(fighters) | fled != humans:
        raise ValueError("each human must either flee or fight, not both")
    stray = {named for named in fighters.values() if named is not None} - vampires
    if stray:
        raise ValueError(f"fighters named players who are not vampires: {sorted(stray)}")


def _awards(vampires: frozenset[int], dracula: int, fighters: Mapping[int, int | None], fled: frozenset[int],
            points: Mapping[int, float], burned: frozenset[int]) -> dict[int, list[Award]]:
    awards: dict[int, list[Award]] = {seat: [Award.of("fled")] for seat in fled}
    if dracula in burned:
        namers = {f for f, named in fighters.items() if named == dracula}
        won = "named_dracula" if len(namers) == 1 else "shared_dracula"
        for fighter in fighters:
            awards[fighter] = [Award.of(won if fighter in namers else "fighter_bonus")]
    elif fighters:
        for vampire in vampires - burned:
            if points.get(vampire, 0) == 0:
                awards[vampire] = [Award.of("unbitten_vampire_bonus")]
    return awards


def final_outcome(vampires: frozenset[int], dracula: int, humans: frozenset[int],
                  fighters: Mapping[int, int | None], fled: frozenset[int], points: Mapping[int, float]) -> Final:
    """The final phase's result (D-F2..5, 6.8 items 15-16): `fighters` maps each fighter to the
    vampire they named (None: named nobody in time), `points` holds the round's points so far."""
    _check(vampires, dracula, humans, fighters, fled)
    burned = frozenset(named for named in fighters.values() if named is not None)
    if dracula in burned:
        dead = vampires
    elif fighters:
        dead = burned | frozenset(fighters)
    else:
        dead = frozenset()
    awards = _awards(vampires, dracula, fighters, fled, points, burned)
    seats = set(points) | vampires | humans
    after = {seat: 0.0 if seat in dead else float(points.get(seat, 0)) + sum(a.points for a in awards.get(seat, ()))
             for seat in sorted(seats)}
    return Final(True, burned, dead, dracula in burned, after,
                 {seat: tuple(awards[seat]) for seat in sorted(awards)}, frozenset(fighters), fled)


def round_without_humans(points: Mapping[int, float]) -> Final:
    """D-6: when no human is left at dawn, the round ends at once with no final phase: nobody burns
    or dies, nobody gets an award, and every point earned is kept."""
    return Final(False, frozenset(), frozenset(), False, {seat: float(value) for seat, value in points.items()})


def series_totals(rounds: Iterable[Mapping[int, float]]) -> dict[int, float]:
    """The series total of each seat: its round points added up (the scoring summary)."""
    totals: dict[int, float] = {}
    for points in rounds:
        for seat, value in points.items():
            totals[seat] = totals.get(seat, 0) + value
    return totals


def podium(totals: Mapping[int, float], places: int = PODIUM_PLACES) -> list[tuple[int, list[int], float]]:
    """The top `places` places over all rounds, as (place, seats, total), best first. Equal totals
    share a place and the next place is skipped (6.8 item 17: 1, 1, 3), so a tie for third shows
    every seat on it and nobody lower."""
    out: list[tuple[int, list[int], float]] = []
    ranked = 0
    for total in sorted(set(totals.values()), reverse=True):
        place = ranked + 1
        if place > places:
            break
        seats = sorted(seat for seat, value in totals.items() if value == total)
        out.append((place, seats, total))
        ranked += len(seats)
    return out
