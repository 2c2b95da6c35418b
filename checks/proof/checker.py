"""Independent checker of duelbound's C* certificates, format version 2 (docs/certificates.md).

Trusted base: the Python standard library (``json``, ``re``, ``fractions``, integers); no
solver code is imported.  Every test is exact rational arithmetic; the one transcendental
quantity, d(µ, ½), is enclosed by positive series in integer fixed point with directed
rounding, stopped as soon as the tail bound is below the precision asked for.

A valid certificate proves ([K16] Theorem 2, docs/math.md §5) C* ∈ [claim.lower,
claim.upper] for the rational matrix ``mu``: per Copeland winner i1 a primal x̂ meeting
**every** constraint of R_{i1} (sorting oracle) gives C*_{i1} ≤ Σ c⁺ x̂, and y ≥ 0 on named
constraints with w ≥ 0, Aᵀy − w ≤ c⁻ gives C*_{i1} ≥ Σ y − Σ w (weak duality; the box x ≤ 1
does not change the minimum).  C^E* ([K16] Theorem 5) is an LP minimum, non-decreasing in
every cost, recomputed exactly at c⁻ and at c⁺.  A failure is a CertificateError whose
``kind`` is its rule class (:data:`KINDS`).  ``python -m duelbound.checks.proof.checker F``.
"""

from __future__ import annotations

import json
import math
import re
import sys
from fractions import Fraction

__all__ = ["CertificateError", "check_certificate", "check_file", "loads", "kl_half_bounds",
           "FORMAT", "VERSION", "KINDS", "MAX_DIGITS"]

FORMAT, VERSION = "duelbound-cstar-certificate", 2
MAX_DIGITS = 100_000  #: most decimal digits of p, and of q, in a rational "p/q"
KINDS = ("json", "schema", "matrix", "tournament", "pairs", "primal", "dual", "value")
HALF, ZERO = Fraction(1, 2), Fraction(0)
_RATIONAL = re.compile(r"(0|-?[1-9][0-9]*)(/[1-9][0-9]*)?\Z")  # [0-9]: ASCII digits only
_WINNER = {"winner": "i", "lower": "q", "upper": "q"}
_BRACKET = {"lower": "q", "upper": "q", "lower_float": "f", "upper_float": "f"}
#: The document's shape: objects (exactly these keys, "?" optional), [shape] lists of any
#: length, (shapes) lists of this length; "q" rational, "i" arm index, "n" integer,
#: "f" finite binary64, "s" string, "o" any object (unchecked).
_SCHEMA = {
    "format": "s", "version": "n", "?statement": "s", "?meta": "o",
    "matrix": {"K": "n", "source": "s", "mu": [["q"]]}, "winners": ["i"], "losses": ["i"],
    "pairs": [{"pair": ("i", "i"), "d": ("q", "q"), "cost": ("q", "q")}],
    "per_winner": [{**_WINNER, "primal": [("i", "i", "q")], "box": [("i", "i", "q")],
                    "dual": [{"y": "q", "i2": "i", "l": "n", "I": ["i"], "S": ["i"]}]}],
    "claim": _BRACKET, "ecw": {**_BRACKET, "per_winner": [_WINNER]}}
_TYPES = {"i": "an arm index", "n": "an integer", "f": "a finite JSON number with a fraction "
          "or exponent", "s": "a string", "o": "an object"}


