"""Dracula's phones and host console, in Debian's Chromium against the real service.

No tells: a human's phone and a vampire's go through the night's screens (the room, the first
night's confirmation, the action) showing the same steps with as many choices each, and send the
same sequence of requests, one per screen; a choice the rules refuse is never drawn disabled. The
night's news, the role and the letters show only while held (hold-to-peek), and nothing rings or
vibrates. Then the day's vote, a vampire's letter in a human's inbox, and the host's clock controls.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from companion.games.base import seat as seat_viewer
from companion.games.dracula import DRACULA
from companion.sim.players.dracula import play_series
from tests.support.browser import PHONE_SIZE, Scene, Screen, holding, shoot
from tests.test_browser_phone import action_list, draw_seat_view

pytestmark = pytest.mark.browser

PLAYERS = ("Zoé", "Bruno", "Chloé", "Dmitri")
SHARED_SCENE = True   # every test starts its own game: one scene for all, made new for each
OPTIONS = {"rounds": 1, "gm": "companion", "sanctuary_capacity": 1, "day_s": 600, "dusk_s": 600,
           "actions_s": 600, "dawn_s": 600}



# Every command a page sends, as the network sees it (a spy that the page's own scripts cannot skip),
# and every sound or vibration it starts.
SPY_JS = """() => {
  window.__buzz = [];
  const vibrate = navigator.vibrate ? navigator.vibrate.bind(navigator) : null;
  navigator.vibrate = (...args) => { window.__buzz.push("vibrate"); return vibrate ? vibrate(...args) : true; };
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.__buzz.push("tone"); return start.apply(this, args); };
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (...args) { window.__buzz.push("media"); return play.apply(this, args); };
}"""


def commands(phone: Screen) -> list[dict[str, Any]]:
    """The commands this phone posts from now on (their names and roles), filled in as it sends."""
    sent: list[dict[str, Any]] = []

    def record(request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/api/commands"):
            body = json.loads(request.post_data or "{}")
            sent.append({"name": body.get("name"), "as": body.get("as")})
    phone.page.on("request", record)
    return sent


def own_view(phone: Screen) -> dict[str, Any]:
    """The phone's own view of the game (its secret sheet included), as the page may fetch it."""
    view = phone.page.evaluate("() => fetch('/api/view?as=me').then((r) => r.json())")
    return view["game"]["view"]


def start(scene: Scene, **options: Any) -> dict[str, Any]:
    service = scene.service
    service.post("end_game", host=True)
    answer = service.post("start_game", {"game": "dracula", "options": {**OPTIONS, **options}}, host=True)
    assert answer.get("ok"), answer
    view = scene.wait_for_view(lambda v: v["game"] is not None and v["game"]["game"] == "dracula"
                               and not v["game"]["ended"])
    for phone in scene.phones:
        phone.page.set_viewport_size(PHONE_SIZE)
        phone.page.evaluate(SPY_JS)
        phone.page.locator(".dracula-phone #dracula-status[data-phase='roles']").wait_for()
    return view


def phase(scene: Scene, name: str, night: int | None = None) -> dict[str, Any]:
    """The table's picture once the game is in `name` (of `night`), every phone showing it."""
    view = scene.wait_for_view(lambda v: v["game"]["view"]["phase"] == name
                               and (night is None or v["game"]["view"]["night"] == night))
    for phone in scene.phones:
        phone.page.locator(f".dracula-phone[data-step='{view['game']['view']['step']}']").wait_for()
    return view["game"]["view"]


def tap(phone: Screen, selector: str) -> None:
    phone.page.locator(f"#dracula-screen {selector}").first.click()


def send(phone: Screen, selector: str) -> None:
    """Tap the screen's button, and see the phone take the answer: the screen says it waits for
    the others, or the phase is over (the last answer ends it)."""
    button = phone.page.locator(f"#dracula-screen {selector}")
    shown = phone.page.locator("#dracula-screen").inner_text()
    assert button.is_enabled(), f"{phone.name}: {selector} is disabled: {shown!r}"
    step = phone.page.locator(".dracula-phone").get_attribute("data-step")
    button.click()
    try:
        phone.page.wait_for_function(
            "(step) => !!document.querySelector('#dracula-screen .d-wait')"
            " || document.querySelector('.dracula-phone').dataset.step !== step", arg=step, timeout=3000)
    except PlaywrightError:
        pytest.fail(f"{phone.name} still shows {phone.page.locator('#game').inner_text()!r} {phone.errors}")


