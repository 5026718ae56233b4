#!/usr/bin/env python3
"""Takes the screenshots of the README's "first evening" guide into docs/first-evening/.

Starts `companion serve --simulate` on loopback (a free port, a temporary data folder), drives
Debian's Chromium (/usr/bin/chromium) through Playwright with the launch flags of the browser tests,
and uses only the product's own pages: the table display on a 1280x720 TV (the screen as it
shows, nothing scrolled), four phones (390x844, scale 1) that join through the URL in the table's
QR code, and the host console signed in with the key from the data folder. Every run overwrites
the pictures; the service is stopped at the end, also after an error. Exit status 0 when every
picture was written, 1 (with the reason) otherwise.

    .venv/bin/python scripts/first_evening_screenshots.py [--out DIR] [--no-buzzer]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from companion.sim.browser import CHROMIUM, CHROMIUM_ARGS, chromium_found, decode_qr
from companion.sim.service import ServiceProcess

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "first-evening"
PLAYERS = ("Zoé", "Bruno", "Amira", "Lucas")
TV = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
HOST = {"width": 1280, "height": 900}
MAX_BYTES = 250_000
TIMEOUT_MS = 15_000
SETTLE_MS = 400   # after the awaited state is drawn: fonts, the last stream message, the paint


class ShotError(RuntimeError):
    """A step of the guide did not happen as expected: the message says which and what was shown."""


# ------------------------------------------------------------------------------------------- the service

class Service(ServiceProcess):
    """`companion serve --simulate` as a subprocess, logging at info level (not `--quiet`) so that a
    failure can show what the service said; its output goes to a log file in the data folder's
    parent; stopped as Ctrl-C would."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir / "data", extra=("--simulate",), log_path=workdir / "service.log", cwd=ROOT,
                         quiet=False)

    def table_view(self) -> dict[str, Any]:
        return dict(self.get("/api/view?as=table"))

    def reach(self, predicate: Callable[[dict[str, Any]], bool], what: str, timeout: float = 15) -> dict[str, Any]:
        """The table's view once `predicate` holds (ServiceProcess.wait_for_view); otherwise a
        ShotError that names the state, `what`."""
        try:
            return self.wait_for_view(predicate, timeout)
        except TimeoutError as err:
            raise ShotError(f"the service never reached this state: {what}") from err

    def log_tail(self, lines: int = 30) -> str:
        text = self.log().splitlines()
        if not text:
            return "(no service log)"
        return "\n".join([line for line in text if not set(line) & set("█▀▄")][-lines:])  # not the QR codes


# --------------------------------------------------------------------------------------------- helpers

class Shooter:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.written: list[Path] = []
        self.errors: dict[str, list[str]] = {}

    def watch(self, name: str, page: Any) -> None:
        """Uncaught script errors of a page make the run fail: a picture must not show a broken page."""
        page.on("pageerror", lambda err: self.errors.setdefault(name, []).append(str(err)))

    def shoot(self, page: Any, filename: str) -> None:
        settle(page)
        if self.errors:
            raise ShotError(f"script errors on the pages before {filename}: {self.errors}")
        path = self.out / filename
        page.screenshot(path=str(path), animations="disabled", caret="hide")
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ShotError(f"{filename} is {size} bytes, more than {MAX_BYTES}")
        self.written.append(path)
        print(f"  {filename}  {size / 1000:.0f} kB")


def settle(page: Any) -> None:
    """The page is connected, its fonts are loaded, no animation runs, and two frames have been painted."""
    page.locator("#link:not(.down)").wait_for()
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running'"
                           " || a.effect.getComputedTiming().iterations === Infinity)")
    page.wait_for_timeout(SETTLE_MS)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")


def step(what: str) -> contextlib.AbstractContextManager[None]:
    """Names the step in the error message when Playwright gives up waiting in it."""
    from playwright.sync_api import Error as PlaywrightError

    @contextlib.contextmanager
    def wrapped() -> Iterator[None]:
        try:
            yield
        except PlaywrightError as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else repr(err)
            raise ShotError(f"{what}: {first}") from err
    return wrapped()


