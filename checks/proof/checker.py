"""Independent checker of C* certificates v2: the rules of docs/certificates.md in their order,
standard library only, exact rational arithmetic but d(µ, ½) (positive series in integer fixed
point, directed rounding).  A failure is a CertificateError whose ``kind`` is in :data:`KINDS`."""

import json
import math
import re
import sys
from fractions import Fraction
from itertools import accumulate, combinations_with_replacement

__all__ = ["CertificateError", "check_certificate", "check_file", "loads", "kl_half_bounds"]

FORMAT, VERSION = "duelbound-cstar-certificate", 2
MAX_DIGITS = 100_000  #: most decimal digits of p, and of q, in a rational "p/q"
KINDS = ("json", "schema", "matrix", "tournament", "pairs", "primal", "dual", "value")
HALF, ZERO = Fraction(1, 2), Fraction(0)
_LOG2: dict[int, tuple[int, int]] = {}
_DIGITS = f"[1-9][0-9]{{0,{MAX_DIGITS - 1}}}"  # [0-9]: ASCII digits only, at most MAX_DIGITS
_RATIONAL = re.compile(f"(0|-?{_DIGITS})(/{_DIGITS})?\\Z")
_WINNER = {"winner": "i", "lower": "q", "upper": "q"}
_BRACKET = {"lower": "q", "upper": "q", "lower_float": "f", "upper_float": "f"}
#: Objects with exactly these keys ("?": optional); [shape(, "<": strictly ascending | "K": K
#: long)] lists; (shapes) lists of this length ("a", "b": indices a < b); "i" index, _TYPES.
_SCHEMA = {
    "format": "s", "version": "n", "?statement": "s", "?meta": "o",
    "matrix": {"K": "n", "source": "s", "mu": [["q", "K"], "K"]}, "winners": ["i", "<"],
    "losses": ["i", "K"],
    "pairs": [{"pair": ("a", "b"), "d": ("q", "q"), "cost": ("q", "q")}, "<"],
    "per_winner": [{**_WINNER, "primal": [("a", "b", "q"), "<"], "box": [("a", "b", "q"), "<"],
                    "dual": [{"y": "q", "i2": "i", "l": "n", "I": ["i", "<"], "S": ["i", "<"]}]}],
    "claim": _BRACKET, "ecw": {**_BRACKET, "per_winner": [_WINNER]}}
_TYPES = {"n": "integer", "s": "string", "f": "finite float", "o": "object", "q": "rational p[/q]"}

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
    if len(out := dict(items)) < len(items):  # the message is built on failure only
        raise CertificateError("json", f"duplicate key in {[k for k, _ in items]}"[:200])
    return out

def _finite(text: str) -> float:  # the hook for floats and for NaN / Infinity
    _need(math.isfinite(f := float(text)), "json", f"non-finite {text}")
    return f

def loads(text: str):
    """JSON text → object; duplicate keys and non-finite numbers are kind "json"."""
    try:
        return json.loads(text, object_pairs_hook=_unique, parse_constant=_finite,
                          parse_float=_finite, parse_int=_int)
    except RecursionError:
        raise CertificateError("json", "JSON nested too deeply") from None

def _int(s: str) -> int:  # any length: Python's int-digit limit applies to halves ≤ 4000
    h = len(s) // 2
    return int(s) if len(s) <= 4000 else _int(s[:h]) * 10 ** (len(s) - h) + _int(s[h:])

def _leaf(v, shape: str, where: str, K: int, k=""):
    """A scalar of type ``shape``; its path ``where[k]`` is formatted on failure only."""
    if shape == "q" and type(v) is str and _RATIONAL.match(v):
        p, _, q = v.partition("/")
        return Fraction(-_int(p[1:]) if p[0] == "-" else _int(p), _int(q) if q else 1)
    if shape != "q" and (type(v) is int and 0 <= v < K if shape in "iab" else {
            "n": type(v) is int, "s": type(v) is str, "o": type(v) is dict,
            "f": type(v) is float and math.isfinite(v)}[shape]):
        return v
    raise CertificateError("schema", f"{where}{f'[{k}]' * (k != '')}: expected a "
                           f"{_TYPES.get(shape, 'index < K')}, got {v!r:.60}")

