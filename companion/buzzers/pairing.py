"""Which button belongs to which seat: set by pairing, kept in `buttons.toml` in the data folder.

The file is configuration a person may read and edit (with the service stopped); the service
rewrites it whole, atomically, after every pairing, so a power cut leaves the old or the new
mapping and never half of one.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import ConfigError
from companion.table.seating import MAX_SEATS

PAIRING_FILE = "buttons.toml"
ARM = "arm"
"""The target of the table's own button, which belongs to no player: it arms a quiz round, or
rolls the dice for whoever's turn it is in the garlic game (the game says, see `table_button`)."""
BUTTON_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,15}:[A-Za-z0-9_-]{1,16}$")

Target = int | str
"""A seat number, or ARM."""


@dataclass
class ButtonMap:
    path: Path
    pairs: dict[str, Target] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> ButtonMap:
        if not path.exists():
            return cls(path)
        where = str(path)
        try:
            raw = tomllib.loads(path.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise ConfigError("(file)", f"not valid TOML: {err}", where) from None
        seats = raw.get("seats", {})
        if not isinstance(seats, dict) or set(raw) - {"seats"}:
            raise ConfigError("(file)", 'expected only a [seats] table ("source:button" = seat)', where)
        pairs: dict[str, Target] = {}
        for button, target in seats.items():
            if not BUTTON_NAME.fullmatch(button):
                raise ConfigError(f"seats.{button}", 'a button is named "source:button", e.g. "gpio:17"', where)
            if target != ARM and (isinstance(target, bool) or not isinstance(target, int)
                                  or not 1 <= target <= MAX_SEATS):
                raise ConfigError(f"seats.{button}", f'must be a seat from 1 to {MAX_SEATS} or "arm"', where)
            pairs[button] = target
        return cls(path, pairs)

    def target(self, button: str) -> Target | None:
        return self.pairs.get(button)

    def buttons_of(self, target: Target) -> list[str]:
        return sorted(b for b, t in self.pairs.items() if t == target)

    def pair(self, button: str, target: Target) -> None:
        """Bind `button` to `target`; a seat (or the arm role) has one button, so its old one goes."""
        pairs = {b: t for b, t in self.pairs.items() if t != target}
        pairs[button] = target
        self.save(pairs)
        self.pairs = pairs

    def unpair(self, button: str) -> bool:
        if button not in self.pairs:
            return False
        pairs = {b: t for b, t in self.pairs.items() if b != button}
        self.save(pairs)
        self.pairs = pairs
        return True

    def save(self, pairs: dict[str, Target]) -> None:
        """Write `pairs` whole; the map in memory changes only once they are on disk."""
        lines = [
            "# Which button belongs to which seat, written by pairing (the host console, or a phone's",
            '# "pair my button"). You may edit it while the companion is stopped. "arm": the table\'s',
            "# button (arms a quiz round, rolls the dice in the garlic game).",
            "[seats]",
            *(f'"{b}" = ' + (f'"{t}"' if isinstance(t, str) else str(t)) for b, t in sorted(pairs.items())),
        ]
        temporary = self.path.with_name(self.path.name + ".tmp")
        with open(temporary, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, self.path)
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
