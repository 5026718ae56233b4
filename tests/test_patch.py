"""View patches: applying the difference of two views gives the new view, exactly."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.base import Command, Viewer
from companion.server.patch import SharedEncoder, apply, diff, equal
from tests.support.web import Web

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from([0.0, 1.0, -2.5, 1e300]) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abcde"), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=500, deadline=None)
@given(json_values, json_values)
def test_applying_the_difference_gives_the_new_view(old, new) -> None:
    ops = diff(old, new)
    assert equal(apply(old, ops), new)


def test_a_patch_names_only_what_changed() -> None:
    old = {"position": 7, "catalogue": {"d6": [1, 2, 3, 4, 5, 6]}, "last": {"total": 5, "by": "table"}}
    new = {"position": 8, "catalogue": old["catalogue"], "last": {"total": None, "by": "table"}}
    assert diff(old, new) == [[["position"], 8], [["last", "total"], None]]
    assert diff(new, new) == []


def test_a_sliding_window_of_rolls_costs_two_small_splices() -> None:
    rolls = [{"number": n} for n in range(12, 0, -1)]
    newer = [{"number": 13}, *rolls[:-1]]
    ops = diff({"recent": rolls}, {"recent": newer})
    assert ops == [[["recent"], 0, 0, [{"number": 13}]], [["recent"], 12, 1, []]]
    assert apply({"recent": rolls}, ops) == {"recent": newer}
    oldest_first = list(reversed(rolls))
    shifted = [*oldest_first[1:], {"number": 13}]
    assert apply(oldest_first, diff(oldest_first, shifted)) == shifted
    assert len(diff(oldest_first, shifted)) == 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=8), st.lists(st.integers(0, 3), max_size=8))
def test_list_changes_of_any_shape_patch_exactly(old, new) -> None:
    assert apply({"l": old}, diff({"l": old}, {"l": new})) == {"l": new}
    assert apply(old, diff(old, new)) == new


def test_removed_keys_are_deleted_and_true_is_not_one() -> None:
    assert diff({"a": 1, "b": 2}, {"a": 1}) == [[["b"]]]
    assert diff({"a": 1}, {"a": True}) == [[["a"], True]]


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_the_shared_encoder_gives_the_same_patches_and_text(old, new) -> None:
    encoder = SharedEncoder()
    ops = encoder.diff(old, new)
    assert equal(apply(old, ops), new)
    compact = {"separators": (",", ":"), "ensure_ascii": False}
    assert encoder.ops_text(ops) == json.dumps(ops, **compact)
    assert encoder.text(new) == json.dumps(new, **compact)
    assert encoder.text({"view": new, "old": old}) == json.dumps({"view": new, "old": old}, **compact)


def test_equal_tells_what_json_tells_apart_however_deep() -> None:
    assert not equal([1], [True]) and not equal({"a": [1.0]}, {"a": [1]}) and not equal({"a": 0}, {"a": False})
    assert equal({"a": 1, "b": [2.5, None]}, {"b": [2.5, None], "a": 1}), "key order is no difference"
    shared = "x" * 40
    assert equal([shared, shared], ["x" * 40, "x" * 40]), "whether a value is shared is no difference"


def test_shared_parts_are_diffed_and_encoded_once() -> None:
    encoder = SharedEncoder()
    shared_old, shared_new = {"recent": [1, 2]}, {"recent": [3, 1]}
    first = encoder.diff({"you": 1, "game": shared_old}, {"you": 1, "game": shared_new})
    second = encoder.diff({"you": 2, "game": shared_old}, {"you": 2, "game": shared_new})
    assert first == second == [[["game", "recent"], 0, 0, [3]], [["game", "recent"], 2, 1, []]]
    assert encoder.diff(shared_old, shared_new) is encoder.diff(shared_old, shared_new)
    value = [{"a": 1}]
    assert encoder.text(value) is encoder.text(value)


def test_screens_whose_own_parts_a_change_left_alike_get_one_message(web: Web) -> None:
    """After a roll at a full table of phones, those that did not roll are sent the same bytes,
    made once; the one that rolled is told its own news (it may no longer undo) in a message of
    its own. Each message still takes its screen exactly to its view."""
    table = web.service.table
    seats = range(1, table.state.seat_count + 1)
    for seat in seats:
        web.join(seat, f"P{seat}")
    viewers = [Viewer("seat", seat) for seat in seats]
    encoder = SharedEncoder()
    before = [table.view(viewer) for viewer in viewers]
    table.handle(viewers[0], Command("roll"))
    after = [table.view(viewer) for viewer in viewers]
    messages = [encoder.message(old, new) for old, new in zip(before, after, strict=True)]
    assert len(messages) >= 4
    assert all(new["table"] is old["table"] for old, new in zip(before, after, strict=True)), \
        "the seats, which a roll leaves alike, are the very part the screens had: no screen compares them again"
    assert all(message is messages[1] for message in messages[2:]), "one message for those who did not roll"
    for old, new, message in zip(before, after, messages, strict=True):
        assert message is not None
        ops = json.loads(message.decode().split("data: ", 1)[1])
        assert apply(old, ops) == new
        assert not any(op[0][0] in ("you", "buttons") for op in ops), "a roll leaves a phone's own parts alike"


screens_views = st.tuples(
    st.lists(json_values, min_size=1, max_size=4),  # the parts the views may share (the same objects)
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2),
                       st.dictionaries(st.sampled_from("xyz"), st.integers(0, 3) | st.booleans() | json_values,
                                       max_size=3),
                       st.dictionaries(st.sampled_from("xyz"), st.integers(0, 3) | st.booleans() | json_values,
                                       max_size=3)),
             min_size=1, max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(screens_views)
def test_every_screen_of_a_change_gets_the_patch_to_its_own_view(views) -> None:
    """Screens whose views share parts (the same objects) and differ in their own scalars and
    parts, all sent by one encoder: however the sharing goes, each is taken exactly to its view
    (a 0 that became 1 on one screen and a false that became true on another are told apart)."""
    shared, screens = views
    encoder = SharedEncoder()
    for old_part, new_part, old_own, new_own in screens:
        old = {"position": 4, "game": shared[old_part % len(shared)], **old_own}
        new = {"position": 5, "game": shared[new_part % len(shared)], **new_own}
        message = encoder.message(old, new)
        if message is None:
            assert equal(old, new)
            continue
        ops = json.loads(message.decode().split("data: ", 1)[1])
        assert equal(apply(old, ops), new)


def test_screens_whose_views_moved_alike_share_the_bytes_made_once() -> None:
    encoder = SharedEncoder()
    game_old, game_new = {"rolls": [3, 4]}, {"rolls": [6, 3, 4]}
    seats = [{"seat": n} for n in range(1, 4)]
    olds = [{"position": 8, "game": game_old, "you": you} for you in seats]
    news = [{"position": 9, "game": game_new, "you": you} for you in seats]
    messages = [encoder.message(old, new) for old, new in zip(olds, news, strict=True)]
    assert messages[0] is messages[1] is messages[2], "one patch, made once, for every screen that moved alike"
    flag = encoder.message({"position": 9, "flag": 0}, {"position": 10, "flag": 1})
    other = encoder.message({"position": 9, "flag": False}, {"position": 10, "flag": True})
    assert flag != other, "1 and true print apart"
