"""SIGINT and SIGTERM during a verification: noted by a handler, acted on by the judge.

:data:`INTERRUPTS` holds the handlers of the process (installed by the CLI for the whole
command, by :func:`.harness.verify_algorithm` for its own duration); the coordinator
(:mod:`.runs`) and the driver (:mod:`.harness`) read it between steps, the probe's
conversation (:mod:`.judge`) is the one place it raises.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["Interrupted", "Interrupts", "INTERRUPTS"]


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM during a verification (raised from :data:`INTERRUPTS`' handler
    only where the judge can stop cleanly: the probe's conversation)."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)


class Interrupts:
    """SIGINT and SIGTERM during a verification, as a flag the driver reads between
    steps.

    A handler that raised wherever the signal landed lost it in the verdict phase: an
    exception raised while Python runs a ``__del__`` or a weakref callback (numba and
    llvmlite dispose of their objects so, all through a compilation) is printed as
    "ignored" and dropped, and library code may catch it.  So the handler only notes the
    signal; the coordinator's wait loop (:func:`run_jobs`, every 0.2 s) and the driver
    between matrices and phases read :attr:`signum`.  Only inside :meth:`raising` — the
    probe, a blocking conversation the judge's own code ends cleanly on any exception —
    does the first signal raise :class:`Interrupted`.  The handlers are installed for
    the whole command (:meth:`installed`, before the verdict phase's imports) and put
    back at every phase (:meth:`ensure`) should a library have replaced them.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signum: int | None = None
        self._raising = 0
        self._depth = 0
        self._previous: dict[int, Any] = {}

    def handler(self, signum: int, frame: Any) -> None:
        first = self.signum is None
        if first:
            self.signum = int(signum)
        if first and self._raising:
            raise Interrupted(signum)

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interrupts]:
        """The handlers for the duration (nested: the outermost installs and restores;
        off the main thread, where Python cannot install them, nothing changes)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        if self._depth == 0:
            self.signum = None
            self._previous = {s: signal.getsignal(s) for s in self.SIGNALS}
        self._depth += 1
        self.ensure()
        try:
            yield self
        finally:
            self._depth -= 1
            if self._depth == 0:
                for s, h in self._previous.items():
                    signal.signal(s, h)

    def ensure(self) -> None:
        """Our handlers again, where a library replaced them (within :meth:`installed`,
        on the main thread)."""
        if self._depth and threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                if signal.getsignal(s) != self.handler:
                    signal.signal(s, self.handler)

    @contextlib.contextmanager
    def raising(self) -> Iterator[None]:
        """The first signal inside raises :class:`Interrupted` (at once, if one came)."""
        if self.signum is not None:
            raise Interrupted(self.signum)
        self._raising += 1
        try:
            yield
        finally:
            self._raising -= 1

    @property
    def name(self) -> str | None:
        return None if self.signum is None else signal.Signals(self.signum).name


    def note(self, signum: int | None) -> None:
        """A signal seen elsewhere (a KeyboardInterrupt where no handler of ours was
        installed: off the main thread)."""
        if signum is not None and self.signum is None:
            self.signum = int(signum)


#: The process's one set of interrupt handlers.
INTERRUPTS = Interrupts()
