"""A second C* certificate checker, written from docs/certificates.md alone.

It shares no code with ``duelbound.checks.proof`` (it imports nothing from duelbound) and
takes other routes where it can: explicit per-key validation instead of a schema table,
Python's int-digit limit lifted for the parse instead of chunked parsing, plain Fraction
sums, ``heapq.nsmallest`` for the sorting oracle, and mpmath's interval arithmetic for
d(µ, ½) instead of fixed-point series.  It is the "stranger's checker" of the conformance
tests (tests/test_certificate_conformance.py) and of benchmarks/bench_certificate.py.

    verdict(text) -> ("VALID", None) or ("INVALID", kind)
"""

from __future__ import annotations

import heapq
import json
import math
import re
import sys
from fractions import Fraction

import mpmath
from mpmath.libmp import to_rational

RATIONAL = re.compile(r"(0|-?[1-9][0-9]*)(/[1-9][0-9]*)?")
MAX_DIGITS = 100_000


class Invalid(Exception):
    def __init__(self, kind: str, why: str):
        super().__init__(f"{kind}: {why}")
        self.kind = kind


def require(cond, kind: str, why: str) -> None:
    if not cond:
        raise Invalid(kind, why)


# -- step 1: JSON ----------------------------------------------------------------------------
def _pairs_hook(items):
    keys = [k for k, _ in items]
    require(len(keys) == len(set(keys)), "json", "duplicate key")
    return dict(items)


def _float(s: str) -> float:
    v = float(s)
    require(not math.isinf(v) and not math.isnan(v), "json", "number overflows binary64")
    return v


def _bad_constant(s: str):
    raise Invalid("json", f"{s} is not JSON")


def parse_json(text: str):
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.loads(text, object_pairs_hook=_pairs_hook, parse_float=_float,
                          parse_constant=_bad_constant)
    finally:
        sys.set_int_max_str_digits(old)


# -- step 2: schema --------------------------------------------------------------------------
def keys(obj, required: set, optional: set = frozenset()) -> dict:
    require(isinstance(obj, dict), "schema", "object expected")
    require(required <= set(obj) <= required | optional, "schema", f"keys {sorted(obj)}")
    return obj


def rational(v) -> Fraction:
    require(isinstance(v, str) and RATIONAL.fullmatch(v) is not None, "schema", f"rational {v!r}")
    num, _, den = v.partition("/")
    require(len(num.lstrip("-")) <= MAX_DIGITS and len(den) <= MAX_DIGITS, "schema", "digits")
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return Fraction(int(num), int(den) if den else 1)
    finally:
        sys.set_int_max_str_digits(old)


def integer(v) -> int:
    require(isinstance(v, int) and not isinstance(v, bool), "schema", f"integer {v!r}")
    return v


def index(v, K: int) -> int:
    require(0 <= integer(v) < K, "schema", f"index {v!r}")
    return v


def floatnum(v) -> float:
    require(isinstance(v, float) and math.isfinite(v), "schema", f"float {v!r}")
    return v


def lst(v, n=None) -> list:
    require(isinstance(v, list) and (n is None or len(v) == n), "schema", "list expected")
    return v


def increasing(seq) -> None:
    require(all(seq[k] < seq[k + 1] for k in range(len(seq) - 1)), "schema", "order")


def triples(v, K):
    out = []
    for t in lst(v):
        a, b, q = lst(t, 3)
        out.append(((index(a, K), index(b, K)), rational(q)))
    increasing([p for p, _ in out])
    require(all(a < b for (a, b), _ in out), "schema", "pair a < b")
    return out


def bracket(obj, extra=frozenset()):
    keys(obj, {"lower", "upper", "lower_float", "upper_float"} | extra)
    return (rational(obj["lower"]), rational(obj["upper"]), floatnum(obj["lower_float"]),
            floatnum(obj["upper_float"]))


