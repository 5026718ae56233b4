"""Dracula's private messages: every permission line of 6.9 (D-1, D-S1, D-S2, D-2, D-F6), allowed
and refused, and the limits on what a message may hold."""

from __future__ import annotations

import unicodedata
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dracula.letters import (
    KINDS,
    TEXT_MAX,
    TITLE_MAX,
    Letter,
    Post,
    recipients,
    text_problem,
    write_problem,
)

PLAYERS = frozenset(range(1, 14))
VAMPIRES = frozenset({1, 2})
DAY = Post("day", 3, PLAYERS, VAMPIRES, PLAYERS)
"""Day 3: 1 and 2 are vampires, everyone else is human, all alive, nobody waltzed or snooped."""


def sent(post: Post, *letters: tuple[int, int, str]) -> Post:
    return replace(post, letters=post.letters + tuple(Letter(s, r, k, post.number) for s, r, k in letters))


# --- day: vampires (D-1) --------------------------------------------------------------------------

@pytest.mark.parametrize("recipient", [3, 2, 13])
def test_by_day_a_vampire_writes_to_anyone(recipient: int) -> None:
    assert write_problem(DAY, 1, recipient, "message") is None


def test_by_day_a_vampire_writes_without_limit() -> None:
    busy = sent(DAY, *[(1, 3, "message")] * 20)
    assert write_problem(busy, 1, 3, "message") is None


def test_the_write_form_of_a_vampire_by_day_offers_every_other_player() -> None:
    assert recipients(DAY, 1) == [(r, "message") for r in sorted(PLAYERS - {1})]


# --- day: humans (D-1) ----------------------------------------------------------------------------

@pytest.mark.parametrize("recipient", [1, 4])
def test_by_day_a_human_cannot_write_not_even_to_answer_a_vampire(recipient: int) -> None:
    post = sent(DAY, (1, 3, "message"))
    assert write_problem(post, 3, recipient, "message") == "humans_cannot_write"
    assert recipients(post, 3) == []


# --- day: waltz partners (D-S1) -------------------------------------------------------------------

def test_waltz_partners_write_to_each_other_the_next_day() -> None:
    post = replace(DAY, waltzes=((3, 7),))
    assert write_problem(post, 3, 7, "message") is None
    assert write_problem(post, 7, 3, "message") is None
    assert recipients(post, 7) == [(3, "message")]


def test_a_waltz_partner_writes_to_nobody_else() -> None:
    post = replace(DAY, waltzes=((3, 7),))
    assert write_problem(post, 3, 8, "message") == "not_your_partner"
    assert write_problem(post, 3, 1, "message") == "not_your_partner"


def test_a_human_who_waltzed_with_a_vampire_may_write_to_that_partner() -> None:
    post = replace(DAY, waltzes=((2, 9),))
    assert write_problem(post, 9, 2, "message") is None
    assert write_problem(post, 9, 1, "message") == "not_your_partner"


# --- day: the boudoir letter (D-S2) ---------------------------------------------------------------

def test_a_boudoir_snooper_sends_one_letter_to_anyone() -> None:
    post = replace(DAY, boudoir_writers=frozenset({5}))
    assert write_problem(post, 5, 1, "boudoir_letter") is None
    assert write_problem(post, 5, 6, "boudoir_letter") is None
    assert recipients(post, 5) == [(r, "boudoir_letter") for r in sorted(PLAYERS - {5})]


def test_a_boudoir_snooper_sends_only_one_letter() -> None:
    post = sent(replace(DAY, boudoir_writers=frozenset({5})), (5, 6, "boudoir_letter"))
    assert write_problem(post, 5, 7, "boudoir_letter") == "letter_already_sent"
    assert write_problem(post, 5, 6, "boudoir_letter") == "letter_already_sent"
    assert recipients(post, 5) == []


def test_a_letter_of_an_earlier_day_does_not_use_up_todays() -> None:
    post = replace(DAY, boudoir_writers=frozenset({5}), letters=(Letter(5, 6, "boudoir_letter", 2),))
    assert write_problem(post, 5, 7, "boudoir_letter") is None


def test_nobody_else_may_use_the_boudoir_title() -> None:
    post = replace(DAY, boudoir_writers=frozenset({5}))
    assert write_problem(post, 6, 7, "boudoir_letter") == "boudoir_title_reserved"
    assert write_problem(post, 1, 7, "boudoir_letter") == "boudoir_title_reserved"


def test_the_boudoir_snooper_writes_no_ordinary_message() -> None:
    post = replace(DAY, boudoir_writers=frozenset({5}))
    assert write_problem(post, 5, 6, "message") == "humans_cannot_write"


