"""duelbound.theory — preference matrices, tournament structure, KL, regret conventions.

Pure functions over :class:`PreferenceMatrix`; no solvers (docs/math.md §1–§4).
"""

from . import counts, datasets, generators, io, kl, logs, regret, tournament
from .counts import WinCounts, read_counts, write_counts
from .errors import (
    DuelboundError,
    InvalidMatrixError,
    MatrixFileError,
    SolverError,
    TieError,
    UnknownNameError,
)
from .io import read_matrix, write_matrix
from .kl import kl_bernoulli, kl_half, kl_symbolic
from .logs import read_comparisons
from .matrix import PreferenceMatrix
from .regret import CONVENTIONS, conversion_factor, ratio_range, regret_matrix
from .tournament import Structure, structure

__all__ = [
    "PreferenceMatrix", "read_matrix", "Structure", "structure", "datasets", "generators",
    "tournament", "io", "kl", "regret", "kl_bernoulli", "kl_half", "kl_symbolic", "CONVENTIONS",
    "regret_matrix", "conversion_factor", "ratio_range", "DuelboundError",
    "InvalidMatrixError", "TieError", "MatrixFileError", "SolverError", "UnknownNameError",
    "counts", "logs", "WinCounts", "read_counts", "read_comparisons", "write_counts",
    "write_matrix",
]
