"""Dracula's private messages: who may write to whom, now (6.9 "Message permissions", D-1, D-S1,
D-S2, D-F6), and what a message may hold.

The phones are the inboxes; the server asks `write_problem` before it records any message, so a
forged request is refused whatever the phone showed. `recipients` is what the phone's "write" form
offers, built from `write_problem` itself so the two can never disagree.

Readings decided here (the rules leave them open):
* The boudoir letter belongs to whoever snooped the boudoir, human or vampire, and its reply to
  whoever received it, human or vampire. If only humans could use the boudoir kinds, a boudoir
  letter or reply would prove its sender human, a tell the original does not have.
* A vampire's ordinary messages are always kind "message" (a vampire may write to anyone by day
  anyway); only the boudoir kinds carry the locked title.
* Final phase: a living vampire may write to any other player, living or not, fled or not: roles
  are public by then, so a message reveals nothing, and refusing a recipient would protect nobody.
  Humans may not write; dead vampires and fled humans are muted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

KINDS = ("message", "boudoir_letter", "boudoir_reply")
BOUDOIR_KINDS = ("boudoir_letter", "boudoir_reply")
OPEN_PHASES = ("day", "final")
"""D-2: from dusk through the night, no player writes to another; only the day and the final phase."""
TEXT_MAX = 500
TITLE_MAX = 60
RESERVED_TITLES = ("lettre du boudoir", "boudoir letter")
"""D-S2: "les joueurs n'ont pas le droit d'intituler leur MP ainsi", in either of our languages."""
_LINE_BREAK = "\n"
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
"""Invisible direction marks that could make a title or a name read as something else."""
_CONTROLS = "\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff"
"""Unicode's control characters (Cc) and surrogates (Cs), which no character joins nor leaves
(the standard's stability policy), the line break aside."""
_UNSAFE_IN_TEXT = re.compile(f"[{_CONTROLS}{''.join(sorted(_BIDI_CONTROLS))}]")
_UNSAFE_IN_TITLE = re.compile(f"[{_LINE_BREAK}{_CONTROLS}{''.join(sorted(_BIDI_CONTROLS))}]")
"""What `text_problem` refuses, found in one search of the text rather than a look at each
character's category."""


class Sent(Protocol):
    """A private message already sent this round, as the permissions read it (the state's own
    letters are read as they are, with no copy made for every look at the post)."""

    @property
    def sender(self) -> int: ...
    @property
    def recipient(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def day(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Letter:
    """A private message already sent this round (its text is not needed to judge permissions)."""

    sender: int
    recipient: int
    kind: str
    day: int


@dataclass(frozen=True, slots=True)
class Post:
    """What the permissions depend on, as the state machine sees it now."""

    phase: str
    """"day", "dusk", "night", "final", or another phase name (closed)."""
    number: int
    """The day's number: the letters and the rights of this day only count."""
    players: frozenset[int]
    vampires: frozenset[int]
    living: frozenset[int]
    fled: frozenset[int] = frozenset()
    waltzes: tuple[tuple[int, int], ...] = ()
    """Waltz partners of last night, who may write to each other this day (D-S1)."""
    boudoir_writers: frozenset[int] = frozenset()
    """Who snooped the boudoir last night, and may send one boudoir letter this day (D-S2)."""
    letters: tuple[Sent, ...] = ()
    """This round's letters so far."""

    def partners(self, seat: int) -> frozenset[int]:
        """Whom `seat` waltzed with last night (a waltz binds both partners alike)."""
        return frozenset(b if a == seat else a for a, b in self.waltzes if seat in (a, b))

    def today(self) -> Iterable[Sent]:
        """This day's letters: a right to write or to answer lasts one day only."""
        return (letter for letter in self.letters if letter.day == self.number)


def _common_problem(post: Post, sender: int, recipient: int, kind: str) -> str | None:
    if sender not in post.players or recipient not in post.players:
        return "no_such_player"
    if kind not in KINDS:
        return "unknown_kind"
    if sender == recipient:
        return "cannot_write_to_yourself"
    if not writing_time(post.phase):
        return "no_messages_now"
    if sender not in post.living or sender in post.fled:
        return "muted"
    return None


def _boudoir_problem(post: Post, sender: int, recipient: int, kind: str) -> str | None:
    """D-S2: one letter from last night's boudoir snooper, one reply from its recipient, this day."""
    if kind == "boudoir_letter":
        if sender not in post.boudoir_writers:
            return "boudoir_title_reserved"
        if any(lt.sender == sender and lt.kind == "boudoir_letter" for lt in post.today()):
            return "letter_already_sent"
        return None
    received = [lt for lt in post.today()
                if lt.kind == "boudoir_letter" and lt.sender == recipient and lt.recipient == sender]
    if not received:
        return "no_letter_to_answer"
    if any(lt.kind == "boudoir_reply" and lt.sender == sender and lt.recipient == recipient for lt in post.today()):
        return "reply_already_sent"
    return None


def write_problem(post: Post, sender: int, recipient: int, kind: str) -> str | None:
    """Why `sender` may not send `recipient` a message of `kind` now, as a stable code, or None."""
    problem = _common_problem(post, sender, recipient, kind)
    if problem is not None:
        return problem
    if post.phase == "final":
        if sender not in post.vampires:
            return "humans_cannot_write"
        return "boudoir_title_reserved" if kind in BOUDOIR_KINDS else None
    if kind in BOUDOIR_KINDS:
        return _boudoir_problem(post, sender, recipient, kind)
    if sender in post.vampires:
        return None
    partners = post.partners(sender)
    if not partners:
        return "humans_cannot_write"
    return None if recipient in partners else "not_your_partner"


def recipients(post: Post, sender: int) -> list[tuple[int, str]]:
    """What `sender`'s write form offers now: every (recipient, kind) that write_problem allows."""
    if silenced(post, sender):
        return []
    return [(recipient, kind) for recipient in sorted(post.players) for kind in KINDS
            if write_problem(post, sender, recipient, kind) is None]


def silenced(post: Post, sender: int) -> bool:
    """`sender` may write to nobody now, whatever the message: write_problem refuses every one of
    their messages. Most of a round passes so: the night, a muted player, a human in the final
    phase, a human by day who waltzed with nobody, snooped no boudoir and has no boudoir letter to
    answer. (False says only that write_problem must be asked.)"""
    if sender not in post.players or not writing_time(post.phase) or sender not in post.living or \
            sender in post.fled:
        return True
    if sender in post.vampires:
        return False
    if post.phase == "final":
        return True
    return not post.partners(sender) and sender not in post.boudoir_writers and \
        not any(lt.kind == "boudoir_letter" and lt.recipient == sender for lt in post.today())


def writing_time(phase: str) -> bool:
    """D-2: players write to each other by day and in the final phase, never from dusk to dawn."""
    return phase in OPEN_PHASES


def _reserved(title: str) -> bool:
    """A title that reads as the boudoir's, whatever its case, accents, spacing or punctuation."""
    if not title:
        return False  # most messages have no title: nothing to normalise
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", title.casefold()) if not unicodedata.combining(ch))
    words = " ".join(re.findall(r"[^\W_]+", plain))
    return any(reserved in words for reserved in RESERVED_TITLES)


def text_problem(title: str, text: str, kind: str = "message") -> str | None:
    """Why this title and text cannot be sent, as a stable code, or None. The text is required and
    may hold line breaks; a title is one line. A boudoir letter or reply carries the locked title,
    which the phones show in their own language, so it takes no title of its own; nobody else may
    give a message a title that reads as the boudoir's (D-S2)."""
    if not text.strip():
        return "empty_text"
    if len(text) > TEXT_MAX:
        return "text_too_long"
    if len(title) > TITLE_MAX:
        return "title_too_long"
    if _UNSAFE_IN_TITLE.search(title) or _UNSAFE_IN_TEXT.search(text):
        return "control_characters"
    if kind in BOUDOIR_KINDS:
        return "title_locked" if title.strip() else None
    return "boudoir_title_reserved" if _reserved(title) else None