def header(doc) -> int:
    """format, version and K come first (a version-1 file is refused before its keys)."""
    require(isinstance(doc, dict), "schema", "top level")
    require(doc.get("format") == "duelbound-cstar-certificate", "schema", "format")
    v = doc.get("version")
    require(isinstance(v, int) and not isinstance(v, bool) and v == 2, "schema", "version")
    m = doc.get("matrix")
    K = m.get("K") if isinstance(m, dict) else None
    require(isinstance(K, int) and not isinstance(K, bool) and K >= 2, "schema", "K")
    return K


def winner_entry(e, K) -> dict:
    keys(e, {"winner", "lower", "upper", "primal", "dual", "box"})
    rows = []
    for r in lst(e["dual"]):
        keys(r, {"y", "i2", "l", "I", "S"})
        rows.append((rational(r["y"]), index(r["i2"], K), integer(r["l"]),
                     [index(j, K) for j in lst(r["I"])], [index(j, K) for j in lst(r["S"])]))
    for _, _, _, I, S in rows:
        increasing(I)
        increasing(S)
    return {"winner": index(e["winner"], K), "lower": rational(e["lower"]),
            "upper": rational(e["upper"]), "primal": triples(e["primal"], K),
            "dual": rows, "box": triples(e["box"], K)}


def read(doc) -> dict:
    K = header(doc)
    keys(doc, {"format", "version", "matrix", "winners", "losses", "pairs", "per_winner",
               "claim", "ecw"}, {"statement", "meta"})
    require(isinstance(doc.get("statement", ""), str), "schema", "statement")
    require(isinstance(doc.get("meta", {}), dict), "schema", "meta")
    m = keys(doc["matrix"], {"K", "source", "mu"})
    require(isinstance(m["source"], str), "schema", "source")
    mu = [[rational(x) for x in lst(row)] for row in lst(m["mu"])]
    winners = [index(i, K) for i in lst(doc["winners"])]
    losses = [index(i, K) for i in lst(doc["losses"])]
    pairs, order = {}, []
    for e in lst(doc["pairs"]):
        keys(e, {"pair", "d", "cost"})
        a, b = (index(i, K) for i in lst(e["pair"], 2))
        pairs[(a, b)] = tuple(rational(x) for x in lst(e["d"], 2) + lst(e["cost"], 2))
        order.append((a, b))
    per = [winner_entry(e, K) for e in lst(doc["per_winner"])]
    claim, ecw = bracket(doc["claim"]), bracket(doc["ecw"], {"per_winner"})
    ecw_per = [(index(keys(e, {"winner", "lower", "upper"})["winner"], K), rational(e["lower"]),
                rational(e["upper"])) for e in lst(doc["ecw"]["per_winner"])]
    require(len(mu) == K and all(len(r) == K for r in mu) and len(losses) == K, "schema", "K")
    increasing(winners)
    increasing(order)
    require(all(a < b for a, b in order), "schema", "pair a < b")
    require([e["winner"] for e in per] == winners, "schema", "per_winner")
    require([e[0] for e in ecw_per] == winners, "schema", "ecw.per_winner")
    return {"K": K, "mu": mu, "winners": winners, "losses": losses, "pairs": pairs,
            "per": per, "claim": claim, "ecw": ecw, "ecw_per": ecw_per}


# -- step 6: d(µ, 1/2) by interval arithmetic ------------------------------------------------
def _ends(x) -> tuple[Fraction, Fraction]:
    """The two ends of an mpmath interval as exact rationals."""
    return tuple(Fraction(*to_rational(end)) for end in x._mpi_)


