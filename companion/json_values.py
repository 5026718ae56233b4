"""JSON values compared as JSON sees them: two values are the same only if they print alike.

The patches (server/patch.py) tell values apart this way, and the views (table/views.py,
buzzers/hub.py) keep a part from one change to the next when it is alike (`kept`).
"""

from __future__ import annotations

import marshal
from typing import Any, TypeVar

T = TypeVar("T")


def equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: true is not 1, and 1.0 is not 1.

    Python's own comparison and marshal's bytes (which keep true, 1 and 1.0 apart; version 0
    writes no back-references, so equal values give equal bytes whoever shares what) answer most
    pairs in C; only values they cannot tell apart this way are walked here. A pair Python finds
    unequal may still print alike (a tuple and a list): it costs one needless operation, never a
    missed one.
    """
    if a is b:
        return True
    if a != b:
        return False
    try:
        if marshal.dumps(a, 0) == marshal.dumps(b, 0):
            return True
    except ValueError:
        pass  # a type marshal does not know: walk it
    return _walk_equal(a, b)


def _walk_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_walk_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_walk_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def kept(was: T | None, part: T) -> T:
    """`was` when it prints as `part` does, else `part`: a part a change left alike stays the
    object the screens had, which every screen's patch passes by identity and prints once."""
    return was if was is not None and equal(was, part) else part
