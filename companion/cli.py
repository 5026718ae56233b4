"""`companion serve | replay | export | verify | hw-test | install-service`: the commands a person types on the Pi."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion import __version__
from companion.config import DEFAULT_CONFIG_NAME, Config, load_config
from companion.errors import CompanionError
from companion.games.base import SYSTEM, Command
from companion.games.registry import GAMES
from companion.heap import keep_startup, one_arena
from companion.i18n import fill
from companion.store import EventStore, RecordedEvent, verify_chain

log = logging.getLogger("companion")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
IDLE_GAME = "dice-tray"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="The table companion: slap buttons, verifiable dice and hidden information for tabletop games.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    serve = commands.add_parser(
        "serve", help="run the service (table display, phones, host console)",
        description="Run the service under a production web server. Ctrl-C stops it cleanly.",
    )
    serve.add_argument("--host", help="address to listen on (default 0.0.0.0: every interface)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8080)")
    serve.add_argument("--data", type=Path, metavar="DIR", help="data folder for the event log (default ./data)")
    serve.add_argument("--config", type=Path, metavar="FILE",
                       help=f"TOML configuration file (default ./{DEFAULT_CONFIG_NAME} when it exists)")
    serve.add_argument("--simulate", action="store_true", help="use simulated buttons even if hardware is configured")
    serve.add_argument("--quiet", action="store_true", help="log warnings only")

    replay = commands.add_parser("replay", help="print a game's event log in readable form",
                                 description="Print a game's event log (the current or latest game by default).")
    replay.add_argument("--data", type=Path, metavar="DIR", default=Path("data"), help="data folder (default ./data)")
    replay.add_argument("--lang", choices=("en", "fr"), default="en", help="language of the descriptions")
    replay.add_argument("--list", action="store_true", help="list the games in the log instead")
    replay.add_argument("game_id", nargs="?", metavar="GAME_ID", help="the game to print")

    export = commands.add_parser("export", help="write a self-contained export of one game (JSON, to stdout)",
                                 description="Write one game's whole log, hashes included, as JSON to stdout.")
    export.add_argument("--data", type=Path, metavar="DIR", default=Path("data"), help="data folder (default ./data)")
    export.add_argument("game_id", metavar="GAME_ID", help="the game to export (see `companion replay --list`)")

    check = commands.add_parser(
        "verify", help="check that every roll and shuffle of an exported game came from its committed seed",
        description="Recompute every random outcome of an exported game from its revealed seed and the players' "
                    "contributions, check the hash chain and decide every command again. Exit status 0 when it all "
                    "matches, 1 when something does not (each problem names the event).",
    )
    check.add_argument("export", type=Path, metavar="EXPORT",
                       help="a game export (from `companion export` or the host console)")

    hw = commands.add_parser(
        "hw-test", help="show live button presses, bounces and stuck buttons while wiring the box",
        description="Open the configured button sources (no data folder, no web server) and show every press "
                    "with its time and intervals, and per button its bounces, noise and stuck state. With "
                    "simulated buttons, type their numbers and Enter to press them. Ctrl-C or Ctrl-D stops.",
    )
    hw.add_argument("--config", type=Path, metavar="FILE",
                    help=f"TOML configuration file (default ./{DEFAULT_CONFIG_NAME} when it exists)")
    hw.add_argument("--simulate", action="store_true", help="use simulated buttons even if hardware is configured")
    hw.add_argument("--plain", action="store_true",
                    help="one line per press instead of a table redrawn in place (the default when not a terminal)")
    hw.set_defaults(host=None, port=None, data=None)  # what _config_for reads; hw-test needs no server or data

    unit = commands.add_parser(
        "install-service", help="run the companion as a systemd service, started at boot (needs sudo)",
        description="Write a systemd unit that runs `companion serve` from this venv as your account, with the "
                    "gpio and dialout groups, enable it and start it. Without root it prints the sudo line to run. "
                    "See hardware/raspberry-pi.md.",
    )
    unit.add_argument("--user", metavar="NAME",
                      help="account the service runs as (default: the one that ran sudo; root only if named)")
    unit.add_argument("--data", type=Path, metavar="DIR",
                      help="data folder, made and given to the user (default /var/lib/table-companion)")
    unit.add_argument("--config", type=Path, metavar="FILE",
                      help="TOML configuration file (default /etc/table-companion/companion.toml when it exists)")
    unit.add_argument("--host", help="address to listen on (default: the config's, else 0.0.0.0)")
    unit.add_argument("--port", type=int, help="port to listen on (default: the config's, else 8080)")
    unit.add_argument("--name", default="table-companion", help="the service's name (default table-companion)")
    what = unit.add_mutually_exclusive_group()
    what.add_argument("--print", action="store_true", help="print the unit file and change nothing")
    what.add_argument("--remove", action="store_true",
                      help="stop, disable and delete the service (the data folder is kept)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            return serve(args)
        if args.command == "replay":
            return replay(args)
        if args.command == "verify":
            return verify(args)
        if args.command == "hw-test":
            return hw_test(args)
        if args.command == "install-service":
            return install_service(args)
        return export(args)
    except CompanionError as err:
        print(f"companion: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_FAILED


def _config_for(args: argparse.Namespace) -> Config:
    path = args.config
    if path is None and Path(DEFAULT_CONFIG_NAME).is_file():
        path = Path(DEFAULT_CONFIG_NAME)
    overrides: dict[str, Any] = {"server.host": args.host, "server.port": args.port,
                                 "data.dir": str(args.data) if args.data else None}
    if args.simulate:
        overrides["buttons.source"] = "simulated"
    return load_config(path, overrides)


def serve(args: argparse.Namespace) -> int:
    one_arena()  # before the service starts its threads (heap.py says why)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    config = _config_for(args)
    # Imported here so `replay` and `export` start fast and need no web server.
    from companion.netinfo import base_url
    from companion.server import create_app
    from companion.server.qr import qr_text
    from companion.server.serving import make_server, serve_forever
    from companion.service import open_service

    service = open_service(config)
    try:
        url = base_url(config.server.host, config.server.port, config.server.public_url)
        server = make_server(create_app(service, url), config.server.host, config.server.port, config.server.threads)
        # Only once the port is ours: a failed start must leave the log untouched.
        run = service.table.run
        if run is None or run.ended:
            service.table.handle(SYSTEM, Command("start_game", {"game": IDLE_GAME}))
        table_url = f"{url}/table"
        print(qr_text(table_url), flush=True)
        print(f"Table display: {table_url}   (players join from its QR code, or at {url}/join"
              f" with code {service.table.state.join_code})", flush=True)
        print(qr_text(f"{url}/host#k={service.host_key}"), flush=True)
        print(f"Host console: {url}/host   Host key (keep it to yourself): {service.host_key}", flush=True)
        sources = ", ".join(f"{s.name} ({s.health().detail})" for s in service.sources)
        print(f"Data folder: {service.store.path.parent}   Buttons: {sources}", flush=True)
        print("Press Ctrl-C to stop.", flush=True)
        keep_startup()  # the last thing before serving (heap.py says why)
        serve_forever(server, on_stop=service.table.broadcaster.close)
    finally:
        service.close()
    print("Stopped; every acknowledged action is saved.", flush=True)
    return EXIT_OK


def hw_test(args: argparse.Namespace) -> int:
    # The view reports every source's problems itself; the log's warnings would only repeat them.
    logging.basicConfig(level=logging.ERROR, format="companion: %(message)s", stream=sys.stderr)
    config = _config_for(args)
    from companion.buzzers.hwtest import run_hw_test

    run_hw_test(config.buttons, sys.stdin, sys.stdout, plain=args.plain or not sys.stdout.isatty())
    return EXIT_OK


def install_service(args: argparse.Namespace) -> int:
    from companion.deploy.commands import install, print_unit, remove
    from companion.deploy.machine import Machine
    from companion.deploy.request import Request

    request = Request(name=args.name, user=args.user, data=args.data, config=args.config, host=args.host,
                      port=args.port)
    if args.print:
        return print_unit(request, Machine())
    if args.remove:
        return remove(request, Machine())
    return install(request, Machine())


def _open_log(data: Path) -> EventStore:
    from companion.service import DATABASE_NAME

    return EventStore.open(data / DATABASE_NAME, read_only=True)


def _games(store: EventStore) -> list[str]:
    return [s for s in store.streams() if s != "table"]


def replay(args: argparse.Namespace) -> int:
    store = _open_log(args.data)
    try:
        games = _games(store)
        if args.list:
            for game_id in games:
                records = store.read(game_id)
                ended = any(r.type == "game_ended" for r in records)
                print(f"{game_id}  {records[0].data.get('game')}  {len(records)} events"
                      f"  started {_when(records[0].wall_ms)}  {'ended' if ended else 'running'}")
            return EXIT_OK
        if not games:
            print("companion: no game in this log yet", file=sys.stderr)
            return EXIT_FAILED
        game_id = args.game_id or games[-1]
        records = store.read(game_id)
        if not records or game_id == "table":
            print(f"companion: no game {game_id!r} in this log (see `companion replay --list`)", file=sys.stderr)
            return EXIT_FAILED
        for line in describe_log(records, args.lang):
            print(line)
        return EXIT_OK if not verify_chain(records) else EXIT_FAILED
    finally:
        store.close()


def describe_log(records: list[RecordedEvent], lang: str) -> list[str]:
    first = records[0]
    definition = GAMES.get(str(first.data.get("game")))
    title = definition.title.get(lang, definition.id) if definition else str(first.data.get("game"))
    problems = verify_chain(records)
    chain = "verified" if not problems else "BROKEN: " + "; ".join(str(p) for p in problems[:3])
    seats = fill("{n} {n|seat|seats}", {"n": len(first.data.get("seats", []))}, "en")
    lines = [
        f"Game {first.stream} · {title} · {seats} · started {_when(first.wall_ms)}",
        fill("{n} {n|event|events}", {"n": len(records)}, "en") + f", hash chain {chain}",
    ]
    for record in records:
        if record.type == "game_started":
            text = f"{first.data.get('game')} with options {', '.join(sorted(first.data.get('options', {})))}"
        elif record.type == "game_ended":
            text = f"ended ({record.data.get('reason', '')})"
        elif record.type == "undone":
            first, last = record.data.get("first", record.data.get("seq")), record.data.get("seq")
            span = f"event {last}" if first == last else f"events {first}-{last}"
            command = record.data.get("command")
            what = f"{command} ({span})" if command else span
            text = f"undid {what} of {record.data.get('actor')}"
        elif definition:
            from companion.games.base import Event
            text = definition.describe(Event(record.type, record.data, record.reveals), lang)
        else:
            text = json.dumps(record.data, ensure_ascii=False)
        marks = ("R" if record.draws else " ") + ("!" if record.reveals else " ")
        lines.append(f"{record.seq:>5} {_when(record.wall_ms, time_only=True)} {marks} {record.actor:<8} "
                     f"{record.type:<14} {text}")
    return lines


def _when(wall_ms: int, time_only: bool = False) -> str:
    stamp = time.gmtime(wall_ms / 1000)
    millis = f".{wall_ms % 1000:03d}"
    if time_only:
        return time.strftime("%H:%M:%S", stamp) + millis
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", stamp)


def export(args: argparse.Namespace) -> int:
    from companion.table.export import export_game

    store = _open_log(args.data)
    try:
        data = export_game(store, args.game_id, int(time.time() * 1000))
    finally:
        store.close()
    if data is None:
        print(f"companion: no game {args.game_id!r} in this log (see `companion replay --list`)", file=sys.stderr)
        return EXIT_FAILED
    if not any(e["type"] == "seed_revealed" for e in data["events"]):
        print("companion: warning: this game is not over, so the export contains its secret seed: whoever reads "
              "it can predict the next rolls. Share it once the game has ended.", file=sys.stderr)
    json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return EXIT_OK


def verify(args: argparse.Namespace) -> int:
    from companion.table.verify import verify_export

    try:
        with open(args.export, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        print(f"companion: no such file: {args.export}", file=sys.stderr)
        return EXIT_USAGE
    except (OSError, ValueError) as err:
        print(f"companion: cannot read {args.export} as a JSON export: {err}", file=sys.stderr)
        return EXIT_FAILED
    if not isinstance(data, dict):
        print(f"companion: {args.export} is not a game export", file=sys.stderr)
        return EXIT_FAILED
    verdict = verify_export(data, GAMES)
    print(verdict.summary())
    return EXIT_OK if verdict.ok else EXIT_FAILED
