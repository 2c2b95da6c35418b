"""``--budget`` is a hard limit: runs still running when it ends are stopped, the
verdict is on what was judged (never PASS), and the report names what was not judged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from judging import needs_sandbox, no_judged_leftovers

pytestmark = [needs_sandbox, pytest.mark.usefixtures(no_judged_leftovers.__name__)]

#: A correct but slow select-protocol algorithm: uniform pairs, 2 ms per duel (about 500
#: duels/s: T = 10^6 cannot finish in the budget).
SLOW = """
import time

class Slow:
    def __init__(self, K, seed):
        self.K, self.i = K, seed
    def select(self):
        time.sleep(0.002)
        self.i = (self.i * 1103515245 + 12345) % 2**31
        return self.i % self.K, (self.i // self.K) % self.K
    def update(self, i, j, i_won):
        pass

def make(K, T, seed):
    return Slow(K, seed)
"""
BUDGET = 8.0


def test_the_budget_stops_running_runs_and_names_what_was_not_judged(tmp_path):
    (tmp_path / "slow_alg.py").write_text(textwrap.dedent(SLOW))
    out = tmp_path / "report.json"
    argv = [sys.executable, "-m", "duelbound", "verify", "slow_alg:make", "--only", "cyclic",
            "--only", "multi_winner", "--T", "1000000", "--runs", "2", "--workers", "2",
            "--budget", str(BUDGET), "--extend-budget", "0", "--json", str(out)]
    t0 = time.monotonic()
    proc = subprocess.run(argv, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(tmp_path)),
                          capture_output=True, text=True, timeout=120)
    took = time.monotonic() - t0
    assert took < BUDGET + 15, took   # CLI start-up, then budget + a few seconds (see docs)
    assert "budget: the wall-clock budget of 8 s was reached" in proc.stdout
    report = json.loads(out.read_text())
    # uniform pairs are linear regret: on what was judged, FAIL (exit 1) or the WARN of
    # regret faster than log T may be established; never PASS while something was not judged
    assert report["budget_exhausted"] and report["verdict"] in ("INCONCLUSIVE", "WARN", "FAIL")
    exits = {"INCONCLUSIVE": 3, "WARN": 1, "FAIL": 1}
    assert proc.returncode == exits[report["verdict"]], proc.stderr
    assert report["wall_time"] < BUDGET + 5
    # the runs running at the budget were cut, their record up to the last duel kept
    runs = [r for m in report["matrices"] for r in m["runs"]]
    cut = [r for r in runs if r["errors"] and r["errors"][0]["kind"] == "budget"]
    assert len(cut) == len(runs) == 4
    started = [r for r in cut if r["steps"] > 0]
    assert started and all(r["steps"] < 1_000_000 and r["final_regret"] for r in started)
    # the report names them: every matrix, with the runs cut and those never judged
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("not judged: ")]
    assert {ln.split()[2] for ln in lines} == {"cyclic", "multi_winner"}
    assert any("duels cut" in ln for ln in lines)
    assert report["not_judged"] == [ln[len("not judged: "):] for ln in lines]
    # no check is PASS on runs that did not reach T
    for m in report["matrices"]:
        assert all(c["verdict"] != "PASS" for c in m["checks"]), m["checks"]


def test_the_api_budget_is_hard_too(tmp_path, monkeypatch):
    from duelbound.checks.verify.harness import verify_algorithm

    # 0.5 s per duel: too few duels for any statistic, so nothing can FAIL: exit code 3
    (tmp_path / "slow_api.py").write_text(textwrap.dedent(SLOW).replace("0.002", "0.5"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    r = verify_algorithm("slow_api:make", ["cyclic"], T=1_000_000, runs=1, workers=1,
                         budget=4.0, extend_budget=0)
    assert r.budget_exhausted and r.verdict == "INCONCLUSIVE" and r.exit_code == 3
    assert r.not_judged and r.not_judged[0].startswith("cyclic at T = 1000000: run 0 after ")
    assert "budget: the wall-clock budget of 4 s was reached" in r.table()
    run = r.matrices[0].runs[0]
    assert run.error["kind"] == "budget" and 0 < run.steps < run.T
    assert r.matrices[0].check("protocol").rule == "not-run"
    assert r.wall_time < 4.0 + 5


# --------------------------------------------------------------------------------------
# What was not judged, from records built by hand (no run needed).
# --------------------------------------------------------------------------------------

def _budget_run(seed: int, T: int, steps: int):
    from duelbound.checks.verify.record import JudgedRun

    return JudgedRun(seed=seed, T=T, steps=steps, errors=(
        {"kind": "budget", "step": steps + 1, "message": "cut"},))


def test_not_judged_names_the_cut_runs_and_those_with_no_duel():
    from duelbound.checks.verify.record import JudgedRun
    from duelbound.checks.verify.report import cut_by_budget, not_judged

    results = {("user", 0, 0): _budget_run(1, 100, 40),
               ("user", 0, 1): JudgedRun.failed(seed=2, T=100, kind="budget", message="x"),
               ("twin", 0, 0): _budget_run(1, 100, 0),
               ("user", 1, 0): JudgedRun(seed=3, T=100, steps=100)}
    assert cut_by_budget(results, 0) and not cut_by_budget(results, 1)
    assert not_judged(["a", "b"], [0, 1], results, 100, {}) == [
        "a at T = 100: run 0 after 40 of 100 duels cut; run 1, replay 0 with no duel judged"]


def test_a_cut_later_stage_keeps_the_earlier_report():
    from duelbound.checks.verify.harness import _MatrixJudge
    from duelbound.checks.verify.report import MatrixReport, not_judged
    from duelbound.checks.verify.verdicts import Check
    from duelbound.theory import datasets

    M = datasets.load("cyclic")
    earlier = MatrixReport(name="cyclic", K=M.K, sha256="", runs=[], horizon=100,
                           checks=[Check("protocol", "PASS", "clean", {}),
                                   Check("consistency", "INCONCLUSIVE", "undecided", {})])
    results = {("user", 0, 0): _budget_run(1, 400, 150)}
    judge = _MatrixJudge([M], ["cyclic"], 1, None, None)
    kept = judge.stage([0], results, 400, {0: earlier})[0]
    assert kept.horizon == 100 and kept.runs == [] and kept.checks[0] == earlier.checks[0]
    assert kept.check("consistency").verdict == "INCONCLUSIVE"
    assert "T = 400 not run: its runs were cut by the wall-clock budget" in \
        kept.check("consistency").message
    assert not_judged(["cyclic"], [0], results, 400, {0: earlier}) == [
        "cyclic at T = 400: run 0 after 150 of 400 duels cut; the report at T = 100 stands"]


def test_a_report_with_something_not_judged_is_never_pass():
    from duelbound.checks.verify.report import MatrixReport, VerifyReport
    from duelbound.checks.verify.verdicts import Check

    m = MatrixReport(name="a", K=3, sha256="", runs=[],
                     checks=[Check("protocol", "PASS", "clean", {})])
    kw = dict(algorithm="x", protocol="select", T=10, runs=1, seed=0, reference=None,
              claimed_coefficient=None, matrices=[m], wall_time=1.0)
    assert VerifyReport(**kw).exit_code == 0
    r = VerifyReport(**kw, budget_exhausted=True, budget=5.0, not_judged=["a at T = 10: …"])
    assert r.verdict == "INCONCLUSIVE" and r.exit_code == 3
    assert "not judged: a at T = 10: …" in r.table()
