"""The C allocator's shape for the long-running service: one malloc arena for every thread.

glibc's malloc gives each thread that allocates its own arena (up to eight per core), so that
threads running at once do not wait for each other's lock. Python threads do not run at once:
the interpreter lock already serialises them. What the arenas do bring is a heap per thread,
each fragmenting on its own: the service's threads (the event loop, the answering threads, the
timers, the buttons' health) each keep some long-lived objects among their short-lived ones, and
freed room in one thread's heap is of no use to the others. Over an evening that is where the
service's memory crept, while what it holds (its Python objects, malloc's bytes in use) stayed
flat. With one arena, room freed by any thread serves the next allocation of all of them.
"""

from __future__ import annotations

import ctypes
import sys

M_ARENA_MAX = -8
"""mallopt's parameter for the most arenas malloc makes (<malloc.h>)."""


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
