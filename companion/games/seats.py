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
        for player in self.players:
            if player.seat == seat:
                return player
        raise KeyError(seat)

    def seated(self, seat: int | None) -> bool:
        """Whether `seat` plays in this game (None, a seat of nobody, never does). The rules ask it of
        nearly every argument and actor: a loop over a few players is faster than `any` running
        its generator, or a list of their seats made to be searched."""
        if seat is None:
            return False
        for player in self.players:  # noqa: SIM110 - any() and its generator cost twice as much
            if player.seat == seat:
                return True
        return False
