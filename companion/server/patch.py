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
import math
from json.encoder import encode_basestring as _string_text
from typing import Any, Generic, TypeVar

from companion.json_values import equal

Path = list[Any]
K = TypeVar("K")
V = TypeVar("V")
Op = list[Any]

SCALARS = (str, int, float, bool, type(None))

_ABSENT: Any = object()
"""A dict's entry that is not there (one side of an added or a deleted key)."""

COMPOSED_DEPTH = 4
"""How deep a dict's or a list's text is put together from its parts' texts (below, one json.dumps
is faster): a game's list of its latest rolls is new after a roll, but most of its items are the
ones it held before (table/views.py keeps them), whose text is made."""


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


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
"""Compact JSON with one encoder made once (json.dumps with arguments makes one per call)."""

_CONSTANTS = {None: "null", True: "true", False: "false"}


def _scalar_text(value: Any) -> str:
    if value is None or value is True or value is False:
        return _CONSTANTS[value]
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    return _dumps(value)


class Memo(Generic[K, V]):
    """Entries kept by a key, in two generations: when the new one is full it becomes the old one,
    and an entry read from the old one moves to the new. What every change uses (a game's catalogue
    text) stays; what no change used for a generation goes."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._new: dict[K, V] = {}
        self._old: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        hit = self._new.get(key)
        if hit is None:
            hit = self._old.get(key)
            if hit is not None:
                self.put(key, hit)
        return hit

    def put(self, key: K, value: V) -> None:
        if len(self._new) >= self._size:
            self._old, self._new = self._new, {}
        self._new[key] = value


def _moved_parts(position: int, last: dict[str, Any], current: dict[str, Any],
                 nested: bool) -> tuple[tuple[Any, ...], list[Any]] | None:
    """What a screen's patch is made of, when the views of several viewers moved alike (a roll
    leaves every phone's own parts as they were): the log position and the entries that moved.

    A patch names only the entries that are not the very objects they were, and each one's
    operations depend on its two sides alone. So the key holds each moved entry by the
    identities of its two sides (a scalar by its type and value: the views of several viewers
    hold equal scalars that need not be one object). With `nested`, a dict of a viewer's own
    whose entries come from a part every viewer shares (a phone's buttons: what every phone
    sees, and its own seat) is held one level down, by its own moved entries. The second item
    holds the objects named by identity, for the memo to keep them alive: an identity is then
    never reused while it is a key. None when an entry was added or dropped (a rare change,
    patched the long way)."""
    key: list[Any] = [position]
    held: list[Any] = []
    if not _moved_entries(last, current, key, held, nested):
        return None
    return tuple(key), held


def _moved_entries(last: dict[str, Any], current: dict[str, Any], key: list[Any], held: list[Any],
                   nested: bool) -> bool:
    if len(last) != len(current):
        return False
    for name, value in current.items():
        was = last.get(name, _ABSENT)
        if was is value:
            continue
        if was is _ABSENT:
            return False
        kind = type(value)
        if kind in _KEYED_BY_VALUE and type(was) is kind:
            key.append((name, kind, was, value))
            continue
        if nested and kind is dict and type(was) is dict:
            inner: list[Any] = []
            if _moved_entries(was, value, inner, held, nested=False):
                key.append((name, tuple(inner)))
                continue
        key.append((name, id(was), id(value)))
        held += (was, value)
    return True


_KEYED_BY_VALUE = frozenset({int, str, bool, type(None)})
"""Scalars whose equal values print alike (not float: 0.0 and -0.0 are equal)."""


class SharedEncoder:
    """Patches and JSON text computed once and shared by every stream that sends the same change.

    Views share their unchanged parts (the same objects), so the difference of a shared part, and
    the text of a shared value, is the same for every screen: it is computed for the first screen
    and looked up by object identity for the others. Entries keep their objects alive, so an
    identity is never reused while it is a key. Texts and finished patches live in a `Memo`, so
    what every change prints (a game's catalogue) survives; the per-pair memos, looked up several
    times for each screen, are plain dicts dropped whole when they grow (a Memo's method call on
    each lookup made the fan-out a third slower, 0.16 -> 0.24 ms a roll for 15 screens).
    """

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._diffs: dict[tuple[int, int], tuple[Any, Any, list[Op]]] = {}
        self._texts: Memo[int, tuple[Any, str]] = Memo(size)
        self._patches: Memo[tuple[Any, ...], tuple[list[Op], bytes | None]] = Memo(size)
        self._prefixes: dict[tuple[Any, int], tuple[Op, Op]] = {}
        self._prefixed_lists: dict[tuple[Any, int], tuple[list[Op], list[Op]]] = {}
        self._scalars: dict[tuple[type, Any], list[Op]] = {}
        self._messages: dict[tuple[int, int], tuple[Any, Any, bytes | None]] = {}
        self._alike: dict[tuple[Any, ...], tuple[list[Any], bytes | None]] = {}
        """Finished patches by the parts that moved between two views (`_moved_parts`): a screen
        whose view moved as another's did is sent its bytes without comparing anything again."""

    def diff(self, old: Any, new: Any) -> list[Op]:
        if isinstance(old, dict | list) and isinstance(new, dict | list):
            return self._container_diff(old, new)
        if equal(old, new):
            return []
        if type(new) in SCALARS:
            # Screens whose own parts moved alike (the log position, a count) get the same
            # operation object, so prefixing and printing it are shared too.
            key = (type(new), new)
            ops = self._scalars.get(key)
            if ops is None:
                if len(self._scalars) >= self._size:
                    self._scalars.clear()
                ops = self._scalars[key] = [[[], new]]
            return ops
        return [[[], new]]

    def _container_diff(self, old: dict[str, Any] | list[Any], new: dict[str, Any] | list[Any]) -> list[Op]:
        """A dict's or a list's operations, once per pair of objects: a part the views share (a
        game's list of results) is compared once for every screen, and its operations are then
        the same objects, so prefixing and printing them are shared too."""
        key = (id(old), id(new))
        hit = self._diffs.get(key)
        if hit is not None and hit[0] is old and hit[1] is new:
            return hit[2]
        ops: list[Op]
        if equal(old, new):
            ops = []
        elif isinstance(old, dict) and isinstance(new, dict):
            ops = self._changed_keys(old, new)
        elif isinstance(old, list) and isinstance(new, list):
            ops = _splices(old, new) or [[[], new]]
        else:
            ops = [[[], new]]
        if len(self._diffs) >= self._size:
            self._diffs.clear()
        self._diffs[key] = (old, new, ops)
        return ops

    def _changed_keys(self, old: dict[str, Any], new: dict[str, Any]) -> list[Op]:
        ops: list[Op] = []
        for name, value in new.items():
            was = old.get(name, _ABSENT)
            if was is value:
                continue
            if was is _ABSENT:
                ops.append([[name], value])
            else:
                ops.extend(self._prefixed(name, self.diff(was, value)))
        if not old.keys() <= new.keys():
            ops.extend([[name]] for name in old if name not in new)
        return ops

    def _prefixed(self, name: Any, ops: list[Op]) -> list[Op]:
        """The operations of a part, under its key. A shared part's operations are one list for
        every screen, and so is their prefixed copy, whose operations' text is then made once."""
        if not ops:
            return ops
        key = (name, id(ops))
        hit = self._prefixed_lists.get(key)
        if hit is not None and hit[0] is ops:
            return hit[1]
        prefixed = [self._prefixed_op(name, op) for op in ops]
        if len(self._prefixed_lists) >= self._size:
            self._prefixed_lists.clear()
        self._prefixed_lists[key] = (ops, prefixed)
        return prefixed

    def _prefixed_op(self, name: Any, op: Op) -> Op:
        key = (name, id(op))
        hit = self._prefixes.get(key)
        if hit is not None and hit[0] is op:
            return hit[1]
        prefixed = [[name, *op[0]], *op[1:]]
        if len(self._prefixes) >= self._size:
            self._prefixes.clear()
        self._prefixes[key] = (op, prefixed)
        return prefixed

    def text(self, value: Any, depth: int = 0) -> str:
        """Compact JSON of a value; lists and dicts are remembered by identity.

        A view's first levels are new objects after every change while most of what they hold is
        not (a game's catalogue, the seats): their text is put together from their parts' texts,
        so an unchanged part is not printed again.
        """
        kind = type(value)
        if kind is str:
            return _string_text(value)
        if kind is int:
            return int.__repr__(value)
        if not isinstance(value, dict | list):
            return _scalar_text(value)
        if not value:
            return "[]" if isinstance(value, list) else "{}"
        hit = self._texts.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        if depth >= COMPOSED_DEPTH:
            text = _dumps(value)
        elif type(value) is list:
            text = "[" + ",".join([self.text(item, depth + 1) for item in value]) + "]"
        elif type(value) is dict and all(type(k) is str for k in value):
            text = "{" + ",".join([_string_text(k) + ":" + self.text(v, depth + 1) for k, v in value.items()]) + "}"
        else:
            text = _dumps(value)
        self._texts.put(id(value), (value, text))
        return text

    def message(self, last: dict[str, Any] | None, current: dict[str, Any]) -> bytes | None:
        """The server-sent event taking a screen from `last` to `current` (None: nothing changed).

        Screens of one viewer share both views, so the finished bytes are shared too.
        """
        key = (id(last), id(current))
        hit = self._messages.get(key)
        if hit is not None and hit[0] is last and hit[1] is current:
            return hit[2]
        position = current["position"]
        if last is None:
            message: bytes | None = f"id: {position}\nevent: view\ndata: {self.text(current)}\n\n".encode()
        else:
            # By the moved entries themselves first (most screens of a change share them); then
            # one level down, where a viewer's own dict holds what all share (the phones' buttons).
            keys: list[tuple[tuple[Any, ...], list[Any]]] = []
            made = None
            for nested in (False, True):
                moved = _moved_parts(position, last, current, nested)
                if moved is None:
                    break
                made = self._alike.get(moved[0])
                if made is not None:
                    break
                keys.append(moved)
            if made is not None:
                message = made[1]
            else:
                message = self._patch(position, last, current)
                if len(self._alike) >= self._size:
                    self._alike.clear()
                for key_of_moved, held in keys:
                    self._alike[key_of_moved] = (held, message)
        if len(self._messages) >= self._size:
            self._messages.clear()
        self._messages[key] = (last, current, message)
        return message

    def _patch(self, position: int, last: dict[str, Any], current: dict[str, Any]) -> bytes | None:
        ops = [] if current is last else self.diff(last, current)
        # Screens of other viewers whose patch holds the same operations share its bytes.
        patch_key = (position, *map(id, ops))
        made = self._patches.get(patch_key)
        if made is not None:
            return made[1]
        message = f"id: {position}\nevent: patch\ndata: {self.ops_text(ops)}\n\n".encode() if ops else None
        self._patches.put(patch_key, (ops, message))
        return message

    def ops_text(self, ops: list[Op]) -> str:
        return "[" + ",".join(self._op_text(op) for op in ops) + "]"

    def _op_text(self, op: Op) -> str:
        """An operation's JSON, made of its parts' (a shared value's text is made once)."""
        hit = self._texts.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        path = "[" + ",".join(_string_text(k) if type(k) is str else self.text(k) for k in op[0]) + "]"
        text = "[" + ",".join([path, *(self.text(part) for part in op[1:])]) + "]"
        self._texts.put(id(op), (op, text))
        return text


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
