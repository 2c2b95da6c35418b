"""Upper-bound terms of the Copeland dueling-bandit algorithms (docs/math.md §7).

Every bound is one function ``f(M, **params) -> BoundTerm`` registered in
:data:`BOUNDS` under its name.  A :class:`BoundTerm` carries the number *and*
what it means: its kind (an exact coefficient of log T, a coefficient of
log log T, or the expression inside an O(·) with no constant), the quantity it
multiplies, its native regret convention, the parameters used, the paper and
theorem, and the paper's assumptions checked on the matrix.

==================  ==========================================  =====================
name                expression                                  source
==================  ==========================================  =====================
cw-rmed             C* (optimal)                                [K16] Th. 2, Th. 3
ecw-rmed            C^E* = min_i1 C^E*_i1                       [K16] Th. 4
ecw-rmed-11         (1/d(½+Δ,½)) Σ_i2 (1 + L_i2/(L_i2−L1+1))    [K16] eq. (11)
ecw-rmed-12         (K/d(½+Δ,½)) (L1 + 3/2 + L1²/K)             [K16] eq. (12)
ccb                 2K(C+L1+1)/Δ²  (zoghi convention)           [Z15] Th. 3
ccb-expected        O((K² + (C+L1)K ln T)/Δ²)                   [Z15] eq. (1)
scb                 O((1/K) Σ_i H_i(1−cpld(i))/Δ_i² · log T)    [Z15] Th. 5
scb-relaxed         O(K(L1 + log K)/Δ_min² · log T)             [Z15] Th. 5
scb-lemma6          O((1/K) Σ_i H_i(1−cpld(i))/(Δ_i^ε)² log 1/δ) [Z15] Lemma 6
scb-lemma6-relaxed  O(H_max (log K + min(ε⁻², L1)) log 1/δ)      [Z15] Lemma 6
d-ts-prop1          Σ_{i<j} [4α/Δ_ij² + (1+ε)/d_ij]              [W16] Prop. 1
d-ts-th1            log T coefficient of (6)                    [W16] Th. 1, Cor. 1
d-ts-th1-loglog     log log T coefficient of (6)                [W16] Th. 1, Cor. 1
savage              O(K²/Δ_min² · log T)                        [U13]
==================  ==========================================  =====================

Δ is Δ_min throughout (docs/math.md §7): for CCB this is *looser* than the gap of
[Z15] App. E; [K16] §4.4 makes the same choice.

Examples
--------
>>> from duelbound.theory import datasets
>>> b = upper_bound(datasets.load("cyclic"), "ccb")
>>> round(b.value, 9), b.convention, b.kind     # 2·4·(1+0+1)/0.1²
(1600.0, 'zoghi', 'exact coefficient of log T')
>>> round(b.converted(datasets.load("cyclic"), "komiyama").value, 9)
800.0
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..frames import html_table, markdown_table, records_to_frame
from ..theory import tournament as st
from ..theory.errors import DuelboundError, UnknownNameError
from ..theory.kl import kl_bernoulli, kl_half
from ..theory.matrix import PreferenceMatrix
from ..theory.regret import Conversion, check_convention, convert
from .shared_solves import cached_ecw_bound, cached_lower_bound

__all__ = [
    "KIND_LOG_T", "KIND_LOGLOG_T", "KIND_ORDER", "KINDS", "AssumptionCheck", "BoundTerm",
    "Conversion", "BOUNDS", "DEFAULT_BOUNDS", "upper_bound", "upper_bounds", "bound_names",
    "scb_quantities", "cw_rmed", "ecw_rmed", "ecw_rmed_eq11", "ecw_rmed_eq12",
    "ccb_theorem3", "ccb_expected", "scb_theorem5", "scb_theorem5_relaxed", "scb_lemma6",
    "scb_lemma6_relaxed", "dts_proposition1", "dts_theorem1", "dts_theorem1_loglog",
    "savage",
]

KIND_LOG_T = "exact coefficient of log T"
KIND_LOGLOG_T = "coefficient of log log T"
KIND_ORDER = "order term (no constant)"
#: The three kinds of bound terms (docs/math.md §7).
KINDS = (KIND_LOG_T, KIND_LOGLOG_T, KIND_ORDER)

#: Paper defaults: α = 0.51 is the CCB / D-TS parameter used in [K16] §5 and
#: [W16] §5.  ε and β are analysis constants of [W16] (any ε > 0, β > 2); the
#: defaults are their limits, see :func:`dts_proposition1`.
DEFAULT_ALPHA = 0.51
#: Relative tolerance for the strict inequalities of [W16] Assumption 2.
TIE_RTOL = 1e-12


@dataclass(frozen=True)
class AssumptionCheck:
    """An assumption a bound needs, checked on the matrix.

    ``holds`` is True / False, or None when the package does not check it
    (``detail`` says why).  ``failing`` lists the offending arms (0-based).
    """

    name: str
    statement: str
    holds: bool | None
    detail: str = ""
    failing: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "statement": self.statement, "holds": self.holds,
                "detail": self.detail, "failing": list(self.failing)}


@dataclass(frozen=True)
class BoundTerm:
    """One upper-bound term of one algorithm on one matrix (docs/math.md §7).

    Attributes
    ----------
    name : str
        Registry key in :data:`BOUNDS`.
    algorithm : str
        Algorithm(s) the bound is about, e.g. ``"D-TS / D-TS+"``.
    expression : str
        The formula, e.g. ``"2K(C+L1+1)/Δ_min²"``.
    value : float
        Value of the expression on the matrix.
    kind : str
        One of :data:`KINDS`.
    multiplies : str
        What the value multiplies: ``"log T"``, ``"log log T"`` or ``"log(1/δ)"``.
    convention : str or None
        Native regret convention; None for sample complexities (numbers of duels).
    params : dict
        Parameters used (α, ε, β, δ); None means "any admissible value".
    source : str
        Paper, theorem / equation.
    assumptions : tuple of AssumptionCheck
    notes : tuple of str
        Readings and departures (e.g. "Δ = Δ_min, looser than [Z15]'s Δ").
    regret_coefficient : bool
        True when ``value`` is an exact log T coefficient of an upper bound on
        the regret of a consistent algorithm, so ``value ≥ C*`` must hold after
        conversion to the komiyama convention (Theorem 2 of [K16]).
    details : dict
        Intermediate quantities (per-arm Δ_i, H_i, σ_i orders, …).
    matrix : str or None
        Name of the matrix.
    """

    name: str
    algorithm: str
    expression: str
    value: float
    kind: str
    multiplies: str
    convention: str | None
    params: dict[str, Any]
    source: str
    assumptions: tuple[AssumptionCheck, ...] = ()
    notes: tuple[str, ...] = ()
    regret_coefficient: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    matrix: str | None = None

    @property
    def assumptions_hold(self) -> bool | None:
        """False if a checked assumption fails, True if all hold, None if some unchecked."""
        states = [a.holds for a in self.assumptions]
        if False in states:
            return False
        return None if None in states else True

    @property
    def failed_assumptions(self) -> list[AssumptionCheck]:
        return [a for a in self.assumptions if a.holds is False]

    def converted(self, M: PreferenceMatrix, convention: str) -> Conversion:
        """This bound in ``convention`` (docs/math.md §4: every table shows the factor).

        Exact log T / log log T coefficients of regret are multiplied by the
        constant factor between the conventions (komiyama ↔ zoghi: 2), or, for
        ``binary``, by the largest per-pair ratio (a valid, possibly loose, upper
        bound).  Order terms and sample complexities are returned unchanged:
        they carry no constant to convert.
        """
        check_convention(convention)
        if self.kind == KIND_ORDER or self.convention is None:
            why = ("order term: constant-free, not converted" if self.kind == KIND_ORDER
                   else "sample complexity (number of duels): no regret convention")
            return Conversion(self.value, self.convention, None, True, why)
        return convert(self.value, self.convention, convention, M, upper=True)

    def in_convention(self, convention: str, M: PreferenceMatrix | None = None) -> BoundTerm:
        """This bound restated exactly in ``convention`` (a new record; ``value`` converted).

        komiyama <-> zoghi is the exact factor 2; ``binary`` needs ``M`` and is
        refused (DuelboundError) unless the per-pair ratio is constant on it — use
        :meth:`converted` for the loose but valid value tables show.  Order terms
        keep their value (no constant to convert); sample complexities and
        SAVAGE (no convention) are returned unchanged.

        Examples
        --------
        >>> from duelbound.theory import datasets
        >>> b = upper_bound(datasets.load("cyclic"), "ccb").in_convention("komiyama")
        >>> round(b.value, 9), b.convention
        (800.0, 'komiyama')
        """
        check_convention(convention)
        if self.convention is None or self.convention == convention:
            return self
        if self.kind == KIND_ORDER:
            return dataclasses.replace(self, convention=convention, notes=self.notes + (
                f"order term: the same in the {self.convention} and {convention} "
                "conventions (no constant)",))
        c = convert(self.value, self.convention, convention, M, upper=True)
        if not c.exact:
            raise DuelboundError(
                f"{self.name}: no exact {self.convention} -> {convention} restatement on this "
                f"matrix ({c.note}); use .converted(M, {convention!r}) for that loose bound")
        return dataclasses.replace(self, value=c.value, convention=convention, notes=self.notes + (
            f"restated from the {self.convention} convention: {c.note}",))

    def _summary(self) -> dict[str, Any]:
        return {"name": self.name, "algorithm": self.algorithm, "value": self.value,
                "multiplies": self.multiplies, "convention": self.convention or "none",
                "kind": self.kind, "source": self.source, "matrix": self.matrix}

    def __repr__(self) -> str:
        conv = (f"{self.convention} convention" if self.convention
                else "no regret convention")
        val = f"{self.value:.6g} x {self.multiplies}"
        val = f"O({val})" if self.kind == KIND_ORDER else val
        return f"<BoundTerm {self.name} = {val} ({conv}; {self.kind}; {self.source})>"

    def to_pandas(self) -> Any:
        """A one-row :class:`pandas.DataFrame` (needs the ``duelbound[pandas]`` extra)."""
        return records_to_frame([self._summary()])

    def _repr_html_(self) -> str:
        return html_table([self._summary()], list(self._summary()), caption=repr(self))

    def _repr_markdown_(self) -> str:
        return markdown_table([self._summary()], list(self._summary()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "algorithm": self.algorithm, "expression": self.expression,
            "value": _finite_or_str(self.value), "kind": self.kind,
            "multiplies": self.multiplies, "convention": self.convention,
            "params": dict(self.params), "source": self.source,
            "assumptions": [a.to_dict() for a in self.assumptions],
            "assumptions_hold": self.assumptions_hold, "notes": list(self.notes),
            "regret_coefficient": self.regret_coefficient,
            "details": _jsonable(self.details), "matrix": self.matrix,
        }


def _finite_or_str(v: float) -> float | str:
    return v if math.isfinite(v) else str(v)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return _jsonable(obj.item())
    if isinstance(obj, float):
        return _finite_or_str(obj)
    return obj


# -- shared quantities ------------------------------------------------------------

@dataclass(frozen=True)
class _Facts:
    K: int
    L: np.ndarray          # L_i
    L1: int
    winners: list[int]
    gap: np.ndarray        # Δ_ij
    dmin: float            # Δ_min
    d: np.ndarray          # d_ij = d(µ_ij, ½)
    cpld: np.ndarray       # normalised Copeland scores


@functools.lru_cache(maxsize=32)
def _facts(M: PreferenceMatrix) -> _Facts:
    return _Facts(K=M.K, L=st.losses(M), L1=st.L1(M), winners=st.copeland_winners(M),
                  gap=st.gaps(M), dmin=st.delta_min(M), d=st.divergences(M),
                  cpld=st.copeland_scores(M, normalized=True))


def _assumption_A(M: PreferenceMatrix) -> AssumptionCheck:
    if M.perturbed:
        return AssumptionCheck(
            "Assumption A", "µ_ij ≠ ½ for i ≠ j", True,
            f"holds after breaking ties {list(M.broken_ties)} by ε = {M.tie_epsilon:g}: "
            "the bound is for the perturbed matrix")
    return AssumptionCheck("Assumption A", "µ_ij ≠ ½ for i ≠ j", True, "no ties")


def _check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if not alpha > 0.5:
        raise DuelboundError(f"alpha must be > 0.5 (CCB, D-TS), got {alpha!r}")
    return alpha


def _check_epsilon(eps: float) -> float:
    eps = float(eps)
    if not (eps >= 0.0 and math.isfinite(eps)):
        raise DuelboundError(f"epsilon must be a finite number >= 0, got {eps!r}")
    return eps


def _check_delta(delta: float | None) -> float | None:
    if delta is None:
        return None
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise DuelboundError(f"delta must lie in (0, 1), got {delta!r}")
    return delta


_EPS_NOTE = ("ε → 0+: the bound holds for every ε > 0, so lim sup R(T)/log T is at most "
             "its ε → 0 limit (the O(K²/ε²) constant is not part of the coefficient)")
_DMIN_NOTE = "Δ = Δ_min"


# -- [K16]: CW-RMED and ECW-RMED ----------------------------------------------------

def cw_rmed(M: PreferenceMatrix) -> BoundTerm:
    """C*: CW-RMED's coefficient, equal to the lower bound ([K16] Th. 2 and Th. 3).

    Computed by :func:`duelbound.solvers.cstar`; the certificate status
    is copied into ``details``.
    """
    lb = cached_lower_bound(M)
    cert = getattr(lb, "certificate", None) or {}
    status = cert.get("status") if isinstance(cert, dict) else getattr(cert, "status", cert)
    return BoundTerm(
        name="cw-rmed", algorithm="CW-RMED", expression="C* = min_i1 C*_i1",
        value=float(lb.value), kind=KIND_LOG_T, multiplies="log T", convention="komiyama",
        params={}, source="[K16] Theorem 3 (optimal: equals the Theorem 2 lower bound)",
        assumptions=(_assumption_A(M), AssumptionCheck(
            "[K16] Theorem 3 uniqueness", "argmin_i1 C*_i1 and its optimal q are unique",
            None, "not checked")),
        regret_coefficient=True,
        details={"winners": list(lb.winners), "certificate": str(status)},
        matrix=M.name)


def ecw_rmed(M: PreferenceMatrix) -> BoundTerm:
    """C^E* = min_i1 C^E*_i1, ECW-RMED's coefficient ([K16] Theorem 4)."""
    res = cached_ecw_bound(M)
    unique = len(res.winners) == 1
    return BoundTerm(
        name="ecw-rmed", algorithm="ECW-RMED", expression="C^E* = min_i1 C^E*_i1",
        value=float(res.value), kind=KIND_LOG_T, multiplies="log T", convention="komiyama",
        params={"alpha": None, "beta": None},
        source="[K16] Theorem 4 (sorted threshold, Theorem 5)",
        assumptions=(_assumption_A(M), AssumptionCheck(
            "[K16] Theorem 4 uniqueness",
            "argmin_i1 C^E*_i1 is unique and R^E*_i1 is a single point", False if not unique
            else None,
            (f"argmin not unique: winners {res.winners}" if not unique else
             "argmin unique; uniqueness of the optimal allocation not checked"),
            tuple(res.winners) if not unique else ())),
        notes=("the coefficient holds for any α > 0, β > 0",),
        regret_coefficient=True,
        details={"per_winner": dict(res.per_winner), "winners": list(res.winners)},
        matrix=M.name)


