"""Write the certificate conformance suite (tests/conformance/certificates/, docs/certificates.md).

Each case is one JSON file and one entry of ``index.json``: the verdict a conforming checker
must reach (VALID / INVALID), the kind of the first rule broken (docs/certificates.md, "What
the checker verifies") and what was changed.  Every INVALID case changes one thing in a
valid certificate.  Run from the repository root to rebuild (the files are committed; the
test reads them, it does not rebuild them):

    python tests/conformance/build_certificates.py
"""

from __future__ import annotations

import copy
import json
import math
import os
from fractions import Fraction

from duelbound.solvers import lower_bound
from duelbound.theory import datasets
from duelbound.theory.generators import random_matrix
from duelbound.theory.matrix import PreferenceMatrix

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "certificates")


def _near_tie() -> PreferenceMatrix:
    g = ["0.500000000001", "0.5000001", "0.7", "0.499999999999", "0.6", "0.9"]
    V = [[0.5] * 4 for _ in range(4)]
    W = [["0.5"] * 4 for _ in range(4)]
    k = 0
    for i in range(4):
        for j in range(i + 1, 4):
            V[i][j], V[j][i] = float(g[k]), 1 - float(g[k])
            W[i][j], W[j][i] = g[k], str(1 - Fraction(g[k]))
            k += 1
    return PreferenceMatrix(V).with_written([[str(Fraction(w)) if "/" in w else w for w in r]
                                             for r in W])


def _bases() -> dict[str, dict]:
    mats = {"cyclic": datasets.load("cyclic"), "unique_copeland": datasets.load("unique_copeland"),
            "multi_winner": datasets.load("multi_winner"),
            "arxiv6": datasets.load("arxiv6", break_ties=1e-3), "near_tie": _near_tie(),
            "random7": random_matrix(7, 2)}
    return {k: json.loads(json.dumps(lower_bound(M, certify=True).certificate_document(
        generator="conformance suite", name=k))) for k, M in mats.items()}


def _pair_cost(doc, a, b):
    """A correct `pairs` entry for (a, b) (the generator's own rules)."""
    from duelbound.solvers.enclosure import CostBounds

    mu = [[Fraction(v) for v in r] for r in doc["matrix"]["mu"]]
    cb = CostBounds(mu, doc["losses"])
    cb.of(a, b)
    return {"pair": [a, b], "d": [str(v) for v in cb.table[a, b][:2]],
            "cost": [str(v) for v in cb.table[a, b][2:]]}


def _unused_pair(doc):
    listed = {tuple(e["pair"]) for e in doc["pairs"]}
    K, L = doc["matrix"]["K"], doc["losses"]
    return next((a, b) for a in range(K) for b in range(a + 1, K)
                if (a, b) not in listed and L[a] + L[b] > 2 * min(L)
                and not any([a, b] == e[:2] for w in doc["per_winner"] for e in w["primal"]))


def _first_row(doc, test):
    return next(r for w in doc["per_winner"] for r in w["dual"] if test(r))


def _set(path_value):
    def edit(d):
        for path, value in path_value:
            obj = d
            for k in path[:-1]:
                obj = obj[k]
            obj[path[-1]] = value
    return edit


def _scale(get, factor):
    def edit(d):
        obj, k = get(d)
        obj[k] = str(Fraction(obj[k]) * factor)
    return edit


def _long(d):  # every µ as an unreduced rational of 5 001 digits (over Python's 4 300 limit)
    z = "0" * 5000
    d["matrix"]["mu"] = [[f"{Fraction(v).numerator}{z}/{Fraction(v).denominator}{z}"
                          if Fraction(v) else v for v in r] for r in d["matrix"]["mu"]]


def _max_digits(n):
    def edit(d):
        d["matrix"]["mu"][0][0] = "1" + "0" * (n - 1) + "/2" + "0" * (n - 1)
    return edit


def _text(replace):
    """An edit of the JSON text itself (duplicate keys, non-JSON numbers)."""
    return ("text", replace)


def _dup_claim(text):
    return text.replace('"claim":{', '"claim":{"lower":"100","upper":"101"},"claim":{', 1)


def _dup_nested(text):
    return text.replace('"winner":0,', '"winner":0,"winner":0,', 1)


def _float_text(token):
    def edit(text):
        d = json.loads(text)
        mark = repr(d["claim"]["lower_float"])
        return text.replace(f'"lower_float":{mark}', f'"lower_float":{token}', 1)
    return edit


