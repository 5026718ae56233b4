"""Everything the running service holds, opened in order and closed in reverse.

Nothing is opened at import time: the CLI (or a test) calls `open_service` with a config.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from companion.alarm import Scheduler, handed_over, timer_scheduler
from companion.buzzers.configured import open_sources
from companion.buzzers.hub import ButtonHub
from companion.buzzers.pairing import PAIRING_FILE, ButtonMap
from companion.buzzers.sources import PressSource
from companion.clock import Clock, MonotonicClock
from companion.config import Config
from companion.errors import DataDirError
from companion.fairness.drbg import SEED_BYTES
from companion.games.registry import GAMES
from companion.store import EventStore
from companion.table.deadlines import Timekeeper
from companion.table.realtime import RealTimeKeeper
from companion.table.session import Table, TableSettings

log = logging.getLogger(__name__)

DATABASE_NAME = "companion.sqlite3"
HOST_KEY_NAME = "host.key"
COOKIE_KEY_NAME = "cookie.key"


@dataclass
class Service:
    config: Config
    store: EventStore
    table: Table
    buttons: ButtonHub
    host_key: str
    cookie_key: bytes
    clock: Clock
    lock: DataDirLock
    started_mono: float = field(default_factory=time.monotonic)

    @property
    def sources(self) -> list[PressSource]:
        return self.buttons.sources

    def uptime_s(self) -> float:
        return time.monotonic() - self.started_mono

    def close(self) -> None:
        self.table.broadcaster.close()
        self.buttons.stop()
        self.store.close()
        self.lock.release()


def prepare_data_dir(path: Path) -> Path:
    """Create the data folder if needed and prove it is writable, with a message a person can act on."""
    path = path.expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise DataDirError(f"data folder {path} is a file, not a folder") from None
    except OSError as err:
        raise DataDirError(f"cannot create data folder {path}: {err.strerror or err}") from None
    if not path.is_dir():
        raise DataDirError(f"data folder {path} is not a folder")
    probe = path / f".write-test-{os.getpid()}"
    try:
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as err:
        raise DataDirError(f"data folder {path} is not writable: {err.strerror or err}") from None
    return path.resolve()


class DataDirLock:
    """One service per data folder: two writers would fork the hash chains.

    An flock is released by the kernel when the process dies, even by SIGKILL, so a crash never
    leaves a stale lock behind.
    """

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / ".lock"
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            raise DataDirError(f"data folder {data_dir} is in use by another running companion") from None
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{os.getpid()}\n".encode())

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def load_secret(path: Path, make: Callable[[], str], min_length: int) -> str:
    """A secret created once and kept in the data folder, readable by this user only."""
    if path.exists():
        key = path.read_text("ascii").strip()
        if len(key) >= min_length:
            return key
    key = make()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key + "\n")
    return key


def load_host_key(data_dir: Path) -> str:
    """The host's secret (128 bits), typed or scanned once on the host's device."""
    return load_secret(data_dir / HOST_KEY_NAME, lambda: secrets.token_urlsafe(16), 22)


def new_seed() -> bytes:
    """A game's secret seed, from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def open_service(config: Config, clock: Clock | None = None, seeds: Callable[[], bytes] = new_seed,
                 scheduler: Scheduler | None = None, watch_health: bool = True) -> Service:
    """The service on `config`'s data folder. `scheduler` keeps every timer (a fake in tests);
    by default the table's alarms share one thread, and wired buttons confirm presses on their own."""
    clock = clock or MonotonicClock()
    alarms = scheduler or timer_scheduler
    data_dir = prepare_data_dir(config.data_dir)
    lock = DataDirLock(data_dir)
    try:
        store = EventStore.open(data_dir / DATABASE_NAME)
    except BaseException:
        lock.release()
        raise
    try:
        settings = TableSettings(
            default_seats=config.table.seats,
            undo_policy=config.table.undo,
            game_options={"dice-tray": {"catalogue": config.catalogue.to_json(), "tray": config.table.tray}},
            game_pinned={"chasse-au-vampire": {"board": config.chasse_board}} if config.chasse_board else {},
        )
        table = Table.open(store, GAMES, clock, seeds, settings)
        host_key = load_host_key(data_dir)
        try:
            cookie_key = bytes.fromhex(load_secret(data_dir / COOKIE_KEY_NAME, lambda: secrets.token_hex(32), 64))
        except ValueError:
            raise DataDirError(f"{data_dir / COOKIE_KEY_NAME} is damaged; delete it (players then rejoin)") from None
        pairs = ButtonMap.load(data_dir / PAIRING_FILE)
        # A round's decision and a choice that ran out are made where the pages are kept; the
        # clock marks (a file written) stay on the timer thread.
        changes = handed_over(alarms, table.broadcaster.make_change)
        buttons = ButtonHub(table, clock, open_sources(config.buttons, clock, scheduler), pairs, changes)
        buttons.start(watch_health)
        RealTimeKeeper(table, clock, alarms, data_dir).resume()  # before the glass's deadline is taken up
        Timekeeper(table, clock, changes).resume()  # held by the table, as its observer
    except BaseException:
        store.close()
        lock.release()
        raise
    return Service(config, store, table, buttons, host_key, cookie_key, clock, lock)
