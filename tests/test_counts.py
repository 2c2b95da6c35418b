"""Win counts and comparison logs: estimates, readers, refusals, and the CLI options."""

from __future__ import annotations

import argparse
import json
import random

import numpy as np
import pytest

from duelbound.cli import main
from duelbound.cli.common import add_matrix_arguments, load_counts, load_matrix
from duelbound.theory import (
    InvalidMatrixError,
    MatrixFileError,
    PreferenceMatrix,
    TieError,
    WinCounts,
    read_comparisons,
    read_counts,
    write_counts,
)

ARMS = ("ant", "bee", "cat")
WINS = [[0, 7, 9], [3, 0, 6], [1, 4, 0]]


def _log_lines(C: WinCounts, form: str, seed: int = 0) -> list[dict]:
    """One record per duel of ``C`` (shuffled, arm order kept by first appearance)."""
    recs = []
    for i in range(C.K):
        for j in range(C.K):
            for _ in range(int(C.wins[i, j])):
                a, b = C.label(i), C.label(j)
                if form == "winner":
                    recs.append({"winner": a, "loser": b})
                else:
                    flip, by_name = len(recs) % 2, len(recs) % 3 == 0
                    recs.append({"arm_a": b if flip else a, "arm_b": a if flip else b,
                                 "outcome": a if by_name else ("0" if flip else "1")})
    first, rest = recs[0], recs[1:]
    random.Random(seed).shuffle(rest)
    return [first, *rest]


def test_wincounts_estimate_and_dict():
    C = WinCounts(WINS, arms=ARMS, name="w")
    assert C.K == 3 and C.n_comparisons == 30
    M = C.matrix()
    assert M.arms == ARMS and M.name == "w"
    assert M[0, 1] == 0.7 and M[1, 2] == 0.6 and M[2, 0] == 1 - 0.9  # canonical complement
    assert WinCounts.from_dict(json.loads(json.dumps(C.to_dict()))) == C
    assert C.pair_counts[0, 1] == 10
    assert C.reindex(("cat", "ant", "bee")).matrix()[1, 2] == 0.7


def test_self_comparisons_ignored_with_note():
    C = WinCounts([[5, 7], [3, 2]])
    assert C.wins[0, 0] == 0 and C.n_comparisons == 10
    assert "ignored 7 self-comparison(s)" in C.notes[0]


@pytest.mark.parametrize("wins,exc,fragment", [
    ([[0, 0, 9], [0, 0, 6], [1, 4, 0]], InvalidMatrixError, "no comparisons of ant vs bee"),
    ([[0, 3, 9], [3, 0, 6], [1, 4, 0]], TieError, "ant vs bee (e.g. 3 : 3)"),
    ([[0, -1], [3, 0]], InvalidMatrixError, "negative counts"),
    ([[0, 2.25], [3, 0]], InvalidMatrixError, "non-integer counts"),
    ([[0.5, 0.7], [0.3, 0.5]], InvalidMatrixError, "looks like a preference matrix"),
    ([[0, 2 ** 49], [3, 0]], InvalidMatrixError, "above"),
    (np.array([[False, True], [True, False]]), InvalidMatrixError, "integers"),
    ([[0, 1, 2]], InvalidMatrixError, "square"),
])
def test_counts_refusals(wins, exc, fragment):
    arms = ARMS[:len(wins)] if len(wins) == 3 else None
    with pytest.raises(exc) as info:
        WinCounts(wins, arms=arms).matrix()
    assert fragment in str(info.value)


def test_tie_can_be_broken():
    M = WinCounts([[0, 3], [3, 0]]).matrix(break_ties=0.01)
    assert M.broken_ties == ((0, 1),) and M[0, 1] == 0.51


@pytest.mark.parametrize("ext", [".txt", ".csv", ".tsv", ".json", ".npy"])
@pytest.mark.parametrize("arms", [ARMS, None], ids=["named", "unnamed"])
def test_counts_file_round_trip(tmp_path, ext, arms):
    C = WinCounts(WINS, arms=arms, name="w")
    path = tmp_path / f"w{ext}"
    write_counts(C, path)
    again = read_counts(path)
    assert again == C and again.arms == arms
    assert again.matrix() == C.matrix()


