"""Comparison logs as people export them (issue 22): draws, the LMSYS columns, tied and
never-compared pairs, and readers that hold under malformed real files.

Logs are generated here (seeded Bradley–Terry battles with Zipf-like popularity and draws);
expected counts are tallied independently with collections.Counter.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from duelbound.solvers import lower_bound_interval
from duelbound.theory import PreferenceMatrix
from duelbound.theory.counts import WinCounts, read_comparisons, read_counts, write_counts
from duelbound.theory.errors import DuelboundError, MatrixFileError
from duelbound.theory.io import read_matrix

DRAWS = ("tie", "tie (bothbad)")


def arena_log(path, K: int, n: int, seed: int, draw: float = 0.15, lmsys: bool = True,
              popularity: float = 1.1) -> list[tuple[str, str, str]]:
    """A seeded arena-style log: Elo 900–1300, Zipf popularity, a share of draws."""
    rng = np.random.default_rng(seed)
    elo = rng.uniform(900, 1300, K)
    pop = 1.0 / np.arange(1, K + 1) ** popularity
    pop /= pop.sum()
    names = [f"model-{i:03d}-2024-0{1 + i % 9}-1{i % 10}" for i in range(K)]
    rows = []
    for _ in range(n):
        a, b = rng.choice(K, 2, replace=False, p=pop)
        p = 1.0 / (1.0 + 10 ** ((elo[b] - elo[a]) / 400))
        u = rng.random()
        out = DRAWS[int(rng.random() < 0.3)] if u < draw else \
            ("model_a" if rng.random() < p else "model_b")
        rows.append((names[a], names[b], out))
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["model_a", "model_b", "winner"] if lmsys else ["arm_a", "arm_b", "outcome"])
        for a, b, out in rows:
            w.writerow([a, b, out if lmsys else {"model_a": a, "model_b": b}.get(out, "draw")])
    return rows


def _expected(rows, policy: str) -> tuple[Counter, Counter]:
    wins: Counter = Counter()
    draws: Counter = Counter()
    for a, b, out in rows:
        if out in DRAWS:
            draws[frozenset((a, b))] += 1
        else:
            wins[(a, b) if out == "model_a" else (b, a)] += 1
    return wins, draws


@pytest.mark.parametrize("policy", ["half", "drop"])
@pytest.mark.parametrize("lmsys", [True, False])
def test_draws_follow_the_policy_in_both_log_forms(tmp_path, policy, lmsys):
    rows = arena_log(tmp_path / "log.csv", 6, 400, seed=1, lmsys=lmsys)
    C = read_comparisons(tmp_path / "log.csv", draw_policy=policy)
    wins, draws = _expected(rows, policy)
    pos = {a: i for i, a in enumerate(C.arms)}
    for a in C.arms:
        for b in C.arms:
            if a == b:
                continue
            want = Fraction(wins[a, b]) + (Fraction(draws[frozenset((a, b))], 2)
                                           if policy == "half" else 0)
            assert Fraction(float(C.wins[pos[a], pos[b]])) == want
    n_draws = sum(draws.values())
    assert any(f"{n_draws} draw(s)" in note for note in C.notes), C.notes


def test_refuse_policy_names_the_line_and_the_options(tmp_path):
    arena_log(tmp_path / "log.csv", 4, 50, seed=2, draw=0.5)
    with pytest.raises(MatrixFileError, match=r"line \d+: a draw .*--draw-policy"):
        read_comparisons(tmp_path / "log.csv", draw_policy="refuse")
    with pytest.raises(DuelboundError, match="unknown draw policy"):
        read_comparisons(tmp_path / "log.csv", draw_policy="split")


def test_a_log_and_its_counts_give_identical_results(tmp_path):
    arena_log(tmp_path / "log.csv", 5, 3000, seed=3, popularity=0.2)
    C = read_comparisons(tmp_path / "log.csv")
    write_counts(C, tmp_path / "counts.json")
    D = read_counts(tmp_path / "counts.json")
    assert D == C and np.array_equal(C.matrix().values, D.matrix().values)
    outs = []
    for src in (["--comparisons", str(tmp_path / "log.csv")],
                ["--counts", str(tmp_path / "counts.json")]):
        run = subprocess.run([sys.executable, "-m", "duelbound", "bounds", *src, "--json"],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs.append(json.loads(run.stdout)["lower_bound"]["value"])
    assert outs[0] == outs[1]


def test_tied_and_unobserved_pairs_get_the_posterior_answer_not_an_error(tmp_path):
    """K = 30 from 3 000 battles: dozens of pairs tied or never compared.  bounds exits 0,
    names the pairs that make the plug-in undefined, and gives the interval."""
    arena_log(tmp_path / "k30.csv", 30, 3000, seed=4)
    C = read_comparisons(tmp_path / "k30.csv")
    N, W = C.pair_counts, C.wins
    iu = np.triu_indices(30, 1)
    assert (N[iu] == 0).any() and ((W[iu] == W.T[iu]) & (N[iu] > 0)).any()
    run = subprocess.run([sys.executable, "-m", "duelbound", "bounds", "--comparisons",
                          str(tmp_path / "k30.csv"), "--draws", "40", "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["plug_in"]["defined"] is False
    assert len(out["plug_in"]["never_compared"]) == int((N[iu] == 0).sum())
    assert out["interval"]["cstar"]["lower"] > 0
    text = subprocess.run([sys.executable, "-m", "duelbound", "bounds", "--comparisons",
                           str(tmp_path / "k30.csv"), "--draws", "40"],
                          capture_output=True, text=True)
    assert text.returncode == 0 and "plug-in C*: undefined" in text.stdout
    assert "never compared:" in text.stdout and "95% interval" in text.stdout


def test_break_ties_on_counts_reaches_the_interval_plug_in():
    W = np.array([[0, 6, 9], [6, 0, 7], [2, 4, 0]])   # (0, 1) tied 6 : 6
    from duelbound.solvers.interval import lower_bound_interval

    rep = lower_bound_interval(WinCounts(W), draws=20, break_ties=1e-3)
    assert rep.cstar.plug_in is not None and rep.winners is not None
    assert any("broken by EPS = 0.001" in n for n in rep.notes)


# -- readers under real files: one line, exit 2 ------------------------------------------------
CASES = {
    "space_in_cell.csv": ("0.5,0.7 0.6\n0.3,0.5,0.2\n0.4,0.8,0.5\n", "two numbers in one cell"),
    "stray_quote.csv": ('a,b\n"' + "x" * 200_000 + "\n", "unbalanced quote"),
    "dup.json": ('{"matrix": [[0.5, 0.6], [0.4, 0.5]], "matrix": [[0.5, 0.4], [0.6, 0.5]]}',
                 "appears twice"),
    "dup_arms.json": ('{"matrix": [[0.5, 0.6], [0.4, 0.5]], "arms": ["a", "b"], '
                      '"arms": ["c", "d"]}', "appears twice"),
    "bad_ties.json": ('{"matrix": [[0.5, 0.6], [0.4, 0.5]], "broken_ties": [[0, 5]], '
                      '"tie_epsilon": 0.1}', "broken_ties"),
    "newline_name.json": ('{"matrix": [[0.5, 0.6], [0.4, 0.5]], "arms": ["a\\nb", "c"]}',
                          "control character"),
    "counts100.txt": ("0 60 70\n40 0 55\n30 45 0\n", "look like win counts"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_real_files_give_one_line(tmp_path, name):
    text, reason = CASES[name]
    f = tmp_path / name
    f.write_text(text)
    run = subprocess.run([sys.executable, "-m", "duelbound", "structure", str(f)],
                         capture_output=True, text=True)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1 and reason in lines[0], run.stderr


def test_stray_quote_in_a_log_gives_one_line(tmp_path):
    f = tmp_path / "log.csv"
    f.write_text('winner,loser\n"' + "y" * 200_000 + "\n")
    with pytest.raises(MatrixFileError, match="unbalanced quote"):
        read_comparisons(f)


def test_excel_decimal_commas_are_read(tmp_path):
    f = tmp_path / "excel.csv"
    f.write_text("0,5;0,7;0,6\n0,3;0,5;0,2\n0,4;0,8;0,5\n")
    M = read_matrix(f)
    assert M.values[0, 1] == 0.7 and M.exact_as_written()[0][0][1] == Fraction(7, 10)


def test_latex_shields_names_that_look_like_optional_arguments():
    from duelbound.solvers.tables import latex_data, latex_escape

    assert latex_data("[v2] model").startswith("{}[")
    assert latex_data("*star").startswith("{}*")
    assert latex_escape("a\x07b") == "a?b"


def test_a_chain_log_with_many_arms_is_one_line_not_gigabytes(tmp_path):
    """600 arms, each compared with the next only: 179 101 pairs never compared.  bounds
    refuses the per-draw LPs above K = 500 up front in one line that counts the pairs (it
    used to list every pair: gigabytes at 10 000 arms); structure answers from the
    posterior and says how many pairs make the plug-in undefined."""
    f = tmp_path / "chain.csv"
    f.write_text("winner,loser\n" + "".join(f"a{i},a{i + 1}\n" for i in range(599)))
    run = subprocess.run([sys.executable, "-m", "duelbound", "bounds", "--comparisons", str(f)],
                         capture_output=True, text=True)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert "179101" in lines[0] or "179095 more" in lines[0], lines[0]
    run = subprocess.run([sys.executable, "-m", "duelbound", "structure", "--comparisons",
                          str(f), "--draws", "20"], capture_output=True, text=True)
    assert run.returncode == 0 and "179101 never compared" in run.stdout, run.stderr
    run = subprocess.run([sys.executable, "-m", "duelbound", "table", "--comparisons", str(f)],
                         capture_output=True, text=True)  # K = 600 > 500: refused up front
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and "limited to K <= 500" in lines[-1], run.stderr
    assert "Traceback" not in run.stderr


def test_the_log_readers_moved_to_logs_and_keep_their_old_import_path():
    from duelbound import theory
    from duelbound.theory import counts, logs

    assert counts.read_comparisons is logs.read_comparisons is theory.read_comparisons
    assert counts.DRAW_POLICIES == logs.DRAW_POLICIES == ("half", "drop", "refuse")
    with pytest.raises(AttributeError, match="no attribute 'read_comparison'"):
        counts.read_comparison  # noqa: B018 (a misspelt name still fails)


def test_undefined_pairs_counts_and_lists_against_a_loop():
    from duelbound.theory.posterior import undefined_pairs

    rng = np.random.default_rng(2)
    W = rng.integers(0, 3, (9, 9))
    np.fill_diagonal(W, 0)
    tied = [(i, j) for i in range(9) for j in range(i + 1, 9)
            if W[i, j] + W[j, i] > 0 and W[i, j] == W[j, i]]
    never = [(i, j) for i in range(9) for j in range(i + 1, 9) if W[i, j] + W[j, i] == 0]
    u = undefined_pairs(W)
    assert (u.tied, u.never, u.n_tied, u.n_never) == (tied, never, len(tied), len(never))
    assert tied and never  # both kinds occur in this seed
    short = undefined_pairs(W, limit=2)
    assert (short.tied, short.never) == (tied[:2], never[:2])
    assert (short.n_tied, short.n_never) == (len(tied), len(never)) and bool(short)
    assert not undefined_pairs(np.array([[0, 2], [1, 0]]))


def test_a_line_longer_than_the_limit_is_refused_before_it_is_held(tmp_path, monkeypatch):
    from duelbound.theory import logs

    monkeypatch.setattr(logs, "MAX_LOG_LINE_BYTES", 4096)
    f = tmp_path / "long.csv"
    f.write_text("winner,loser\na,b\n" + "c," + "d" * 10_000 + "\nb,a\n")
    with pytest.raises(MatrixFileError, match=r"line 3: longer than 4096 bytes"):
        read_comparisons(f)
    f.write_text("winner,loser\na,b\n" + "c," + "d" * 4000 + "\n")  # under the limit: read
    assert read_comparisons(f).K == 4


def test_streamed_reading_keeps_line_numbers_comments_and_arm_order(tmp_path):
    f = tmp_path / "log.csv"
    f.write_text("\ufeff# a comment\n\nmodel_a,model_b,winner\n"
                 "x,y,model_a\n# another\n\ny,z,tie\nz,x,model_b\n\"w\",x,bogus\n")
    with pytest.raises(MatrixFileError, match=r"line 9: winner 'bogus'"):
        read_comparisons(f)
    f.write_text("arm_a,arm_b,outcome\n10,2,1\n2,10,b\n3,2,draw\n")
    C = read_comparisons(f)  # numeric names in numeric order, not first appearance
    assert C.arms == ("2", "3", "10")
    assert C.wins[2, 0] == 2 and C.wins[0, 1] == C.wins[1, 0] == 0.5


def test_more_arms_than_the_maximum_stop_at_the_first_extra_arm(tmp_path, monkeypatch):
    from duelbound.theory import logs

    monkeypatch.setattr(logs, "MAX_K", 50)
    f = tmp_path / "chain.csv"
    f.write_text("winner,loser\n" + "".join(f"a{i},a{i + 1}\n" for i in range(100)))
    with pytest.raises(MatrixFileError, match=r"line 51: more than 50 arms"):
        read_comparisons(f)


def test_given_arm_order_and_an_arm_outside_it(tmp_path):
    f = tmp_path / "log.jsonl"
    f.write_text('{"winner": "b", "loser": "a"}\n\n{"winner": "a", "loser": "c", "count": 3}\n')
    C = read_comparisons(f, arms=["c", "b", "a"])
    assert C.arms == ("c", "b", "a") and C.wins[1, 2] == 1 and C.wins[2, 0] == 3
    with pytest.raises(MatrixFileError, match=r"line 3: arm 'c' is in the log but not one"):
        read_comparisons(f, arms=["a", "b"])


@pytest.mark.parametrize("sep", [",", " ", ";"])
def test_a_line_wider_than_a_square_table_is_refused_before_it_is_split(tmp_path, sep):
    f = tmp_path / "wide.txt"
    f.write_text(f"0.5{sep}0.6\n" + sep.join(["0.4"] * 50_000) + "\n")
    with pytest.raises(MatrixFileError, match=r"line 2 has 50000 cells, but a square table"):
        read_matrix(f)
    f = tmp_path / "names.csv"
    f.write_text('name,"a, the first","b, the second"\n"a, the first",0.5,0.6\n'
                 '"b, the second",0.4,0.5\n')  # quoted names holding the delimiter: read
    assert read_matrix(f).arms == ("a, the first", "b, the second")


# -- structure and table when the estimate has no tournament -----------------------------------


def test_posterior_structure_matches_exact_enumeration_at_k3():
    """K = 3 with a tied and a never-compared pair: P(arm i is a Copeland winner) by
    enumerating the 8 tournaments, each weighted by the Beta posterior's sign
    probabilities (scipy), against the sampled shares."""
    import itertools

    from scipy import stats as sps

    from duelbound.theory import tournament as tt
    from duelbound.theory.posterior import posterior_structure

    W = np.array([[0, 5, 9], [5, 0, 0], [2, 0, 0]], dtype=float)  # 0-1 tied, 1-2 never
    ps = posterior_structure(W, draws=20_000, seed=3)
    u = ps.undefined
    assert (u.tied, u.never, u.n_tied, u.n_never) == ([(0, 1)], [(1, 2)], 1, 1)
    pairs = [(0, 1), (0, 2), (1, 2)]
    p_low = [1 - sps.beta.cdf(0.5, W[a, b] + 1, W[b, a] + 1) for a, b in pairs]  # µ_ab > 1/2
    exact = np.zeros(3)
    condorcet = 0.0
    for signs in itertools.product([True, False], repeat=3):
        mu = np.full((3, 3), 0.5)
        prob = 1.0
        for (a, b), up, p in zip(pairs, signs, p_low):
            mu[a, b], mu[b, a] = (0.75, 0.25) if up else (0.25, 0.75)
            prob *= p if up else 1 - p
        L = tt.losses(PreferenceMatrix(mu))
        exact[L == L.min()] += prob
        condorcet += prob * (L.min() == 0)
    tol = 4 * np.sqrt(0.25 / ps.draws)
    assert np.all(np.abs(ps.p_winner - exact) < tol), (ps.p_winner, exact)
    assert abs(ps.p_condorcet - condorcet) < tol
    assert ps.ranking()[0] == int(np.argmax(exact))


def test_structure_and_table_answer_from_the_posterior(tmp_path):
    import pandas as pd

    f = tmp_path / "arena.csv"
    arena_log(f, K=6, n=120, seed=4)
    C = read_comparisons(f)
    from duelbound.theory.posterior import undefined_pairs

    assert undefined_pairs(C.wins)  # the log has tied or never-compared pairs

    def cli(*argv):
        return subprocess.run([sys.executable, "-m", "duelbound", *argv],
                              capture_output=True, text=True)

    run = cli("structure", "--comparisons", str(f), "--json")
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert d["plug_in"]["defined"] is False and len(d["posterior"]["p_winner"]) == 6
    run = cli("structure", "--comparisons", str(f))
    assert run.returncode == 0 and "P(Copeland winner)" in run.stdout
    run = cli("table", "--comparisons", str(f), "--format", "csv")
    assert run.returncode == 0, run.stderr
    row = pd.read_csv(io.StringIO(run.stdout)).iloc[0]
    rep = lower_bound_interval(C, draws=1000, seed=0)  # K = 6: every draw gets C*
    assert row["C* (x log T)"] == pytest.approx(rep.cstar.median, rel=1e-6)
    assert row["upper-bound terms"] == "undefined"
    run = cli("table", "--comparisons", str(f), "--format", "json")
    assert json.loads(run.stdout)["rows"][0]["C*:draws"] == 1000
    for bad in (["--transpose"], ["--convention", "zoghi"], ["--example", "cyclic"]):
        run = cli("table", "--comparisons", str(f), *bad)
        lines = run.stderr.strip().splitlines()
        assert run.returncode == 2 and "error" in lines[-1], run.stderr
    run = cli("structure", "--comparisons", str(f), "--plot", str(tmp_path / "t.png"))
    assert run.returncode == 2 and "undefined" in run.stderr


def test_broken_ties_are_labelled_artefacts_of_epsilon(tmp_path, capsys):
    from duelbound.cli import main

    f = tmp_path / "tied.txt"
    f.write_text("0 6 9\n6 0 8\n1 2 0\n")
    assert main(["structure", "--counts", str(f), "--break-ties", "1e-3"]) == 0
    out = capsys.readouterr().out
    assert "Delta_min         0.001  (= epsilon of a broken tie: an artefact" in out
    assert main(["table", "--counts", str(f), "--break-ties", "1e-3"]) == 0
    out = capsys.readouterr().out
    assert "artefacts of epsilon, not estimates" in out
    assert main(["structure", "--counts", str(f)]) == 0  # without EPS: the posterior answer
    assert "P(Copeland winner)" in capsys.readouterr().out


def _k100_log(tmp_path, n: int):
    f = tmp_path / "arena100.csv"
    arena_log(f, K=100, n=n, seed=11)
    return f


def test_k100_log_structure_answers_from_the_posterior(tmp_path):
    f = _k100_log(tmp_path, 20_000)
    run = subprocess.run([sys.executable, "-m", "duelbound", "structure", "--comparisons",
                          str(f)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "never compared" in run.stdout and "P(Copeland winner)" in run.stdout
    assert max(len(line) for line in run.stdout.splitlines()) <= 120
    assert "... 90 more arms (see --json / --full)" in run.stdout


@pytest.mark.slow
def test_k100_log_bounds_and_table_answer(tmp_path):
    """K = 100 from 200 000 battles (ties, never-compared pairs): bounds answers with the
    interval (C* on a few draws), table with the posterior table; both exit 0."""
    import pandas as pd

    f = _k100_log(tmp_path, 200_000)
    run = subprocess.run([sys.executable, "-m", "duelbound", "bounds", "--comparisons", str(f),
                          "--interval", "0.95", "--draws", "200", "--cstar-draws", "10",
                          "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert d["plug_in"]["defined"] is False and d["interval"]["cstar"]["draws"] == 10
    assert d["interval"]["ecw"]["draws"] == 200
    run = subprocess.run([sys.executable, "-m", "duelbound", "table", "--comparisons", str(f),
                          "--format", "csv"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    row = pd.read_csv(io.StringIO(run.stdout)).iloc[0]
    assert row["K"] == 100 and row["upper-bound terms"] == "undefined"
    assert row["C* 95% low"] <= row["C* (x log T)"]