def _add_pair(make):
    def edit(d):
        d["pairs"] = sorted(d["pairs"] + [make(d)], key=lambda e: e["pair"])
    return edit


def _add_box(d, w, on_used):
    e = d["per_winner"][0]
    used = {tuple(sorted((e["winner"], j))) for r in e["dual"] for j in r["I"]}
    used |= {tuple(sorted((r["i2"], j))) for r in e["dual"] for j in r["S"]}
    K = d["matrix"]["K"]
    pool = sorted(used) if on_used else [(a, b) for a in range(K) for b in range(a + 1, K)
                                          if (a, b) not in used]
    have = {tuple(b[:2]) for b in e["box"]}
    a, b = next(p for p in pool if p not in have)
    e["box"] = sorted(e["box"] + [[a, b, w]])


def _widen_I(d):
    r = _first_row(d, lambda r: r["I"])
    r["I"] = sorted(r["I"] + [j for j in range(d["matrix"]["K"]) if j not in r["I"]][:1])


def _s_with_i1(d):
    i1 = d["per_winner"][0]["winner"]
    r = _first_row(d, lambda r: r["S"])
    r["S"] = sorted([i1] + r["S"][1:])


def _big_y(d):
    row = max(d["per_winner"][0]["dual"], key=lambda r: Fraction(r["y"]))
    row["y"] = str(Fraction(row["y"]) * 2)


def _halve_x(d):
    e = max(d["per_winner"][0]["primal"], key=lambda e: Fraction(e[2]))
    e[2] = str(Fraction(e[2]) / 2)


def _dup_winner(d):  # issue 30: "C*_2 in [1, 1]" was VALID with a duplicate entry
    e = copy.deepcopy(d["per_winner"][0])
    e["lower"] = e["upper"] = "1"
    d["per_winner"].append(e)


def _swap_pairs(d):
    d["pairs"][0], d["pairs"][1] = d["pairs"][1], d["pairs"][0]


def _flip(d):  # another tournament: the winners and losses no longer match
    mu = d["matrix"]["mu"]
    mu[0][1], mu[1][0] = mu[1][0], mu[0][1]


