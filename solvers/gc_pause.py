"""Python's cyclic garbage collector paused while exact certificates are built.

Building and verifying the exact certificate of C* and its enclosure (the exact basis and
split of :mod:`.certificate`, :func:`~.certificate_verify.verify`, :func:`~.enclosure.enclose`:
exact arithmetic only, never an LP solve or row generation, so a pause lasts a fraction of
a second) allocates some 10⁵ short-lived objects per winner at K = 136
(Fractions, tuples, row lists); none of them form reference cycles, so reference counting
frees them all, but every 700 allocations the cyclic collector runs anyway and now and then
walks the whole heap.  Those passes cost ~0.18 s of the ~1.3 s CPU of a certified C* at
K = 136 (docs/lower_bound.md, "Profiled, second round").  :func:`gc_paused` switches the
collector off for the block and back on after it; whatever cyclic garbage the block leaves
is collected at the next regular pass after it.

The pause is a :class:`~.process_switch.ProcessSwitch`, like the solvers' stdout guard:
re-entrant and thread-safe, the first block in switches the collector off, the last one out
switches it back on — only if it was on when the first came in (a program that runs with
the collector off keeps it off).
"""

from __future__ import annotations

import gc

from .process_switch import ProcessSwitch

__all__ = ["gc_paused"]


def _pause() -> bool:
    was = gc.isenabled()
    gc.disable()
    return was


def _resume(was: bool) -> None:
    if was:
        gc.enable()


_PAUSE = ProcessSwitch(_pause, _resume)


def gc_paused() -> ProcessSwitch:
    """The cyclic garbage collector off inside the block (reference counting still frees);
    also a decorator, ``@gc_paused()``.

    Examples
    --------
    >>> import gc
    >>> from duelbound.solvers.gc_pause import gc_paused
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    """
    return _PAUSE
