"""The printable hardware (hardware/*.scad), run through OpenSCAD: each design exports cleanly with its
default parameters and with the variants a maker is likely to pick, and the figures it echoes keep
the promises a maker relies on: the board fits and its USB connector lines up with the hole, every
player has a socket, the lid's screws meet the posts, the slap pad is wide and heavy enough and its
microswitch is pressed but never crushed.

The designs echo their figures as `ECHO: "FIG", "name", value` lines; the values are JSON.
Reference dimensions of the boards are written out here again, from the Arduino Uno's drawing, so a
slip in the design's own table is caught.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"
ENCLOSURE = HARDWARE / "buzzer-box-enclosure.scad"
SLAP_PAD = HARDWARE / "slap-pad.scad"

FIG_LINE = re.compile(r'^ECHO: "FIG", "(\w+)", (.*)$')
BED = 220.0
"""The common 220 x 220 mm print bed: every printed part must fit on it."""

# The Arduino Uno R3 (official drawing, 2.7" x 2.1"): board, mounting holes, USB-B jack.
UNO_SIZE = (68.6, 53.4)
UNO_HOLES = [(13.97, 2.54), (15.24, 50.8), (66.04, 7.62), (66.04, 35.56)]
UNO_USB_CENTRE_Y = 38.0
UNO_USB_SIZE = (12.0, 10.9)
UNO_USB_OVERHANG = 6.35
PCB = 1.6


def openscad() -> str:
    path = shutil.which("openscad")
    if path is None:
        pytest.fail("openscad is not installed (Debian package: openscad); the hardware designs cannot be checked")
    return path


def scad_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def run_scad(design: Path, out: Path, **params: object) -> tuple[dict[str, Any], str]:
    """Exports the design to `out` (its suffix picks the format) and returns the echoed figures and
    OpenSCAD's messages; fails the test on any warning or error."""
    command = [openscad(), "-o", str(out)]
    for name, value in params.items():
        command += ["-D", f"{name}={scad_value(value)}"]
    command.append(str(design))
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    messages = done.stdout + done.stderr
    if out.suffix == ".echo" and out.exists():
        messages += out.read_text()
    assert done.returncode == 0, f"openscad failed on {design.name} {params}:\n{messages}"
    problems = [line for line in messages.splitlines() if "WARNING" in line or "ERROR" in line]
    assert not problems, f"{design.name} {params}:\n" + "\n".join(problems)
    assert out.exists() and out.stat().st_size > 0, f"openscad wrote no {out.suffix} for {design.name}"
    figures: dict[str, Any] = {}
    for line in messages.splitlines():
        match = FIG_LINE.match(line.strip())
        if match:
            figures[match.group(1)] = json.loads(match.group(2))
    assert figures, f"{design.name} echoed no figures"
    return figures, messages


def figures(design: Path, tmp_path: Path, **params: object) -> dict[str, Any]:
    return run_scad(design, tmp_path / "figures.echo", **params)[0]


def near(a: float, b: float, tolerance: float = 0.05) -> bool:
    return abs(a - b) <= tolerance


def variant_id(params: dict[str, object]) -> str:
    return ",".join(f"{name}={value}" for name, value in params.items()) or "default"


def flat(points: list[Any]) -> list[float]:
    return [coordinate for point in points for coordinate in point]


def circle_hits_rect(cx: float, cy: float, r: float, x0: float, y0: float, x1: float, y1: float) -> bool:
    dx = max(x0 - cx, 0.0, cx - x1)
    dy = max(y0 - cy, 0.0, cy - y1)
    return math.hypot(dx, dy) < r


def assert_valid_stl(path: Path, messages: str) -> None:
    text = path.read_text()
    assert text.startswith("solid") and text.count("facet normal") > 100, "the STL holds no real geometry"
    assert re.search(r"Simple:\s+yes", messages), "the exported mesh is not a simple (printable) solid"


# --------------------------------------------------------------------------------------------------
# The buzzer box enclosure


def test_enclosure_exports_a_clean_stl(tmp_path: Path) -> None:
    stl = tmp_path / "enclosure.stl"
    fig, messages = run_scad(ENCLOSURE, stl)
    assert_valid_stl(stl, messages)
    assert fig["board"] == "uno"
    assert fig["sockets"] == 8, "one socket per button the firmware reads"


ENCLOSURE_VARIANTS: list[dict[str, object]] = [
    {},
    {"board": "nano"},
    {"sockets": 4},
    {"board": "nano", "sockets": 4, "arm_button": True},
    {"arm_button": True, "wall": 3.0, "clearance": 0.8},
    # 3.5 mm TRS panel jacks instead of GX12: smaller holes, closer together
    {"socket_hole_d": 6.0, "socket_flange_d": 10, "socket_pitch": 14, "sockets": 6},
]


