"""The one TOML configuration file, validated at start.

Every value has a default, so the service runs with no file at all. A wrong value stops the start
with one line that names the key and the problem; an unknown key is an error too (a typo must not
silently fall back to a default). Each part keeps its own settings' value (the `[buttons]`
section builds `companion.buzzers.settings.ButtonsConfig`), so nothing below the config imports it.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from companion.buzzers.settings import BUTTON_SOURCES, ButtonsConfig
from companion.buzzers.wiring import BUTTON_GPIOS
from companion.dice import Catalogue, build_catalogue
from companion.errors import ConfigError
from companion.games.base import OptionsError
from companion.games.chasse.board import load_board
from companion.table.gamerun import UNDO_POLICIES, UndoPolicy
from companion.table.seating import MAX_SEATS, MIN_SEATS

DEFAULT_CONFIG_NAME = "companion.toml"
LANGUAGES = ("en", "fr")


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 8080
    threads: int = 48
    public_url: str = ""
    """The address printed and put in the QR code; found from the network interfaces when empty."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    seats: int = 6
    language: str = "en"
    undo: UndoPolicy = "host_and_own"
    tray: str = "2d6"


@dataclass(frozen=True, slots=True)
class Config:
    server: ServerConfig = field(default_factory=ServerConfig)
    table: TableConfig = field(default_factory=TableConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    data_dir: Path = Path("data")
    catalogue: Catalogue = field(default_factory=lambda: load_catalogue({}, {}, None))
    source: Path | None = None
    chasse_board: Mapping[str, Any] | None = None
    """La chasse au vampire's board on the companion's board mode: the owner's own map, read from
    the file `[chasse] board` names (None: the map that ships, unverified)."""


def shipped_dice() -> Mapping[str, Any]:
    """The dice data file that ships inside the package (facts copied from the rule specs)."""
    with resources.files("companion.data").joinpath("dice.toml").open("rb") as fh:
        return tomllib.load(fh)


def load_catalogue(dice: Mapping[str, Any], presets: Mapping[str, Any], source: str | None) -> Catalogue:
    return build_catalogue(shipped_dice(), dice, presets, source)


_SECTIONS: dict[str, set[str]] = {
    "server": {"host", "port", "threads", "public_url"},
    "table": {"seats", "language", "undo", "tray"},
    "buttons": {"source", "gpio_pins", "serial_port", "confirm_ms", "mask_ms", "stuck_s"},
    "data": {"dir"},
    "dice": set(),
    "dice_presets": set(),
    "chasse": {"board"},
}


def load_config(path: Path | None, overrides: Mapping[str, Any] | None = None) -> Config:
    """Defaults, then the file at `path` (if any), then `overrides` ("server.port" -> 9000)."""
    raw: dict[str, Any] = {}
    source = str(path) if path else None
    if path is not None:
        try:
            with open(path, "rb") as fh:
                raw = tomllib.load(fh)
        except FileNotFoundError:
            raise ConfigError("--config", f"no such file: {path}") from None
        except IsADirectoryError:
            raise ConfigError("--config", f"{path} is a folder, not a TOML file") from None
        except PermissionError:
            raise ConfigError("--config", f"cannot read {path}: permission denied") from None
        except tomllib.TOMLDecodeError as err:
            raise ConfigError("(file)", f"not valid TOML: {err}", source) from None
        except UnicodeDecodeError:
            raise ConfigError("(file)", "not valid TOML: the file is not UTF-8 text", source) from None
    for section, value in raw.items():
        if section not in _SECTIONS:
            raise ConfigError(section, _unknown(section, _SECTIONS), source)
        if not isinstance(value, dict):
            raise ConfigError(section, "must be a table ([" + section + "])", source)
        if _SECTIONS[section]:
            for key in value:
                if key not in _SECTIONS[section]:
                    raise ConfigError(f"{section}.{key}", _unknown(key, _SECTIONS[section]), source)
    values = {f"{s}.{k}": v for s, table in raw.items() if _SECTIONS[s] for k, v in table.items()}
    cli_keys = set()
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = value
            cli_keys.add(key)

    def where(key: str) -> str | None:
        return None if key in cli_keys else source

    def get(key: str, default: Any) -> Any:
        return values.get(key, default)

    server = ServerConfig(
        host=_text(get("server.host", "0.0.0.0"), "server.host", where("server.host"), allow_empty=False),
        port=_int(get("server.port", 8080), "server.port", 1, 65535, where("server.port")),
        threads=_int(get("server.threads", 48), "server.threads", 4, 1000, where("server.threads")),
        public_url=_url(get("server.public_url", ""), "server.public_url", where("server.public_url")),
    )
    table = TableConfig(
        seats=_int(get("table.seats", 6), "table.seats", MIN_SEATS, MAX_SEATS, where("table.seats")),
        language=_choice(get("table.language", "en"), "table.language", LANGUAGES, where("table.language")),
        undo=_choice(get("table.undo", "host_and_own"), "table.undo", UNDO_POLICIES, where("table.undo")),
        tray=_text(get("table.tray", "2d6"), "table.tray", where("table.tray"), allow_empty=False),
    )
    buttons = ButtonsConfig(
        source=_choice(get("buttons.source", "auto"), "buttons.source", BUTTON_SOURCES, where("buttons.source")),
        gpio_pins=_pins(get("buttons.gpio_pins", []), "buttons.gpio_pins", where("buttons.gpio_pins")),
        serial_port=_text(get("buttons.serial_port", ""), "buttons.serial_port", where("buttons.serial_port")),
        confirm_ms=_number(get("buttons.confirm_ms", 5.0), "buttons.confirm_ms", 0.5, 100, where("buttons.confirm_ms")),
        mask_ms=_number(get("buttons.mask_ms", 50.0), "buttons.mask_ms", 1, 2000, where("buttons.mask_ms")),
        stuck_s=_number(get("buttons.stuck_s", 5.0), "buttons.stuck_s", 1, 600, where("buttons.stuck_s")),
    )
    if buttons.source == "gpio" and not buttons.gpio_pins:
        raise ConfigError("buttons.gpio_pins", 'list the GPIO pins with buttons (source = "gpio" needs them)',
                          where("buttons.gpio_pins"))
    data_value = _text(get("data.dir", "data"), "data.dir", where("data.dir"), allow_empty=False)
    data_dir = Path(data_value).expanduser()
    if not data_dir.is_absolute() and path is not None and "data.dir" not in cli_keys:
        data_dir = path.parent / data_dir  # relative to the config file, like most tools
    catalogue = load_catalogue(raw.get("dice", {}), raw.get("dice_presets", {}), source)
    if table.tray not in catalogue.presets:
        raise ConfigError("table.tray", f"no dice preset called {table.tray!r} "
                          f"(known: {', '.join(catalogue.presets)})", where("table.tray"))
    board_value = get("chasse.board", None)
    chasse_board = None
    if board_value is not None:
        board_path = Path(_text(board_value, "chasse.board", where("chasse.board"), allow_empty=False)).expanduser()
        if not board_path.is_absolute() and path is not None and "chasse.board" not in cli_keys:
            board_path = path.parent / board_path
        chasse_board = _board(board_path, where("chasse.board"))
    return Config(server, table, buttons, data_dir, catalogue, path, chasse_board)


def _board(path: Path, source: str | None) -> Mapping[str, Any]:
    """The owner's board file (JSON, as rules/chasse-au-vampire's board data), checked now: a
    mistake in it is a start-up error naming the key, not a game that cannot start."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ConfigError("chasse.board", f"no such file: {path}", source) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError("chasse.board", f"cannot read {path}: {err}", source) from None
    except ValueError as err:
        raise ConfigError("chasse.board", f"{path} is not valid JSON: {err}", source) from None
    try:
        return load_board(data).to_json()
    except OptionsError as err:
        raise ConfigError("chasse.board", f"{path}: {err.key}: {err.problem}", source) from None


def _unknown(key: str, known: Mapping[str, Any] | set[str]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(sorted(known))})"
    return f"unknown key{hint}"


def _int(value: Any, key: str, low: int, high: int, source: str | None) -> int:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"must be a whole number from {low} to {high} (got {value!r})", source)
    if not low <= value <= high:
        raise ConfigError(key, f"must be from {low} to {high} (got {value})", source)
    return value


def _number(value: Any, key: str, low: float, high: float, source: str | None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(key, f"must be a number from {low:g} to {high:g} (got {value!r})", source)
    if not low <= value <= high:
        raise ConfigError(key, f"must be from {low:g} to {high:g} (got {value})", source)
    return float(value)


def _pins(value: Any, key: str, source: str | None) -> tuple[int, ...]:
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise ConfigError(key, f"must be a list of GPIO numbers such as [17, 27, 22] (got {value!r})", source)
    wrong = [v for v in value if v not in BUTTON_GPIOS]
    if wrong:
        raise ConfigError(key, f"GPIO{wrong[0]} is not on the header (BCM numbers 2 to 27)", source)
    if len(set(value)) != len(value):
        raise ConfigError(key, "a pin is listed twice", source)
    if len(value) > MAX_SEATS + 1:
        raise ConfigError(key, f"at most {MAX_SEATS + 1} buttons (one per seat and an arm button)", source)
    return tuple(value)


def _text(value: Any, key: str, source: str | None, allow_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise ConfigError(key, f"must be a text in quotes (got {value!r})", source)
    if not allow_empty and not value.strip():
        raise ConfigError(key, "must not be empty", source)
    return value.strip()


def _choice(value: Any, key: str, choices: tuple[str, ...], source: str | None) -> Any:
    if value not in choices:
        raise ConfigError(key, f"must be one of {', '.join(repr(c) for c in choices)} (got {value!r})", source)
    return value


def _url(value: Any, key: str, source: str | None) -> str:
    text = _text(value, key, source)
    if text and not (text.startswith("http://") or text.startswith("https://")):
        raise ConfigError(key, f"must start with http:// or https:// (got {text!r})", source)
    return text.rstrip("/")
