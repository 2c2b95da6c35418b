"""The exception types, re-exported from the ground floor :mod:`duelbound.errors`.

``from duelbound.theory.errors import DuelboundError`` keeps working (it is how the
package and its users have always imported them); the classes live in
:mod:`duelbound.errors` so that every layer, and the root utilities below the layers,
can raise them without importing ``theory``.
"""

from __future__ import annotations

from ..errors import (
    DuelboundError,
    InvalidMatrixError,
    MatrixFileError,
    SolverError,
    TieError,
    UnknownNameError,
)

__all__ = [
    "DuelboundError",
    "InvalidMatrixError",
    "TieError",
    "MatrixFileError",
    "SolverError",
    "UnknownNameError",
]