def _object(v, shape: dict, where: str, K: int) -> dict:
    keys, need = {k.lstrip("?"): s for k, s in shape.items()}, {k for k in shape if k[0] != "?"}
    if type(v) is not dict or not need <= set(v) <= set(keys):
        got = f"unknown {sorted(set(v) - set(keys))}, missing {sorted(need - set(v))}" if type(
            v) is dict else f"a {type(v).__name__}"
        raise CertificateError("schema", f"{where}: expected an object with the keys "
                               f"{sorted(shape)} ('?': optional): {got}")
    return {k: _parse(v[k], s, f"{where}.{k}", K) for k, s in keys.items() if k in v}

def _parse(v, shape, where: str, K: int):
    """``v`` checked against ``shape`` (see :data:`_SCHEMA`), rationals as Fractions."""
    if not isinstance(shape, (list, tuple)):
        return (_object if isinstance(shape, dict) else _leaf)(v, shape, where, K)
    n = len(shape) if isinstance(shape, tuple) else K if shape[-1] == "K" else None
    if type(v) is not list or n is not None and len(v) != n:
        raise CertificateError("schema", f"{where}: expected a list of {n or 'any'} entries")
    subs = shape if isinstance(shape, tuple) else [shape[0]] * len(v)
    out = [_leaf(x, s, where, K, k) if isinstance(s, str) else _parse(x, s, f"{where}[{k}]", K)
           for k, (x, s) in enumerate(zip(v, subs))]
    keys = [x["pair"] if type(x) is dict else x[:2] if type(x) is list else x
            for x in out] if shape[-1] == "<" else []
    if any(a >= b for a, b in zip(keys, keys[1:])) or shape[:2] == ("a", "b") and out[0] >= out[1]:
        raise CertificateError("schema", f"{where}: not strictly ascending, or not a < b")
    return out

def _read(doc) -> dict:
    fmt, ver = (doc.get("format"), doc.get("version")) if type(doc) is dict else ("", "")
    v1 = type(ver) is int and ver == 1  # refused with a hint
    _need(fmt == FORMAT and type(ver) is int and ver == VERSION, "schema", f"not a {FORMAT} of "
          f"version {VERSION} (format {fmt!r:.40}, version {ver!r:.20})" + "; version 1 files "
          "are no longer accepted: write it again with duelbound bounds --certificate" * v1)
    K = doc["matrix"].get("K") if type(doc.get("matrix")) is dict else 0
    _need(type(K) is int and K >= 2, "schema", "matrix.K: an integer >= 2 is required")
    c = _parse(doc, _SCHEMA, "certificate", K)
    _need([e["winner"] for e in c["per_winner"]] == c["winners"] == [
        e["winner"] for e in c["ecw"]["per_winner"]], "schema", "per_winner, ecw.per_winner: "
          f"exactly one entry per listed winner {c['winners']}, ascending")
    return c

# -- d(µ, 1/2) enclosed: positive series in integer fixed point, directed rounding ---------
def _series(n: int, m: int, a: int, c: int, bits: int) -> tuple[int, int]:
    """[lo, hi]·2^-bits ∋ Σ_{k≥0} (n/m)^k / ((2k + a)(ck + 1)), 0 ≤ n/m ≤ 1/2, a ≥ 1: powers
    rounded down (each ≤ 2 low, each term ≤ 3 low), stopped at p_k ≤ 1, tail ≤ 2 (p_k + 2)."""
    p, lo, k = 1 << bits, 0, 0
    while p > 1:
        lo += p // ((2 * k + a) * (c * k + 1))
        p, k = p * n // m, k + 1
    return lo, lo + 3 * k + 2 * (p + 2)