def _ecw_eq11_raw(f: _Facts) -> float:
    """Σ_{i2 ≠ i1} (1 + L_i2/(L_i2 − L1 + 1)) for any Copeland winner i1."""
    i1 = f.winners[0]  # every winner has L = L1, so the sum does not depend on i1
    Ls = np.delete(f.L, i1).astype(np.float64)
    return float(np.sum(1.0 + Ls / (Ls - f.L1 + 1.0)))


def ecw_rmed_eq11(M: PreferenceMatrix) -> BoundTerm:
    """[K16] eq. (11): (1/d(½+Δ_min, ½)) Σ_{i2≠i1} (1 + L_i2/(L_i2 − L1 + 1)).

    An upper bound on C^E* from the feasible allocation of [K16] §4.4 with
    r_ij ≤ 1 and d_ij ≥ d(½+Δ_min, ½).  The sum is the same for every winner i1.
    """
    f = _facts(M)
    dd = float(kl_half(0.5 + f.dmin))
    s = _ecw_eq11_raw(f)
    return BoundTerm(
        name="ecw-rmed-11", algorithm="ECW-RMED",
        expression="(1/d(½+Δ,½)) Σ_i2≠i1 (1 + L_i2/(L_i2−L1+1))", value=s / dd,
        kind=KIND_LOG_T, multiplies="log T", convention="komiyama", params={},
        source="[K16] eq. (11)", assumptions=(_assumption_A(M),), notes=(_DMIN_NOTE,),
        regret_coefficient=True, details={"d_half_plus_delta": dd, "sum": s}, matrix=M.name)


