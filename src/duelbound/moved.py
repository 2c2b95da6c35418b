"""Old module names that still import, with a DeprecationWarning naming the new one.

The layout of issue 21 moved modules into rooms (``duelbound.checks.simulator`` is now
``duelbound.checks.simulate.simulator``, ``duelbound.solvers.lower_bound`` is
``duelbound.solvers.cstar`` …).  A script written against the old names keeps working:
:func:`install` (called by ``import duelbound``) appends a finder to ``sys.meta_path`` that
knows only the names in :data:`MOVED`, so real modules always win.  Importing an old name
warns once per process and gives a module whose attributes are the new module's.

Two old names are also *functions* of their package today (``duelbound.theory.structure``,
``duelbound.solvers.lower_bound``): importing the old module sets that package attribute to
the module, so the stand-in is callable and forwards to the function it displaced —
``duelbound.solvers.lower_bound(M)`` keeps working after an old ``import``.
A ground-floor module: it imports no layer until an old name is imported.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import sys
import warnings
from types import ModuleType
from typing import Any

__all__ = ["MOVED", "install"]

#: old module name -> the module that holds its contents now.
MOVED: dict[str, str] = {
    "duelbound.theory.structure": "duelbound.theory.tournament",
    "duelbound.theory.examples": "duelbound.theory.datasets",
    "duelbound.solvers.lower_bound": "duelbound.solvers.cstar",
    "duelbound.checks.simulator": "duelbound.checks.simulate.simulator",
    "duelbound.checks.environment": "duelbound.checks.simulate.environment",
    "duelbound.checks.policy": "duelbound.checks.simulate.policy",
    "duelbound.checks.records": "duelbound.checks.simulate.records",
    **{f"duelbound.checks.alg_{name}": f"duelbound.checks.simulate.algorithms.{name}"
       for name in ("ccb", "common", "dts", "rmed", "rucb", "savage", "scb", "schedule",
                    "uniform")},
    "duelbound.checks.adapters": "duelbound.checks.verify.adapters",
    "duelbound.checks.harness": "duelbound.checks.verify.harness",
    "duelbound.checks.judge": "duelbound.checks.verify.judge",
    "duelbound.checks.judge_child": "duelbound.checks.verify.child",
    "duelbound.checks.verdicts": "duelbound.checks.verify.verdicts",
    "duelbound.checks.store": "duelbound.checks.sweep.store",
}


class MovedModule(ModuleType):
    """The old name of a moved module: every attribute is read from the new module."""

    def __init__(self, name: str, target: ModuleType, displaced: Any = None) -> None:
        super().__init__(name, target.__doc__)
        self.__dict__["__target__"] = target
        self.__dict__["__displaced__"] = displaced

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.__dict__["__target__"], attr)

    def __dir__(self) -> list[str]:
        return dir(self.__dict__["__target__"])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        displaced = self.__dict__["__displaced__"]
        if displaced is None:
            raise TypeError(f"'module' object {self.__name__} is not callable")
        return displaced(*args, **kwargs)


def _importer_stacklevel() -> int:
    """The stack level of the first frame outside the import machinery and this module, so
    that the warning names the line that imported the old name.

    :func:`warnings.warn` itself skips the frozen ``importlib._bootstrap`` frames when it
    counts levels, so only the other frames are counted here.
    """
    frame = inspect.currentframe()
    frame = frame.f_back if frame is not None else None  # the caller of this function
    level = 1
    while frame is not None:
        name = frame.f_code.co_filename
        if "importlib" in name and "_bootstrap" in name:  # skipped by warnings.warn too
            frame = frame.f_back
            continue
        if name not in (__file__, importlib.__file__):
            break
        frame = frame.f_back
        level += 1
    return level


class _MovedLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        target = importlib.import_module(MOVED[spec.name])
        parent, _, child = spec.name.rpartition(".")
        displaced = getattr(sys.modules[parent], child, None)
        if isinstance(displaced, ModuleType):
            displaced = None
        return MovedModule(spec.name, target, displaced)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the stand-in reads the new module."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None,
                  target: Any = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        warnings.warn(f"{fullname} is deprecated: it moved to {new}; import {new} instead "
                      "(the old name will be removed in a future release)",
                      DeprecationWarning, stacklevel=_importer_stacklevel())
        return importlib.util.spec_from_loader(fullname, _MovedLoader())


def install() -> None:
    """Append the finder of the old names to ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
