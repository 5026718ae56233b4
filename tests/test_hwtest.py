"""`companion hw-test` as the person wiring a buzzer box reads it: presses in edge order with their
intervals, bounces, stuck buttons, and sources that could not open."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.buzzers.configured import open_sources
from companion.buzzers.gpio import GpioSource
from companion.buzzers.hwtest import PRESS_COLUMNS, STATUS_COLUMNS, HwTest
from companion.buzzers.settings import ButtonsConfig
from companion.buzzers.sources import SimulatedSource
from companion.cli import main
from tests.conftest import EdgeClock, Later, ManualClock, edge


def watch(factory: MockFactory, edges: EdgeClock, later: Later) -> tuple[HwTest, io.StringIO]:
    """Two wired buttons, on pins 17 and 27, watched in plain mode from t = 100 s."""
    source = GpioSource({"17": 17, "27": 27}, edges, factory, later)
    out = io.StringIO()
    view = HwTest([source], edges, out, plain=True)
    view.start()
    return view, out


def press_rows(text: str) -> list[list[str]]:
    lines = text.splitlines()
    rows = lines[lines.index(PRESS_COLUMNS) + 1:]
    rows = rows[:rows.index("")] if "" in rows else rows
    return [line.split() for line in rows if not line.startswith("--")]


def button_row(view: HwTest, out: io.StringIO, button: str) -> list[str]:
    view.summary(view.healths())
    lines = out.getvalue().splitlines()
    table = lines[len(lines) - 1 - lines[::-1].index(STATUS_COLUMNS):]
    line = next(line for line in table if line.startswith(f"{button} "))
    name, pin, rest = line[:14], line[15:22], line[22:]  # the pin ("pin 11") has a space in it
    return [name.strip(), pin.strip(), *rest.split()]


def test_presses_are_listed_in_edge_order_with_each_buttons_intervals(factory, edges, later) -> None:
    view, out = watch(factory, edges, later)
    edge(factory, edges, 27, 100.300_400, True)  # pin 27's edge is delivered first...
    edge(factory, edges, 17, 100.300_100, True)  # ...but pin 17's happened 300 us earlier
    later.run(up_to=0.005)
    edge(factory, edges, 17, 100.400, False)
    edge(factory, edges, 27, 100.400, False)
    edge(factory, edges, 17, 100.800_100, True)
    later.run(up_to=0.005)
    edges.now = 101.0
    view.tick()
    assert press_rows(out.getvalue()) == [
        # time ms, button, source, count, since this button, since any button, uncertainty
        ["300.100", "gpio:17", "gpio", "1", "-", "-", "20"],
        ["300.400", "gpio:27", "gpio", "1", "-", "+0.300", "20"],
        ["800.100", "gpio:17", "gpio", "2", "500.000", "+499.700", "20"],
    ]


def test_a_press_confirmed_late_is_held_back_and_still_shown_first(factory, edges, later) -> None:
    view, out = watch(factory, edges, later)
    edge(factory, edges, 27, 100.300_400, True)
    later.run(up_to=0.005)
    edges.now = 100.310  # pin 27's press is known, pin 17's earlier edge not yet
    view.tick()
    assert press_rows(out.getvalue()) == [], "too early: an earlier edge may still be confirmed"
    edge(factory, edges, 17, 100.300_100, True)
    later.run(up_to=0.005)
    edges.now = 100.5
    view.tick()
    assert [(r[1], r[5]) for r in press_rows(out.getvalue())] == [("gpio:17", "-"), ("gpio:27", "+0.300")]


def test_a_bounce_train_shows_in_the_bounce_count(factory, edges, later) -> None:
    view, out = watch(factory, edges, later)
    for i in range(6):  # contact bounce: low, high, low, high... within a millisecond
        edge(factory, edges, 17, 100.5 + i * 0.000_15, i % 2 == 0)
    edge(factory, edges, 17, 100.501, True)
    later.run(up_to=0.005)
    edges.now = 101.0
    view.tick()
    assert len(press_rows(out.getvalue())) == 1, "one press, however much it bounced"
    # button, presses, bounces, noise, state
    assert button_row(view, out, "gpio:17")[:6] == ["gpio:17", "pin 11", "1", "3", "0", "down"]
    assert button_row(view, out, "gpio:27")[:6] == ["gpio:27", "pin 13", "0", "0", "0", "up"]
    edge(factory, edges, 17, 101.2, False)
    assert button_row(view, out, "gpio:17")[5] == "up"


def test_a_button_held_down_shows_stuck(factory, edges, later) -> None:
    view, out = watch(factory, edges, later)
    edge(factory, edges, 27, 102.0, True)
    later.run(up_to=0.005)
    later.run()  # five seconds later it is still held down
    edges.now = 107.0
    view.tick()
    text = out.getvalue()
    assert "PROBLEM  gpio (gpio): stuck (held down): gpio:27" in text, "said at once, not only at the end"
    assert button_row(view, out, "gpio:27")[:6] == ["gpio:27", "pin 13", "1", "0", "0", "STUCK"]


class BusyFactory:
    """A pin factory whose pins another program holds (as when `companion serve` is running)."""

    def pin(self, number: int) -> None:
        raise OSError("GPIO busy")


def test_gpio_that_cannot_open_is_reported_and_simulated_buttons_still_work(monkeypatch) -> None:
    monkeypatch.setattr(Device, "pin_factory", BusyFactory())
    clock = ManualClock()
    sources = open_sources(ButtonsConfig(source="auto", gpio_pins=(17, 27)), clock)
    out = io.StringIO()
    HwTest(sources, clock, out, plain=True).run(io.StringIO("4\n"))
    text = out.getvalue()
    assert "PROBLEM  gpio (gpio): GPIO unavailable: GPIO busy (a running `companion serve` holds the pins" in text
    assert [r[1] for r in press_rows(text)] == ["simulated:4"]


def test_gpio_only_and_unavailable_is_one_clear_line(monkeypatch, tmp_path: Path, capsys) -> None:
    monkeypatch.setattr(Device, "pin_factory", BusyFactory())
    config = tmp_path / "companion.toml"
    config.write_text('[buttons]\nsource = "gpio"\ngpio_pins = [17]\n')
    assert main(["hw-test", "--config", str(config)]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines()[-1] == (
        "companion: no button source could be opened: GPIO unavailable: GPIO busy")


def test_typed_numbers_press_simulated_buttons_and_end_of_input_stops(clock: ManualClock) -> None:
    source = SimulatedSource(clock)
    out = io.StringIO()
    HwTest([source], clock, out, plain=True).run(io.StringIO("3\n1 2 x\n"))
    text = out.getvalue()
    assert [r[1] for r in press_rows(text)] == ["simulated:3", "simulated:1", "simulated:2"]
    assert "ignored 'x'" in text
    assert text.rstrip().endswith("Stopped.")
    assert source.health().detail.endswith("(stopped)"), "the sources are stopped at the end"


def hw_test_process(tmp_path: Path, stdin: int | None = None) -> subprocess.Popen[str]:
    # From an empty folder, so no companion.toml around changes the buttons.
    return subprocess.Popen([sys.executable, "-m", "companion", "hw-test", "--simulate", "--plain"],
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_the_command_prints_typed_presses_and_exits_at_end_of_input(tmp_path: Path) -> None:
    proc = hw_test_process(tmp_path, subprocess.PIPE)
    out, err = proc.communicate("1\n2\n", timeout=10)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    rows = press_rows(out)
    assert [r[1] for r in rows] == ["simulated:1", "simulated:2"]
    assert float(rows[1][5]) >= 0, "the second press came after the first"


def test_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    proc = hw_test_process(tmp_path, subprocess.PIPE)  # input stays open: only Ctrl-C stops it
    assert proc.stdout is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and proc.stdout.readline().rstrip() != PRESS_COLUMNS.rstrip():
        pass
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert out.rstrip().endswith("Stopped.")


def test_ctrl_c_pressed_again_and_again_still_stops_cleanly(tmp_path: Path) -> None:
    """An impatient maker presses Ctrl-C again and again: each press only asks the view to stop,
    none lands inside a lock or the summary, and it stops once, with its summary."""
    proc = hw_test_process(tmp_path, subprocess.PIPE)
    assert proc.stdout is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and proc.stdout.readline().rstrip() != PRESS_COLUMNS.rstrip():
        pass
    for _ in range(4):  # a quick triple press and one more
        proc.send_signal(signal.SIGINT)
        time.sleep(0.002)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert out.rstrip().endswith("Stopped.") and out.count("Stopped.") == 1
