"""The dice catalogue: which dice exist and what is printed on their faces.

Facts come from the project's data file (copied from the rule specs) and the owner's config may
override any die or add new ones. Faces a source did not confirm carry `verified = False`, and the
interface says so; an owner who writes a die's faces in the config has checked them, so an override
is verified unless it says otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.errors import ConfigError

MIN_FACES = 2
MAX_FACES = 100
MAX_LABEL = 24
LANGUAGES = ("en", "fr")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True, slots=True)
class Face:
    """One face: a number (dice that add up), or a symbol with a name in each language."""

    label: Mapping[str, str]
    value: int | None = None
    colour: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"label": dict(self.label), "value": self.value, "colour": self.colour}


@dataclass(frozen=True, slots=True)
class Die:
    id: str
    name: Mapping[str, str]
    faces: tuple[Face, ...]
    verified: bool = True
    game: str | None = None

    @property
    def numeric(self) -> bool:
        return all(face.value is not None for face in self.faces)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": dict(self.name),
            "faces": [face.to_json() for face in self.faces],
            "verified": self.verified,
            "game": self.game,
        }


@dataclass(frozen=True, slots=True)
class Preset:
    """A named set of dice rolled together, e.g. the two duel dice of a game."""

    id: str
    name: Mapping[str, str]
    dice: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": dict(self.name), "dice": list(self.dice)}


@dataclass(frozen=True, slots=True)
class Catalogue:
    dice: Mapping[str, Die]
    presets: Mapping[str, Preset]

    def to_json(self) -> dict[str, Any]:
        return {
            "dice": [die.to_json() for die in self.dice.values()],
            "presets": [preset.to_json() for preset in self.presets.values()],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Catalogue:
        """Reads back `to_json` output (e.g. from a game's log), checking it as strictly as config."""
        dice: dict[str, Die] = {}
        for i, raw in enumerate(_list(data.get("dice"), "dice")):
            where = f"dice[{i}]"
            raw = _table(raw, where)
            die_id = _die_id(raw.get("id"), f"{where}.id")
            faces = tuple(
                _stored_face(face, f"{where}.faces[{j}]")
                for j, face in enumerate(_faces_list(raw.get("faces"), f"{where}.faces"))
            )
            dice[die_id] = Die(
                die_id,
                _names(raw.get("name"), f"{where}.name", die_id),
                faces,
                _bool(raw.get("verified", True), f"{where}.verified"),
                _optional_str(raw.get("game"), f"{where}.game"),
            )
        presets = {}
        for i, raw in enumerate(_list(data.get("presets", []), "presets")):
            preset = _preset(_table(raw, f"presets[{i}]"), f"presets[{i}]", dice, None)
            presets[preset.id] = preset
        return cls(dice, presets)


def build_catalogue(
    base: Mapping[str, Any],
    dice_overrides: Mapping[str, Any] | None = None,
    preset_overrides: Mapping[str, Any] | None = None,
    source: str | None = None,
) -> Catalogue:
    """The catalogue from the data file (`base`), then the owner's `[dice.*]` and `[dice_presets.*]`.

    `source` is the file name errors are attributed to for the overrides.
    """
    symbols = _symbols(base.get("symbols", {}))
    dice: dict[str, Die] = {}
    for die_id, spec in _table(base.get("dice", {}), "dice").items():
        dice[die_id] = _die(die_id, _table(spec, f"dice.{die_id}"), symbols, f"dice.{die_id}", None)
    for die_id, spec in _table(dice_overrides or {}, "dice", source).items():
        where = f"dice.{die_id}"
        spec = _table(spec, where, source)
        inherited = dice.get(die_id)
        dice[die_id] = _die(die_id, spec, symbols, where, source, inherited)
    presets: dict[str, Preset] = {}
    for preset_id, spec in _table(base.get("presets", {}), "presets").items():
        raw = dict(_table(spec, f"presets.{preset_id}"), id=preset_id)
        presets[preset_id] = _preset(raw, f"presets.{preset_id}", dice, None)
    for preset_id, spec in _table(preset_overrides or {}, "dice_presets", source).items():
        raw = dict(_table(spec, f"dice_presets.{preset_id}", source), id=preset_id)
        presets[preset_id] = _preset(raw, f"dice_presets.{preset_id}", dice, source)
    return Catalogue(dice, presets)


def _die(
    die_id: str,
    spec: Mapping[str, Any],
    symbols: Mapping[str, Face],
    where: str,
    source: str | None,
    inherited: Die | None = None,
) -> Die:
    _die_id(die_id, where, source)
    known = {"name", "faces", "verified", "game"}
    for key in spec:
        if key not in known:
            raise ConfigError(f"{where}.{key}", f"unknown key (expected one of: {', '.join(sorted(known))})", source)
    if "faces" not in spec and inherited is None:
        raise ConfigError(f"{where}.faces", "a new die needs a list of faces", source)
    if "faces" in spec:
        raw_faces = _faces_list(spec["faces"], f"{where}.faces", source)
        faces = tuple(_face(face, symbols, f"{where}.faces[{i}]", source) for i, face in enumerate(raw_faces))
        # Writing the faces in one's own config is a confirmation against the physical die.
        verified = _bool(spec.get("verified", True), f"{where}.verified", source)
    else:
        assert inherited is not None
        faces = inherited.faces
        verified = _bool(spec.get("verified", inherited.verified), f"{where}.verified", source)
    fallback = inherited.name if inherited else {lang: die_id for lang in LANGUAGES}
    name = _names(spec["name"], f"{where}.name", die_id, source) if "name" in spec else dict(fallback)
    game = _optional_str(spec.get("game", inherited.game if inherited else None), f"{where}.game", source)
    return Die(die_id, name, faces, verified, game)


def _face(raw: Any, symbols: Mapping[str, Face], where: str, source: str | None) -> Face:
    if isinstance(raw, bool):
        raise ConfigError(where, "a face is a whole number or a short text, not true/false", source)
    if isinstance(raw, int):
        if not -999 <= raw <= 9999:
            raise ConfigError(where, f"number {raw} is out of range (-999..9999)", source)
        return Face({lang: str(raw) for lang in LANGUAGES}, raw)
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            raise ConfigError(where, "a face label cannot be empty", source)
        if len(text) > MAX_LABEL:
            raise ConfigError(where, f"a face label has at most {MAX_LABEL} characters", source)
        if not text.isprintable():
            raise ConfigError(where, "a face label must be printable text", source)
        return symbols.get(text) or Face({lang: text for lang in LANGUAGES})
    raise ConfigError(where, f"a face is a whole number or a short text, got {type(raw).__name__}", source)


def _stored_face(raw: Any, where: str) -> Face:
    raw = _table(raw, where)
    value = raw.get("value")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(f"{where}.value", "must be a whole number or null")
    colour = raw.get("colour")
    if colour is not None and (not isinstance(colour, str) or not _COLOUR.match(colour)):
        raise ConfigError(f"{where}.colour", "must be a colour like #a1b2c3 or null")
    return Face(_names(raw.get("label"), f"{where}.label", None), value, colour)


def _symbols(raw: Any) -> dict[str, Face]:
    symbols = {}
    for key, spec in _table(raw, "symbols").items():
        spec = _table(spec, f"symbols.{key}")
        colour = spec.get("colour")
        if colour is not None and (not isinstance(colour, str) or not _COLOUR.match(colour)):
            raise ConfigError(f"symbols.{key}.colour", "must be a colour like #a1b2c3")
        label = _names({lang: spec.get(lang) for lang in LANGUAGES}, f"symbols.{key}", None)
        symbols[key] = Face(label, None, colour)
    return symbols


def _preset(raw: Mapping[str, Any], where: str, dice: Mapping[str, Die], source: str | None) -> Preset:
    preset_id = _die_id(raw.get("id"), f"{where}.id", source)
    members = _list(raw.get("dice"), f"{where}.dice", source)
    if not 1 <= len(members) <= 20:
        raise ConfigError(f"{where}.dice", "a preset rolls 1 to 20 dice", source)
    for i, die_id in enumerate(members):
        if die_id not in dice:
            raise ConfigError(f"{where}.dice[{i}]", f"no die called {die_id!r} in the catalogue", source)
    return Preset(preset_id, _names(raw.get("name"), f"{where}.name", preset_id, source), tuple(members))


def _names(raw: Any, where: str, fallback: str | None, source: str | None = None) -> dict[str, str]:
    """A name in every language: one text for all, or a table with `en` and `fr`."""
    if raw is None and fallback is not None:
        return {lang: fallback for lang in LANGUAGES}
    if isinstance(raw, str) and raw.strip():
        return {lang: raw.strip() for lang in LANGUAGES}
    if isinstance(raw, Mapping):
        names = {}
        for lang in LANGUAGES:
            text = raw.get(lang)
            if not isinstance(text, str) or not text.strip():
                raise ConfigError(f"{where}.{lang}", "needs a non-empty text", source)
            names[lang] = text.strip()
        return names
    raise ConfigError(where, "needs a text, or a table with 'en' and 'fr' texts", source)


def _die_id(raw: Any, where: str, source: str | None = None) -> str:
    if not isinstance(raw, str) or not _ID.match(raw):
        raise ConfigError(where, f"{raw!r} is not a valid id (lower-case letters, digits and '-', at most 32)", source)
    return raw


def _faces_list(raw: Any, where: str, source: str | None = None) -> Sequence[Any]:
    faces = _list(raw, where, source)
    if not MIN_FACES <= len(faces) <= MAX_FACES:
        raise ConfigError(where, f"a die has {MIN_FACES} to {MAX_FACES} faces, this one has {len(faces)}", source)
    return faces


def _list(raw: Any, where: str, source: str | None = None) -> Sequence[Any]:
    if not isinstance(raw, list | tuple):
        raise ConfigError(where, "must be a list", source)
    return raw


def _table(raw: Any, where: str, source: str | None = None) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError(where, "must be a table", source)
    return raw


def _bool(raw: Any, where: str, source: str | None = None) -> bool:
    if not isinstance(raw, bool):
        raise ConfigError(where, "must be true or false", source)
    return raw


def _optional_str(raw: Any, where: str, source: str | None = None) -> str | None:
    if raw is not None and not isinstance(raw, str):
        raise ConfigError(where, "must be a text", source)
    return raw
