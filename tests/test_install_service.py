"""`companion install-service`: the systemd unit as a person on the Pi relies on it, checked by
systemd itself, and the install and remove paths with a fake runner and a temporary root folder."""

from __future__ import annotations

import io
import os
import pwd
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from companion.deploy.commands import install, print_unit, remove
from companion.deploy.machine import Account, Machine
from companion.deploy.request import DeployError, Request, resolve
from companion.deploy.unit import MARKER, UnitChoices, exec_arg, render_unit
from companion.errors import ConfigError
from companion.sim.service import companion

VENV_PROGRAM = Path(os.path.abspath(sys.executable)).parent / "companion"
THIS_USER = pwd.getpwuid(os.getuid()).pw_name
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def settings(unit: str) -> dict[str, list[str]]:
    """Every `Key=value` of a unit (comments left out), in order, per key."""
    found: dict[str, list[str]] = {}
    for line in unit.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


def choices(**changes: object) -> UnitChoices:
    base: dict[str, object] = dict(user="pi", group="pi", executable=Path("/home/pi/tc/.venv/bin/companion"),
                                   data_dir=Path("/var/lib/table-companion"),
                                   supplementary_groups=("gpio", "dialout"))
    base.update(changes)
    return UnitChoices(**base)  # type: ignore[arg-type]


# --- the rendered unit -------------------------------------------------------------------------


def test_the_default_unit_says_what_a_user_relies_on() -> None:
    unit = render_unit(choices(documentation="file:///home/pi/tc/hardware/raspberry-pi.md"))
    s = settings(unit)
    assert unit.startswith(MARKER)
    assert s["Documentation"] == ["file:///home/pi/tc/hardware/raspberry-pi.md"]
    assert s["After"] == s["Wants"] == ["network-online.target"]
    assert s["Type"] == ["simple"]
    assert s["User"] == ["pi"] and s["Group"] == ["pi"]
    assert s["SupplementaryGroups"] == ["gpio dialout"]
    assert s["StateDirectory"] == ["table-companion"]
    assert s["WorkingDirectory"] == ["/var/lib/table-companion"]
    assert s["ExecStart"] == ["/home/pi/tc/.venv/bin/companion serve --data /var/lib/table-companion"]
    assert s["Environment"] == ["PYTHONUNBUFFERED=1"]
    assert s["Restart"] == ["on-failure"]
    assert s["RestartPreventExitStatus"] == ["2"]
    assert int(s["RestartSec"][0]) > 0 and int(s["TimeoutStopSec"][0]) > 0
    assert s["NoNewPrivileges"] == ["yes"] and s["PrivateTmp"] == ["yes"] and s["ProtectSystem"] == ["full"]
    assert "PrivateDevices" not in s and "ProtectHome" not in s
    assert "AmbientCapabilities" not in s and "CapabilityBoundingSet" not in s
    assert s["WantedBy"] == ["multi-user.target"]
    assert "User=root" not in unit


def test_a_custom_data_folder_is_the_working_folder_and_systemd_does_not_make_it() -> None:
    s = settings(render_unit(choices(data_dir=Path("/srv/companion"), state_directory=False)))
    assert "StateDirectory" not in s
    assert s["WorkingDirectory"] == ["/srv/companion"]
    assert s["ExecStart"][0].endswith("serve --data /srv/companion")


def test_config_host_and_port_reach_the_command_line() -> None:
    s = settings(render_unit(choices(config=Path("/etc/table-companion/companion.toml"), host="127.0.0.1",
                                     port=9000, listen_port=9000)))
    assert s["ExecStart"] == ["/home/pi/tc/.venv/bin/companion serve --data /var/lib/table-companion"
                              " --config /etc/table-companion/companion.toml --host 127.0.0.1 --port 9000"]
    assert "AmbientCapabilities" not in s


@pytest.mark.parametrize(("port", "capability"), [(80, True), (1023, True), (1024, False), (8080, False)])
def test_the_bind_capability_only_below_1024(port: int, capability: bool) -> None:
    s = settings(render_unit(choices(port=port, listen_port=port)))
    assert s.get("AmbientCapabilities") == (["CAP_NET_BIND_SERVICE"] if capability else None)


