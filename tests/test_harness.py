"""The verification harness: reference algorithms pass, broken ones fail for the right reason."""

from __future__ import annotations

import math
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duelbound.checks.verify import harness, load_factory, verify_algorithm
from duelbound.cli import main
from duelbound.theory.errors import DuelboundError

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def algos():
    import sys

    sys.path.insert(0, str(REPO))
    from examples import my_algorithms

    return my_algorithms


def _verdicts(report, matrix=0):
    return {c.name: c.verdict for c in report.matrices[matrix].checks}


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """Write a tiny user module to a temporary folder; returns ``name -> "name:make"``."""

    def write(name: str, source: str, attr: str = "make") -> str:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        monkeypatch.syspath_prepend(str(tmp_path))
        return f"{name}:{attr}"

    return write


def test_bundled_reference_passes_its_own_verification():
    r = verify_algorithm("d-ts", T=20_000, runs=4, reference="d-ts", claimed_coefficient=1.0)
    # the default suite and one matrix drawn from the secret environment seed
    assert [m.name for m in r.matrices] == ["cyclic", "multi_winner", "unique_copeland",
                                            "generated-1"]
    for m in r.matrices:
        v = {c.name: c.verdict for c in m.checks}
        assert v["protocol"] == "PASS", m.check("protocol").message
        assert v["consistency"] in ("PASS", "INCONCLUSIVE"), m.check("consistency").message
        assert v["lower bound"] in ("PASS", "INCONCLUSIVE")
        assert v["reference"] in ("PASS", "INCONCLUSIVE"), m.check("reference").message
        assert v["claimed"] == "FAIL"     # a claim of 1.0 < C* contradicts Theorem 2
    assert r.matrices[0].check("lower bound").statistic["C_star"] == pytest.approx(
        1 / (2 * _kl_half(0.6)) + 1 / _kl_half(0.9), rel=1e-7)
    assert r.matrices[0].condorcet and not r.matrices[1].condorcet
    assert "(CW)" in r.table() and "took" in r.table()


def _kl_half(p):
    return p * math.log(2 * p) + (1 - p) * math.log(2 * (1 - p))


def test_condorcet_algorithm_fails_without_condorcet_winner():
    # RUCB assumes a Condorcet winner: on multi_winner / unique_copeland it keeps
    # playing non-winners, on cyclic (Condorcet winner 0) it is consistent.
    r = verify_algorithm("rucb", T=20_000, runs=3, environment_seed=1)
    assert r.matrices[0].check("consistency").verdict in ("PASS", "INCONCLUSIVE")
    # multi_winner: cycling among its 3 Copeland winners costs nothing, so some runs of
    # RUCB are lucky there; unique_copeland has no such way out
    assert r.matrices[1].check("consistency").verdict in ("FAIL", "INCONCLUSIVE")
    assert r.matrices[2].check("consistency").verdict == "FAIL"
    assert any("behaves like a Condorcet algorithm" in x for x in r.reasons), r.reasons


def test_fixed_non_winner_pair_fails_consistency():
    r = verify_algorithm("examples.my_algorithms:fixed_pair", ["cyclic"], T=20_000, runs=2)
    chk = r.matrices[0].check("consistency")
    assert r.matrices[0].check("protocol").verdict == "PASS"
    assert chk.verdict == "FAIL" and chk.statistic["late_share"] == 1.0
    # the pair it is stuck on, in the matrix's labels: (2, 3) as the algorithm saw it,
    # under each run's secret relabeling
    stuck = {tuple(p[:2]) for p in chk.statistic["late_regret_pairs"]}
    assert 1 <= len(stuck) <= 2 and all(f"({i},{j})" in chk.message for i, j in stuck)


def test_exception_on_step_1000_is_caught_and_located():
    r = verify_algorithm("examples.my_algorithms:raise_at_1000", ["cyclic"], T=1200, runs=1)
    chk = r.matrices[0].check("protocol")
    assert chk.verdict == "FAIL" and r.verdict == "FAIL" and r.exit_code == 1
    err = chk.statistic["first_error"]
    assert err["kind"] == "exception" and err["step"] == 1000
    assert "RuntimeError" in err["message"]


