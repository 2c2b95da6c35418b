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
    # uniform pairs are linear regret: FAIL (exit 1) may be established on what was judged
    assert report["budget_exhausted"] and report["verdict"] in ("INCONCLUSIVE", "FAIL")
    assert proc.returncode == {"INCONCLUSIVE": 3, "FAIL": 1}[report["verdict"]], proc.stderr
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
