"""Dracula's sanctuary vote (D-1, 6.7, 6.8 items 1-3): who may be voted for, which ballots count,
and who stays in the sanctuary.

The tie-break of the original is speed: among equal counts, the candidate who "collected their votes
the fastest" stays. A phone's ballot is timed on the host timeline (server arrival minus the phone's
measured one-way delay), and that time is only known to within the delay estimate's uncertainty. Two
candidates whose times are closer than their combined uncertainty cannot honestly be ordered, so
they are tied, and a tie that decides who is in is settled by a recorded, verifiable draw, never by
seat number or by the order in which the server happened to read the packets.

Pure functions; the draw comes in as an argument (`RandomSource.randbelow`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

CAPACITY = 3
"""D-1: the three players with the most votes stay in the sanctuary (adjustable for small tables)."""
FIRST_VOTING_DAY = 2
"""6.8 item 1: night 1 has no sanctuary, so day 1 has no vote."""

Draw = Callable[[int, str], int]
"""`draw(n, label)`: a uniform integer in [0, n), recorded under `label` (RandomSource.randbelow)."""


@dataclass(frozen=True, slots=True)
class Ballot:
    """One vote, timed when the phone sent it, on the host timeline."""

    voter: int
    candidate: int
    sent_us: int
    """Server arrival minus the phone's measured one-way delay."""
    uncertainty_us: int
    """The +/- of `sent_us`: the phone's delay estimate's uncertainty."""

    def __post_init__(self) -> None:
        if self.uncertainty_us < 0:
            raise ValueError(f"a ballot's uncertainty cannot be negative: {self.uncertainty_us}")

    @classmethod
    def received(cls, voter: int, candidate: int, arrival_us: int, delay_us: int, delay_uncertainty_us: int) -> Ballot:
        """A ballot from its server arrival time and the phone's delay estimate: the phone sent it
        one delay earlier than the server read it, give or take the estimate's uncertainty."""
        return cls(voter, candidate, arrival_us - delay_us, delay_uncertainty_us)


@dataclass(frozen=True, slots=True)
class Standing:
    """One candidate's line in the result, in ranking order."""

    candidate: int
    votes: int
    reached_us: int
    """When the candidate reached its final total: the `sent_us` of its last ballot (6.8 item 3)."""
    uncertainty_us: int
    """That ballot's uncertainty."""
    tied_with: tuple[int, ...] = ()
    """Candidates with the same votes whose reach times are within the sum of both uncertainties."""
    drawn: bool = False
    """The candidate took part in a draw for a sanctuary place: its place was settled by the draw."""

    def to_json(self) -> dict[str, object]:
        return {"candidate": self.candidate, "votes": self.votes, "reached_us": self.reached_us,
                "uncertainty_us": self.uncertainty_us, "tied_with": list(self.tied_with), "drawn": self.drawn}


@dataclass(frozen=True, slots=True)
class Tally:
    """The sanctuary's result: who stays, and the whole ranking with its times, so the table can see
    why (the issue asks for the times and their uncertainty to be shown after the vote)."""

    capacity: int
    chosen: tuple[int, ...]
    """At most `capacity` candidates, in ranking order; seats stay empty when fewer have votes."""
    ranking: tuple[Standing, ...]

    def to_json(self) -> dict[str, object]:
        rows = []
        for place, standing in enumerate(self.ranking, start=1):
            row = standing.to_json()
            row["place"] = place
            row["chosen"] = standing.candidate in self.chosen
            rows.append(row)
        return {"capacity": self.capacity, "chosen": list(self.chosen), "ranking": rows}


def day_has_vote(day: int) -> bool:
    """6.8 item 1: only a day followed by a night that uses the sanctuary has a vote (day 2 on)."""
    return day >= FIRST_VOTING_DAY


def eligible(players: Sequence[int], sanctuary_nights: Mapping[int, int], voter: int | None = None,
             self_vote_allowed: bool = True) -> tuple[int, ...]:
    """Who may be voted for, in seat order: nobody who already spent a night in the sanctuary this
    round (D-1; `sanctuary_nights` counts the nights that bar, so a night from the optional sanctuary
    key is not counted by the state), and, for `voter`, not themselves when the option forbids it."""
    return tuple(p for p in players
                 if sanctuary_nights.get(p, 0) == 0 and (self_vote_allowed or voter is None or p != voter))


