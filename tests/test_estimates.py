"""The front door for win counts (issue 33): plug-in where µ̂ has a tournament, posterior
otherwise, with the caps in one place and the plug-in C* solved once."""

from __future__ import annotations

import json

import numpy as np
import pytest

from duelbound.solvers import bounds_report as bounds_module
from duelbound.solvers import interval as interval_module
from duelbound.solvers.cstar import LP_MAX_K, lower_bound
from duelbound.solvers.estimates import answer_counts
from duelbound.solvers.posterior_table import posterior_table
from duelbound.theory.counts import WinCounts
from duelbound.theory.errors import DuelboundError, InvalidMatrixError
from duelbound.theory.tournament import structure

DEFINED = np.array([[0, 70, 65], [30, 0, 60], [35, 40, 0]])
TIED = np.array([[0, 6, 9], [6, 0, 8], [1, 2, 0]])          # arms 0 and 1 tied 6 : 6
NEVER = np.array([[0, 0, 9], [0, 0, 8], [1, 2, 0]])         # 0 and 1 never compared


def test_defined_counts_get_the_plug_in_bounds_solved_once(monkeypatch):
    calls = []

    def counting(*args, **kw):
        calls.append(kw.get("certify"))
        return lower_bound(*args, **kw)

    monkeypatch.setattr(bounds_module, "lower_bound", counting)
    monkeypatch.setattr(interval_module, "lower_bound", counting)
    ans = answer_counts(DEFINED, interval=0.9, draws=50, certify=False)
    assert ans.defined and len(calls) == 1  # was 2: once for the bounds, once in the interval
    direct = lower_bound(WinCounts(DEFINED).matrix(), certify=False).value
    assert ans.bounds.lower_bound.value == pytest.approx(direct, rel=1e-12)
    assert ans.interval.cstar.plug_in == ans.bounds.lower_bound.value
    d = json.loads(json.dumps(ans.to_dict()))
    assert set(d) == {"matrix", "lower_bound", "ecw", "interval"}
    assert "C*" in ans.text() and "interval" in str(ans)


@pytest.mark.parametrize("W, reason", [(TIED, "1 pair(s) won equally often"),
                                       (NEVER, "1 pair(s) never compared")])
def test_undefined_counts_get_the_posterior_interval(W, reason):
    ans = answer_counts(W, draws=60, seed=3)
    assert not ans.defined and ans.bounds is None and ans.reason == reason
    assert ans.interval.cstar.plug_in is None and ans.interval.level == 0.95
    assert any("posterior interval" in n for n in ans.notes)
    d = json.loads(json.dumps(ans.to_dict()))
    assert d["plug_in"]["defined"] is False and d["interval"]["draws"] == 60
    assert ans.text().startswith("plug-in C*: undefined")


def test_structure_of_defined_and_undefined_counts():
    ans = answer_counts(DEFINED, question="structure")
    assert ans.structure == structure(WinCounts(DEFINED).matrix())
    post = answer_counts(TIED, question="structure", draws=500, seed=0)
    assert post.posterior is not None and post.posterior.undefined.tied == [(0, 1)]
    # arm 2 loses to both others in nearly every draw (1:9 and 2:8 wins)
    assert post.posterior.p_winner[2] < 0.05
    assert json.loads(json.dumps(post.to_dict()))["posterior"]["draws"] == 500


def test_break_ties_makes_the_plug_in_defined_but_not_for_never_compared_pairs():
    assert answer_counts(TIED, break_ties=1e-3, certify=False).defined
    ans = answer_counts(NEVER, break_ties=1e-3, draws=30)
    assert not ans.defined and ans.interval is not None


def test_the_caps_and_refusals_live_in_the_front_door():
    big = np.zeros((LP_MAX_K + 1, LP_MAX_K + 1), dtype=np.int64)
    big[0, 1] = 1
    with pytest.raises(DuelboundError, match=f"limited to K <= {LP_MAX_K}"):
        answer_counts(big)
    with pytest.raises(DuelboundError, match=f"limited to K <= {LP_MAX_K}"):
        posterior_table([big])
    with pytest.raises(DuelboundError, match="bootstrap interval resamples mu_hat"):
        answer_counts(TIED, interval=0.9, interval_method="bootstrap")
    with pytest.raises(DuelboundError, match="unknown question"):
        answer_counts(DEFINED, question="table")
    with pytest.raises(InvalidMatrixError, match="negative counts"):
        answer_counts(-DEFINED)


def test_all_cstar_draws_spelt_all():
    ans = answer_counts(TIED, draws=40, cstar_draws="all")
    assert ans.interval.cstar.draws == 40