def ecw_rmed_eq12(M: PreferenceMatrix) -> BoundTerm:
    """[K16] eq. (12): (K/d(½+Δ_min, ½)) (L1 + 3/2 + L1²/K).

    [K16] obtains (12) by maximising the right side of (11) over the L_i2; the
    record checks that step on the matrix ("(11) ≤ (12)") and reports when it
    fails (it can for L1 = 0: see docs/bounds.md).
    """
    f = _facts(M)
    dd = float(kl_half(0.5 + f.dmin))
    v = f.K / dd * (f.L1 + 1.5 + f.L1 ** 2 / f.K)
    v11 = _ecw_eq11_raw(f) / dd
    ok = v11 <= v * (1 + 1e-12)
    return BoundTerm(
        name="ecw-rmed-12", algorithm="ECW-RMED", expression="(K/d(½+Δ,½))(L1 + 3/2 + L1²/K)",
        value=v, kind=KIND_LOG_T, multiplies="log T", convention="komiyama", params={},
        source="[K16] eq. (12)",
        assumptions=(_assumption_A(M), AssumptionCheck(
            "[K16] derivation of (12)", "right side of (11) ≤ right side of (12)", ok,
            f"(11) = {v11:.6g}, (12) = {v:.6g}")),
        notes=(_DMIN_NOTE,), regret_coefficient=True,
        details={"d_half_plus_delta": dd, "eq11": v11}, matrix=M.name)


