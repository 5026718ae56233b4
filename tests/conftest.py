"""Shared fixtures: a controllable clock, a seeded random source, a fresh store and table per test."""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.config import Config, load_config
from companion.errors import ConfigError
from companion.games.base import HOST, Command
from companion.games.registry import GAMES
from companion.server import create_app
from companion.service import Service, open_service
from companion.store import EventStore
from companion.table.session import Table, TableSettings
from tests.support.web import BASE, Web

# The browser tests' fixtures (Chromium, the service as a subprocess, a table with four phones).
pytest_plugins = ("tests.support.browser",)


class ManualClock:
    """Time moves only when a test says so."""

    def __init__(self, start_us: int = 1_000_000, wall_ms: int = 1_795_000_000_000) -> None:
        self.us = start_us
        self.wall = wall_ms

    def now_us(self) -> int:
        return self.us

    def wall_ms(self) -> int:
        return self.wall

    def advance(self, us: int) -> None:
        self.us += us
        self.wall += us // 1000


class SeededRandomSource:
    """Deterministic draws for reproducible tests (never used by the product)."""

    def __init__(self, seed: int = 1) -> None:
        self._random = random.Random(seed)

    def randbelow(self, bound: int, purpose: str) -> int:
        return self._random.randrange(bound)


def config_error(tmp_path: Path, toml: str) -> ConfigError:
    """The error that loading this config text raises (the test fails if it loads)."""
    path = tmp_path / "companion.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: "), "the error names the file"
    return caught.value


class Later:
    """A scheduler whose actions run only when the test says their time has come."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, Callable[[], None]]] = []

    def __call__(self, delay: float, action: Callable[[], None]) -> None:
        self.pending.append((delay, action))

    def run(self, up_to: float = float("inf")) -> None:
        due = [a for a in self.pending if a[0] <= up_to]
        self.pending = [a for a in self.pending if a[0] > up_to]
        for _, action in due:
            action()


class EdgeClock:
    """The kernel's edge timestamps as gpiozero's mock pins report them (seconds, set by the
    test), and the host timeline they map onto (the same clock, in microseconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def now_us(self) -> int:
        return round(self.now * 1_000_000)

    def wall_ms(self) -> int:
        return 0


@pytest.fixture
def edges(monkeypatch) -> EdgeClock:
    clock = EdgeClock()
    monkeypatch.setattr("gpiozero.pins.mock.monotonic", clock)
    return clock


@pytest.fixture
def factory(edges: EdgeClock) -> Iterator[MockFactory]:
    """gpiozero's mock pins, with edge times from `edges`."""
    mock = MockFactory()
    Device.pin_factory = mock
    yield mock
    mock.reset()
    Device.pin_factory = None


def edge(factory: MockFactory, edges: EdgeClock, pin: int, at: float, low: bool) -> None:
    """A mock pin's edge at time `at`: low is a press (buttons pull the pin to ground)."""
    edges.now = at
    (factory.pin(pin).drive_low if low else factory.pin(pin).drive_high)()


@pytest.fixture
def later() -> Later:
    return Later()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def seeded(seed: int):
    """Game seeds from a fixed sequence, so a test's rolls are the same on every run."""
    source = random.Random(seed)
    return lambda: source.randbytes(32)


@pytest.fixture
def seeds():
    return seeded(7)


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return load_config(None, {"data.dir": str(tmp_path / "data")})


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EventStore]:
    opened = EventStore.open(tmp_path / "events.sqlite3")
    yield opened
    opened.close()


@pytest.fixture
def settings(config: Config) -> TableSettings:
    return TableSettings(
        default_seats=4,
        undo_policy="host_and_own",
        game_options={"dice-tray": {"catalogue": config.catalogue.to_json(), "tray": "2d6"}},
    )


@pytest.fixture
def table(store: EventStore, clock: ManualClock, seeds, settings: TableSettings) -> Table:
    return Table.open(store, GAMES, clock, seeds, settings)


