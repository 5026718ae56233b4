"""The systemd unit, rendered as text by pure functions from a `UnitChoices`.

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

import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_NAME = "table-companion"
UNIT_FOLDER = Path("/etc/systemd/system")
DEVICE_GROUPS = {
    "gpio": "GPIO buttons, /dev/gpiochip*",
    "dialout": "the buzzer box, /dev/ttyACM*",
}
MARKER = "# Written by `companion install-service`."
RESTART_SEC = 3
"""After a crash, systemd waits this long before starting the service again."""
TIMEOUT_STOP_SEC = 20
"""How long a stop may take (the service closes its log cleanly) before systemd kills it."""


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