# -- [Z15]: CCB and SCB -------------------------------------------------------------

def ccb_theorem3(M: PreferenceMatrix, *, alpha: float = DEFAULT_ALPHA,
                 delta: float | None = None) -> BoundTerm:
    """CCB's log T coefficient 2K(C + L1 + 1)/Δ² ([Z15] Theorem 3), zoghi convention.

    With probability 1 − δ, R(T) ≤ A1 + A2 √(ln T) + 2K(C+L1+1)/Δ² · ln T; the
    coefficient depends on neither α nor δ.  Δ is read as Δ_min (docs/math.md §7, as in
    [K16] §4.4), which is looser (larger) than [Z15]'s gap of App. E.

    Examples
    --------
    >>> from duelbound.theory import datasets
    >>> ccb_theorem3(datasets.load("cyclic")).value   # float 0.6 - 0.5 is 0.1 - 2e-17
    1600.000000000001
    """
    f = _facts(M)
    alpha = _check_alpha(alpha)
    delta = _check_delta(delta)
    C = len(f.winners)
    return BoundTerm(
        name="ccb", algorithm="CCB", expression="2K(C+L1+1)/Δ²",
        value=2.0 * f.K * (C + f.L1 + 1) / f.dmin ** 2, kind=KIND_LOG_T, multiplies="log T",
        convention="zoghi", params={"alpha": alpha, "delta": delta},
        source="[Z15] Theorem 3", assumptions=(_assumption_A(M),),
        notes=("Δ = Δ_min, as in [K16] §4.4: looser than the gap of [Z15] App. E",
               "high-probability bound (1 − δ); A1 + A2 √ln T not included",
               "the coefficient does not depend on α or δ"),
        regret_coefficient=True, details={"K": f.K, "C": C, "L1": f.L1, "delta_min": f.dmin},
        matrix=M.name)