@pytest.fixture
def web(service: Service) -> Iterator[Web]:
    """The web app of a fresh service whose dice tray is running; streams beat every 50 ms."""
    app = create_app(service, BASE, {"TESTING": True, "STREAM_HEARTBEAT_S": 0.05})
    service.table.handle(HOST, Command("start_game", {"game": "dice-tray"}))
    yield Web(app, service)
    service.table.broadcaster.close()


@pytest.fixture
def service(config: Config, clock: ManualClock, seeds, later: Later) -> Iterator[Service]:
    opened = open_service(config, clock, seeds, scheduler=later, watch_health=False)
    yield opened
    opened.close()


@pytest.fixture
def reopened() -> Iterator[list[Service]]:
    """Services a test opens itself, closed at its end."""
    opened: list[Service] = []
    yield opened
    for svc in opened:
        svc.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--soak-seconds", type=float, default=45.0, metavar="N",
        help="how long tests/test_soak.py keeps 13 phones and 2 displays busy against the real service "
             "(default 45 s, for CI; the long run: ./test tests/test_soak.py --soak-seconds 3600)",
    )


LONGEST_FIRST = ("test_browser_chasse_story.py", "test_browser_dracula_story.py", "test_faults.py", "test_tv_fits.py",
                 "test_browser_phone.py", "test_crash.py", "test_phone_fairness.py",
                 "test_vampir_properties.py",
                 "test_statistics.py", "test_browser_garlic.py", "test_browser.py", "test_hardware_models.py",
                 "test_browser_vampir.py", "test_dracula_properties.py", "test_a11y.py", "test_browser_nuit.py",
                 "test_firmware_groups.py")
"""The modules with a test of 15 s or more (on a busy 2-core machine), longest first."""


BACKGROUND = ("test_vampir_properties.py", "test_garlic_properties.py", "test_statistics.py",
              "test_dracula_properties.py", "test_nuit_properties.py", "test_undo_properties.py",
              "test_chasse_properties.py", "test_leak.py", "test_clocksync.py", "test_firmware_groups.py")
"""The modules that only compute (random games on the pure rules, the firmware cycle by cycle in
simavr): nothing in them waits for anything or is held to the wall clock. The full run (./test)
gives them a lane of their own at the lowest priority, on the CPU that the tests waiting for
browsers and services leave idle, without slowing those by a cycle."""
ALONE = ("test_soak.py",)
"""The modules that hold the real service to a pace while they load it: the soak arms a round
every 0.3 s, and each round waits for the slowest phone's recent round trip. Beside another
worker's Chromium (a session of its own, so the kernel gives its autogroup as much CPU as all the
tests together) the service was measured waiting up to 0.67 s at a time in the run queue, its
pings' round trips grew to 0.5 s, and the referee rightly waited that long for the phones. The
full run (./test) runs them first, with only the background lane beside them."""
LANE_VARIABLE = "COMPANION_TEST_LANE"
"""Set to "alone", "background" or "foreground" (./test does), a run keeps only that lane's tests."""


def lane_of(module: str) -> str:
    return "alone" if module in ALONE else "background" if module in BACKGROUND else "foreground"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules of the longest tests run first, each module's tests together (a module's shared
    fixtures are made once): two workers share the rest as each finishes (--dist worksteal), so the
    suite never ends on one long test while the other worker has nothing left; and the tests that
    mostly wait (a phone offline for a minute, a sand glass running out) run one after the other on
    one worker, while the other computes, instead of both waiting at once. In a lane (LANE_VARIABLE),
    the other lane's tests are deselected."""
    lane = os.environ.get(LANE_VARIABLE)
    if lane is not None:
        if lane not in ("alone", "background", "foreground"):
            raise pytest.UsageError(f"{LANE_VARIABLE}={lane!r}: it is 'alone', 'background' or 'foreground'")
        keep = [item for item in items if lane_of(item.path.name) == lane]
        if len(keep) < len(items):
            kept = set(keep)
            config.hook.pytest_deselected(items=[item for item in items if item not in kept])
            items[:] = keep
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))