def test_out_of_range_arm_is_a_protocol_failure():
    r = verify_algorithm("examples.my_algorithms:out_of_range", ["cyclic"], T=600, runs=1)
    err = r.matrices[0].check("protocol").statistic["first_error"]
    assert err["kind"] == "invalid-index" and err["step"] == 500
    assert "out of range" in err["message"]


def test_nondeterminism_is_detected():
    r = verify_algorithm("examples.my_algorithms:nondeterministic", ["cyclic"], T=300, runs=1)
    chk = r.matrices[0].check("protocol")
    assert chk.verdict == "FAIL" and "non-deterministic" in chk.message


def test_a_hang_costs_only_its_own_run(user_module):
    spec = user_module("u_hang4", """
        import time
        class A:
            def __init__(self, K, T, seed):
                self.K = K
            def select(self):
                if self.K == 4:
                    time.sleep(3600)
                return 0, 1
            def update(self, i, j, won):
                pass
        make = A
    """)
    t0 = time.perf_counter()
    r = verify_algorithm(spec, ["cyclic", "multi_winner"], T=200, runs=1, hang_timeout=1.0)
    assert time.perf_counter() - t0 < 60
    err = r.matrices[0].check("protocol").statistic["first_error"]
    assert err["kind"] == "hang" and "sleeping" in err["message"]
    assert r.matrices[1].check("protocol").verdict == "PASS"


def test_slow_run_is_inconclusive_with_its_rate(user_module):
    spec = user_module("u_slow", """
        import time
        class A:
            def __init__(self, K, T, seed):
                pass
            def select(self):
                time.sleep(0.002)
                return 0, 0
            def update(self, i, j, won):
                pass
        make = A
    """)
    r = verify_algorithm(spec, ["cyclic"], T=100_000, runs=1, time_limit=2.0)
    chk = r.matrices[0].check("protocol")
    assert chk.verdict == "INCONCLUSIVE" and "duels/s" in chk.message, chk.message
    assert "needs about" in chk.message
    run = r.matrices[0].runs[0]
    assert 0 < run.steps < 100_000 and run.checkpoints[-1] == run.steps   # trajectory kept
    assert all(c.verdict != "PASS" for c in r.matrices[0].checks)      # not all of T


DUELS = """
def make(K, T, seed):
    def run(duel, horizon):
        for _ in range(horizon + EXTRA):
            duel(0, 0)
    return run
"""


@pytest.mark.parametrize("extra,kind", [(1, "exceeded-T"), (-10, "stopped-early")])
def test_duel_protocol_horizon_violations(user_module, extra, kind):
    spec = user_module(f"u_duels{extra + 20}", DUELS.replace("EXTRA", str(extra)))
    r = verify_algorithm(spec, ["cyclic"], T=100, runs=1)
    assert r.protocol == "duel"
    assert r.matrices[0].check("protocol").statistic["first_error"]["kind"] == kind


def test_self_duels_of_the_winner_pass_and_lower_bound_is_inconclusive(user_module):
    # knowing the winner (arm 0 of cyclic) is possible only without the relabeling
    spec = user_module("u_duels_ok", DUELS.replace("EXTRA", "0"))
    r = verify_algorithm(spec, ["cyclic"], T=2000, runs=2, relabel=False)
    v = _verdicts(r)
    assert v["protocol"] == v["consistency"] == "PASS"
    # zero regret is far below C* log T: without a reference that is no evidence
    assert v["lower bound"] == "INCONCLUSIVE"
    assert r.matrices[0].runs[0].final_regret["komiyama"] == 0.0
    assert "NOT relabeled" in r.isolation