def d_decision(mu: Fraction, lo: Fraction, hi: Fraction) -> bool:
    gap = abs(2 * mu - 1)
    gap_bits = max(0, gap.denominator.bit_length() - gap.numerator.bit_length())
    for prec in (2 * gap_bits + 160, 2 * gap_bits + 600, 2 * gap_bits + 2200):
        mpmath.iv.prec = prec
        if mu in (0, 1):
            d = mpmath.iv.log(2)
        else:
            m = mpmath.iv.mpf(mu.numerator) / mu.denominator
            d = m * mpmath.iv.log(2 * m) + (1 - m) * mpmath.iv.log(2 * (1 - m))
        a, b = _ends(d)
        if lo <= a and b <= hi:
            return True
        if b < lo or a > hi:
            return False
    return False


# -- steps 3-9 -------------------------------------------------------------------------------
def key(a, b):
    return (a, b) if a < b else (b, a)


def cost(a, b, table):
    return table.get(key(a, b), Fraction(0))


def steps_3_4(c) -> dict:
    K, mu, half = c["K"], c["mu"], Fraction(1, 2)
    for i in range(K):
        require(mu[i][i] == half, "matrix", "diagonal")
        for j in range(K):
            if i != j:
                require(0 <= mu[i][j] <= 1 and mu[i][j] + mu[j][i] == 1 and mu[i][j] != half,
                        "matrix", "entry")
    beats_me = [{j for j in range(K) if mu[i][j] < half} for i in range(K)]  # S_i
    i_beat = [{j for j in range(K) if mu[i][j] > half} for i in range(K)]  # I_i
    L = [len(s) for s in beats_me]
    L1, L2 = sorted(L)[0], sorted(L)[1]
    require(c["winners"] == [i for i in range(K) if L[i] == L1] and c["losses"] == L,
            "tournament", "winners/losses")
    return {"S": beats_me, "I": i_beat, "L": L, "L1": L1, "L2": L2}


def step_5(c, t) -> set:
    for e in c["per"]:
        require(all(0 < x <= 1 for _, x in e["primal"]), "primal", "x range")
    used_all = set()
    for e in c["per"]:
        i1, used = e["winner"], set()
        for y, i2, l, I, S in e["dual"]:
            require(y > 0 and i2 != i1 and max(0, t["L1"] - 1) <= l <= t["L2"], "dual", "row")
            require(set(I) <= t["I"][i1] and len(I) == l + 1 - t["L1"], "dual", "I")
            require(set(S) <= t["S"][i2] and i1 not in S, "dual", "S")
            require(len(S) == max(0, t["L"][i2] - l - (1 if i2 in I else 0)), "dual", "|S|")
            require(len(I) + len(S) > 0, "dual", "empty row")
            used |= {key(i1, j) for j in I} | {key(i2, j) for j in S}
        for p, w in e["box"]:
            require(w > 0 and p in used, "dual", "box")
        used_all |= used
    return used_all


def step_6(c, t, used) -> tuple[dict, dict]:
    K, L, L1 = c["K"], t["L"], t["L1"]
    t["rivals"] = {}
    for e in c["per"]:
        used |= {p for p, _ in e["primal"]}
    for i1 in c["winners"]:
        used |= {key(i1, j) for j in t["I"][i1]}
        t["rivals"][i1] = []
        for i2 in range(K):
            B = sorted(t["S"][i2] - {i1})
            m = L[i2] - L1 + 1
            if i2 != i1 and 1 <= m <= len(B):
                t["rivals"][i1].append((i2, B, m))
                used |= {key(j, i2) for j in B}
    regret = {p: Fraction(L[p[0]] + L[p[1]] - 2 * L1, 2 * (K - 1)) for p in used}
    require(set(c["pairs"]) == {p for p in used if regret[p] > 0}, "pairs", "pair set")
    cmin, cmax = {}, {}
    for (a, b), (dlo, dhi, clo, chi) in c["pairs"].items():
        r = regret[(a, b)]
        require(dlo > 0 and d_decision(c["mu"][a][b], dlo, dhi), "pairs", "d enclosure")
        require(clo >= 0 and clo * dhi <= r <= chi * dlo, "pairs", "cost bounds")
        cmin[(a, b)], cmax[(a, b)] = clo, chi
    return cmin, cmax