def _log(A: int, B: int, bits: int) -> tuple[int, int]:
    """[lo, hi]·2^-bits ∋ log(A/B) = e log 2 + 2 atanh(s), A/B = 2^e a/b, s = (a−b)/(a+b) ≤ 1/3."""
    if bits not in _LOG2:  # log 2 = 2 atanh(1/3), once per precision
        lo, hi = _series(1, 9, 1, 0, bits)
        _LOG2[bits] = 2 * lo // 3, -(-2 * hi // 3)
    e = A.bit_length() - B.bit_length()
    a, b = (A, B << e) if e >= 0 else (A << -e, B)
    if a < b:
        a, e = 2 * a, e - 1
    lo, hi = _series((a - b) ** 2, (a + b) ** 2, 1, 0, bits)
    l2lo, l2hi = _LOG2[bits] if e >= 0 else _LOG2[bits][::-1]
    return 2 * (a - b) * lo // (a + b) + e * l2lo, -(-2 * (a - b) * hi // (a + b)) + e * l2hi

def kl_half_bounds(mu: Fraction, bits: int = 128) -> tuple[Fraction, Fraction]:
    """[lo, hi] ∋ d(µ, ½), width ~2^-bits relative; u = |2µ − 1|: d = Σ_{k≥1} u^2k / (2k(2k − 1))
    for u ≤ ½ (no cancellation near ½), else ((1 + u) log(1 + u) + (1 − u) log(1 − u)) / 2."""
    Q, N = mu.denominator, abs(2 * mu.numerator - mu.denominator)
    if 2 * N <= Q:
        lo, hi = _series(N * N, Q * Q, 2, 2, bits)
        return Fraction(N * N * lo, (Q * Q) << bits), Fraction(N * N * hi, (Q * Q) << bits)
    (alo, ahi), (blo, bhi) = _log(Q + N, Q, bits), _log(Q - N, Q, bits) if N < Q else (0, 0)
    return (Fraction((Q + N) * alo + (Q - N) * blo, (2 * Q) << bits),
            Fraction((Q + N) * ahi + (Q - N) * bhi, (2 * Q) << bits))

def _d_inside(mu: Fraction, dl: Fraction, dh: Fraction) -> bool | None:
    """Is d(µ, ½) ∈ [dl, dh]: True / False when decided at 128, 512 or 2048 bits, else None."""
    for lo, hi in (kl_half_bounds(mu, bits) for bits in (128, 512, 2048)):
        if dl <= lo and hi <= dh or hi < dl or dh < lo:
            return dl <= lo and hi <= dh
    return None

# -- the proof: steps 3-9 of the specification ----------------------------------------------
def _tournament(c: dict) -> dict:
    """Steps 3-4: µ is a tie-free complementary matrix with the stated winners and losses."""
    K, mu = len(c["matrix"]["mu"]), c["matrix"]["mu"]
    for i, j in combinations_with_replacement(range(K), 2):  # i <= j
        if not (mu[i][j] == HALF if i == j else 0 <= mu[i][j] <= 1 and mu[i][j] != HALF
                and mu[i][j] + mu[j][i] == 1):
            raise CertificateError("matrix", f"matrix.mu[{i}][{j}], mu[{j}][{i}]: need mu_ii = "
                                   "1/2, else 0 <= mu <= 1, mu_ij + mu_ji = 1, mu != 1/2")
    sup = [{j for j in range(K) if mu[i][j] < HALF} for i in range(K)]  # S_i: beats i
    L = [len(s) for s in sup]
    winners = [i for i in range(K) if L[i] == min(L)]
    _need(c["winners"] == winners and c["losses"] == L, "tournament",
          f"winners/losses: mu has Copeland winners {winners} and losses {L}")
    # (i2, B = S_{i2} minus i1, m) of every rival whose C^E* threshold is defined: 1 ≤ m ≤ |B|
    rivals = {i1: [(i2, S - {i1}, L[i2] - L[i1] + 1) for i2, S in enumerate(sup)
                   if i2 != i1 and 1 <= L[i2] - L[i1] + 1 <= len(S - {i1})] for i1 in winners}
    beaten = [{j for j in range(K) if mu[i][j] > HALF} for i in range(K)]
    return {"L": L, "l2": sorted(L)[1], "sup": sup, "rivals": rivals, "beaten": beaten}