def test_missing_device_groups_are_named_in_a_comment() -> None:
    unit = render_unit(choices(supplementary_groups=("dialout",), missing_groups=("gpio",)))
    assert settings(unit)["SupplementaryGroups"] == ["dialout"]
    assert "# No group 'gpio' on this machine" in unit and "fine off a Raspberry Pi" in unit
    none = render_unit(choices(supplementary_groups=(), missing_groups=("gpio", "dialout")))
    assert "SupplementaryGroups" not in settings(none)


def test_odd_paths_are_quoted_and_percent_escaped() -> None:
    assert exec_arg("/home/pi/my tc/.venv/bin/companion") == '"/home/pi/my tc/.venv/bin/companion"'
    assert exec_arg("/srv/100%") == "/srv/100%%"
    assert exec_arg('a"b$') == '"a\\"b$$"'
    s = settings(render_unit(choices(data_dir=Path("/srv/data 50%"), state_directory=False)))
    assert s["WorkingDirectory"] == ["/srv/data 50%%"]
    assert s["ExecStart"][0].endswith('--data "/srv/data 50%%"')


# --- systemd's own check -----------------------------------------------------------------------


def analyze(unit_text: str, folder: Path, name: str = "table-companion") -> list[str]:
    """What `systemd-analyze verify` says about the unit: [] when it finds nothing wrong with it."""
    assert SYSTEMD_ANALYZE is not None
    path = folder / f"{name}.service"
    path.write_text(unit_text)
    # --man=no: no man pages are installed here. It needs no running systemd (this container has none).
    result = subprocess.run([SYSTEMD_ANALYZE, "verify", "--man=no", str(path)], capture_output=True, text=True,
                            timeout=60)
    said = (result.stdout + result.stderr).splitlines()
    problems = [line for line in said if name in line]
    if result.returncode != 0:
        problems.append(f"exit status {result.returncode}: {said}")
    return problems


needs_analyze = pytest.mark.skipif(SYSTEMD_ANALYZE is None,
                                   reason="systemd-analyze is not installed (package systemd), so systemd cannot"
                                          " check the unit here")