def ccb_expected(M: PreferenceMatrix) -> BoundTerm:
    """CCB's expected regret O((K² + (C+L1) K ln T)/Δ²) ([Z15] eq. (1)), as an order term.

    ``value`` is the log T part (C + L1)K/Δ_min²; the additive K²/Δ_min² is in
    ``details``.  [Z15] deduces (1) from Theorem 3 "for α > 1" (read as CCB's α),
    so it describes CCB run with α > 1.
    """
    f = _facts(M)
    C = len(f.winners)
    return BoundTerm(
        name="ccb-expected", algorithm="CCB", expression="O((K² + (C+L1)K ln T)/Δ²)",
        value=(C + f.L1) * f.K / f.dmin ** 2, kind=KIND_ORDER, multiplies="log T",
        convention="zoghi", params={}, source="[Z15] eq. (1)",
        assumptions=(_assumption_A(M),),
        notes=("value = (C+L1)K/Δ_min², the log T part inside O(·)", _DMIN_NOTE,
               "[Z15] states (1) for CCB run with α > 1"),
        details={"additive_K2_over_delta2": f.K ** 2 / f.dmin ** 2}, matrix=M.name)


def scb_quantities(M: PreferenceMatrix, epsilon: float = 0.0) -> dict[str, Any]:
    """[Z15] Definition 4: Δ_i, H_i, H_max and Δ_i^ε for every arm.

    Δ_i = max{cpld(1) − cpld(i), 1/(K−1)}, H_i = Σ_{j≠i} 1/Δ_ij²,
    H_max = max_i H_i, Δ_i^ε = max{Δ_i, ε(1 − cpld(1))}; cpld(1) is the
    normalised score of a Copeland winner.
    """
    f = _facts(M)
    eps = _check_epsilon(epsilon)
    top = float(f.cpld.max())
    Di = np.maximum(top - f.cpld, 1.0 / (f.K - 1))
    off = ~np.eye(f.K, dtype=bool)
    inv = np.zeros_like(f.gap)
    inv[off] = 1.0 / f.gap[off] ** 2
    H = inv.sum(axis=1)
    De = np.maximum(Di, eps * (1.0 - top))
    return {"Delta_i": Di, "H_i": H, "H_max": float(H.max()), "Delta_i_eps": De,
            "cpld": f.cpld.astype(np.float64), "epsilon": eps}


def _scb_sum(q: dict[str, Any], gaps: np.ndarray) -> float:
    """(1/K) Σ_i H_i (1 − cpld(i)) / gaps_i²."""
    return float(np.mean(q["H_i"] * (1.0 - q["cpld"]) / gaps ** 2))


def scb_theorem5(M: PreferenceMatrix) -> BoundTerm:
    """SCB's regret order term (1/K) Σ_i H_i (1 − cpld(i))/Δ_i² · log T ([Z15] Th. 5)."""
    q = scb_quantities(M)
    return BoundTerm(
        name="scb", algorithm="SCB", expression="O((1/K) Σ_i H_i(1−cpld(i))/Δ_i² · log T)",
        value=_scb_sum(q, q["Delta_i"]), kind=KIND_ORDER, multiplies="log T",
        convention="zoghi", params={}, source="[Z15] Theorem 5, Definition 4",
        assumptions=(_assumption_A(M),), details=_scb_details(q), matrix=M.name)


def scb_theorem5_relaxed(M: PreferenceMatrix) -> BoundTerm:
    """The relaxation O(K(L1 + log K)/Δ_min² · log T) of [Z15] Theorem 5."""
    f = _facts(M)
    return BoundTerm(
        name="scb-relaxed", algorithm="SCB", expression="O(K(L1 + log K)/Δ_min² · log T)",
        value=f.K * (f.L1 + math.log(f.K)) / f.dmin ** 2, kind=KIND_ORDER,
        multiplies="log T", convention="zoghi", params={}, source="[Z15] Theorem 5",
        assumptions=(_assumption_A(M),), matrix=M.name)


