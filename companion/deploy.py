"""`companion install-service`: run the companion as a systemd service on the Pi.

The unit is rendered as text by pure functions from a `UnitChoices`; `install` and `remove` are
the thin edge that writes it and runs `systemctl`. Every command goes through `Machine.run` and
every file through `Machine.path`, so tests use a fake runner and a temporary root folder; the
product uses subprocess and "/".

The unit's choices, and why:

* It runs as a normal account (the one that ran sudo), never root unless asked with `--user root`.
* `SupplementaryGroups=` gives it the Pi's `gpio` group (/dev/gpiochip*) and `dialout` (the buzzer
  box on /dev/ttyACM*), whichever exist here; the account is also added to them, so `companion
  hw-test` works for it at the keyboard.
* The data folder is its working folder: lgpio writes its notification files in the current folder.
* A start problem (a bad config, a damaged log, a port in use) exits with status 2, and
  `RestartPreventExitStatus=2` keeps systemd from restarting it in a loop: its one line stays at the
  end of `journalctl -u <name>`. Any other failure is restarted.
* Hardening that leaves GPIO, serial devices and a venv in a home folder working: no
  `PrivateDevices=` (it would hide /dev/gpiochip* and /dev/ttyACM*), no `ProtectHome=` (the venv
  usually lives in /home/<user>).
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import shlex
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from companion.errors import CompanionError

DEFAULT_NAME = "table-companion"
UNIT_FOLDER = Path("/etc/systemd/system")
DEVICE_GROUPS = {
    "gpio": "GPIO buttons, /dev/gpiochip*",
    "dialout": "the buzzer box, /dev/ttyACM*",
}
MARKER = "# Written by `companion install-service`."
RESTART_SEC = 3
TIMEOUT_STOP_SEC = 20
READ_ONLY_IN_SERVICE = ("/usr", "/boot", "/efi", "/etc")
"""Folders `ProtectSystem=full` makes read-only for the service."""
NOT_A_DATA_FOLDER = ("/proc", "/sys", "/dev", "/run", "/tmp", "/var/tmp")
"""Kernel and temporary folders: gone at reboot, or private to the service (`PrivateTmp=yes`)."""
TOP_FOLDERS = ("/", "/home", "/var", "/var/lib", "/srv", "/opt", "/mnt", "/media", "/root")
"""Folders that hold other things: the installer would change their owner."""


class DeployError(CompanionError):
    """Installing or removing the service cannot go on; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class UnitChoices:
    """Everything the unit file says, resolved to absolute paths and existing names."""

    user: str
    group: str
    executable: Path
    """The venv's `companion` program (absolute)."""
    data_dir: Path
    state_directory: bool = True
    """The data folder is /var/lib/<name>, made by systemd (`StateDirectory=`)."""
    name: str = DEFAULT_NAME
    supplementary_groups: tuple[str, ...] = ()
    missing_groups: tuple[str, ...] = ()
    """Device groups that do not exist on this machine (said in a comment)."""
    config: Path | None = None
    host: str | None = None
    port: int | None = None
    """Passed to `companion serve` only when given; otherwise the config file's (or 8080)."""
    listen_port: int = 8080
    """The port the service will listen on, wherever it comes from (below 1024 needs a capability)."""
    documentation: str | None = None


def default_data_dir(name: str) -> Path:
    return Path("/var/lib") / name


def default_config(name: str) -> Path:
    return Path("/etc") / name / "companion.toml"


def unit_path(name: str) -> Path:
    return UNIT_FOLDER / f"{name}.service"


def _specifiers(text: str) -> str:
    """systemd expands %x specifiers in most settings; a literal % is written %%."""
    return text.replace("%", "%%")


