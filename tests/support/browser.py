"""Shared set-up for the browser tests: Debian's Chromium driven by Playwright, one context per device.

A scene is what a real table has: the service (a subprocess), the table display (TV), four phones
that joined through the URL in the table's QR code, and the host console. Every phone reaches the
service through its own network link (a TCP relay used as the phone's HTTP proxy) that a test can
unplug, because Chromium's offline emulation alone leaves open streams flowing. Every page records
everything it receives (the boot view of each document, every server-sent event and every fetch or
XHR response body), in the page and at the network level, so tests can check who saw what.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, CDPSession, Page, Playwright, ViewportSize, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from companion.cli import IDLE_GAME
from companion.sim.browser import CHROMIUM, CHROMIUM_ARGS, chromium_found, decode_qr
from companion.sim.service import ServiceProcess

PHONE_DEVICE = "Pixel 7"
PLAYER_NAMES = ("Zoé", "Bruno", "Chloé", "Dmitri")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

# Runs before the page's own scripts in every document: wraps EventSource, fetch and XHR so that every
# message and body the page receives is kept in window.__received and sent to the test at once (the
# binding survives navigations, window.__received does not).
DRAWN_JS = r"""
(() => {
  if (window.__drawn) return;
  const drawn = [];
  const marks = new Map();
  Object.defineProperty(window, "__drawn", { value: drawn });
  Object.defineProperty(window, "__marks", { value: marks });
  const mark = (key, at) => { if (!marks.has(key)) marks.set(key, at); };
  const note = (el, at) => {
    const position = Number(el.dataset ? el.dataset.position : NaN);
    if (!Number.isNaN(position)) drawn.push({ el, position, at });
  };
  new MutationObserver((records) => {
    const at = performance.timeOrigin + performance.now();
    for (const record of records) {
      if (record.type === "attributes") note(record.target, at);
      for (const node of record.addedNodes || []) {
        if (node.nodeType !== 1) continue;
        if (node.matches("[data-position]")) note(node, at);
        node.querySelectorAll("[data-position]").forEach((el) => note(el, at));
      }
    }
    const meta = document.querySelector(".result .meta");
    if (meta && meta.textContent.startsWith("#")) mark("roll " + meta.textContent.split(" ")[0].slice(1), at);
    document.querySelectorAll(".g-dice[data-round]").forEach((dice) => mark("dice " + dice.dataset.round, at));
  }).observe(document, { attributes: true, attributeFilter: ["data-position"], childList: true, subtree: true,
                         characterData: true });
})();
"""
"""When each element that carries data-position took each position, and when the page first showed
each roll: the dice tray's roll n ("roll n", its last-roll line ".result .meta"), the garlic game's
dice of round n ("dice n"). The page's clock, ms since the epoch: a screen's own record of when it
drew a state."""

MARKED_AT_JS = """(key) => {
  const at = window.__marks && window.__marks.get(key);
  return at === undefined ? null : at;
}"""

DRAWN_AT_JS = """([p, root]) => {
  const hit = (window.__drawn || []).find((d) => d.position >= p && d.el.matches(root));
  return hit ? hit.at : null;
}"""

RECORDER_JS = r"""
(() => {
  if (window.__received) return;
  const received = [];
  Object.defineProperty(window, "__received", { value: received });
  const documentId = Math.random().toString(36).slice(2);
  let streams = 0;
  const absolute = (url) => new URL(String(url), location.href).href;
  const record = (item) => {
    item.page = location.pathname;
    item.at = performance.now();
    received.push(item);
    try { window.__companionRecord(item); } catch (err) { /* no binding: the page keeps its own copy */ }
  };

  const NativeEventSource = window.EventSource;
  class RecordingEventSource extends NativeEventSource {
    constructor(url, config) {
      super(url, config);
      const where = absolute(url);
      const stream = `${documentId}:${++streams}`;
      const heard = new Set();
      const native = NativeEventSource.prototype.addEventListener;
      const listen = (type) => {
        if (heard.has(type)) return;
        heard.add(type);
        native.call(this, type, (event) =>
          record({ kind: "sse", stream, url: where, event: type, id: event.lastEventId, data: event.data }));
      };
      ["message", "view", "revoked"].forEach(listen);
      this.addEventListener = (type, ...rest) => { listen(type); return native.call(this, type, ...rest); };
    }
  }
  window.EventSource = RecordingEventSource;

  const nativeFetch = window.fetch;
  window.fetch = async function (input, init) {
    const response = await nativeFetch.call(this, input, init);
    const url = absolute(input instanceof Request ? input.url : input);
    response.clone().text().then(
      (body) => record({ kind: "fetch", url, status: response.status, data: body }), () => {});
    return response;
  };

  const nativeOpen = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    const where = absolute(url);
    this.addEventListener("load", () =>
      record({ kind: "xhr", url: where, status: this.status, data: String(this.responseText) }));
    return nativeOpen.call(this, method, url, ...rest);
  };

  document.addEventListener("DOMContentLoaded", () => {
    const boot = document.getElementById("boot");
    if (boot) record({ kind: "boot", url: location.href, data: boot.textContent });
  });
})();
"""

# What a page shows as the last roll: the roll number line and the dice (name and face of each).
LAST_ROLL_JS = """() => {
  const box = document.querySelector(".result");
  if (!box) return null;
  const meta = box.querySelector(".meta");
  const dice = [...box.querySelectorAll(".die")];
  return { meta: meta ? meta.textContent : "",
           faces: dice.map((d) => d.querySelector(".face").textContent),
           dice: dice.map((d) => d.getAttribute("aria-label")) };
}"""

SHOWS_ROLL_JS = """(n) => {
  const meta = document.querySelector(".result .meta");
  return !!meta && meta.textContent.startsWith("#" + n + " ");
}"""


class NetworkLink:
    """A phone's own network: a TCP relay to the service, used as the phone's HTTP proxy.

    A plain HTTP proxy gets requests in absolute form ("GET http://127.0.0.1:P/path"), which the
    service accepts as they are, so the relay only copies bytes. `unplug()` drops every open
    connection at once and refuses new ones, as a phone leaving the Wi-Fi; `silence()` keeps every
    connection open but lets no byte through either way, and holds new ones without an answer, as a
    phone at the edge of the Wi-Fi (nothing tells it the link is gone); `plug()` undoes either (the
    connections of a silence are dropped then, as they would time out). `address` is where its
    connections to the service come from (127.0.0.N): each phone at a real table has its own, and
    the service limits joins per address.
    """

    def __init__(self, target_port: int, address: str = "127.0.0.1") -> None:
        self.target_port = target_port
        self.address = address
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._up = True
        self._silent = False
        self._closed = False
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, name=f"link-{self.port}", daemon=True).start()

    @property
    def proxy(self) -> dict[str, str]:
        return {"server": f"http://127.0.0.1:{self.port}"}

    def _accept(self) -> None:
        while not self._closed:
            try:
                phone, _ = self._listener.accept()
            except OSError:
                return
            if not self._up:
                _drop(phone)
                continue
            if self._silent:  # held open, never answered
                with self._lock:
                    self._sockets.add(phone)
                threading.Thread(target=self._swallow, args=(phone,), daemon=True).start()
                continue
            try:
                service = socket.create_connection(("127.0.0.1", self.target_port), timeout=2,
                                                   source_address=(self.address, 0))
                service.settimeout(None)
            except OSError:
                _drop(phone)  # the service is down: the phone sees the connection fail
                continue
            with self._lock:
                self._sockets.update((phone, service))
            for source, sink in ((phone, service), (service, phone)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                if not self._silent:
                    sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with self._lock:
                    self._sockets.discard(sock)
                _drop(sock)

    def unplug(self) -> None:
        self._up = False
        with self._lock:
            open_sockets, self._sockets = list(self._sockets), set()
        for sock in open_sockets:
            _drop(sock)

    def _swallow(self, phone: socket.socket) -> None:
        try:
            while phone.recv(65536):
                pass
        except OSError:
            pass
        finally:
            with self._lock:
                self._sockets.discard(phone)
            _drop(phone)

    def silence(self) -> None:
        self._silent = True

    def plug(self) -> None:
        if self._silent:
            self.unplug()
            self._silent = False
        self._up = True

    def close(self) -> None:
        self._closed = True
        self.unplug()
        self._listener.close()


def _drop(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


@dataclass
class Screen:
    """One device at the table: its own browser context (cookies, storage), page and recordings."""

    name: str
    context: BrowserContext
    page: Page
    link: NetworkLink | None = None
    received: list[dict[str, Any]] = field(default_factory=list)   # what the page's scripts got
    network: list[dict[str, Any]] = field(default_factory=list)    # SSE messages seen by the network stack
    errors: list[str] = field(default_factory=list)                # uncaught script errors
    seat: int | None = None
    first_size: ViewportSize | None = None
    """The viewport it was opened with."""

    def last_roll(self) -> dict[str, Any] | None:
        return self.page.evaluate(LAST_ROLL_JS)

    def link_state(self) -> str:
        return self.page.evaluate("() => { const l = document.getElementById('link');"
                                  " return l.classList.contains('down') ? 'down:' + l.textContent"
                                  " : 'up:' + l.textContent; }")

    def wait_for_position(self, position: int, timeout_s: float = 5.0) -> None:
        """The page has drawn the log up to `position` (its stream's messages carry the position as
        their id, and the page draws a message as it arrives)."""
        try:
            self.page.wait_for_function(
                "(p) => window.__received.some((r) => r.kind === 'sse' && Number(r.id) >= p)", arg=position,
                timeout=timeout_s * 1000)
        except PlaywrightError:
            pytest.fail(f"{self.name} never drew the log up to position {position}")

    def flush(self) -> None:
        """A round trip through the page, so every recording it already sent has reached the test."""
        self.page.evaluate("() => window.__received.length")

    def go_offline(self) -> None:
        assert self.link is not None
        self.context.set_offline(True)   # navigator.onLine, the "offline" event, new requests fail
        self.link.unplug()               # and the open connections die, as on a real phone

    def go_online(self) -> None:
        assert self.link is not None
        self.link.plug()
        self.context.set_offline(False)


@dataclass
class Scene:
    service: ServiceProcess
    table: Screen
    phones: list[Screen]
    host: Screen
    qr_url: str
    join_code: str
    players: tuple[str, ...] = ()
    """The names the phones joined with, in seat order."""

    @property
    def screens(self) -> list[Screen]:
        return [self.table, *self.phones, self.host]

    def url_of(self, screen: Screen, lang: str) -> str:
        """The address of the screen's own page (the TV's, the host's or a phone's) in `lang`."""
        path = "/table" if screen is self.table else "/host" if screen is self.host else "/me"
        return f"{self.service.base}{path}?lang={lang}"

    def view(self, role: str = "table") -> dict[str, Any]:
        return self.service.get(f"/api/view?as={role}", host=role == "host")

    def wait_for_view(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """The table's view once `predicate` holds (ServiceProcess.wait_for_view); a test fails with
        an AssertionError otherwise, which a test may catch to say what its page showed instead."""
        try:
            return self.service.wait_for_view(predicate, timeout)
        except TimeoutError as err:
            raise AssertionError(str(err)) from err

    def wait_until_settled(self) -> dict[str, Any]:
        """Every phone has committed and revealed its entropy for the running game: no more traffic."""
        seats = [p.seat for p in self.phones]

        def settled(view: dict[str, Any]) -> bool:
            game = view["game"]
            return (game is not None and not game["ended"]
                    and all(s in game["entropy"]["revealed"] for s in seats))
        return self.wait_for_view(settled)


def chromium_path() -> str:
    if not chromium_found():
        pytest.fail(f"{CHROMIUM} is missing: run ./test, which installs Debian's chromium package")
    return CHROMIUM


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    driver = sync_playwright().start()
    yield driver
    driver.stop()


@pytest.fixture(scope="session")
def chromium(playwright_driver: Playwright) -> Iterator[Browser]:
    launched = playwright_driver.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# Counts the tones the page starts (the quiz makes its sounds with oscillators, no audio files).
SOUND_SPY_JS = """() => {
  window.__tones = [];
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.__tones.push(this.frequency.value);
    return start.apply(this, args);
  };
}"""


class SceneBuilder:
    """Opens the devices of a scene; closes all of them (and their network links) afterwards."""

    def __init__(self, browser: Browser, playwright: Playwright, service: ServiceProcess, workdir: Path) -> None:
        self.browser = browser
        self.playwright = playwright
        self.service = service
        self.workdir = workdir
        self.screens: list[Screen] = []
        self.links: list[NetworkLink] = []
        self._sessions: list[CDPSession] = []

    def open(self, name: str, link: NetworkLink | None = None, **options: Any) -> Screen:
        if link is not None:
            options["proxy"] = link.proxy
        context = self.browser.new_context(locale="en-US", **options)
        context.set_default_timeout(10_000)
        page = context.new_page()
        screen = Screen(name, context, page, link, first_size=page.viewport_size)
        screen.page.on("pageerror", lambda err: screen.errors.append(str(err)))
        context.expose_binding("__companionRecord", lambda _source, item: screen.received.append(item))
        context.add_init_script(RECORDER_JS)
        context.add_init_script(DRAWN_JS)
        self._record_network(screen)
        self.screens.append(screen)
        return screen

    def _record_network(self, screen: Screen) -> None:
        """Server-sent events as the network stack got them, whether or not a script listens for their type."""
        session = screen.context.new_cdp_session(screen.page)
        urls: dict[str, str] = {}
        session.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
        session.on("Network.eventSourceMessageReceived", lambda e: screen.network.append(
            {"kind": "sse-network", "stream": e["requestId"], "url": urls.get(e["requestId"], "?"),
             "event": e["eventName"],
             "data": e["data"]}))
        session.send("Network.enable")
        self._sessions.append(session)

    def phone(self, number: int) -> Screen:
        device = dict(self.playwright.devices[PHONE_DEVICE])
        device.pop("default_browser_type", None)
        link = NetworkLink(self.service.port)
        self.links.append(link)
        return self.open(f"phone {number}", link=link, **device)

    def build(self, players: Sequence[str] = PLAYER_NAMES) -> Scene:
        """The table display, one phone per name in `players` (seats 1, 2, …) and the host console."""
        base = self.service.base
        table = self.open("table", viewport={"width": 1280, "height": 720})
        table.page.goto(f"{base}/table")
        table.page.wait_for_function("() => document.getElementById('join-code').textContent.length === 6")
        join_code = table.page.locator("#join-code").inner_text().strip()
        qr_png = self.workdir / "table-qr.png"
        table.page.locator("#join-box .qr-code svg").screenshot(path=str(qr_png))
        qr_url = decode_qr(qr_png)

        phones = []
        for number, name in enumerate(players, start=1):
            phone = self.phone(number)
            phone.page.goto(qr_url)            # as the phone's camera app would open it
            phone.page.locator("#name-input").fill(name)
            phone.page.locator("#join-button").click()
            phone.page.wait_for_url(f"{base}/me")
            phone.page.locator("#who").get_by_text(name).wait_for()
            phone.seat = json.loads(phone.page.locator("#boot").text_content() or "{}")["view"]["you"]["seat"]
            phones.append(phone)

        host = self.open("host", viewport={"width": 1280, "height": 800})
        host.page.goto(f"{base}/host#k={self.service.host_key}")
        host.page.wait_for_url(f"{base}/host")
        host.page.locator("#game-status strong").wait_for()
        scene = Scene(self.service, table, phones, host, qr_url, join_code, tuple(players))
        for screen in scene.screens:
            screen.page.locator("#link:not(.down)", has_text="connected").wait_for()
        return scene

    def close(self) -> None:
        for screen in self.screens:
            with contextlib.suppress(PlaywrightError):  # a context of a broken browser: nothing to close
                screen.context.close()
        for link in self.links:
            link.close()


@pytest.fixture
def companion_service(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServiceProcess]:
    """The service as a subprocess; a test module may set SERVICE_ARGS (e.g. ("--simulate",))."""
    process = ServiceProcess(tmp_path / "data", extra=getattr(request.module, "SERVICE_ARGS", ())).start()
    yield process
    process.stop()


def built_scene(request: pytest.FixtureRequest, browser: Browser, playwright: Playwright, service: ServiceProcess,
                workdir: Path) -> Iterator[Scene]:
    """A scene on `service` (a test module may set PLAYERS), its devices closed afterwards."""
    builder = SceneBuilder(browser, playwright, service, workdir)
    try:
        yield builder.build(getattr(request.module, "PLAYERS", PLAYER_NAMES))
    finally:
        builder.close()


@pytest.fixture
def scene(request: pytest.FixtureRequest, chromium: Browser, playwright_driver: Playwright,
          tmp_path: Path) -> Iterator[Scene]:
    """The table display, the host console and a phone per player (a test module may set PLAYERS).
    A module whose tests each start their own game sets SHARED_SCENE = True: its tests then share
    one scene (`shared_scene`), made new (`as_new`) for each."""
    if getattr(request.module, "SHARED_SCENE", False):
        yield as_new(request.getfixturevalue("shared_scene"))
        return
    yield from built_scene(request, chromium, playwright_driver, request.getfixturevalue("companion_service"),
                           tmp_path)


@pytest.fixture
def own_scene(request: pytest.FixtureRequest, chromium: Browser, playwright_driver: Playwright,
              companion_service: ServiceProcess, tmp_path: Path) -> Iterator[Scene]:
    """A scene of the test's own in a module whose scene is shared: for a test that changes what a
    later one could not undo (a page's clock, once installed, stays the test's)."""
    yield from built_scene(request, chromium, playwright_driver, companion_service, tmp_path)


@pytest.fixture(scope="module")
def shared_scene(request: pytest.FixtureRequest, chromium: Browser, playwright_driver: Playwright,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    """One scene for every test of a module (SERVICE_ARGS and PLAYERS as for `scene`). Opening the
    devices and joining the phones costs about 8 s of a 2-core machine a scene: a module whose tests
    each start a game and look at it takes the scene `as_new` instead of building its own."""
    workdir = tmp_path_factory.mktemp("shared-scene")
    service = ServiceProcess(workdir / "data", extra=getattr(request.module, "SERVICE_ARGS", ())).start()
    try:
        yield from built_scene(request, chromium, playwright_driver, service, workdir)
    finally:
        service.stop()


def as_new(scene: Scene) -> Scene:
    """The shared scene as a new one is: the idle dice tray just started, the seats named as they
    joined, every screen online on its own page in English at its first size, with nothing it
    stored (the page's settings) or was told to emulate (less motion), and nothing recorded by an
    earlier test."""
    service = scene.service
    service.post("end_game", host=True)   # refused when no game runs, which is as good
    for screen in scene.screens:          # forgotten before the new game: a phone keeps its entropy there
        if screen.link is not None:
            screen.go_online()
        screen.page.evaluate("() => localStorage.clear()")
    answer = service.post("start_game", {"game": IDLE_GAME}, host=True)
    assert answer.get("ok"), answer
    for phone, name in zip(scene.phones, scene.players, strict=True):
        answer = service.post("name_seat", {"seat": phone.seat, "name": name}, host=True)
        assert answer.get("ok"), answer
    for screen in scene.screens:
        screen.page.set_viewport_size(screen.first_size)
        screen.page.emulate_media(reduced_motion="no-preference")
        screen.page.goto("about:blank")   # the old page gone, what it still recorded is in
        screen.received.clear()
        screen.network.clear()
        screen.errors.clear()
        screen.page.goto(scene.url_of(screen, "en"))
    for screen in scene.screens:
        screen.page.locator("#link:not(.down)", has_text="connected").wait_for()
    return scene


# -- what the game tests share -----------------------------------------------------------------

def picture(view: dict[str, Any]) -> dict[str, Any]:
    """The game's own part of a table view."""
    return view["game"]["view"]


def wait_on(screen: Screen, selector: str, what: str, timeout_s: float = 5.0, **filters: Any) -> None:
    try:
        screen.page.locator(selector, **filters).first.wait_for(timeout=timeout_s * 1000)
    except PlaywrightError:
        shown = screen.page.locator("#game").inner_text()[:800] if screen.page.locator("#game").count() else ""
        pytest.fail(f"{screen.name} does not show {what} ({selector}) within {timeout_s} s: {screen.errors} {shown}")


def switch_language(scene: Scene, screens: list[Screen], lang: str, ready: str) -> None:
    """Each screen reloads in `lang` (the choice is kept in a cookie for its later pages) and shows
    `ready` again."""
    for screen in screens:
        screen.page.goto(scene.url_of(screen, lang))
        screen.page.locator("#link:not(.down)").wait_for()
        screen.page.locator(ready).first.wait_for()
        assert screen.page.locator("html").get_attribute("lang") == lang


@contextlib.contextmanager
def holding(screen: Screen, peek: str) -> Iterator[None]:
    """A finger (the mouse's button) held down on the hold-to-peek control called `peek` (its
    data-peek) for the time of the block, and lifted after it."""
    button = screen.page.locator(f'button.peek[data-peek="{peek}"]')
    assert button.count() == 1, f"{screen.name} shows no hold-to-peek control {peek!r}"
    # Scrolled into view, the pointer over its middle. A page that draws again meanwhile (a seat's
    # presence changed) replaces the button: hover waits that out and finds the new one, where
    # taking the old one's place first failed as "not attached to the DOM" on a loaded machine.
    button.hover()
    screen.page.mouse.down()
    try:
        yield
    finally:
        screen.page.mouse.up()


def shoot(screen: Screen, path: Path) -> None:
    screen.page.screenshot(path=str(path), full_page=True, animations="disabled")


def fits(phone: Screen) -> None:
    """Nothing on the phone's screen is wider than the screen."""
    wide = phone.page.evaluate("""() => [document.documentElement.scrollWidth, innerWidth,
        [...document.querySelectorAll('#game *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
          .map((e) => e.tagName + '.' + e.className).slice(0, 5)]""")
    assert wide[0] <= wide[1] and not wide[2], f"{phone.name} is wider than its {wide[1]} px screen: {wide}"


def on_the_tv(tv: Screen, selector: str) -> None:
    """Every element `selector` matches lies within the TV's screen, above the address line: a TV in
    kiosk mode cannot scroll, so what is below never shows."""
    hidden = tv.page.evaluate("""(selector) => {
      const foot = document.querySelector('footer.foot');
      const bottom = foot ? foot.getBoundingClientRect().top : innerHeight;
      return [...document.querySelectorAll(selector)].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.top < 0 || r.bottom > bottom + 0.5 || r.right > innerWidth + 0.5;
      }).map((e) => `${e.tagName}.${e.className}[${e.dataset.seat || e.dataset.colour || ''}]`);
    }""", selector)
    count = tv.page.locator(selector).count()
    assert count and not hidden, f"{tv.name}: {count} × {selector}, off its screen: {hidden}"


# -- playing a turn-based game through its screens -------------------------------------------------

SHOW_WITHIN_S = 1.0
"""Every screen shows each new state within this long after the tap that made it."""
CLOCK_SLACK_MS = 2.0
"""How far a page's clock (performance.timeOrigin + now()) may be from time.time(): bench/browser_latency
measures it within 0.4 ms, known to +-1.5 ms."""
LATE_WAIT_S = 5.0
"""How long a late screen is watched for the position it missed, to say what happened."""
PHONE_SIZE = {"width": 390, "height": 844}
TV_SIZE = {"width": 1920, "height": 1080}


def tv_and_phones(scene: Scene) -> None:
    """The table display on a full-HD TV, every phone at a common phone's size."""
    scene.table.page.set_viewport_size(TV_SIZE)
    for phone in scene.phones:
        phone.page.set_viewport_size(PHONE_SIZE)
BUTTONS = ":is(#game, #game-status) button"
"""A game's buttons: on a phone and the table (#game) and in the host console (#game-status)."""
FIND_JS = """([name, args, buttons]) => {
  const norm = (v) => JSON.stringify(v, Object.keys(v).sort());
  const want = norm(args);
  return [...document.querySelectorAll(`${buttons}[data-name="${name}"]`)]
    .findIndex((b) => !b.disabled && norm(JSON.parse(b.dataset.args || "{}")) === want);
}"""


def shown_in_time(screen: Screen, key: str, since: float, within_s: float) -> float:
    """When the page first showed `key` (DRAWN_JS's marks), in seconds after `since`; the test
    fails if it did not show it within `within_s`. For a check that ran out: on a loaded machine
    the question's own round trip to the page can outlast what was left."""
    drawn_at = screen.page.evaluate(MARKED_AT_JS, key)
    since_ms = (time.time() + since - time.monotonic()) * 1000
    if drawn_at is None or drawn_at > since_ms + within_s * 1000 + CLOCK_SLACK_MS:
        drawn = "not yet" if drawn_at is None else f"{(drawn_at - since_ms) / 1000:.2f} s after the action"
        pytest.fail(f"{screen.name} did not show {key} within {within_s} s (the page drew it {drawn})")
    return max(0.0, drawn_at - since_ms) / 1000


def everywhere(scene: Scene, position: int, since: float, root: str) -> None:
    """Every screen draws the state at `position` (or later) in its game's `root` element (which
    carries data-position) no later than SHOW_WITHIN_S after `since`."""
    deadline = since + SHOW_WITHIN_S
    shows = ("([p, root]) => { const n = document.querySelector(`${root}[data-position]`);"
             " return !!n && Number(n.dataset.position) >= p; }")
    for screen in scene.screens:
        left_ms = (deadline - time.monotonic()) * 1000
        try:
            screen.page.wait_for_function(shows, arg=[position, root], timeout=max(left_ms, 1))
            continue
        except PlaywrightError:
            pass
        # On a loaded machine the question's own round trip to the page can outlast what was left:
        # the page's record of when it drew the position then answers it.
        drawn_at = screen.page.evaluate(DRAWN_AT_JS, [position, root])
        deadline_ms = (time.time() + deadline - time.monotonic()) * 1000
        if drawn_at is None or drawn_at > deadline_ms + CLOCK_SLACK_MS:
            drawn = "not yet" if drawn_at is None else \
                f"{(drawn_at - deadline_ms) / 1000 + SHOW_WITHIN_S:.2f} s after the change"
            pytest.fail(f"{screen.name} did not show position {position} within {SHOW_WITHIN_S} s "
                        f"(the page drew it {drawn}): {late_screen(screen, shows, position, root, since)}")


def late_screen(screen: Screen, shows: str, position: int, root: str, since: float) -> str:
    """What a late screen showed at the deadline, and whether the position came later: a slow
    machine's page catches up, a lost message's never does."""
    def state() -> str:
        return str(screen.page.evaluate(
            "(root) => { const n = document.querySelector(`${root}[data-position]`);"
            " const link = document.querySelector('#link');"
            " return `position ${n ? n.dataset.position : 'none'}, #link class \"${link ? link.className : ''}\"`; }",
            root))
    at_deadline = state()
    try:
        screen.page.wait_for_function(shows, arg=[position, root], timeout=LATE_WAIT_S * 1000)
        later = f"it came {time.monotonic() - since:.2f} s after the change"
    except PlaywrightError:
        later = f"still not after {LATE_WAIT_S:.0f} s more ({state()})"
    return f"at the deadline {at_deadline}; {later} (script errors: {screen.errors})"


def tap(scene: Scene, screen: Screen, name: str, args: dict[str, Any] | None, root: str) -> dict[str, Any]:
    """Tap the enabled button that sends `name` with `args` on this screen; the table's view once
    every screen shows what it did."""
    before = scene.view()["position"]
    try:
        handle = screen.page.wait_for_function(f"(x) => ({FIND_JS})(x) + 1", arg=[name, args or {}, BUTTONS],
                                               timeout=5000)
    except PlaywrightError:
        buttons = screen.page.evaluate(f"() => [...document.querySelectorAll('{BUTTONS}[data-name]')]"
                                       ".map((b) => [b.dataset.name, b.dataset.args, b.disabled])")
        pytest.fail(f"{screen.name} shows no enabled button {name} {args}: {buttons} (script errors: {screen.errors})")
    index = handle.json_value() - 1
    screen.page.locator(f'{BUTTONS}[data-name="{name}"]').nth(index).click()
    started = time.monotonic()
    view = scene.wait_for_view(lambda v: v["position"] > before)
    everywhere(scene, view["position"], started, root)
    return scene.view()


def wait_link(screen: Screen, up: bool, within_s: float) -> float:
    """The header's link line says connected (`up`) or reconnecting within `within_s`; how long it took."""
    started = time.monotonic()
    selector = "#link:not(.down)" if up else "#link.down"
    text = "connected" if up else "reconnecting…"
    try:
        screen.page.locator(selector, has_text=text).wait_for(timeout=within_s * 1000)
    except PlaywrightError:
        pytest.fail(f"{screen.name}: the header should say {text!r} within {within_s} s; "
                    f"it says {screen.link_state()!r}")
    return time.monotonic() - started


AT_ONCE_JS = """([selector, kind, at]) => {
  const node = document.querySelector(selector);
  setTimeout(() => kind === "click" ? node.click()
    : node.dispatchEvent(new PointerEvent(kind, {bubbles: true, cancelable: true, pointerType: "touch"})),
    at - Date.now());
}"""


def at_once(presses: Sequence[tuple[Screen, str]], kind: str = "click", lead_ms: float = 600) -> None:
    """Each screen's `selector` gets `kind` ("click", or a pointer event such as "pointerdown") at
    the same instant, `lead_ms` from now: the pages of one browser share its clock, where taps sent
    one after the other are as far apart as a loaded machine makes them."""
    at_ms = time.time() * 1000 + lead_ms
    for screen, selector in presses:
        screen.page.evaluate(AT_ONCE_JS, [selector, kind, at_ms])