def _rows(e: dict, i1: int, T: dict) -> dict:
    """Step 5 (dual rows, box) for winner i1; returns Aᵀy as {pair: {q: Σ numerators}}."""
    L, l1, beaten, beats = T["L"], T["L"][i1], T["beaten"], T["sup"]
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

def _costs(c: dict, T: dict, G: dict) -> dict:
    """Step 6: the used pairs of positive regret, each with its d and cost bounds."""
    L, mu, r0, K = T["L"], c["matrix"]["mu"], 2 * min(T["L"]), len(T["L"])
    used = {(a, b) for e in c["per_winner"] for a, b, _ in e["primal"]} | set().union(*G.values())
    for i1 in c["winners"]:
        used |= {(min(i1, j), max(i1, j)) for j in T["beaten"][i1]}
        used |= {(min(j, i2), max(j, i2)) for i2, B, _ in T["rivals"][i1] for j in B}
    need = {(a, b) for a, b in used if L[a] + L[b] > r0}
    listed = {tuple(e["pair"]) for e in c["pairs"]}
    _need(listed == need, "pairs", f"pairs: exactly the used pairs of positive regret; missing "
          f"{sorted(need - listed)[:3]}, not used {sorted(listed - need)[:3]}")
    for e in c["pairs"]:
        (a, b), (dl, dh), (cl, ch) = e["pair"], e["d"], e["cost"]
        r = Fraction(L[a] + L[b] - r0, 2 * (K - 1))
        inside = 0 < dl <= dh and _d_inside(mu[a][b], dl, dh)
        _need(inside, "pairs", f"pairs ({a}, {b}): need 0 < d- <= d(mu, 1/2) <= d+"
              + " (not decided at 2048 bits)" * (inside is None))
        _need(0 <= cl and cl * dh <= r <= ch * dl, "pairs", f"pairs ({a}, {b}): need 0 <= c-, "
              "c- d+ <= r <= c+ d-")
    return {tuple(e["pair"]): tuple(e["cost"]) for e in c["pairs"]}

def _primal_upper(e: dict, i1: int, T: dict, cost) -> Fraction:
    """Step 7: every constraint of R_{i1} holds at x̂ (sorting oracle, docs/math.md §5.1)."""
    K, L, l1, beaten = len(T["L"]), T["L"], T["L"][i1], T["beaten"]
    X = [[ZERO] * K for _ in range(K)]
    for a, b, x in e["primal"]:
        X[a][b] = X[b][a] = x
    def prefix(owner: int, members: set[int]) -> list[Fraction]:  # sums of the k smallest
        vals = sorted(v for j in members if (v := X[owner][j]))  # the zeros come first
        return [ZERO] * (len(members) - len(vals)) + list(accumulate(vals, initial=ZERO))
    for i2 in (i for i in range(K) if i != i1):
        A, B = beaten[i1] - {i2}, T["sup"][i2] - {i1}
        pa, pb = prefix(i1, A), prefix(i2, B)
        for l in range(max(0, l1 - 1), T["l2"] + 1):
            m, s = l + 1 - l1, max(0, L[i2] - l)  # case 1: i2 ∈ I, one fewer of each
            for mm, ss, x in [(m, s, ZERO)] + [(m - 1, max(0, s - 1), X[i1][i2])] * (
                    i2 in beaten[i1] and m >= 1):
                if mm <= len(A) and ss <= len(B) and pa[mm] + pb[ss] + x < 1:
                    raise CertificateError("primal", f"per_winner[{i1}]: x̂ violates a "
                                           f"constraint (i2={i2}, l={l}) of R_{i1}")
    return sum((cost(a, b)[1] * x for a, b, x in e["primal"]), ZERO)

def _ecw(i1: int, end: int, T: dict, cost) -> Fraction:
    """C^E*_{i1} at the cost bounds c⁻ (end 0) or c⁺ (end 1), [K16] Theorem 5."""
    total = sum((cost(i1, j)[end] for j in T["beaten"][i1]), ZERO)
    for i2, B, m in T["rivals"][i1]:
        acc = list(accumulate(sorted(cost(j, i2)[end] for j in B), initial=ZERO))
        total += min(acc[h] / (h - len(B) + m) for h in range(len(B) - m + 1, len(B) + 1))
    return total

