"""The rooms of ``duelbound.checks.verify``: one run record, immutable checks decided by
named rules, the wire protocol's one home, the schedule of horizons, C* once per matrix."""

from __future__ import annotations

import ast
import dataclasses
import math
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from duelbound.checks.verify import protocol as P
from duelbound.checks.verify import verdicts as V
from duelbound.checks.verify import verify_algorithm
from duelbound.checks.verify.record import JudgedRun
from duelbound.checks.verify.report import MatrixReport
from duelbound.checks.verify.schedule import Schedule, undecided
from duelbound.theory import datasets
from duelbound.theory.errors import DuelboundError

CHILD = Path(V.__file__).with_name("child.py")


# -- one run record ---------------------------------------------------------------------

def _record() -> JudgedRun:
    return JudgedRun(seed=3, T=10, environment_seed=7, steps=10,
                     errors=({"kind": "exception", "step": 4, "message": "boom"},),
                     error_counts={"exception": 1}, checkpoints=[1, 10],
                     regret={"komiyama": [0.0, 1.5]}, final_regret={"komiyama": 1.5},
                     pairs_sha256="ab", wall_time=0.5, stdout_tail="out")


def test_a_run_record_round_trips_through_its_dict():
    rec = _record()
    data = rec.to_dict()
    assert data["ok"] is False and data["error"]["step"] == 4   # derived, in the JSON
    assert JudgedRun.from_dict(data) == rec
    clean = JudgedRun(seed=1, T=5, steps=5)
    assert clean.ok and clean.error is None and JudgedRun.from_dict(clean.to_dict()) == clean


def test_unknown_keys_of_a_run_record_are_refused_not_dropped():
    data = dict(_record().to_dict(), duels_per_second=3.0)
    with pytest.raises(DuelboundError, match="duels_per_second"):
        JudgedRun.from_dict(data)


def test_records_and_checks_are_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _record().steps = 0   # type: ignore[misc]
    chk = V.Check("protocol", "PASS", "fine", rule="clean")
    with pytest.raises(dataclasses.FrozenInstanceError):
        chk.verdict = "FAIL"   # type: ignore[misc]


# -- the wire protocol: one home, read by both sides ------------------------------------

def test_child_reads_the_protocol_by_path_and_imports_no_duelbound():
    code = textwrap.dedent(f"""
        import importlib.util, json, sys
        spec = importlib.util.spec_from_file_location("child_under_test", {str(CHILD)!r})
        child = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(child)
        names = ["DONE", "TEXT", "READY", "BAD", "INT32", "REQUEST", "TEXT_MAX", "J_WON", "I_WON",
                 "INVALID", "EXCEEDED"]
        print(json.dumps({{n: getattr(child.PROTOCOL, n) for n in names}}))
        print(json.dumps([child.DONE, child.TEXT, child.READY, list(child.INT32)]))
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("duelbound"))))
    """)
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    import json

    seen = json.loads(out[0])
    for name, value in seen.items():
        mine = getattr(P, name)
        assert (list(mine) if isinstance(mine, tuple) else mine) == value, name
    assert json.loads(out[1]) == [P.DONE, P.TEXT, P.READY, list(P.INT32)]
    assert json.loads(out[2]) == []
    # and in its source: no import of duelbound, absolute or relative
    tree = ast.parse(CHILD.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("duelbound")
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("duelbound") for a in node.names)


def test_protocol_constants_fit_the_wire():
    # the markers are the four smallest int32 values; requests carry the rest
    assert (P.DONE, P.TEXT, P.READY, P.BAD) == (-2**31, -2**31 + 1, -2**31 + 2, -2**31 + 3)
    assert P.INT32 == (-2**31 + 4, 2**31 - 1)
    pack = struct.Struct(P.REQUEST)
    assert pack.size == 8 and pack.unpack(pack.pack(*P.INT32)) == P.INT32
    assert [a[0] for a in P.ANSWERS] == [P.J_WON, P.I_WON, P.INVALID, P.EXCEEDED] == [0, 1, 2, 3]


