"""Dependency versions duelbound relies on beyond their public API, checked at import.

pyproject.toml caps two dependencies because duelbound uses their internals: PuLP (the
bulk-loading subclass of its HiGHS interface in :mod:`duelbound.solvers.lp`) and numba
(the D-TS sampler's ``next_uint64`` and LLVM intrinsics).  pip enforces the caps; this
module turns a forced or stale install into one readable error instead of an
``AttributeError`` deep inside a solve.  Tested ranges: docs/dependencies.md.
"""

from __future__ import annotations

import re

from .errors import DuelboundError

__all__ = ["SUPPORTED", "require"]

#: package → (lowest tested, first untested) version, as in pyproject.toml.
SUPPORTED: dict[str, tuple[str, str]] = {
    "pulp": ("2.8", "4"),
    "numba": ("0.58", "0.69"),
}


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def require(package: str, installed: str) -> None:
    """Raise :class:`DuelboundError` unless ``installed`` lies in the supported range.

    Parameters
    ----------
    package : str
        A key of :data:`SUPPORTED`.
    installed : str
        The installed version string (``module.__version__``).
    """
    low, high = SUPPORTED[package]
    if not (_key(low) <= _key(installed) < _key(high)):
        raise DuelboundError(
            f"duelbound needs {package}>={low},<{high} (it uses {package} internals); "
            f"{package} {installed} is installed: pip install '{package}>={low},<{high}'")
