"""The heap's shape for the long-running service: one malloc arena for every thread, and the
collector kept off what start-up made.

glibc's malloc gives each thread that allocates its own arena (up to eight per core), so that
threads running at once do not wait for each other's lock. Python threads do not run at once:
the interpreter lock already serialises them. What the arenas do bring is a heap per thread,
each fragmenting on its own: the service's threads (the event loop, the answering threads, the
timers, the buttons' health) each keep some long-lived objects among their short-lived ones, and
freed room in one thread's heap is of no use to the others. Over an evening that is where the
service's memory crept, while what it holds (its Python objects, malloc's bytes in use) stayed
flat. With one arena, room freed by any thread serves the next allocation of all of them.

Python's cycle collector, left as it is, walks every object the service made at start-up (some
50,000: modules, the app, the catalogue, the log's replay) at each full collection. Measured over
1,000 commands at 15 clients, on a busy machine: three full collections of up to 59 ms each (a
pause every screen feels), and 0.27 ms of collector time per command in all.
"""

from __future__ import annotations

import ctypes
import gc
import sys

M_ARENA_MAX = -8
"""mallopt's parameter for the most arenas malloc makes (<malloc.h>)."""

YOUNG_THRESHOLD = 2000
"""Objects allocated (less those freed) between two collections of the youngest generation
(Python's default is 700): a third as many collections. Each takes about as long, as it walks
what is alive among the young (the current views), not how many were made."""


def one_arena() -> bool:
    """Ask glibc's malloc to share one arena between all threads created from now on (the threads
    running already keep theirs, so call this before the service starts any). False where the C
    library has no such setting (not glibc): the service runs as before there."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, 1))


def keep_startup() -> int:
    """Once the service has started: what exists now lives as long as the service, so the
    collector no longer walks it (`gc.freeze`), and it collects the young less often. Objects
    made from now on are collected as before. How many objects were set aside."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    return gc.get_freeze_count()
