"""Every game the companion can run, by id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.games.base import GameDefinition
from companion.games.buzzer_quiz import BUZZER_QUIZ
from companion.games.chasse import CHASSE_AU_VAMPIRE
from companion.games.dice_tray import DICE_TRAY
from companion.games.dracula import DRACULA
from companion.games.garlic import GARLIC_SLAP
from companion.games.nuit import NUIT_DES_VAMPIRES
from companion.games.vampir import VAMPIR

GAMES: Mapping[str, GameDefinition[Any]] = {
    game.id: game
    for game in (DICE_TRAY, BUZZER_QUIZ, GARLIC_SLAP, NUIT_DES_VAMPIRES, VAMPIR, CHASSE_AU_VAMPIRE, DRACULA)}
"""The games a host can start."""
