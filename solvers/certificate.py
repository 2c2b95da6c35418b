"""Exact rational certificates for C*_{i1} (docs/math.md §5.3).

Inputs are rationalised: d_p is the exact rational value of the float d(µ_p, 1/2)
used by the LP, r_p = (L_a + L_b − 2 L1)/(2(K − 1)) is exact, and the cost of the
evidence x_p = q_p d_p is c_p = r_p / d_p.  A certificate for one winner i1 is

* a primal x̂ ∈ [0, 1]^P, checked against **every** constraint of R_{i1} by the
  sorting oracle in exact arithmetic (:func:`exact_min_lhs`), giving C*_{i1} ≤ c·x̂;
* a dual (y, w) of an LP whose rows are constraints of R_{i1} (so the LP is a
  relaxation): y ≥ 0 on the rows, w ≥ 0 on the boxes x ≤ 1, Aᵀy − w ≤ c; weak duality
  gives C*_{i1} ≥ Σ y − Σ w.

Equal bounds prove C*_{i1} exactly for the rational inputs.  This module is the driver:
the routes that find a certificate and the per-winner and overall results.  Its rooms:
:mod:`.certificate_verify` (the :class:`Certificate` and :func:`verify`),
:mod:`.constraint_check` (is a row a constraint of R_{i1}), :mod:`.exact_basis` (the final
HiGHS basis solved in exact arithmetic), :mod:`.compact_dual` (the compact LP's dual split
onto explicit constraints); their public names are importable from here too.

The exact pair comes from the final HiGHS basis of the LP that was actually solved (no
second LP, no row generation in exact arithmetic; :func:`~.exact_basis.exact_basis`).  For
the compact (family) LP the dual lives on family rows and block link rows;
:func:`~.compact_dual.compact_certificate` splits it onto explicit constraints of R_{i1}
with the same objective, so :func:`verify` checks one formulation-free kind of
certificate.  Fallbacks, first success wins: the basis of an explicit-row LP of the rows
tight at x*, then row generation on it, then an exact simplex on small LPs, then a
verified bracket (status "enclosed"): the float dual, rationalised and made feasible by
w_p = max(0, (Aᵀy − c)_p), and the float primal snapped to small denominators and
scaled up to feasibility.  :func:`certify_lower_bound` gathers every winner's result in
one :class:`LowerBoundProof`, which later also holds the enclosure of C* for the matrix as
written (:mod:`.enclosure`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..theory.errors import DuelboundError, UnknownNameError
from ..theory.kl import kl_symbolic
from .certificate_verify import (
    Certificate,
    exact_costs,
    exact_difference,
    exact_inputs,
    exact_min_lhs,
    to_matrix,
    verify,
)
from .compact_dual import compact_certificate, split_compact_dual
from .constraint_check import ConstraintCheck
from .enclosure import Enclosure
from .exact_basis import exact_basis
from .exact_lp import MAX_ROWS, MAX_VARIABLES, solve_exact
from .formulations import rows_lp, violated_rows
from .gc_pause import gc_paused
from .lp import PulpLP

__all__ = ["exact_inputs", "exact_min_lhs", "Certificate", "ConstraintCheck", "verify",
           "certify_winner", "certify_lower_bound", "LowerBoundProof", "WinnerProof",
           "certify_mode", "MODES", "symbolic_value", "MAX_DENOMINATOR", "EXACT_MAX_K",
           "ENCLOSED_MAX_REL_WIDTH", "VERIFIED"]

#: ``certify_winner(mode="auto")`` takes the exact routes up to this K (~0.5 s CPU per
#: winner at K = 136, docs/lower_bound.md) and the floating-point (float-dual) certificate
#: first above it.
EXACT_MAX_K = 136
#: A verified bracket that is not a point (status "enclosed") is accepted only when
#: upper − lower is at most this fraction of lower; a wider one sends certification to the
#: exact routes, and if the last (float-dual-fallback) route is still wider, the result is
#: "failed" with the reason.
ENCLOSED_MAX_REL_WIDTH = 1e-9
#: The old name of :data:`ENCLOSED_MAX_REL_WIDTH` ("interval" names the posterior only).
INTERVAL_MAX_REL_WIDTH = ENCLOSED_MAX_REL_WIDTH
#: Statuses of a verified certificate of C*_{i1}: proved equal to one rational ("exact"),
#: or between two, rigorously ("enclosed"; the name "interval" is kept for the posterior
#: interval of :mod:`.interval`).
VERIFIED = ("exact", "enclosed")
#: Denominator bound when snapping a float primal (vertices of this 0/1 LP have small ones).
MAX_DENOMINATOR = 10_000
#: Tight rows per constraint family in the first explicit-row LP (choices among tied x*
#: values: with all of them, x* is optimal for that LP and its dual certifies C*).
INITIAL_TIE_ROWS = 64
#: Rows added per violated family in later row-generation rounds.
TIE_ROWS = 1


def _explicit_model(M, i1, ws, ties: int = 1):
    """Explicit-row LP of the oracle's rows tight at x*, solved once by HiGHS.

    With every tight subset (``ties`` large enough) x* is optimal for this relaxation
    (same KKT multipliers), so its dual certifies C*_{i1}; with fewer, or when its
    basic primal is another, infeasible vertex (degeneracy), :func:`_complete`
    continues by row generation.
    """

    mu = np.ascontiguousarray(M.values)
    px = ws.px
    keys, rows = violated_rows(mu, i1, px, px.symmetric(ws.x), -1e-7, ties=ties)
    model = PulpLP(rows_lp(px, list(zip(keys, rows))))
    return model, model.solve()


def _complete(M, i1, px, model, sol, max_rounds: int = 500):
    """Row generation on the explicit model until its optimum violates no constraint."""

    mu = np.ascontiguousarray(M.values)
    for _ in range(max_rounds):
        keys, rows = violated_rows(mu, i1, px, px.symmetric(sol.v[:px.pairs.shape[0]]), 1e-9,
                                  ties=TIE_ROWS)
        if not rows:
            break
        model.add_rows(keys, rows)
        sol = model.solve()
    return sol


@gc_paused()  # ~10⁵ acyclic objects: no cyclic-collector passes over them (.gc_pause)
def _basis_certificate(model, sol, c: list[Fraction]) -> Certificate | None:
    """Exact primal and dual from the final basis of ``model.data`` (None if unusable).

    Explicit-row LPs give the certificate directly; compact LPs (with blocks) through
    :func:`compact_certificate`.
    """
    d = model.data
    if d.blocks:
        return compact_certificate(d, sol, c, getattr(model, "px", None),
                                    getattr(model, "i1", None))
    out = exact_basis(d, sol, c)
    if out is None:
        return None
    x, y = out
    rows = [d.indices[d.indptr[r]:d.indptr[r + 1]].tolist() for r in range(d.n_rows)]
    return Certificate(x, y, None, rows)


def _fallback_certificate(M, i1, px, model, sol) -> Certificate:
    """Rationalised float dual (clipped to ≥ 0) and snapped, scaled-up float primal."""
    mu = np.ascontiguousarray(M.values)
    d = model.data
    rows = [d.indices[d.indptr[r]:d.indptr[r + 1]].tolist() for r in range(d.n_rows)]
    y = [Fraction(float(v)) if v > 0 else Fraction(0) for v in sol.y]
    x = _snapped(sol.v[:px.pairs.shape[0]])
    lhs, _ = exact_min_lhs(mu, i1, to_matrix(px, x, M.K))
    if lhs < 1 and lhs > 0:  # scale up: every constraint is a sum of terms in [0, 1]
        x = [min(Fraction(1), v / lhs) for v in x]
    elif lhs <= 0:
        x = [Fraction(1)] * len(x)
    return Certificate(x, y, None, rows)


def _float_certificate(ws) -> Certificate | None:
    """Certificate from the floating-point solution of the LP that was solved (no exact solve
    of the dual basis system).

    Dual: HiGHS's row duals, clipped to ≥ 0, read as exact dyadic rationals and, for a
    compact LP, split onto explicit constraints (:func:`split_compact_dual` with
    ``repair``); :func:`verify` then checks it exactly like any other (genuine rows,
    y ≥ 0, Aᵀy − w ≤ c with w = max(0, Aᵀy − c)), and Σ y − Σ w is a rigorous lower
    bound.  The numbers are short (dyadic, ~53 bits), where the exact dual carries the
    long rational costs.  Primal: the float vertex snapped to denominators ≤
    :data:`MAX_DENOMINATOR` (vertices here have small ones); the caller falls back to
    the exact primal basis solve if that is not feasible.
    """
    data, sol = ws.data, ws.sol
    if data is None or sol.y is None or len(sol.y) != data.n_rows:
        return None
    P = data.n_pairs
    x = _snapped(sol.v[:P])
    if data.blocks:
        groups = split_compact_dual(data, sol.y.tolist(), ws.px, ws.i1, repair=True)
        return None if groups is None else Certificate.from_groups(x, groups)
    rows = [data.indices[data.indptr[r]:data.indptr[r + 1]].tolist()
            for r in range(data.n_rows)]
    y = [Fraction(float(v)) if v > 0 else Fraction(0) for v in sol.y]
    return Certificate(x, y, None, rows)


def _snapped(x: np.ndarray) -> list[Fraction]:
    return [min(Fraction(1), max(Fraction(0), Fraction(float(v)).limit_denominator(
        MAX_DENOMINATOR))) for v in x]


def _float_route(M, ws, c: list[Fraction]) -> tuple[dict[str, Any], Certificate | None]:
    """The floating-point certificate (:func:`_float_certificate`), verified; its primal
    replaced by the exact basic primal if the snapped one is not feasible."""
    cert = _float_certificate(ws)
    if cert is None:
        return {"status": "failed"}, None
    res = verify(M, ws.i1, ws.px, cert, c)
    if not res["checks"].get("primal_feasible") and ws.data is not None:
        out = exact_basis(ws.data, ws.sol, [], dual=False)
        if out is not None:
            cert = cert.with_primal(out[0][:ws.data.n_pairs])
            res = verify(M, ws.i1, ws.px, cert, c)
    return res, cert


#: Certification modes; "interval" is the deprecated spelling of "float-dual" ("interval"
#: names the posterior interval of C*, :mod:`.interval`, and nothing else).
MODES = ("auto", "exact", "float-dual")


def certify_mode(mode: str) -> str:
    """``mode`` checked, with the deprecated alias "interval" mapped to "float-dual"."""
    if mode == "interval":
        import warnings

        warnings.warn("certify mode 'interval' is renamed 'float-dual'", DeprecationWarning,
                      stacklevel=3)
        return "float-dual"
    if mode not in MODES:
        raise UnknownNameError(f"unknown certificate mode {mode!r}; choose 'auto', 'exact' "
                               "or 'float-dual'")
    return mode


def certify_winner(M, ws, mode: str = "auto") -> WinnerProof:
    """Certificate of C*_{i1} for one winner's solve (see module docstring).

    Parameters
    ----------
    M : PreferenceMatrix
        The matrix.
    ws : WinnerSolve
        The winner's LP solve (:func:`~duelbound.solvers.cstar.solve_winner`).
    mode : {"auto", "exact", "float-dual"}
        ``"exact"``: the exact routes below.  ``"float-dual"`` (formerly ``"interval"``,
        still accepted with a DeprecationWarning): first the floating-point
        certificate (route ``float-dual``: HiGHS's duals read as exact dyadic
        rationals, split onto explicit constraints, verified exactly — status
        ``"enclosed"`` with its ``width``, typically ~1e-15 relative), the exact routes
        only if it fails.  ``"auto"``: ``"exact"`` up to K = :data:`EXACT_MAX_K`,
        ``"float-dual"`` above (the exact dual's rationals grow with K: thousands of
        digits, and the exact routes' cost with them).

    Returns
    -------
    WinnerProof
        ``status`` ("exact", "enclosed" or "failed"), ``checks``, ``lower``/``upper``
        (exact rationals), ``route``, ``certificate`` (the :class:`Certificate`), ``time``;
        ``value`` when exact, ``width`` (upper − lower, float) when enclosed.

    Notes
    -----
    Exact routes, first success wins: (0) the final basis of the LP that was solved (a
    compact LP's dual is split onto explicit constraints); (1) the basis
    of the explicit LP of the rows tight at x* gives the exact dual, and its basic primal
    or x* snapped to small denominators the exact primal; (2) row generation on that LP,
    then its basis; (3) an exact simplex on small LPs; (4) the rationalised float dual of
    the last explicit LP (route ``float-dual-fallback``, status "enclosed").
    """
    mode = certify_mode(mode)
    t0 = time.perf_counter()
    i1, px = ws.i1, ws.px
    c = exact_costs(M, px)
    res: dict[str, Any] = {"status": "failed"}
    cert = None
    if mode == "float-dual" or (mode == "auto" and M.K > EXACT_MAX_K):
        res, cert = _float_route(M, ws, c)
        if res["status"] == "exact" or (res["status"] == "enclosed" and _narrow(res)):
            return _finish(res, cert, "float-dual", t0)
    # the LP that was solved (compact blocks or explicit rows): its basis, no second LP
    cert = _basis_certificate(ws, ws.sol, c)
    route = "solved-basis"
    if cert is not None:
        res = verify(M, i1, px, cert, c)
    if res["status"] != "exact":
        model, sol = _explicit_model(M, i1, ws, ties=INITIAL_TIE_ROWS)
        cert = _basis_certificate(model, sol, c)
        route = "basis"
    if cert is not None and res["status"] != "exact":
        res = verify(M, i1, px, cert, c)
        if res["status"] != "exact":
            alt = cert.with_primal(_snapped(ws.x))
            alt_res = verify(M, i1, px, alt, c)
            if alt_res["status"] == "exact":
                cert, res, route = alt, alt_res, "basis-dual+snapped-primal"
    if res["status"] != "exact":  # restart from one row per family: fewer rows, faster rounds
        model, sol = _explicit_model(M, i1, ws, ties=TIE_ROWS)
        sol = _complete(M, i1, px, model, sol)
        cert = _basis_certificate(model, sol, c)
        route = "basis-after-rowgen"
        res = verify(M, i1, px, cert, c) if cert is not None else {"status": "failed"}
    if res["status"] != "exact":  # near-ties the float LP cannot rank: an exact simplex
        simplex = _exact_simplex_certificate(M, i1, ws, c)
        if simplex is not None:
            simplex_res = verify(M, i1, px, simplex, c)
            if simplex_res["status"] == "exact":
                cert, res, route = simplex, simplex_res, "exact-simplex"
    if res["status"] != "exact":
        cert = _fallback_certificate(M, i1, px, model, sol)
        res = verify(M, i1, px, cert, c)
        route = "float-dual-fallback"
    return _finish(res, cert, route, t0)


def _exact_simplex_certificate(M, i1, ws, c: list[Fraction], max_rounds: int = 60
                               ) -> Certificate | None:
    """Row generation around :func:`~duelbound.solvers.exact_lp.solve_exact`: the explicit
    LP of the rows tight at the float x*, solved exactly, then the rows its optimum
    violates (oracle, every family) added until none is; small LPs only."""
    px = ws.px
    P = px.pairs.shape[0]
    if P > MAX_VARIABLES:
        return None
    mu = np.ascontiguousarray(M.values)
    _, start = violated_rows(mu, i1, px, px.symmetric(ws.x), -1e-7, ties=INITIAL_TIE_ROWS)
    rows = list({tuple(sorted(int(v) for v in r)): None for r in start})
    for _ in range(max_rounds):
        if len(rows) > MAX_ROWS:
            return None
        out = solve_exact([list(r) for r in rows], c)
        if out is None:
            return None
        x, y = out
        lhs, _ = exact_min_lhs(mu, i1, to_matrix(px, x, M.K))
        if lhs >= 1:
            return Certificate(x, y, None, [list(r) for r in rows])
        xf = px.symmetric(np.array([float(v) for v in x]))
        new = [tuple(sorted(int(v) for v in r)) for tol in (1e-12, -1e-12)
               for r in violated_rows(mu, i1, px, xf, tol, ties=TIE_ROWS)[1]]
        new = [r for r in dict.fromkeys(new) if r not in set(rows)]
        if not new:
            return None
        rows.extend(new)
    return None


def _narrow(res: dict[str, Any]) -> bool:
    """Is a verified bracket at most :data:`ENCLOSED_MAX_REL_WIDTH` wide (relative)?"""
    lo, hi = res["lower"], res["upper"]  # long rationals: compared, not subtracted
    return lo > 0 and hi <= lo * (1 + Fraction(ENCLOSED_MAX_REL_WIDTH))


def _finish(res: dict[str, Any], cert, route: str, t0: float) -> WinnerProof:
    """The :class:`WinnerProof` of a route's verification ``res`` (:func:`verify`): an
    enclosed bracket wider than :data:`ENCLOSED_MAX_REL_WIDTH` becomes "failed"."""
    status, reason = res["status"], ""
    if status == "enclosed" and not _narrow(res):
        status = "failed"
        reason = (f"the only certificate found, [{float(res['lower']):.6g}, "
                  f"{float(res['upper']):.6g}], is wider than the accepted relative "
                  f"width {ENCLOSED_MAX_REL_WIDTH:g}")
    return WinnerProof(status=status, route=route, certificate=cert,
                       checks=dict(res.get("checks", {})), lower=res.get("lower"),
                       upper=res.get("upper"), time=time.perf_counter() - t0, reason=reason)


def _short(v: Fraction, max_bits: int = 1000) -> str:
    """The rational as "p/q", or its size if too long to print usefully."""
    bits = v.numerator.bit_length() + v.denominator.bit_length()
    return str(v) if bits <= max_bits else f"<rational with ~{int(bits * 0.30103)} digits>"


#: The one-line message of each overall status (``LowerBoundProof.certificate_summary``).
_MESSAGES = {"exact": "certified exact for the rational inputs",
             "enclosed": "certified within [lower, upper]"}


@dataclass(frozen=True)
class WinnerProof:
    """One winner's verified certificate of C*_{i1}: what :func:`certify_winner` returns.

    Attributes
    ----------
    status : str
        "exact" (C*_{i1} = lower = upper for the rational inputs), "enclosed" (C*_{i1} in
        [lower, upper] rigorously, at most :data:`ENCLOSED_MAX_REL_WIDTH` wide, relative)
        or "failed".
    route : str
        The route whose certificate this is (docs/lower_bound.md, "Certificate routes").
    certificate : Certificate or None
        The exact primal and dual (None when no route produced one).
    checks : dict
        :func:`verify`'s checks: ``primal_feasible``, ``dual_feasible``,
        ``objectives_equal``.
    lower, upper : Fraction or None
        The verified bounds (None when that side did not verify).
    time : float
        Seconds spent certifying.
    reason : str
        Why the certificate was refused ("" otherwise).
    """

    status: str
    route: str
    certificate: Certificate | None = None
    checks: dict[str, Any] = field(default_factory=dict)
    lower: Fraction | None = None
    upper: Fraction | None = None
    time: float = 0.0
    reason: str = ""

    @property
    def value(self) -> Fraction | None:
        """C*_{i1} when exact, else None."""
        return self.upper if self.status == "exact" else None

    @property
    def value_float(self) -> float | None:
        return None if self.value is None else float(self.value)

    @property
    def width(self) -> float | None:
        """upper − lower when enclosed, else None."""
        if self.status != "enclosed" or self.lower is None or self.upper is None:
            return None
        return float(exact_difference(self.upper, self.lower))

    def to_dict(self) -> dict[str, Any]:
        """The JSON entry: rationals printed short (:func:`_short`), floats beside them."""
        e: dict[str, Any] = {"status": self.status, "route": self.route,
                             "checks": self.checks, "time": self.time}
        if self.reason:
            e["reason"] = self.reason
        for k in ("lower", "upper", "value"):
            v = getattr(self, k)
            if v is not None:
                e[k] = _short(v)
                e[k + "_float"] = float(v)
        if self.width is not None:
            e["width"] = self.width
        return e


@dataclass(frozen=True)
class LowerBoundProof:
    """The proof of C* in one object: every winner's verified certificate and, from them,
    the enclosure of C* for the matrix as written (on ``LowerBoundResult.proof``).

    Everything else is derived from these fields: the status, the bracket, and the two
    JSON-ready views ``LowerBoundResult.certificate`` (:meth:`certificate_summary`) and
    ``LowerBoundResult.enclosure`` (:meth:`enclosure_summary`).

    Attributes
    ----------
    per_winner : dict of int to dict
        Every Copeland winner's :func:`certify_winner` result (exact rationals and the
        :class:`Certificate`); empty when nothing was certified.
    enclosure : Enclosure or None
        C* of the matrix as written (:func:`~duelbound.solvers.enclosure.enclose`) when
        every certificate verified and it was computed; else None.
    reason : str
        Why there is no certificate (status "uncertified").
    """

    per_winner: dict[int, WinnerProof] = field(default_factory=dict)
    enclosure: Enclosure | None = None
    reason: str = ""

    @property
    def verified(self) -> bool:
        """Did every winner's certificate verify (status in :data:`VERIFIED`)?"""
        return bool(self.per_winner) and all(p.status in VERIFIED
                                             for p in self.per_winner.values())

    @property
    def lower(self) -> Fraction | None:
        """min over winners of the verified lower bounds (C* = min C*_{i1} ≥ it)."""
        return min((p.lower for p in self.per_winner.values() if p.lower is not None),
                   default=None)

    @property
    def upper(self) -> Fraction | None:
        """min over winners of the verified upper bounds (C* ≤ it)."""
        return min((p.upper for p in self.per_winner.values() if p.upper is not None),
                   default=None)

    @property
    def status(self) -> str:
        """"uncertified" (no certificate asked for), "failed" (one did not verify), "exact"
        (all verified and min lower = min upper) or "enclosed" (all verified, C* rigorously
        in [lower, upper])."""
        if not self.per_winner:
            return "uncertified"
        if not self.verified:
            return "failed"
        return "exact" if self.lower == self.upper else "enclosed"

    def certificate_summary(self) -> dict[str, Any]:
        """The JSON-ready statement of the certificates (``LowerBoundResult.certificate``):
        ``status``, ``message``, ``per_winner`` (keyed by winner), ``lower_float``/
        ``upper_float`` and, when enclosed, ``width``; ``status`` and ``reason`` only when
        uncertified."""
        status = self.status
        if status == "uncertified":
            return {"status": status, "reason": self.reason}
        reasons = [p.reason for p in self.per_winner.values() if p.reason]
        msg = _MESSAGES.get(status) or "not certified: " + (
            reasons[0] if reasons else "verification failed")
        out: dict[str, Any] = {
            "status": status, "message": msg,
            "per_winner": {i1: p.to_dict() for i1, p in self.per_winner.items()}}
        lo, hi = self.lower, self.upper
        if lo is not None and hi is not None:
            out["lower_float"], out["upper_float"] = float(lo), float(hi)
            if status == "enclosed":
                out["width"] = float(exact_difference(hi, lo))
        return out

    def enclosure_summary(self) -> dict[str, Any]:
        """The enclosure's JSON-ready statement (``LowerBoundResult.enclosure``), {} without."""
        return self.enclosure.summary() if self.enclosure is not None else {}

    def to_dict(self) -> dict[str, Any]:
        """``certificate`` (winners as string keys, as in JSON) and ``enclosure``."""
        cert = self.certificate_summary()
        if "per_winner" in cert:
            cert["per_winner"] = {str(k): v for k, v in cert["per_winner"].items()}
        return {"certificate": cert, "enclosure": self.enclosure_summary()}


def certify_lower_bound(M, solves: dict, mode: str = "auto") -> LowerBoundProof:
    """Certificate of C* = min over winners of C*_{i1} (``mode`` as in :func:`certify_winner`).

    C* lies in [min lower_{i1}, min upper_{i1}].  With ``mode="auto"`` only the winner
    with the smallest LP value is certified in ``auto`` mode; the others first get the
    cheaper float-dual certificate, which suffices when its lower bound is above that
    winner's upper bound (they cannot be the minimum), and are certified in ``auto``
    mode too otherwise.  The overall status (:attr:`LowerBoundProof.status`): "exact" when
    every certificate verified and the two ends meet, "enclosed" when every certificate
    verified, else "failed".  The proof has no enclosure yet (the caller adds it:
    :func:`~duelbound.solvers.enclosure.enclose`).
    """
    return LowerBoundProof(_certify_winners(M, solves, mode))


def _certify_winners(M, solves: dict, mode: str) -> dict[int, WinnerProof]:
    """:func:`certify_winner` of every winner, the one with the smallest LP value first (in
    ``mode``); with ``mode="auto"`` the others first by the float-dual certificate, again
    in ``auto`` only if its bracket does not lie above that winner's upper bound."""
    order = sorted(solves, key=lambda i1: float(solves[i1].px.cost @ solves[i1].x))
    per = {order[0]: certify_winner(M, solves[order[0]], mode)}
    top = per[order[0]].upper
    for i1 in order[1:]:
        res = certify_winner(M, solves[i1], "float-dual" if mode == "auto" else mode)
        if (mode == "auto" and res.status == "enclosed" and res.lower is not None
                and not (top is not None and res.lower > top)):
            res = certify_winner(M, solves[i1], mode)  # a candidate minimum: full mode
        per[i1] = res
    return per


def symbolic_value(M, ws, cert_entry: WinnerProof | None) -> Any:
    """C*_{i1} in closed form: Σ_p r_p x̂_p / d(µ_p, 1/2) with exact logarithms.

    x̂ is the certified exact vertex (it depends only on which constraints are
    tight, not on the d_p), r_p is exact, and d(p, 1/2) = p log 2p + (1−p) log 2(1−p)
    (:func:`duelbound.theory.kl.kl_symbolic`) of µ_p read as the shortest rational
    that rounds to the stored float (``sympy.nsimplify``: 0.6 → 3/5).  Equal µ give
    equal terms, so e.g. ``cyclic`` collapses to 1/(2 d(3/5, ½)) + 1/d(9/10, ½).
    """
    import sympy


    if cert_entry is None or cert_entry.status != "exact" or cert_entry.certificate is None:
        raise DuelboundError("symbolic=True needs an exact certificate (certify=True, and it "
                             "must succeed)")
    cert = cert_entry.certificate
    _, r, _ = exact_inputs(M, ws.px)
    V = M.values
    total = sympy.Integer(0)
    for (a, b), rp, xp in zip(ws.px.pairs.tolist(), r, cert.x):
        if xp and rp:
            p = sympy.nsimplify(float(max(V[a, b], V[b, a])), rational=True)
            total += sympy.Rational(rp.numerator, rp.denominator) * \
                sympy.Rational(xp.numerator, xp.denominator) / kl_symbolic(p)
    return total
