"""heap.py: the service's threads share one malloc arena (glibc), so their freed room is shared;
the cycle collector sets aside what start-up made."""

from __future__ import annotations

import ctypes
import subprocess
import sys

import pytest

from companion.heap import one_arena

ARENAS = """
import ctypes, os, sys, tempfile, threading
from companion.heap import one_arena

if sys.argv[1] == "one":
    assert one_arena()
kept = []
def allocate() -> None:
    kept.extend(bytearray(4096) for _ in range(64))  # beyond Python's small-object allocator: malloc's
threads = [threading.Thread(target=allocate) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
libc.malloc_info.argtypes = (ctypes.c_int, ctypes.c_void_p)
libc.fclose.argtypes = (ctypes.c_void_p,)
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "heaps.xml")
    out = libc.fopen(path.encode(), b"w")
    libc.malloc_info(0, out)
    libc.fclose(out)
    print(open(path).read().count("<heap nr="))
"""


def glibc() -> bool:
    return hasattr(ctypes.CDLL(None), "gnu_get_libc_version")


def arenas(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", ARENAS, mode], capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux") or not glibc(), reason="glibc's malloc only")
def test_threads_started_after_the_setting_share_the_main_arena() -> None:
    assert arenas("several") > 1, "each thread that allocates has its own arena by default"
    assert arenas("one") == 1


def test_the_setting_is_asked_for_without_failing_anywhere() -> None:
    assert one_arena() in (True, False)


STARTUP = """
import gc, weakref
from companion.heap import YOUNG_THRESHOLD, keep_startup

class Node:
    pass

started = [{"n": n, "items": [n] * 3} for n in range(20_000)]  # what start-up made
walked_before = len(gc.get_objects())
set_aside = keep_startup()
walked_after = len(gc.get_objects())
later = Node()
later.me = later  # a cycle made while serving
gone = weakref.ref(later)
del later
found = gc.collect()
print(walked_before, set_aside, walked_after, found, gone() is None, gc.get_threshold()[0] == YOUNG_THRESHOLD)
"""


def test_the_collector_sets_aside_what_start_up_made_and_still_collects_what_comes_after() -> None:
    """A full collection no longer walks the service's start-up objects (its pauses were tens of
    milliseconds), and garbage made while serving is still collected."""
    out = subprocess.run([sys.executable, "-c", STARTUP], capture_output=True, text=True, check=True).stdout
    walked_before, set_aside, walked_after, found, gone, threshold = out.split()
    assert int(set_aside) >= 40_000 and int(walked_before) >= 40_000
    assert int(walked_after) < 1_000, "what start-up made is no longer walked"
    assert int(found) >= 1 and gone == "True", "a cycle made afterwards is still collected"
    assert threshold == "True"