def step_7(c, t, cmax) -> dict:
    U = {}
    for e in c["per"]:
        i1, x = e["winner"], dict(e["primal"])
        for i2 in (i for i in range(c["K"]) if i != i1):
            A = [x.get(key(i1, j), Fraction(0)) for j in t["I"][i1] - {i2}]
            B = [x.get(key(i2, j), Fraction(0)) for j in t["S"][i2] - {i1}]
            for l in range(max(0, t["L1"] - 1), t["L2"] + 1):
                m, s = l + 1 - t["L1"], max(0, t["L"][i2] - l)
                if m <= len(A) and s <= len(B):
                    lhs = sum(heapq.nsmallest(m, A)) + sum(heapq.nsmallest(s, B))
                    require(lhs >= 1, "primal", "constraint")
                if i2 in t["I"][i1] and m >= 1 and m - 1 <= len(A) and max(0, s - 1) <= len(B):
                    lhs = (x.get(key(i1, i2), Fraction(0)) + sum(heapq.nsmallest(m - 1, A))
                           + sum(heapq.nsmallest(max(0, s - 1), B)))
                    require(lhs >= 1, "primal", "constraint (i2 in I)")
        U[i1] = sum((cost(a, b, cmax) * v for (a, b), v in e["primal"]), Fraction(0))
    return U


def step_8(c, cmin) -> dict:
    Lo = {}
    for e in c["per"]:
        i1, aty = e["winner"], {}
        for y, i2, _, I, S in e["dual"]:
            for p in [key(i1, j) for j in I] + [key(i2, j) for j in S]:
                aty[p] = aty.get(p, Fraction(0)) + y
        box = dict(e["box"])
        for p, v in aty.items():
            require(v - box.get(p, Fraction(0)) <= cost(*p, cmin), "dual", "feasibility")
        Lo[i1] = sum((r[0] for r in e["dual"]), Fraction(0)) - sum(box.values(), Fraction(0))
    return Lo


def check(doc) -> None:
    c = read(doc)
    t = steps_3_4(c)
    cmin, cmax = step_6(c, t, step_5(c, t))
    U = step_7(c, t, cmax)
    Lo = step_8(c, cmin)
    for e in c["per"]:  # step 9
        require(e["lower"] == Lo[e["winner"]] and e["upper"] == U[e["winner"]], "value", "winner")
    stated_bracket(c["claim"], min(Lo.values()), min(U.values()))
    E = {i1: [ecw_value(i1, table, t["I"], t["rivals"]) for table in (cmin, cmax)]
         for i1 in c["winners"]}
    for i1, lo, hi in c["ecw_per"]:
        require((lo, hi) == tuple(E[i1]), "value", "ecw per winner")
    stated_bracket(c["ecw"], min(v[0] for v in E.values()), min(v[1] for v in E.values()))


def ecw_value(i1, table, i_beat, rivals) -> Fraction:
    total = sum((cost(i1, j, table) for j in i_beat[i1]), Fraction(0))
    for i2, B, m in rivals[i1]:
        c = sorted(cost(j, i2, table) for j in B)
        n = len(c)
        total += min(sum(c[:h]) / (h - (n - m)) for h in range(n - m + 1, n + 1))
    return total


def stated_bracket(br, lower: Fraction, upper: Fraction) -> None:
    lo, hi, lof, hif = br
    require(lo == lower and hi == upper, "value", "bracket")
    down = float(lower)
    if Fraction(down) > lower:
        down = math.nextafter(down, -math.inf)
    up = float(upper)
    if Fraction(up) < upper:
        up = math.nextafter(up, math.inf)
    require(lof == down and hif == up, "value", "floats")


def verdict(text: str) -> tuple[str, str | None]:
    try:
        check(parse_json(text))
    except Invalid as exc:
        return "INVALID", exc.kind
    return "VALID", None