def test_counts_json_checks(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"wins": WINS, "n_comparisons": 31}))
    with pytest.raises(MatrixFileError, match="hold 30 duels"):
        read_counts(path)
    path.write_text(json.dumps({"wins": WINS, "matrix": WINS}))
    with pytest.raises(MatrixFileError, match="not both"):
        read_counts(path)
    path.write_text(json.dumps({"wins": WINS, "arms": list(ARMS), "extra": 1}))
    with pytest.raises(MatrixFileError, match="unknown JSON key"):
        read_counts(path)


@pytest.mark.parametrize("form", ["winner", "outcome"])
@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "ws"])
def test_log_equals_counts(tmp_path, form, fmt):
    """A log and the equivalent counts give identical counts and identical matrices."""
    C = WinCounts(WINS, arms=ARMS, name="w")
    recs = _log_lines(C, form)
    keys = list(recs[0])
    if fmt == "jsonl":
        text = "".join(json.dumps(r) + "\n" for r in recs)
    else:
        sep = {"csv": ",", "tsv": "\t", "ws": " "}[fmt]
        text = sep.join(keys) + "\n" + "".join(sep.join(r[k] for k in keys) + "\n"
                                               for r in recs)
    path = tmp_path / f"log.{fmt}"
    path.write_text(text)
    L = read_comparisons(path)
    counts_file = tmp_path / "w.csv"
    write_counts(C, counts_file)
    K = read_counts(counts_file)
    assert L.arms == K.arms == ARMS  # order of first appearance
    assert L == K and L.matrix() == K.matrix()
    assert L.matrix().arms == K.matrix().arms


