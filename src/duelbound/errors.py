"""Exception types shared by every layer of duelbound (the ground floor: imports no layer).

Every error the package raises on bad input derives from :class:`DuelboundError`,
so callers (and the CLI, which turns them into one line on stderr and exit code 2)
can catch one type.  ``duelbound.theory.errors`` re-exports these names.
"""

from __future__ import annotations

__all__ = [
    "DuelboundError",
    "InvalidMatrixError",
    "TieError",
    "MatrixFileError",
    "SolverError",
    "UnknownNameError",
    "shown",
]


class DuelboundError(Exception):
    """Base class of all errors raised deliberately by duelbound."""


class InvalidMatrixError(DuelboundError, ValueError):
    """A preference matrix violates the model of docs/math.md §1.

    Attributes
    ----------
    kind : str
        Machine-readable class of the violation, e.g. ``"not-square"``,
        ``"non-finite"``, ``"out-of-range"``, ``"not-complementary"``,
        ``"diagonal"``, ``"tie"``, ``"too-small"``, ``"empty"``.
    entries : list of tuple of int
        The offending (row, column) entries (0-based), where that applies.
    """

    def __init__(self, message: str, kind: str, entries: list[tuple[int, int]] | None = None):
        super().__init__(message)
        self.kind = kind
        self.entries = list(entries or [])


class TieError(InvalidMatrixError):
    """The matrix has exact ties µ_ij = 1/2 (violates Assumption A, docs/math.md §1)."""

    def __init__(self, message: str, entries: list[tuple[int, int]]):
        super().__init__(message, "tie", entries)


class MatrixFileError(DuelboundError, ValueError):
    """A matrix file cannot be read or parsed."""


class SolverError(DuelboundError, RuntimeError):
    """An LP solver is missing, failed, or reported a non-optimal status."""


class UnknownNameError(DuelboundError, KeyError):
    """An unknown example, algorithm, bound or convention name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def shown(value: object) -> str:
    """How a value is quoted in an error message: ``repr``, but a numpy scalar as the Python
    number it holds — numpy 2 writes ``np.int64(-1)``, which reads as code, not as the
    ``-1`` the user typed.

    >>> import numpy as np
    >>> shown(np.int64(-1)), shown(np.float64(0.25)), shown("cyclic")
    ('-1', '0.25', "'cyclic'")
    """
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():  # a numpy scalar or 0-d array
        value = item()
    return repr(value)