def real_machine(tmp_path: Path) -> Machine:
    """This test machine as it is (its users, groups and venv), but nothing is run."""
    def refuse(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        raise AssertionError(f"nothing may run here: {command}")

    return Machine(run=refuse, environ={}, out=io.StringIO(), err=io.StringIO())


@needs_analyze
@pytest.mark.parametrize("case", ["default", "custom data and config, port 80", "odd folder name"])
def test_systemd_finds_nothing_wrong_with_the_unit(tmp_path: Path, case: str) -> None:
    request = Request(user=THIS_USER)
    if case == "custom data and config, port 80":
        config = tmp_path / "companion.toml"
        config.write_text('[server]\nport = 80\npublic_url = "http://10.42.0.1"\n')
        request = Request(user=THIS_USER, data=Path("/srv/companion"), config=config, host="0.0.0.0")
    elif case == "odd folder name":
        request = Request(user=THIS_USER, data=Path("/srv/table data 100%"), port=8081)  # not made by resolve
    unit_choices = resolve(request, real_machine(tmp_path))
    assert unit_choices.executable == VENV_PROGRAM and VENV_PROGRAM.is_file()
    unit = render_unit(unit_choices)
    if case.endswith("port 80"):
        assert "AmbientCapabilities=CAP_NET_BIND_SERVICE" in unit
    assert analyze(unit, tmp_path) == []


@needs_analyze
@pytest.mark.parametrize(("broken", "fix"), [
    ("RestartSec=", "RestartSek="),                                        # a typo in a key
    ("[Service]", "[Servce]"),                                             # a typo in a section
    ("Restart=on-failure", "Restart=sometimes"),                           # a value systemd does not know
    (f"ExecStart={VENV_PROGRAM}", "ExecStart=companion-nowhere"),          # a program that is not there
])
def test_the_check_catches_a_broken_unit(tmp_path: Path, broken: str, fix: str) -> None:
    unit = render_unit(resolve(Request(user=THIS_USER), real_machine(tmp_path)))
    assert broken in unit
    assert analyze(unit.replace(broken, fix, 1), tmp_path) != []


# --- install and remove with a fake runner and a temporary root ----------------------------------


class FakeRunner:
    def __init__(self, missing: str | None = None, failing: str | None = None) -> None:
        self.commands: list[list[str]] = []
        self.missing = missing
        self.failing = failing

    def __call__(self, command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        if command[0] == self.missing:
            raise FileNotFoundError(command[0])
        self.commands.append(list(command))
        if self.failing and " ".join(command).startswith(self.failing):
            return subprocess.CompletedProcess(list(command), 1, "", "Failed to do it: Access denied\n")
        return subprocess.CompletedProcess(list(command), 0, "", "")


ACCOUNTS = {
    "pi": Account("pi", "pi", frozenset({"pi", "dialout"})),
    "ann": Account("ann", "users", frozenset({"users", "gpio", "dialout"})),
    "root": Account("root", "root", frozenset({"root"})),
}
PROGRAM = Path("/home/pi/tc/.venv/bin/companion")


def fake_machine(root: Path, euid: int = 0, runner: FakeRunner | None = None,
                 groups: Sequence[str] = ("gpio", "dialout"), environ: dict[str, str] | None = None) -> Machine:
    (root / "run/systemd/system").mkdir(parents=True, exist_ok=True)
    program = root / PROGRAM.relative_to("/")
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text("#!/bin/sh\n")
    return Machine(run=runner or FakeRunner(), root=root, euid=euid,
                   environ={"SUDO_USER": "pi"} if environ is None else environ, current_user="root",
                   executable=PROGRAM.parent / "python", account=ACCOUNTS.get, group_exists=lambda g: g in groups,
                   hostname="tablepi", out=io.StringIO(), err=io.StringIO())


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_install_writes_the_unit_adds_the_groups_and_starts_it(tmp_path: Path) -> None:
    runner = FakeRunner()
    machine = fake_machine(tmp_path, runner=runner)
    assert install(Request(), machine) == 0
    unit = (tmp_path / "etc/systemd/system/table-companion.service").read_text()
    assert unit == render_unit(resolve(Request(), machine))
    assert settings(unit)["User"] == ["pi"] and settings(unit)["SupplementaryGroups"] == ["gpio dialout"]
    assert runner.commands == [
        ["systemctl", "--version"],
        ["usermod", "-aG", "gpio", "pi"],          # pi already has dialout
        ["systemctl", "daemon-reload"],
        ["systemctl", "enable", "--now", "table-companion"],
    ]
    said = machine.out.getvalue()  # type: ignore[attr-defined]
    for words in ("Wrote /etc/systemd/system/table-companion.service", "Added pi to the group gpio",
                  "Data folder:  /var/lib/table-companion", "journalctl -u table-companion -f",
                  "sudo systemctl disable --now table-companion", "sudo systemctl stop table-companion",
                  "http://tablepi.local:8080/table", ":8080/table", "install-service --remove"):
        assert words in said, words
    assert machine.err.getvalue() == ""  # type: ignore[attr-defined]


def test_installing_again_rewrites_and_restarts(tmp_path: Path) -> None:
    install(Request(), fake_machine(tmp_path))
    runner = FakeRunner()
    assert install(Request(user="ann", port=9000), fake_machine(tmp_path, runner=runner)) == 0
    unit = (tmp_path / "etc/systemd/system/table-companion.service").read_text()
    assert settings(unit)["User"] == ["ann"] and settings(unit)["Group"] == ["users"]
    assert runner.commands == [["systemctl", "--version"], ["systemctl", "daemon-reload"],
                               ["systemctl", "enable", "--now", "table-companion"],
                               ["systemctl", "restart", "table-companion"]]


def test_a_custom_data_folder_is_made_and_given_to_the_user(tmp_path: Path) -> None:
    runner = FakeRunner()
    machine = fake_machine(tmp_path, runner=runner, groups=("dialout",))
    assert install(Request(data=Path("/srv/companion"), name="quiz", port=80), machine) == 0
    assert (tmp_path / "srv/companion").is_dir()
    assert runner.commands[1] == ["chown", "-R", "pi:pi", "/srv/companion"]
    assert ["systemctl", "enable", "--now", "quiz"] in runner.commands
    assert not any(c[0] == "usermod" for c in runner.commands)  # pi has dialout; no gpio group here
    s = settings((tmp_path / "etc/systemd/system/quiz.service").read_text())
    assert s["WorkingDirectory"] == ["/srv/companion"] and "StateDirectory" not in s
    assert s["AmbientCapabilities"] == ["CAP_NET_BIND_SERVICE"]
    said = machine.out.getvalue()  # type: ignore[attr-defined]
    assert "No 'gpio' group here" in said and "http://tablepi.local/table" in said


def test_without_root_it_prints_the_sudo_line_and_changes_nothing(tmp_path: Path) -> None:
    runner = FakeRunner()
    machine = fake_machine(tmp_path, euid=1000, runner=runner, environ={})
    machine.current_user = "pi"
    before = files(tmp_path)
    assert install(Request(port=9000), machine) == 1
    assert machine.err.getvalue().splitlines() == [  # type: ignore[attr-defined]
        "companion: installing a system service needs root. Run:",
        "  sudo /home/pi/tc/.venv/bin/companion install-service --user pi --port 9000",
    ]
    assert remove(Request(), machine) == 1
    assert machine.err.getvalue().splitlines()[-1] == (  # type: ignore[attr-defined]
        "  sudo /home/pi/tc/.venv/bin/companion install-service --remove")
    assert runner.commands == [] and files(tmp_path) == before


def test_print_changes_nothing(tmp_path: Path) -> None:
    runner = FakeRunner()
    machine = fake_machine(tmp_path, euid=1000, runner=runner)
    before = files(tmp_path)
    assert print_unit(Request(data=Path("/srv/companion")), machine) == 0
    assert machine.out.getvalue().startswith(MARKER)  # type: ignore[attr-defined]
    assert runner.commands == [] and files(tmp_path) == before


def test_remove_stops_deletes_and_keeps_the_data(tmp_path: Path) -> None:
    install(Request(data=Path("/srv/companion")), fake_machine(tmp_path))
    (tmp_path / "srv/companion/events.sqlite").write_text("the log")
    runner = FakeRunner()
    machine = fake_machine(tmp_path, runner=runner)
    assert remove(Request(), machine) == 0
    assert runner.commands == [["systemctl", "--version"], ["systemctl", "disable", "--now", "table-companion"],
                               ["systemctl", "daemon-reload"]]
    assert not (tmp_path / "etc/systemd/system/table-companion.service").exists()
    assert (tmp_path / "srv/companion/events.sqlite").read_text() == "the log"
    assert "The data is kept in /srv/companion" in machine.out.getvalue()  # type: ignore[attr-defined]
    again = fake_machine(tmp_path)
    assert remove(Request(), again) == 1
    assert "no service 'table-companion' is installed" in again.err.getvalue()  # type: ignore[attr-defined]


def test_a_unit_it_did_not_write_is_left_alone(tmp_path: Path) -> None:
    machine = fake_machine(tmp_path)
    foreign = tmp_path / "etc/systemd/system/table-companion.service"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("[Service]\nExecStart=/bin/true\n")
    with pytest.raises(DeployError, match="not written by install-service"):
        install(Request(), machine)
    with pytest.raises(DeployError, match="not written by install-service"):
        remove(Request(), machine)
    assert foreign.read_text() == "[Service]\nExecStart=/bin/true\n"


# --- clear errors ------------------------------------------------------------------------------


def test_who_the_service_runs_as(tmp_path: Path) -> None:
    assert resolve(Request(), fake_machine(tmp_path)).user == "pi"                          # SUDO_USER
    with pytest.raises(DeployError, match=r"would run as root.*--user root"):
        resolve(Request(), fake_machine(tmp_path, environ={}))                           # root, not asked
    assert resolve(Request(user="root"), fake_machine(tmp_path, environ={})).user == "root"  # asked
    with pytest.raises(DeployError, match="--user: no user 'bob' on this machine"):
        resolve(Request(user="bob"), fake_machine(tmp_path))


def test_the_config_file(tmp_path: Path) -> None:
    machine = fake_machine(tmp_path)
    assert resolve(Request(), machine).config is None
    default = tmp_path / "etc/table-companion/companion.toml"
    default.parent.mkdir(parents=True)
    default.write_text("[server]\nport = 443\n")
    found = resolve(Request(), machine)
    assert found.config == Path("/etc/table-companion/companion.toml") and found.listen_port == 443
    assert "--config /etc/table-companion/companion.toml" in settings(render_unit(found))["ExecStart"][0]
    with pytest.raises(DeployError, match=re.escape("--config: no such file: /etc/nowhere.toml")):
        resolve(Request(config=Path("/etc/nowhere.toml")), machine)
    default.write_text("[server]\nport = 'eighty'\n")
    with pytest.raises(ConfigError, match=r"server\.port"):
        resolve(Request(), machine)


@pytest.mark.parametrize(("data", "problem"), [
    ("/usr/local/companion", "under /usr"), ("/tmp/companion", "under /tmp"), ("/home", "holds other things"),
])
def test_data_folders_the_service_could_not_keep(tmp_path: Path, data: str, problem: str) -> None:
    with pytest.raises(DeployError, match=problem):
        resolve(Request(data=Path(data)), fake_machine(tmp_path))


def test_a_data_folder_that_cannot_be_made(tmp_path: Path) -> None:
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv/taken").write_text("a file")
    runner = FakeRunner()
    with pytest.raises(DeployError, match="--data: /srv/taken is a file, not a folder"):
        install(Request(data=Path("/srv/taken")), fake_machine(tmp_path, runner=runner))
    assert not (tmp_path / "etc/systemd/system").exists()


def test_no_systemctl_or_no_systemd_changes_nothing(tmp_path: Path) -> None:
    with pytest.raises(DeployError, match="systemctl not found"):
        install(Request(), fake_machine(tmp_path, runner=FakeRunner(missing="systemctl")))
    (tmp_path / "run/systemd/system").rmdir()
    machine = fake_machine(tmp_path)
    (tmp_path / "run/systemd/system").rmdir()
    with pytest.raises(DeployError, match="systemd is not running"):
        install(Request(), machine)
    assert not (tmp_path / "etc").exists()


def test_a_failing_command_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(DeployError, match=r"`systemctl enable --now table-companion` failed: .*Access denied"):
        install(Request(), fake_machine(tmp_path, runner=FakeRunner(failing="systemctl enable")))


def test_a_bad_name(tmp_path: Path) -> None:
    with pytest.raises(DeployError, match="--name"):
        resolve(Request(name="../evil"), fake_machine(tmp_path))
    assert resolve(Request(name="quiz.service"), fake_machine(tmp_path)).name == "quiz"


# --- the command line --------------------------------------------------------------------------


def test_the_cli_prints_the_unit() -> None:
    result = companion("install-service", "--print", "--user", THIS_USER, "--port", "9000")
    assert result.returncode == 0, result.stderr
    s = settings(result.stdout)
    assert s["User"] == [THIS_USER]
    assert s["ExecStart"] == [f"{exec_arg(str(VENV_PROGRAM))} serve --data /var/lib/table-companion --port 9000"]
    assert not Path("/etc/systemd/system/table-companion.service").exists()


def test_the_cli_errors_are_one_line() -> None:
    result = companion("install-service", "--print", "--user", "no-such-user-here")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "companion: --user: no user 'no-such-user-here' on this machine (create it with"
        " `sudo adduser no-such-user-here`, or name another with --user)"]
    both = companion("install-service", "--print", "--remove")
    assert both.returncode == 2 and "not allowed with" in both.stderr
    assert "install-service" in companion("--help").stdout