def scb_lemma6(M: PreferenceMatrix, *, epsilon: float = 0.0,
               delta: float | None = None) -> BoundTerm:
    """Sample complexity of [Z15] Alg. 2 (Lemma 6): (1/K) Σ_i H_i(1−cpld(i))/(Δ_i^ε)² · log(1/δ).

    A number of duels (no regret convention).  ε = 0 (identify a Copeland
    winner) is the case SCB uses; with ``delta`` the value times log(1/δ) is in
    ``details``.
    """
    q = scb_quantities(M, epsilon)
    delta = _check_delta(delta)
    v = _scb_sum(q, q["Delta_i_eps"])
    det = _scb_details(q)
    if delta is not None:
        det["times_log_1_over_delta"] = v * math.log(1.0 / delta)
    return BoundTerm(
        name="scb-lemma6", algorithm="SCB (Alg. 2)",
        expression="O((1/K) Σ_i H_i(1−cpld(i))/(Δ_i^ε)² · log(1/δ))", value=v,
        kind=KIND_ORDER, multiplies="log(1/δ)", convention=None,
        params={"epsilon": q["epsilon"], "delta": delta}, source="[Z15] Lemma 6",
        assumptions=(_assumption_A(M),),
        notes=("sample complexity (duels until an ε-approximate Copeland winner is found)",),
        details=det, matrix=M.name)


def scb_lemma6_relaxed(M: PreferenceMatrix, *, epsilon: float = 0.0,
                       delta: float | None = None) -> BoundTerm:
    """[Z15] Lemma 6's relaxation H_max (log K + min(ε⁻², L1)) · log(1/δ) (ε = 0: min = L1)."""
    f = _facts(M)
    q = scb_quantities(M, epsilon)
    delta = _check_delta(delta)
    eps = q["epsilon"]
    m = f.L1 if eps == 0.0 else min(eps ** -2, f.L1)
    v = q["H_max"] * (math.log(f.K) + m)
    det: dict[str, Any] = {"H_max": q["H_max"]}
    if delta is not None:
        det["times_log_1_over_delta"] = v * math.log(1.0 / delta)
    return BoundTerm(
        name="scb-lemma6-relaxed", algorithm="SCB (Alg. 2)",
        expression="O(H_max (log K + min(ε⁻², L1)) · log(1/δ))", value=v, kind=KIND_ORDER,
        multiplies="log(1/δ)", convention=None, params={"epsilon": eps, "delta": delta},
        source="[Z15] Lemma 6", assumptions=(_assumption_A(M),),
        notes=("sample complexity; ε = 0 reads min(ε⁻², L1) as L1",), details=det,
        matrix=M.name)


def _scb_details(q: dict[str, Any]) -> dict[str, Any]:
    return {"Delta_i": q["Delta_i"].tolist(), "H_i": q["H_i"].tolist(), "H_max": q["H_max"],
            "Delta_i_eps": q["Delta_i_eps"].tolist()}


# -- [W16]: D-TS and D-TS+ ----------------------------------------------------------

def _dts_params(alpha: float, epsilon: float) -> tuple[float, float]:
    return _check_alpha(alpha), _check_epsilon(epsilon)


def dts_proposition1(M: PreferenceMatrix, *, alpha: float = DEFAULT_ALPHA,
                     epsilon: float = 0.0) -> BoundTerm:
    """D-TS's log T coefficient Σ_{i<j} [4α/Δ_ij² + (1+ε)/d_ij] ([W16] Proposition 1, eq. (2)).

    [W16] sums over ordered pairs with µ_ij < ½, i.e. over every unordered pair
    once.  ``epsilon = 0`` is the limit ε → 0+ (the bound holds for every ε > 0,
    so the lim sup of R(T)/log T is at most the limit; the O(K²/ε²) constant
    is not part of the coefficient).
    """
    f = _facts(M)
    alpha, eps = _dts_params(alpha, epsilon)
    iu = np.triu_indices(f.K, 1)
    v = float(np.sum(4.0 * alpha / f.gap[iu] ** 2 + (1.0 + eps) / f.d[iu]))
    return BoundTerm(
        name="d-ts-prop1", algorithm="D-TS / D-TS+", expression="Σ_i<j [4α/Δ_ij² + (1+ε)/d_ij]",
        value=v, kind=KIND_LOG_T, multiplies="log T", convention="komiyama",
        params={"alpha": alpha, "epsilon": eps},
        source="[W16] Proposition 1, eq. (2); Corollary 1 for D-TS+",
        assumptions=(_assumption_A(M),),
        notes=((_EPS_NOTE,) if eps == 0.0 else ()) + ("O(K²/ε²) not included",),
        regret_coefficient=True, matrix=M.name)


def _sigma(M: PreferenceMatrix, i: int) -> np.ndarray:
    """σ_i: all K arms (i included) by decreasing µ_{σ_i(t), i}; ties by index (stable)."""
    col = np.asarray(M.values)[:, i]
    return np.argsort(-col, kind="stable")


