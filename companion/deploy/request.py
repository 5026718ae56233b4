"""What a person asked `companion install-service` for, checked against this machine before anything
is written: the account and its groups, the paths, the config."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.config import load_config
from companion.deploy.machine import Machine
from companion.deploy.unit import DEFAULT_NAME, DEVICE_GROUPS, UnitChoices, default_config, default_data_dir
from companion.errors import CompanionError

READ_ONLY_IN_SERVICE = ("/usr", "/boot", "/efi", "/etc")
"""Folders `ProtectSystem=full` makes read-only for the service."""
NOT_A_DATA_FOLDER = ("/proc", "/sys", "/dev", "/run", "/tmp", "/var/tmp")
"""Kernel and temporary folders: gone at reboot, or private to the service (`PrivateTmp=yes`)."""
TOP_FOLDERS = ("/", "/home", "/var", "/var/lib", "/srv", "/opt", "/mnt", "/media", "/root")
"""Folders that hold other things: the installer would change their owner."""


class DeployError(CompanionError):
    """Installing or removing the service cannot go on; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Request:
    """What the person asked for on the command line."""

    name: str = DEFAULT_NAME
    user: str | None = None
    data: Path | None = None
    config: Path | None = None
    host: str | None = None
    port: int | None = None


def check_name(name: str) -> str:
    name = name.removesuffix(".service")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", name):
        raise DeployError(f"--name: {name!r} is not a usable service name (letters, digits, '-', '_' and '.')")
    return name


def _check_text(value: str, what: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise DeployError(f"{what}: must not contain control characters or line breaks")
    return value


def absolute_path(path: Path, what: str) -> Path:
    return Path(os.path.normpath(os.path.abspath(_check_text(str(path), what))))


def _under(path: Path, folders: Sequence[str]) -> str | None:
    for folder in folders:
        if path == Path(folder) or Path(folder) in path.parents:
            return folder
    return None


def _documentation() -> str | None:
    repository = Path(__file__).resolve().parents[2]
    for guide in (repository / "hardware" / "raspberry-pi.md", repository / "README.md"):
        if guide.is_file():
            return guide.as_uri()
    return None


def resolve(request: Request, machine: Machine) -> UnitChoices:
    """The request checked against this machine: the account, its groups, the paths, the config."""
    name = check_name(request.name)
    explicit = request.user is not None
    user = request.user or machine.environ.get("SUDO_USER") or machine.current_user
    account = machine.account(_check_text(user, "--user"))
    if account is None:
        raise DeployError(f"--user: no user {user!r} on this machine (create it with `sudo adduser {user}`,"
                          " or name another with --user)")
    if account.name == "root" and not explicit:
        raise DeployError("the service would run as root: run this with sudo from your own account, or name the"
                          " account it runs as with --user NAME (--user root if you really mean root)")

    program = machine.companion_program()
    if not machine.path(program).is_file():
        raise DeployError(f"no companion program at {program} (next to {machine.executable}): run ./run once"
                          " to install it into the venv, then use .venv/bin/companion")

    if request.data is None:
        data_dir, state_directory = default_data_dir(name), True
    else:
        data_dir, state_directory = absolute_path(request.data, "--data"), False
        if data_dir == default_data_dir(name):
            state_directory = True
        elif data_dir in map(Path, TOP_FOLDERS):
            raise DeployError(f"--data: {data_dir} holds other things; give a folder of its own, such as"
                              f" {data_dir / name}")
        elif (folder := _under(data_dir, READ_ONLY_IN_SERVICE)) is not None:
            raise DeployError(f"--data: {data_dir} is under {folder}, which the service may not write"
                              " (ProtectSystem=full); use /var/lib/..., /srv/... or a folder in your home")
        elif (folder := _under(data_dir, NOT_A_DATA_FOLDER)) is not None:
            raise DeployError(f"--data: {data_dir} is under {folder}, which does not keep files for the"
                              " service; use /var/lib/..., /srv/... or a folder in your home")

    config = None
    if request.config is not None:
        config = absolute_path(request.config, "--config")
        if not machine.path(config).is_file():
            raise DeployError(f"--config: no such file: {config}")
    elif machine.path(default_config(name)).is_file():
        config = default_config(name)

    # Checked now, so a mistake is reported here and not by a service that refuses to start.
    host = _check_text(request.host, "--host") if request.host is not None else None
    loaded = load_config(machine.path(config) if config else None, {"server.host": host, "server.port": request.port})
    present = tuple(g for g in DEVICE_GROUPS if machine.group_exists(g))
    return UnitChoices(
        user=account.name, group=account.group, executable=program, data_dir=data_dir,
        state_directory=state_directory, name=name, supplementary_groups=present,
        missing_groups=tuple(g for g in DEVICE_GROUPS if g not in present), config=config,
        host=host, port=request.port, listen_port=loaded.server.port, documentation=_documentation(),
    )
