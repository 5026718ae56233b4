"""The buzzer box firmware in simavr, for tests, benchmarks and anyone changing the firmware.

`firmware/sim/simbox.c` (built into `firmware/build/simbox`) runs the real firmware ELF
cycle-accurately: a batch run takes a script of timed pin edges, serial bytes and memory pokes and
returns every byte the firmware sent with the CPU cycle it was written at; a `PtyBoard` runs it in
real time behind a pseudo-terminal that pyserial opens like the board's USB port. Cycles count
from the power-on reset at 16 MHz, so `US` (16) cycles are a microsecond and, since Timer1 counts
the CPU clock, a firmware tick is a cycle.

It builds and runs what is in the source checkout's `firmware/` folder (next to `companion/`): the
Debian packages simavr, libsimavr-dev, libelf-dev and gcc-avr must be installed.
"""

from __future__ import annotations

import fcntl
import functools
import queue
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
BUILD = FIRMWARE / "build"
HARNESS = BUILD / "simbox"
PINOUT_H = FIRMWARE / "src" / "pinout.h"

TCCR1B = 0x81
"""Timer1's control register: the firmware's one write to it starts the board clock."""
CPU_HZ = 16_000_000
US = CPU_HZ // 1_000_000
"""Cycles (and firmware ticks) per microsecond."""
MS = CPU_HZ // 1_000


def us(x: float) -> int:
    """Microseconds to cycles."""
    return round(x * US)


def ms(x: float) -> int:
    """Milliseconds to cycles."""
    return round(x * MS)


class SimError(RuntimeError):
    """The harness or a build failed; the message carries its output."""


# -- building ---------------------------------------------------------------------------------------

# Make targets and the ELF each builds (the contract with firmware/Makefile).
VARIANTS: dict[str, tuple[str, str]] = {
    "sampler": ("all", "buzzerbox.elf"),
    "hobby": ("baseline", "buzzerbox-hobby.elf"),
}

_built: dict[str, Path] = {}
_build_lock = threading.Lock()


