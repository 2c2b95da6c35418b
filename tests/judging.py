"""Shared by the tests that run judged code: the sandbox this machine has (or why not),
and the judged processes a test left behind.

CI sets ``DUELBOUND_REQUIRE_SANDBOX=1`` (``.ci/run``): there a missing sandbox makes the
importing test module fail instead of skipping.
"""

from __future__ import annotations

import os

import pytest

from duelbound.checks.verify.sandbox import isolation
from duelbound.theory.errors import DuelboundError

try:
    SANDBOX, WHY_NOT = isolation(), ""
except DuelboundError as exc:
    SANDBOX, WHY_NOT = None, str(exc)

if os.environ.get("DUELBOUND_REQUIRE_SANDBOX") == "1" and SANDBOX is None:
    raise RuntimeError(f"DUELBOUND_REQUIRE_SANDBOX=1 but {WHY_NOT}")

#: ``pytestmark = needs_sandbox`` in a test module that judges code.
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason=f"no sandbox here: {WHY_NOT}")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(c) for c in fh.read().split()]
    except (OSError, ValueError):
        pass
    return out


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (a sandbox's orphans are below its init)."""
    out, todo = [], _children(pid)
    while todo:
        p = todo.pop()
        out.append(p)
        todo += _children(p)
    return out


def judged_below(pid: int | None = None) -> list[int]:
    """Processes below ``pid`` (default: this one) that carry a judge's run token."""
    out = []
    for p in descendants(os.getpid() if pid is None else pid):
        try:
            with open(f"/proc/{p}/environ", "rb") as fh:
                if b"DUELBOUND_RUN_TOKEN=" in fh.read():
                    out.append(p)
        except OSError:
            pass
    return out


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture
def no_judged_leftovers():
    """After the test: no judged process of it left (a killed sandbox is reaped
    asynchronously: up to 5 s)."""
    import time

    yield
    deadline = time.monotonic() + 5.0
    while judged_below() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert judged_below() == [], "a judged process survived its run"
