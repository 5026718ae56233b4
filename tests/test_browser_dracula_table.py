"""A whole round of Dracula at a full table: the TV (in English, and a second one in French) and
thirteen phones, each its own browser context that joined through the QR code, every answer
tapped on its phone's screens. Through a day vote with a tie, the first night (Dracula sees the
rooms and bites), a waltz, a torture of Dracula who passes for a human, a garlic steal, a boudoir
letter and its reply, and a final phase that burns Dracula; the TVs and a French phone are
screenshotted at each step (test-artifacts/dracula-table-*.png).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Playwright

from companion.sim.service import ServiceProcess
from tests.support.browser import PHONE_SIZE, TV_SIZE, NetworkLink, Scene, SceneBuilder, Screen, holding, shoot
from tests.support.dracula_play import NAMES
from tests.test_browser_dracula_phone import (
    SPY_JS,
    everyone_ready,
    offered,
    own_view,
    phase,
    send,
    shown_while_held,
    tap,
    write,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OPTIONS = {"rounds": 1, "gm": "companion", "day_s": 1800, "dusk_s": 1800, "actions_s": 1800, "dawn_s": 600,
           "final_s": 1800, "torture_s": 600}


@dataclass
class Plan:
    """One phone's night: its room, whether it uses its object, its action and the player aimed at."""

    phone: Screen
    room: str
    kind: str = "pass"
    target: Screen | None = None
    use: bool = False


class PatientBuilder(SceneBuilder):
    """Thirteen phones join one after the other, each drawing every join after it: on a busy
    machine a join may take longer than the ten seconds a device is given elsewhere."""

    def open(self, name: str, link: NetworkLink | None = None, **options: Any) -> Screen:
        screen = super().open(name, link, **options)
        screen.context.set_default_timeout(30_000)
        return screen


@pytest.fixture
def scene(chromium: Browser, playwright_driver: Playwright, companion_service: ServiceProcess,
          tmp_path: Path) -> Iterator[Scene]:
    """The table display, the host console and thirteen phones (the table set to thirteen seats first)."""
    companion_service.post("end_game", host=True)
    assert companion_service.post("set_seat_count", {"count": len(NAMES)}, host=True)["ok"]
    builder = PatientBuilder(chromium, playwright_driver, companion_service, tmp_path)
    try:
        yield builder.build(NAMES)
    finally:
        builder.close()


@pytest.fixture
def french_tv(chromium: Browser, scene: Scene) -> Iterator[Page]:
    context = chromium.new_context(locale="fr-FR", viewport=TV_SIZE)
    page = context.new_page()
    page.goto(f"{scene.service.base}/table?lang=fr")
    page.locator("#link:not(.down)").wait_for()
    yield page
    context.close()


def shots(scene: Scene, french_tv: Page, artifacts: Path, name: str, phone: Screen | None = None) -> None:
    scene.table.page.wait_for_timeout(300)   # the TVs draw what they got
    scene.table.page.screenshot(path=str(artifacts / f"dracula-table-{name}-en.png"))
    french_tv.screenshot(path=str(artifacts / f"dracula-table-{name}-fr.png"))
    if phone is not None:
        shoot(phone, artifacts / f"dracula-table-{name}-phone-fr.png")


def night(scene: Scene, number: int, plans: list[Plan], torture: Screen | None = None) -> None:
    """Dusk, the first night's room check, the actions, Dracula's answer when tortured (he passes
    for a human), and the dawn read on every phone, all through the phones' screens."""
    phase(scene, "dusk", number)
    for plan in plans:
        tap(plan.phone, f".d-room[data-room='{plan.room}']")
        if plan.use:
            tap(plan.phone, "#dracula-use")
        send(plan.phone, "#dracula-send-room")
    if number == 1:
        phase(scene, "dracula", 1)
        for plan in plans:
            send(plan.phone, "#dracula-send-room")
    phase(scene, "actions", number)
    for plan in plans:
        tap(plan.phone, f"[data-kind='{plan.kind}']")
        if plan.target is not None:
            aim = "bite" if plan.kind == "bite" else "target"
            tap(plan.phone, f"[data-for='{aim}'][data-seat='{plan.target.seat}']")
        send(plan.phone, "#dracula-send-action")
    if torture is not None:
        phase(scene, "torture", number)
        send(torture, "#dracula-disguise-true")
    phase(scene, "dawn", number)


def news_kinds(phone: Screen) -> list[str]:
    return [n["kind"] for n in own_view(phone)["me"]["news"]]


