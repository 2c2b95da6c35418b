"""Every module moved since 0.1.0 still imports under its old name, with a DeprecationWarning
naming the new one (duelbound.moved; the moves are those of issue 21's layout)."""

from __future__ import annotations

import importlib
import re
import sys
import warnings
from importlib.util import find_spec
from types import ModuleType

import pytest

from duelbound.moved import MOVED
from duelbound.theory import datasets

#: The moves as listed by ``git log --diff-filter=R --stat`` and ``--diff-filter=D`` (written
#: out here, not read from MOVED, so that a name dropped from the table fails).
OLD_NAMES = {
    "duelbound.theory.structure", "duelbound.theory.examples", "duelbound.solvers.lower_bound",
    "duelbound.checks.simulator", "duelbound.checks.environment", "duelbound.checks.policy",
    "duelbound.checks.records", "duelbound.checks.alg_ccb", "duelbound.checks.alg_common",
    "duelbound.checks.alg_dts", "duelbound.checks.alg_rmed", "duelbound.checks.alg_rucb",
    "duelbound.checks.alg_savage", "duelbound.checks.alg_scb", "duelbound.checks.alg_schedule",
    "duelbound.checks.alg_uniform", "duelbound.checks.adapters", "duelbound.checks.harness",
    "duelbound.checks.judge", "duelbound.checks.judge_child", "duelbound.checks.verdicts",
    "duelbound.checks.store",
}


def test_every_move_has_a_shim():
    assert set(MOVED) == OLD_NAMES


@pytest.fixture
def fresh(monkeypatch):
    """Forget an old name (and restore its package's attribute afterwards)."""
    def forget(old: str) -> None:
        parent, _, child = old.rpartition(".")
        monkeypatch.delitem(sys.modules, old, raising=False)
        monkeypatch.setattr(sys.modules[parent], child, getattr(sys.modules[parent], child, None),
                            raising=False)
    return forget


@pytest.mark.parametrize("old", sorted(OLD_NAMES))
def test_old_name_imports_and_warns(old, fresh):
    new = importlib.import_module(MOVED[old])
    assert find_spec(MOVED[old]).origin.endswith(".py")  # the new name is a real module
    fresh(old)
    with pytest.warns(DeprecationWarning, match=re.escape(f"{old} is deprecated: it moved to "
                                                          f"{MOVED[old]}")) as record:
        mod = importlib.import_module(old)
    assert record[0].filename == __file__  # the warning points at the importing line
    public = [n for n in getattr(new, "__all__", dir(new)) if not n.startswith("_")]
    assert public and all(getattr(mod, n) is getattr(new, n) for n in public)
    with pytest.raises(AttributeError):
        mod.no_such_name_here  # noqa: B018


def test_from_import_of_an_old_name(fresh):
    fresh("duelbound.checks.simulator")
    with pytest.warns(DeprecationWarning, match="duelbound.checks.simulate.simulator"):
        from duelbound.checks.simulator import simulate
    from duelbound.checks.simulate import simulator
    assert simulate is simulator.simulate


def test_a_displaced_function_still_works(fresh):
    """duelbound.solvers.lower_bound was a module and is a function: after an old import sets
    the package attribute to the module, calling it still solves C*."""
    from duelbound.solvers.cstar import lower_bound
    from duelbound.theory.tournament import structure

    M = datasets.load("cyclic")
    fresh("duelbound.solvers.lower_bound")
    with pytest.warns(DeprecationWarning):
        import duelbound.solvers.lower_bound  # noqa: F401
    assert isinstance(duelbound.solvers.lower_bound, ModuleType)  # the module now ...
    assert duelbound.solvers.lower_bound(M).value == lower_bound(M).value  # ... still solves
    fresh("duelbound.theory.structure")
    with pytest.warns(DeprecationWarning):
        import duelbound.theory.structure  # noqa: F401
    # cyclic: arm 0 beats every other arm (its row is above 1/2), so it is the only winner
    V = M.values
    assert [i for i in range(M.K) if all(V[i, j] > 0.5 for j in range(M.K) if j != i)] == [0]
    assert duelbound.theory.structure(M) == structure(M)
    assert duelbound.theory.structure(M).copeland_winners == [0]


def test_a_moved_module_that_displaced_nothing_is_not_callable(fresh):
    fresh("duelbound.checks.store")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        mod = importlib.import_module("duelbound.checks.store")
    with pytest.raises(TypeError, match="not callable"):
        mod()


def test_unknown_names_still_fail():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("duelbound.checks.no_such_module")
