"""duelbound — exact analysis and verification of Copeland dueling bandits.

Layers (each a subpackage):

* :mod:`duelbound.theory` — preference matrices, tournament structure, KL, regret
  conventions (pure functions);
* :mod:`duelbound.solvers` — the lower bound C*, ECW-RMED's C^E*, upper-bound
  terms and tables (depends on ``theory`` only);
* :mod:`duelbound.checks` — reference simulator, claim checks, hypothesis
  strategies, verification harness, sweeps.

Below the layers, the ground floor of root utilities that import no layer:
:mod:`duelbound.errors` (the exception types), :mod:`duelbound.render` (tables as
Markdown, LaTeX, CSV, JSON), :mod:`duelbound.plots` (figures without pyplot),
:mod:`duelbound.frames` (pandas and notebook display) and :mod:`duelbound.compat`
(dependency version checks).  docs/architecture.md draws the map.
"""

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from . import moved
from .errors import DuelboundError, InvalidMatrixError, MatrixFileError, SolverError, TieError

moved.install()  # old module names (moved since 0.1.0) import with a DeprecationWarning

#: Imported on first use (PEP 562): ``import duelbound`` — and so ``duelbound --help`` —
#: does not load numpy, networkx and the theory layer until one of these is asked for.
_FROM_THEORY = ("PreferenceMatrix", "datasets", "read_matrix")
_LAYERS = ("theory", "solvers", "checks", "cli")


def __getattr__(name: str) -> Any:
    import importlib

    if name in _FROM_THEORY:
        value = getattr(importlib.import_module(".theory", __name__), name)
    elif name in _LAYERS:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FROM_THEORY) | set(_LAYERS))

try:
    __version__ = version("duelbound")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = [
    "PreferenceMatrix", "read_matrix", "datasets", "DuelboundError", "InvalidMatrixError",
    "MatrixFileError", "SolverError", "TieError", "__version__",
]
