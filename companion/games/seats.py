"""Finding a player by seat in a game's state (each game's state holds `players` in seat order)."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar


class HasSeat(Protocol):
    @property
    def seat(self) -> int: ...


P = TypeVar("P", bound=HasSeat)


class Seated(Generic[P]):
    """Mixed into a game state whose `players` field is a tuple of players with a `seat`."""

    players: tuple[P, ...]

    def player(self, seat: int) -> P:
        """The player at `seat`. Players are in seat order, and seats are most often numbered 1, 2,
        3...: the seat's own place is looked at first (nearly every check asks for a player)."""
        players = self.players
        if type(seat) is int and 0 < seat <= len(players) and players[seat - 1].seat == seat:
            return players[seat - 1]
        for player in players:
            if player.seat == seat:
                return player
        raise KeyError(seat)

    def seated(self, seat: int | None) -> bool:
        """Whether `seat` plays in this game (None, a seat of nobody, never does). The rules ask it of
        nearly every argument and actor: the seat's own place is looked at first, as `player` does,
        then a loop over a few players, faster than `any` running its generator, or a list of their
        seats made to be searched."""
        players = self.players
        if type(seat) is int and 0 < seat <= len(players) and players[seat - 1].seat == seat:
            return True
        if seat is None:
            return False
        for player in players:  # noqa: SIM110 - any() and its generator cost twice as much
            if player.seat == seat:
                return True
        return False