@pytest.mark.parametrize("recipient", [6, 2])
def test_the_recipient_human_or_vampire_sends_one_reply(recipient: int) -> None:
    post = sent(replace(DAY, boudoir_writers=frozenset({5})), (5, recipient, "boudoir_letter"))
    assert write_problem(post, recipient, 5, "boudoir_reply") is None
    assert (5, "boudoir_reply") in recipients(post, recipient)
    replied = sent(post, (recipient, 5, "boudoir_reply"))
    assert write_problem(replied, recipient, 5, "boudoir_reply") == "reply_already_sent"


def test_the_reply_goes_only_to_the_letters_writer() -> None:
    post = sent(replace(DAY, boudoir_writers=frozenset({5})), (5, 6, "boudoir_letter"))
    assert write_problem(post, 6, 7, "boudoir_reply") == "no_letter_to_answer"
    assert write_problem(post, 6, 7, "message") == "humans_cannot_write"


def test_only_the_letters_recipient_may_reply() -> None:
    post = sent(replace(DAY, boudoir_writers=frozenset({5})), (5, 6, "boudoir_letter"))
    assert write_problem(post, 7, 5, "boudoir_reply") == "no_letter_to_answer"
    assert write_problem(post, 5, 6, "boudoir_reply") == "no_letter_to_answer"


def test_a_letter_of_yesterday_cannot_be_answered_today() -> None:
    post = replace(DAY, letters=(Letter(5, 6, "boudoir_letter", 2),))
    assert write_problem(post, 6, 5, "boudoir_reply") == "no_letter_to_answer"


def test_a_vampire_who_snooped_the_boudoir_may_send_its_letter_so_the_title_proves_nothing() -> None:
    post = replace(DAY, boudoir_writers=frozenset({2}))
    assert write_problem(post, 2, 6, "boudoir_letter") is None
    assert recipients(post, 2).count((6, "boudoir_letter")) == 1


# --- dusk and night (D-2) -------------------------------------------------------------------------

@pytest.mark.parametrize("phase", ["dusk", "night", "positions", "actions", "dawn"])
def test_at_dusk_and_at_night_nobody_writes(phase: str) -> None:
    post = sent(replace(DAY, phase=phase, waltzes=((3, 7),), boudoir_writers=frozenset({5})),
                (4, 6, "boudoir_letter"))
    assert write_problem(post, 1, 3, "message") == "no_messages_now"
    assert write_problem(post, 3, 7, "message") == "no_messages_now"
    assert write_problem(post, 5, 8, "boudoir_letter") == "no_messages_now"
    assert write_problem(post, 6, 4, "boudoir_reply") == "no_messages_now"
    assert all(recipients(post, seat) == [] for seat in PLAYERS)


# --- final phase (D-F6) ---------------------------------------------------------------------------

FINAL = Post("final", 5, PLAYERS, VAMPIRES, PLAYERS, fled=frozenset({8}))


@pytest.mark.parametrize("recipient", [2, 3, 8])
def test_in_the_final_phase_living_vampires_write_to_anyone(recipient: int) -> None:
    assert write_problem(FINAL, 1, recipient, "message") is None


def test_in_the_final_phase_humans_cannot_write() -> None:
    post = replace(FINAL, waltzes=((3, 7),), boudoir_writers=frozenset({3}))
    assert write_problem(post, 3, 7, "message") == "humans_cannot_write"
    assert recipients(post, 3) == []


def test_in_the_final_phase_fled_humans_and_dead_vampires_are_muted() -> None:
    post = replace(FINAL, living=PLAYERS - {2})
    assert write_problem(post, 8, 1, "message") == "muted"
    assert write_problem(post, 2, 1, "message") == "muted"
    assert recipients(post, 2) == []


def test_the_boudoir_title_is_not_for_the_final_phase() -> None:
    assert write_problem(FINAL, 1, 3, "boudoir_letter") == "boudoir_title_reserved"


# --- malformed requests ---------------------------------------------------------------------------

@pytest.mark.parametrize(("sender", "recipient", "kind", "code"), [
    (1, 1, "message", "cannot_write_to_yourself"),
    (1, 14, "message", "no_such_player"),
    (0, 3, "message", "no_such_player"),
    (1, 3, "telegram", "unknown_kind"),
])
def test_malformed_requests_are_refused(sender: int, recipient: int, kind: str, code: str) -> None:
    assert write_problem(DAY, sender, recipient, kind) == code


# --- the permission table, checked against an independent reading --------------------------------

