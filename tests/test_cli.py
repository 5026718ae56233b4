"""The CLI as a person meets it: clear one-line errors, clean stops, readable logs and exports."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.sim.service import ServiceProcess, companion, free_port
from companion.store import EventStore, RecordedEvent, verify_chain


def one_clear_line(result) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("companion: ")
    return lines[0]


@pytest.fixture
def running(tmp_path: Path) -> Iterator[ServiceProcess]:
    service = ServiceProcess(tmp_path / "data").start()
    yield service
    service.stop()


def test_help_reads_well() -> None:
    result = companion("--help")
    assert result.returncode == 0
    for word in ("serve", "replay", "export"):
        assert word in result.stdout
    serve = companion("serve", "--help").stdout
    for flag in ("--host", "--port", "--data", "--config", "--simulate"):
        assert flag in serve


def test_a_bad_config_is_one_line_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text("[server]\nport = 'eighty'\n")
    line = one_clear_line(companion("serve", "--config", str(config), "--data", str(tmp_path / "d")))
    assert line == f"companion: {config}: server.port: must be a whole number from 1 to 65535 (got 'eighty')"


@pytest.mark.parametrize("kind", ["file", "unwritable"])
def test_a_bad_data_folder_is_one_line(tmp_path: Path, kind: str) -> None:
    if kind == "file":
        data = tmp_path / "data"
        data.write_text("not a folder")
        expected = "is a file, not a folder"
    else:
        data = Path("/sys/kernel")  # exists, and not writable even by root
        expected = "is not writable"
    line = one_clear_line(companion("serve", "--data", str(data), "--port", str(free_port())))
    assert expected in line and str(data) in line


def test_an_occupied_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_clear_line(companion("serve", "--host", "127.0.0.1", "--port", str(port),
                                        "--data", str(tmp_path / "d")))
    assert f"port {port}" in line and "already in use" in line


def test_a_second_service_on_the_same_data_folder_is_refused(running: ServiceProcess) -> None:
    line = one_clear_line(companion("serve", "--host", "127.0.0.1", "--port", str(free_port()),
                                    "--data", str(running.data)))
    assert "in use by another running companion" in line


def test_a_corrupted_database_refuses_to_start_and_is_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    service = ServiceProcess(data).start()
    service.post("roll")
    code, _, _ = service.interrupt()
    assert code == 0
    database = data / "companion.sqlite3"
    damaged = b"\x00garbage" * 4096
    database.write_bytes(damaged)
    line = one_clear_line(companion("serve", "--host", "127.0.0.1", "--port", str(free_port()), "--data", str(data)))
    assert "damaged" in line and "refusing to start" in line
    assert database.read_bytes() == damaged


def test_ctrl_c_stops_cleanly_and_keeps_everything(tmp_path: Path) -> None:
    service = ServiceProcess(tmp_path / "data").start()
    acked = service.post("roll")
    code, out, err = service.interrupt()
    assert code == 0, err
    assert "Traceback" not in err
    assert "Stopped" in out
    again = ServiceProcess(tmp_path / "data").start()
    try:
        assert again.get("/api/view")["game"]["view"]["recent"][0] == acked["view"]["game"]["view"]["recent"][0]
    finally:
        again.stop()


def test_serve_prints_the_table_url_a_qr_code_and_the_host_key(tmp_path: Path) -> None:
    service = ServiceProcess(tmp_path / "data").start()
    _, out, _ = service.interrupt()
    assert f"Table display: http://127.0.0.1:{service.port}/table" in out
    assert "█" in out, "a QR code drawn with block characters"
    assert f"Host key (keep it to yourself): {service.host_key}" in out
    assert oct((tmp_path / "data" / "host.key").stat().st_mode & 0o777) == "0o600"


def test_replay_and_export_read_a_running_service_log(running: ServiceProcess) -> None:
    running.post("set_tray", {"preset": "nuit-duel"})
    rolled = running.post("roll")["view"]["game"]
    game_id = rolled["id"]
    listing = companion("replay", "--data", str(running.data), "--list")
    assert listing.returncode == 0 and game_id in listing.stdout and "running" in listing.stdout
    replay = companion("replay", "--data", str(running.data), game_id)
    assert replay.returncode == 0, replay.stderr
    assert "hash chain verified" in replay.stdout
    total = rolled["view"]["recent"][0]["total"]
    assert "table rolled #1: nuit-red" in replay.stdout and f"= {total}" in replay.stdout
    french = companion("replay", "--data", str(running.data), "--lang", "fr").stdout
    assert "a lancé #1" in french
    exported = companion("export", "--data", str(running.data), game_id)
    assert exported.returncode == 0
    data = json.loads(exported.stdout)
    assert data["game_id"] == game_id and data["chain"] == "verified"
    events = [RecordedEvent.from_json(e) for e in data["events"]]
    assert [e.type for e in events] == ["game_started", "tray_set", "dice_rolled"]
    assert verify_chain(events) == []
    assert data["events"][0]["data"]["options"]["catalogue"]["dice"], "the export carries the dice it used"


def test_replay_and_export_of_an_unknown_game_say_so(running: ServiceProcess) -> None:
    for args in (("replay", "nope"), ("export", "nope")):
        result = companion(args[0], "--data", str(running.data), args[1])
        assert result.returncode == 1
        assert "no game 'nope'" in result.stderr


def test_replay_without_a_log_is_one_line(tmp_path: Path) -> None:
    line = one_clear_line(companion("replay", "--data", str(tmp_path)))
    assert "no event log" in line


def test_the_replay_header_counts_in_words_that_agree(tmp_path: Path) -> None:
    from companion.cli import describe_log
    from companion.games.base import HOST, Command
    from companion.games.registry import GAMES
    from companion.table.session import Table, TableSettings
    from tests.conftest import ManualClock, seeded
    from tests.test_leak import default_options

    store = EventStore.open(tmp_path / "one.sqlite3")
    try:
        settings = TableSettings(1, game_options={"dice-tray": default_options(GAMES["dice-tray"])})
        table = Table.open(store, GAMES, ManualClock(), seeded(1), settings)
        assert table.handle(HOST, Command("start_game", {"game": "dice-tray"})).ok
        header = describe_log(store.read(table.run.game_id), "en")[:2]  # type: ignore[union-attr]
    finally:
        store.close()
    assert " · 1 seat · " in header[0]
    assert header[1].startswith("1 event, hash chain")