def everyone_ready(scene: Scene, phones: list[Screen]) -> None:
    for phone in phones:
        send(phone, "#dracula-ready")


def screen_shape(phone: Screen) -> dict[str, Any]:
    """What a glance at the phone shows of the screen: its step, how many choices, how many of
    them look disabled, and the peek controls."""
    return phone.page.evaluate("""() => {
      const screen = document.querySelector('#dracula-screen');
      const step = screen.querySelector('.d-step');
      const buttons = [...screen.querySelectorAll('button')];
      return { step: step ? [step.dataset.step, step.dataset.steps] : null,
               buttons: buttons.length, disabled: buttons.filter((b) => b.disabled).map((b) => b.textContent),
               peeks: [...document.querySelectorAll('button.peek')].map((b) => b.dataset.peek) };
    }""")


def test_a_humans_and_a_vampires_night_screens_are_the_same_and_send_the_same_requests(
        scene: Scene, artifacts: Path) -> None:
    start(scene, sanctuary_capacity=0)
    sheets = {phone.seat: own_view(phone)["me"] for phone in scene.phones}
    dracula = next(p for p in scene.phones if sheets[p.seat]["dracula"])
    human = next(p for p in scene.phones if not sheets[p.seat]["dracula"])
    others = [p for p in scene.phones if p not in (dracula, human)]
    sent = {dracula.name: commands(dracula), human.name: commands(human)}
    shapes: dict[str, list[dict[str, Any]]] = {dracula.name: [], human.name: []}

    def glance() -> None:
        for phone in (dracula, human):
            shapes[phone.name].append(screen_shape(phone))

    phase(scene, "roles")
    everyone_ready(scene, scene.phones)
    phase(scene, "day", 1)
    everyone_ready(scene, scene.phones)

    for night in (1, 2):
        phase(scene, "dusk", night)
        glance()
        # Everyone goes to one room, where Dracula will have someone to bite: the boudoir, then
        # the torture room, where two players snoop on him and he is tortured.
        room = "boudoir" if night == 1 else "torture"
        for phone in scene.phones:
            tap(phone, f".d-room[data-room='{room}']")
        glance()
        shoot(human, artifacts / f"dracula-phone-dusk-{night}-human.png")
        shoot(dracula, artifacts / f"dracula-phone-dusk-{night}-vampire.png")
        for phone in scene.phones:
            send(phone, "#dracula-send-room")
        if night == 1:
            phase(scene, "dracula", 1)
            glance()
            with holding(dracula, "dracula-sight"):
                dracula.page.locator(".d-sight li").first.wait_for()
                assert dracula.page.locator(".d-sight li").count() == len(scene.phones) - 1
                dracula.page.screenshot(path=str(artifacts / "dracula-phone-night-1-sight.png"))
            with holding(human, "dracula-sight"):
                human.page.locator("#peek-dracula-sight p").wait_for()
                assert human.page.locator(".d-sight li").count() == 0, "a human sees nobody's room early"
            for phone in scene.phones:
                send(phone, "#dracula-send-room")
        phase(scene, "actions", night)
        glance()
        shoot(human, artifacts / f"dracula-phone-actions-{night}-human.png")
        shoot(dracula, artifacts / f"dracula-phone-actions-{night}-vampire.png")
        tap(human, "[data-kind='pass']" if night == 1 else "[data-kind='treasure']")
        tap(dracula, "[data-kind='bite']")
        tap(dracula, f"[data-for='bite'][data-seat='{others[night - 1].seat}']")
        for phone in (human, dracula):
            send(phone, "#dracula-send-action")
        for n, phone in enumerate(others):
            if night == 2 and n < 2:
                tap(phone, "[data-kind='snoop']")
                tap(phone, f"[data-for='target'][data-seat='{dracula.seat}']")
            else:
                tap(phone, "[data-kind='pass']")
            send(phone, "#dracula-send-action")
        if night == 2:
            phase(scene, "torture", night)
            glance()
            with holding(dracula, "dracula-torture"):
                dracula.page.locator("#peek-dracula-torture .d-torture").wait_for()
            send(human, "#dracula-disguise-false")
            send(dracula, "#dracula-disguise-true")
        phase(scene, "dawn", night)
        everyone_ready(scene, scene.phones)
        if night == 1:
            phase(scene, "day", 2)
            everyone_ready(scene, scene.phones)

    dracula.flush()
    human.flush()
    names = {name: [c["name"] for c in cmds] for name, cmds in sent.items()}
    assert names[human.name] == names[dracula.name], f"the requests differ: {names}"
    assert [c for c in names[human.name] if c in ("choose_room", "act")] == \
        ["choose_room", "choose_room", "act", "choose_room", "act"], names
    assert names[human.name][-2:] == ["disguise", "ready"], "tortured or not, each phone answers the torture step"
    assert shapes[human.name] == shapes[dracula.name], \
        f"the screens differ at a glance:\n{json.dumps(shapes, indent=1, ensure_ascii=False)}"
    steps = [s["step"] for s in shapes[human.name]]
    assert steps == [["1", "3"], ["1", "3"], ["2", "3"], ["3", "3"], ["1", "2"], ["1", "2"], ["2", "2"], None], steps
    for phone in scene.phones:
        assert phone.page.evaluate("() => window.__buzz") == [], f"{phone.name} made a sound or vibrated"
        assert not phone.errors, phone.errors


