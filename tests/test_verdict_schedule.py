"""Where the extension budget goes, what the suite holds, and reasons that are true
(issue 32): constructed checks and reports, no algorithm run."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duelbound.checks.verify import verdicts as V
from duelbound.checks.verify.judge import arm_relabeling
from duelbound.checks.verify.record import JudgedRun
from duelbound.checks.verify.report import MatrixReport, reasons
from duelbound.checks.verify.schedule import Schedule
from duelbound.checks.verify.suite import generated_matrices, structures, suite
from duelbound.theory.tournament import condorcet_winner, copeland_winners

PASS = V.Check("consistency", "PASS", "log", {}, rule="logarithmic")
OPEN = V.Check("consistency", "INCONCLUSIVE", "not yet", {}, rule="not-yet-logarithmic")
FAIL = V.Check("consistency", "FAIL", "stuck", {}, rule="stuck")


def share(runs: list[int], rule: str = "share-undecided") -> V.Check:
    verdict = "FAIL" if rule == "linear-in-share" else "INCONCLUSIVE"
    return V.Check("consistency", verdict, "share", {"inconsistent_runs": runs}, rule=rule)


def report(check: V.Check, name: str = "m", K: int = 4, cw: int | None = None,
           winners: tuple = (0,), borda: int | None = None, runs: list | None = None,
           horizon: int = 1000) -> MatrixReport:
    runs = runs if runs is not None else [JudgedRun(seed=r, T=horizon, steps=horizon)
                                          for r in range(10)]
    return MatrixReport(name=name, K=K, sha256="", runs=runs, checks=[check],
                        condorcet_winner=cw, copeland_winners=list(winners),
                        borda_winner=borda, horizon=horizon, horizons_tried=[horizon])


# -- the schedule: more runs for share questions, longer horizons for growth ----------------

def test_a_share_question_gets_more_runs_at_the_same_horizon():
    s = Schedule(1000, 2, 1e6, time.perf_counter(), runs=10)
    stages = iter(s)
    assert next(stages) == (1000, [0, 1])
    s.judged({0: report(share([3, 7])), 1: report(PASS)}, {}, stopped=False)
    assert next(stages) == (1000, [0]) and (s.made, s.runs) == (10, 20)
    jobs = [SimpleNamespace(key=(kind, 0, r)) for kind in ("user", "ref") for r in range(20)]
    jobs.append(SimpleNamespace(key=("twin", 0, 0)))
    assert sorted(j.key for j in s.new_jobs(jobs)) == sorted(
        (kind, 0, r) for kind in ("user", "ref") for r in range(10, 20))
    s.judged({0: report(PASS)}, {}, stopped=False)
    assert not s.todo


def test_growth_questions_get_a_longer_horizon_and_runs_are_capped():
    s = Schedule(1000, 1, 1e6, time.perf_counter(), runs=10)
    next(iter(s))
    s.judged({0: report(OPEN)}, {}, stopped=False)
    assert next(iter(s)) == (4000, [0]) and s.runs == 10
    # at the cap (4 x the runs asked for) a share question gets a longer horizon instead
    s = Schedule(1000, 1, 1e6, time.perf_counter(), runs=10)
    s.runs = 40
    next(iter(s))
    s.judged({0: report(share([1, 2]))}, {}, stopped=False)
    assert next(iter(s)) == (4000, [0]) and s.runs == 10


def test_a_settled_fail_stops_the_schedule_and_the_undecided_say_why():
    s = Schedule(1000, 2, 1e6, time.perf_counter(), runs=10)
    next(iter(s))
    out = s.judged({0: report(OPEN, "a"), 1: report(FAIL, "b")}, {}, stopped=False)
    assert not s.todo
    assert "not run: the verdict is FAIL on b" in out[0].check("consistency").message


def test_no_stage_beyond_the_total_budget():
    s = Schedule(1000, 1, 1e6, time.perf_counter(), runs=10, budget=0.0)
    next(iter(s))
    out = s.judged({0: report(OPEN)}, {}, stopped=False)
    assert not s.todo and "T = 4000 would take" in out[0].check("consistency").message


# -- the suite: every structure in every draw ------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**63 - 1))
def test_every_draw_of_the_suite_holds_every_structure(master):
    mats = suite(None, master)
    found = structures(mats)
    assert all(found.values()), found
    (g,) = generated_matrices(master, 1)
    P = np.asarray(g.values)
    assert np.allclose(P + P.T, 1.0)
    # independently of structures(): the generated matrix alone has no Condorcet winner,
    # a Copeland winner at the last index and a Borda winner (row sums) that is none
    win = copeland_winners(g)
    assert condorcet_winner(g) is None and g.K - 1 in win
    assert int(np.argmax(P.sum(axis=1))) not in win


# -- reasons that are true ---------------------------------------------------------------------

def _names(rs: list[str]) -> str:
    return " | ".join(rs)


def test_failures_on_several_winners_name_that_and_not_condorcet():
    """Successive elimination failing exactly on the matrices with several winners and
    passing the non-Condorcet one with a unique winner: not a Condorcet algorithm."""
    ms = [report(PASS, "cyclic", cw=0), report(FAIL, "multi_winner", winners=(0, 1, 2)),
          report(PASS, "unique_copeland"), report(FAIL, "gen", winners=(1, 3))]
    rs = _names(reasons(ms))
    assert "several Copeland winners" in rs and "Condorcet algorithm" not in rs
    assert "passed on unique_copeland, which is one too" in rs


@pytest.mark.parametrize("cyclic, unique, expected", [
    (PASS, FAIL, True),            # the Condorcet diagnosis
    (OPEN, FAIL, False),           # a Condorcet matrix INCONCLUSIVE, not PASS
    (PASS, PASS, False),           # a matrix without a Condorcet winner passed
])
def test_the_condorcet_reason_needs_its_three_conditions(cyclic, unique, expected):
    ms = [report(cyclic, "cyclic", cw=0), report(FAIL, "multi_winner", winners=(0, 1, 2)),
          report(unique, "unique_copeland")]
    assert ("Condorcet algorithm" in _names(reasons(ms))) is expected


def test_borda_winner_apart_is_named():
    ms = [report(PASS, "cyclic", cw=0), report(FAIL, "gen", winners=(4,), borda=2, K=5)]
    assert "Borda winner is no Copeland winner" in _names(reasons(ms))
    ms[1] = report(FAIL, "gen", winners=(4,), borda=4, K=5)
    assert "Borda" not in _names(reasons(ms))


def test_runs_failing_with_the_winner_last_are_named():
    K, seeds = 5, range(40)
    runs = [JudgedRun(seed=0, T=100, steps=100, environment_seed=e, relabeled=True)
            for e in seeds]
    last = [k for k, e in enumerate(seeds) if int(arm_relabeling(e, K)[K - 1]) == 0]
    assert 0 < len(last) < len(runs)
    bad = report(share(last, "linear-in-share"), "gen", K=K, winners=(0,), runs=runs)
    rs = _names(reasons([report(PASS, "cyclic", cw=0), bad]))
    assert "last arm" in rs and "linear in a share of the runs" in rs
    other = report(share(last[1:] + [next(k for k in range(40) if k not in last)],
                         "linear-in-share"), "gen", K=K, winners=(0,), runs=runs)
    assert "last arm" not in _names(reasons([report(PASS, "cyclic", cw=0), other]))


# -- end to end: the blind variants (examples/blind_variants.py) -----------------------------

def _verify(spec: str, **kw):
    """verify_algorithm with the environment's master seed pinned: the judge draws it from
    fresh secret entropy on every call (judged code must not predict its duels), which
    makes a verdict near a rule's threshold a draw of its own — etc_doubling_sqrt on cyclic
    came out INCONCLUSIVE instead of WARN once in a CI-like run (R(H)/R(H/2) 1.37
    [1.26, 1.49]); WARN on environment seeds 1-8, 4 the tightest (1.44 [1.43, 1.46])."""
    from duelbound.checks.verify.harness import verify_algorithm

    kw.setdefault("environment_seed", 4)
    return verify_algorithm(spec, isolation="process", **kw)


def test_etc_by_doubling_with_sqrt_exploration_is_flagged():
    r = _verify("examples.blind_variants:etc_doubling_sqrt", matrices=["cyclic"], T=20000,
                runs=10, extend_budget=0)
    c = r.matrices[0].check("consistency")
    assert (c.verdict, c.rule) == ("WARN", "super-logarithmic"), c.message
    assert "seen at T = 20000 only" in c.message


@pytest.mark.slow
@pytest.mark.parametrize("spec, verdicts", [
    ("examples.blind_variants:etc_doubling_sqrt", ("WARN",)),
    ("examples.blind_variants:dts_trials_posterior", ("FAIL",)),
    ("examples.blind_variants:dts_sampled_borda", ("FAIL",)),
    ("examples.blind_variants:dts_losses_posterior", ("PASS",)),
])
def test_blind_variants_at_defaults(spec, verdicts):
    r = _verify(spec)
    assert r.verdict in verdicts, r.table()