def rule_allows(post: Post, s: int, r: int, kind: str) -> bool:
    """6.9 read line by line, written apart from letters.py."""
    if s == r or s not in post.living or s in post.fled:
        return False
    if post.phase == "final":
        return s in post.vampires and kind == "message"
    if post.phase != "day":
        return False
    today = [lt for lt in post.letters if lt.day == post.number]
    if kind == "message":
        return s in post.vampires or (s, r) in post.waltzes or (r, s) in post.waltzes
    if kind == "boudoir_letter":
        return s in post.boudoir_writers and not any(lt.sender == s and lt.kind == kind for lt in today)
    got = any(lt.sender == r and lt.recipient == s and lt.kind == "boudoir_letter" for lt in today)
    answered = any(lt.sender == s and lt.recipient == r and lt.kind == kind for lt in today)
    return got and not answered


SEATS = list(range(1, 7))


@st.composite
def posts(draw: st.DrawFn) -> Post:
    players = frozenset(SEATS)
    number = draw(st.integers(2, 5))
    pairs = draw(st.lists(st.tuples(st.sampled_from(SEATS), st.sampled_from(SEATS)).filter(lambda p: p[0] != p[1]),
                          max_size=2))
    letters = draw(st.lists(st.builds(Letter, st.sampled_from(SEATS), st.sampled_from(SEATS),
                                      st.sampled_from(KINDS), st.integers(number - 1, number)), max_size=6))
    return Post(draw(st.sampled_from(["day", "dusk", "night", "final", "dawn"])), number, players,
                draw(st.frozensets(st.sampled_from(SEATS))), draw(st.frozensets(st.sampled_from(SEATS))),
                draw(st.frozensets(st.sampled_from(SEATS))), tuple(pairs),
                draw(st.frozensets(st.sampled_from(SEATS))), tuple(letters))


@settings(max_examples=300, deadline=None)
@given(posts())
def test_every_permission_follows_the_rules_and_the_form_offers_exactly_those(post: Post) -> None:
    for s in SEATS:
        offered = recipients(post, s)
        for r in SEATS:
            for kind in KINDS:
                allowed = write_problem(post, s, r, kind) is None
                assert allowed == rule_allows(post, s, r, kind), (s, r, kind)
                assert ((r, kind) in offered) == allowed


# --- what a message may hold ----------------------------------------------------------------------

def test_a_message_needs_text_within_its_limits() -> None:
    assert text_problem("", "Meet me in the ballroom.") is None
    assert text_problem("Ce soir", "Rendez-vous\nau boudoir.") is None
    assert text_problem("", "") == "empty_text"
    assert text_problem("Hi", " \n\t") == "empty_text"
    assert text_problem("", "x" * TEXT_MAX) is None
    assert text_problem("", "x" * (TEXT_MAX + 1)) == "text_too_long"
    assert text_problem("t" * TITLE_MAX, "x") is None
    assert text_problem("t" * (TITLE_MAX + 1), "x") == "title_too_long"


@pytest.mark.parametrize(("title", "text"), [
    ("two\nlines", "x"), ("bell\x07", "x"), ("", "nul\x00"), ("", "escape \x1b[2J"), ("", "back\rline"),
    ("\u202eriovuob ud ertteL", "x"), ("", "mirror\u2067"),
])
def test_control_characters_are_refused(title: str, text: str) -> None:
    assert text_problem(title, text) == "control_characters"


def test_the_refused_characters_are_unicodes_controls_surrogates_and_direction_marks() -> None:
    bidi = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
    for code in range(0x10000):
        ch = chr(code)
        unsafe = unicodedata.category(ch) in ("Cc", "Cs") or ch in bidi
        assert (text_problem("", f"x{ch}") == "control_characters") == (unsafe and ch != "\n"), hex(code)
        assert (text_problem(f"t{ch}", "x") == "control_characters") == unsafe, hex(code)


@pytest.mark.parametrize("title", ["Lettre du boudoir", "« LETTRE DU BOUDOIR »", "lettre  du   boudoir !",
                                   "Boudoir letter", "Re: Lettre du Boudoir", "lettre_du_boudoir"])
def test_an_ordinary_message_cannot_take_the_boudoir_title(title: str) -> None:
    assert text_problem(title, "x") == "boudoir_title_reserved"


def test_titles_near_the_boudoirs_are_free() -> None:
    assert text_problem("Le boudoir", "x") is None
    assert text_problem("Une lettre", "x") is None


def test_a_boudoir_letter_and_its_reply_carry_only_the_locked_title() -> None:
    assert text_problem("", "Who are you?", "boudoir_letter") is None
    assert text_problem("", "A friend.", "boudoir_reply") is None
    assert text_problem("Secret", "x", "boudoir_letter") == "title_locked"
