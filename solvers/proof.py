"""Deprecated name of :mod:`duelbound.solvers.enclosure` (the rigorous enclosure of C* and the
certificate document); importing it warns.  "proof" now names only the independent checker,
:mod:`duelbound.checks.proof`."""

from __future__ import annotations

import warnings

from .enclosure import *  # noqa: F403
from .enclosure import __all__  # noqa: F401

warnings.warn("duelbound.solvers.proof is renamed duelbound.solvers.enclosure",
              DeprecationWarning, stacklevel=2)