@pytest.mark.parametrize("params", ENCLOSURE_VARIANTS, ids=variant_id)
def test_enclosure_figures(tmp_path: Path, params: dict[str, object]) -> None:
    fig = figures(ENCLOSURE, tmp_path, **params)
    wall, floor, clearance = fig["wall"], fig["floor"], fig["clearance"]
    inner, outer = fig["inner"], fig["outer"]
    assert near(outer[0], inner[0] + 2 * wall) and near(outer[1], inner[1] + 2 * wall)
    assert near(outer[2], inner[2] + floor)
    # base and lid side by side on one bed
    assert fig["layout"][0] <= BED and fig["layout"][1] <= BED, f"does not fit a {BED:.0f} mm bed: {fig['layout']}"

    # the board, its USB jack's overhang included, fits in the cavity with clearance all round
    bx, by, bz = fig["board_origin"]
    size = fig["board_size"]
    usb_y, usb_z, usb_w, usb_h, overhang = fig["usb_on_board"]
    cavity_x0, cavity_y0, cavity_x1, cavity_y1 = wall, wall, wall + inner[0], wall + inner[1]
    assert bx - overhang >= cavity_x0 + clearance - 1e-6, "the USB jack hits the wall"
    assert bx + size[0] + clearance <= cavity_x1 + 1e-6
    assert by - clearance >= cavity_y0 + fig["socket_depth"] - 1e-6, "the board sits in the sockets' solder cups"
    assert by + size[1] + clearance <= cavity_y1 + 1e-6
    assert bz + fig["board_parts_h"] < outer[2], "the board's parts reach the lid"
    board_rect = (bx, by, bx + size[0], by + size[1])
    for x, y in fig["posts"]:
        assert not circle_hits_rect(x, y, fig["post_d"] / 2, *board_rect), "a post under the board"
    # the plug meets the jack: the jack's face is at most 1 mm inside the wall
    assert bx - overhang - cavity_x0 <= 1.0

    if fig["board"] == "uno":
        assert size == pytest.approx(UNO_SIZE, abs=0.05)
        assert flat(fig["board_holes"]) == pytest.approx(flat(UNO_HOLES), abs=0.05), "not the Uno's mounting holes"
        assert usb_y == pytest.approx(UNO_USB_CENTRE_Y, abs=0.1)
        assert usb_z == pytest.approx(PCB + UNO_USB_SIZE[1] / 2, abs=0.1)
        assert (usb_w, usb_h) == pytest.approx(UNO_USB_SIZE, abs=0.1)
        assert overhang == pytest.approx(UNO_USB_OVERHANG, abs=0.2)
    else:
        # the Nano's mini-B jack, on top of its header, on top of the stripboard
        assert usb_z > PCB + 8
        assert 0 < usb_y < size[1]
    for hx, hy in fig["board_holes"]:
        assert 0 < hx < size[0] and 0 < hy < size[1]

    # the cutout is where the jack is, and big enough for the plug's moulding
    cut_y, cut_z, cut_w, cut_h = fig["usb_cutout"]
    assert cut_y == pytest.approx(by + usb_y, abs=0.3), "the USB hole misses the jack sideways"
    assert cut_z == pytest.approx(bz + usb_z, abs=0.3), "the USB hole misses the jack in height"
    assert cut_w >= usb_w + 2 and cut_h >= usb_h + 2
    assert cut_z - cut_h / 2 >= floor and cut_z + cut_h / 2 <= outer[2]

    # a socket per player, none touching its neighbour, a corner post or the floor
    count = params.get("sockets", 8)
    assert fig["sockets"] == count and len(fig["socket_x"]) == count
    flange = fig["socket_flange_d"]
    xs = fig["socket_x"]
    for a, b in itertools.pairwise(xs):
        assert b - a >= flange + 2, "sockets too close for fingers"
    assert xs[0] - flange / 2 >= wall + fig["post_d"] and xs[-1] + flange / 2 <= outer[0] - wall - fig["post_d"]
    assert fig["socket_z"] - flange / 2 >= 0 and fig["socket_z"] + flange / 2 <= outer[2]
    assert fig["socket_hole_d"] < flange

    # the lid's screws go into the posts
    assert flat(fig["lid_holes"]) == pytest.approx(flat(fig["posts"]), abs=0.01)

    # the beeper and the arm button hang from the lid into free space, not onto the board
    px, py, pd = fig["piezo"]
    assert not circle_hits_rect(px, py, pd / 2, *board_rect), "the piezo sits on the board"
    assert cavity_x0 + pd / 2 <= px <= cavity_x1 - pd / 2 and cavity_y0 + pd / 2 <= py <= cavity_y1 - pd / 2
    if params.get("arm_button"):
        ax, ay, hole, keepout, depth = fig["arm_button"]
        assert hole == 30
        assert not circle_hits_rect(ax, ay, keepout / 2, *board_rect), "the button hits the board"
        assert math.hypot(ax - px, ay - py) >= (keepout + pd) / 2, "the arm button sits on the piezo"
        assert ay - keepout / 2 >= cavity_y0 + fig["socket_depth"], "the arm button hits the sockets"
        assert ax + keepout / 2 <= cavity_x1 and ay + keepout / 2 <= cavity_y1
        for x, y in fig["posts"]:
            assert math.hypot(ax - x, ay - y) >= (keepout + fig["post_d"]) / 2
        assert inner[2] >= depth + 1, "the arm button's switch touches the floor"
    else:
        assert fig["arm_button"] == []