W = "multi_winner"
# (file, base, edit or None, verdict, kind, what)
CASES = [
    ("valid_cyclic", "cyclic", None, "VALID", None, "cyclic dataset, Condorcet winner"),
    ("valid_unique_copeland", "unique_copeland", None, "VALID", None, "one winner, L1 = 1"),
    ("valid_multi_winner", W, None, "VALID", None, "three Copeland winners"),
    ("valid_arxiv6", "arxiv6", None, "VALID", None, "ties broken by 1e-3"),
    ("valid_near_tie", "near_tie", None, "VALID", None, "gaps 1e-12 and 1e-7, text decimals"),
    ("valid_random7", "random7", None, "VALID", None, "random K = 7, stored floats"),
    ("valid_long_unreduced", "cyclic", _long, "VALID", None, "5001-digit unreduced rationals"),
    ("valid_max_digits", "cyclic", _max_digits(100_000), "VALID", None, "100000-digit p and q"),
    ("valid_no_statement_no_meta", "cyclic", lambda d: [d.pop("statement"), d.pop("meta")],
     "VALID", None, "optional keys left out"),
    ("valid_meta_anything", "cyclic", _set([(("meta",), {"x": [1, None, {"y": True}]}),
                                           (("statement",), "anything"),
                                           (("matrix", "source"), "unchecked")]),
     "VALID", None, "unchecked fields hold anything of their type"),
    ("json_duplicate_claim", "cyclic", _text(_dup_claim), "INVALID", "json",
     "two claim keys, the first false"),
    ("json_duplicate_winner_key", "cyclic", _text(_dup_nested), "INVALID", "json",
     "a key twice in one per_winner entry"),
    ("json_infinity", "cyclic", _text(_float_text("Infinity")), "INVALID", "json", "Infinity"),
    ("json_minus_infinity", "cyclic", _text(_float_text("-Infinity")), "INVALID", "json",
     "-Infinity"),
    ("json_nan", "cyclic", _text(_float_text("NaN")), "INVALID", "json", "NaN"),
    ("json_overflow", "cyclic", _text(_float_text("1e999")), "INVALID", "json", "1e999"),
    ("schema_version_true", "cyclic", _set([(("version",), True)]), "INVALID", "schema",
     "version: true"),
    ("schema_version_1", "cyclic", _set([(("version",), 1)]), "INVALID", "schema", "version 1"),
    ("schema_version_3", "cyclic", _set([(("version",), 3)]), "INVALID", "schema", "version 3"),
    ("schema_version_string", "cyclic", _set([(("version",), "2")]), "INVALID", "schema",
     "version \"2\""),
    ("schema_format", "cyclic", _set([(("format",), "other")]), "INVALID", "schema", "format"),
    ("schema_unknown_top_key", "cyclic", _set([(("extra",), 1)]), "INVALID", "schema",
     "unknown top-level key"),
    ("schema_unknown_nested_key", "cyclic", _set([(("claim", "note"), "x")]), "INVALID",
     "schema", "unknown key in claim"),
    ("schema_missing_key", "cyclic", lambda d: d["per_winner"][0].pop("box"), "INVALID",
     "schema", "per_winner entry without box"),
    ("schema_K_mismatch", "cyclic", _set([(("matrix", "K"), 5)]), "INVALID", "schema",
     "K = 5 for a 4 x 4 mu"),
    ("schema_K_bool", "cyclic", _set([(("matrix", "K"), True)]), "INVALID", "schema", "K: true"),
    ("schema_mu_row_short", "cyclic", lambda d: d["matrix"]["mu"][2].pop(), "INVALID", "schema",
     "a row of mu with K - 1 entries"),
    ("schema_box_index_out_of_range", "cyclic",
     lambda d: d["per_winner"][0]["box"].append([0, d["matrix"]["K"], "1"]), "INVALID", "schema",
     "box pair index K"),
    ("schema_primal_index_negative", "cyclic",
     lambda d: d["per_winner"][0]["primal"][0].__setitem__(0, -1), "INVALID", "schema",
     "primal index -1"),
    ("schema_i2_out_of_range", "cyclic", lambda d: d["per_winner"][0]["dual"][0].update(i2=99),
     "INVALID", "schema", "dual i2 = 99"),
    ("schema_index_float", "cyclic", lambda d: d["per_winner"][0].update(winner=0.0),
     "INVALID", "schema", "winner 0.0"),
    ("schema_index_bool", "cyclic", lambda d: d["per_winner"][0]["dual"][0].update(i2=True),
     "INVALID", "schema", "i2: true"),
    ("schema_rational_number", "cyclic", _set([(("matrix", "mu", 0, 0), 0.5)]), "INVALID",
     "schema", "rational as a JSON number"),
    ("schema_rational_decimal", "cyclic", _set([(("matrix", "mu", 0, 0), "0.5")]), "INVALID",
     "schema", "rational as a decimal string"),
    ("schema_rational_arabic_indic", "cyclic", _set([(("matrix", "mu", 0, 0), "\u0661/\u0662")]),
     "INVALID", "schema", "Arabic-Indic digits"),
    ("schema_rational_fullwidth", "cyclic", _set([(("matrix", "mu", 0, 0), "\uff11/\uff12")]),
     "INVALID", "schema", "full-width digits"),
    ("schema_rational_leading_zero", "cyclic", _set([(("matrix", "mu", 0, 0), "01/2")]),
     "INVALID", "schema", "leading zero"),
    ("schema_rational_plus", "cyclic", _set([(("matrix", "mu", 0, 0), "+1/2")]), "INVALID",
     "schema", "plus sign"),
    ("schema_rational_zero_denominator", "cyclic", _set([(("matrix", "mu", 0, 0), "1/0")]),
     "INVALID", "schema", "denominator 0"),
    ("schema_rational_space", "cyclic", _set([(("matrix", "mu", 0, 0), "1 /2")]), "INVALID",
     "schema", "a space"),
    ("schema_rational_newline", "cyclic", _set([(("matrix", "mu", 0, 0), "1/2\n")]), "INVALID",
     "schema", "a trailing newline"),
    ("schema_rational_too_long", "cyclic", _max_digits(100_001), "INVALID", "schema",
     "100001-digit p and q"),
    ("schema_float_integer", "cyclic", _set([(("claim", "lower_float"), 27)]), "INVALID",
     "schema", "lower_float written as an integer"),
    ("schema_float_string", "cyclic", _set([(("claim", "upper_float"), "27.5")]), "INVALID",
     "schema", "upper_float as a string"),
    ("schema_statement_number", "cyclic", _set([(("statement",), 1)]), "INVALID", "schema",
     "statement not a string"),
    ("schema_meta_list", "cyclic", _set([(("meta",), [])]), "INVALID", "schema",
     "meta not an object"),
    ("schema_duplicate_per_winner", "cyclic", _dup_winner, "INVALID", "schema",
     "a second entry for winner 0 claiming [1, 1]"),
    ("schema_duplicate_ecw_winner", "cyclic",
     lambda d: d["ecw"]["per_winner"].append(dict(d["ecw"]["per_winner"][0])), "INVALID",
     "schema", "ecw.per_winner entry twice"),
    ("schema_missing_winner_entry", W, lambda d: d["per_winner"].pop(), "INVALID", "schema",
     "one of three winners without an entry"),
    ("schema_winner_entries_unordered", W, lambda d: d["per_winner"].reverse(), "INVALID",
     "schema", "per_winner in descending order"),
    ("schema_winners_unordered", W, lambda d: d["winners"].reverse(), "INVALID", "schema",
     "winners descending"),
    ("schema_pairs_unordered", "cyclic", _swap_pairs, "INVALID", "schema", "pairs swapped"),
    ("schema_pairs_duplicate", "cyclic", lambda d: d["pairs"].insert(0, d["pairs"][0]),
     "INVALID", "schema", "a pairs entry twice"),
    ("schema_pair_reversed", "cyclic", lambda d: d["pairs"][0]["pair"].reverse(), "INVALID",
     "schema", "pair [b, a]"),
    ("schema_primal_unordered", "cyclic", lambda d: d["per_winner"][0]["primal"].reverse(),
     "INVALID", "schema", "primal entries descending"),
    ("schema_S_unordered", "random7",
     lambda d: _first_row(d, lambda r: len(r["S"]) > 1)["S"].reverse(), "INVALID", "schema",
     "S descending"),
    ("matrix_diagonal", "cyclic", _set([(("matrix", "mu", 0, 0), "1/3")]), "INVALID", "matrix",
     "mu_00 = 1/3"),
    ("matrix_not_complementary", "cyclic", _set([(("matrix", "mu", 0, 1), "61/100")]),
     "INVALID", "matrix", "mu_01 + mu_10 != 1"),
    ("matrix_out_of_range", "cyclic", _set([(("matrix", "mu", 0, 1), "6/5"),
                                           (("matrix", "mu", 1, 0), "-1/5")]),
     "INVALID", "matrix", "mu = 6/5 and -1/5"),
    ("matrix_tie", "cyclic", _set([(("matrix", "mu", 0, 1), "1/2"),
                                  (("matrix", "mu", 1, 0), "1/2")]), "INVALID", "matrix",
     "a tie"),
    ("tournament_flipped", "cyclic", _flip, "INVALID", "tournament",
     "mu_01 and mu_10 swapped: another tournament"),
    ("tournament_losses", "cyclic", lambda d: d["losses"].__setitem__(3, 1), "INVALID",
     "tournament", "losses[3] wrong"),
    ("primal_zero_entry", "cyclic", lambda d: d["per_winner"][0]["primal"][0].__setitem__(2, "0"),
     "INVALID", "primal", "x = 0 listed"),
    ("primal_above_one", "cyclic", lambda d: d["per_winner"][0]["primal"][0].__setitem__(
        2, "3/2"), "INVALID", "primal", "x = 3/2"),
    ("primal_violates", "cyclic", _halve_x, "INVALID", "primal", "largest x halved"),
    ("dual_y_negative", "cyclic", lambda d: d["per_winner"][0]["dual"][0].update(y="-1"),
     "INVALID", "dual", "y = -1"),
    ("dual_y_zero", "cyclic", lambda d: d["per_winner"][0]["dual"][0].update(y="0"),
     "INVALID", "dual", "y = 0"),
    ("dual_I_wrong_size", "arxiv6", _widen_I, "INVALID", "dual", "|I| one too many"),
    ("dual_i2_is_i1", "cyclic", lambda d: d["per_winner"][0]["dual"][0].update(
        i2=d["per_winner"][0]["winner"]), "INVALID", "dual", "i2 = i1"),
    ("dual_S_holds_i1", "arxiv6", _s_with_i1, "INVALID", "dual", "i1 in S"),
    ("dual_l_out_of_range", "cyclic", lambda d: d["per_winner"][0]["dual"][0].update(l=99),
     "INVALID", "dual", "l = 99"),
    ("dual_infeasible", "cyclic", _big_y, "INVALID", "dual", "largest y doubled"),
    ("dual_box_zero", "cyclic", lambda d: _add_box(d, "0", True), "INVALID", "dual", "w = 0"),
    ("dual_box_unused_pair", "random7", lambda d: _add_box(d, "1", False), "INVALID", "dual",
     "box on a pair no row uses"),
    ("pairs_negative_d", "cyclic", lambda d: d["pairs"][0].update(
        d=["-1", d["pairs"][0]["d"][1]], cost=[d["pairs"][0]["cost"][0], "-11"]),
     "INVALID", "pairs", "issue 30: d- = -1, c+ = -11"),
    ("pairs_zero_d", "cyclic", lambda d: d["pairs"][0].update(d=["0", d["pairs"][0]["d"][1]]),
     "INVALID", "pairs", "d- = 0"),
    ("pairs_d_excludes", "cyclic", lambda d: d["pairs"][0].update(
        d=[str(Fraction(v) * 2) for v in d["pairs"][0]["d"]]), "INVALID", "pairs",
     "[d-, d+] doubled: excludes d"),
    ("pairs_d_narrowed", "cyclic", lambda d: d["pairs"][0].update(d=[d["pairs"][0]["d"][0], str(
        Fraction(d["pairs"][0]["d"][0]) * (1 + Fraction(1, 2**130)))]), "INVALID", "pairs",
     "d+ just above d-, below d"),
    ("pairs_d_reversed", "cyclic", lambda d: d["pairs"][0]["d"].reverse(), "INVALID", "pairs",
     "d- > d+"),
    ("pairs_cost_low", "cyclic", lambda d: d["pairs"][0]["cost"].__setitem__(
        1, d["pairs"][0]["cost"][0]), "INVALID", "pairs", "c+ = c- < r/d"),
    ("pairs_cost_negative", "cyclic", lambda d: d["pairs"][0]["cost"].__setitem__(0, "-1"),
     "INVALID", "pairs", "c- = -1"),
    ("pairs_missing", "cyclic", lambda d: d["pairs"].pop(0), "INVALID", "pairs",
     "a used pair without entry"),
    ("pairs_extra", "random7", _add_pair(lambda d: _pair_cost(d, *_unused_pair(d))), "INVALID",
     "pairs", "a correct entry for a pair nothing uses"),
    ("pairs_winner_pair", W, _add_pair(lambda d: {"pair": [0, 1], "d": ["1/100", "1"],
                                                  "cost": ["0", "0"]}), "INVALID", "pairs",
     "a pair of two winners (regret 0) listed"),
    ("value_winner_lower", "cyclic", _scale(lambda d: (d["per_winner"][0], "lower"),
                                            Fraction(101, 100)), "INVALID", "value",
     "per_winner lower raised 1 %"),
    ("value_winner_upper", "cyclic", _scale(lambda d: (d["per_winner"][0], "upper"),
                                            Fraction(99, 100)), "INVALID", "value",
     "per_winner upper lowered 1 %"),
    ("value_claim_weaker", "cyclic", lambda d: d["claim"].update(lower=str(
        Fraction(d["claim"]["lower"]) - Fraction(1, 2**200))), "INVALID", "value",
     "claim.lower 2^-200 lower (weaker)"),
    ("value_lower_float_ulp", "cyclic", lambda d: d["claim"].update(lower_float=math.nextafter(
        d["claim"]["lower_float"], -math.inf)), "INVALID", "value", "lower_float one ulp down"),
    ("value_upper_float_ulp", "cyclic", lambda d: d["claim"].update(upper_float=math.nextafter(
        d["claim"]["upper_float"], -math.inf)), "INVALID", "value", "upper_float one ulp down"),
    ("value_ecw_winner", "cyclic", _scale(lambda d: (d["ecw"]["per_winner"][0], "lower"),
                                          Fraction(101, 100)), "INVALID", "value",
     "ecw per-winner lower raised 1 %"),
    ("value_ecw_float", "cyclic", lambda d: d["ecw"].update(upper_float=math.nextafter(
        d["ecw"]["upper_float"], math.inf)), "INVALID", "value", "ecw.upper_float one ulp up"),
]


def main() -> None:
    bases = _bases()
    for name in os.listdir(HERE):
        if name.endswith(".json"):
            os.remove(os.path.join(HERE, name))
    index = {}
    for name, base, edit, verdict, kind, what in CASES:
        doc = copy.deepcopy(bases[base])
        if isinstance(edit, tuple):
            text = edit[1](json.dumps(doc, separators=(",", ":")))
        else:
            if edit is not None:
                edit(doc)
            text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        index[name + ".json"] = {"verdict": verdict, "kind": kind, "base": base, "what": what}
    with open(os.path.join(HERE, "index.json"), "w", encoding="utf-8") as fh:
        json.dump(index, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(f"{len(index)} cases written to {HERE}")


if __name__ == "__main__":
    main()
