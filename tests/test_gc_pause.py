"""The cyclic collector's pause around exact certificates (solvers/gc_pause.py, issue 31)
and the process switch it is made of (solvers/process_switch.py).

Checked against the interpreter's own switch (``gc.isenabled``): off inside, back on after
(also after an exception and when nested or overlapping in threads), left off when the
program had it off; cyclic garbage made inside is collected after the block.
"""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from duelbound.solvers.gc_pause import gc_paused
from duelbound.solvers.process_switch import ProcessSwitch


@pytest.fixture(autouse=True)
def _collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_off_inside_on_after_also_after_an_exception_and_nested():
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner exit does not switch it back on
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_program_that_runs_without_the_collector_keeps_it_off():
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_threads_switch_it_on_only_when_the_last_leaves():
    inside, release = threading.Event(), threading.Event()

    def worker():
        with gc_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(10)
    with gc_paused():
        pass
    assert not gc.isenabled()  # the worker is still inside
    release.set()
    t.join(10)
    assert gc.isenabled()


def test_cycles_made_inside_are_collected_after_the_block():
    class Node:
        pass

    with gc_paused():
        a, b = Node(), Node()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        assert ref() is not None  # a cycle: reference counting cannot free it
    gc.collect()
    assert ref() is None



def test_as_a_decorator_and_the_switch_it_is_made_of():
    @gc_paused()
    def inside() -> bool:
        return gc.isenabled()

    assert inside() is False and gc.isenabled()
    calls = []
    switch = ProcessSwitch(lambda: calls.append("on") or 7, lambda saved: calls.append(saved))
    with switch, switch:
        pass
    assert calls == ["on", 7]  # switched once, restored once from what the switch returned