def _stated(section: dict, where: str, lower: Fraction, upper: Fraction) -> None:
    """Step 9: stated = proven exactly; any ``*_float`` is the outward binary64 rounding."""
    for name, got, rnd in (("lower", lower, -1), ("upper", upper, 1)):
        _need(section[name] == got, "value", f"{where}.{name} = {float(section[name]):.17g} "
              f"but the certificate proves {float(got):.17g}")
        f = section.get(f"{name}_float", math.nan)
        _need(f != f or (Fraction(f) - got) * rnd >= 0 > (Fraction(math.nextafter(
            f, -rnd * math.inf)) - got) * rnd, "value", f"{where}.{name}_float = {f!r} is not "
            f"{name} rounded {'down' if rnd < 0 else 'up'} to binary64")

def check_certificate(doc) -> dict:
    """What a parsed certificate proves (K, winners, brackets), or CertificateError."""
    c = _read(doc)
    T, P = _tournament(c), c["per_winner"]
    for w, k, x in ((e["winner"], k, t[2]) for e in P for k, t in enumerate(e["primal"])):
        _need(0 < x <= 1, "primal", f"per_winner[{w}].primal[{k}]: x = {x} not in (0, 1]")
    G = {e["winner"]: _rows(e, e["winner"], T) for e in P}
    costs = _costs(c, T, G)
    cost = lambda a, b: costs.get((a, b) if a < b else (b, a), (ZERO, ZERO))  # noqa: E731
    uppers = [_primal_upper(e, e["winner"], T, cost) for e in P]
    for e, upper in zip(P, uppers):  # step 8: (Aᵀy)_p − w_p ≤ c⁻_p
        i1, box = e["winner"], {(a, b): w for a, b, w in e["box"]}
        for p, groups in G[i1].items():
            aty = sum((Fraction(n, q) for q, n in groups.items()), ZERO)  # (Aᵀy)_p
            _need(aty - box.get(p, ZERO) <= cost(*p)[0], "dual", f"per_winner[{i1}]: dual "
                  f"infeasible at pair {p}: (A^T y)_p - w_p > c-_p")
        e["proven"] = (sum((r["y"] for r in e["dual"]), ZERO) - sum(box.values(), ZERO), upper)
    for e in P:  # step 9, after step 8 of every winner
        _stated(e, f"per_winner[{e['winner']}]", *e["proven"])
    lower, upper = map(min, zip(*(e["proven"] for e in P)))  # the least bracket ends
    _stated(c["claim"], "claim", lower, upper)
    ecw = [(_ecw(i1, 0, T, cost), _ecw(i1, 1, T, cost)) for i1 in c["winners"]]
    for e, (lo, hi) in zip(c["ecw"]["per_winner"], ecw):
        _stated(e, f"ecw.per_winner[{e['winner']}] (sorted threshold at c-/c+)", lo, hi)
    _stated(c["ecw"], "ecw", min(b[0] for b in ecw), min(b[1] for b in ecw))
    return {"K": len(T["L"]), "winners": c["winners"], "lower": str(lower), "upper": str(upper),
            **{f"{p}{k}_float": s[f"{k}_float"] for p, s in (("", c["claim"]), ("ecw_", c["ecw"]))
               for k in ("lower", "upper")}}

def check_file(path: str) -> dict:
    """:func:`check_certificate` on a JSON file (OSError / ValueError if it is not JSON)."""
    with open(path, encoding="utf-8") as fh:
        return check_certificate(loads(fh.read()))

if __name__ == "__main__":  # exit 0 VALID, 1 INVALID (the reason), 2 unreadable / not JSON
    try:
        out = check_file(sys.argv[1]) if len(sys.argv) == 2 else sys.exit("usage: checker F")
        print(f"VALID: C* in [{out['lower_float']!r}, {out['upper_float']!r}]")
    except CertificateError as exc:
        sys.exit(print(f"INVALID: {exc}") or 1)
    except (OSError, ValueError) as exc:
        sys.exit(print(f"cannot read {sys.argv[1]}: {exc}", file=sys.stderr) or 2)