# -- rules that act on checks already made: in verdicts.py, by replacement --------------

def _run(steps: int, T: int = 1000) -> SimpleNamespace:
    ck = np.unique(np.geomspace(1, steps, 40).astype(int))
    N = np.zeros((4, 4))
    return SimpleNamespace(steps=steps, T=T, checkpoints=ck, counts={"half": N, "final": N},
                           regret={"komiyama": 30.0 * np.log(ck)},
                           final_regret={"komiyama": 30.0 * math.log(steps)}, ok=steps == T,
                           error=None, errors=(), error_counts={}, leftover_processes=0,
                           environment_error=None, pairs_sha256="x", duels_per_s=1e4)


def test_a_check_on_runs_that_stopped_short_is_never_pass():
    M = datasets.load("cyclic")
    # C* given as 1: the slopes (30) are above it, a PASS on full runs
    one = lambda: V.CStar(1.0)   # noqa: E731
    full = V.matrix_checks(M, [_run(1000), _run(1000)], [], None, 1000, 2, one, None, None, 1)
    assert full[2].name == "lower bound" and full[2].verdict == "PASS"
    short = V.matrix_checks(M, [_run(1000), _run(600)], [], None, 1000, 2, one, None, None, 1)
    assert short[2].verdict == "INCONCLUSIVE" and short[2].rule == "partial-runs"
    assert "only 1 of 2 runs reached T" in short[2].message
    assert full[2].verdict == "PASS"   # the check it was derived from is unchanged


def test_a_per_matrix_reference_warn_needs_the_suite():
    warn = V.Check("reference", "WARN", "worse", {}, rule="significantly-worse")
    rng = np.random.default_rng(0)
    same = [(rng.lognormal(0, 0.3, 8), rng.lognormal(0, 0.3, 8)) for _ in range(3)]
    suite, matrices = V.suite_checks([[warn]], same, "d-ts", seed=0, any_partial=True)
    assert suite[0].verdict == "INCONCLUSIVE" and suite[0].rule == "partial-runs"
    assert matrices[0][0].verdict == "PASS"
    assert matrices[0][0].rule == "not-significant-over-suite"
    assert warn.verdict == "WARN"


def test_every_verdict_names_its_rule():
    M = datasets.load("cyclic")
    checks = V.matrix_checks(M, [_run(1000)] * 3, [_run(1000)] * 3, _run(1000), 1000, 3,
                             lambda: V.CStar(20.0), "d-ts", 25.0, 1)
    assert [c.name for c in checks] == ["protocol", "consistency", "lower bound", "claimed",
                                        "reference"]
    assert all(c.rule for c in checks), [(c.name, c.rule) for c in checks]
    assert all(c.to_dict()["rule"] == c.rule for c in checks)


# -- the schedule of horizons -----------------------------------------------------------

def _report(checks: list[V.Check], horizon: int = 1000) -> MatrixReport:
    return MatrixReport(name="m", K=4, sha256="", runs=[_run(horizon, horizon)],
                        checks=checks, horizon=horizon, horizons_tried=[horizon])


def test_undecided_matrices_go_to_4t_while_the_budget_allows():
    open_ = V.Check("consistency", "INCONCLUSIVE", "not yet", {}, rule="not-yet-logarithmic")
    linear = V.Check("consistency", "FAIL", "linear", {}, rule="linear")
    stuck = V.Check("consistency", "FAIL", "stuck", {}, rule="stuck")
    assert undecided(_report([open_])) and undecided(_report([linear]))
    assert not undecided(_report([linear]), linear_before=True)   # confirmed: decided
    assert not undecided(_report([stuck]))
    # a generous budget: the next stage is 4T, for the undecided matrix only
    s = Schedule(1000, 2, 1e6, time.perf_counter())
    stages = iter(s)
    assert next(stages) == (1000, [0, 1])
    passed = V.Check("consistency", "PASS", "log", {}, rule="logarithmic")
    out = s.judged({0: _report([open_]), 1: _report([passed])}, {}, stopped=False)
    assert out[0].checks == [open_]
    assert next(stages) == (4000, [0])
    # no budget: the stage ends the schedule and the undecided check says what 4T costs
    s = Schedule(1000, 1, 0.0, time.perf_counter())
    assert next(iter(s)) == (1000, [0])
    out = s.judged({0: _report([open_])}, {}, stopped=False)
    c = out[0].check("consistency")
    assert c.verdict == "INCONCLUSIVE" and "T = 4000 would take" in c.message
    assert c.statistic["next_T"] == 4000 and open_.statistic == {}
    assert list(s) == []


