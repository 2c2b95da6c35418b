"""Each algorithm behaves as its paper says: consistency (Copeland) or the Condorcet failure."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from duelbound.checks.simulate.simulator import ALGORITHMS, run_single
from duelbound.theory import datasets, generators
from duelbound.theory import tournament as st

COPELAND = [a for a, s in ALGORITHMS.items() if s.copeland and a != "cw-rmed"]


def _non_winner_fraction(M, algorithm, T, seed):
    """Fraction of the last T/2 duels that involve a non-Copeland-winner."""
    rec = run_single(M, algorithm, T, seed, log_pairs=True)
    win = np.zeros(M.K, bool)
    win[st.copeland_winners(M)] = True
    tail = rec.pairs[T // 2:]
    return float(np.mean(~(win[tail[:, 0]] & win[tail[:, 1]])))


@pytest.mark.parametrize("name", ["cyclic", "multi_winner"])
@pytest.mark.parametrize("algorithm", COPELAND)
def test_copeland_algorithms_concentrate_on_winners(algorithm, name):
    M = datasets.load(name)
    fracs = [_non_winner_fraction(M, algorithm, 20_000, seed) for seed in (0, 1)]
    assert max(fracs) < 0.1, fracs


@pytest.mark.parametrize("algorithm", ["rucb", "rmed1"])
def test_condorcet_algorithms_fail_without_condorcet_winner(algorithm):
    # unique_copeland: one Copeland winner (arm 0) and no Condorcet winner.
    M = datasets.load("unique_copeland")
    assert st.condorcet_winner(M) is None
    for seed in (0, 1):
        assert _non_winner_fraction(M, algorithm, 20_000, seed) > 0.5
        rec = run_single(M, algorithm, 20_000, seed, checkpoints=[10_000, 20_000])
        # Linear regret: the second half costs at least min positive r_ij per duel on
        # almost every duel (min r = 1/(2(K−1)) = 1/8 here) — far above log growth.
        second_half = np.diff(rec.regret["komiyama"])[0]
        assert second_half > 0.5 * 10_000 / 8


def test_condorcet_algorithms_fine_with_condorcet_winner():
    M = datasets.load("cyclic")
    for algorithm in ("rucb", "rmed1"):
        assert _non_winner_fraction(M, algorithm, 20_000, 0) < 0.1


@pytest.mark.slow
def test_cw_rmed_concentrates_on_winners():
    # CW-RMED calls the LP of duelbound.solvers.cstar from its loop (~1e3 duels/s).
    for name in ("cyclic", "multi_winner"):
        assert _non_winner_fraction(datasets.load(name), "cw-rmed", 20_000, 0) < 0.1


@pytest.mark.slow
def test_cw_rmed_reproducible_and_counts():
    M = datasets.load("cyclic")
    a = run_single(M, "cw-rmed", 3000, 5)
    b = run_single(M, "cw-rmed", 3000, 5)
    assert np.array_equal(a.counts, b.counts)
    iu = np.triu_indices(M.K, 1)
    assert a.counts[iu].sum() + np.trace(a.counts) == 3000


def test_dts_above_half_probability_matches_beta_sf():
    # Independent check of the O(1) recurrence against scipy's Beta survival function.
    from scipy.stats import beta

    from duelbound.checks.simulate.algorithms.dts import _update_above_half

    rng = np.random.default_rng(0)
    W = np.zeros((2, 2), np.int64)
    P = np.full((2, 2), 0.5)
    LQ = np.full((2, 2), -np.log(2.0))
    for step in range(3000):
        won = bool(rng.random() < 0.3)
        if won:
            W[0, 1] += 1
        else:
            W[1, 0] += 1
        # alternate the orientation of the call: (0, 1) and (1, 0)
        if step % 2:
            _update_above_half(P, LQ, W, 1, 0, not won)
        else:
            _update_above_half(P, LQ, W, 0, 1, won)
        if step in (0, 1, 10, 100, 2999):
            exact = beta.sf(0.5, W[0, 1] + 1, W[1, 0] + 1)
            assert P[0, 1] == pytest.approx(exact, abs=1e-9)
            assert P[1, 0] == pytest.approx(1 - exact, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(K=hst.integers(3, 7), seed=hst.integers(0, 2**31 - 1),
       growth=hst.floats(1.0, 3.0), kind=hst.sampled_from(["cw", "ecw"]))
def test_rmed_membership_cache_window(K, seed, growth, kind):
    # CW-/ECW-RMED's membership cache (checks/simulate/algorithms/rmed.py) relies on: with
    # N, µ̂ fixed, every constraint value at x(ℓ) = min(N d̂/ℓ, 1) is ≥ (ℓ0/ℓ) × its value at ℓ0.
    # Checked on the oracle minima against a brute-force clip/scale, ℓ = growth·ℓ0.
    from duelbound.solvers.oracle import cw_oracle_core, ecw_oracle_core, kl_half_core

    rng = np.random.default_rng(seed)
    mu = generators.random_matrix(K, seed=seed).values
    d = kl_half_core(mu)
    N = rng.integers(0, 400, (K, K))
    N = np.triu(N, 1) + np.triu(N, 1).T
    L = (mu < 0.5).sum(axis=1)
    i1 = int(np.argmin(L))
    l0 = float(rng.uniform(1.0, 12.0))
    l1 = l0 * growth
    x0 = np.minimum(N * d / l0, 1.0)
    x1 = np.minimum(N * d / l1, 1.0)
    if kind == "ecw":
        v0, v1 = ecw_oracle_core(mu, i1, x0), ecw_oracle_core(mu, i1, x1)
    else:
        v0, v1 = cw_oracle_core(mu, i1, x0).min(), cw_oracle_core(mu, i1, x1).min()
    assert v1 >= (l0 / l1) * v0 * (1 - 1e-12)
    # and the allocation-free early-exit variant agrees with the full minimum
    if kind == "ecw":
        from duelbound.solvers.oracle import ecw_oracle_into, losses_core

        full = ecw_oracle_into(mu, losses_core(mu), i1, x0, -np.inf, np.empty(K))
        assert full == v0
        cut = ecw_oracle_into(mu, losses_core(mu), i1, x0, 1.0, np.empty(K))
        assert (cut >= 1.0) == (v0 >= 1.0)


@functools.cache
def _beta_sampler():
    """A compiled loop over algorithms.dts._beta_above_half (compiled once per session)."""
    import numba as nb

    from duelbound.checks.simulate.algorithms.dts import _beta_above_half

    @nb.njit
    def sample(W, P, LQ, rng, n):
        out = np.empty(n)
        for s in range(n):
            out[s] = _beta_above_half(W, P, LQ, rng, 1, 0)
        return out

    return sample


@pytest.mark.parametrize("w_ij, w_ji", [(3, 9), (40, 70), (500, 560), (7, 5), (0, 0)])
def test_dts_beta_above_half_is_the_truncated_beta(w_ij, w_ji):
    # D-TS draws θ | θ > 1/2 (phase 2 and D-TS+) by a truncated-binomial construction
    # when P(θ > 1/2) < 1/4, else by rejection: KS test against scipy's Beta conditioned
    # on (1/2, 1], with P and log pmf computed independently by scipy.
    from scipy.stats import beta, binom, kstest

    sample = _beta_sampler()
    a, b = w_ij + 1, w_ji + 1
    W = np.array([[0, w_ji], [w_ij, 0]], np.int64)  # arm 1 beat arm 0 w_ij times
    sf = beta.sf(0.5, a, b)
    P = np.array([[0.5, 1 - sf], [sf, 0.5]])
    # LQ[i, j] = log pmf(N + 1, W_ij) at 1/2, both orientations (as _update_above_half keeps it)
    LQ = np.array([[0.0, binom.logpmf(w_ji, w_ij + w_ji + 1, 0.5)],
                   [binom.logpmf(w_ij, w_ij + w_ji + 1, 0.5), 0.0]])
    x = sample(W, P, LQ, np.random.default_rng(5), 4000)
    assert np.all(x > 0.5)
    cdf = lambda v: (beta.cdf(v, a, b) - beta.cdf(0.5, a, b)) / sf  # noqa: E731
    assert kstest(x, cdf).pvalue > 1e-3


@settings(max_examples=200, deadline=None)
@given(w_ij=hst.integers(0, 400), w_ji=hst.integers(0, 400), t0=hst.integers(1, 5000),
       alpha=hst.sampled_from([0.51, 1.0, 3.0]), kind=hst.integers(0, 4))
def test_flip_time_is_the_first_t_of_the_float_predicate(w_ij, w_ji, t0, alpha, kind):
    # The event schedule (checks/simulate/algorithms/schedule.py) relies on: with the counts
    # fixed, each bound comparison is monotone in t, and flip_time returns its first true t ≥ t0 —
    # checked against a brute-force scan of the same float predicate.
    from duelbound.checks.simulate.algorithms.schedule import flip_time, holds

    W = np.array([[0, w_ij], [w_ji, 0]], np.int64)
    T = 20_000
    got = flip_time(kind, W, 0, 1, alpha, t0, T)
    values = [holds(kind, W, 0, 1, alpha, float(t)) for t in range(t0, T + 1)]
    assert values == sorted(values)  # False ... False True ... True
    first = next((t0 + k for k, v in enumerate(values) if v), T + 1)
    assert got == first


def test_schedule_pops_in_time_order_and_drops_stale_times():
    from duelbound.checks.simulate.algorithms.schedule import new_schedule, pop_due, schedule

    heap, size, due = new_schedule(4)
    T = 100
    for p, t in ((0, 50), (1, 10), (2, 10), (3, 200)):  # 200 > T: never
        schedule(heap, size, due, p, t, T)
    schedule(heap, size, due, 1, 70, T)  # re-scheduled: its time 10 is stale
    for _ in range(40):  # many stale keys force rebuilds; memory stays bounded
        schedule(heap, size, due, 0, 50, T)
    assert size[0] <= heap.shape[0]
    assert pop_due(heap, size, due, 9) == -1
    assert pop_due(heap, size, due, 10) == 2
    assert pop_due(heap, size, due, 10) == -1
    assert pop_due(heap, size, due, 100) == 0
    assert pop_due(heap, size, due, 100) == 1
    assert pop_due(heap, size, due, 10**6) == -1


def test_ecw_membership_parameter():
    from duelbound.theory.errors import DuelboundError

    M = datasets.load("cyclic")
    default = run_single(M, "ecw-rmed", 5000, 3)
    assert default.params["membership"] == "RE"
    explicit = run_single(M, "ecw-rmed", 5000, 3, {"membership": "RE"})
    assert np.array_equal(default.counts, explicit.counts)
    literal = run_single(M, "ecw-rmed", 5000, 3, {"membership": "R"})
    assert literal.params["membership"] == "R"
    iu = np.triu_indices(M.K, 1)
    assert literal.counts[iu].sum() + np.trace(literal.counts) == 5000
    with pytest.raises(DuelboundError):
        run_single(M, "ecw-rmed", 100, 0, {"membership": "X"})


def test_ecw_literal_membership_concentrates_on_winners():
    M = datasets.load("cyclic")
    rec = run_single(M, "ecw-rmed", 20_000, 0, {"membership": "R"}, log_pairs=True)
    win = np.zeros(M.K, bool)
    win[st.copeland_winners(M)] = True
    tail = rec.pairs[10_000:]
    assert np.mean(~(win[tail[:, 0]] & win[tail[:, 1]])) < 0.1


# -- CW-RMED: the lazy LP path gives the duels of solving the LP on every round -----------------

def _cw_duels(M, T: int, seed: int, lazy: bool, monkeypatch) -> tuple[np.ndarray, int]:
    """(logged pairs and outcomes, LP re-solves) of one CW-RMED run with ``lazy`` re-solves."""
    from duelbound.checks.simulate.algorithms import rmed
    from duelbound.checks.simulate.environment import make_env, make_rng

    solves = [0]
    real = rmed._cw_resolve_py

    def counted(*args):
        solves[0] += 1
        return real(*args)

    monkeypatch.setattr(rmed, "_cw_resolve_py", counted)
    env = make_env(M, T, None, True)
    ecw, tid = rmed.CW_SPEC.prepare(M, env)
    rmed.run_cw_rmed(env, make_rng(seed), ecw, tid, 3.0, 0.01, "RE", lazy)
    assert env.clock[0] == T
    return np.column_stack([env.pairs, env.outcomes]), solves[0]


@pytest.mark.parametrize("name, seeds, T", [("cyclic", (0, 1, 2), 2000), ("mslr5", (0, 1), 2000),
                                            ("random6", (0, 1), 2000), ("random16", (0,), 5000),
                                            ("random30", (0,), 5000)])
def test_cw_rmed_lazy_lp_equals_solving_every_round(name, seeds, T, monkeypatch):
    """The reference mode (lazy=False) solves the allocation LP on every round that needs
    one; the default re-solves only when the tournament changed or the last bases fail
    the exact optimality test, and then only the winners whose basis failed.  Every duel
    and outcome of the run must be the same, and the lazy run must have skipped LP solves
    (else the comparison shows nothing).  random16/random30 (random_matrix(K, 0)) have
    dual-degenerate LPs where HiGHS's warm re-solves depended on earlier runs that made no
    pivot: both runs differed there before the solver state was reset before each
    re-solve (PulpLP.restart_from_basis)."""
    pytest.importorskip("highspy")
    K = {"random6": 6, "random16": 16, "random30": 30}.get(name)
    M = (generators.random_matrix(6, seed=6) if name == "random6" else
         generators.random_matrix(K, seed=0) if K else datasets.load(name))
    for seed in seeds:
        lazy, n_lazy = _cw_duels(M, T, seed, True, monkeypatch)
        every, n_every = _cw_duels(M, T, seed, False, monkeypatch)
        assert np.array_equal(lazy, every), (name, seed)
        assert n_lazy < n_every, (name, seed, n_lazy, n_every)


@settings(max_examples=60, deadline=None)
@given(hst.integers(3, 9), hst.integers(0, 2**31 - 1), hst.integers(0, 2**31 - 1),
       hst.sampled_from([0.3, 1.0, 3.0]))
def test_cw_membership_value_equals_the_oracle(K, mseed, xseed, scale):
    """_cw_member_fast (no allocation, the last failing arm first) against the oracle
    cw_oracle_core: the same minimum when i1 is a member, a value below the threshold
    exactly when the oracle's minimum is below it (the simulator's membership test)."""
    from duelbound.checks.simulate.algorithms.rmed import _cw_member_fast
    from duelbound.solvers.oracle import cw_oracle_core, losses_core

    M = generators.random_matrix(K, seed=mseed)
    rng = np.random.default_rng(xseed)
    x = np.minimum(rng.exponential(scale / K, (K, K)), 1.0)
    x[rng.random((K, K)) < 0.1] = 1.0  # clipped entries: ties among the values
    x = np.triu(x, 1) + np.triu(x, 1).T
    L = losses_core(M.values)
    fc = rng.integers(-2, K, K).astype(np.int64)  # any remembered arm: only the order changes
    bufs = np.empty(K), np.empty(K + 1), np.empty(K + 1), np.empty((K + 1, 2))
    for i1 in np.flatnonzero(L == L.min()):
        want = cw_oracle_core(M.values, int(i1), x).min()
        for thr in (1.0 - 1e-9, -np.inf):
            got = _cw_member_fast(M.values, L, int(i1), x, thr, fc, *bufs)
            assert (got < thr) == (want < thr)
            if not want < thr:
                assert got == want
