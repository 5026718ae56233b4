"""The dice tray: anyone at the table rolls any set of dice from the catalogue.

Useful on its own (a shared, synchronised, logged roll for any board game) and the first mode that
goes through the whole pipeline: command -> event carrying the faces -> durable -> view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.dice import Catalogue, Die
from companion.errors import ConfigError
from companion.fairness.rng import RandomSource
from companion.games.base import (
    EVERYONE,
    Args,
    Command,
    Event,
    GameDefinition,
    Move,
    OptionsError,
    Rejection,
    SeatInfo,
    Secret,
    Story,
    Viewer,
)

MAX_DICE = 20
RECENT = 12
"""How many rolls the state keeps for display; the full history is the log."""


@dataclass(frozen=True, slots=True)
class RolledDie:
    die: str
    face: int

    def to_json(self) -> dict[str, Any]:
        return {"die": self.die, "face": self.face}


@dataclass(frozen=True, slots=True)
class Roll:
    number: int
    by: str
    at_us: int
    dice: tuple[RolledDie, ...]


@dataclass(frozen=True, slots=True)
class TrayState:
    catalogue: Catalogue
    seats: tuple[SeatInfo, ...]
    tray: tuple[str, ...]
    rolls_total: int = 0
    recent: tuple[Roll, ...] = ()
    catalogue_json: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The catalogue as views show it, built once per game: it never changes during a game."""
    recent_json: tuple[Mapping[str, Any], ...] = field(default=(), compare=False, repr=False)
    picture: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What every viewer sees, built once per state (the same object for all of them)."""
    seat_numbers: frozenset[int] = field(init=False, compare=False, repr=False)
    """Asked for every action of every screen after each roll: a set answers at once."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat_numbers", frozenset(s.number for s in self.seats))


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    try:
        catalogue = Catalogue.from_json(options.get("catalogue") or {})
    except ConfigError as err:
        raise OptionsError(f"catalogue.{err.key}", err.problem) from err
    if not catalogue.dice:
        raise OptionsError("catalogue.dice", "the tray needs at least one die")
    tray = options.get("tray", [])
    if isinstance(tray, str):
        if tray not in catalogue.presets:
            raise OptionsError("tray", f"no preset called {tray!r}")
        tray = list(catalogue.presets[tray].dice)
    if not isinstance(tray, list) or len(tray) > MAX_DICE or any(d not in catalogue.dice for d in tray):
        raise OptionsError("tray", f"a list of at most {MAX_DICE} dice from the catalogue")
    return {"catalogue": catalogue.to_json(), "tray": list(tray)}


def setup(options: Mapping[str, Any], seats: Sequence[SeatInfo], rng: RandomSource) -> TrayState:
    catalogue = Catalogue.from_json(options["catalogue"])
    return _pictured(TrayState(catalogue, tuple(seats), tuple(options["tray"]), catalogue_json=catalogue.to_json()))


def _requested_dice(state: TrayState, args: Mapping[str, Any]) -> tuple[list[str] | None, Rejection | None]:
    """The dice a roll or set_tray command names: `dice` (ids), `preset` (id), or neither."""
    if "dice" in args and "preset" in args:
        return None, Rejection("bad_arguments", {"detail": "dice|preset"})
    if "preset" in args:
        preset = args["preset"]
        if not isinstance(preset, str) or preset not in state.catalogue.presets:
            return None, Rejection("unknown_preset", {"preset": str(preset)[:40]})
        return list(state.catalogue.presets[preset].dice), None
    if "dice" in args:
        dice = args["dice"]
        if not isinstance(dice, list) or not all(isinstance(d, str) for d in dice):
            return None, Rejection("bad_arguments", {"detail": "dice"})
        if len(dice) > MAX_DICE:
            return None, Rejection("too_many_dice", {"max": MAX_DICE})
        for die in dice:
            if die not in state.catalogue.dice:
                return None, Rejection("unknown_die", {"die": die[:40]})
        return list(dice), None
    return None, None


def _dice_named(state: TrayState, args: Args) -> tuple[list[str] | None, Rejection | None]:
    """The dice a command names, or why its arguments name none."""
    unknown = set(args) - {"dice", "preset"}
    if unknown:
        return None, Rejection("bad_arguments", {"detail": ", ".join(sorted(unknown))[:80]})
    return _requested_dice(state, args)


def _check(state: TrayState, actor: Viewer, args: Args) -> Rejection | None:
    return _dice_named(state, args)[1]


def _check_roll(state: TrayState, actor: Viewer, args: Args) -> Rejection | None:
    dice, refused = _dice_named(state, args)
    if refused:
        return refused
    return None if (dice if dice is not None else state.tray) else Rejection("empty_tray")


def _tell_set_tray(story: Story[TrayState], actor: Viewer, args: Args) -> None:
    dice, _ = _requested_dice(story.state, args)
    story.tell("tray_set", {"dice": dice or []})


def _tell_roll(story: Story[TrayState], actor: Viewer, args: Args) -> None:
    state = story.state
    dice, _ = _requested_dice(state, args)
    chosen = dice if dice is not None else list(state.tray)
    number = state.rolls_total + 1
    rolled = []
    for i, die_id in enumerate(chosen):
        die = state.catalogue.dice[die_id]
        face = story.rng.randbelow(len(die.faces), f"roll {number} die {i + 1} {die_id}")
        # The label and value make the log readable on its own; evolve trusts only die and face.
        shown = die.faces[face]
        rolled.append({**RolledDie(die_id, face).to_json(), "label": dict(shown.label), "value": shown.value})
    values = [d["value"] for d in rolled]
    event_total = None if None in values else sum(values)
    story.tell("dice_rolled", {"number": number, "by": str(actor), "at_us": story.at_us, "dice": rolled,
                               "total": event_total})


