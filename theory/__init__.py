"""duelbound.theory — preference matrices, tournament structure, KL, regret conventions.

Pure functions over :class:`PreferenceMatrix`; no solvers (SPEC §1).
"""

from . import datasets, examples, generators, io, kl, regret, structure
from .errors import (
    DuelboundError,
    InvalidMatrixError,
    MatrixFileError,
    SolverError,
    TieError,
    UnknownNameError,
)
from .io import read_matrix
from .kl import kl_bernoulli, kl_half, kl_symbolic
from .matrix import PreferenceMatrix
from .regret import CONVENTIONS, conversion_factor, ratio_range, regret_matrix
from .structure import Structure

__all__ = [
    "PreferenceMatrix", "read_matrix", "Structure", "structure", "datasets", "examples", "generators",
    "io", "kl", "regret", "kl_bernoulli", "kl_half", "kl_symbolic", "CONVENTIONS",
    "regret_matrix", "conversion_factor", "ratio_range", "DuelboundError",
    "InvalidMatrixError", "TieError", "MatrixFileError", "SolverError", "UnknownNameError",
]