# -- the driver: the probe sees the suite's K, C* is solved once per matrix -------------

def test_the_probe_builds_the_factory_with_the_suites_k(tmp_path, monkeypatch):
    (tmp_path / "u_k7.py").write_text(textwrap.dedent("""
        class A:
            def select(self):
                return 0, 0
            def update(self, i, j, won):
                pass
        def make(K, T, seed):
            return A() if K == 4 else 42   # fits a protocol at the suite's K only
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    r = verify_algorithm("u_k7:make", ["cyclic"], T=50, runs=1)
    assert r.protocol == "select" and r.matrices[0].K == 4


def test_c_star_is_solved_once_per_matrix_across_horizons(monkeypatch):
    from duelbound.solvers import cstar

    calls = []
    real = cstar.lower_bound

    def counting(M, *a, **k):
        calls.append(M.name)
        return real(M, *a, **k)

    monkeypatch.setattr(cstar, "lower_bound", counting)
    r = verify_algorithm("uniform", ["cyclic"], T=2000, runs=2, extend_budget=60)
    assert r.matrices[0].horizons_tried[:2] == [2000, 8000], r.table()   # 2 stages or more
    assert calls == ["cyclic"]


def test_the_reference_warn_reuses_the_matrixs_c_star(monkeypatch):
    """A significantly worse user (p = 0.038 on one matrix, HL interval above 1) gets its
    allocation reason from the C* already solved, not from a second LP."""
    from duelbound.solvers import cstar

    calls = []
    monkeypatch.setattr(cstar, "lower_bound", lambda *a, **k: calls.append(a))

    def runs(finals):
        return [SimpleNamespace(**{**vars(_run(1000)), "final_regret": {"komiyama": x}})
                for x in finals]

    user = [72.2, 167.6, 174.8, 170.1, 166.8, 161.7, 227.1, 254.4, 261.8, 259.5]
    M = datasets.load("cyclic")
    chk = V.reference_check(M, runs(user), runs(np.linspace(100, 200, 10)), "d-ts", 1000, 1,
                            V.CStar(27.5, np.zeros((4, 4))))
    assert chk.verdict == "WARN" and chk.rule == "significantly-worse", chk.message
    assert calls == []


def test_protocol_counts_cut_lost_and_never_started_runs_apart():
    """A budget that cuts one run, loses another and never starts two says so per kind
    (the message once used the first run's words for all of them)."""
    from duelbound.checks.verify.record import JudgedRun
    from duelbound.checks.verify.verdicts import protocol_check

    runs = [JudgedRun.failed(seed=0, T=1000, kind="budget", message="cut by the wall-clock "
                             "budget after 400 of 1000 duels (judged up to its last duel)"),
            JudgedRun.failed(seed=1, T=1000, kind="budget", message="not finished: wall-clock "
                             "budget 8 s exhausted (record lost)")]
    runs += [JudgedRun.failed(seed=s, T=1000, kind="budget",
                              message="not run: wall-clock budget 8 s exhausted")
             for s in (2, 3)]
    check = protocol_check(runs, None, 1000)
    assert (check.verdict, check.rule) == ("INCONCLUSIVE", "not-run")
    assert "1 run(s) cut by the wall-clock budget" in check.message
    assert "1 run(s) not finished: wall-clock budget 8 s exhausted (record lost)" in check.message
    assert "2 run(s) not run: wall-clock budget 8 s exhausted" in check.message