class CertificateError(ValueError):
    """The certificate does not prove its claim; ``kind`` is the rule class broken."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _need(ok, kind: str, message: str) -> None:
    if not ok:
        raise CertificateError(kind, message)


# -- reading: JSON, then every key, type, number syntax, index and order (kind "schema") ---
def _unique(items: list) -> dict:
    out = dict(items)
    if len(out) < len(items):
        keys = [k for k, _ in items]
        dup = [k for k in keys if keys.count(k) > 1][0]
        raise CertificateError("json", f"duplicate key {dup!r}")
    return out


def _finite(text: str) -> float:
    _need(math.isfinite(float(text)), "json", f"non-finite number {text!r}")
    return float(text)


def _constant(name: str):
    raise CertificateError("json", f"non-finite number {name} (not JSON)")


def loads(text: str):
    """JSON text → object; duplicate keys and non-finite numbers are kind "json"."""
    try:
        return json.loads(text, object_pairs_hook=_unique, parse_constant=_constant,
                          parse_float=_finite, parse_int=_int)
    except RecursionError:
        raise CertificateError("json", "JSON nested too deeply") from None


def _int(s: str) -> int:  # any length: Python's int-digit limit applies to halves ≤ 4000
    h = len(s) // 2
    return int(s) if len(s) <= 4000 else _int(s[:h]) * 10 ** (len(s) - h) + _int(s[h:])


def _rat(v, where: str) -> Fraction:
    if not (type(v) is str and len(v) <= 2 * MAX_DIGITS + 2 and _RATIONAL.match(v)
            and all(len(t) <= MAX_DIGITS for t in v.lstrip("-").split("/"))):
        raise CertificateError("schema", f"{where}: {v!r:.60} is not a rational 'p' or "
                               f"'p/q' (ASCII digits, at most {MAX_DIGITS} each, q > 0)")
    p, _, q = v.partition("/")
    return Fraction(-_int(p[1:]) if p[0] == "-" else _int(p), _int(q) if q else 1)


def _parse(v, shape, where: str, K: int):
    """``v`` checked against ``shape`` (see :data:`_SCHEMA`), rationals as Fractions."""
    if isinstance(shape, dict):
        keys = {k.lstrip("?"): s for k, s in shape.items()}
        bad = set(v) - set(keys) if type(v) is dict else set()
        miss = {k for k in shape if k[0] != "?"} - set(v) if type(v) is dict else set()
        _need(type(v) is dict and not bad and not miss, "schema", f"{where}: expected an object "
              f"with keys {sorted(keys)}; unknown {sorted(bad)}, missing {sorted(miss)}")
        return {k: _parse(v[k], s, f"{where}.{k}", K) for k, s in keys.items() if k in v}
    if isinstance(shape, (list, tuple)):
        _need(type(v) is list and (isinstance(shape, list) or len(v) == len(shape)), "schema",
              f"{where}: expected a list" + ("" if isinstance(shape, list) else
                                            f" of {len(shape)}"))
        return [_parse(x, shape[0] if isinstance(shape, list) else shape[k], f"{where}[{k}]", K)
                for k, x in enumerate(v)]
    if shape == "q":
        return _rat(v, where)
    ok = {"i": type(v) is int and 0 <= v < K, "n": type(v) is int, "s": type(v) is str,
          "f": type(v) is float and math.isfinite(v), "o": type(v) is dict}[shape]
    _need(ok, "schema", f"{where}: expected {_TYPES[shape]}{f' < K = {K}' * (shape == 'i')}, "
          f"got {v!r:.40}")
    return v


def _ascending(seq: list, where: str) -> None:
    _need(all(a < b for a, b in zip(seq, seq[1:])), "schema", f"{where}: not strictly ascending")


def _read(doc) -> dict:
    _need(type(doc) is dict, "schema", "a certificate is a JSON object")
    fmt, ver = doc.get("format"), doc.get("version")
    _need(fmt == FORMAT and type(ver) is int and ver == VERSION, "schema", f"not a {FORMAT} of "
          f"version {VERSION} (format {fmt!r:.40}, version {ver!r:.20})" + (
              "; version 1 files are no longer accepted: write the certificate again with "
              "duelbound bounds --certificate" if type(ver) is int and ver == 1 else ""))
    K = doc["matrix"].get("K") if type(doc.get("matrix")) is dict else None
    _need(type(K) is int and K >= 2, "schema", "matrix.K: an integer >= 2 is required")
    c = _parse(doc, _SCHEMA, "certificate", K)
    _need(len(c["matrix"]["mu"]) == K and all(len(r) == K for r in c["matrix"]["mu"])
          and len(c["losses"]) == K, "schema", f"matrix.mu must be K x K, losses K long (K = {K})")
    _ascending(c["winners"], "winners")
    _ascending([tuple(e["pair"]) for e in c["pairs"]], "pairs")
    for where, entries in (("per_winner", c["per_winner"]),
                           ("ecw.per_winner", c["ecw"]["per_winner"])):
        _need([e["winner"] for e in entries] == c["winners"], "schema",
              f"{where}: exactly one entry per listed winner {c['winners']}, ascending")
    for e in c["per_winner"]:
        for name in ("primal", "box"):
            _ascending([(a, b) for a, b, _ in e[name]], f"per_winner[{e['winner']}].{name} pairs")
        for k, r in enumerate(e["dual"]):
            _ascending(r["I"], f"per_winner[{e['winner']}].dual[{k}].I")
            _ascending(r["S"], f"per_winner[{e['winner']}].dual[{k}].S")
    _need(all(a < b for e in c["per_winner"] for n in ("primal", "box") for a, b, _ in e[n])
          and all(a < b for a, b in (e["pair"] for e in c["pairs"])), "schema",
          "every pair is written [a, b] with a < b")
    return c


# -- d(µ, 1/2) enclosed: positive series in integer fixed point, directed rounding ---------
def _series(n: int, m: int, a: int, c: int, bits: int) -> tuple[int, int]:
    """[lo, hi] · 2^-bits ∋ Σ_{k≥0} (n/m)^k / ((2k + a)(ck + 1)), 0 ≤ n/m ≤ 1/2, a ≥ 1.

    The powers p_k, scaled by 2^bits, are rounded down: each is at most 2 below the true
    one (earlier errors halve as they propagate), each term at most 3 below.  Summing stops
    when p_k ≤ 1; the tail from it on is ≤ 2 (p_k + 2) (ratio ≤ 1/2, denominators ≥ 1)."""
    p, lo, k = 1 << bits, 0, 0
    while p > 1:
        lo += p // ((2 * k + a) * (c * k + 1))
        p, k = p * n // m, k + 1
    return lo, lo + 3 * k + 2 * (p + 2)


_LOG2: dict[int, tuple[int, int]] = {}  # log 2 = 2 atanh(1/3), computed once per precision


def _log(A: int, B: int, bits: int) -> tuple[int, int]:
    """[lo, hi] · 2^-bits ∋ log(A/B), A, B > 0: A/B = 2^e a/b with a/b ∈ [1, 2) and
    log(a/b) = 2 atanh(s) = 2s Σ s^2k / (2k + 1), s = (a − b)/(a + b) ≤ 1/3."""
    if bits not in _LOG2:
        lo, hi = _series(1, 9, 1, 0, bits)
        _LOG2[bits] = 2 * lo // 3, -(-2 * hi // 3)
    e = A.bit_length() - B.bit_length()
    a, b = (A, B << e) if e >= 0 else (A << -e, B)
    if a < b:
        a, e = 2 * a, e - 1
    lo, hi = _series((a - b) ** 2, (a + b) ** 2, 1, 0, bits)
    l2lo, l2hi = _LOG2[bits] if e >= 0 else _LOG2[bits][::-1]
    return 2 * (a - b) * lo // (a + b) + e * l2lo, -(-2 * (a - b) * hi // (a + b)) + e * l2hi


def _kl(mu: Fraction, bits: int) -> tuple[int, int, int]:
    """(lo, hi, den): lo/den ≤ d(µ, ½) = µ log 2µ + (1 − µ) log 2(1 − µ) ≤ hi/den, µ ≠ ½
    (0 log 0 = 0).  With u = |2µ − 1| = N/Q: for u ≤ 1/2, d = Σ_{k≥1} u^2k / (2k(2k − 1))
    (positive terms: full relative precision near ½); else d = ((1 + u) log(1 + u) +
    (1 − u) log(1 − u)) / 2 > 0.13."""
    Q = mu.denominator
    N = abs(2 * mu.numerator - Q)
    if 2 * N <= Q:
        lo, hi = _series(N * N, Q * Q, 2, 2, bits)
        return N * N * lo, N * N * hi, (Q * Q) << bits
    a_lo, a_hi = _log(Q + N, Q, bits)
    b_lo, b_hi = _log(Q - N, Q, bits) if N < Q else (0, 0)
    return (Q + N) * a_lo + (Q - N) * b_lo, (Q + N) * a_hi + (Q - N) * b_hi, (2 * Q) << bits


def kl_half_bounds(mu: Fraction, bits: int = 128) -> tuple[Fraction, Fraction]:
    """[lo, hi] ∋ d(µ, ½) with relative width ~2^-bits (:func:`_kl`)."""
    lo, hi, den = _kl(mu, bits)
    return Fraction(lo, den), Fraction(hi, den)


def _d_inside(mu: Fraction, dl: Fraction, dh: Fraction) -> bool | None:
    """Is d(µ, ½) ∈ [dl, dh]: True / False when decided at 128, 512 or 2048 bits, else None."""
    for bits in (128, 512, 2048):
        lo, hi = kl_half_bounds(mu, bits)
        if dl <= lo and hi <= dh or hi < dl or dh < lo:
            return dl <= lo and hi <= dh
    return None


# -- the proof -------------------------------------------------------------------------------
def _sum(groups: dict[int, int]) -> Fraction:
    """Σ n/q over {q: n}, exactly, on the common denominator (one reduction in all)."""
    D = math.lcm(*groups) if groups else 1
    return Fraction(sum(n * (D // q) for q, n in groups.items()), D)


def _prefix(X: list[list[Fraction]], owner: int, members: list[int]) -> list[Fraction]:
    """Sums of the k smallest X[owner][j], j in members (zeros first; only the rest sorted)."""
    vals = sorted(v for j in members if (v := X[owner][j]))
    out = [ZERO] * (len(members) - len(vals) + 1)
    for v in vals:
        out.append(out[-1] + v)
    return out


def _rows(e: dict, i1: int, T: dict) -> dict:
    """Every dual row a constraint of R_{i1} with y > 0; every box w > 0 on a pair some row
    of i1 uses.  Returns Aᵀy as {pair: {q: Σ numerators}}."""
    L, l1, beaten, beats = T["L"], T["L"][i1], T["beaten"], T["beats"]
    g: dict[tuple[int, int], dict[int, int]] = {}
    for k, r in enumerate(e["dual"]):
        y, i2, l, I, S = r["y"], r["i2"], r["l"], r["I"], r["S"]
        if not (y > 0 and i2 != i1 and max(0, l1 - 1) <= l <= T["l2"] and (I or S)
                and len(I) == l + 1 - l1 and len(S) == max(0, L[i2] - l - (i2 in I))
                and all(j in beaten[i1] for j in I) and all(j in beats[i2] for j in S)
                and i1 not in S):
            raise CertificateError("dual", f"per_winner[{i1}].dual[{k}]: (i2={i2}, l={l}, I={I}, "
                                   f"S={S}, y={y}) is not a constraint of R_{i1} with y > 0")
        for p in [(min(i1, j), max(i1, j)) for j in I] + [(min(i2, j), max(i2, j)) for j in S]:
            d = g.setdefault(p, {})
            d[y.denominator] = d.get(y.denominator, 0) + y.numerator
    for k, (a, b, w) in enumerate(e["box"]):
        _need(w > 0 and (a, b) in g, "dual", f"per_winner[{i1}].box[{k}]: w = {w} is not > 0 "
              "or its pair is in no dual row")
    return g


def _rivals(i1: int, T: dict):
    """(i2, S_{i2} minus i1, m) for every rival whose C^E* threshold is defined: 1 ≤ m ≤ n."""
    for i2, S in enumerate(T["sup"]):
        B, m = [j for j in S if j != i1], T["L"][i2] - T["L"][i1] + 1
        if i2 != i1 and 1 <= m <= len(B):
            yield i2, B, m


def _ecw(i1: int, end: int, T: dict, cost) -> Fraction:
    """C^E*_{i1} at the cost bounds (end 0: c⁻, 1: c⁺), [K16] Theorem 5: the inferiors'
    costs plus, per rival, min_{h > n−m} (sum of the h smallest) / (h − (n − m))."""
    total = sum((cost(i1, j)[end] for j in T["beaten"][i1]), ZERO)
    for i2, B, m in _rivals(i1, T):
        c = sorted(cost(j, i2)[end] for j in B)
        acc = [sum(c[:len(c) - m + 1], ZERO)]
        for v in c[len(c) - m + 1:]:
            acc.append(acc[-1] + v)
        total += min(s / (h + 1) for h, s in enumerate(acc))
    return total


def _primal_upper(e: dict, i1: int, T: dict, cost) -> Fraction:
    """Every constraint of R_{i1} holds at x̂ (sorting oracle, docs/math.md §5.1); Σ c⁺ x̂."""
    K, L, l1, beaten = len(T["L"]), T["L"], T["L"][i1], T["beaten"]
    X = [[ZERO] * K for _ in range(K)]
    for a, b, x in e["primal"]:
        X[a][b] = X[b][a] = x
    for i2 in (i for i in range(K) if i != i1):
        A, B = [j for j in beaten[i1] if j != i2], [j for j in T["sup"][i2] if j != i1]
        pa, pb = _prefix(X, i1, A), _prefix(X, i2, B)
        for l in range(max(0, l1 - 1), T["l2"] + 1):
            m, s = l + 1 - l1, max(0, L[i2] - l)  # case 1: i2 ∈ I, one fewer of each
            for mm, ss, x in [(m, s, ZERO)] + [(m - 1, max(0, s - 1), X[i1][i2])] * (
                    i2 in beaten[i1] and m >= 1):
                _need(not (mm <= len(A) and ss <= len(B) and pa[mm] + pb[ss] + x < 1), "primal",
                      f"per_winner[{i1}]: x̂ violates a constraint (i2={i2}, l={l}) of R_{i1}")
    return sum((cost(a, b)[1] * x for a, b, x in e["primal"]), ZERO)


def _stated(section: dict, where: str, lower: Fraction, upper: Fraction) -> None:
    """Stated = proven exactly; any ``*_float`` is the outward binary64 rounding."""
    for name, got, rnd in (("lower", lower, -1), ("upper", upper, 1)):
        _need(section[name] == got, "value", f"{where}.{name} = {float(section[name]):.17g} "
              f"but the certificate proves {float(got):.17g}")
        f = section.get(f"{name}_float", math.nan)
        _need(f != f or (Fraction(f) - got) * rnd >= 0 > (Fraction(math.nextafter(
            f, -rnd * math.inf)) - got) * rnd, "value", f"{where}.{name}_float = {f!r} is not "
            f"{name} rounded {'down' if rnd < 0 else 'up'} to binary64")


def _tournament(c: dict) -> dict:
    K, mu = len(c["matrix"]["mu"]), c["matrix"]["mu"]
    for i in range(K):
        for j in range(i, K):
            if not (mu[i][j] == HALF if i == j else 0 <= mu[i][j] <= 1 and mu[i][j] != HALF
                    and mu[i][j] + mu[j][i] == 1):
                raise CertificateError("matrix", f"matrix.mu[{i}][{j}], mu[{j}][{i}]: need mu_ii"
                                       " = 1/2, else 0 <= mu <= 1, mu_ij + mu_ji = 1, mu != 1/2")
    sup = [[j for j in range(K) if mu[i][j] < HALF] for i in range(K)]
    L = [len(s) for s in sup]
    winners = [i for i in range(K) if L[i] == min(L)]
    _need(c["winners"] == winners and c["losses"] == L, "tournament", f"winners/losses: mu has "
          f"Copeland winners {winners} and losses {L}")
    return {"L": L, "l2": sorted(L)[1], "sup": sup, "beats": [set(s) for s in sup],
            "beaten": [{j for j in range(K) if mu[i][j] > HALF} for i in range(K)]}


def check_certificate(doc) -> dict:
    """Check a parsed certificate: what it proves (``K``, ``winners``, exact ``lower``/
    ``upper`` strings, their binary64 roundings, C^E*'s), or CertificateError."""
    c = _read(doc)
    T, mu = _tournament(c), c["matrix"]["mu"]
    L, K, r0 = T["L"], len(mu), 2 * min(T["L"])
    for e in c["per_winner"]:
        for k, (_, _, x) in enumerate(e["primal"]):
            _need(0 < x <= 1, "primal", f"per_winner[{e['winner']}].primal[{k}]: x = {x} not in "
                  "(0, 1]")
    G = {e["winner"]: _rows(e, e["winner"], T) for e in c["per_winner"]}
    used = {(a, b) for e in c["per_winner"] for a, b, _ in e["primal"]} | set().union(*G.values())
    for i1 in c["winners"]:
        used |= {(min(i1, j), max(i1, j)) for j in T["beaten"][i1]}
        used |= {(min(j, i2), max(j, i2)) for i2, B, _ in _rivals(i1, T) for j in B}
    need = {(a, b) for a, b in used if L[a] + L[b] > r0}
    listed = {tuple(e["pair"]) for e in c["pairs"]}
    _need(listed == need, "pairs", f"pairs: exactly the used pairs of positive regret; missing "
          f"{sorted(need - listed)[:3]}, not used {sorted(listed - need)[:3]}")
    costs = {}
    for e in c["pairs"]:
        (a, b), (dl, dh), (cl, ch) = e["pair"], e["d"], e["cost"]
        r = Fraction(L[a] + L[b] - r0, 2 * (K - 1))
        inside = 0 < dl <= dh and _d_inside(mu[a][b], dl, dh)
        _need(inside, "pairs", f"pairs ({a}, {b}): need 0 < d- <= d(mu, 1/2) <= d+" + (
            " (not decided at 2048 bits)" if inside is None else ""))
        _need(0 <= cl and cl * dh <= r <= ch * dl, "pairs", f"pairs ({a}, {b}): need 0 <= c-, "
              "c- d+ <= r <= c+ d-")
        costs[a, b] = (cl, ch)
    cost = lambda a, b: costs.get((a, b) if a < b else (b, a), (ZERO, ZERO))  # noqa: E731
    uppers = {e["winner"]: _primal_upper(e, e["winner"], T, cost) for e in c["per_winner"]}
    for e in c["per_winner"]:  # (Aᵀy)_p − w_p ≤ c⁻_p
        i1, box = e["winner"], {(a, b): w for a, b, w in e["box"]}
        for p, groups in G[i1].items():
            _need(_sum(groups) - box.get(p, ZERO) <= cost(*p)[0], "dual",
                  f"per_winner[{i1}]: dual infeasible at pair {p}: (A^T y)_p - w_p > c-_p")
        ys: dict[int, int] = {}
        for r in e["dual"]:
            ys[r["y"].denominator] = ys.get(r["y"].denominator, 0) + r["y"].numerator
        e["proven"] = (_sum(ys) - sum(box.values(), ZERO), uppers[i1])
    for e in c["per_winner"]:
        _stated(e, f"per_winner[{e['winner']}]", *e["proven"])
    lower, upper = (min(e["proven"][k] for e in c["per_winner"]) for k in (0, 1))
    _stated(c["claim"], "claim", lower, upper)
    ecw = [(_ecw(i1, 0, T, cost), _ecw(i1, 1, T, cost)) for i1 in c["winners"]]
    for e, (lo, hi) in zip(c["ecw"]["per_winner"], ecw):
        _stated(e, f"ecw.per_winner[{e['winner']}] (sorted threshold at c-/c+)", lo, hi)
    _stated(c["ecw"], "ecw", min(b[0] for b in ecw), min(b[1] for b in ecw))
    return {"K": K, "winners": c["winners"], "lower": str(lower), "upper": str(upper),
            "lower_float": c["claim"]["lower_float"], "upper_float": c["claim"]["upper_float"],
            "ecw_lower_float": c["ecw"]["lower_float"], "ecw_upper_float": c["ecw"]["upper_float"]}


def check_file(path: str) -> dict:
    """:func:`check_certificate` on a JSON file (OSError / ValueError if it is not JSON)."""
    with open(path, encoding="utf-8") as fh:
        return check_certificate(loads(fh.read()))


def main(argv: list[str]) -> int:
    """Exit 0: VALID, 1: INVALID (one line, the reason), 2: unreadable or not JSON."""
    try:
        out = check_file(argv[0]) if len(argv) == 1 else sys.exit("usage: checker CERT.json")
    except CertificateError as exc:
        print(f"INVALID: {exc}")
        return 1
    except (OSError, ValueError) as exc:
        print(f"cannot read {argv[0]}: {exc}", file=sys.stderr)
        return 2
    print(f"VALID: C* in [{out['lower_float']!r}, {out['upper_float']!r}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