def text_of(phone: Screen) -> str:
    return str(phone.page.evaluate("() => document.body.innerText"))


def shown_while_held(phone: Screen, peek: str, words: list[str]) -> None:
    """`words` are nowhere on the page until the control `peek` is held, then shown, then gone."""
    assert not [w for w in words if w in text_of(phone)], f"{phone.name} shows {words} before {peek} is held"
    with holding(phone, peek):
        phone.page.locator(f"#peek-{peek}:not([hidden])").wait_for()
        assert [w for w in words if w in text_of(phone)] == words, f"{phone.name} holding {peek}: {text_of(phone)!r}"
    phone.page.locator(f"#peek-{peek}[hidden]").wait_for(state="attached")
    assert not [w for w in words if w in text_of(phone)], f"{phone.name} still shows {words} after release"


@pytest.mark.slow
def test_the_news_the_vote_the_letters_and_the_person_gms_console(scene: Scene, artifacts: Path) -> None:
    start(scene, gm="person")
    host = scene.host
    sheets = {phone.seat: own_view(phone)["me"] for phone in scene.phones}
    dracula = next(p for p in scene.phones if sheets[p.seat]["dracula"])
    humans = [p for p in scene.phones if p is not dracula]
    bitten, human = humans[0], humans[1]
    shown_while_held(human, "private", ["Your role: human."])
    shown_while_held(dracula, "private", ["Your role: vampire.", "You are Dracula"])

    phase(scene, "roles")
    everyone_ready(scene, scene.phones)
    phase(scene, "day", 1)
    everyone_ready(scene, scene.phones)
    phase(scene, "dusk", 1)
    for phone in scene.phones:
        tap(phone, ".d-room[data-room='jails']")
        send(phone, "#dracula-send-room")
    phase(scene, "dracula", 1)
    for phone in scene.phones:
        send(phone, "#dracula-send-room")
    phase(scene, "actions", 1)
    tap(dracula, "[data-kind='bite']")
    tap(dracula, f"[data-for='bite'][data-seat='{bitten.seat}']")
    send(dracula, "#dracula-send-action")
    for phone in humans:
        tap(phone, "[data-kind='treasure']")
        send(phone, "#dracula-send-action")

    # The person game master sees the night before anyone is told, and confirms it.
    phase(scene, "confirm", 1)
    host.page.locator("#dracula-pending").wait_for()
    grimoire = host.page.locator("#dracula-grimoire").inner_text()
    assert f"bites {bitten.page.locator('#who strong').inner_text()}" in grimoire, grimoire
    assert "Become vampires:" in grimoire
    shoot(host, artifacts / "dracula-host-confirm.png")
    assert "You were bitten" not in text_of(bitten), "nobody is told before the game master confirms"
    host.page.locator("#dracula-confirm_night").click()

    phase(scene, "dawn", 1)
    shown_while_held(bitten, "dracula-news", ["You were bitten tonight.", "You have become a vampire."])
    shown_while_held(human, "dracula-news", ["Nothing to tell you about tonight."])
    with holding(bitten, "dracula-news"):
        bitten.page.screenshot(path=str(artifacts / "dracula-phone-dawn-news.png"))
    everyone_ready(scene, scene.phones)

    # Day 2: the sanctuary vote, and a vampire's letter to a human.
    pic = phase(scene, "day", 2)
    assert pic["vote_today"]
    human.page.locator(f"#dracula-screen .d-candidate[data-seat='{dracula.seat}']").click()
    human.page.locator("#dracula-screen .d-wait", has_text="Your vote:").wait_for()
    for phone in scene.phones:
        phone.page.locator("#dracula-screen .d-ballots li").first.wait_for()
    shoot(human, artifacts / "dracula-phone-day-vote.png")

    secret = "Meet me in the ballroom"
    dracula.page.locator("#dracula-messages summary").click()
    dracula.page.select_option("#dracula-to", f"{human.seat}:message")
    dracula.page.locator("#dracula-text").fill(secret)
    dracula.page.locator("#dracula-send-letter").click()
    dracula.page.wait_for_function("() => document.getElementById('dracula-text').value === ''")
    human.page.wait_for_function("() => fetch('/api/view?as=me').then((r) => r.json())"
                                 ".then((v) => v.game.view.me.letters.length === 1)")
    human.page.locator("#dracula-messages summary").click()
    assert human.page.locator("#dracula-write").count() == 0, "a human may not write by day"
    shown_while_held(human, "dracula-letters", [secret])
    with holding(human, "dracula-letters"):
        human.page.screenshot(path=str(artifacts / "dracula-phone-inbox.png"))
    assert secret not in text_of(bitten), "a letter shows on its recipient's phone only"

    # The host runs the clock: paused on every phone, then running again.
    host.page.locator("#dracula-pause_clock").click()
    for phone in scene.phones:
        phone.page.locator(".d-paused").wait_for()
    shoot(host, artifacts / "dracula-host-day.png")
    host.page.locator("#dracula-resume_clock").click()
    for phone in scene.phones:
        phone.page.locator("#dracula-status .timer").wait_for()
    # The host ends the day: whoever did not vote cast no vote, and the host is told who.
    host.page.locator("#dracula-end_phase").click()
    phase(scene, "dusk", 2)
    late = host.page.locator("#dracula-timed-out").inner_text()
    for phone in scene.phones:
        name = phone.page.locator("#who strong").inner_text()
        assert (name in late) == (phone is not human), f"{name}: {late}"
    for phone in scene.phones:
        assert phone.page.evaluate("() => window.__buzz") == [], f"{phone.name} made a sound or vibrated"
        assert not phone.errors, phone.errors
    assert not host.errors, host.errors


