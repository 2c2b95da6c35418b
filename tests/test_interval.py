"""C* and C^E* from win counts with intervals (duelbound.solvers.interval).

Every check compares with an independent computation: the K = 2 closed form of
Komiyama et al. 2016, Theorem 2 (derived below), scipy's Beta and binomial
distributions, lower_bound / ecw_bound / the structure code re-run on single draws,
and a seeded frequentist coverage experiment.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from scipy import stats

from duelbound.cli import main
from duelbound.solvers import ecw_bound, lower_bound, lower_bound_interval
from duelbound.solvers.draws import pair_position
from duelbound.solvers.sensitivity import first_order_shares
from duelbound.theory import PreferenceMatrix, kl_half
from duelbound.theory import tournament as st
from duelbound.theory.counts import sample_counts
from duelbound.theory.errors import DuelboundError, InvalidMatrixError


def half_width_tol(p: float, n: int, z: float = 4.0) -> float:
    return z * math.sqrt(p * (1.0 - p) / n) + 1.0 / n


# -- K = 2: closed form ---------------------------------------------------------------------
#
# K = 2, arm 0 wins (µ = µ_01 > 1/2): L = (0, 1), L1 = 0, L2 = 1.  In R_0 the only i2 is
# 1 and l ranges over {0, 1}.  l = 0: |I| = l + 1 − L1 = 1, so I = {1} ∋ i2 and
# |S| = max(0, L_1 − l − 1) = 0: the constraint is x_01 ≥ 1.  l = 1 needs |I| = 2 > |I_0|:
# nothing.  So q_01 = 1/d(µ, 1/2) and r_01 = (L_0 + L_1 − 2 L1)/(2(K − 1)) = 1/2:
# C* = 1/(2 d(µ, 1/2)), the same with the roles swapped when µ < 1/2.  C^E* is the same
# (constraint (4) is x_01 = 1, (5) is vacuous).  Hence C*(µ) ≤ t ⇔ |µ − 1/2| ≥ g(t), and
# the distribution of C* under the Beta posterior is exact.


def _cstar2(mu: float) -> float:
    return 1.0 / (2.0 * kl_half(mu))


def _cdf_cstar2(t: float, a: float, b: float) -> float:
    """P(C* ≤ t) for µ ~ Beta(a, b) with C*(µ) = 1/(2 d(µ, 1/2))."""
    from scipy.optimize import brentq

    g = brentq(lambda x: _cstar2(0.5 + x) - t, 1e-12, 0.5 - 1e-12)  # C* decreasing in |x|
    return stats.beta.sf(0.5 + g, a, b) + stats.beta.cdf(0.5 - g, a, b)


def test_k2_closed_form_plug_in_and_quantiles():
    W = np.array([[0, 140], [60, 0]])
    draws = 600
    rep = lower_bound_interval(W, level=0.9, draws=draws, seed=3)
    assert rep.cstar.plug_in == pytest.approx(_cstar2(0.7), rel=1e-9)
    assert rep.ecw.plug_in == pytest.approx(_cstar2(0.7), rel=1e-9)
    # every draw: C* = 1/(2 d(µ, 1/2)) and C^E* = C*
    mu = rep.samples["mu"][:, 0]
    want = np.array([_cstar2(m) for m in mu])
    np.testing.assert_allclose(rep.samples["cstar"], want, rtol=1e-8)
    np.testing.assert_allclose(rep.samples["ecw"], want, rtol=1e-8)
    # the reported ends are the 5 % / 95 % quantiles of the exact posterior of C*
    a, b = 141.0, 61.0
    for end, p in ((rep.cstar.lower, 0.05), (rep.cstar.upper, 0.95), (rep.cstar.median, 0.5)):
        assert abs(_cdf_cstar2(end, a, b) - p) <= half_width_tol(p, draws)
    assert not rep.cstar.unbounded and rep.winners == [0]
    # the Monte Carlo bands hold the reported ends and the exact posterior quantiles
    for (b_lo, b_hi), end, p in ((rep.cstar.lower_band, rep.cstar.lower, 0.05),
                                 (rep.cstar.upper_band, rep.cstar.upper, 0.95)):
        assert b_lo <= end <= b_hi
        assert _cdf_cstar2(b_lo, a, b) <= p <= _cdf_cstar2(b_hi, a, b)


def test_k2_undecided_sign_makes_the_upper_end_unbounded():
    W = np.array([[0, 11], [9, 0]])  # P(flip) ≈ 0.33: the sign is not known at 95 %
    rep = lower_bound_interval(W, level=0.95, draws=200, seed=0)
    p = rep.pairs[0]
    assert p.p_flip == pytest.approx(stats.beta.cdf(0.5, 12, 10), rel=1e-10)
    assert p.divergent and p.divergent_ecw  # C* = 1/(2 d) → ∞ at the tie
    assert rep.cstar.upper is None and rep.cstar.unbounded_pairs == [(0, 1)]
    assert rep.ecw.upper is None
    assert math.isfinite(rep.cstar.upper_draws) and rep.cstar.lower > 0
    text = rep.render()
    assert "unbounded" in text and "P(flip) = 0.33" in text
    assert rep.to_dict()["cstar"]["upper"] == "unbounded"
    json.dumps(rep.to_dict())


# -- flip probabilities, winner sets, draws -------------------------------------------------


@pytest.fixture(scope="module")
def cyclic_report():
    """`cyclic` (Komiyama et al. 2016, Table 2) from 40 duels per pair: several tournaments."""
    from duelbound.theory import datasets

    M = datasets.load("cyclic")
    W = sample_counts(M.values, 40, np.random.default_rng(5))
    return W, lower_bound_interval(W, draws=400, seed=1)


def test_flip_probabilities_match_the_beta_cdf_and_the_draws(cyclic_report):
    W, rep = cyclic_report
    mu = rep.samples["mu"]
    for p in rep.pairs:
        w, l_ = W[p.i, p.j], W[p.j, p.i]
        assert (p.wins, p.losses) == (w, l_)
        exact = stats.beta.cdf(0.5, w + 1, l_ + 1)  # P(µ_ij < 1/2): j is the true winner
        assert p.p_flip == pytest.approx(exact, rel=1e-9, abs=1e-300)
        col = mu[:, pair_position(rep.K, p.i, p.j)]
        frac = np.mean(col < 0.5) if p.i < p.j else np.mean(col > 0.5)
        assert abs(frac - exact) <= half_width_tol(exact, rep.draws)
        assert p.sd == pytest.approx(stats.beta.std(w + 1, l_ + 1), rel=1e-12)
    flips = [p.p_flip for p in rep.most_flipped()]
    assert flips == sorted(flips, reverse=True)


def test_draw_values_equal_lower_bound_and_ecw_bound(cyclic_report):
    _, rep = cyclic_report
    assert rep.tournaments > 1 and rep.stats["reused"] > 0  # both code paths exercised
    mu, cs, ec = rep.samples["mu"], rep.samples["cstar"], rep.samples["ecw"]
    iu = np.triu_indices(rep.K, 1)
    hat = (mu[0] > 0.5)
    other = [s for s in range(rep.draws) if np.any((mu[s] > 0.5) != hat)][:4]
    for s in [0, 1, 2, *other]:
        V = np.full((rep.K, rep.K), 0.5)
        V[iu] = mu[s]
        V[iu[1], iu[0]] = 1.0 - mu[s]
        M = PreferenceMatrix(V)
        assert cs[s] == pytest.approx(lower_bound(M, certify=False).value, rel=1e-7)
        assert ec[s] == pytest.approx(ecw_bound(M).value, rel=1e-10)


def test_winner_set_probability_from_the_structure_code(cyclic_report):
    W, rep = cyclic_report
    mu, iu = rep.samples["mu"], np.triu_indices(rep.K, 1)
    same = 0
    for s in range(rep.draws):
        V = np.full((rep.K, rep.K), 0.5)
        V[iu] = mu[s]
        V[iu[1], iu[0]] = 1.0 - mu[s]
        same += st.copeland_winners(PreferenceMatrix(V)) == rep.winners
    assert rep.p_winners == pytest.approx(same / rep.draws)
    Mhat = PreferenceMatrix(W / (W + W.T + np.eye(rep.K)) + 0.5 * np.eye(rep.K))
    assert rep.winners == st.copeland_winners(Mhat)
    assert rep.cstar.plug_in == pytest.approx(lower_bound(Mhat).value, rel=1e-9)
    assert rep.cstar.lower <= rep.cstar.median <= (rep.cstar.upper or math.inf)
    assert sum(p for _, p in rep.winner_sets) <= 1.0 + 1e-12


# -- sensitivity ----------------------------------------------------------------------------


def test_first_order_shares_on_a_known_model():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(4000, 3))
    y = 3.0 * X[:, 0] + X[:, 1] + 0.0 * X[:, 2]
    share = first_order_shares(X, y, 10)
    # for a linear y, η² is the squared correlation less the ~1 % lost to the binning
    for k in range(3):
        r2 = np.corrcoef(X[:, k], y)[0, 1] ** 2
        assert share[k] == pytest.approx(r2, abs=0.015)
    assert share[0] > 0.85 and share[2] < 0.01


def test_the_least_compared_costly_pair_dominates():
    mu = np.array([[0.5, 0.7, 0.65], [0.3, 0.5, 0.6], [0.35, 0.4, 0.5]])
    n = np.array([3000, 40, 3000])  # pairs (0,1), (0,2), (1,2)
    W = sample_counts(mu, n, np.random.default_rng(2))
    rep = lower_bound_interval(W, draws=300, seed=0)
    top = rep.dominant(1)[0]
    assert {top.i, top.j} == {0, 2} and top.share > 0.5
    assert max(rep.pairs, key=lambda p: p.local).j == 2


# -- inputs ---------------------------------------------------------------------------------


@dataclass
class _Counts:
    wins: np.ndarray
    arms: tuple[str, ...]
    name: str


def test_named_counts_object_labels_pairs_in_text_and_json():
    C = _Counts(np.array([[0, 70, 65], [30, 0, 60], [35, 40, 0]]), ("ann", "bob", "cy"), "toy")
    rep = lower_bound_interval(C, draws=100, seed=0)
    assert rep.arms == ("ann", "bob", "cy") and rep.name == "toy"
    text = str(rep)
    assert "ann>bob (0,1)" in text and "toy" in text and "{ann}" in text
    d = json.loads(json.dumps(rep.to_dict()))
    assert d["arms"] == ["ann", "bob", "cy"]
    assert {p["label"] for p in d["pairs"]} == {"ann>bob", "ann>cy", "bob>cy"}
    assert "C*=" in repr(rep) and len(repr(rep)) < 300


def test_tied_and_uncompared_pairs_are_reported_not_broken():
    W = np.array([[0, 50, 0, 60], [50, 0, 55, 70], [0, 45, 0, 52], [40, 30, 48, 0]])
    rep = lower_bound_interval(W, draws=100, seed=0)
    assert rep.cstar.plug_in is None and rep.winners is None and rep.p_winners is None
    assert any("never compared" in n for n in rep.notes)
    assert any("tied" in n for n in rep.notes)
    undecided = {(p.i, p.j): p for p in rep.pairs if p.p_flip == 0.5}
    assert set(undecided) == {(0, 1), (0, 2)} and undecided[(0, 2)].mu_hat is None
    assert np.all(np.isfinite(rep.samples["cstar"]))
    with pytest.raises(DuelboundError, match="never compared"):
        lower_bound_interval(W, method="bootstrap", draws=100)


@pytest.mark.parametrize("bad, err", [
    (np.array([[0, -1], [2, 0]]), InvalidMatrixError),
    (np.array([[0, 1.25], [2, 0]]), InvalidMatrixError),  # halves are draws, quarters no
    (np.ones((2, 3)), InvalidMatrixError),
    ("abc", InvalidMatrixError),
])
def test_bad_counts(bad, err):
    with pytest.raises(err):
        lower_bound_interval(bad, draws=20)


@pytest.mark.parametrize("kw", [{"level": 1.0}, {"level": 0.0}, {"method": "jackknife"},
                                {"draws": 3}])
def test_bad_arguments(kw):
    with pytest.raises(DuelboundError):
        lower_bound_interval(np.array([[0, 3], [1, 0]]), **kw)


def test_bad_level_is_quoted_as_the_number_not_a_numpy_repr():
    # numpy 2's repr of a scalar is np.float64(1.5): the message quotes the number typed
    with pytest.raises(DuelboundError, match=r"got 1\.5$"):
        lower_bound_interval(np.array([[0, 3], [1, 0]]), level=np.float64(1.5))


def test_bootstrap_flip_probability_is_binomial():
    W = np.array([[0, 30, 34], [20, 0, 21], [16, 29, 0]])  # 2 beats 1: a higher index wins
    rep = lower_bound_interval(W, method="bootstrap", draws=300, seed=0)
    assert (rep.pairs[2].i, rep.pairs[2].j) == (2, 1)
    for p in rep.pairs:
        n = p.wins + p.losses
        # P(the plug-in winner i gets at most half of n resampled duels)
        assert p.p_flip == pytest.approx(stats.binom.cdf(n // 2, n, p.wins / n), rel=1e-9)
        assert p.sd == pytest.approx(math.sqrt(p.mu_hat * (1 - p.mu_hat) / n))
    assert "bootstrap" in rep.render()
    ties = int(np.isnan(rep.samples["cstar"]).sum())  # resamples with W*_ij = n_ij / 2
    assert ties > 0 and any(f"{ties} of 300 bootstrap resamples" in n for n in rep.notes)


def test_pair_position():
    K = 6
    iu = np.triu_indices(K, 1)
    for k, (a, b) in enumerate(zip(*iu)):
        assert pair_position(K, int(a), int(b)) == k == pair_position(K, int(b), int(a))


# -- coverage (frequentist check of the credible interval) ----------------------------------


def test_coverage_of_the_true_cstar_on_a_small_matrix():
    """Seeded: draw counts from a known matrix, check how often the interval holds C*."""
    mu = np.array([[0.5, 0.7, 0.62], [0.3, 0.5, 0.65], [0.38, 0.35, 0.5]])
    truth = lower_bound(PreferenceMatrix(mu)).value
    truth_e = ecw_bound(PreferenceMatrix(mu)).value
    level, reps = 0.9, 60
    rng = np.random.default_rng(2024)
    hit = hit_e = 0
    for r in range(reps):
        rep = lower_bound_interval(sample_counts(mu, 150, rng), level=level, draws=200, seed=r)
        hit += rep.cstar.lower <= truth <= (rep.cstar.upper or math.inf)
        hit_e += rep.ecw.lower <= truth_e <= (rep.ecw.upper or math.inf)
    tol = 3.0 * math.sqrt(level * (1 - level) / reps)
    assert hit / reps >= level - tol
    assert hit_e / reps >= level - tol


# -- command line ---------------------------------------------------------------------------


def test_cli_bounds_counts_interval(tmp_path, capsys):
    f = tmp_path / "wins.txt"
    f.write_text("0 70 65\n30 0 60\n35 40 0\n")
    assert main(["bounds", "--counts", str(f), "--interval", "0.9", "--draws", "50"]) == 0
    out = capsys.readouterr().out
    assert "90% interval" in out and "P(winner set right)" in out
    assert main(["bounds", "--counts", str(f), "--interval", "0.9", "--draws", "50",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["interval"]["level"] == 0.9 and d["interval"]["draws"] == 50
    assert d["interval"]["cstar"]["plug_in"] == pytest.approx(d["lower_bound"]["value"])


def test_cli_interval_needs_counts(capsys):
    assert main(["bounds", "--example", "cyclic", "--interval", "0.9"]) == 2
    assert "--counts" in capsys.readouterr().err


# -- K = 3 with a Condorcet winner: an undecided pair C* can do without ------------------
#
# Arm 0 beats 1 and 2; let a be the arm that wins {1, 2} (L_a = 1) and b the other (L_b = 2).
# R_0 (Komiyama et al. 2016, Theorem 2), l = 0, |I| = 1:
#   i2 = a, I = {a} ∋ i2: |S| = max(0, L_a − 1) = 0, so x_0a ≥ 1;
#   i2 = a, I = {b}: |S| = L_a = 1 from S_a \ {0} = ∅: nothing;
#   i2 = b, I = {b} ∋ i2: |S| = L_b − 1 = 1 from S_b \ {0} = {a}: x_0b + x_ab ≥ 1;
#   i2 = b, I = {a}: |S| = L_b = 2 from {a}: nothing.
# l = 1 = L2 adds x_0a + x_0b ≥ 1 (implied).  With r_ij = (L_i + L_j)/(2(K − 1)):
# r_0a = 1/4, r_0b = 1/2, r_ab = 3/4, so
#   C* = 1/(4 d_0a) + min(1/(2 d_0b), 3/(4 d_ab)).
# Only {0, a} is divergent; the undecided pair {a, b} leaves the interval bounded.


def test_k3_closed_form_and_an_undecided_pair_that_keeps_the_interval_bounded():
    W = np.array([[0, 300, 280], [100, 0, 10], [120, 9, 0]])
    rep = lower_bound_interval(W, draws=300, seed=0)
    div = {(p.i, p.j): p.divergent for p in rep.pairs}
    assert div == {(0, 1): True, (0, 2): False, (1, 2): False}  # µ̂: a = 1, b = 2
    p12 = rep._pair(1, 2)
    assert p12.p_flip == pytest.approx(stats.beta.cdf(0.5, 11, 10), rel=1e-10)
    assert p12.p_flip > 0.3
    assert rep.cstar.upper is not None and rep.cstar.unbounded_pairs == []
    mu = rep.samples["mu"]  # columns: µ_01, µ_02, µ_12
    checked = 0
    for s in range(rep.draws):
        if mu[s, 0] > 0.5 and mu[s, 1] > 0.5:
            d01, d02, d12 = (kl_half(m) for m in mu[s])
            d0a, d0b = (d01, d02) if mu[s, 2] > 0.5 else (d02, d01)
            want = 1 / (4 * d0a) + min(1 / (2 * d0b), 3 / (4 * d12))
            assert rep.samples["cstar"][s] == pytest.approx(want, rel=1e-8)
            checked += 1
    assert checked == rep.draws


def test_accepts_wincounts():
    from duelbound.theory.counts import WinCounts

    C = WinCounts([[0, 7, 9], [3, 0, 6], [1, 4, 0]], arms=("a", "b", "c"), name="wc")
    rep = lower_bound_interval(C, draws=50, seed=0)
    assert rep.arms == ("a", "b", "c") and rep.name == "wc" and rep.comparisons == 30
    assert rep.cstar.plug_in == pytest.approx(lower_bound(C.matrix()).value, rel=1e-9)


def test_a_pair_won_n_to_0_keeps_every_number_finite():
    W = np.array([[0, 30, 20], [0, 0, 15], [5, 10, 0]])  # µ̂_01 = 1
    rep = lower_bound_interval(W, draws=100, seed=0)
    p01 = rep._pair(0, 1)
    assert p01.mu_hat == 1.0 and p01.p_flip == pytest.approx(0.5 ** 31)
    assert all(math.isfinite(p.local) and math.isfinite(p.share) for p in rep.pairs)
    assert rep.cstar.plug_in == pytest.approx(lower_bound(PreferenceMatrix(
        [[0.5, 1.0, 0.8], [0.0, 0.5, 0.6], [0.2, 0.4, 0.5]])).value, rel=1e-9)
    json.loads(json.dumps(rep.to_dict(), allow_nan=False))


# -- C* on the first draws only, and in worker processes -------------------------------------


def test_cstar_on_the_first_draws_is_those_draws_of_the_full_run(cyclic_report):
    """cstar_draws = n: the C* sample is the first n draws of the same seed (the draws are
    i.i.d., so these are a sample of n), and everything without an LP uses every draw."""
    W, full = cyclic_report
    part = lower_bound_interval(W, draws=400, seed=1, cstar_draws=60)
    assert part.cstar.draws == 60 and full.cstar.draws == 400 and part.ecw.draws == 400
    assert np.array_equal(part.samples["mu"], full.samples["mu"])
    np.testing.assert_allclose(part.samples["cstar"], full.samples["cstar"][:60], rtol=1e-9)
    np.testing.assert_array_equal(part.samples["ecw"], full.samples["ecw"])
    assert part.p_winners == full.p_winners and part.winner_sets == full.winner_sets
    first = np.sort(full.samples["cstar"][:60])
    q = np.quantile(first, [0.025, 0.975, 0.5], method="inverted_cdf")
    assert (part.cstar.lower, part.cstar.upper_draws, part.cstar.median) == tuple(q)
    assert any("first 60 of the 400 draws" in n for n in part.notes)
    assert "C* on the first 60" in part.render()


def test_auto_rule_depends_on_k_only():
    from duelbound.solvers.interval import (
        AUTO_CSTAR_SECONDS,
        DRAW_SECONDS,
        MIN_CSTAR_DRAWS,
        auto_cstar_draws,
        estimate_draw_seconds,
    )
    for k, t in DRAW_SECONDS.items():  # the power law passes through both measurements
        assert estimate_draw_seconds(k) == pytest.approx(t)
    assert auto_cstar_draws(8, 1000) == 1000  # small K: every draw
    assert auto_cstar_draws(100, 1000) == max(MIN_CSTAR_DRAWS,
                                              int(AUTO_CSTAR_SECONDS / DRAW_SECONDS[100]))
    assert auto_cstar_draws(300, 1000) == MIN_CSTAR_DRAWS
    assert auto_cstar_draws(300, 15) == 15  # never more than the draws
    # draws that share a tournament share its LP: only new tournaments count
    assert auto_cstar_draws(100, 1000, np.zeros(1000, dtype=int)) == 1000
    fit = int(AUTO_CSTAR_SECONDS / estimate_draw_seconds(100))  # tournaments that fit
    tid = np.arange(1000) % (2 * fit)  # twice as many tournaments as fit, each seen 1000/2fit×
    n = auto_cstar_draws(100, 1000, tid)
    assert n == fit  # draws 0 … fit − 1 are the first tournaments; draw fit is one too many
    assert auto_cstar_draws(100, 1000, np.arange(1000) % fit) == 1000  # all of them fit


@pytest.mark.parametrize("kw", [{"cstar_draws": 5}, {"cstar_draws": "some"}, {"workers": 0}])
def test_bad_cstar_draws_and_workers(kw):
    with pytest.raises(DuelboundError):
        lower_bound_interval(np.array([[0, 3], [1, 0]]), draws=20, **kw)


def test_worker_processes_give_the_same_values(cyclic_report, monkeypatch):
    """A local Dask cluster of two workers (solvers/draws.py) gives the serial values."""
    from duelbound.solvers import draws

    W, full = cyclic_report
    monkeypatch.setattr(draws, "PARALLEL_MIN_SECONDS", 0.0)  # spread even this small job
    rep = lower_bound_interval(W, draws=400, seed=1, workers=2)
    assert rep.stats["workers"] == 2
    np.testing.assert_allclose(rep.samples["cstar"], full.samples["cstar"], rtol=1e-7)
    assert rep.stats["lp_solves"] + rep.stats["reused"] >= rep.tournaments


def test_share_errors_for_the_listed_pairs(cyclic_report):
    _, rep = cyclic_report
    listed = {(p.i, p.j) for p in rep.dominant()}
    for p in rep.pairs:
        assert (p.share_se is not None) == ((p.i, p.j) in listed)
        if p.share_se is not None:
            assert 0.0 <= p.share_se < 0.5


def test_cli_cstar_draws_and_workers(tmp_path, capsys):
    f = tmp_path / "wins.txt"
    f.write_text("0 70 65\n30 0 60\n35 40 0\n")
    base = ["bounds", "--counts", str(f), "--interval", "0.9", "--draws", "50"]
    assert main([*base, "--cstar-draws", "20", "--workers", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["interval"]
    assert d["cstar"]["draws"] == 20 and d["ecw"]["draws"] == 50
    assert d["stats"]["cstar_draws"] == 20
    for bad in (["--cstar-draws", "5"], ["--cstar-draws", "many"], ["--workers", "0"]):
        try:
            code = main([*base, *bad])
        except SystemExit as exc:  # usage errors found by argparse exit from the parser
            code = exc.code
        assert code == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("duelbound") and "error:" in err and "\n" not in err, err


@settings(max_examples=300, deadline=None)
@given(st_.integers(2, 7).flatmap(
    lambda K: st_.tuples(st_.just(K), st_.lists(st_.sampled_from([-1, 0, 1]),
                                                min_size=K * (K - 1) // 2,
                                                max_size=K * (K - 1) // 2))))
def test_closed_form_divergence_matches_the_oracle(case):
    """The single-term closed form (O(K) per pair) against the oracle at x = 1 off {a, b},
    x_ab = 0 on the tournament and on it with the pair flipped (O(K²) per pair)."""
    from duelbound.solvers.divergence import divergent, divergent_pairs
    from duelbound.solvers.draws import square

    K, signs = case
    sign = np.array(signs)
    fast_cw, fast_ec = divergent_pairs(K, sign)
    base = square(np.where(sign >= 0, 0.75, 0.25), K)
    iu = np.triu_indices(K, 1)
    for k in range(sign.size):
        a, b = int(iu[0][k]), int(iu[1][k])
        flipped = base.copy()
        flipped[a, b], flipped[b, a] = base[b, a], base[a, b]
        slow = [divergent(m, a, b) for m in (base, flipped)]
        assert fast_cw[k] == (slow[0][0] or slow[1][0]), (K, signs, a, b)
        assert fast_ec[k] == (slow[0][1] or slow[1][1]), (K, signs, a, b)


def test_winner_sets_beyond_64_arms():
    """K = 70, arm 69 beats every arm 300 : 100 and the others form a transitive order
    (i beats j > i, 300 : 100): arm 69 is the Condorcet winner in every posterior draw
    (P(flip) ~ 1e-25 per pair), so the winner set is {69} with share 1 (a bitmask of 2^69
    in an int64 had made it 0)."""
    from duelbound.theory.posterior import posterior_structure

    K = 70
    W = np.zeros((K, K), dtype=np.int64)
    for i in range(K):
        for j in range(K):
            if i != j:
                W[i, j] = 300 if (i == K - 1 or (j != K - 1 and i < j)) else 100
    rep = lower_bound_interval(W, draws=30, seed=0, cstar_draws=10)
    assert rep.winners == [K - 1] and rep.p_winners == 1.0
    assert rep.winner_sets == [((K - 1,), 1.0)]
    ps = posterior_structure(W, draws=30, seed=0)
    assert ps.winner_sets == [((K - 1,), 1.0)] and ps.p_winner[K - 1] == 1.0
    assert ps.p_condorcet == 1.0
