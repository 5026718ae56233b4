"""View patches: applying the difference of two views gives the new view, exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.server.patch import apply, diff, equal

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
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


def test_removed_keys_are_deleted_and_true_is_not_one() -> None:
    assert diff({"a": 1, "b": 2}, {"a": 1}) == [[["b"]]]
    assert diff({"a": 1}, {"a": True}) == [[["a"], True]]