def first_night_check(players: int = 4) -> Any:
    """A series on the pure rules at the first night's room check, with Dracula's dusk room made
    one where nobody else is (his own choice would leave him nobody to bite)."""
    found: list[Any] = []

    def keep(_before: Any, state: Any, _event: Any) -> None:
        if state.phase == "dracula" and not found:
            found.append(state)
    play_series(players, 0, watch=keep, patience=0.0)
    state = found[0]
    moved = tuple(replace(p, room="boudoir" if p.dracula else "ballroom") for p in state.players)
    return replace(state, players=moved)


def test_draculas_first_night_room_check_looks_like_everyones_even_with_nobody_to_bite(scene: Scene) -> None:
    state = first_night_check()
    phone = scene.phones[0]
    phone.page.set_viewport_size(PHONE_SIZE)
    shapes = {}
    for p in (state.player(state.dracula), next(p for p in state.players if not p.vampire)):
        viewer = seat_viewer(p.seat)
        actions = action_list(DRACULA, state, viewer)
        assert any(a["name"] == "choose_room" and not a["allowed"] for a in actions)
        draw_seat_view(phone, DRACULA.id, DRACULA.view(state, viewer), p.seat, actions)
        phone.page.locator("#dracula-screen #dracula-send-room").wait_for()
        shapes["dracula" if p.dracula else "human"] = screen_shape(phone)
    assert shapes["dracula"] == shapes["human"], shapes
    # Dracula taps it: told why, on his phone, and nothing is sent.
    phone.page.locator("#dracula-screen #dracula-send-room").click()
    phone.page.locator("#error:not([hidden])").wait_for()
    draw_seat_view(phone, DRACULA.id, DRACULA.view(state, seat_viewer(state.dracula)), state.dracula,
                   action_list(DRACULA, state, seat_viewer(state.dracula)))
    phone.page.locator("#dracula-screen .d-room[data-room='ballroom']").click()
    assert phone.page.locator("#dracula-screen #dracula-send-room").is_enabled(), "a room with someone to bite"
    assert not phone.errors, phone.errors