def ballot_problem(voter: int, candidate: int, players: Collection[int], already_voted: Collection[int],
                   ineligible: Collection[int], self_vote_allowed: bool) -> str | None:
    """Why this ballot cannot count, as a stable code, or None. One vote per player that cannot be
    changed (D-1, 6.8 item 2); a ballot for an ineligible candidate is refused, so it never counts."""
    if voter not in players:
        return "not_a_player"
    if candidate not in players:
        return "no_such_player"
    if voter in already_voted:
        return "already_voted"
    if candidate in ineligible:
        return "not_eligible"
    if candidate == voter and not self_vote_allowed:
        return "no_self_vote"
    return None


@dataclass(frozen=True, slots=True)
class _Count:
    candidate: int
    votes: int
    reached_us: int
    uncertainty_us: int


def _counts(ballots: Sequence[Ballot]) -> list[_Count]:
    """Each voted-for candidate's total and the ballot that brought it there (the latest sent; of
    two sent at the same instant, the less certain one, so a doubt is never hidden)."""
    voters = [b.voter for b in ballots]
    if len(set(voters)) != len(voters):
        raise ValueError("a voter has two ballots; ballot_problem must refuse the second")
    by_candidate: dict[int, list[Ballot]] = {}
    for ballot in ballots:
        by_candidate.setdefault(ballot.candidate, []).append(ballot)
    counts = []
    for candidate, own in by_candidate.items():
        last = max(own, key=lambda b: (b.sent_us, b.uncertainty_us))
        counts.append(_Count(candidate, len(own), last.sent_us, last.uncertainty_us))
    return counts


def _surely_before(a: _Count, b: _Count) -> bool:
    """`a` ranks above `b` whatever the clocks' true errors: more votes, or as many votes and a reach
    time earlier by more than the two uncertainties together. This is a strict partial order (an
    interval order): transitive, but "not surely ordered" is not (A~B, B~C and yet A before C)."""
    if a.votes != b.votes:
        return a.votes > b.votes
    return b.reached_us - a.reached_us > a.uncertainty_us + b.uncertainty_us


def _tied(a: _Count, b: _Count) -> bool:
    return a is not b and not _surely_before(a, b) and not _surely_before(b, a)


def _surely_in(c: _Count, field: Sequence[_Count], seats: int) -> bool:
    """`c` gets one of `seats` places in every order that respects the sure orders: fewer than
    `seats` others might end up above it."""
    return sum(1 for d in field if d is not c and not _surely_before(c, d)) < seats


def _time_key(c: _Count) -> tuple[int, int, int]:
    """Time order, for places that no draw needs to settle (the seat number only orders two lines
    with identical times whose order decides nothing)."""
    return (c.reached_us, c.uncertainty_us, c.candidate)


def sanctuary(ballots: Sequence[Ballot], capacity: int, draw: Draw) -> Tally:
    """Who stays in the sanctuary (D-1, 6.8 item 3): the ballots are valid ones (ballot_problem).

    Places are filled one at a time from the candidates no remaining candidate surely precedes. When
    the one to take next is certain to be in whatever happens, it is taken in time order without a
    draw; only when every such candidate could still end up in or out (the cut at `capacity` falls
    inside a group that cannot be ordered) is the place drawn among them. Drawing one place at a
    time among the "not surely preceded" keeps every sure order, even along a chain of ties."""
    if capacity < 0:
        raise ValueError(f"the sanctuary cannot hold {capacity} players")
    remaining = _counts(ballots)
    field = list(remaining)
    order: list[_Count] = []
    drawn: set[int] = set()
    seats = capacity
    while remaining:
        minimal = sorted((c for c in remaining if not any(_surely_before(d, c) for d in remaining)), key=_time_key)
        if seats > 0:
            certain = [c for c in minimal if _surely_in(c, remaining, seats)]
            if certain:
                pick = certain[0]
            else:
                pool = sorted(minimal, key=lambda c: c.candidate)
                label = f"sanctuary place {len(order) + 1} of {[c.candidate for c in pool]}"
                index = draw(len(pool), label)
                if not 0 <= index < len(pool):
                    raise ValueError(f"draw {label!r} gave {index}, not below {len(pool)}")
                pick = pool[index]
                drawn.update(c.candidate for c in pool)
            seats -= 1
        else:
            pick = minimal[0]
        order.append(pick)
        remaining.remove(pick)
    ranking = tuple(
        Standing(c.candidate, c.votes, c.reached_us, c.uncertainty_us,
                 tuple(sorted(d.candidate for d in field if _tied(c, d))), c.candidate in drawn)
        for c in order)
    return Tally(capacity, tuple(c.candidate for c in order[:capacity]), ranking)
