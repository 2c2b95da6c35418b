"""Bernoulli Kullback–Leibler divergence, accurate near p = q (docs/math.md §3).

d(p, q) = p log(p/q) + (1 − p) log((1 − p)/(1 − q)), with 0 log 0 = 0 and natural
logarithms.  The naive formula loses all relative accuracy when p ≈ q (two terms
of size |p − q| cancel to leave one of size (p − q)²); :func:`kl_bernoulli` avoids
the cancellation algebraically.

Examples
--------
>>> from duelbound.theory.kl import kl_bernoulli
>>> float(kl_bernoulli(0.5 + 1e-9, 0.5))   # 2x² + 4x⁴/3 + ... with x = 1e-9
2e-18
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

__all__ = ["kl_bernoulli", "kl_bernoulli_scalar", "kl_half", "kl_half_scalar", "kl_symbolic",
           "kl_half_enclosure"]

#: |p − 1/2| below which d(p, 1/2) is summed from its even power series.
HALF_SERIES_X = 0.1

_SERIES_CUTOFF = 0.1
_SERIES_TERMS = 18  # |u| < 0.1: truncation < 0.1^17, far below double precision
_FAR = 0.5  # max(|a|, |b|) above which the textbook formula is the accurate one


def _log1p_minus_x(u: np.ndarray) -> np.ndarray:
    """g(u) = log(1 + u) − u for u > −1, accurate also for small |u|.

    For |u| < 0.1 the series −u²/2 + u³/3 − … is summed by Horner's rule; above,
    ``log1p(u) − u`` loses at most a factor 20 of relative accuracy.
    """
    u = np.asarray(u, dtype=np.float64)
    small = np.abs(u) < _SERIES_CUTOFF
    us = np.where(small, u, 0.0)
    acc = np.zeros_like(us)
    for n in range(_SERIES_TERMS + 1, 1, -1):  # coefficients (-1)^(n+1)/n, n >= 2
        acc = acc * us + ((-1.0) ** (n + 1)) / n
    series = acc * us * us
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = np.log1p(np.where(small, 0.0, u)) - np.where(small, 0.0, u)
    return np.where(small, series, direct)


def _log_ratio(num: np.ndarray, den: np.ndarray, rel: np.ndarray) -> np.ndarray:
    """log(num/den) where num/den = 1 + rel; 0 where num = 0 (weight 0 there)."""
    safe = np.where(num > 0.0, num, 1.0)
    return np.where(rel > -0.5, np.log1p(np.maximum(rel, -0.5)), np.log(safe / den))


def kl_bernoulli(p, q):
    """Bernoulli KL divergence d(p, q), vectorised.

    Parameters
    ----------
    p, q : float or array_like
        Probabilities in [0, 1]; broadcast against each other.

    Returns
    -------
    numpy.ndarray or float
        d(p, q) ≥ 0; ``inf`` where q ∈ {0, 1} and p ≠ q.

    Notes
    -----
    With δ = p − q, a = δ/q, b = −δ/(1 − q) and g(u) = log(1+u) − u,

        d(p, q) = δ² / (q(1 − q)) + p g(a) + (1 − p) g(b),

    because p·a + (1 − p)·b = δ²/(q(1 − q)).  Every term is O(δ²) with no
    cancellation beyond a factor ~2, so d is accurate to a few ulps even for
    |p − q| ~ 1e-9.  When max(|a|, |b|) ≥ 1/2 (p far from q) the textbook form
    is used instead: there it has no cancellation and the rewritten one has.
    Tested against mpmath at 50 digits over the whole unit square.

    References
    ----------
    docs/math.md §3; the KL-based indices of [K16] and [W16].
    """
    p_arr = np.asarray(p, dtype=np.float64)
    q_arr = np.asarray(q, dtype=np.float64)
    p_b, q_b = np.broadcast_arrays(p_arr, q_arr)
    out = np.empty(p_b.shape, dtype=np.float64)
    interior = (q_b > 0.0) & (q_b < 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        qi = np.where(interior, q_b, 0.5)
        pi = np.where(interior, p_b, 0.5)
        delta = pi - qi
        a = delta / qi
        b = -delta / (1.0 - qi)
        ga = _log1p_minus_x(a)
        gb = _log1p_minus_x(b)
        # 0 log 0 = 0: the term with weight p (or 1 - p) vanishes at p = 0 (or 1).
        ta = np.where(pi > 0.0, pi * ga, 0.0)
        tb = np.where(pi < 1.0, (1.0 - pi) * gb, 0.0)
        close = delta * delta / (qi * (1.0 - qi)) + ta + tb
        # Far from q the textbook form has no cancellation (and the one above has).
        # p/q = 1 + a and (1-p)/(1-q) = 1 + b: log1p keeps q or 1 - q near 0 accurate,
        # the plain ratio is accurate when it is far below 1
        na = np.where(pi > 0.0, pi * _log_ratio(pi, qi, a), 0.0)
        nb = np.where(pi < 1.0, (1.0 - pi) * _log_ratio(1.0 - pi, 1.0 - qi, b), 0.0)
        far = na + nb
        val = np.where(np.maximum(np.abs(a), np.abs(b)) < _FAR, close, far)
    val = np.maximum(val, 0.0)
    out[...] = np.where(interior, val, np.where(p_b == q_b, 0.0, np.inf))
    if out.ndim == 0:
        return float(out)
    return out


def kl_half_scalar(p: float) -> float:
    """d(p, 1/2) of one float: the one implementation behind every d_ij (docs/math.md §3).

    Plain ``math`` so that numba compiles it unchanged: the LP costs
    (:mod:`duelbound.solvers.oracle`), the simulator's indices
    (:mod:`duelbound.checks.simulate.algorithms.common`) and :func:`kl_half` on arrays all
    run this code.

    Parameters
    ----------
    p : float
        A probability in [0, 1].

    Returns
    -------
    float
        d(p, 1/2) ≥ 0, accurate to a few ulps (tested against mpmath).

    Notes
    -----
    With x = p − 1/2, d(1/2 + x, 1/2) = Σ_{n≥1} (2x)^{2n} / (2n(2n − 1)); for |x| < 0.1
    thirteen terms reach 1e-20 relative.  Farther out p log(2p) + (1 − p) log(2(1 − p))
    (log1p of ±2x near the centre) cancels by at most a factor ~5.
    """
    x = p - 0.5
    if abs(x) < HALF_SERIES_X:
        y = 4.0 * x * x
        acc = 0.0
        for n in range(13, 0, -1):
            acc = acc * y + 1.0 / (2.0 * n * (2.0 * n - 1.0))
        return acc * y
    # log(2p) = log1p(2x): log1p near p = 1/2, the plain log far below it (where 1 + 2x
    # rounds to 0 for subnormal p, and log1p(-1) = -inf would zero the sum)
    a = 0.0 if p <= 0.0 else p * (math.log(2.0 * p) if p < 0.25 else math.log1p(2.0 * x))
    q = 1.0 - p
    b = 0.0 if q <= 0.0 else q * (math.log(2.0 * q) if q < 0.25 else math.log1p(-2.0 * x))
    return max(a + b, 0.0)


def kl_bernoulli_scalar(p: float, q: float) -> float:
    """d(p, q) of two floats for compiled index computations (SCB's KL index, [Z15] §5).

    Plain ``math`` (numba compiles it).  ``q`` is clipped into [1e-15, 1 − 1e-15] so that
    an index evaluated at an empirical mean of 0 or 1 stays finite; 0 log 0 = 0.  For
    arrays and full accuracy near p = q use :func:`kl_bernoulli`.

    Parameters
    ----------
    p, q : float
        Probabilities in [0, 1].

    Returns
    -------
    float
        d(p, q) ≥ 0.
    """
    eps = 1e-15
    q = min(max(q, eps), 1.0 - eps)
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / q)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return max(out, 0.0)


@functools.cache
def _kl_half_ufunc():
    import numba  # compiled on first use only: the command line starts without numba

    return numba.vectorize(["float64(float64)"], cache=True)(kl_half_scalar)


def kl_half(p):
    """d(p, 1/2), the divergence from a fair coin used for every d_ij (docs/math.md §3).

    Parameters
    ----------
    p : float or array_like
        Probabilities in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        :func:`kl_half_scalar` applied elementwise (one compiled ufunc).
    """
    out = _kl_half_ufunc()(np.asarray(p, dtype=np.float64))
    return float(out) if np.ndim(out) == 0 else out


def kl_symbolic(p, q=None):
    """Exact symbolic d(p, q) as a sympy expression (``q`` defaults to 1/2).

    Rational inputs give an exact expression in logarithms, e.g.
    d(3/5, 1/2) = (3/5) log(6/5) + (2/5) log(4/5).

    Examples
    --------
    >>> import sympy
    >>> kl_symbolic(sympy.Rational(3, 5))
    2*log(4/5)/5 + 3*log(6/5)/5
    """
    import sympy

    p = sympy.nsimplify(p) if not isinstance(p, sympy.Basic) else p
    q = sympy.Rational(1, 2) if q is None else (sympy.nsimplify(q)
                                                if not isinstance(q, sympy.Basic) else q)
    terms = []
    if p != 0:
        terms.append(p * sympy.log(p / q))
    if p != 1:
        terms.append((1 - p) * sympy.log((1 - p) / (1 - q)))
    return sympy.Add(*terms)


def _dyadic(x) -> Fraction:
    """An ``arf`` point of python-flint (mantissa · 2^exponent) as an exact Fraction."""
    if x == 0:
        return Fraction(0)
    m, e = x.man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def kl_half_enclosure(p: Fraction, rel_bits: int = 120) -> tuple[Fraction, Fraction]:
    """Rigorous enclosure [lo, hi] ∋ d(p, 1/2) for an exact rational p (docs/math.md §3).

    Ball arithmetic (python-flint ``arb``) on p log 2p + (1 − p) log 2(1 − p), with 0 log 0
    = 0; the working precision is doubled until the ball's radius is below 2^-rel_bits
    times its midpoint (the two terms cancel to a value ~2(p − ½)², so a gap of 1e-15
    needs ~100 more bits than a gap of 0.1).  The ends are dyadic rationals.

    Parameters
    ----------
    p : Fraction
        The probability, 0 ≤ p ≤ 1, p ≠ 1/2.
    rel_bits : int
        Relative width wanted: hi − lo ≤ 2^-rel_bits · lo (up to one doubling).

    Returns
    -------
    (Fraction, Fraction)
        lo ≤ d(p, 1/2) ≤ hi, lo > 0.
    """
    import flint

    if not 0 <= p <= 1 or p == Fraction(1, 2):
        raise ValueError(f"kl_half_enclosure needs 0 <= p <= 1, p != 1/2; got {p}")
    gap_bits = max(0, -(abs(2 * p - 1).numerator.bit_length()
                        - abs(2 * p - 1).denominator.bit_length()))
    prec = 2 * gap_bits + rel_bits + 64
    old = flint.ctx.prec
    try:
        while True:
            flint.ctx.prec = prec
            pa = flint.arb(flint.fmpq(p.numerator, p.denominator))
            qa = 1 - pa
            val = flint.arb(0)
            if p > 0:
                val += pa * (2 * pa).log()
            if p < 1:
                val += qa * (2 * qa).log()
            lo, hi = _dyadic(val.lower()), _dyadic(val.upper())
            if lo > 0 and (hi - lo) * 2 ** rel_bits <= lo:
                return lo, hi
            prec *= 2
    finally:
        flint.ctx.prec = old
