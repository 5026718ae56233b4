"""`companion install-service`, `--print` and `--remove`: the unit written or taken away, and
`systemctl` told, as root; without root, the exact `sudo` line to type."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from companion.config import load_config
from companion.deploy.machine import Machine
from companion.deploy.request import DeployError, Request, absolute_path, check_name, resolve
from companion.deploy.unit import (
    DEFAULT_NAME,
    DEVICE_GROUPS,
    MARKER,
    UnitChoices,
    default_config,
    default_data_dir,
    exec_arg,
    render_unit,
    unit_path,
)
from companion.netinfo import base_url


def sudo_command(machine: Machine, request: Request, remove: bool = False) -> str:
    """The exact line to type to do the same thing as root."""
    words = ["sudo", str(machine.companion_program()), "install-service"]
    if remove:
        words.append("--remove")
    else:
        words += ["--user", request.user or machine.current_user]
        if request.data is not None:
            words += ["--data", str(absolute_path(request.data, "--data"))]
        if request.config is not None:
            words += ["--config", str(absolute_path(request.config, "--config"))]
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
    name = check_name(request.name)
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
