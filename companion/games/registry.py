"""Every game the companion can run, by id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import GameDefinition
from companion.games.dice_tray import DICE_TRAY

GAMES: Mapping[str, GameDefinition[Any]] = {game.id: game for game in (DICE_TRAY,)}
"""The games a host can start. The buzzer quiz joins once its screens and the service's button
wiring are in place (its rules and referee are already tested)."""
