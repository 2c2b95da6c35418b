"""Regret conventions (SPEC §1, "Regret conventions").

Each convention gives the per-step regret of dueling the pair (i, j):

=========== ============================================ ==============
name        r_ij                                         used by
=========== ============================================ ==============
komiyama    (L_i + L_j − 2 L1) / (2(K − 1))  ∈ [0, 1]    [K16], [W16]
zoghi       2 cpld(1) − cpld(i) − cpld(j)  = 2 r_ij       [Z15]
binary      0 if i, j ∈ Ccop, else 1                     [K16] §2
=========== ============================================ ==============

All three vanish exactly on pairs of Copeland winners, so a bound stated in one
convention converts to another by the range of the per-pair ratio
(:func:`ratio_range`); between ``komiyama`` and ``zoghi`` that ratio is the
constant 2 (:func:`conversion_factor`).

Examples
--------
>>> from duelbound.theory import examples
>>> r = regret_matrix(examples.load("cyclic"))
>>> float(r[1, 2]), float(r[0, 1])
(0.6666666666666666, 0.3333333333333333)
"""

from __future__ import annotations

import numpy as np

from .errors import UnknownNameError
from .matrix import PreferenceMatrix
from .structure import losses

__all__ = ["CONVENTIONS", "regret_matrix", "conversion_factor", "ratio_range",
           "check_convention"]

CONVENTIONS = ("komiyama", "zoghi", "binary")

_CONSTANT_FACTORS = {("komiyama", "zoghi"): 2.0, ("zoghi", "komiyama"): 0.5}


def check_convention(name: str) -> str:
    """Return ``name`` if it is a known convention, else raise UnknownNameError."""
    if name not in CONVENTIONS:
        raise UnknownNameError(
            f"unknown regret convention {name!r}; choose one of {', '.join(CONVENTIONS)}")
    return name


def regret_matrix(M: PreferenceMatrix, convention: str = "komiyama") -> np.ndarray:
    """K×K matrix of per-step regrets r_ij under ``convention`` (SPEC §1).

    The diagonal holds the regret of a self-duel, e.g. r_ii = (L_i − L1)/(K − 1)
    in the komiyama convention.
    """
    check_convention(convention)
    L = losses(M).astype(np.float64)
    l1 = L.min()
    K = M.K
    if convention == "binary":
        win = L == l1
        return np.where(win[:, None] & win[None, :], 0.0, 1.0)
    r = (L[:, None] + L[None, :] - 2.0 * l1) / (2.0 * (K - 1))
    return 2.0 * r if convention == "zoghi" else r


def conversion_factor(src: str, dst: str) -> float:
    """Constant c with r^dst = c · r^src on every pair, when one exists.

    Raises
    ------
    UnknownNameError
        An unknown convention, or a pair of conventions whose ratio depends on
        the matrix (anything involving ``binary``; use :func:`ratio_range`).
    """
    check_convention(src)
    check_convention(dst)
    if src == dst:
        return 1.0
    if (src, dst) in _CONSTANT_FACTORS:
        return _CONSTANT_FACTORS[(src, dst)]
    raise UnknownNameError(
        f"no constant factor converts {src!r} regret to {dst!r}; it depends on the matrix "
        "(use ratio_range(M, src, dst))")


def ratio_range(M: PreferenceMatrix, src: str, dst: str) -> tuple[float, float]:
    """(min, max) of r^dst_ij / r^src_ij over pairs with positive regret.

    A regret bound B in convention ``src`` implies a bound ``max · B`` in ``dst``;
    when min = max the conversion is exact.  The zero pattern (pairs of Copeland
    winners) is the same in every convention.  If every pair has zero regret,
    the constant factor (or 1) is returned.
    """
    a = regret_matrix(M, src)
    b = regret_matrix(M, dst)
    pos = a > 0
    if not pos.any():  # every arm is a Copeland winner: all regrets vanish
        c = _CONSTANT_FACTORS.get((src, dst), 1.0)
        return (c, c)
    ratio = b[pos] / a[pos]
    return (float(ratio.min()), float(ratio.max()))