def test_self_duels_of_arm_0_fail_under_the_secret_relabeling(user_module):
    # the same code judged as shipped: arm 0 is the winner in about 1 run in 4
    spec = user_module("u_duels_zero", DUELS.replace("EXTRA", "0"))
    r = verify_algorithm(spec, ["cyclic"], T=2000, runs=10, environment_seed=5)
    perms = [run.relabeled for run in r.matrices[0].runs]
    assert all(perms) and "secretly relabeled" in r.isolation
    assert r.matrices[0].check("consistency").verdict == "FAIL", r.table()


def test_protocol_is_detected_and_a_misfit_named(user_module):
    spec = user_module("u_misfit", """
        def make(K, T, seed):
            return 42
    """)
    with pytest.raises(DuelboundError, match=r"select\(\).*run\(duel, T\)"):
        verify_algorithm(spec, ["cyclic"], T=10, runs=1)
    spec = user_module("u_sel", """
        class A:
            def __init__(self, K, T, seed):
                pass
            def select(self):
                return 0, 0
            def update(self, i, j, won):
                pass
        make = A
    """)
    with pytest.raises(DuelboundError, match="select protocol"):
        verify_algorithm(spec, ["cyclic"], T=10, runs=1, protocol="duel")
    assert verify_algorithm(spec, ["cyclic"], T=50, runs=1).protocol == "select"


def test_exceptions_in_the_child_are_the_algorithms_fault(user_module):
    # an incompatibility with the installed packages (duelpy 1.0.0 on NumPy >= 1.24) and
    # a forged ImportError look the same from the judge: both are the code's failure
    # here (exit 1), named as a likely environment problem; never "cannot judge"
    for name, line in (("u_env", "np.float_removed_alias"),
                       ("u_fake_imp", "raise ImportError(\"module 'numpy' has no x\")")):
        spec = user_module(name, f"""
            import numpy as np
            def make(K, T, seed):
                def run(duel, horizon):
                    for t in range(horizon):
                        if t == 10:
                            {line}
                        duel(0, 0)
                return run
        """)
        r = verify_algorithm(spec, ["cyclic"], T=100, runs=1)
        chk = r.matrices[0].check("protocol")
        assert chk.verdict == "FAIL" and r.exit_code == 1, r.table()
        assert r.environment_error is None
        assert "incompatible package" in chk.statistic["first_error"]["message"]
    spec2 = user_module("u_imp", """
        import no_such_module_xyz
    """)
    with pytest.raises(DuelboundError, match="no_such_module_xyz"):
        verify_algorithm(spec2, ["cyclic"], T=10, runs=1)


def test_budget_exhausted_runs_are_inconclusive():
    r = verify_algorithm("uniform", ["cyclic"], T=100, runs=2, budget=0.0)
    chk = r.matrices[0].check("protocol")
    assert chk.verdict == "INCONCLUSIVE" and r.budget_exhausted
    assert r.exit_code == 3


def test_bad_arguments_raise_package_errors():
    with pytest.raises(DuelboundError):
        verify_algorithm("no-such-algorithm")
    with pytest.raises(DuelboundError):
        verify_algorithm("uniform", protocol="pull")
    with pytest.raises(DuelboundError):
        load_factory("examples.my_algorithms")
    with pytest.raises(DuelboundError, match="importable"):
        verify_algorithm(lambda K, T, s: None, ["cyclic"], T=10, runs=1)


def test_a_file_path_spec_says_what_to_type_instead(tmp_path, capsys):
    # users type FILE.py:FACTORY; verify imports by module name, and the hint it gives
    # (the module name, run in the file's folder or with it on PYTHONPATH) must work
    folder = tmp_path / "my algos"
    folder.mkdir()
    (folder / "algo_x.py").write_text("def make(K, T, seed):\n    return None\n")
    with pytest.raises(DuelboundError) as err:
        load_factory(f"{folder}/algo_x.py:make")
    msg = str(err.value)
    assert "duelbound verify algo_x:make" in msg and f"PYTHONPATH='{folder}'" in msg
    assert load_factory("algo_x:make") == "algo_x:make"   # what the hint says to type
    with pytest.raises(DuelboundError, match="valid module name"):
        load_factory(f"{folder}/2-algo.py:make")
    assert main(["verify", f"{folder}/algo_x.py:make", "--T", "10"]) == 2
    assert capsys.readouterr().err.count("\n") == 1   # one line


