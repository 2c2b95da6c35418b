"""The certificate specification tested the way a stranger would (issue 30, docs/certificates.md).

Two checkers — duelbound's (``duelbound.checks.proof``) and ``tests/spec_checker.py``, written
from the document alone with mpmath intervals and no shared code — must reach the verdict
and the rule kind that ``tests/conformance/certificates/index.json`` gives for every case of
the conformance suite, and must agree with each other on freshly generated certificates and
on random single mutations of them.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duelbound.checks.proof import CertificateError, check_certificate, check_file, loads
from duelbound.checks.proof.checker import KINDS
from duelbound.solvers import lower_bound
from duelbound.theory.generators import random_matrix
from duelbound.theory.matrix import PreferenceMatrix

sys.path.insert(0, os.path.dirname(__file__))
import spec_checker  # noqa: E402

SUITE = os.path.join(os.path.dirname(__file__), "conformance", "certificates")
INDEX = json.load(open(os.path.join(SUITE, "index.json"), encoding="utf-8"))


def _ours(text: str) -> tuple[str, str | None]:
    try:
        check_certificate(loads(text))
    except CertificateError as exc:
        return "INVALID", exc.kind
    return "VALID", None


def _text(name: str) -> str:
    with open(os.path.join(SUITE, name), encoding="utf-8") as fh:
        return fh.read()


# -- the conformance suite -------------------------------------------------------------------
def test_index_lists_every_file_and_covers_every_rule_kind():
    files = {f for f in os.listdir(SUITE) if f.endswith(".json") and f != "index.json"}
    assert files == set(INDEX)
    kinds = {e["kind"] for e in INDEX.values() if e["verdict"] == "INVALID"}
    assert kinds == set(KINDS)
    assert sum(e["verdict"] == "VALID" for e in INDEX.values()) >= 8


@pytest.mark.parametrize("name", sorted(INDEX))
def test_checker_reaches_the_expected_verdict_and_kind(name):
    expected = (INDEX[name]["verdict"], INDEX[name]["kind"])
    assert _ours(_text(name)) == expected
    if expected[0] == "INVALID":
        with pytest.raises(CertificateError) as info:
            check_file(os.path.join(SUITE, name))
        assert info.value.kind == expected[1]
    else:
        assert check_file(os.path.join(SUITE, name))["K"] >= 2


@pytest.mark.parametrize("name", sorted(INDEX))
def test_spec_checker_reaches_the_expected_verdict_and_kind(name):
    assert spec_checker.verdict(_text(name)) == (INDEX[name]["verdict"], INDEX[name]["kind"])


@pytest.mark.parametrize("name,code", [("valid_cyclic.json", 0), ("json_duplicate_claim.json", 1),
                                       ("json_infinity.json", 1), ("schema_version_true.json", 1)])
def test_module_and_cli_entry_points_agree_without_warnings(name, code):
    path = os.path.join(SUITE, name)
    mod = subprocess.run([sys.executable, "-W", "error", "-m", "duelbound.checks.proof.checker",
                          path], capture_output=True, text=True)
    assert mod.returncode == code and mod.stderr == "", mod.stderr
    assert mod.stdout.startswith("VALID" if code == 0 else "INVALID: ")
    cli = subprocess.run([sys.executable, "-m", "duelbound", "check-certificate", path, "--json"],
                         capture_output=True, text=True)
    assert cli.returncode == code, cli.stderr
    out = json.loads(cli.stdout)
    assert out["valid"] is (code == 0)
    if code:
        assert out["kind"] == INDEX[name]["kind"]


# -- fresh certificates and random mutations -------------------------------------------------
_GAPS = st.sampled_from(["1e-12", "3e-7", "0.001", "0.1", "0.25", "0.4", "0.5"])


@st.composite
def _matrices(draw) -> PreferenceMatrix:
    """Random tournaments K = 3..7 written as decimal text, gaps 0.5 down to 1e-12."""
    K = draw(st.integers(3, 7))
    text = [["0.5"] * K for _ in range(K)]
    for i, j in combinations(range(K), 2):
        g = Fraction(draw(_GAPS))
        p = Fraction(1, 2) + (g if draw(st.booleans()) else -g)
        text[i][j], text[j][i] = str(p), str(1 - p)
    V = np.array([[float(Fraction(v)) for v in row] for row in text])
    return PreferenceMatrix(V).with_written(text)


def _certificate(M) -> str:
    res = lower_bound(M, certify=True)
    assert res.proof.enclosure is not None, res.certificate
    return json.dumps(res.certificate_document(), separators=(",", ":"))


@settings(max_examples=15, deadline=None)
@given(_matrices())
def test_fresh_certificates_are_valid_for_both_checkers(M):
    text = _certificate(M)
    assert _ours(text) == spec_checker.verdict(text) == ("VALID", None)


@pytest.fixture(scope="module")
def fresh() -> list[dict]:
    mats = [random_matrix(6, 1), random_matrix(9, 4)]
    return [json.loads(_certificate(M)) for M in mats]


def _places(obj, path=()):
    """Every (path, value) in a JSON tree."""
    yield path, obj
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) \
        else ()
    for k, v in items:
        yield from _places(v, path + (k,))


def _mutate(doc: dict, pick: int, how: int) -> dict:
    doc = copy.deepcopy(doc)
    places = [p for p in _places(doc) if p[0]]
    path, value = places[pick % len(places)]
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    if isinstance(value, str) and "/" in value or value.__class__ is str and value.isdigit():
        q = Fraction(value)
        parent[key] = str([q + Fraction(1, 2**60), q * 2, -q, q / 3, Fraction(0)][how % 5])
    elif isinstance(value, bool) or not isinstance(value, (int, float, list)):
        parent[key] = [None, 1, "x", True][how % 4]
    elif isinstance(value, (int, float)):
        parent[key] = [value + 1, value - 1, float(value), -value][how % 4]
    elif value and how % 3 == 0:
        value.pop(how % len(value))
    elif value and how % 3 == 1:
        value.append(copy.deepcopy(value[how % len(value)]))
    else:
        value.reverse()
    return doc


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 1), st.integers(0, 10**6), st.integers(0, 59))
def test_checkers_agree_on_random_single_mutations(fresh, which, pick, how):
    text = json.dumps(_mutate(fresh[which], pick, how))
    assert _ours(text) == spec_checker.verdict(text)
