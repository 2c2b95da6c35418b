"""Regret conventions (docs/math.md §4).

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

:func:`convert` restates one coefficient (exactly, or by the per-pair ratio on
the safe side, labelled "not exact"); :func:`restate` restates a whole result
object (``LowerBoundResult``, ``ECWBoundResult``) and refuses when no constant
factor exists, so a result object is always in exactly one convention.

Examples
--------
>>> from duelbound.theory import datasets
>>> r = regret_matrix(datasets.load("cyclic"))
>>> float(r[1, 2]), float(r[0, 1])
(0.6666666666666666, 0.3333333333333333)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

import numpy as np

from ..frames import html_table, markdown_table, records_to_frame
from .errors import DuelboundError, UnknownNameError
from .matrix import PreferenceMatrix
from .tournament import losses

__all__ = ["CONVENTIONS", "regret_matrix", "conversion_factor", "ratio_range",
           "check_convention", "Conversion", "convert", "restate", "ConventionMixin"]

CONVENTIONS = ("komiyama", "zoghi", "binary")

_CONSTANT_FACTORS = {("komiyama", "zoghi"): 2.0, ("zoghi", "komiyama"): 0.5}


def check_convention(name: str) -> str:
    """Return ``name`` if it is a known convention, else raise UnknownNameError."""
    if name not in CONVENTIONS:
        raise UnknownNameError(
            f"unknown regret convention {name!r}; choose one of {', '.join(CONVENTIONS)}")
    return name


def regret_matrix(M: PreferenceMatrix, convention: str = "komiyama") -> np.ndarray:
    """K×K matrix of per-step regrets r_ij under ``convention`` (docs/math.md §4).

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


@dataclass(frozen=True)
class Conversion:
    """A coefficient restated in another regret convention.

    ``factor`` multiplies the native value (None for order terms and sample
    complexities, which are not converted); ``exact`` is False when the factor is
    the largest (upper bounds) or smallest (lower bounds) per-pair ratio of
    :func:`ratio_range`, which gives a valid but loose bound.
    """

    value: float
    convention: str | None
    factor: float | None
    exact: bool
    note: str

    def to_dict(self) -> dict[str, Any]:
        v = self.value
        return {"value": v if np.isfinite(v) else str(v), "convention": self.convention,
                "factor": self.factor, "exact": self.exact, "note": self.note}


def convert(value: float, src: str, dst: str, M: PreferenceMatrix | None = None, *,
            upper: bool) -> Conversion:
    """Restate a coefficient of ``src`` regret in ``dst``.

    A constant factor when one exists (komiyama <-> zoghi: 2, exact).  Otherwise
    (``binary``) the per-pair ratio on the safe side: the largest for an upper
    bound (``upper=True``), the smallest for a lower bound; exact only when the
    ratio is the same on every pair.  ``M`` is needed in that case.

    Examples
    --------
    >>> convert(1600.0, "zoghi", "komiyama", upper=True).value
    800.0
    """
    try:
        f = conversion_factor(src, dst)
        return Conversion(value * f, dst, f, True,
                          "native" if f == 1.0 else f"{src} -> {dst}: x{f:g} (exact)")
    except UnknownNameError:
        if M is None:
            raise DuelboundError(f"converting {src!r} to {dst!r} depends on the matrix: "
                                 "pass M") from None
    lo, hi = ratio_range(M, src, dst)
    f = hi if upper else lo
    exact = lo == hi
    side = "largest" if upper else "smallest"
    note = (f"{src} -> {dst}: x{f:.6g} (exact: constant per-pair ratio)" if exact else
            f"{src} -> {dst}: x{f:.6g}, the {side} per-pair ratio in [{lo:.6g}, {hi:.6g}]"
            f" ({'upper' if upper else 'lower'} bound, not exact)")
    return Conversion(value * f, dst, f, exact, note)


class BoundResultLike(Protocol):
    """What :func:`restate` needs of a bound result (a dataclass with these fields)."""

    value: float
    per_winner: Mapping[int, float]
    winners: Sequence[int]
    convention: str


_R = TypeVar("_R", bound=BoundResultLike)


def restate(result: _R, convention: str, M: PreferenceMatrix | None = None) -> _R:
    """A copy of a bound result (``value``, ``per_winner``, ``convention``) in ``convention``.

    Only exact restatements are made: komiyama <-> zoghi always, ``binary``
    only when the per-pair ratio is constant on ``M`` (else DuelboundError: a
    rescaled C* would be a loose bound, not C* in that convention; tables show
    such loose values, labelled, via ``bound_table(..., convention="binary")``).
    Allocations do not depend on the convention and are kept.
    """
    check_convention(convention)
    src = result.convention
    if src == convention:
        return result
    c = convert(1.0, src, convention, M, upper=False)
    if not c.exact:
        assert M is not None  # convert() is exact without a matrix only
        lo, hi = ratio_range(M, src, convention)
        raise DuelboundError(
            f"no exact {src} -> {convention} restatement on this matrix: the per-pair ratio "
            f"ranges over [{lo:.6g}, {hi:.6g}]; tables show a labelled loose bound instead "
            f"(bound_table(..., convention={convention!r}))")
    f = c.factor
    assert f is not None  # an exact conversion has its factor
    return cast(_R, dataclasses.replace(
        cast(Any, result), value=result.value * f, convention=convention,
        per_winner={k: v * f for k, v in result.per_winner.items()}))


class ConventionMixin:
    """Convention-aware display for bound results with ``value``, ``per_winner``, ``winners``
    and ``convention`` (``LowerBoundResult``, ``ECWBoundResult``).

    Gives :meth:`in_convention` (:func:`restate`), a short repr that names the
    convention, :meth:`to_pandas` (one row per Copeland winner; needs the
    ``duelbound[pandas]`` extra) and notebook displays.  A dataclass writes its
    own ``__repr__``, so the class sets ``__repr__ = ConventionMixin.__repr__``.
    """

    #: Name of the quantity in reprs, e.g. ``"C*"``.
    quantity = "value"
    # Fields of the dataclasses that use the mixin (annotations only: a plain class's
    # annotations do not become fields of a dataclass subclass).
    value: float
    per_winner: Mapping[int, float]
    winners: Sequence[int]
    convention: str

    def in_convention(self, convention: str, M: PreferenceMatrix | None = None) -> Any:
        """This result restated exactly in ``convention`` (see :func:`restate`)."""
        return restate(self, convention, M)

    def records(self) -> list[dict[str, Any]]:
        """One record per Copeland winner i1: its value, whether it attains the minimum."""
        return [{"winner": k, f"{self.quantity}_i1": v, "minimiser": k in self.winners,
                 "convention": self.convention} for k, v in self.per_winner.items()]

    def to_pandas(self) -> Any:
        """The per-winner records as a :class:`pandas.DataFrame` (``duelbound[pandas]``)."""
        return records_to_frame(self.records())

    def __repr__(self) -> str:
        cert = getattr(self, "certificate", None)
        status = cert.get("status") if isinstance(cert, dict) else None
        return (f"<{type(self).__name__} {self.quantity} = {self.value:.6g} x log T "
                f"({self.convention} convention), minimising winners {list(self.winners)}"
                + (f", certificate {status}" if status else "") + ">")

    def _repr_html_(self) -> str:
        rows = self.records()
        return html_table(rows, list(rows[0]) if rows else [], caption=repr(self))

    def _repr_markdown_(self) -> str:
        rows = self.records()
        return markdown_table(rows, list(rows[0]) if rows else [], caption=repr(self))