def night(scene: Scene, number: int, rooms: list[tuple[Screen, str]],
          acts: list[tuple[Screen, str, Screen | None]]) -> None:
    """Dusk, (the first night's room check), the actions and the dawn, each through its screens:
    `rooms` per phone, `acts` per phone (the kind, and the player it aims at)."""
    phase(scene, "dusk", number)
    for phone, room in rooms:
        tap(phone, f".d-room[data-room='{room}']")
        send(phone, "#dracula-send-room")
    if number == 1:
        phase(scene, "dracula", 1)
        for phone, _room in rooms:
            send(phone, "#dracula-send-room")
    phase(scene, "actions", number)
    for phone, kind, target in acts:
        tap(phone, f"[data-kind='{kind}']")
        if target is not None:
            tap(phone, f"[data-for='{'bite' if kind == 'bite' else 'target'}'][data-seat='{target.seat}']")
        send(phone, "#dracula-send-action")
    phase(scene, "dawn", number)
    everyone_ready(scene, scene.phones)


def write(phone: Screen, to: Screen, kind: str, text: str) -> None:
    """The phone's player writes from the Messages box (opened if it is not)."""
    if phone.page.locator("#dracula-messages[open]").count() == 0:
        phone.page.locator("#dracula-messages summary").click()
    phone.page.select_option("#dracula-to", f"{to.seat}:{kind}")
    phone.page.locator("#dracula-text").fill(text)
    phone.page.locator("#dracula-send-letter").click()
    # Sent: the form is emptied, or gone when it was the phone's one letter of the day.
    phone.page.wait_for_function("() => { const text = document.getElementById('dracula-text');"
                                 " return !text || text.value === ''; }")


def offered(phone: Screen) -> list[str]:
    if phone.page.locator("#dracula-messages[open]").count() == 0:
        phone.page.locator("#dracula-messages summary").click()
    return list(phone.page.eval_on_selector_all("#dracula-to option", "(os) => os.map((o) => o.value)"))


@pytest.mark.slow
def test_a_boudoir_letter_and_its_reply_and_waltz_partners_write_from_their_phones(
        scene: Scene, artifacts: Path) -> None:
    start(scene, sanctuary_capacity=0)
    sheets = {phone.seat: own_view(phone)["me"] for phone in scene.phones}
    dracula = next(p for p in scene.phones if sheets[p.seat]["dracula"])
    snooper, dancer, partner = [p for p in scene.phones if p is not dracula]
    phase(scene, "roles")
    everyone_ready(scene, scene.phones)
    phase(scene, "day", 1)
    everyone_ready(scene, scene.phones)
    night(scene, 1, [(snooper, "jails"), (dracula, "jails"), (dancer, "ballroom"), (partner, "ballroom")],
          [(dracula, "bite", snooper), (snooper, "pass", None), (dancer, "treasure", None),
           (partner, "treasure", None)])
    phase(scene, "day", 2)
    everyone_ready(scene, scene.phones)
    night(scene, 2, [(snooper, "boudoir"), (dracula, "boudoir"), (dancer, "ballroom"), (partner, "ballroom")],
          [(snooper, "snoop", None), (dracula, "pass", None), (dancer, "snoop", partner), (partner, "snoop", dancer)])
    phase(scene, "day", 3)

    # The waltz partners may write to each other, and to nobody else.
    assert offered(partner) == [f"{dancer.seat}:message"]
    write(partner, dancer, "message", "Shall we dance again?")
    # The boudoir's snooper sends its one letter, under the locked title; its recipient answers once.
    assert f"{dancer.seat}:boudoir_letter" in offered(snooper)
    write(snooper, dancer, "boudoir_letter", "I know how many of us there are")
    dancer.page.wait_for_function("() => fetch('/api/view?as=me').then((r) => r.json())"
                                  ".then((v) => v.game.view.me.letters.length === 2)")
    dancer.page.locator("#dracula-messages summary").click()
    shown_while_held(dancer, "dracula-letters", ["I know how many of us there are", "Shall we dance again?"])
    with holding(dancer, "dracula-letters"):
        titles = dancer.page.locator(".d-letter-title").all_inner_texts()
    assert titles == ["Boudoir letter"], "the boudoir letter under its locked title; the partner's has none"
    assert f"{snooper.seat}:boudoir_reply" in offered(dancer)
    write(dancer, snooper, "boudoir_reply", "Tell me")
    snooper.page.wait_for_function("() => fetch('/api/view?as=me').then((r) => r.json())"
                                   ".then((v) => v.game.view.me.letters.length === 2)")
    shown_while_held(snooper, "dracula-letters", ["Tell me"])
    with holding(snooper, "dracula-letters"):
        snooper.page.screenshot(path=str(artifacts / "dracula-phone-boudoir-reply.png"))
        titles = snooper.page.locator(".d-letter-title").all_inner_texts()
    assert titles == ["Boudoir letter", "Boudoir letter: the reply"], titles
    assert f"{snooper.seat}:boudoir_reply" not in offered(dancer), "one reply only"
    for phone in scene.phones:
        assert not phone.errors, phone.errors