def test_report_is_json_ready():
    import json

    # the pair (K-1, K-2) of non-winners as the matrix numbers them: without the
    # relabeling (under it, the pair is two of the three Copeland winners in 3 runs in 10)
    r = verify_algorithm("examples.my_algorithms:fixed_pair", ["multi_winner"], T=20_000, runs=1,
                         relabel=False)
    data = json.loads(json.dumps(r.to_dict()))
    assert data["verdict"] == "FAIL" and data["matrices"][0]["name"] == "multi_winner"
    assert data["exit_code"] == 1 and data["environment_seed"] == r.environment_seed
    assert data["matrices"][0]["checks"][1]["statistic"]["runs_used"] == 1
    assert all(c["rule"] for c in data["matrices"][0]["checks"])   # each names its rule
    assert "consistency" in r.table()


def test_cli_verify(monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    code = main(["verify", "examples.my_algorithms:fixed_pair", "--only", "cyclic",
                 "--T", "2e4", "--runs", "1", "--quiet"])
    assert code == 1 and "FAIL" in capsys.readouterr().out
    assert main(["verify", "nomodule_xyz:f", "--only", "cyclic", "--quiet"]) == 2
    assert main(["verify", "examples.my_algorithms", "--quiet"]) == 2


def test_cli_matrices_add_to_the_suite_and_only_replaces(monkeypatch):
    import argparse

    from duelbound.cli import verify as cli

    seen = {}

    def fake(spec, mats, **kw):
        seen["names"] = [m.name for m in mats]
        raise SystemExit(0)

    monkeypatch.setattr("duelbound.checks.verify.harness.verify_algorithm", fake)
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    with pytest.raises(SystemExit):
        cli.run(p.parse_args(["d-ts", "--matrices", "mslr5"]))
    assert seen["names"] == ["cyclic", "multi_winner", "unique_copeland", "mslr5"]
    with pytest.raises(SystemExit):
        cli.run(p.parse_args(["d-ts", "--only", "mslr5"]))
    assert seen["names"] == ["mslr5"]


def test_duelpy_adapter_runs_deterministically():
    pytest.importorskip("duelpy")
    r = verify_algorithm("duelbound.checks.verify.adapters:duelpy_dts", ["cyclic"], T=300, runs=1)
    chk = r.matrices[0].check("protocol")
    assert r.protocol == "duel"
    assert chk.verdict == "PASS" and chk.statistic["deterministic"], chk.message


def test_explore_then_commit_is_confirmed_at_4t_then_passes():
    """A horizon-aware explore-then-commit (60 log T duels per pair: consistent) spends all
    of T = 2000 exploring, pairs it has resolved included: linear at T alone.  The linear
    rule is confirmed at 4T, where it has committed with enough evidence: PASS."""
    spec = "examples.select_protocol:make"
    r = verify_algorithm(spec, ["cyclic"], T=2000, runs=2, extend_budget=0)
    chk = r.matrices[0].check("consistency")
    assert chk.verdict == "FAIL" and "confirming at T = 8000" in chk.message, chk.message
    r = verify_algorithm(spec, ["cyclic"], T=2000, runs=2, extend_budget=60)
    m = r.matrices[0]
    assert m.horizons_tried[:2] == [2000, 8000], m.horizons_tried
    assert m.check("consistency").verdict == "PASS", r.table()


def test_uniform_random_pairs_fail_at_two_horizons():
    r = verify_algorithm("examples.broken_variants:uniform_random", ["cyclic"], T=2000,
                         runs=3, extend_budget=60)
    chk = r.matrices[0].check("consistency")
    assert chk.verdict == "FAIL" and "confirmed" in chk.message, r.table()


def test_fixed_budget_explore_then_commit_is_starved():
    """400 duels per pair whatever T: at T = 100 000 it has stopped paying with evidence
    below what log T needs ([K16] Lemma 1)."""
    r = verify_algorithm("examples.select_protocol:etc_400", ["unique_copeland"],
                         T=100_000, runs=3, extend_budget=0)
    chk = r.matrices[0].check("consistency")
    assert chk.verdict == "FAIL" and "stopped paying regret" in chk.message, r.table()


@pytest.mark.slow
def test_python_dts_matches_bundled_dts():
    r = verify_algorithm("examples.my_algorithms:dts", T=10_000, runs=5, reference="d-ts")
    assert r.verdict in ("PASS", "INCONCLUSIVE"), r.table()


@pytest.mark.slow
@pytest.mark.parametrize("spec,matrices", [
    ("examples.my_algorithms:dts_no_elimination", ["unique_copeland"]),
    ("examples.broken_variants:dts_swapped", ["cyclic"]),
    ("examples.broken_variants:rucb_no_self_duel", ["cyclic"]),
])
def test_broken_variants_fail_consistency(spec, matrices):
    r = verify_algorithm(spec, matrices, T=20_000, runs=4, environment_seed=1)
    assert r.matrices[0].check("consistency").verdict == "FAIL", r.table()


def test_seeds_are_distinct_per_matrix_and_run():
    from duelbound.checks.verify.runs import run_seed

    assert run_seed(0, 0, 0) != run_seed(0, 0, 1) != run_seed(0, 1, 0)
    assert isinstance(run_seed(5, 2, 3), int) and np.uint32(run_seed(5, 2, 3)) >= 0


# --------------------------------------------------------------------------------------
# The Hodges–Lehmann regret ratio and its exact Mann–Whitney interval.
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,m", [(1, 1), (1, 4), (2, 3), (3, 3), (4, 2), (4, 5), (6, 6)])
def test_mann_whitney_null_counts_match_enumeration(n, m):
    from itertools import combinations
    from math import comb

    from duelbound.checks.verify.statistics import mann_whitney_null_counts

    # brute force: every set of ranks of the x sample among the n + m ranks
    brute = np.zeros(n * m + 1, dtype=int)
    for xs in combinations(range(n + m), n):
        brute[sum(r - i for i, r in enumerate(xs))] += 1  # y's below each x
    counts = mann_whitney_null_counts(n, m)
    assert [int(c) for c in counts] == brute.tolist()
    assert int(counts.sum()) == comb(n + m, n)


@st.composite
def _two_samples(draw):
    positive = st.floats(0.05, 50.0, allow_nan=False, allow_infinity=False)
    x = draw(st.lists(positive, min_size=1, max_size=8, unique=True))
    y = draw(st.lists(positive, min_size=1, max_size=8, unique=True))
    return np.array(x), np.array(y)


@settings(max_examples=60)
@given(_two_samples(), st.sampled_from([0.8, 0.9, 0.95]))
def test_ratio_interval_inverts_scipy_exact_test(samples, confidence):
    """log r is in the interval iff neither exact one-sided Mann–Whitney test (scipy's own
    exact distribution) of x / r against y rejects at (1 − confidence)/2."""
    from scipy import stats

    from duelbound.checks.verify.statistics import regret_ratio_interval

    x, y = samples
    est, lo, hi = regret_ratio_interval(x, y, confidence)
    D = np.unique(np.log(x)[:, None] - np.log(y)[None, :])
    probes = np.concatenate([[D[0] - 1.0], (D[:-1] + D[1:]) / 2, [D[-1] + 1.0]])
    tail = (1 - confidence) / 2 + 1e-12  # exact p-values are rationals: no real tie at 1e-12
    for d in probes:
        xs = x * math.exp(-d)
        p_hi = stats.mannwhitneyu(xs, y, alternative="greater", method="exact").pvalue
        p_lo = stats.mannwhitneyu(xs, y, alternative="less", method="exact").pvalue
        accepted = p_hi > tail and p_lo > tail
        assert accepted == (math.log(lo) <= d <= math.log(hi) if lo > 0 else d <= math.log(hi)), \
            (d, p_hi, p_lo, lo, hi)
    # Hodges–Lehmann estimate: the median of the pairwise log-ratios, by hand
    pairs = sorted(math.log(a) - math.log(b) for a in x for b in y)
    k = len(pairs)
    med = pairs[k // 2] if k % 2 else (pairs[k // 2 - 1] + pairs[k // 2]) / 2
    assert est == pytest.approx(math.exp(med), rel=1e-12)


def test_ratio_interval_of_a_scaled_sample():
    from duelbound.checks.verify.statistics import regret_ratio_interval

    y = np.array([3.0, 5.0, 7.0, 11.0, 13.0, 17.0])
    est, lo, hi = regret_ratio_interval(1.5 * y, y, 0.9)
    assert est == pytest.approx(1.5) and lo < 1.5 < hi
    # 3 vs 3 runs: P(U = 0) = 1/20 exactly, so the 90% interval is the full range of
    # the pairwise ratios [D_(1), D_(9)] and the 95% interval is unbounded
    x3, y3 = np.array([2.0, 4.0, 8.0]), np.array([1.0, 3.0, 9.0])
    _, lo, hi = regret_ratio_interval(x3, y3, 0.9)
    assert (lo, hi) == pytest.approx((2 / 9, 8.0))
    assert regret_ratio_interval(x3, y3, 0.95)[1:] == (0.0, math.inf)
    with pytest.raises(DuelboundError):
        regret_ratio_interval([1.0, 0.0], y)


# --------------------------------------------------------------------------------------
# CCB in Python (examples/my_algorithms.py) and its B^c variants.
# --------------------------------------------------------------------------------------

def test_python_ccb_empty_beaters_fall_back_to_all_arms(algos):
    # First step: no data, U = 1 and L = 0 off the diagonal, every arm is in B and C_t
    # and every B^c is empty.  docs/math.md §9 / checks/simulate/algorithms/ccb.py: the
    # opponent set is then all
    # arms and d = argmax u_jc prefers j != c, so nobody duels itself; the literal
    # "argmax over the empty B^c" reading (ccb_self_duel) does so half the time.
    K = 5
    firsts = [algos.ccb(K, 100, s).select() for s in range(200)]
    assert all(i != j for i, j in firsts)
    selfish = sum(i == j for i, j in (algos.ccb_self_duel(K, 100, s).select()
                                      for s in range(200)))
    assert 70 <= selfish <= 130  # Binomial(200, 1/2): mean 100, sd 7.1


def _ccb_with_one_beater(factory, seed):
    """A CCB at t = 0 whose B^0 = {1}; the pair (0, 1) is open (no data)."""
    algo = factory(5, 100, seed)
    algo.Bi[0] = {1}
    return algo


def test_ccb_without_beaters_never_compares_against_them(algos):
    # With B^0 = {1}: CCB plays (0, 1) from line 10 (prob 1/4) or as c = 0 with the
    # opponent set B^0 (prob 3/4 · 1/5 · 1/2) or by the all-arms argmax
    # (3/4 · 1/5 · 1/2 · 1/4): 0.355 in all.  Without B^c only the last route is
    # left: c = 0 (1/5) and d uniform among the 4 tied arms (1/4): 0.05.
    n = 2000
    full = sum(_ccb_with_one_beater(algos.ccb, s).select() == (0, 1) for s in range(n))
    ablated = sum(_ccb_with_one_beater(algos.ccb_no_beaters, s).select() == (0, 1)
                  for s in range(n))
    assert 0.30 < full / n < 0.39      # mean 0.344, sd 0.011
    assert ablated / n < 0.08          # mean 0.05, sd 0.005


@pytest.mark.slow
def test_reference_check_catches_the_self_duel_reading_of_ccb(algos):
    """B^c is empty for every arm still in B; reading line 13's argmax over an empty B^c
    as a self-duel doubles CCB's regret on unique_copeland, and the reference check
    says so — while the correct Python CCB, same settings and seeds, passes everything.

    Measured (T = 5000, 8 runs, seed 0): self-duel ratio 1.89, p = 1.6e-4, 90% interval
    [1.55, 2.33] (its regret fit also has λ = 0.78 at this horizon: sublinear FAIL);
    ccb ratio 1.05, p = 0.36, interval [0.89, 1.33].
    """
    kw = dict(T=5000, runs=8, reference="ccb")
    bad = verify_algorithm(algos.ccb_self_duel, ["unique_copeland"], **kw).matrices[0]
    good = verify_algorithm(algos.ccb, ["unique_copeland"], **kw).matrices[0]
    b = bad.check("reference")
    assert b.verdict == "WARN" and b.statistic["p_value_greater"] < 1e-3
    assert b.statistic["ratio_interval"][0] > 1.1
    g = good.check("reference")
    assert good.verdict in ("PASS", "INCONCLUSIVE") and g.statistic["hl_ratio"] < 1.2
    assert g.statistic["ratio_interval"][0] < 1 < g.statistic["ratio_interval"][1] < 1.5


@pytest.mark.slow
@pytest.mark.parametrize("factory", ["ccb", "ccb_no_beaters"])
def test_python_ccb_and_its_b_c_ablation_pass_against_bundled_ccb(algos, factory):
    """Established verdicts (docs/verification.md, T = 10000, 20 runs, seed 0): the
    Python CCB reproduces the compiled one — HL ratios 0.97–1.14, intervals up to 1.28
    (the former self-duel reading: 1.9–2.1, intervals from 1.67) — and never comparing
    against B^c is never accused: B^c is worth ≈ 10% on unique_copeland (docs), which
    one matrix's test can show (with this test's pinned environment seed: 1.22
    [1.11, 1.37], p = 0.001) but the suite's pooled comparison does not, so no WARN."""
    r = verify_algorithm(getattr(algos, factory), T=10_000, runs=20, reference="ccb", workers=1)
    assert r.verdict in ("PASS", "INCONCLUSIVE"), r.table()
    assert all(c.verdict != "WARN" for c in r.suite_checks), r.table()
    for m in r.matrices:
        check = m.check("reference")
        stat = check.statistic
        assert check.verdict in ("PASS", "INCONCLUSIVE"), r.table()
        if factory == "ccb":
            assert stat["hl_ratio"] < 1.2 and stat["ratio_interval"][1] < 1.4, (m.name, stat)
        else:
            assert stat["hl_ratio"] < 1.25 and stat["ratio_interval"][1] < 1.5, (m.name, stat)
    assert r.matrices[0].check("reference").statistic["equivalent"]  # cyclic


# --------------------------------------------------------------------------------------
# The duelpy adapter: each listed class runs T duels with the restored NumPy aliases.
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("factory_name", ["duelpy_dts", "duelpy_ccb", "duelpy_rucb",
                                          "duelpy_rmed1"])
def test_duelpy_adapter_drives_each_listed_class(factory_name):
    pytest.importorskip("duelpy")
    from duelbound.checks.verify import adapters

    assert factory_name in adapters.DUELPY_CLASSES
    mu = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.3, 0.4, 0.5]])
    rng = np.random.default_rng(0)
    seen = []

    def duel(i, j):
        assert isinstance(i, int) and isinstance(j, int)
        seen.append((i, j))
        return bool(rng.random() < mu[i, j])

    getattr(adapters, factory_name)(3, 300, 1)(duel, 300)
    assert len(seen) == 300
    assert np.__dict__["infty"] == math.inf and np.__dict__["float"] is float  # restored


