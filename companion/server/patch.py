"""The difference between two views of one viewer, so a stream sends only what changed.

A patch is a list of operations on paths of keys (and list indexes):
* `[path, value]` sets the value at `path` (null is a value, unlike in JSON merge patch);
* `[path]` deletes the key at `path`;
* `[path, index, count, items]` splices the list at `path`: removes `count` items at `index` and
  inserts `items` there, so a list that gained one roll and dropped its oldest costs two small
  operations instead of the whole list.
Pages apply it with the twin function in live.js; property tests check `apply(old, diff) == new`.
"""

from __future__ import annotations

import copy
import json
from typing import Any

Path = list[Any]
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


def _splices(old: list[Any], new: list[Any]) -> list[Op] | None:
    """At most two splices turning `old` into `new`, or None when replacing it whole is as good."""
    n_old, n_new = len(old), len(new)
    prefix = 0
    while prefix < min(n_old, n_new) and equal(old[prefix], new[prefix]):
        prefix += 1
    suffix = 0
    while suffix < min(n_old, n_new) - prefix and equal(old[n_old - 1 - suffix], new[n_new - 1 - suffix]):
        suffix += 1
    if prefix + suffix > 0:
        return [[[], prefix, n_old - prefix - suffix, new[prefix:n_new - suffix]]]
    # A window that slid: new items at the front and the oldest dropped at the end, or the reverse.
    if n_old and n_new:
        for shift in range(1, n_new):
            kept = min(n_old, n_new - shift)
            if kept and all(equal(new[shift + i], old[i]) for i in range(kept)):
                return [[[], 0, 0, new[:shift]], [[], n_new, n_old - kept, new[shift + kept:]]]
        for shift in range(1, n_old):
            kept = min(n_new, n_old - shift)
            if kept and all(equal(old[shift + i], new[i]) for i in range(kept)):
                return [[[], 0, shift, []], [[], kept, n_old - shift - kept, new[kept:]]]
    return None


def _prefixed(name: Any, ops: list[Op]) -> list[Op]:
    return [[[name, *op[0]], *op[1:]] for op in ops]


class SharedEncoder:
    """Patches and JSON text computed once and shared by every stream that sends the same change.

    Views share their unchanged parts (the same objects), so the difference of a shared part, and
    the text of a shared value, is the same for every screen: it is computed for the first screen
    and looked up by object identity for the others. Entries keep their objects alive, so an
    identity is never reused while it is a key; the memo is dropped whole when it grows.
    """

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._diffs: dict[tuple[int, int], tuple[Any, Any, list[Op]]] = {}
        self._texts: dict[int, tuple[Any, str]] = {}
        self._messages: dict[tuple[int, int], tuple[Any, Any, bytes | None]] = {}

    def diff(self, old: Any, new: Any) -> list[Op]:
        if isinstance(old, dict) and isinstance(new, dict):
            return self._dict_diff(old, new)
        if equal(old, new):
            return []
        if isinstance(old, list) and isinstance(new, list):
            splices = _splices(old, new)
            if splices is not None:
                return splices
        return [[[], new]]

    def _dict_diff(self, old: dict[str, Any], new: dict[str, Any]) -> list[Op]:
        key = (id(old), id(new))
        hit = self._diffs.get(key)
        if hit is not None and hit[0] is old and hit[1] is new:
            return hit[2]
        ops: list[Op] = []
        for name, value in new.items():
            if name not in old:
                ops.append([[name], value])
            elif old[name] is not value:
                ops.extend(_prefixed(name, self.diff(old[name], value)))
        ops.extend([[name]] for name in old if name not in new)
        if len(self._diffs) >= self._size:
            self._diffs.clear()
        self._diffs[key] = (old, new, ops)
        return ops

    def text(self, value: Any) -> str:
        """Compact JSON of a value; lists and dicts are remembered by identity."""
        if not isinstance(value, dict | list):
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        hit = self._texts.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if len(self._texts) >= self._size:
            self._texts.clear()
        self._texts[id(value)] = (value, text)
        return text

    def message(self, last: dict[str, Any] | None, current: dict[str, Any]) -> bytes | None:
        """The server-sent event taking a screen from `last` to `current` (None: nothing changed).

        Screens of one viewer share both views, so the finished bytes are shared too.
        """
        key = (id(last), id(current))
        hit = self._messages.get(key)
        if hit is not None and hit[0] is last and hit[1] is current:
            return hit[2]
        if last is None:
            message: bytes | None = f"id: {current['position']}\nevent: view\ndata: {self.text(current)}\n\n".encode()
        else:
            ops = [] if current is last else self.diff(last, current)
            text = f"id: {current['position']}\nevent: patch\ndata: {self.ops_text(ops)}\n\n"
            message = text.encode() if ops else None
        if len(self._messages) >= self._size:
            self._messages.clear()
        self._messages[key] = (last, current, message)
        return message

    def ops_text(self, ops: list[Op]) -> str:
        return "[" + ",".join(f"[{self.text(op[0])}{''.join(',' + self.text(x) for x in op[1:])}]" for op in ops) + "]"


def diff(old: Any, new: Any) -> list[Op]:
    """The patch from `old` to `new` (without sharing between calls)."""
    return SharedEncoder().diff(old, new)


def apply(document: Any, ops: list[Op], in_place: bool = False) -> Any:
    """The document after the operations. The input is left untouched, unless `in_place` says
    the document and the operations belong to the caller alone (a client applying fresh JSON)."""
    clone = (lambda value: value) if in_place else copy.deepcopy
    result = clone(document)
    for op in ops:
        path = op[0]
        if len(op) == 4:
            target = result
            for key in path:
                target = target[key]
            target[op[1]:op[1] + op[2]] = clone(op[3])
            continue
        if not path:
            result = clone(op[1]) if len(op) == 2 else None
            continue
        target = result
        for key in path[:-1]:
            target = target[key]
        if len(op) == 2:
            target[path[-1]] = clone(op[1])
        else:
            del target[path[-1]]
    return result
