#!/usr/bin/env python3
"""A screenshot tour: every game's table display (a 1920x1080 TV) and one phone (390x844), at the
smallest and the largest player count the game allows, in English and in French, mid-game.

Starts `companion serve --simulate` on loopback (a free port, a temporary data folder), seats the
players and plays random allowed moves through the service's API (companion/sim/midgame.py), then
drives Debian's Chromium through Playwright with the browser tests' launch flags. The pictures are
for a person to look at after a layout change; they are not kept in the repository. Exit status 0
when every picture was written, 1 (with the reason) otherwise.

    .venv/bin/python scripts/screenshot_tour.py [--out DIR] [--game ID ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from companion.games.registry import GAMES
from companion.sim.browser import CHROMIUM, CHROMIUM_ARGS, chromium_found
from companion.sim.midgame import MidGame
from companion.sim.service import ServiceProcess

ROOT = Path(__file__).resolve().parents[1]
TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
LANGUAGES = ("en", "fr")
TIMEOUT_MS = 15_000
MOVES = {"dice-tray": 8, "buzzer-quiz": 8, "garlic-slap": 14, "nuit-des-vampires": 30, "vampir": 24, "dracula": 40}
"""Random moves before the pictures: enough for results, histories and panels."""


def player_counts(game: Any) -> list[int]:
    """The smallest and the largest number of players (a dice tray needs none: one then)."""
    return sorted({max(1, game.min_seats), game.max_seats})


def settle(page: Any) -> None:
    """Connected, fonts loaded, two frames painted."""
    page.locator("#link:not(.down)").wait_for()
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.wait_for_timeout(300)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")


def tour(out: Path, service: ServiceProcess, games: list[str]) -> list[Path]:
    from playwright.sync_api import sync_playwright

    if not chromium_found():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium package")
    table = MidGame(service)
    written: list[Path] = []
    errors: list[str] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            tv = browser.new_context(viewport=TV, locale="en-US").new_page()
            tv.set_default_timeout(TIMEOUT_MS)
            tv.on("pageerror", lambda err: errors.append(f"TV: {err}"))
            for game_id in games:
                game = GAMES[game_id]
                for players in player_counts(game):
                    table.seat_players(players)
                    table.start(game_id)
                    made = table.play(MOVES.get(game_id, 20))
                    print(f"{game_id} with {players}: {made} moves")
                    phone_context = browser.new_context(viewport=PHONE, screen=PHONE, is_mobile=True,
                                                        has_touch=True, locale="en-US")
                    name, value = table.cookies[1].split("=", 1)
                    phone_context.add_cookies([{"name": name, "value": value, "url": service.base}])
                    phone = phone_context.new_page()
                    phone.set_default_timeout(TIMEOUT_MS)
                    phone.on("pageerror", lambda err: errors.append(f"phone: {err}"))
                    for lang in LANGUAGES:
                        for page, path, kind in ((tv, "/table", "tv"), (phone, "/me", "phone")):
                            page.goto(f"{service.base}{path}?lang={lang}")
                            settle(page)
                            if errors:
                                raise RuntimeError(f"script errors on the pages: {errors}")
                            shot = out / f"{game_id}-{players}p-{kind}-{lang}.png"
                            page.screenshot(path=str(shot), animations="disabled", caret="hide")
                            written.append(shot)
                            print(f"  {shot.name}")
                    phone_context.close()
        finally:
            browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="where the PNGs go (default: a new temporary folder)")
    parser.add_argument("--game", action="append", choices=sorted(GAMES), help="only this game (repeatable)")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="screenshot-tour-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"writing the tour's pictures to {out}")
    with tempfile.TemporaryDirectory(prefix="screenshot-tour-data-") as tmp:
        service = ServiceProcess(Path(tmp) / "data", extra=("--simulate",), log_path=Path(tmp) / "service.log",
                                 cwd=ROOT)
        try:
            service.start()
            written = tour(out, service, args.game or list(GAMES))
        except Exception as err:  # a failed step, Playwright, the network: say what, fail
            print(f"screenshot_tour: FAILED: {type(err).__name__}: {err}", file=sys.stderr)
            print(f"--- the service's last output ---\n{service.log()[-3000:]}", file=sys.stderr)
            return 1
        finally:
            service.stop_cleanly(10)
    print(f"done: {len(written)} pictures in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
