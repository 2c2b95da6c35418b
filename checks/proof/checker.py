"""Independent checker of duelbound's C* certificates (format: docs/certificates.md).

Trusted base: the Python standard library (``fractions``, integers).  Nothing from the
solver path is imported (no PuLP, HiGHS, numba, numpy, ``duelbound.solvers``); every
test is exact rational arithmetic, and the one transcendental quantity, d(µ, ½), is
enclosed by two series summed in integer fixed point with directed rounding.

What a valid certificate proves ([K16] Theorem 2, docs/math.md §5): for every Copeland
winner i1 of the rational matrix ``mu``, C*_{i1} = min Σ_p c_p x_p over x ≥ 0 in R_{i1},
with c_p = r_p / d(µ_p, ½) and r the komiyama regret; and C* = min over winners.

* upper: x̂ satisfies **every** constraint of R_{i1} (the sorting oracle of [K16] §4.1.1:
  for each (i2, l, case) the smallest left-hand side takes the smallest x values), so
  C*_{i1} ≤ Σ c⁺_p x̂_p with c⁺_p ≥ c_p;
* lower: y ≥ 0 on named constraints of R_{i1} and w ≥ 0 with Aᵀy − w ≤ c⁻ ≤ c, so
  C*_{i1} ≥ Σ y − Σ w for the LP with the box x ≤ 1 — which has the same minimum,
  since lowering an entry above 1 to 1 keeps every constraint (terms ≥ 0, right side 1)
  and does not raise the cost.
* C^E* ([K16] Theorem 5): the sorted-threshold value, an LP minimum hence non-decreasing
  in every cost, recomputed exactly at c⁻ and at c⁺.

Usage: ``duelbound check-certificate cert.json`` or :func:`check_certificate`.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction

__all__ = ["CertificateError", "check_certificate", "check_file", "kl_half_bounds"]

HALF = Fraction(1, 2)


class CertificateError(ValueError):
    """The certificate does not prove its claim; the message says where."""


def _frac(text, where: str) -> Fraction:
    if not isinstance(text, str):
        raise CertificateError(f"{where}: expected a rational as a string 'p/q', got {text!r}")
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise CertificateError(f"{where}: {text!r} is not a rational 'p/q'") from None


# -- d(µ, 1/2) enclosed: positive series in integer fixed point, directed rounding -------
def _series(ratio: Fraction, den, bits: int) -> tuple[Fraction, Fraction]:
    """[lo, hi] ∋ Σ_{k≥0} ratio^k / den(k) for 0 ≤ ratio ≤ 1/2 and den(k) ≥ 1 increasing.

    The powers are kept as integers scaled by 2^bits, rounded down for the lower sum and
    up for the upper; the tail after the last term is ≤ 2 · (last power) (ratio ≤ 1/2).
    """
    one = 1 << bits
    p_lo = p_hi = one
    lo = hi = k = 0
    n, m = ratio.numerator, ratio.denominator
    while p_hi > 0 and k < 4 * bits:
        lo += p_lo // den(k)
        hi += -(-p_hi // den(k))
        p_lo, p_hi, k = p_lo * n // m, -(-p_hi * n // m), k + 1
    return Fraction(lo, one), Fraction(hi + 2 * p_hi + 1, one)


def _log(y: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """[lo, hi] ∋ log y for rational y > 0: y = 2^e z, z ∈ [1, 2), log z = 2 atanh(s)."""
    e = y.numerator.bit_length() - y.denominator.bit_length()
    z = y / Fraction(2) ** e
    if z < 1:
        z, e = 2 * z, e - 1
    def atanh2(s: Fraction) -> tuple[Fraction, Fraction]:  # 2 atanh(s) = 2s Σ s^2k/(2k+1)
        lo, hi = _series(s * s, lambda k: 2 * k + 1, bits)
        return 2 * s * lo, 2 * s * hi
    l2lo, l2hi = atanh2(Fraction(1, 3))  # log 2
    zlo, zhi = atanh2((z - 1) / (z + 1))
    return (zlo + e * (l2lo if e >= 0 else l2hi), zhi + e * (l2hi if e >= 0 else l2lo))


def kl_half_bounds(mu: Fraction, bits: int = 160) -> tuple[Fraction, Fraction]:
    """[lo, hi] ∋ d(µ, ½) = µ log 2µ + (1 − µ) log 2(1 − µ), µ ≠ ½ (0 log 0 = 0).

    With u = |2µ − 1|: d = Σ_{k≥1} u^2k / (2k(2k − 1)) (all terms positive) for u ≤ 1/2,
    relative precision ~2^-bits; else ((1+u) log(1+u) + (1−u) log(1−u)) / 2, d > 0.13.
    """
    u = abs(2 * mu - 1)
    if u <= HALF:
        t = u * u
        lo, hi = _series(t, lambda k: (2 * k + 2) * (2 * k + 1), bits)
        return t * lo, t * hi
    a_lo, a_hi = _log(1 + u, bits)
    b_lo, b_hi = _log(1 - u, bits) if u < 1 else (Fraction(0), Fraction(0))
    return ((1 + u) * a_lo + (1 - u) * b_lo) / 2, ((1 + u) * a_hi + (1 - u) * b_hi) / 2


# -- the matrix and its tournament ---------------------------------------------------------
def _matrix(doc: dict) -> list[list[Fraction]]:
    rows = doc.get("matrix", {}).get("mu")
    if not isinstance(rows, list) or len(rows) < 2:
        raise CertificateError("matrix.mu: a K×K list of rationals with K ≥ 2 is required")
    K = len(rows)
    if any(not isinstance(r, list) or len(r) != K for r in rows):
        raise CertificateError(f"matrix.mu: every row must have K = {K} entries")
    mu = [[_frac(v, f"matrix.mu[{i}][{j}]") for j, v in enumerate(r)] for i, r in enumerate(rows)]
    for i in range(K):
        if mu[i][i] != HALF:
            raise CertificateError(f"matrix.mu[{i}][{i}] = {mu[i][i]}, not 1/2")
        for j in range(i + 1, K):
            if not 0 <= mu[i][j] <= 1 or mu[i][j] + mu[j][i] != 1:
                raise CertificateError(f"matrix.mu[{i}][{j}], [{j}][{i}]: not in [0, 1] "
                                       "or not summing to 1")
            if mu[i][j] == HALF:
                raise CertificateError(f"matrix.mu[{i}][{j}] = 1/2: a tie (no C* is defined)")
    return mu


def _families(i1, i2, L, l2, inferiors, superiors):
    """(l, case, A, m, B, s) of every constraint family (i2, l, case) of R_{i1} (math.md §5.1)."""
    A = [j for j in inferiors[i1] if j != i2]
    B = [j for j in superiors[i2] if j != i1]
    for l in range(max(0, L[i1] - 1), l2 + 1):
        m = l + 1 - L[i1]
        s = max(0, L[i2] - l)
        if m <= len(A) and s <= len(B):
            yield l, 0, A, m, B, s
        if i2 in inferiors[i1] and m >= 1 and m - 1 <= len(A) and max(0, s - 1) <= len(B):
            yield l, 1, A, m - 1, B, max(0, s - 1)


def _check_winner(entry, i1, K, L, l2, inferiors, superiors, cost) -> tuple[Fraction, Fraction]:
    where = f"per_winner[{i1}]"
    X = [[Fraction(0)] * K for _ in range(K)]
    upper = Fraction(0)
    for k, (a, b, v) in enumerate(entry.get("primal", [])):
        x = _frac(v, f"{where}.primal[{k}]")
        if not (0 <= a < K and 0 <= b < K and a != b) or X[a][b] or not 0 <= x <= 1:
            raise CertificateError(f"{where}.primal[{k}]: bad pair ({a}, {b}), a repeated "
                                   f"pair, or x = {x} outside [0, 1]")
        X[a][b] = X[b][a] = x
        upper += cost(a, b, where)[1] * x
    def prefix(owner: int, members: list[int]) -> list[Fraction]:  # sums of the k smallest
        out = [Fraction(0)]
        for v in sorted(X[owner][j] for j in members):
            out.append(out[-1] + v)
        return out

    for i2 in range(K):  # primal feasibility: every constraint, by sorting
        if i2 == i1:
            continue
        pa = pb = None
        for l, case, A, m, B, s in _families(i1, i2, L, l2, inferiors, superiors):
            pa, pb = pa or prefix(i1, A), pb or prefix(i2, B)
            lhs = pa[m] + pb[s] + (X[i1][i2] if case == 1 else 0)
            if lhs < 1:
                raise CertificateError(f"{where}: the primal violates the constraint "
                                       f"(i2={i2}, l={l}, case {case}): left side {lhs} < 1")
    g: dict[tuple[int, int], Fraction] = {}
    total_y = Fraction(0)
    for k, row in enumerate(entry.get("dual", [])):
        y, i2, l = _frac(row.get("y"), f"{where}.dual[{k}].y"), row.get("i2"), row.get("l")
        I, S = row.get("I", []), row.get("S", [])
        ok = (isinstance(i2, int) and isinstance(l, int) and i2 != i1 and 0 <= i2 < K
              and max(0, L[i1] - 1) <= l <= l2 and y >= 0
              and len(set(I)) == len(I) == l + 1 - L[i1] and set(I) <= set(inferiors[i1])
              and len(set(S)) == len(S) == max(0, L[i2] - l - (i2 in I))
              and set(S) <= set(superiors[i2]) - {i1} and (I or S))
        if not ok:
            raise CertificateError(f"{where}.dual[{k}]: (i2={i2}, l={l}, I={I}, S={S}, y={y}) "
                                   f"is not a constraint of R_{i1} with y >= 0")
        total_y += y
        for p in [(min(i1, j), max(i1, j)) for j in I] + [(min(i2, j), max(i2, j)) for j in S]:
            g[p] = g.get(p, Fraction(0)) + y
    box: dict[tuple[int, int], Fraction] = {}
    for k, (a, b, v) in enumerate(entry.get("box", [])):
        w = _frac(v, f"{where}.box[{k}]")
        if w < 0 or (min(a, b), max(a, b)) in box:
            raise CertificateError(f"{where}.box[{k}]: w = {w} < 0 or a repeated pair")
        box[min(a, b), max(a, b)] = w
    for p, gp in g.items():  # dual feasibility: (Aᵀy)_p − w_p ≤ c⁻_p
        if gp - box.get(p, Fraction(0)) > cost(*p, where)[0]:
            raise CertificateError(f"{where}: dual infeasible at pair {p}: (A^T y - w) = "
                                   f"{float(gp - box.get(p, 0)):.17g} exceeds its cost")
    lower = total_y - sum(box.values(), Fraction(0))
    for name, got in (("lower", lower), ("upper", upper)):
        said = _frac(entry.get(name), f"{where}.{name}")
        if said != got:
            raise CertificateError(f"{where}.{name} = {float(said):.17g} but the certificate "
                                   f"proves {float(got):.17g}")
    return lower, upper


def check_certificate(doc: dict, bits: int = 160) -> dict:
    """See :func:`_check` (malformed documents raise CertificateError too)."""
    try:
        return _check(doc, bits)
    except CertificateError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise CertificateError(f"malformed certificate ({type(exc).__name__}: {exc})") from None


def _check(doc: dict, bits: int) -> dict:
    """Check a certificate document; returns the proven bracket, raises CertificateError.

    Returns
    -------
    dict
        ``lower``/``upper`` (exact rationals as strings and binary64), ``K``,
        ``winners`` — C* of ``matrix.mu`` provably lies in [lower, upper].
    """
    if doc.get("format") != "duelbound-cstar-certificate" or doc.get("version") != 1:
        raise CertificateError("not a duelbound C* certificate of version 1 "
                               f"(format {doc.get('format')!r}, version {doc.get('version')!r})")
    mu = _matrix(doc)
    K = len(mu)
    inferiors = [[j for j in range(K) if mu[i][j] > HALF] for i in range(K)]
    superiors = [[j for j in range(K) if mu[i][j] < HALF] for i in range(K)]
    L = [len(s) for s in superiors]
    l1, l2 = sorted(L)[0], sorted(L)[1]
    winners = [i for i in range(K) if L[i] == l1]
    if doc.get("winners") != winners or doc.get("losses") != L:
        raise CertificateError(f"winners/losses: the matrix has Copeland winners {winners} "
                               f"and losses {L}")
    costs: dict[tuple[int, int], tuple[Fraction, Fraction]] = {}
    for k, e in enumerate(doc.get("pairs", [])):
        a, b = e["pair"]
        dl, dh = (_frac(v, f"pairs[{k}].d") for v in e["d"])
        cl, ch = (_frac(v, f"pairs[{k}].cost") for v in e["cost"])
        r = Fraction(L[a] + L[b] - 2 * l1, 2 * (K - 1)) if 0 <= a < b < K else Fraction(0)
        lo, hi, b2 = dl, dh, bits
        while r and b2 <= 16 * bits:  # a narrower enclosure than ours: more bits
            lo, hi = kl_half_bounds(mu[a][b], b2)
            if dl <= lo and hi <= dh:
                break
            b2 *= 4
        if r == 0 or (a, b) in costs or not (0 < dl <= lo and hi <= dh):
            raise CertificateError(f"pairs[{k}] ({a}, {b}): not a pair with positive regret "
                                   "listed once, or d(mu, 1/2) not inside [d_lo, d_hi]")
        if not (0 <= cl and cl * dh <= r <= ch * dl):
            raise CertificateError(f"pairs[{k}] ({a}, {b}): cost bounds do not enclose r/d")
        costs[a, b] = (cl, ch)

    def cost(a: int, b: int, where: str) -> tuple[Fraction, Fraction]:
        a, b = min(a, b), max(a, b)
        if L[a] == L[b] == l1:
            return Fraction(0), Fraction(0)  # two Copeland winners: regret 0
        if (a, b) not in costs:
            raise CertificateError(f"{where}: pair ({a}, {b}) is used but has no cost entry")
        return costs[a, b]

    entries = {e.get("winner"): e for e in doc.get("per_winner", [])}
    if sorted(entries) != winners:
        raise CertificateError(f"per_winner: one entry per Copeland winner {winners} needed")
    proven = [_check_winner(entries[i], i, K, L, l2, inferiors, superiors, cost)
              for i in winners]
    lower, upper = min(p[0] for p in proven), min(p[1] for p in proven)
    claim = _claimed(doc.get("claim", {}), "claim", lower, upper)
    # C^E* ([K16] Theorem 5): an LP minimum, non-decreasing in every cost, so its exact
    # values at the cost bounds c- and c+ enclose it; no dual is needed
    ecw = doc.get("ecw", {})
    stated = {e.get("winner"): e for e in ecw.get("per_winner", [])}
    if sorted(stated) != winners:
        raise CertificateError(f"ecw.per_winner: one entry per Copeland winner {winners} needed")
    brackets = []
    for i1 in winners:
        got = [_ecw_value(i1, end, K, L, inferiors, superiors, cost) for end in (0, 1)]
        for name, g in zip(("lower", "upper"), got):
            if _frac(stated[i1].get(name), f"ecw[{i1}].{name}") != g:
                raise CertificateError(f"ecw[{i1}].{name} is not the sorted-threshold value "
                                       f"at the {name} cost bounds ({float(g):.17g})")
        brackets.append(got)
    ecw_claim = _claimed(ecw, "ecw", min(b[0] for b in brackets), min(b[1] for b in brackets))
    return {"K": K, "winners": winners, "lower": str(lower), "upper": str(upper),
            "lower_float": claim["lower_float"], "upper_float": claim["upper_float"],
            "ecw_lower_float": ecw_claim["lower_float"],
            "ecw_upper_float": ecw_claim["upper_float"]}


def _claimed(section: dict, where: str, lower: Fraction, upper: Fraction) -> dict:
    """The stated bracket must be exactly what was proven, and its floats the outward
    roundings (a claim one ulp weaker is rejected too)."""
    for name, got, rnd in (("lower", lower, -1), ("upper", upper, 1)):
        said = _frac(section.get(name), f"{where}.{name}")
        f = section.get(f"{name}_float")
        if said != got:
            raise CertificateError(f"{where}.{name} = {float(said):.17g} but the certificate "
                                   f"proves {float(got):.17g}")
        if not isinstance(f, float) or (Fraction(f) - got) * rnd < 0 or \
                (Fraction(_next(f, -rnd)) - got) * rnd >= 0:
            raise CertificateError(f"{where}.{name}_float = {f!r} is not {name} rounded "
                                   f"{'down' if rnd < 0 else 'up'} to binary64")
    return section


def _ecw_value(i1, end, K, L, inferiors, superiors, cost) -> Fraction:
    """C^E*_{i1} at the cost bounds ``end`` (0: c-, 1: c+): the inferiors' costs plus, per
    rival i2, min over h of (the h smallest costs of S_{i2} minus i1) / (h - (n - m))."""
    total = sum((cost(i1, j, "ecw")[end] for j in inferiors[i1]), Fraction(0))
    for i2 in (i for i in range(K) if i != i1):
        c = sorted(cost(j, i2, "ecw")[end] for j in superiors[i2] if j != i1)
        n, m = len(c), L[i2] - L[i1] + 1
        if 1 <= m <= n:
            sums = [sum(c[:h]) for h in range(n - m + 1, n + 1)]
            total += min(v / (h + 1) for h, v in enumerate(sums))
    return total


def _next(f: float, direction: int) -> float:
    return math.nextafter(f, math.inf * direction)


def check_file(path: str) -> dict:
    """:func:`check_certificate` on a JSON file."""
    with open(path, encoding="utf-8") as fh:
        return check_certificate(json.load(fh))


if __name__ == "__main__":
    try:
        out = check_file(sys.argv[1])
    except (CertificateError, OSError, ValueError) as exc:
        sys.exit(f"INVALID: {exc}")
    print(f"VALID: C* in [{out['lower_float']!r}, {out['upper_float']!r}]")
