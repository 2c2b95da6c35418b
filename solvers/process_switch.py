"""A process-wide setting switched for the length of ``with`` blocks, shared by threads.

Some settings belong to the whole process — where file descriptor 1 points
(:mod:`.quiet`), whether the cyclic garbage collector runs (:mod:`.gc_pause`) — yet blocks
that want them switched can nest and can run in several threads at once.  A
:class:`ProcessSwitch` counts the blocks inside it: the first one in switches the setting
(and keeps what ``switch`` returned), the last one out restores it from that.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import ContextDecorator
from typing import Any

__all__ = ["ProcessSwitch"]


class ProcessSwitch(ContextDecorator):
    """Re-entrant, thread-safe context manager (and decorator) around a process setting.

    Parameters
    ----------
    switch : callable
        Switches the setting; its return value (what to restore) is passed to ``restore``.
    restore : callable
        Puts the setting back, given what ``switch`` returned.

    Examples
    --------
    >>> state = {"on": False}
    >>> flip = ProcessSwitch(lambda: state.update(on=True), lambda _: state.update(on=False))
    >>> with flip:
    ...     with flip:
    ...         pass
    ...     state["on"]
    True
    >>> state["on"]
    False
    """

    def __init__(self, switch: Callable[[], Any], restore: Callable[[Any], None]):
        self._switch, self._restore = switch, restore
        self._lock = threading.Lock()
        self._depth = 0
        self._saved: Any = None

    def __enter__(self) -> ProcessSwitch:
        with self._lock:
            if self._depth == 0:
                self._saved = self._switch()
            self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                saved, self._saved = self._saved, None
                self._restore(saved)
