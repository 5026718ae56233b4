"""The I/O edge of `companion install-service`. Every command goes through `Machine.run` and every
file through `Machine.path`, so tests use a fake runner and a temporary root folder; the product uses
subprocess and "/"."""

from __future__ import annotations

import grp
import os
import pwd
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    group: str
    """The primary group's name."""
    groups: frozenset[str]
    """Every group the account is in, the primary one included."""


def system_account(name: str) -> Account | None:
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return None
    try:
        primary = grp.getgrgid(entry.pw_gid).gr_name
    except KeyError:
        primary = str(entry.pw_gid)
    groups = {g.gr_name for g in grp.getgrall() if name in g.gr_mem}
    return Account(name, primary, frozenset(groups | {primary}))


def system_group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def run_command(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, check=False)


def _current_user() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


@dataclass
class Machine:
    """The I/O edge. Tests replace the runner, the root folder and the lookups; nothing else differs."""

    run: Runner = run_command
    root: Path = Path("/")
    euid: int = field(default_factory=os.geteuid)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    current_user: str = field(default_factory=_current_user)
    executable: Path = field(default_factory=lambda: Path(os.path.abspath(sys.executable)))
    account: Callable[[str], Account | None] = system_account
    group_exists: Callable[[str], bool] = system_group_exists
    hostname: str = field(default_factory=socket.gethostname)
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)

    def path(self, absolute: Path) -> Path:
        """Where an absolute path of the real machine is under this machine's root."""
        return self.root / absolute.relative_to("/")

    def companion_program(self) -> Path:
        return self.executable.parent / "companion"
