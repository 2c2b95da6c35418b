"""Results render themselves: ``bounds`` and ``structure`` print what the report objects
render, the closed form of C* is wrapped, and the counts options reach the library."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
import sympy

from duelbound.cli import main
from duelbound.solvers.bounds_report import bounds_report, symbolic_lines
from duelbound.theory import datasets, tournament


def _timeless(d):
    if isinstance(d, dict):
        return {k: _timeless(v) for k, v in d.items() if k not in ("stats", "wall_time", "time")}
    return [_timeless(v) for v in d] if isinstance(d, list) else d


def test_symbolic_lines_wrap_a_long_sum_and_read_back_as_the_same_expression():
    x = sympy.symbols("x")
    long_term = 1 / sum(k * sympy.log(sympy.Rational(k + 2, 3 * k + 1)) for k in range(1, 30))
    expr = long_term + sum(
        sympy.Integer(k) / (k + 7 * sympy.log(sympy.Rational(k + 2, 3 * k + 1)) + x)
        for k in range(1, 400))
    assert len(str(expr)) > 12_000 and len(str(long_term)) > 300   # one line before
    lines = symbolic_lines(expr, width=100)
    assert lines[0] == "closed form: C* =" and len(lines) >= 400
    assert max(len(ln) for ln in lines) <= 100
    body = " ".join(ln.strip() for ln in lines[1:])
    assert sympy.sympify(body, locals={"x": x}) == expr


def test_bounds_symbolic_text_is_wrapped_and_json_keeps_it_whole(capsys):
    assert main(["bounds", "--example", "multi_winner", "--symbolic"]) == 0
    text = capsys.readouterr().out.splitlines()
    start = text.index("closed form: C* =")
    form = []
    for ln in text[start + 1:]:
        if not ln.startswith("    "):
            break
        form.append(ln.strip())
    assert form and all(len(ln) <= 100 for ln in text[start:start + 1 + len(form)])
    assert main(["bounds", "--example", "multi_winner", "--symbolic", "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)["lower_bound"]["symbolic"]
    assert "\n" not in whole
    assert sympy.simplify(sympy.sympify(" ".join(form)) - sympy.sympify(whole)) == 0


@pytest.mark.parametrize("name", ["cyclic", "multi_winner"])
def test_bounds_cli_prints_the_report_object(name, capsys):
    M = datasets.load(name)
    rep = bounds_report(M)
    assert main(["bounds", "--example", name, "--json"]) == 0
    assert _timeless(json.loads(capsys.readouterr().out)) == _timeless(
        json.loads(json.dumps(rep.to_dict())))
    # the text: the hand-checkable parts of [K16] Theorem 2 on the cyclic matrix
    text = rep.render()
    assert f"C*   = {rep.lower_bound.value:.12g}" in text and "tight constraints" in text


def test_structure_renders_itself_with_names():
    M = datasets.load("cyclic").renamed("c")
    s = tournament.structure(M)
    d = s.named_dict(M)
    assert d["copeland_winners_names"] == ["0"] and d["losses_by_arm"] == {
        "0": 0, "1": 2, "2": 2, "3": 2}
    lines = s.render(M).splitlines()
    assert lines[0] == "matrix            c  (K = 4)"
    assert lines[1] == "losses L          [0, 2, 2, 2]"


TIED = "0 6 9\n6 0 8\n1 2 0\n"   # arms 0 and 1 won 6 : 6


def test_bootstrap_with_ties_is_a_one_line_error_not_a_silent_posterior(tmp_path, capsys):
    f = tmp_path / "w.txt"
    f.write_text(TIED)
    assert main(["bounds", "--counts", str(f), "--interval", "0.9",
                 "--interval-method", "bootstrap"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "bootstrap" in err and "undefined" in err


def test_table_on_counts_takes_the_draw_options_and_has_the_ce_low_column(tmp_path, capsys):
    from duelbound.solvers.interval import lower_bound_interval

    f = tmp_path / "w.txt"
    f.write_text(TIED)
    assert main(["table", "--counts", str(f), "--format", "csv", "--draws", "120",
                 "--seed", "4", "--cstar-draws", "all", "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "\r" not in out
    row = next(csv.DictReader(io.StringIO(out)))
    rep = lower_bound_interval(np.loadtxt(io.StringIO(TIED)), level=0.95, draws=120, seed=4,
                               cstar_draws=None, workers=1)
    assert float(row["C^E* 95% low"]) == rep.ecw.lower
    assert float(row["C* (x log T)"]) == rep.cstar.median and row["C* draws"] == "120"
    assert float(row["C^E* 95% low"]) <= float(row["C^E* (x log T)"])


@pytest.mark.parametrize("command, module, name", [
    ("bounds", "duelbound.solvers.estimates", "answer_counts"),
    ("table", "duelbound.solvers.posterior_table", "posterior_table")])
def test_the_draw_options_reach_the_library(command, module, name, tmp_path, monkeypatch):
    import importlib

    seen = {}

    class Stop(Exception):
        pass

    def spy(*args, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(importlib.import_module(module), name, spy)
    f = tmp_path / "w.txt"
    f.write_text(TIED)
    with pytest.raises(Stop):
        main([command, "--counts", str(f), "--draws", "50", "--seed", "2", "--cstar-draws",
              "all", "--workers", "3", "--scheduler", "tcp://127.0.0.1:8786", "--quiet"])
    assert {k: seen[k] for k in ("draws", "seed", "cstar_draws", "workers", "scheduler",
                                 "progress")} == {
        "draws": 50, "seed": 2, "cstar_draws": None, "workers": 3,
        "scheduler": "tcp://127.0.0.1:8786", "progress": False}


def test_the_table_rule_for_undefined_estimates_is_the_library_rule():
    """undefined_estimates (what table on counts asks) against a brute-force reading of
    "a pair never compared, or one tied unless ties are broken"."""
    from hypothesis import given
    from hypothesis import strategies as st

    from duelbound.solvers.posterior_table import undefined_estimates

    @given(st.integers(2, 5).flatmap(lambda K: st.lists(
        st.integers(0, 3), min_size=K * K, max_size=K * K).map(
        lambda v: np.array(v).reshape(K, K))), st.sampled_from([None, 1e-3]))
    def check(W, bt):
        np.fill_diagonal(W, 0)
        K = len(W)
        pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
        never = any(W[i, j] + W[j, i] == 0 for i, j in pairs)
        tied = any(W[i, j] == W[j, i] > 0 for i, j in pairs)
        expected = never or (tied and bt is None)
        assert bool(undefined_estimates([W], bt)) == expected

    check()