# --------------------------------------------------------------------------------------
# Calibration: bundled Copeland algorithms verified against themselves never WARN/FAIL.
# --------------------------------------------------------------------------------------

COPELAND = ["d-ts", "d-ts+", "ecw-rmed", "ccb", "scb", "savage"]
#: The extension budget verify gives by default (read at import: tests/conftest.py sets
#: the default to 0 while a test runs).
USER_EXTEND_BUDGET = harness.DEFAULT_EXTEND_BUDGET


def test_calibration_dts_at_small_horizon():
    r = verify_algorithm("d-ts", T=5000, runs=5, reference="d-ts", seed=3, environment_seed=3)
    assert r.verdict in ("PASS", "INCONCLUSIVE"), r.table()


@pytest.mark.slow
@pytest.mark.parametrize("T", [5000, 20_000])
@pytest.mark.parametrize("algorithm", COPELAND)
def test_calibration_bundled_against_itself(algorithm, T):
    # as a user runs it: the default extension budget (the suite's default is 0), so a
    # growth verdict seen at T alone is confirmed at 4T (SCB still explores at T = 5000:
    # WARN there, PASS at 2e4)
    r = verify_algorithm(algorithm, T=T, runs=10, reference=algorithm, seed=1, environment_seed=1,
                         extend_budget=USER_EXTEND_BUDGET)
    assert r.verdict in ("PASS", "INCONCLUSIVE"), r.table()
    if T == 20_000:
        assert all(m.check("consistency").verdict == "PASS" for m in r.matrices), r.table()


