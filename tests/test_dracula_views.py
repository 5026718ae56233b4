"""What each screen of Dracula shows (the 6.5 matrix, 6.9 "keep hidden"): a scripted round with
every kind of secret, watched after every event on every screen, and the lines of the matrix a
leak test cannot see by itself (what is public and when, what the phones show alike)."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games.base import HOST, TABLE, seat
from companion.games.dracula import DRACULA as GAME
from tests.support.dracula_rules import (
    Rigged,
    actions,
    all_ready,
    dusk,
    give,
    me,
    new_series,
    news,
    night,
    ok,
    play,
    quiet,
    send,
    through_day,
    to_phase,
    view,
    watching,
)
from tests.support.leak import SecretWatch, serialized

D = 5


def eventful_round(gm: str = "companion") -> Any:
    """A round with every kind of secret: a vampire's letter, night 1's bite, a sanctuary vote, a
    waltz, a boudoir count, its letter and reply, a treasure, the objects, two human maps, a
    vampire's curse, garlic, a candle, Dracula tortured passing for human, a fight that burns him,
    and the next round's deal."""
    state = all_ready(new_series(13, dracula=D, rounds=2, gm=gm))
    state = play(state, D, "write", to=8, text="letter one")
    state = through_day(state)
    state = night(state, rooms={D: "ballroom", 6: "ballroom"}, acts={D: {"bite": 6}})
    state = all_ready(state)
    state = through_day(state, {1: 10, 2: 10, 3: 11, 4: 11})
    state = night(state, rooms={1: "ballroom", 2: "ballroom", D: "jails", 4: "jails", 12: state.treasure_rooms[0]},
                  acts={1: {"snoop": True, "target": 2}, 2: {"snoop": True, "target": 1}, 3: {"snoop": True},
                        D: {"bite": 4}, 12: {"treasure": True}})
    state = give(state, {1: "candle", 7: "map", 8: "map", 9: "garlic", 6: "map", 2: None, 3: None, 4: None})
    state = all_ready(state)
    state = play(state, 1, "write", to=2, text="letter two")
    state = play(state, 3, "write", to=7, text="letter three", kind="boudoir_letter")
    state = play(state, 7, "write", to=3, text="letter four", kind="boudoir_reply")
    state = through_day(state)
    state = play(state, 7, "choose_room", room=None, use=True)
    state = play(state, 8, "choose_room", room=None, use=True)
    state = play(state, 6, "choose_room", room="boudoir", use=True, curse_target=D, curse_room="torture")
    state = dusk(state, {1: {"room": "torture", "use": True}, 2: "torture", 3: "torture", D: "jails",
                         9: {"room": "jails", "use": True}, 4: "jails"})
    assert state.phase == "maps"
    state = play(state, 7, "choose_room", room="ballroom")
    state = play(state, 8, "choose_room", room="torture")
    state = actions(state, {2: {"snoop": True, "target": D}, 3: {"snoop": True, "target": D}, 4: {"bite": 9}})
    assert state.phase == "torture"
    state = play(state, D, "disguise", human=True)
    if state.phase == "confirm":
        state = play(state, HOST, "confirm_night")
    state = to_phase(state, "final_choice", 5)
    for s in sorted(GAME.awaited(state)):
        state = play(state, s, "stance", stance="fight" if s == 1 else "flee")
    state = play(state, 1, "name_vampire", vampire=D)
    assert state.phase == "round_over"
    state = ok_next_round(state)
    return to_phase(state, "dusk", 1)


def ok_next_round(state: Any) -> Any:
    """The next round, whose draws (its seal's salt) differ from the first round's."""
    return ok(send(state, HOST, "next_round", rng=Rigged({1: D, 2: 9}, seed=2)))


@pytest.mark.parametrize("gm", ["companion", "person"])
def test_every_secret_of_a_round_reaches_only_the_screens_the_rules_name(gm: str) -> None:
    with watching(SecretWatch(GAME)) as watch:
        eventful_round(gm)
    assert isinstance(watch, SecretWatch)
    assert watch.leaks == []
    # The check saw each kind of secret on its owner's phone (it is not vacuous).
    kinds = {"role", "dracula", "object", "choice", "room", "action", "news", "torture", "named", "letter"}
    assert kinds <= set(watch.owned), kinds - set(watch.owned)