def test_enclosure_refuses_more_players_than_the_firmware_reads(tmp_path: Path) -> None:
    out = tmp_path / "x.echo"
    done = subprocess.run(
        [openscad(), "-o", str(out), "-D", "sockets=9", str(ENCLOSURE)], capture_output=True, text=True, timeout=60
    )
    messages = done.stdout + done.stderr + (out.read_text() if out.exists() else "")
    assert "Assertion" in messages and "firmware reads 1 to 8" in messages


# --------------------------------------------------------------------------------------------------
# The slap pad


@pytest.mark.parametrize("variant", ["arcade", "microswitch"])
def test_slap_pad_exports_a_clean_stl(tmp_path: Path, variant: str) -> None:
    stl = tmp_path / f"pad-{variant}.stl"
    fig, messages = run_scad(SLAP_PAD, stl, variant=variant)
    assert_valid_stl(stl, messages)
    assert fig["variant"] == variant


SLAP_PAD_VARIANTS: list[dict[str, object]] = [
    {},
    {"variant": "microswitch"},
    {"base_d": 200, "top_d": 140},
    {"variant": "microswitch", "switch_pt": 0.6, "switch_ot": 0.4},
    {"button_depth": 40, "cable_d": 6},
]


@pytest.mark.parametrize("params", SLAP_PAD_VARIANTS, ids=variant_id)
def test_slap_pad_figures(tmp_path: Path, params: dict[str, object]) -> None:
    fig = figures(SLAP_PAD, tmp_path, **params)
    # low and wide: a slap on the edge must not tip it, nor may it walk
    assert fig["footprint_d"] <= BED and fig["top_d"] <= BED, "a part does not fit a 220 mm bed"
    assert fig["footprint_d"] >= 1.5 * fig["total_h"], f"too tall for its footprint: {fig['total_h']} mm"
    assert fig["wall_slope_deg"] < 45, "the wall would need supports"
    assert fig["feet"] >= 3 and fig["foot"][1] < 3.5, "the rubber feet would not reach the table"
    assert fig["ballast_cm3"] >= 80, "too little room for ballast"
    cable_d, cable_hole, _ = fig["cable"]
    assert cable_d < cable_hole <= cable_d + 1.5, "the cable does not fit, or rattles in its hole"
    for x, y in fig["posts"]:
        assert math.hypot(x, y) + 4.5 < fig["top_d"] / 2

    if fig["variant"] == "arcade":
        # the M24 barrel passes; the dome's rim rests on the plate
        assert 24 <= fig["button_hole_d"] < fig["dome_d"] - 20
        assert fig["top_d"] >= fig["dome_d"] + 10, "the dome's rim hangs over the plate"
        assert fig["panel_t"] <= 12.7, "the button's nut does not reach through the plate"
        room, depth, terminals = fig["button_room"]
        assert room >= depth + terminals, "the button's switch and its wires do not fit under the plate"
        for x, y in fig["posts"]:
            assert math.hypot(x, y) > fig["button_hole_d"] / 2 + 15, "a post in the way of the button's body"
    else:
        pitch, hole_d, pretravel, overtravel = fig["switch"]
        assert pitch > hole_d > 0, "the switch's mounting holes"
        press = fig["press_depth"]
        # a slap operates the switch but the pad lands on its stops before the plunger bottoms out
        assert pretravel < press <= pretravel + overtravel, f"pressing {press} mm into the switch"
        assert fig["travel"] > press
        post_len, post_d = fig["plunger_post"]
        assert post_len > 0 and post_d >= 6
        assert fig["guide_screw_len"] > fig["travel"] + 8
        assert fig["switch_bottom_room"] >= 8, "no room for the switch's solder tags"