MOVES: dict[str, Move[TrayState, Story[TrayState]]] = {
    # Anyone at the table rolls, the table display and the host included.
    "roll": Move(_tell_roll, by=EVERYONE, check=_check_roll),
    "set_tray": Move(_tell_set_tray, by=EVERYONE, check=_check),
}


def evolve(state: TrayState, event: Event) -> TrayState:
    if event.type == "tray_set":
        return _pictured(replace(state, tray=tuple(event.data["dice"])))
    if event.type == "dice_rolled":
        roll = Roll(
            event.data["number"],
            event.data["by"],
            event.data["at_us"],
            tuple(RolledDie(d["die"], d["face"]) for d in event.data["dice"]),
        )
        shown = (_roll_json(state.catalogue, roll), *state.recent_json)[:RECENT]
        return _pictured(replace(state, rolls_total=roll.number, recent=(*state.recent, roll)[-RECENT:],
                                 recent_json=shown))
    raise ValueError(f"the dice tray has no event {event.type!r}")


def total(catalogue: Catalogue, dice: Sequence[RolledDie]) -> int | None:
    """The sum of the faces when every die rolled is numeric, else None."""
    values = [catalogue.dice[d.die].faces[d.face].value for d in dice]
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def _roll_json(catalogue: Catalogue, roll: Roll) -> dict[str, Any]:
    dice = []
    for rolled in roll.dice:
        die: Die = catalogue.dice[rolled.die]
        face = die.faces[rolled.face]
        dice.append({"die": rolled.die, "face": rolled.face, **face.to_json()})
    return {
        "number": roll.number,
        "by": roll.by,
        "at_us": roll.at_us,
        "dice": dice,
        "total": total(catalogue, roll.dice),
    }


def _pictured(state: TrayState) -> TrayState:
    picture = {
        "game": "dice-tray",
        "catalogue": state.catalogue_json,
        "tray": list(state.tray),
        "rolls_total": state.rolls_total,
        "recent": list(state.recent_json),
    }
    return replace(state, picture=picture)


def view(state: TrayState, viewer: Viewer) -> dict[str, Any]:
    """Everything in the tray is public: every viewer gets the same picture (one shared object)."""
    return state.picture


def secrets(state: TrayState) -> list[Secret]:
    return []


def actions(state: TrayState, viewer: Viewer) -> list[Command]:
    """Roll the tray, or load any quick set into it."""
    return [Command("roll"), *(Command("set_tray", {"preset": p}) for p in state.catalogue.presets)]


def options_schema(defaults: Mapping[str, Any]) -> list[dict[str, Any]]:
    catalogue = Catalogue.from_json(defaults["catalogue"])
    return [{
        "key": "tray",
        "label": {"en": "Dice in the tray at the start", "fr": "Dés sur le plateau au départ"},
        "choices": [{"value": p.id, "label": dict(p.name)} for p in catalogue.presets.values()],
        "default": _preset_of(defaults.get("tray"), catalogue),
    }]


def _preset_of(tray: Any, catalogue: Catalogue) -> str | None:
    """The quick set a default tray is: the config names one, while the last game's options keep
    its dice (what normalize_options made of it)."""
    if isinstance(tray, str):
        return tray
    return next((p.id for p in catalogue.presets.values() if list(p.dice) == list(tray or ())), None)


_WORDS = {
    "en": {"rolled": "rolled", "tray": "tray set to", "empty": "nothing"},
    "fr": {"rolled": "a lancé", "tray": "plateau :", "empty": "rien"},
}


def describe(event: Event, lang: str) -> str:
    words = _WORDS.get(lang, _WORDS["en"])
    if event.type == "tray_set":
        return f"{words['tray']} {' + '.join(event.data['dice']) or words['empty']}"
    if event.type == "dice_rolled":
        faces = ", ".join(f"{d['die']} {d['label'].get(lang, d['label']['en'])}" for d in event.data["dice"])
        summed = event.data.get("total") is not None and len(event.data["dice"]) > 1
        suffix = f" = {event.data['total']}" if summed else ""
        return f"{event.data['by']} {words['rolled']} #{event.data['number']}: {faces}{suffix}"
    return event.type


DICE_TRAY: GameDefinition[TrayState] = GameDefinition(
    id="dice-tray",
    title={"en": "Dice tray", "fr": "Plateau de dés"},
    min_seats=0,
    max_seats=13,
    normalize_options=normalize_options,
    setup=setup,
    moves=MOVES,
    seated=lambda state, seat: seat in state.seat_numbers,
    evolve=evolve,
    view=view,
    secrets=secrets,
    describe=describe,
    actions=actions,
    # Everyone rolls and sets the tray: only a seat without a player is refused (not seated).
    offers_alike=lambda state, viewer: str(viewer) if viewer.kind == "seat" and viewer.seat not in state.seat_numbers
    else "everyone",
    sees_alike=lambda state, viewer: "everyone",
    options_schema=options_schema,
)