def test_the_grimoire_is_on_a_person_gms_console_only() -> None:
    state = to_phase(new_series(13, dracula=D, gm="person"), "dusk", 1)
    assert "grimoire" in view(state, HOST)
    state = to_phase(new_series(13, dracula=D), "dusk", 1)
    assert all("grimoire" not in view(state, v) for v in (HOST, TABLE, seat(D)))


def test_the_rooms_are_secret_until_the_positions_are_posted() -> None:
    state = to_phase(new_series(13, dracula=D), "dusk", 2)
    state = play(state, 1, "choose_room", room="torture")
    assert me(state, 1)["choice"]["room"] == "torture"
    assert "torture" not in serialized(view(state, 2)["players"]) and view(state, TABLE)["positions"] is None
    assert me(state, 2)["choice"] is None
    state = dusk(state)
    assert view(state, TABLE)["positions"]["1"] == "torture"


def test_who_has_answered_is_public_but_not_in_the_steps_where_it_would_tell_a_secret() -> None:
    state = to_phase(new_series(13, dracula=D), "dusk", 1)
    state = play(state, 1, "choose_room", room="jails")
    answered = {p["seat"]: p["answered"] for p in view(state, TABLE)["players"]}
    assert answered[1] is True and answered[2] is False
    state = dusk(state)
    assert state.phase == "dracula"
    assert all(p["answered"] is None for p in view(state, TABLE)["players"]), "whose answer counts is Dracula's"


def test_points_stay_hidden_until_the_round_ends() -> None:
    state = to_phase(new_series(13, dracula=D), "dawn", 1)
    assert state.player(D).halves == 2
    for viewer in (TABLE, HOST, seat(D)):
        shown = view(state, viewer)
        assert all(p["total"] == 0 for p in shown["players"])
        assert "halves" not in serialized(shown) and "points" not in serialized(shown)
    state = to_phase(state, "round_over")
    assert {p["seat"]: p["total"] for p in view(state, TABLE)["players"]}[D] == 1.0


def test_dracula_is_named_to_the_table_only_when_the_round_ends() -> None:
    state = to_phase(new_series(13, dracula=D), "final_choice", 5)
    assert view(state, TABLE)["rounds_done"] == []
    assert all(not me(state, s)["dracula"] for s in range(1, 14) if s != D)
    state = to_phase(state, "round_over")
    assert view(state, TABLE)["rounds_done"][0]["dracula"] == D


def test_the_public_list_of_happenings_carries_no_night_secret() -> None:
    state = to_phase(new_series(13, dracula=D), "dusk", 1)
    state = night(state, rooms={D: "ballroom", 6: "ballroom"}, acts={D: {"bite": 6}})
    resolved = [h for h in view(state, TABLE)["happenings"] if h["kind"] == "night_resolved"]
    assert resolved == [{"kind": "night_resolved", "night": 1, "treasure_rooms": ["jails", "torture"]}]
    dealt = [h for h in view(state, TABLE)["happenings"] if h["kind"] == "round_dealt"]
    assert all(set(h) == {"kind", "round", "commitment"} for h in dealt)


def test_a_human_and_a_vampire_get_the_same_sheet_at_every_step() -> None:
    """No tells from the phone: the same keys on a human's and a vampire's sheet (Dracula's own
    token and his night-1 sight aside), so both screens show the same steps."""
    state = new_series(13, dracula=D)

    def alike(s: Any) -> Any:
        human = min(s.humans())
        vampire = next((v for v in sorted(s.vampires()) if v != D), None)
        if vampire is not None:
            assert set(me(s, human)) == set(me(s, vampire)), s.phase
        # Dracula's phone alone has his token, and the rooms he sees on night 1.
        assert set(me(s, human)) == set(me(s, D)) - {"dracula_token", "sight"}, s.phase
        return quiet(s)

    to_phase(state, "round_over", step=alike)


def test_the_dawn_news_is_on_each_players_own_phone() -> None:
    state = to_phase(new_series(13, dracula=D), "dusk", 1)
    state = night(state, rooms={D: "ballroom", 6: "ballroom"}, acts={D: {"bite": 6}})
    assert news(state, 6)[-1] == {"kind": "converted"}
    for s in range(1, 14):
        if s not in (D, 6):
            assert "bitten" not in serialized(view(state, s)) and "converted" not in serialized(view(state, s))
