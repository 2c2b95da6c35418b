"""Python's cyclic garbage collector paused while exact certificates are built.

Building and verifying the exact certificate of C* and its enclosure (:mod:`.certificate`,
:mod:`.enclosure`) allocates some 10⁵ short-lived objects per winner at K = 136
(Fractions, tuples, row lists); none of them form reference cycles, so reference counting
frees them all, but every 700 allocations the cyclic collector runs anyway and now and then
walks the whole heap.  Those passes cost ~0.18 s of the ~1.3 s CPU of a certified C* at
K = 136 (docs/lower_bound.md, "Integer groups and FLINT").  :func:`gc_paused` switches the
collector off for the block and back on after it; whatever cyclic garbage the block leaves
is collected at the next regular pass after it.

The pause is re-entrant and thread-safe like :func:`~.quiet.solver_stdout_guard`: the first
thread in switches the collector off, the last one out switches it back on, and only if it
was on when the first came in (a program that runs with the collector off keeps it off).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block (reference counting still frees).

    Examples
    --------
    >>> import gc
    >>> from duelbound.solvers.gc_pause import gc_paused
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    """
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