def _dts_theorem1_parts(M: PreferenceMatrix, alpha: float, eps: float, beta: float):
    """Both coefficients of [W16] eq. (6) and the Assumption 2 check."""
    f = _facts(M)
    V = np.asarray(M.values)
    win = set(f.winners)
    log_t = 0.0
    for i in f.winners:  # first sum: first candidate a winner; column i, j ≠ i
        col, g, d = V[:, i], f.gap[:, i], f.d[:, i]
        others = np.arange(f.K) != i
        beat = others & (col > 0.5)
        lose = others & (col < 0.5)
        log_t += float(np.sum(4.0 * alpha / g[beat] ** 2) + np.sum((1.0 + eps) / d[lose]))
    loglog = 0.0
    failing, orders = [], {}
    k = f.L1 + 1  # σ_i(L1+1) in 1-based notation is index L1 in the sorted order
    for i in range(f.K):
        if i in win:
            continue
        sig = _sigma(M, i)
        orders[i] = sig.tolist()
        for t in range(k):  # t = 1..L1+1: all beat i, since L_i ≥ L1 + 1
            log_t += 4.0 * alpha / f.gap[sig[t], i] ** 2
        top = V[sig[k - 1], i]
        rest = V[sig[k:], i]  # t = L1+2..K
        strict = top - rest > TIE_RTOL * top
        if not strict.all():
            failing.append(i)
            loglog = math.inf  # d(p, p) = 0: the term diverges
        elif rest.size:
            loglog += beta * (1 + eps) ** 2 * float(np.sum(1.0 / kl_bernoulli(rest, top)))
    check = AssumptionCheck(
        "[W16] Assumption 2", "µ_{σ_i(L1+1), i} > µ_{σ_i(t), i} for all t > L1+1, i ∉ Ccop",
        not failing, ("holds" if not failing else
                      f"fails for arms {failing}: the (L1+1)-th and (L1+2)-th largest entries "
                      "of their columns tie, so Theorem 1 does not apply (Proposition 1 does)"),
        tuple(failing))
    return log_t, loglog, check, orders


def dts_theorem1(M: PreferenceMatrix, *, alpha: float = DEFAULT_ALPHA,
                 epsilon: float = 0.0) -> BoundTerm:
    """The log T coefficient of [W16] Theorem 1, eq. (6) (D-TS; D-TS+ by Corollary 1).

    Σ_{i∈Ccop} [Σ_{j: µ_ji>½} 4α/Δ_ji² + Σ_{j: µ_ji<½} (1+ε)/d(µ_ji, ½)]
    + Σ_{i∉Ccop} Σ_{t=1}^{L1+1} 4α/Δ²_{σ_i(t), i}.  Needs [W16] Assumption 2,
    which is checked (failing arms listed); ``epsilon = 0`` as in
    :func:`dts_proposition1`.
    """
    alpha, eps = _dts_params(alpha, epsilon)
    log_t, _, check, orders = _dts_theorem1_parts(M, alpha, eps, 2.0)
    return BoundTerm(
        name="d-ts-th1", algorithm="D-TS / D-TS+",
        expression="Σ_i∈Ccop[Σ 4α/Δ_ji² + Σ (1+ε)/d_ji] + Σ_i∉Ccop Σ_t≤L1+1 4α/Δ²_σi(t),i",
        value=log_t, kind=KIND_LOG_T, multiplies="log T", convention="komiyama",
        params={"alpha": alpha, "epsilon": eps},
        source="[W16] Theorem 1, eq. (6); Corollary 1 for D-TS+",
        assumptions=(_assumption_A(M), check),
        notes=((_EPS_NOTE,) if eps == 0.0 else ()) + (
            "plus the log log T term (d-ts-th1-loglog), O(K³) and O(K²/ε²)",),
        regret_coefficient=bool(check.holds), details={"sigma": orders}, matrix=M.name)


def dts_theorem1_loglog(M: PreferenceMatrix, *, alpha: float = DEFAULT_ALPHA,
                        epsilon: float = 0.0, beta: float = 2.0) -> BoundTerm:
    """The log log T coefficient of [W16] Theorem 1, eq. (6) (D-TS; D-TS+ by Corollary 1).

    β(1+ε)² Σ_{i∉Ccop} Σ_{t=L1+2}^{K} 1/d(µ_{σ_i(t), i}, µ_{σ_i(L1+1), i}).
    β > 2 and ε > 0 are analysis constants; the defaults β = 2, ε = 0 are the
    limits (the infimum of the admissible coefficients).  Infinite when
    Assumption 2 fails (a divergence between tied entries is 0).
    """
    alpha, eps = _dts_params(alpha, epsilon)
    beta = float(beta)
    if not beta >= 2.0:
        raise DuelboundError(f"beta must be >= 2 ([W16] Theorem 1 needs beta > 2), got {beta!r}")
    _, loglog, check, orders = _dts_theorem1_parts(M, alpha, eps, beta)
    notes = ("β → 2+, ε → 0+: limits of the admissible constants",) if (
        beta == 2.0 and eps == 0.0) else ()
    return BoundTerm(
        name="d-ts-th1-loglog", algorithm="D-TS / D-TS+",
        expression="β(1+ε)² Σ_i∉Ccop Σ_t>L1+1 1/d(µ_σi(t),i, µ_σi(L1+1),i)", value=loglog,
        kind=KIND_LOGLOG_T, multiplies="log log T", convention="komiyama",
        params={"alpha": alpha, "epsilon": eps, "beta": beta},
        source="[W16] Theorem 1, eq. (6); Corollary 1 for D-TS+",
        assumptions=(_assumption_A(M), check), notes=notes, details={"sigma": orders},
        matrix=M.name)


