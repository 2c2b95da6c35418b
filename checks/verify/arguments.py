"""Step 1 of a verification: the arguments, checked before anything runs.

What to judge — ``"package.module:factory"`` (never imported here: only in the judge's
child), a bundled algorithm's name, a module-level callable (:func:`factory_spec`) or
a program for the line protocol (:func:`exec_spec`) — and the numbers that shape the
verification.  Bad input is a :class:`~duelbound.theory.errors.DuelboundError`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from ...errors import shown
from ...theory.errors import DuelboundError

__all__ = ["check_arguments", "check_extend_budget", "exec_spec", "factory_spec",
           "load_factory"]


def load_factory(spec: str) -> str:
    """Validate ``"package.module:factory"`` (or a bundled name) *without importing it*.

    The module is imported only in the judge's child process, where a failure to
    import is reported as a usage error (:func:`verify_algorithm` raises DuelboundError).
    """
    from ..simulate.simulator import ALGORITHMS

    if not isinstance(spec, str):
        raise DuelboundError(f"expected a 'module:factory' string, got {type(spec).__name__}")
    if spec in ALGORITHMS:
        local = [p for p in (f"{spec}.py", spec) if spec.isidentifier() and os.path.exists(p)]
        if local:
            raise DuelboundError(
                f"{spec!r} is ambiguous: a bundled algorithm, and ./{local[0]} in the working "
                f"folder; to judge your module give {spec}:FACTORY (e.g. {spec}:make), to "
                f"verify the bundled {spec} run from another folder")
        return spec
    mod_name, sep, attr = spec.partition(":")
    ok = sep and attr and all(p.isidentifier() for p in mod_name.split(".")) and \
        all(p.isidentifier() for p in attr.split("."))
    if not ok and sep and attr and mod_name.endswith(".py"):
        raise DuelboundError(_file_spec_hint(mod_name, attr))
    if not ok:
        raise DuelboundError(f"expected MODULE:FACTORY or a bundled algorithm name, got {spec!r}")
    return spec


def _file_spec_hint(path: str, attr: str) -> str:
    """What to type instead of ``FILE.py:FACTORY``: the judge imports a module by name
    (its folder is then copied into the sandbox), so the file's folder must be on the path."""
    import shlex

    folder, stem = os.path.split(os.path.abspath(path))
    stem = stem[:-3]
    if not stem.isidentifier():
        return (f"{path!r} is a file, and verify imports a module by name: rename it to a "
                f"valid module name (letters, digits, _) and give MODULE:{attr}")
    return (f"{path}:{attr} is a file path, and verify imports a module by name: run "
            f"'duelbound verify {stem}:{attr}' in {shlex.quote(folder)}, or put that folder "
            f"on the path: PYTHONPATH={shlex.quote(folder)} duelbound verify {stem}:{attr}")


def factory_spec(factory: Callable | str) -> str:
    """``"module:qualname"`` of an importable factory (the judge imports it by name)."""
    if isinstance(factory, str):
        return load_factory(factory)
    mod = getattr(factory, "__module__", None)
    qual = getattr(factory, "__qualname__", None)
    if not mod or not qual or "<locals>" in qual or "<lambda>" in qual or mod == "__main__":
        raise DuelboundError(
            "the factory must be importable by name from a fresh interpreter: give it as "
            "'package.module:factory' (a module-level function or class), not a lambda, a "
            "closure or a function defined in __main__")
    return f"{mod}:{qual}"


def exec_spec(command: str | Sequence[str]) -> str:
    """The judge's spec of a program for the line protocol: ``"exec:" + JSON argv``.

    The program (first word: a path, or a name on PATH; ``python``/``python3`` is the
    interpreter running duelbound) and every argument that names an existing file or
    folder are made absolute: the program runs in the sandbox's own
    working folder, and exactly those paths are shown to it, read-only.
    """
    import json
    import shlex
    import shutil

    argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not argv:
        raise DuelboundError("--exec needs a command")
    # "python"/"python3": the interpreter running duelbound (a pyenv or conda shim on
    # PATH would need its whole installation inside the sandbox)
    prog = (sys.executable if argv[0] in ("python", "python3") else
            argv[0] if "/" in argv[0] else shutil.which(argv[0]))
    if prog is None or not os.path.isfile(prog) or not os.access(prog, os.X_OK):
        raise DuelboundError(f"--exec {argv[0]!r}: no such executable file")
    argv = [os.path.abspath(prog)] + [os.path.abspath(a) if os.path.exists(a) else a
                                      for a in argv[1:]]
    return "exec:" + json.dumps(argv)


def check_arguments(factory: Callable | str | None, T: int, runs: int, protocol: str,
                    reference: str | None, command: str | Sequence[str] | None = None
                    ) -> tuple[int, str, str]:
    """(T, the factory's spec, "user" or "bundled") of :func:`.verify_algorithm`'s
    arguments, or a DuelboundError naming the first bad one."""
    # numba-compiled simulator: imported only here, where a bundled algorithm may run
    from ..simulate.environment import check_horizon
    from ..simulate.simulator import ALGORITHMS

    T = check_horizon(T)
    if runs < 1:
        raise DuelboundError(f"runs must be >= 1, got {runs}")
    if protocol not in ("auto", "select", "duel"):
        raise DuelboundError(f"protocol must be 'auto', 'select' or 'duel', got {protocol!r}")
    if reference is not None and reference not in ALGORITHMS:
        raise DuelboundError(f"unknown reference {reference!r}; choose from "
                             f"{', '.join(ALGORITHMS)}")
    if command is not None:
        if factory is not None:
            raise DuelboundError("give an algorithm or --exec COMMAND, not both")
        return T, exec_spec(command), "user"
    if not callable(factory) and not isinstance(factory, str):
        raise DuelboundError("factory must be 'module:factory', a bundled algorithm name or "
                             "an importable callable")
    if isinstance(factory, str) and ":" not in factory and factory not in ALGORITHMS:
        raise DuelboundError(f"unknown bundled algorithm {factory!r}; choose from "
                             f"{', '.join(ALGORITHMS)} or give MODULE:FACTORY")
    spec = factory_spec(factory)
    return T, spec, "bundled" if spec in ALGORITHMS else "user"


def check_extend_budget(seconds: float) -> float:
    """The sequential horizons' budget in seconds (>= 0; 0 disables them)."""
    if not seconds >= 0:
        raise DuelboundError(f"extend_budget must be >= 0 seconds (0 disables the sequential "
                             f"horizons), got {shown(seconds)}")
    return float(seconds)