# ------------------------------------------------------------------------------------------- the evening

def take(out: Path, service: Service, workdir: Path, buzzer: bool) -> list[Path]:
    from playwright.sync_api import sync_playwright

    if not chromium_found():
        raise ShotError(f"{CHROMIUM} is missing: install Debian's chromium package (./test installs it)")
    shooter = Shooter(out)
    base = service.base
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            def context(**options: Any) -> Any:
                made = browser.new_context(locale="en-US", **options)
                made.set_default_timeout(TIMEOUT_MS)
                return made

            pixel = dict(driver.devices["Pixel 7"])
            pixel.pop("default_browser_type", None)
            pixel.update(viewport=PHONE, screen=PHONE, device_scale_factor=1)

            # 1. The TV, right after the start: the QR code, the join code, the empty seats.
            table = context(viewport=TV).new_page()
            shooter.watch("table", table)
            with step("the table display did not show its join code"):
                table.goto(f"{base}/table")
                table.wait_for_function("() => document.getElementById('join-code').textContent.trim().length === 6")
                table.locator("#seats li").first.wait_for()
                table.locator("#game .result").wait_for()
            qr_png = workdir / "table-qr.png"
            table.locator("#join-box .qr-code svg").screenshot(path=str(qr_png))
            try:
                join_url = decode_qr(qr_png)  # as a phone's camera would
            except RuntimeError as err:
                raise ShotError(f"could not read the table's join QR code: {err}") from err
            if not join_url.startswith(base):
                raise ShotError(f"the table's QR code leads to {join_url}, not to this service ({base})")
            shooter.shoot(table, "01-table-waiting.png")

            # 2 and 3. The first phone opens the QR code's URL, picks a seat, types a name, joins.
            phones = []
            for number, name in enumerate(PLAYERS, start=1):
                phone = context(**pixel).new_page()
                shooter.watch(f"phone {number}", phone)
                with step(f"phone {number} ({name}) could not join"):
                    phone.goto(join_url)          # as the phone's camera app would open it
                    phone.locator("#seat-choices input[type=radio]").first.wait_for()
                    phone.locator("#seat-choices label.seat-choice", has_text=f"Seat {number}").first.click()
                    phone.locator("#name-input").fill(name)
                    if number == 1:
                        phone.locator("#name-input").blur()
                        shooter.shoot(phone, "02-phone-join.png")
                    phone.locator("#join-button").click()
                    phone.wait_for_function("() => location.pathname === '/me'"
                                            " || !document.getElementById('error').hidden")
                    if not phone.url.startswith(f"{base}/me"):
                        raise ShotError(f"phone {number} ({name}) could not join: the page says "
                                        f"{phone.locator('#error').inner_text()!r}")
                    phone.locator("#who").get_by_text(name).wait_for()
                    phone.locator("#game .result").wait_for()
                if number == 1:
                    shooter.shoot(phone, "03-phone-private.png")
                phones.append(phone)

            # 4. The TV with four phones joined (each connected, their entropy in: no more traffic).
            with step("the table display did not show the four players"):
                for name in PLAYERS:
                    table.locator("#seats li", has_text=name).first.wait_for()
            seats = set(range(1, len(PLAYERS) + 1))
            service.reach(lambda v: v["game"] is not None
                          and seats <= set(v["game"]["entropy"]["revealed"]),
                          "every phone's random bytes revealed")
            shooter.shoot(table, "04-table-four-joined.png")

            # 5. The host console: signed in with the key, the dice tray that started with the service
            #    ended, and the start form showing (the dice tray picked).
            host = context(viewport=HOST).new_page()
            shooter.watch("host", host)
            with step("the host console did not sign in"):
                host.goto(f"{base}/host#k={service.host_key}")
                host.wait_for_url(f"{base}/host")
                host.locator("#game-status strong").wait_for()
            with step("the host console did not end the first game"):
                host.once("dialog", lambda dialog: dialog.accept())
                host.locator("#end-game").click()
                host.locator("#start-form").wait_for()
                host.locator("#game-select").select_option("dice-tray")
                host.locator("#game-options select").first.select_option(label="2 d6")
            box = host.locator("#start-form").bounding_box()
            if box is None or box["y"] + box["height"] > HOST["height"]:
                raise ShotError(f"the host console's start form does not fit in {HOST}: {box}")
            shooter.shoot(host, "05-host-console.png")

            # 6. The host starts the dice tray; the second phone rolls; the TV shows the roll.
            old = service.table_view()["game"]["id"]
            with step("the host console did not start the dice tray"):
                host.locator("#start-form button[type=submit]").click()
            view = service.reach(lambda v: v["game"] is not None and v["game"]["id"] != old
                                 and not v["game"]["ended"], "a new dice tray running")
            service.reach(lambda v: seats <= set(v["game"]["entropy"]["revealed"]),
                          "every phone's random bytes revealed for the new game")
            roller = phones[1]
            with step("the phone could not roll"):
                roller.locator("#roll-me:enabled").wait_for()
                before = service.table_view()["position"]
                roller.locator("#roll-me").click()
            view = service.reach(lambda v: v["position"] > before and bool(v["game"]["view"]["recent"]),
                                 "a roll in the log")
            number = view["game"]["view"]["recent"][0]["number"]
            with step("the table display did not show the roll"):
                table.wait_for_function("(n) => { const m = document.querySelector('.result .meta');"
                                        " return !!m && m.textContent.startsWith('#' + n + ' '); }", arg=number)
            table.mouse.move(0, 0)
            shooter.shoot(table, "06-table-dice.png")

            # 7. The host ends the dice tray, starts the buzzer quiz and arms a round: a phone's buzzer.
            if buzzer:
                with step("the host console did not start the buzzer quiz"):
                    host.once("dialog", lambda dialog: dialog.accept())
                    host.locator("#end-game").click()
                    host.locator("#start-form").wait_for()
                    host.locator("#game-select").select_option("buzzer-quiz")
                    host.locator("#start-form button[type=submit]").click()
                service.reach(lambda v: v["game"] is not None and v["game"]["game"] == "buzzer-quiz"
                              and not v["game"]["ended"], "the buzzer quiz running")
                phone = phones[0]
                with step("the host console could not arm a round"):
                    phone.locator("#buzzer").wait_for()
                    host.locator("#arm-race-host:enabled").click()
                with step("the phone's buzzer was not armed"):
                    phone.locator("#buzzer.race").wait_for()
                shooter.shoot(phone, "07-phone-buzzer.png")
        finally:
            browser.close()
    return shooter.written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the PNGs go (default {OUT.relative_to(ROOT)})")
    parser.add_argument("--no-buzzer", action="store_true", help="skip the optional buzzer picture (07)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"writing the first-evening screenshots to {args.out}")
    with tempfile.TemporaryDirectory(prefix="first-evening-") as tmp:
        workdir = Path(tmp)
        service = Service(workdir)
        try:
            service.start()
            written = take(args.out, service, workdir, buzzer=not args.no_buzzer)
        except ShotError as err:
            print(f"first_evening_screenshots: FAILED: {err}", file=sys.stderr)
            if service.proc is not None:
                print(f"--- the service's last output ---\n{service.log_tail()}", file=sys.stderr)
            return 1
        except Exception as err:  # anything else (Playwright, the network, a full disk): say what, fail
            print(f"first_evening_screenshots: FAILED: {type(err).__name__}: {err}", file=sys.stderr)
            if service.proc is not None:
                print(f"--- the service's last output ---\n{service.log_tail()}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("first_evening_screenshots: interrupted", file=sys.stderr)
            return 130
        finally:
            service.stop_cleanly(10)
    print(f"done: {len(written)} pictures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
