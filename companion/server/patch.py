"""The difference between two views of one viewer, so a stream sends only what changed.

A patch is a list of operations on paths of keys: `[path, value]` sets, `[path]` deletes. Lists
are replaced whole. Unlike JSON merge patch, a value may be set to null. Pages apply it with the
twin function in live.js; a property test checks `apply(old, diff(old, new)) == new`.
"""

from __future__ import annotations

import copy
from typing import Any

Path = list[str]
Op = list[Any]


def equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: true is not 1, and 1.0 is not 1."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def diff(old: Any, new: Any, path: Path | None = None) -> list[Op]:
    path = path or []
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[Op] = []
        for key, value in new.items():
            if key not in old:
                ops.append([[*path, key], value])
            elif not equal(old[key], value):
                ops.extend(diff(old[key], value, [*path, key]))
        ops.extend([[*path, key]] for key in old if key not in new)
        return ops
    return [] if equal(old, new) else [[path, new]]


def apply(document: Any, ops: list[Op]) -> Any:
    """The document after the operations (the input is left untouched)."""
    result = copy.deepcopy(document)
    for op in ops:
        path = op[0]
        if not path:
            result = copy.deepcopy(op[1]) if len(op) == 2 else None
            continue
        target = result
        for key in path[:-1]:
            target = target[key]
        if len(op) == 2:
            target[path[-1]] = copy.deepcopy(op[1])
        else:
            del target[path[-1]]
    return result