# -- [U13]: Copeland SAVAGE ---------------------------------------------------------

def savage(M: PreferenceMatrix) -> BoundTerm:
    """Copeland SAVAGE's O(K² log T/Δ_min²) ([U13]; stated without explicit constants)."""
    f = _facts(M)
    return BoundTerm(
        name="savage", algorithm="Copeland SAVAGE", expression="O(K²/Δ_min² · log T)",
        value=f.K ** 2 / f.dmin ** 2, kind=KIND_ORDER, multiplies="log T", convention=None,
        params={"delta": "1/T"}, source="[U13] (as quoted in [K16] §5, [Z15] §3)",
        assumptions=(_assumption_A(M),),
        notes=("stated without explicit constants: order term only",
               "no regret convention (constant-free)"),
        matrix=M.name)


# -- registry ------------------------------------------------------------------------

#: name -> function(M, **params) -> BoundTerm.
BOUNDS: dict[str, Callable[..., BoundTerm]] = {
    "cw-rmed": cw_rmed,
    "ecw-rmed": ecw_rmed,
    "ecw-rmed-11": ecw_rmed_eq11,
    "ecw-rmed-12": ecw_rmed_eq12,
    "ccb": ccb_theorem3,
    "ccb-expected": ccb_expected,
    "scb": scb_theorem5,
    "scb-relaxed": scb_theorem5_relaxed,
    "scb-lemma6": scb_lemma6,
    "scb-lemma6-relaxed": scb_lemma6_relaxed,
    "d-ts-prop1": dts_proposition1,
    "d-ts-th1": dts_theorem1,
    "d-ts-th1-loglog": dts_theorem1_loglog,
    "savage": savage,
}

#: Bounds shown by default in tables: the regret bounds (C* itself is the
#: reference column, so ``cw-rmed`` is left out; Lemma 6 is a sample complexity).
DEFAULT_BOUNDS = ("ecw-rmed", "ecw-rmed-11", "ecw-rmed-12", "ccb", "d-ts-prop1", "d-ts-th1",
                  "d-ts-th1-loglog", "ccb-expected", "scb", "scb-relaxed", "savage")


def bound_names() -> list[str]:
    """Registered bound names, in registry order."""
    return list(BOUNDS)


def _lookup(name: str) -> Callable[..., BoundTerm]:
    try:
        return BOUNDS[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown bound {name!r}; known bounds: {', '.join(BOUNDS)}") from None


def _accepted(fn: Callable[..., Any]) -> set[str]:
    return {p.name for p in inspect.signature(fn).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY}


def upper_bound(M: PreferenceMatrix, name: str, *, convention: str | None = None,
                **params: Any) -> BoundTerm:
    """The bound ``name`` of :data:`BOUNDS` on ``M``.

    ``value`` is in the bound's **native** convention by default, as the paper
    states it (CCB: zoghi, so ``upper_bound(M, "ccb").value`` is *twice* the
    komiyama number printed by tables next to ``lower_bound(M).value``); the
    repr says which.  Pass ``convention="komiyama"`` (as tables use) to get it
    restated exactly (:meth:`BoundTerm.in_convention`).

    Raises
    ------
    UnknownNameError
        Unknown bound name.
    DuelboundError
        A parameter the bound does not take, or an inadmissible value.
    """
    fn = _lookup(name)
    bad = set(params) - _accepted(fn)
    if bad:
        raise DuelboundError(f"bound {name!r} takes no parameter(s) {sorted(bad)}; "
                             f"it takes {sorted(_accepted(fn)) or 'none'}")
    term = fn(M, **params)
    return term if convention is None else term.in_convention(convention, M)


def upper_bounds(M: PreferenceMatrix, names: Iterable[str] | None = None,
                 params: dict[str, Any] | None = None) -> list[BoundTerm]:
    """Several bounds on ``M``; each takes the entries of ``params`` it accepts.

    ``params`` are shared parameters such as ``{"alpha": 0.6, "epsilon": 0.1}``;
    a name that no requested bound accepts is an error.
    """
    names = list(DEFAULT_BOUNDS if names is None else names)
    fns = [_lookup(n) for n in names]
    params = dict(params or {})
    unused = set(params) - set().union(*(_accepted(fn) for fn in fns)) if fns else set(params)
    if unused:
        raise DuelboundError(f"no requested bound takes parameter(s) {sorted(unused)}")
    return [fn(M, **{k: v for k, v in params.items() if k in _accepted(fn)}) for fn in fns]