def test_log_forms_counts_and_order(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("# duels\nWinner,Loser,Count,query\nz,y,3,q1\ny,z,1,q2\nz,z,4,q3\n")
    L = read_comparisons(path)
    assert L.arms == ("z", "y") and L.wins.tolist() == [[0, 3], [1, 0]]
    assert any("self-comparison" in n for n in L.notes)
    assert any("ignored column(s) query" in n for n in L.notes)
    assert read_comparisons(path, arms=["y", "z"]).wins.tolist() == [[0, 1], [3, 0]]
    path.write_text("winner,loser\n10,2\n2,0\n0,10\n10,0\n")
    assert read_comparisons(path).arms == ("0", "2", "10")  # integer ids: numeric order
    path.write_text("arm_a,arm_b,outcome\nx,y,x\nx,y,0\ny,x,a\nx,y,b\n")
    assert read_comparisons(path).wins.tolist() == [[0, 1], [3, 0]]


@pytest.mark.parametrize("text,fragment", [
    ("a,b\nx,y\n", "needs a header"),
    ("winner,loser,arm_a,arm_b,outcome\n", "several forms"),
    ("winner,loser\n", "only a header"),
    ("", "empty log"),
    ("winner,loser\nx,y,z\n", "3 cells but the header names 2"),
    ("winner,loser,count\nx,y,-2\n", "'-2' is not a non-negative integer"),
    ("winner,loser,count\nx,y,1.5\n", "'1.5' is not a non-negative integer"),
    ("winner,loser,count\nx,y,\u0661\n", "not a non-negative integer"),
    ("winner,loser,count\nx,y,99999999999999999999\n", "is above"),
    ("winner,loser\nx,\n", "empty arm name"),
    ("arm_a,arm_b,outcome\nx,y,maybe\n", "a draw code"),
    ("arm_a,arm_b,outcome\n0,1,1\n", "ambiguous"),
    ("winner,winner\nx,y\n", "repeated column"),
    ("winner,loser\nx,y\ny,x\n", "exactly 1/2"),
    ("winner,loser\nx,y\ny,z\n", "no comparisons of x vs z"),
    ("winner,loser\nx,x\n", "need at least 2"),
])
def test_log_refusals_cli_one_line(tmp_path, capsys, text, fragment):
    path = tmp_path / "log.csv"
    path.write_text(text)
    # a tied or never-compared pair is no error for structure (it answers from the
    # posterior, test_logs.py); simulate needs a ground-truth matrix and refuses it
    undefined = fragment in ("exactly 1/2", "no comparisons of x vs z")
    if undefined:
        assert main(["structure", "--comparisons", str(path)]) == 0
        capsys.readouterr()
    assert main(["simulate" if undefined else "structure", "--comparisons", str(path)]) == 2
    captured = capsys.readouterr()
    errors = [ln for ln in captured.err.splitlines() if "error" in ln]
    assert captured.out == "" and len(errors) == 1 and fragment in errors[0], captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("line,fragment", [
    ('{"winner": "x", "loser": true}', "JSON true"),
    ('{"winner": "x", "loser": 0.5}', "string or an integer"),
    ('{"winner": "x"}', "missing loser"),
    ('[1, 2]', "must be an object"),
    ('{"winner": "x", "loser": "y", "count": "2"}', None),
])
def test_jsonl_refusals(tmp_path, line, fragment):
    path = tmp_path / "log.jsonl"
    path.write_text('{"winner": "y", "loser": "x"}\n' + line + "\n")
    if fragment is None:  # a count given as a string of digits is read like a CSV cell
        assert read_comparisons(path).wins.tolist() == [[0, 1], [2, 0]]
        return
    with pytest.raises(MatrixFileError, match=fragment):
        read_comparisons(path)


def _args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_matrix_arguments(parser)
    return parser.parse_args(argv)


def test_load_counts_api(tmp_path):
    path = tmp_path / "w.csv"
    write_counts(WinCounts(WINS, arms=ARMS), path)
    args = _args(["--counts", str(path), "--name", "mine"])
    C = load_counts(args)
    assert isinstance(C, WinCounts) and C.name == "mine" and C.arms == ARMS
    assert C.wins.tolist() == WINS
    M = load_matrix(args)
    assert M.name == "mine" and M == WinCounts(WINS).matrix()
    assert load_counts(_args(["--example", "cyclic"])) is None


def test_cli_counts_and_comparisons(tmp_path, capsys):
    counts = tmp_path / "w.csv"
    write_counts(WinCounts(WINS, arms=ARMS), counts)
    log = tmp_path / "log.csv"
    log.write_text("winner,loser\n" + "".join(f"{r['winner']},{r['loser']}\n"
                                               for r in _log_lines(WinCounts(WINS, arms=ARMS),
                                                                   "winner")))
    outs = []
    for argv in (["--counts", str(counts)], ["--comparisons", str(log)]):
        assert main(["structure", *argv, "--json", "--name", "x"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0]["copeland_winners_names"] == ["ant"]
    assert main(["table", "--counts", str(counts), "--comparisons", str(log)]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")]
    assert [r.split("|")[1].strip() for r in rows[-2:]] == ["w", "log"]


def test_matrix_that_looks_like_counts_or_percentages(tmp_path, capsys):
    path = tmp_path / "m.txt"
    path.write_text("0 7 9\n3 0 6\n1 4 0\n")
    assert main(["structure", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--counts" in err[0]
    assert main(["structure", "--counts", str(path)]) == 0
    capsys.readouterr()
    path.write_text("50 70 60\n30 50 80\n40 20 50\n")
    assert main(["structure", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "divide every entry by 100" in err[0]
    with pytest.raises(InvalidMatrixError) as info:
        PreferenceMatrix(np.array([[50.0, 70], [30, 50]]))
    assert info.value.kind == "percentages"


def test_cli_prints_reader_notes_once(tmp_path, capsys):
    log = tmp_path / "log.csv"
    log.write_text("winner,loser,t\nx,y,1\ny,z,2\nz,x,3\nx,x,4\nx,y,5\n")
    assert main(["structure", "--comparisons", str(log)]) == 0
    captured = capsys.readouterr()
    notes = captured.err.strip().splitlines()
    assert notes == ["duelbound: note: log: ignored 1 self-comparison(s) (an arm against "
                     "itself carries no information)",
                     "duelbound: note: log: ignored column(s) t"]
    assert "Copeland winners  x, y, z" in captured.out
