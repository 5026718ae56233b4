"""Live-sync latency at the browser end: command -> the page's DOM shows the new state, on all 13
phone pages and the TV of one real browser.

Starts `companion serve` on loopback (bench/live_latency.py's service), seats 13 phones through the
API (companion/sim/clients.py), then opens ONE headless Debian Chromium (Playwright, the browser
tests' launch flags) with 14 pages, each in a browser context of its own: 13 phones (Playwright's
"Pixel 7", each context holding its seat's cookie) on /me and a 1920x1080 TV on /table, all
emulating prefers-reduced-motion unless `--motion` (see INTERVAL_S for why). Once every phone's
entropy is in, `roll` commands are fired as the table, `interval` apart (250 ms: INTERVAL_S says
why not 50), from one keep-alive connection, as live_latency.fire does, each stamped with
time.time() as it goes out (live_latency.fire stops after 45 s: a few hundred commands this far
apart take longer).

How a page says what it shows: web/static/live.js sets <html data-position> to the log position
of every view once the page has drawn it. A script added to each page before its own (INIT_JS)
watches that attribute with a MutationObserver and keeps, per change, the position, the moment
the observer ran (the DOM is updated: the view was applied and rendered), and the moment of the
next requestAnimationFrame callback (the frame that paints it begins). It also stamps every
`view` and `patch` event as the page's EventSource dispatches it, before live.js's own listener,
which splits a latency into the network part and the page's own work. All of them read
performance.timeOrigin + performance.now(): the wall clock of this machine in ms, as is
time.time(), which stamps the POSTs. The pages' clocks are compared with time.time(), page by
page, before and after the run (`clock_offsets_ms`), and the page clock's resolution is measured
(Chromium coarsens performance.now() to 0.1 ms on a page that is not cross-origin isolated).

A command's latency is the time from its POST to the moment the slowest of the 14 pages has drawn
a position at least the one the POST answered. Prints p50/p99 (and counts).

A benchmark, not a test: it prints figures and asserts nothing. Loopback only; every wait is
bounded.

Usage: .venv/bin/python -m bench.browser_latency [--commands 480] [--interval-ms 250] [--motion]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.live_latency import bench_service, machine_busy_s
from companion.sim.browser import CHROMIUM, CHROMIUM_ARGS, chromium_found
from companion.sim.clients import SEATS, Connection, request, seat_phones
from companion.sim.presses import percentile
from companion.sim.service import ServiceProcess

INTERVAL_S = 0.250
"""Rolls 250 ms apart: what 14 pages of one Chromium keep up with on 2 cores (the latency of the
last quarter of a run no higher than the first's). Each roll costs the pages about 12 ms of CPU
each (a Pixel 7's screen, 2.6 device pixels to the CSS pixel, laid out and painted in software),
170-185 ms for the 14: at 50 ms apart that is 3.4 CPUs, and the pages fall further behind with
every roll (a second and more by the end of a run). With the dice's tumble animating, a roll costs
them 430 ms: hence prefers-reduced-motion by default."""
COMMANDS = 480
QUICK_COMMANDS = 240
PHONE_DEVICE = "Pixel 7"
TV_SIZE = {"width": 1920, "height": 1080}
PAGE_READY_S = 30.0
SETTLE_S = 30.0
"""Bounds on the pages' start and on every phone's entropy coming in."""
DRAIN_S = 15.0
QUIET_S = 2.0
"""After the phones' entropy: quiet seconds before firing, so their last messages are drawn (and
Chromium's CPU with nothing happening is measured)."""
CALIBRATIONS = 5

INIT_JS = r"""
(() => {
  if (window.__drawn) return;
  const wall = () => performance.timeOrigin + performance.now();
  const drawn = [];  // [position, DOM updated (ms, wall clock), next animation frame (ms)]
  const heard = [];  // [position, view or patch event dispatched (ms)]
  Object.defineProperty(window, "__drawn", { value: drawn });
  Object.defineProperty(window, "__heard", { value: heard });
  new MutationObserver((records) => {
    const root = document.documentElement;
    if (!records.some((r) => r.target === root)) return;
    const entry = [Number(root.dataset.position), wall(), null];
    drawn.push(entry);
    requestAnimationFrame(() => { entry[2] = wall(); });
  }).observe(document, { attributes: true, attributeFilter: ["data-position"], subtree: true });
  const Native = window.EventSource;
  window.EventSource = class extends Native {
    constructor(url, config) {
      super(url, config);
      for (const type of ["view", "patch"]) {
        this.addEventListener(type, (event) => heard.push([Number(event.lastEventId), wall()]));
      }
    }
  };
})();
"""

RESOLUTION_JS = """() => {
  let smallest = Infinity;
  let last = performance.now();
  const until = last + 50;
  while (last < until) {
    const now = performance.now();
    if (now > last) { smallest = Math.min(smallest, now - last); last = now; }
  }
  return smallest;
}"""


@dataclass
class Page:
    name: str
    page: Any
    errors: list[str] = field(default_factory=list)
    drawn: list[tuple[int, float, float | None]] = field(default_factory=list)
    heard: list[tuple[int, float]] = field(default_factory=list)

    def collect(self) -> None:
        drawn, heard = self.page.evaluate("() => [window.__drawn, window.__heard]")
        self.drawn = _increasing([(int(p), float(t), None if f is None else float(f)) for p, t, f in drawn])
        self.heard = _increasing([(int(p), float(t)) for p, t in heard])

    def first_drawn(self, position: int) -> tuple[int, float, float | None] | None:
        index = bisect_left([d[0] for d in self.drawn], position)
        return self.drawn[index] if index < len(self.drawn) else None

    def first_heard(self, position: int) -> tuple[int, float] | None:
        index = bisect_left([h[0] for h in self.heard], position)
        return self.heard[index] if index < len(self.heard) else None


def _increasing(entries: list[Any]) -> list[Any]:
    """The entries whose position is above every earlier one's (a resync may repeat a position)."""
    kept: list[Any] = []
    for entry in entries:
        if not kept or entry[0] > kept[-1][0]:
            kept.append(entry)
    return kept


@dataclass
class BrowserResult:
    commands: int
    interval_s: float
    motion: bool = False
    """The pages' animations run (the dice's tumble); without, they emulate prefers-reduced-motion."""
    pages: int = 0
    browser: str = ""
    fired: int = 0
    late_sends: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    """Per command: POST sent -> the slowest page's DOM shows it."""
    median_page_ms: list[float] = field(default_factory=list)
    frame_ms: list[float] = field(default_factory=list)
    """Per command: POST sent -> the slowest page's next animation frame after drawing it."""
    network_ms: list[float] = field(default_factory=list)
    """Per command: POST sent -> the slowest page's EventSource dispatched the message."""
    in_page_ms: list[float] = field(default_factory=list)
    """Per command and page: the message dispatched -> the DOM shows it (parse, patch, render)."""
    post_ms: list[float] = field(default_factory=list)
    undelivered: int = 0
    clock_offsets_ms: list[float] = field(default_factory=list)
    """Per page, before and after: page clock - time.time(), at the middle of the round trip."""
    clock_bracket_ms: float = 0.0
    """The largest half round trip of those comparisons: how well an offset is known."""
    resolution_ms: float = float("nan")
    server_cpu_ms: float = 0.0
    browser_cpu_ms: float = 0.0
    browser_idle_cpu: float = 0.0
    """CPUs' worth Chromium used with nothing happening (the pages open, before the run)."""
    other_cpu: float = 0.0
    page_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    setup_s: float = 0.0
    run_s: float = 0.0


def descendants(root: int) -> dict[int, int]:
    """Every process below `root`, each with its parent (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    below: dict[int, int] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in below:
                below[pid] = ppid
                frontier.append(pid)
    return below


def cpu_of(pids: set[int]) -> float:
    """User + system CPU seconds of these processes so far (those gone count 0)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            parts = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += int(parts[11]) + int(parts[12])
    return total / tick


def browser_pids(service: ServiceProcess) -> set[int]:
    """This script's child processes but the service and its own: Playwright's driver and Chromium."""
    mine = descendants(os.getpid())
    theirs = set(descendants(service.pid)) | {service.pid}
    return set(mine) - theirs


def calibrate(pages: list[Page], result: BrowserResult) -> None:
    """Each page's clock (performance.timeOrigin + now()) against time.time(), a few times each."""
    for page in pages:
        best: tuple[float, float] | None = None
        for _ in range(CALIBRATIONS):
            before = time.time() * 1000
            theirs = float(page.page.evaluate("() => performance.timeOrigin + performance.now()"))
            after = time.time() * 1000
            half = (after - before) / 2
            if best is None or half < best[1]:
                best = (theirs - (before + half), half)
        assert best is not None
        result.clock_offsets_ms.append(best[0])
        result.clock_bracket_ms = max(result.clock_bracket_ms, best[1])


def wait_all_at(pages: list[Page], position: int, timeout_s: float) -> list[str]:
    """Wait (bounded) until every page has drawn `position`; the names of those that did not."""
    deadline = time.monotonic() + timeout_s
    behind = []
    for page in pages:
        left_ms = max((deadline - time.monotonic()) * 1000, 1)
        try:
            page.page.wait_for_function("(p) => Number(document.documentElement.dataset.position ?? -1) >= p",
                                        arg=position, timeout=left_ms, polling=20)
        except Exception:  # Playwright's timeout: the page is behind
            behind.append(page.name)
    return behind


def entropy_in(service: ServiceProcess, timeout_s: float) -> bool:
    """Every seated phone committed and revealed its entropy for the running game (bounded)."""
    def settled(view: dict[str, Any]) -> bool:
        game = view["game"]
        seats = [s["number"] for s in view["table"]["seats"] if s["name"]]
        return game is not None and all(s in game["entropy"]["revealed"] for s in seats)
    try:
        service.wait_for_view(settled, timeout_s)
        return True
    except TimeoutError:
        return False


def open_pages(browser: Any, driver: Any, service: ServiceProcess, cookies: dict[int, str],
               motion: bool) -> list[Page]:
    pages: list[Page] = []

    def page_in(name: str, options: dict[str, Any], cookie: str | None) -> Page:
        context = browser.new_context(locale="en-US", reduced_motion="no-preference" if motion else "reduce",
                                      **options)
        context.set_default_timeout(PAGE_READY_S * 1000)
        if cookie:
            key, value = cookie.split("=", 1)
            context.add_cookies([{"name": key, "value": value, "url": service.base}])
        context.add_init_script(INIT_JS)
        page = Page(name, context.new_page())
        page.page.on("pageerror", lambda err: page.errors.append(str(err)))
        pages.append(page)
        return page

    tv = page_in("tv", {"viewport": TV_SIZE}, None)
    tv.page.goto(f"{service.base}/table")
    device = dict(driver.devices[PHONE_DEVICE])
    device.pop("default_browser_type", None)
    for seat in sorted(cookies):
        phone = page_in(f"phone{seat}", device, cookies[seat])
        phone.page.goto(f"{service.base}/me")
    for page in pages:
        page.page.locator("#link:not(.down)").wait_for(timeout=PAGE_READY_S * 1000)
    return pages


def run(commands: int = COMMANDS, interval_s: float = INTERVAL_S, phones: int = SEATS,
        motion: bool = False) -> BrowserResult:
    from playwright.sync_api import sync_playwright

    result = BrowserResult(commands, interval_s, motion=motion)
    if not chromium_found():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium package (./test does)")
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="browser-latency-") as tmp:
        service = bench_service(Path(tmp), threads=phones + 1 + 16).start()
        try:
            cookies = seat_phones(service, phones)
            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    result.browser = f"Chromium {browser.version}"
                    pages = open_pages(browser, driver, service, cookies, motion)
                    result.pages = len(pages)
                    measure_run(service, pages, result)
                    result.page_errors = [f"{p.name}: {e}" for p in pages for e in p.errors]
                finally:
                    browser.close()
        finally:
            service.stop_cleanly(10)
    result.setup_s = time.perf_counter() - began - result.run_s
    return result


def measure_run(service: ServiceProcess, pages: list[Page], result: BrowserResult) -> None:
    if not entropy_in(service, SETTLE_S):
        result.notes.append(f"not every phone's entropy came in within {SETTLE_S:.0f} s")
    _, status, _ = request(service.port, "GET", "/api/status")
    behind = wait_all_at(pages, status["position"], SETTLE_S)
    if behind:
        result.notes.append(f"pages behind before the run: {behind}")
    browser = browser_pids(service)
    idle_before, idle_began = cpu_of(browser), time.perf_counter()
    time.sleep(QUIET_S)
    result.browser_idle_cpu = (cpu_of(browser) - idle_before) / (time.perf_counter() - idle_began)
    result.resolution_ms = min(float(p.page.evaluate(RESOLUTION_JS)) for p in pages[:2])  # the TV and a phone
    calibrate(pages, result)
    browser_before, server_before, machine_before = cpu_of(browser), service.cpu_s(), machine_busy_s()
    own_before = sum(os.times()[:2])
    started = time.perf_counter()
    sent = fire_rolls(service, result)
    last = sent[-1][1] if sent else 0
    behind = wait_all_at(pages, last, DRAIN_S)
    result.run_s = time.perf_counter() - started
    browser_s = cpu_of(browser) - browser_before
    server_s = service.cpu_s() - server_before
    own_s = sum(os.times()[:2]) - own_before
    result.fired = len(sent)
    result.browser_cpu_ms = browser_s / max(result.fired, 1) * 1000
    result.server_cpu_ms = server_s / max(result.fired, 1) * 1000
    result.other_cpu = max(machine_busy_s() - machine_before - browser_s - server_s - own_s, 0.0) / result.run_s
    if behind:
        result.notes.append(f"pages that never drew the last command within {DRAIN_S:.0f} s: {behind}")
    calibrate(pages, result)
    for page in pages:
        page.collect()
    score(pages, sent, result)


def fire_rolls(service: ServiceProcess, result: BrowserResult) -> list[tuple[float, int]]:
    """POST `roll` as the table on a schedule of one every `interval`, from one keep-alive
    connection: (send time in ms on time.time()'s clock, the position answered) each. A POST due
    while the one before is still unanswered goes out as soon as it is answered (counted late): an
    overloaded machine shows as late POSTs and a longer run, not as a queue."""
    conn = Connection(service.port, "127.0.0.1")
    body = {"as": "table", "name": "roll"}
    sent: list[tuple[float, int]] = []
    start = time.perf_counter()
    stop = start + result.commands * result.interval_s * 2 + 30
    try:
        for i in range(result.commands):
            due = start + i * result.interval_s
            now = time.perf_counter()
            if now > stop:
                result.notes.append(f"stopped firing after {now - start:.0f} s ({i} commands)")
                break
            if due > now:
                time.sleep(due - now)
            elif now - due > result.interval_s / 2:
                result.late_sends += 1
            wall_ms = time.time() * 1000
            status, answer, t0 = conn.post("/api/commands", body)
            result.post_ms.append((time.perf_counter() - t0) * 1000)
            if status != 200 or not (answer or {}).get("ok"):
                raise RuntimeError(f"roll refused: {status} {answer}")
            sent.append((wall_ms, int(answer["position"])))
    finally:
        conn.close()
    return sent


def score(pages: list[Page], sent: list[tuple[float, int]], result: BrowserResult) -> None:
    """Latencies per command from each page's records; `sent`: (send time in wall ms, position)."""
    for sent_ms, position in sent:
        drawn = [p.first_drawn(position) for p in pages]
        heard = [p.first_heard(position) for p in pages]
        if any(d is None for d in drawn):
            result.undelivered += 1
            continue
        times = [d[1] for d in drawn if d is not None]
        result.latencies_ms.append(max(times) - sent_ms)
        result.median_page_ms.append(statistics.median(times) - sent_ms)
        frames = [d[2] for d in drawn if d is not None and d[2] is not None]
        if len(frames) == len(pages):
            result.frame_ms.append(max(frames) - sent_ms)
        got = [h[1] for h in heard if h is not None]
        if len(got) == len(pages):
            result.network_ms.append(max(got) - sent_ms)
        for d, h in zip(drawn, heard, strict=True):
            if d is not None and h is not None and h[0] == d[0]:
                result.in_page_ms.append(d[1] - h[1])


def pct(values: list[float], q: float) -> float:
    return percentile(values, q) if values else float("nan")


def quarters(values: list[float]) -> tuple[float, float]:
    """The p50 of the first and of the last quarter of a run: a browser that does not keep up
    falls further behind with every command."""
    n = max(len(values) // 4, 1)
    return pct(values[:n], 50), pct(values[-n:], 50)


def describe(result: BrowserResult) -> list[str]:
    """The run in a few phrases: what was measured, how well the clocks agree, what went wrong."""
    offsets = [abs(o) for o in result.clock_offsets_ms]
    quarter = quarters(result.latencies_ms)
    notes = [f"{len(result.latencies_ms)} of {result.fired} roll commands {result.interval_s * 1000:.0f} ms apart "
             f"(of {result.commands} planned), one headless {result.browser} with {result.pages} pages "
             f"({result.pages - 1} '{PHONE_DEVICE}' phones on /me, a 1920x1080 TV on /table), each in its own "
             "context; POST sent (on time.time()'s clock) -> the slowest page's <html data-position> changed (its "
             "MutationObserver, performance.timeOrigin + now())",
             "the dice's tumble animating on every page" if result.motion else
             "pages emulate prefers-reduced-motion (the dice's 0.45 s tumble, painted in software by 14 pages on "
             "the same cores, more than doubles Chromium's CPU per roll: --motion)",
             f"median page p50 {pct(result.median_page_ms, 50):.1f} ms; slowest page's next animation frame p50 "
             f"{pct(result.frame_ms, 50):.1f}, p99 {pct(result.frame_ms, 99):.1f} ms; its EventSource dispatched "
             f"the message p50 {pct(result.network_ms, 50):.1f}, p99 {pct(result.network_ms, 99):.1f} ms; in a page "
             f"(dispatched -> drawn) p50 {pct(result.in_page_ms, 50):.2f}, p99 {pct(result.in_page_ms, 99):.2f} ms",
             f"page clocks vs time.time(): |offset| at most {max(offsets, default=float('nan')):.2f} ms "
             f"(known to +-{result.clock_bracket_ms:.2f} ms), page clock resolution {result.resolution_ms:.3f} ms, "
             "time.time() 1 us",
             f"CPU per command: Chromium {result.browser_cpu_ms:.1f} ms (idle: {result.browser_idle_cpu:.2f} CPU), "
             f"server {result.server_cpu_ms:.1f} ms; "
             f"POST p50 {pct(result.post_ms, 50):.1f} ms",
             f"kept up: first quarter's p50 {quarter[0]:.1f} ms, last quarter's {quarter[1]:.1f} ms",
             f"set-up {result.setup_s:.0f} s, run {result.run_s:.0f} s"]
    if result.undelivered:
        notes.append(f"{result.undelivered} commands never drawn on every page")
    if result.late_sends:
        notes.append(f"{result.late_sends} POSTs sent late")
    if result.other_cpu > 0.1:
        notes.append(f"other processes used {result.other_cpu:.1f} CPUs meanwhile")
    if result.page_errors:
        notes.append(f"{len(result.page_errors)} script errors, first: {result.page_errors[0][:120]}")
    return notes + result.notes


def rows(result: BrowserResult) -> list[tuple[str, list[float], str]]:
    """(what, latencies in ms, note) for the report."""
    return [
        (f"command -> the DOM shows it on {result.pages - 1} phone pages + the TV (one Chromium)",
         result.latencies_ms, "; ".join(describe(result))),
        ("  of which in the page: event dispatched -> DOM updated", result.in_page_ms,
         f"{len(result.in_page_ms)} (page, command) pairs: live.js parses the message, patches its view and the page "
         "draws it; the rest is the server, the sockets and each renderer's wait for a CPU"),
    ]


def report(result: BrowserResult) -> None:
    lat = result.latencies_ms
    print()
    print("Live-sync latency at the browser end (command -> the DOM shows it on every page)")
    print(f"{'what':<52}{'count':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for label, values in (("POST sent -> slowest page's DOM updated", lat),
                          ("POST sent -> median page's DOM updated", result.median_page_ms),
                          ("POST sent -> slowest page's next frame", result.frame_ms),
                          ("POST sent -> slowest page's EventSource dispatched", result.network_ms),
                          ("in a page: dispatched -> DOM updated", result.in_page_ms),
                          ("POST round trip", result.post_ms)):
        print(f"{label:<52}{len(values):>7}{pct(values, 50):>9.2f}{pct(values, 99):>9.2f}"
              f"{max(values, default=float('nan')):>9.2f}")
    for note in describe(result):
        print(f"  {note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--commands", type=int, default=COMMANDS)
    parser.add_argument("--interval-ms", type=float, default=INTERVAL_S * 1000)
    parser.add_argument("--motion", action="store_true",
                        help="let the pages animate (the dice's tumble): 14 pages' software rendering on 2 cores")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    report(run(min(args.commands, 5000), max(args.interval_ms, 1.0) / 1000, motion=args.motion))


if __name__ == "__main__":
    main()