@contextmanager
def _make_lock() -> Iterator[None]:
    # pytest-xdist workers share firmware/build: one make at a time, the others then find it done.
    BUILD.mkdir(parents=True, exist_ok=True)
    with _build_lock, (BUILD / ".make.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _make(*args: str) -> None:
    try:
        done = subprocess.run(["make", *args], capture_output=True, text=True, timeout=300)
    except FileNotFoundError as e:
        raise SimError("make is not installed") from e
    if done.returncode:
        raise SimError(f"make {' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def build_harness() -> Path:
    """Builds firmware/build/simbox (once per process) and returns its path."""
    if "harness" not in _built:
        with _make_lock():
            _make("-C", str(FIRMWARE / "sim"))
        _built["harness"] = HARNESS
    return _built["harness"]


def build_firmware(variant: str = "sampler") -> Path:
    """Builds the firmware ("sampler", the product, or "hobby", the comparison build) once per
    process and returns its ELF."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown firmware variant {variant!r} (one of {', '.join(VARIANTS)})")
    if variant not in _built:
        target, elf = VARIANTS[variant]
        with _make_lock():
            _make("-C", str(FIRMWARE), target)
        _built[variant] = BUILD / elf
    return _built[variant]


def symbol_address(elf: Path, name: str) -> int:
    """The data-space address of a firmware variable (avr-nm's address minus the linker's 0x800000
    offset), for `Script.poke`."""
    done = subprocess.run(["avr-nm", str(elf)], capture_output=True, text=True, check=True)
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            address = int(parts[0], 16)
            return address - 0x800000 if 0x800000 <= address < 0x810000 else address
    raise KeyError(f"{name} is not a symbol of {elf}")


# -- the pinout -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pin:
    kind: str
    """One of "button", "lamp", "beeper"."""
    number: int
    port: str
    bit: int
    label: str
    """The Arduino pin name (D2, A0, ...)."""

    @property
    def name(self) -> str:
        """The harness's name for it: port letter and bit, e.g. D2."""
        return f"{self.port}{self.bit}"


_TABLE = re.compile(r"#define\s+PINOUT_(\w+)\(X\)((?:[^\n]*\\\n)*[^\n]*)")
_ENTRY = re.compile(r'X\(\s*(\d+)\s*,\s*([A-Z])\s*,\s*(\d)\s*,\s*"([^"]*)"\s*\)')


@functools.cache
def pinout(path: Path = PINOUT_H) -> dict[str, list[Pin]]:
    """The pin tables of firmware/src/pinout.h by kind ("button", "lamp", "beeper"): the firmware
    compiles the same table, so tests cannot drive a pin the firmware does not read."""
    tables: dict[str, list[Pin]] = {}
    for match in _TABLE.finditer(path.read_text()):
        kind = match.group(1).lower().removesuffix("s")
        tables[kind] = [Pin(kind, int(n), port, int(bit), label)
                        for n, port, bit, label in _ENTRY.findall(match.group(2))]
    return tables


def buttons() -> list[Pin]:
    return list(pinout()["button"])


def lamps() -> list[Pin]:
    return list(pinout()["lamp"])


def beeper() -> list[Pin]:
    return list(pinout()["beeper"])


def button(number: int) -> Pin:
    for pin in buttons():
        if pin.number == number:
            return pin
    raise KeyError(f"no button {number} in {PINOUT_H}")


def _pin(which: int | Pin) -> Pin:
    return which if isinstance(which, Pin) else button(which)


# -- batch runs -------------------------------------------------------------------------------------


@dataclass
class Script:
    """Timed inputs for a batch run. Cycles are absolute (from the power-on reset); things given
    the same cycle happen at the same instruction boundary, e.g. simultaneous presses."""

    lines: list[str] = field(default_factory=list)

    def pin(self, at_cycle: int, pin: Pin | str, level: int) -> Script:
        name = pin.name if isinstance(pin, Pin) else pin
        self.lines.append(f"{at_cycle} pin {name} {1 if level else 0}")
        return self

    def press(self, button: int | Pin, at_cycle: int) -> Script:
        """Buttons are active low (pull-ups): pressing drives the pin low."""
        return self.pin(at_cycle, _pin(button), 0)

    def release(self, button: int | Pin, at_cycle: int) -> Script:
        return self.pin(at_cycle, _pin(button), 1)

    def send(self, at_cycle: int, data: bytes) -> Script:
        """Bytes from the host, the first start bit at that cycle, then at the line's pace."""
        if data:
            self.lines.append(f"{at_cycle} send {data.hex(' ')}")
        return self

    def poke(self, at_cycle: int, addr: int, data: bytes) -> Script:
        """Writes SRAM (see `symbol_address`)."""
        self.lines.append(f"{at_cycle} poke {addr:x} {data.hex(' ')}")
        return self

    def end(self, at_cycle: int) -> Script:
        self.lines.append(f"{at_cycle} end")
        return self

    def render(self) -> str:
        return "".join(line + "\n" for line in self.lines)


@dataclass
class SimRun:
    tx: list[tuple[int, int]]
    """(cycle, byte) for every byte the firmware wrote to UDR0, at the cycle of the write."""
    rx: list[tuple[int, int]]
    """(cycle, byte) for every byte of the script's `send`s, at the end of its stop bit."""
    overruns: list[int]
    """Start bits at which the chip's receiver would have lost a byte (three unread already):
    simavr keeps them all, so these say where the firmware reads too slowly for the line."""
    resets: list[int]
    """Cycles at which the firmware reset itself (watchdog); cycles go on counting."""
    io: list[tuple[int, int, int]]
    """(cycle, address, value) for every access to a watched I/O address (`run(watch=...)`)."""
    end_cycle: int
    output: str
    """The harness's whole stdout (identical for identical runs)."""

    @property
    def data(self) -> bytes:
        return bytes(b for _, b in self.tx)

    @property
    def timer_origin(self) -> int:
        """The cycle the firmware started Timer1, its tick 0 (run with `watch=(TCCR1B,)`)."""
        starts = [cycle for cycle, address, _ in self.io if address == TCCR1B]
        if not starts:
            raise SimError("the firmware never started Timer1 (or TCCR1B was not watched)")
        return starts[0]


def _parse_batch(output: str) -> SimRun:
    tx: list[tuple[int, int]] = []
    rx: list[tuple[int, int]] = []
    overruns: list[int] = []
    resets: list[int] = []
    io: list[tuple[int, int, int]] = []
    end = -1
    for line in output.splitlines():
        kind, *rest = line.split()
        if kind == "tx":
            tx.append((int(rest[0]), int(rest[1], 16)))
        elif kind == "rx":
            rx.append((int(rest[0]), int(rest[1], 16)))
        elif kind == "overrun":
            overruns.append(int(rest[0]))
        elif kind == "reset":
            resets.append(int(rest[0]))
        elif kind == "io":
            io.append((int(rest[0]), int(rest[1], 16), int(rest[2], 16)))
        elif kind == "done":
            end = int(rest[0])
    if end < 0:
        raise SimError(f"the harness did not finish its run:\n{output[-2000:]}")
    return SimRun(tx, rx, overruns, resets, io, end, output)


def run(elf: Path, script: Script | str, until: int | None = None, timeout: float = 120,
        watch: tuple[int, ...] = ()) -> SimRun:
    """Runs the firmware as fast as the host allows until `until` or the script's `end`; accesses
    to the `watch` I/O addresses are reported with their cycles."""
    harness = build_harness()
    args = [str(harness), str(elf), "--script", "-", "--quiet"]
    for address in watch:
        args += ["--watch", f"{address:x}"]
    if until is not None:
        args += ["--until", str(until)]
    text = script.render() if isinstance(script, Script) else script
    done = subprocess.run(args, input=text, capture_output=True, text=True, timeout=timeout)
    if done.returncode:
        raise SimError(f"simbox exited with {done.returncode}: {done.stderr.strip()}")
    return _parse_batch(done.stdout)


# -- real time behind a pty -------------------------------------------------------------------------


class PtyBoard:
    """The firmware in real time behind a pseudo-terminal, for the host's serial code:

        with PtyBoard(build_firmware()) as board:
            port = serial.Serial(board.port, 1_000_000, timeout=1)
            board.press(3, after_cycles=ms(5))

    Like an Arduino's auto-reset, the board starts when the port is first opened (pyserial's
    open flushes input, which the harness waits for, so the HELLO is not lost).
    """

    def __init__(self, elf: Path, script: Path | None = None, start_now: bool = False,
                 timeout: float = 10.0) -> None:
        self.elf = elf
        self.script = script
        self.start_now = start_now
        self.timeout = timeout
        self.port = ""
        self.stderr = ""
        self.returncode: int | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._errors: list[str] = []
        self._readers: list[threading.Thread] = []

    def __enter__(self) -> PtyBoard:
        args = [str(build_harness()), str(self.elf), "--pty", "--quiet"]
        if self.script is not None:
            args += ["--script", str(self.script)]
        if self.start_now:
            args.append("--pty-now")
        self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, bufsize=1)
        self._readers = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self._readers:
            reader.start()
        try:
            self.port = self._expect("pty").split(maxsplit=1)[1]
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop()
        if kind is None and self.returncode:
            raise SimError(f"simbox --pty exited with {self.returncode}: {self.stderr.strip()}")

    def press(self, button: int | Pin, after_cycles: int = 0) -> None:
        self.command(f"+{after_cycles} pin {_pin(button).name} 0")

    def release(self, button: int | Pin, after_cycles: int = 0) -> None:
        self.command(f"+{after_cycles} pin {_pin(button).name} 1")

    def now(self) -> int:
        """The board's current cycle (0 until the port is opened)."""
        self.command("now")
        return int(self._expect("now").split()[1])

    def command(self, line: str) -> None:
        """One script line; its cycle may be `+N`, N cycles from the board's now."""
        proc = self._running()
        assert proc.stdin is not None
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def _running(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            raise SimError(f"simbox --pty is not running: {''.join(self._errors).strip()}")
        return self._proc

    def _expect(self, kind: str) -> str:
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.001))
            except queue.Empty:
                raise SimError(f"simbox --pty said no '{kind}' in {self.timeout} s") from None
            if line is None:
                self._running()  # raises with stderr: it has exited
                raise SimError("simbox --pty closed its output")
            if line.split(maxsplit=1)[0] == kind:
                return line

    def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line.strip())
        self._lines.put(None)

    def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        for line in self._proc.stderr:
            self._errors.append(line)

    def _stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        # stdin's end is the harness's signal to stop; a stuck one is killed
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.returncode = proc.returncode
        for reader in self._readers:
            reader.join(timeout=2)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        self.stderr = "".join(self._errors)
        self._proc = None
