"""The dice catalogue: every shipped die's faces, the unverified ones flagged, owners' overrides."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from companion.config import load_catalogue, load_config
from companion.dice import Catalogue
from companion.games.base import HOST, TABLE, Command
from companion.table.session import Table
from tests.conftest import config_error


def faces(catalogue: Catalogue, die: str) -> list[object]:
    return [face.value if face.value is not None else face.label["en"] for face in catalogue.dice[die].faces]


SHIPPED = {
    "d4": ([1, 2, 3, 4], True),
    "d6": ([1, 2, 3, 4, 5, 6], True),
    "d8": (list(range(1, 9)), True),
    "d10": (list(range(1, 11)), True),
    "d12": (list(range(1, 13)), True),
    "d20": (list(range(1, 21)), True),
    "garlic-colour": (["yellow", "yellow", "violet", "violet", "!", "!"], False),
    "garlic-symbol": (["bat", "bat", "moon", "moon", "skull", "skull"], False),
    "nuit-black": ([1, 1, 2, 2, 3, 3], True),
    "nuit-red": ([1, 2, 2, 3, 3, 4], False),
    "chasse-d6": ([1, 2, 3, 4, 5, 6], True),
}


@pytest.mark.parametrize("die", sorted(SHIPPED))
def test_every_shipped_die_has_its_faces_and_verification_status(die: str) -> None:
    catalogue = load_catalogue({}, {}, None)
    expected, verified = SHIPPED[die]
    assert faces(catalogue, die) == expected
    assert catalogue.dice[die].verified is verified


def test_the_catalogue_is_exactly_the_shipped_dice_and_presets() -> None:
    catalogue = load_catalogue({}, {}, None)
    assert set(catalogue.dice) == set(SHIPPED)
    assert {p: list(catalogue.presets[p].dice) for p in catalogue.presets} == {
        "d6": ["d6"], "2d6": ["d6", "d6"], "d20": ["d20"], "garlic-slap": ["garlic-colour", "garlic-symbol"],
        "nuit-duel": ["nuit-red", "nuit-black"], "chasse": ["chasse-d6"],
    }


def test_symbol_faces_have_french_names_and_colours_have_a_name_beside_the_colour() -> None:
    catalogue = load_catalogue({}, {}, None)
    labels = {f.label["en"]: f.label["fr"] for d in ("garlic-colour", "garlic-symbol")
              for f in catalogue.dice[d].faces}
    assert labels == {"yellow": "jaune", "violet": "violet", "!": "!", "bat": "chauve-souris", "moon": "lune",
                      "skull": "crâne"}
    yellow = catalogue.dice["garlic-colour"].faces[0]
    assert yellow.colour == "#f2c300" and yellow.label["en"] == "yellow"


def test_an_owner_who_writes_the_faces_has_verified_them(tmp_path: Path) -> None:
    path = tmp_path / "companion.toml"
    path.write_text('[dice.nuit-red]\nfaces = [1, 2, 3, 3, 4, 4]\n\n[dice.d3]\nfaces = [1, 2, 3]\nname = "d3"\n'
                    '[dice_presets.three]\ndice = ["d3", "d3", "d3"]\nname = { en = "3d3", fr = "3d3" }\n')
    catalogue = load_config(path).catalogue
    assert faces(catalogue, "nuit-red") == [1, 2, 3, 3, 4, 4]
    assert catalogue.dice["nuit-red"].verified is True
    assert catalogue.dice["nuit-red"].name["fr"] == "Dé rouge (La nuit des vampires)", "the name is kept"
    assert faces(catalogue, "d3") == [1, 2, 3]
    assert list(catalogue.presets["three"].dice) == ["d3", "d3", "d3"]


def test_an_override_can_keep_a_die_marked_unverified(tmp_path: Path) -> None:
    path = tmp_path / "companion.toml"
    path.write_text('[dice.garlic-colour]\nfaces = ["yellow", "violet", "!"]\nverified = false\n')
    catalogue = load_config(path).catalogue
    assert catalogue.dice["garlic-colour"].verified is False
    assert faces(catalogue, "garlic-colour") == ["yellow", "violet", "!"]


@pytest.mark.parametrize(
    ("toml", "key", "problem"),
    [
        ("[dice.d7]\nname = 'd7'\n", "dice.d7.faces", "a new die needs a list of faces"),
        ("[dice.d6]\nfaces = [1]\n", "dice.d6.faces", "2 to 100 faces"),
        ("[dice.d6]\nfaces = []\n", "dice.d6.faces", "2 to 100 faces"),
        ("[dice.big]\nfaces = [" + ", ".join(["1"] * 101) + "]\n", "dice.big.faces", "2 to 100 faces"),
        ("[dice.d6]\nfaces = 6\n", "dice.d6.faces", "must be a list"),
        ("[dice.d6]\nfaces = [1, 2, true]\n", "dice.d6.faces[2]", "not true/false"),
        ("[dice.d6]\nfaces = [1, 2, 3.5]\n", "dice.d6.faces[2]", "got float"),
        ("[dice.d6]\nfaces = [1, ' ']\n", "dice.d6.faces[1]", "cannot be empty"),
        ("[dice.d6]\nfaces = [1, 'a very long label for one face']\n", "dice.d6.faces[1]", "at most 24"),
        ("[dice.d6]\nfaces = [1, 100000]\n", "dice.d6.faces[1]", "out of range"),
        ("[dice.d6]\nfaces = [1, 2]\nverified = 'yes'\n", "dice.d6.verified", "true or false"),
        ("[dice.d6]\nsides = 6\n", "dice.d6.sides", "unknown key"),
        ("[dice.BIG]\nfaces = [1, 2]\n", "dice.BIG", "not a valid id"),
        ("[dice.d6]\nfaces = [1, 2]\nname = { en = 'six' }\n", "dice.d6.name.fr", "non-empty text"),
        ("[dice]\nd6 = 6\n", "dice.d6", "must be a table"),
        ("[dice_presets.p]\ndice = ['d7']\n", "dice_presets.p.dice[0]", "no die called 'd7'"),
        ("[dice_presets.p]\ndice = []\n", "dice_presets.p.dice", "1 to 20 dice"),
    ],
)
def test_a_malformed_die_is_refused_with_its_key(tmp_path: Path, toml: str, key: str, problem: str) -> None:
    error = config_error(tmp_path, toml)
    assert error.key == key
    assert problem in error.problem


def test_rolls_use_every_face_of_a_die(table: Table) -> None:
    """Faces are drawn by index, so repeated labels (yellow, yellow) are separate faces."""
    table.handle(HOST, Command("start_game", {"game": "dice-tray", "options": {"tray": ["garlic-colour"]}}))
    seen: Counter[int] = Counter()
    for _ in range(600):
        outcome = table.handle(TABLE, Command("roll"))
        seen[outcome.events[-1].data["dice"][0]["face"]] += 1
    assert sorted(seen) == [0, 1, 2, 3, 4, 5]
    assert sum(seen.values()) == 600


def test_a_roll_records_labels_values_and_total(table: Table) -> None:
    table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
    event = table.handle(TABLE, Command("roll", {"preset": "nuit-duel"})).events[-1]
    dice = event.data["dice"]
    assert [d["die"] for d in dice] == ["nuit-red", "nuit-black"]
    assert event.data["total"] == sum(d["value"] for d in dice)
    event = table.handle(TABLE, Command("roll", {"preset": "garlic-slap"})).events[-1]
    assert event.data["total"] is None
    assert {d["label"]["en"] for d in event.data["dice"]} <= {"yellow", "violet", "!", "bat", "moon", "skull"}


def test_the_start_form_offers_the_tray_the_table_last_used(table: Table) -> None:
    """The config names a quick set; after a game the remembered options hold its dice. Either way
    the host console preselects that set, not the list's first."""
    from companion.games.dice_tray import DICE_TRAY

    assert DICE_TRAY.options_schema(table.option_defaults("dice-tray"))[0]["default"] == "2d6"
    started = table.handle(HOST, Command("start_game", {"game": "dice-tray", "options": {"tray": "d20"}}))
    assert started.ok, started
    table.handle(HOST, Command("end_game"))
    assert table.option_defaults("dice-tray")["tray"] == ["d20"]
    assert DICE_TRAY.options_schema(table.option_defaults("dice-tray"))[0]["default"] == "d20"