@pytest.mark.slow
def test_python_dts_from_the_paper_passes_against_bundled_dts():
    """[W16] Algorithm 1 in pure Python (examples/my_algorithms.py: DTS, which shares no
    code with the compiled one) on the default suite + mslr5 at T = 2e4, 5 runs."""
    r = verify_algorithm("examples.my_algorithms:dts", list(DEFAULT_SUITE) + ["mslr5"], T=20_000,
               runs=5, reference="d-ts", environment_seed=1)
    # Correct code is never accused: no WARN/FAIL anywhere and the reference comparison
    # passes everywhere.  The consistency check may stay INCONCLUSIVE at T = 2e4 on the
    # matrices with small gaps (mslr5; unique_copeland with some environment seeds: "not
    # yet in its logarithmic regime ... T = 1e6 would decide") for either implementation.
    assert r.verdict in ("PASS", "INCONCLUSIVE"), r.table()
    for m in r.matrices:
        assert m.check("reference").verdict == "PASS", r.table()
        assert m.verdict in ("PASS", "INCONCLUSIVE"), r.table()
    assert any(m.verdict == "PASS" for m in r.matrices), r.table()


DEFAULT_SUITE = ("cyclic", "multi_winner", "unique_copeland")


def test_van_elteren_against_scipy_in_one_stratum():
    """With one stratum the van Elteren test is the Wilcoxon rank-sum test."""
    from scipy import stats

    from duelbound.checks.verify.statistics import van_elteren_p

    rng = np.random.default_rng(1)
    x, y = rng.lognormal(0.3, 0.4, 12), rng.lognormal(0.0, 0.4, 9)
    ref = stats.mannwhitneyu(x, y, alternative="greater", method="asymptotic",
                             use_continuity=False).pvalue
    assert van_elteren_p([(x, y)]) == pytest.approx(ref, rel=1e-9)
    # two identical strata: the same evidence twice is stronger
    assert van_elteren_p([(x, y), (x, y)]) < van_elteren_p([(x, y)])


def test_negative_extension_budget_is_refused():
    with pytest.raises(DuelboundError, match="extend_budget must be >= 0"):
        verify_algorithm("d-ts", ["cyclic"], T=100, runs=1, extend_budget=-1)
    # a numpy scalar is quoted as the number (numpy 2's repr is np.float64(-1.5))
    with pytest.raises(DuelboundError, match=r"got -1\.5$"):
        verify_algorithm("d-ts", ["cyclic"], T=100, runs=1, extend_budget=np.float64(-1.5))