def vote(scene: Scene, votes: list[tuple[Screen, Screen]]) -> None:
    for voter, candidate in votes:
        send(voter, f".d-candidate[data-seat='{candidate.seat}']")


def test_a_round_at_a_full_table_through_its_phones(scene: Scene, french_tv: Page, artifacts: Path) -> None:
    service = scene.service
    service.post("end_game", host=True)
    assert service.post("start_game", {"game": "dracula", "options": OPTIONS}, host=True)["ok"]
    scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == "dracula")
    scene.table.page.set_viewport_size(TV_SIZE)
    for phone in scene.phones:
        phone.page.set_viewport_size(PHONE_SIZE)
        phone.page.locator(".dracula-phone #dracula-status[data-phase='roles']").wait_for()
    french = scene.phones[-1]
    french.page.goto(f"{service.base}/me?lang=fr")
    french.page.locator(".dracula-phone").wait_for()
    for phone in scene.phones:
        phone.page.evaluate(SPY_JS)
    sheets = {phone.seat: own_view(phone)["me"] for phone in scene.phones}
    dracula = next(p for p in scene.phones if sheets[p.seat]["dracula"])
    h = [p for p in scene.phones if p is not dracula]
    assert len(h) == 12
    shots(scene, french_tv, artifacts, "roles", french)
    everyone_ready(scene, scene.phones)
    phase(scene, "day", 1)
    everyone_ready(scene, scene.phones)

    # Night 1: Dracula sees where everyone is, and bites h0 in the jails.
    rooms = ["jails", "boudoir", "ballroom", "torture"]
    night(scene, 1, [Plan(dracula, "jails", "bite", h[0])] +
          [Plan(p, rooms[i % 4], "treasure") for i, p in enumerate(h)])
    assert "converted" in news_kinds(h[0])
    shown_while_held(h[0], "dracula-news", ["You were bitten tonight.", "You have become a vampire."])
    shots(scene, french_tv, artifacts, "dawn-1", french)
    everyone_ready(scene, scene.phones)

    # Day 2: the sanctuary vote, h9 and h10 ahead, h8 and h11 tied on two votes for the last place.
    phase(scene, "day", 2)
    vote(scene, [(dracula, h[9]), (h[0], h[9]), (h[1], h[9]), (h[2], h[9]), (h[3], h[10]), (h[4], h[10]),
                 (h[5], h[10]), (h[6], h[8]), (h[7], h[8]), (h[8], h[11]), (h[9], h[11]), (h[10], h[7]),
                 (h[11], h[6])])
    pic = phase(scene, "dusk", 2)
    ranking = pic["tally"]["ranking"]
    tied = [r["candidate"] for r in ranking if r["votes"] == 2]
    assert set(tied) == {h[8].seat, h[11].seat}, ranking
    assert len(pic["sanctuary"]) == 3 and {h[9].seat, h[10].seat} <= set(pic["sanctuary"])
    shots(scene, french_tv, artifacts, "sanctuary", french)
    sheltered = [p for p in h if p.seat in pic["sanctuary"]]
    awake = [p for p in h if p not in sheltered]

    # Night 2: a waltz (h1, h2), the boudoir snooped (h3), Dracula tortured by h4 and h5.
    plans = [Plan(dracula, "torture"), Plan(h[1], "ballroom", "snoop", h[2]),
             Plan(h[2], "ballroom", "snoop", h[1]), Plan(h[3], "boudoir", "snoop"),
             Plan(h[4], "torture", "snoop", dracula), Plan(h[5], "torture", "snoop", dracula)]
    planned = [plan.phone for plan in plans]
    plans += [Plan(p, "jails", "treasure" if p is not h[0] else "pass") for p in awake if p not in planned]
    night(scene, 2, plans, torture=dracula)
    assert "waltz" in news_kinds(h[1]) and "boudoir" in news_kinds(h[3])
    told = [n for n in own_view(h[4])["me"]["news"] if n["kind"] == "torture"]
    assert told and told[0]["nature"] == "human", "Dracula passed for a human"
    assert "tortured" in news_kinds(dracula)
    shots(scene, french_tv, artifacts, "dawn-2", french)
    objects = {p.seat: (own_view(p)["me"]["object"] or {}).get("kind") for p in h}
    everyone_ready(scene, scene.phones)

    # Day 3: the boudoir letter and its reply, the waltz partners' message; one guest for the sanctuary.
    phase(scene, "day", 3)
    write(h[3], h[4], "boudoir_letter", "Two of them at least")
    write(h[1], h[2], "message", "Same room tonight?")
    h[4].page.wait_for_function("() => fetch('/api/view?as=me').then((r) => r.json())"
                                ".then((v) => v.game.view.me.letters.length === 1)")
    assert f"{h[3].seat}:boudoir_reply" in offered(h[4])
    write(h[4], h[3], "boudoir_reply", "Thank you")
    h[3].page.wait_for_function("() => fetch('/api/view?as=me').then((r) => r.json())"
                                ".then((v) => v.game.view.me.letters.length === 2)")
    shown_while_held(h[3], "dracula-letters", ["Two of them at least", "Thank you"])
    with holding(h[3], "dracula-letters"):
        h[3].page.screenshot(path=str(artifacts / "dracula-table-boudoir-letters.png"))
    # The garlic steal: a vampire holding garlic uses it and is bitten by another vampire.
    holder = h[0] if objects[h[0].seat] == "garlic" else next(
        p for p in h[1:] if objects[p.seat] == "garlic" and p not in sheltered)
    guest = next(p for p in awake if p not in (holder, h[0]) and p not in (h[1], h[2], h[3], h[4]))
    vote(scene, [(p, guest) for p in scene.phones])
    pic = phase(scene, "dusk", 3)
    assert pic["sanctuary"] == [guest.seat]
    tonight = [p for p in scene.phones if p is not guest]
    if holder is h[0]:
        night(scene, 3, [Plan(dracula, "jails", "bite", h[0]), Plan(h[0], "jails", use=True)] +
              [Plan(p, "boudoir") for p in tonight if p not in (dracula, h[0])])
        thief = dracula
    else:
        night(scene, 3, [Plan(dracula, "jails", "bite", holder), Plan(holder, "jails")] +
              [Plan(p, "boudoir") for p in tonight if p not in (dracula, holder)])
        assert "converted" in news_kinds(holder)
        everyone_ready(scene, scene.phones)
        pic = phase(scene, "day", 4)
        guest = next(p for p in awake if p not in (holder, h[0], guest) and p.seat in pic["eligible"])
        vote(scene, [(p, guest) for p in scene.phones])
        phase(scene, "dusk", 4)
        tonight = [p for p in scene.phones if p is not guest]
        night(scene, 4, [Plan(h[0], "ballroom", "bite", holder), Plan(holder, "ballroom", use=True)] +
              [Plan(p, "boudoir") for p in tonight if p not in (h[0], holder)])
        thief = h[0]
    bite = next(n for n in own_view(thief)["me"]["news"] if n["kind"] == "bite")
    assert bite["result"] == "failure" and "bitten" in news_kinds(holder), "the garlic stole the bite"
    shots(scene, french_tv, artifacts, "garlic", french)
    everyone_ready(scene, scene.phones)

    # The remaining nights, quietly, then the final phase: the humans fight and burn Dracula.
    while True:
        pic = scene.wait_for_view(lambda v: v["game"]["view"]["phase"] in ("day", "final_choice"))["game"]["view"]
        if pic["phase"] == "final_choice":
            break
        number = pic["night"]
        phase(scene, "day", number)
        if pic["eligible"]:
            target = next(p for p in scene.phones if p.seat in pic["eligible"])
            vote(scene, [(p, target) for p in scene.phones])
        else:
            everyone_ready(scene, scene.phones)
        pic = phase(scene, "dusk", number)
        night(scene, number, [Plan(p, "boudoir") for p in scene.phones if p.seat not in pic["sanctuary"]])
        everyone_ready(scene, scene.phones)
    pic = phase(scene, "final_choice")
    roles = {x["seat"]: x["role"] for x in pic["players"] if x["alive"]}
    humans = [p for p in scene.phones if roles.get(p.seat) == "human"]
    shots(scene, french_tv, artifacts, "final-choice", french)
    for phone in humans:
        send(phone, "#dracula-fight")
    phase(scene, "final_target")
    for phone in humans:
        tap(phone, f".d-act button[data-seat='{dracula.seat}']")
    pic = phase(scene, "round_over")
    assert pic["final"]["dracula_burned"] and dracula.seat in pic["final"]["burned"]
    assert pic["rounds_done"][-1]["dracula"] == dracula.seat
    shots(scene, french_tv, artifacts, "round-over", french)
    scene.host.page.locator("#dracula-next_round").click()
    phase(scene, "over")
    french.page.locator("#dracula-podium .d-places li").first.wait_for()
    shots(scene, french_tv, artifacts, "over", french)
    for phone in scene.phones:
        assert phone.page.evaluate("() => window.__buzz") == [], f"{phone.name} made a sound or vibrated"
        assert not phone.errors, f"{phone.name}: {phone.errors}"
    assert not scene.table.errors and not scene.host.errors