def exec_arg(arg: str) -> str:
    """One word of ExecStart=, quoted the way systemd splits its command line."""
    text = _specifiers(arg).replace("$", "$$")
    if text and not re.search(r"[\s\"'\\;]", text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def serve_command(c: UnitChoices) -> list[str]:
    command = [str(c.executable), "serve", "--data", str(c.data_dir)]
    if c.config is not None:
        command += ["--config", str(c.config)]
    if c.host is not None:
        command += ["--host", c.host]
    if c.port is not None:
        command += ["--port", str(c.port)]
    return command


def render_unit(c: UnitChoices) -> str:
    """The unit file's text (pure)."""
    lines = [
        MARKER,
        f"# Change it with `sudo {exec_arg(str(c.executable))} install-service ...` (it rewrites this file).",
        "",
        "[Unit]",
        "Description=The table companion (buttons, dice and hidden information for board games)",
    ]
    if c.documentation:
        lines.append(f"Documentation={_specifiers(c.documentation)}")
    lines += [
        "After=network-online.target",
        "Wants=network-online.target",
        "",
        "[Service]",
        "Type=simple",
        f"User={c.user}",
        f"Group={c.group}",
    ]
    for missing in c.missing_groups:
        lines.append(f"# No group {missing!r} on this machine ({DEVICE_GROUPS.get(missing, 'devices')}): "
                     "fine off a Raspberry Pi, where there is no such device to open.")
    if c.supplementary_groups:
        lines.append(f"SupplementaryGroups={' '.join(c.supplementary_groups)}")
    if c.state_directory:
        lines += [
            "# The data folder is made by systemd and owned by the user above.",
            f"StateDirectory={c.name}",
            "StateDirectoryMode=0750",
        ]
    lines += [
        "# The working folder must be writable: lgpio writes its notification files there.",
        f"WorkingDirectory={_specifiers(str(c.data_dir))}",
        "ExecStart=" + " ".join(exec_arg(a) for a in serve_command(c)),
        "Environment=PYTHONUNBUFFERED=1",
        "# A bad config, a damaged log or a port in use exits with status 2: not restarted in a loop,",
        f"# its one line stays at the end of `journalctl -u {c.name}`.",
        "Restart=on-failure",
        f"RestartSec={RESTART_SEC}",
        "RestartPreventExitStatus=2",
        "# SIGTERM stops it cleanly, every acknowledged action saved.",
        f"TimeoutStopSec={TIMEOUT_STOP_SEC}",
        "# Hardening that keeps /dev/gpiochip*, /dev/ttyACM* and a venv in /home reachable",
        "# (so no PrivateDevices= and no ProtectHome=).",
        "NoNewPrivileges=yes",
        "PrivateTmp=yes",
        "ProtectSystem=full",
    ]
    if c.listen_port < 1024:
        lines += [
            f"# Port {c.listen_port} is below 1024: allowed to bind it, and nothing else.",
            "AmbientCapabilities=CAP_NET_BIND_SERVICE",
        ]
    lines += [
        "",
        "[Install]",
        "WantedBy=multi-user.target",
        "",
    ]
    return "\n".join(lines)


# --- the request and the machine ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Request:
    """What the person asked for on the command line."""

    name: str = DEFAULT_NAME
    user: str | None = None
    data: Path | None = None
    config: Path | None = None
    host: str | None = None
    port: int | None = None


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


def _check_name(name: str) -> str:
    name = name.removesuffix(".service")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", name):
        raise DeployError(f"--name: {name!r} is not a usable service name (letters, digits, '-', '_' and '.')")
    return name


def _check_text(value: str, what: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise DeployError(f"{what}: must not contain control characters or line breaks")
    return value


def _absolute(path: Path, what: str) -> Path:
    return Path(os.path.normpath(os.path.abspath(_check_text(str(path), what))))


def _under(path: Path, folders: Sequence[str]) -> str | None:
    for folder in folders:
        if path == Path(folder) or Path(folder) in path.parents:
            return folder
    return None


def _documentation() -> str | None:
    repository = Path(__file__).resolve().parent.parent
    for guide in (repository / "hardware" / "raspberry-pi.md", repository / "README.md"):
        if guide.is_file():
            return guide.as_uri()
    return None


def resolve(request: Request, machine: Machine) -> UnitChoices:
    """The request checked against this machine: the account, its groups, the paths, the config."""
    name = _check_name(request.name)
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
        data_dir, state_directory = _absolute(request.data, "--data"), False
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
        config = _absolute(request.config, "--config")
        if not machine.path(config).is_file():
            raise DeployError(f"--config: no such file: {config}")
    elif machine.path(default_config(name)).is_file():
        config = default_config(name)

    from companion.config import load_config

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


# --- the commands ------------------------------------------------------------------------------


def sudo_command(machine: Machine, request: Request, remove: bool = False) -> str:
    """The exact line to type to do the same thing as root."""
    words = ["sudo", str(machine.companion_program()), "install-service"]
    if remove:
        words.append("--remove")
    else:
        words += ["--user", request.user or machine.current_user]
        if request.data is not None:
            words += ["--data", str(_absolute(request.data, "--data"))]
        if request.config is not None:
            words += ["--config", str(_absolute(request.config, "--config"))]
        if request.host is not None:
            words += ["--host", request.host]
        if request.port is not None:
            words += ["--port", str(request.port)]
    if request.name != DEFAULT_NAME:
        words += ["--name", request.name]
    return shlex.join(words)


def _needs_root(machine: Machine, request: Request, remove: bool) -> bool:
    if machine.euid == 0:
        return False
    action = "removing" if remove else "installing"
    print(f"companion: {action} a system service needs root. Run:", file=machine.err)
    print(f"  {sudo_command(machine, request, remove)}", file=machine.err)
    return True


def _run(machine: Machine, command: Sequence[str]) -> None:
    try:
        result = machine.run(command)
    except FileNotFoundError:
        raise DeployError(f"{command[0]} not found: this needs a Linux with systemd, such as Raspberry Pi OS"
                          " or Debian") from None
    if result.returncode != 0:
        said = (result.stderr or result.stdout or "").strip().splitlines()
        reason = said[-1] if said else f"exit status {result.returncode}"
        raise DeployError(f"`{shlex.join(command)}` failed: {reason}")


def _check_systemd(machine: Machine) -> None:
    _run(machine, ["systemctl", "--version"])
    if not machine.path(Path("/run/systemd/system")).is_dir():
        raise DeployError("systemd is not running on this machine (no /run/systemd/system), so it cannot run"
                          " a service; start the companion with ./run instead")


def print_unit(request: Request, machine: Machine) -> int:
    machine.out.write(render_unit(resolve(request, machine)))
    return 0


def install(request: Request, machine: Machine) -> int:
    if _needs_root(machine, request, remove=False):
        return 1
    choices = resolve(request, machine)
    account = machine.account(choices.user)
    assert account is not None  # resolve found it
    _check_systemd(machine)
    done: list[str] = []

    if not choices.state_directory:
        folder = machine.path(choices.data_dir)
        try:
            folder.mkdir(mode=0o750, parents=True, exist_ok=True)
        except FileExistsError:
            raise DeployError(f"--data: {choices.data_dir} is a file, not a folder") from None
        except OSError as err:
            raise DeployError(f"--data: cannot create {choices.data_dir}: {err.strerror or err}") from None
        _run(machine, ["chown", "-R", f"{choices.user}:{choices.group}", str(choices.data_dir)])
        done.append(f"Made {choices.data_dir} the data folder, owned by {choices.user}.")

    unit = unit_path(choices.name)
    target = machine.path(unit)
    existed = target.exists()
    if existed and MARKER not in target.read_text("utf-8", errors="replace"):
        raise DeployError(f"{unit} exists and was not written by install-service; choose another --name"
                          " or remove that unit first")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_unit(choices), "utf-8")
        target.chmod(0o644)
    except OSError as err:
        raise DeployError(f"cannot write {unit}: {err.strerror or err}") from None
    done.append(f"{'Rewrote' if existed else 'Wrote'} {unit}.")

    lacking = [g for g in choices.supplementary_groups if g not in account.groups]
    if lacking:
        _run(machine, ["usermod", "-aG", ",".join(lacking), choices.user])
        done.append(f"Added {choices.user} to the group{'s' if len(lacking) > 1 else ''} {', '.join(lacking)}"
                    f" (for `companion hw-test`; takes effect at {choices.user}'s next login).")
    for missing in choices.missing_groups:
        done.append(f"No {missing!r} group here ({DEVICE_GROUPS[missing]}): fine off a Raspberry Pi.")

    _run(machine, ["systemctl", "daemon-reload"])
    _run(machine, ["systemctl", "enable", "--now", choices.name])
    if existed:
        _run(machine, ["systemctl", "restart", choices.name])
    done.append(f"Enabled and {'restarted' if existed else 'started'} {choices.name} (it starts at every boot).")
    _summary(machine, choices, done)
    return 0


def _summary(machine: Machine, c: UnitChoices, done: list[str]) -> None:
    from companion.config import load_config
    from companion.netinfo import base_url

    server = load_config(machine.path(c.config) if c.config else None,
                         {"server.host": c.host, "server.port": c.port}).server
    url = base_url(server.host, server.port, server.public_url)
    port = "" if server.port == 80 else f":{server.port}"
    say = [*done, "",
           f"Runs as:      {c.user} (groups {', '.join((c.group, *c.supplementary_groups))})",
           f"Data folder:  {c.data_dir}   (the event log and host.key; kept if the service is removed)",
           f"Config:       {c.config or f'none, the defaults (write {default_config(c.name)} and run this again)'}",
           f"Table:        {url}/table   or http://{machine.hostname}.local{port}/table",
           f"Host key:     sudo cat {c.data_dir / 'host.key'}",
           f"Logs:         journalctl -u {c.name} -f",
           f"Status:       systemctl status {c.name}",
           f"Restart:      sudo systemctl restart {c.name}",
           f"Stop:         sudo systemctl stop {c.name}   (until the next boot)",
           f"Disable:      sudo systemctl disable --now {c.name}",
           f"Remove:       sudo {exec_arg(str(c.executable))} install-service --remove"
           + ("" if c.name == DEFAULT_NAME else f" --name {c.name}")]
    for line in say:
        print(line, file=machine.out)


def remove(request: Request, machine: Machine) -> int:
    if _needs_root(machine, request, remove=True):
        return 1
    name = _check_name(request.name)
    unit = unit_path(name)
    target = machine.path(unit)
    if not target.is_file():
        print(f"companion: no service {name!r} is installed (no {unit})", file=machine.err)
        return 1
    text = target.read_text("utf-8", errors="replace")
    if MARKER not in text:
        raise DeployError(f"{unit} was not written by install-service; not removing it")
    data = next((line.split("=", 1)[1].replace("%%", "%") for line in text.splitlines()
                 if line.startswith("WorkingDirectory=")), str(default_data_dir(name)))
    _check_systemd(machine)
    _run(machine, ["systemctl", "disable", "--now", name])
    try:
        target.unlink()
    except OSError as err:
        raise DeployError(f"cannot delete {unit}: {err.strerror or err}") from None
    _run(machine, ["systemctl", "daemon-reload"])
    print(f"Stopped and disabled {name}, deleted {unit}.", file=machine.out)
    print(f"The data is kept in {data} (the event log and host.key); delete it yourself if you no longer"
          " need it.", file=machine.out)
    return 0
