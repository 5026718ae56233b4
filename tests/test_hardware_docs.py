"""The maker's documents say what the code does: the same pins, protocol numbers, config keys and
commands, and the README points at every file of hardware/."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from companion.buzzers import protocol, wiring
from companion.buzzers.boxports import USB_IDS
from companion.cli import build_parser
from companion.config import _SECTIONS as KNOWN_KEYS
from companion.config import load_config
from companion.sim import simavr
from scripts import hardware_docs

ROOT = Path(__file__).resolve().parent.parent
HARDWARE = ROOT / "hardware"
README = ROOT / "README.md"
SVG = "{http://www.w3.org/2000/svg}"


def maker_docs() -> list[Path]:
    """The pages a maker follows: hardware/, the README, the firmware's own pages."""
    return [*sorted(HARDWARE.glob("*.md")), README, ROOT / "firmware" / "README.md",
            ROOT / "firmware" / "PROTOCOL.md"]


def svg_texts(name: str) -> list[str]:
    return [t.text or "" for t in ET.parse(HARDWARE / name).getroot().iter(f"{SVG}text")]


def md_table(text: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header line starts with `header`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


# -- the pin tables ----------------------------------------------------------------------------


def test_the_box_pins_are_the_firmware_table() -> None:
    """wiring.py is what the docs and hw-test read; pinout.h is what the firmware is built from."""
    table = simavr.pinout()
    assert [(p.player, p.label) for p in wiring.BOX_BUTTONS] == [(p.number, p.label) for p in table["button"]]
    assert [(p.player, p.label) for p in wiring.BOX_LAMPS] == [(p.number, p.label) for p in table["lamp"]]
    assert [p.label for p in table["beeper"]] == [wiring.BOX_BEEPER]


def test_the_header_has_every_gpio_once_and_the_suggested_wiring_uses_free_pins() -> None:
    assert [p.number for p in wiring.HEADER] == list(range(1, 41))
    gpios = [p.bcm for p in wiring.HEADER if p.bcm is not None]
    assert sorted(gpios) == list(range(28))
    assert wiring.GROUND_PINS == (6, 9, 14, 20, 25, 30, 34, 39)
    assert (wiring.header_pin(17), wiring.header_pin(26), wiring.header_pin(2)) == (11, 37, 3)
    suggested = [b.bcm for b in wiring.SUGGESTED_GPIO] + list(wiring.SPARE_GPIO)
    assert len(set(suggested)) == len(suggested) == 13, "one button per seat (13) and the arm button fit"
    busy = {2, 3, 7, 8, 9, 10, 11, 14, 15, 18, 19, 20, 21}  # I2C, SPI, serial console, I2S sound
    assert not busy & set(suggested)
    assert all(b.ground in wiring.GROUND_PINS for b in wiring.SUGGESTED_GPIO)


def test_hw_test_names_the_pin_a_button_is_wired_to() -> None:
    assert wiring.pin_of("gpio:17") == "pin 11"
    assert wiring.pin_of("box:3") == "D4" and wiring.pin_of("box:8") == "A1"
    assert wiring.pin_of("box:9") == wiring.pin_of("gpio:1") == wiring.pin_of("simulated:3") == ""


# -- the generated files -----------------------------------------------------------------------


def test_the_diagrams_and_the_pinout_page_are_current(tmp_path: Path) -> None:
    """Regenerated from the code, they are byte for byte the committed ones."""
    assert hardware_docs.main(["--out", str(tmp_path)]) == 0
    for name in hardware_docs.OUTPUTS:
        assert (tmp_path / name).read_text() == (HARDWARE / name).read_text(), (
            f"hardware/{name} is stale: run .venv/bin/python scripts/hardware_docs.py")


def test_the_gpio_diagram_and_table_pair_each_gpio_with_its_header_pin() -> None:
    """Read back from the files as a maker reads them, not from the generator."""
    used = re.compile(r"(?:(P\d|arm) )?(?:GPIO(\d+) · (\d+)|(\d+) · GPIO(\d+))(?: (P\d|arm))?")
    seen = {}
    for label in svg_texts("gpio-wiring.svg"):
        match = used.fullmatch(label)
        if match and (match[1] or match[6]):
            gpio, pin = (match[2], match[3]) if match[2] else (match[5], match[4])
            seen[match[1] or match[6]] = (int(gpio), int(pin))
    assert seen == {("arm" if b.label == "arm" else f"P{b.label}"): (b.bcm, b.pin) for b in wiring.SUGGESTED_GPIO}
    for pin in wiring.HEADER:  # every header pin is drawn with its name
        assert any(re.fullmatch(rf"(\w+ )?({pin.name} · {pin.number}|{pin.number} · {pin.name})( \w+)?", t)
                   for t in svg_texts("gpio-wiring.svg")), pin
    page = (HARDWARE / "pinout.md").read_text()
    for _who, gpio, header, ground in md_table(page, "| Button | GPIO"):
        assert wiring.header_pin(int(gpio)) == int(header)
        assert int(ground) in wiring.GROUND_PINS
    assert [int(r[1]) for r in md_table(page, "| Button | GPIO")] == [b.bcm for b in wiring.SUGGESTED_GPIO]
    for name_a, pin_a, pin_b, name_b in md_table(page, "| Name | Pin"):
        assert wiring.HEADER[int(pin_a) - 1].name == name_a and wiring.HEADER[int(pin_b) - 1].name == name_b


def test_the_box_diagram_and_tables_name_the_firmware_pins() -> None:
    buttons = {p.number: p.label for p in simavr.buttons()}
    lamps = {p.number: p.label for p in simavr.lamps()}
    texts = svg_texts("buzzer-box-wiring.svg")
    board = [t for t in texts if re.fullmatch(r"[DA]\d+", t)]
    # the board's pins row by row (button, lamp), then the beeper; then the player-1 and beeper drawings
    rows = [label for n in range(1, 9) for label in (buttons[n], lamps[n])]
    assert board[:17] == [*rows, simavr.beeper()[0].label]
    assert board[17:] == [buttons[1], lamps[1], simavr.beeper()[0].label]
    assert f"{wiring.LAMP_RESISTOR_OHMS} Ω" in texts and f"{wiring.BEEPER_RESISTOR_OHMS} Ω" in texts
    assert "A5" not in buttons.values() and "A5" not in lamps.values(), "the diagram calls A5 spare"
    page = (HARDWARE / "pinout.md").read_text()
    assert md_table(page, "| Player | Button | Lamp") == [[str(n), buttons[n], lamps[n]] for n in range(1, 9)]
    assert f"Beeper: {simavr.beeper()[0].label}." in page


# -- protocol numbers --------------------------------------------------------------------------


def test_the_protocol_page_and_the_firmware_use_the_hosts_numbers() -> None:
    text = (ROOT / "firmware" / "PROTOCOL.md").read_text()
    baud = re.search(r"\*\*([\d ]+) baud", text).group(1)
    assert int(baud.replace(" ", "")) == protocol.BAUD
    assert text.splitlines()[0].endswith(f"version {protocol.PROTOCOL_VERSION}")
    frames = protocol.ALL_FRAMES
    rows = re.findall(r"^\| `([0-9A-F]{2})` \| (\w+) \| (\d+) \|", text, re.MULTILINE)
    assert len(rows) == len(frames) == 12
    for code, name, length in rows:
        cls = frames[int(code, 16)]
        assert getattr(protocol, name) == cls.TYPE, name
        assert struct.calcsize(cls.FORMAT) == int(length), name
    board_h = (ROOT / "firmware" / "src" / "board.h").read_text()
    defines = {k: int(v.rstrip("UL"), 0) for k, v in re.findall(r"#define (\w+) (0x[0-9A-F]+|\d+(?:UL)?)\b", board_h)}
    assert defines["BAUD"] == protocol.BAUD and defines["TICK_HZ"] == protocol.TICK_HZ
    assert defines["PROTOCOL_VERSION"] == protocol.PROTOCOL_VERSION and defines["FRAME_SYNC"] == protocol.START
    for name, value in defines.items():
        if name.startswith(("T_", "C_")):
            assert getattr(protocol, name[2:]) == value, name


def test_the_pinout_page_states_the_link_as_the_code_has_it() -> None:
    page = (HARDWARE / "pinout.md").read_text()
    assert f"USB serial at {protocol.BAUD} baud" in page
    ids = re.findall(r"`([0-9a-f]{4}):([0-9a-f]{4})`", page)
    assert [(int(v, 16), int(p, 16)) for v, p in ids] == list(USB_IDS)
    example = (ROOT / "companion.example.toml").read_text()
    for vendor, product in USB_IDS:  # the example config lists the same ids
        assert f"{vendor:04x}:{product:04x}" in example


# -- config keys and commands in the docs ------------------------------------------------------


@pytest.mark.parametrize("doc", maker_docs(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_config_snippet_in_the_docs_loads(doc: Path, tmp_path: Path) -> None:
    """A maker copies these into companion.toml: a key the code does not know would stop the start."""
    text = doc.read_text()
    for i, block in enumerate(re.findall(r"```toml\n(.*?)```", text, re.DOTALL)):
        path = tmp_path / f"block{i}.toml"
        path.write_text(block)
        load_config(path)
    for section, key in re.findall(r"`?\[(\w+)\]`? `?([a-z_]+)\b", text):
        if section in KNOWN_KEYS:  # "[buttons] serial_port" in a sentence
            assert key in KNOWN_KEYS[section], f"{doc.name}: there is no [{section}] {key}"


def _subcommands() -> dict[str, set[str]]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return {name: set(sub._option_string_actions) for name, sub in action.choices.items()}


@pytest.mark.parametrize("doc", maker_docs(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_companion_command_in_the_docs_exists(doc: Path) -> None:
    commands = _subcommands()
    for line in re.findall(r"(?:^|[\s`/])companion ([a-z-]+(?: [^`\n]*)?)", doc.read_text(), re.MULTILINE):
        words = line.split()
        if words[0] not in commands:
            assert words[0] not in {"serve", "hw-test", "verify", "replay", "export", "install-service"}
            continue  # prose ("the companion finds ..."), not a command
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", line):
            assert flag in commands[words[0]], f"{doc.name}: companion {words[0]} has no {flag}"


def test_the_readme_links_every_hardware_file_and_only_existing_ones() -> None:
    text = README.read_text()
    section = text.split("\n## Hardware", 1)[1].split("\n## ", 1)[0]
    linked = set(re.findall(r"\]\((hardware/[^)#]+)\)", section))
    present = {f"hardware/{p.name}" for p in HARDWARE.iterdir() if p.is_file()}
    assert present - linked == set(), "files in hardware/ the README's hardware section does not link"
    for doc in [README, *HARDWARE.glob("*.md")]:
        for target, anchor in re.findall(r"\]\(([^)#:]*)(?:#([^)]*))?\)", doc.read_text()):
            path = (doc.parent / target) if target else doc
            assert path.exists(), f"{doc.name} links {target}, which does not exist"
            if anchor and path.suffix == ".md":
                assert anchor in headings(path), f"{doc.name} links {target}#{anchor}: no such heading"


def headings(doc: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings."""
    titles = re.findall(r"^#+ (.+)$", doc.read_text(), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-") for title in titles}
