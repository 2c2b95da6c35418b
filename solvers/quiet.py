"""Keep LP solvers' own printing off the process's standard output.

highspy ≥ 1.16 prints a two-line banner ("Running HiGHS … Copyright …") to file
descriptor 1 when a ``Highs`` object is *constructed*, before any option such as
``output_flag`` can be set, and PuLP constructs one per solve.  A Python-level
``contextlib.redirect_stdout`` cannot catch it (the C++ library writes to the
descriptor, not to ``sys.stdout``), so :func:`solver_stdout_guard` points descriptor 1
elsewhere for the duration of a solver call and restores it afterwards.  Every solver
construction and solve in :mod:`duelbound.solvers.lp` runs inside it, so JSON, CSV and
LaTeX written to stdout — by the command line or by an API user's own program — stay
parseable whatever a solver version prints.

Where the output goes is set by the environment variable ``DUELBOUND_SOLVER_OUTPUT``:
``devnull`` (default) discards it, ``stderr`` sends it to standard error (to debug a
solver).  The guard is re-entrant and thread-safe: the first thread in redirects, the last
one out restores.  While a solve is in flight, anything else that the process writes to
descriptor 1 goes to the same place — a documented trade-off of descriptor-level
redirection (Python-level ``print`` is buffered and flushed before the redirection).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys

from .process_switch import ProcessSwitch

__all__ = ["solver_stdout_guard"]


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    # looked up once: find_library runs ldconfig in a subprocess (3 ms, per solve before)
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None)
    except OSError:
        return None


def _flush_c_stdio() -> None:
    # A library that writes through C stdio buffers the bytes when fd 1 is a pipe; flush
    # them while fd 1 still points at the sink, or they would reach the real stdout later.
    libc = _libc()
    if libc is None:  # no C library to flush (exotic platforms)
        return
    try:
        libc.fflush(None)
    except (OSError, AttributeError):  # a C library without fflush
        pass


def _sink_fd() -> int:
    if os.environ.get("DUELBOUND_SOLVER_OUTPUT", "devnull").lower() == "stderr":
        try:
            return os.dup(2)
        except OSError:  # stderr closed: discard instead
            pass
    return os.open(os.devnull, os.O_WRONLY)


def _redirect() -> int | None:
    try:
        sys.stdout.flush()
    except (AttributeError, ValueError, OSError):  # replaced, closed or broken stdout
        pass
    try:
        saved = os.dup(1)
    except OSError:  # descriptor 1 is closed: nothing to protect
        return None
    sink = _sink_fd()
    try:
        os.dup2(sink, 1)
    finally:
        os.close(sink)
    return saved


def _restore(saved: int | None) -> None:
    if saved is None:
        return
    _flush_c_stdio()
    os.dup2(saved, 1)
    os.close(saved)


_GUARD = ProcessSwitch(_redirect, _restore)


def solver_stdout_guard() -> ProcessSwitch:
    """Descriptor 1 points at the solver sink (``/dev/null`` by default) inside the block
    (re-entrant and thread-safe: :class:`~.process_switch.ProcessSwitch`).

    Examples
    --------
    >>> from duelbound.solvers.quiet import solver_stdout_guard
    >>> with solver_stdout_guard():
    ...     pass  # build and solve a highspy model here
    """
    return _GUARD