def dusk_with_maps() -> tuple[Any, int, int]:
    """A dusk (night 3 or later) of a series on the pure rules where a human and a vampire hold a map."""
    found: list[tuple[Any, int, int]] = []

    def keep(_before: Any, state: Any, _event: Any) -> None:
        if found or state.phase != "dusk" or state.night < 3:
            return
        out = set(state.sanctuary)
        human = [p.seat for p in state.players if p.obj == "map" and not p.vampire and p.seat not in out]
        vampire = [p.seat for p in state.players if p.obj == "map" and p.vampire and p.seat not in out]
        if human and vampire:
            found.append((state, human[0], vampire[0]))
    for seed in range(40):
        play_series(13, seed, watch=keep, rounds=1)
        if found:
            return found[0]
    raise AssertionError("no dusk with a human's map and a vampire's in 40 series")


def sent_args(phone: Screen) -> Any:
    button = phone.page.locator("#dracula-screen #dracula-send-room")
    assert button.is_enabled(), phone.page.locator("#dracula-screen").inner_text()
    return json.loads(button.get_attribute("data-args") or "{}")


def test_a_map_on_the_dusk_screen_asks_what_the_rules_ask(scene: Scene) -> None:
    """A human's map: no room now (chosen once the others' are seen); a vampire's: a room, and a
    player and a room for the curse. Until the object is used, both screens are the others'."""
    state, human, vampire = dusk_with_maps()
    phone = scene.phones[0]
    phone.page.set_viewport_size(PHONE_SIZE)

    def draw(seat: int) -> None:
        viewer = seat_viewer(seat)
        draw_seat_view(phone, DRACULA.id, DRACULA.view(state, viewer), seat, action_list(DRACULA, state, viewer))
        phone.page.locator("#dracula-screen #dracula-use").wait_for()

    draw(human)
    before = screen_shape(phone)
    phone.page.locator("#dracula-use").click()
    assert phone.page.locator("#dracula-screen .d-room").count() == 0
    assert sent_args(phone) == {"room": None, "use": True}
    draw(vampire)
    assert screen_shape(phone) == before, "a vampire's dusk screen is a human's"
    phone.page.locator("#dracula-screen .d-room[data-room='ballroom']").click()
    phone.page.locator("#dracula-use").click()
    target = next(p.seat for p in state.players if p.seat != vampire)
    phone.page.locator(f"#dracula-screen .d-curse [data-seat='{target}']").click()
    phone.page.locator("#dracula-screen [data-curse-room='jails']").click()
    assert sent_args(phone) == {"room": "ballroom", "use": True, "curse_target": target, "curse_room": "jails"}
    assert not phone.errors, phone.errors


def test_the_round_and_the_podium_stay_on_the_phones_once_the_series_is_over(scene: Scene) -> None:
    """The series' end ends the game: the phones still show the last round and the podium."""
    state = play_series(4, 2, rounds=1).state
    assert state.phase == "over"
    phone = scene.phones[0]
    viewer = seat_viewer(1)
    phone.page.evaluate("""(picture) => {
      const current = JSON.parse(JSON.stringify(window.Companion.boot.view));
      const game = { ...(current.game || {}), game: "dracula", view: picture, actions: [], ended: true, undo: null };
      const view = { ...current, you: { ...current.you, seat: 1 }, game };
      window.Companion.games.dracula.seat(document.getElementById("game"), game, view);
    }""", DRACULA.view(state, viewer))
    phone.page.locator("#dracula-podium .d-places li").first.wait_for()
    assert phone.page.locator("#dracula-podium .d-places li").count() == 4, "every player on the podium"
    assert phone.page.locator("#dracula-podium .d-draculas li").count() == 1, "each round's Dracula"
    assert phone.page.locator("#dracula-round-end .d-revealed").count() == 1
    assert not phone.errors, phone.errors
