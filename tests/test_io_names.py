"""Named arms in matrix files: detection in text, JSON ``"arms"``, .npy sidecars, pandas,
and read → write → read round trips for every format."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duelbound.cli import main
from duelbound.theory import (
    DuelboundError,
    InvalidMatrixError,
    MatrixFileError,
    PreferenceMatrix,
    read_matrix,
    write_matrix,
)
from duelbound.theory.io import sidecar_path

ARMS = ("lex", "bm25", "neural")
VALUES = [[0.5, 0.7, 0.6], [0.3, 0.5, 0.8], [0.4, 0.2, 0.5]]
REF = PreferenceMatrix(VALUES, name="ref", arms=ARMS)


@pytest.mark.parametrize("fname,text", [
    ("header.txt", "lex bm25 neural\n0.5 0.7 0.6\n0.3 0.5 0.8\n0.4 0.2 0.5\n"),
    ("column.txt", "lex 0.5 0.7 0.6\nbm25 0.3 0.5 0.8\nneural 0.4 0.2 0.5\n"),
    ("both.txt", "lex bm25 neural\nlex 0.5 0.7 0.6\nbm25 0.3 0.5 0.8\nneural 0.4 0.2 0.5\n"),
    ("corner.txt", "arm lex bm25 neural\nlex 0.5 0.7 0.6\nbm25 0.3 0.5 0.8\n"
                   "neural 0.4 0.2 0.5\n"),
    ("blank.csv", ",lex,bm25,neural\nlex,0.5,0.7,0.6\nbm25,0.3,0.5,0.8\nneural,0.4,0.2,0.5\n"),
    ("label.csv", "winner\\loser,lex,bm25,neural\nlex,0.5,0.7,0.6\nbm25,0.3,0.5,0.8\n"
                  "neural,0.4,0.2,0.5\n"),
    ("header.csv", "lex,bm25,neural\n0.5,0.7,0.6\n0.3,0.5,0.8\n0.4,0.2,0.5\n"),
    ("tabs.tsv", "\tlex\tbm25\tneural\nlex\t0.5\t0.7\t0.6\nbm25\t0.3\t0.5\t0.8\n"
                 "neural\t0.4\t0.2\t0.5\n"),
    ("semi.dat", "; lex; bm25; neural\nlex; 0.5; 0.7; 0.6\nbm25; 0.3; 0.5; 0.8\n"
                 "neural; 0.4; 0.2; 0.5\n"),
    ("kheader.txt", "# K first\n3\nlex bm25 neural\n0.5 0.7 0.6\n0.3 0.5 0.8\n0.4 0.2 0.5\n"),
    ("a.json", json.dumps({"arms": list(ARMS), "matrix": VALUES})),
])
def test_names_detected(tmp_path, fname, text):
    path = tmp_path / fname
    path.write_text(text)
    M = read_matrix(path)
    assert M == REF and M.arms == ARMS


def test_quoted_csv_names_with_commas(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text(',"BM25, tuned",lex\n"BM25, tuned",0.5,0.7\nlex,0.3,0.5\n')
    assert read_matrix(path).arms == ("BM25, tuned", "lex")


@pytest.mark.parametrize("text,fragment", [
    ("lex bm25\nlex 0.5 0.7\nneural 0.3 0.5\n", "row 1 is 'neural' but column 1 is 'bm25'"),
    ("bm25 lex\nlex 0.5 0.7\nbm25 0.3 0.5\n", "disagree"),
    ("a b c\n0.5 0.7\n0.3 0.5\n", "header has 3 names but the rows have 2"),
    ("lex 0.5 0.7\n0.3 0.5 0.2\n", "'lex' is not a number"),
    ("a a\n0.5 0.7\n0.3 0.5\n", "unique"),
    ("a b\n", "no matrix rows"),
])
def test_name_errors_are_clear(tmp_path, capsys, text, fragment):
    path = tmp_path / "m.txt"
    path.write_text(text)
    with pytest.raises((MatrixFileError, InvalidMatrixError)) as info:
        read_matrix(path)
    assert fragment in str(info.value)
    assert main(["structure", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0]


@pytest.mark.parametrize("data,fragment", [
    ({"matrix": VALUES, "arms": ["a", "b"]}, "2 arm names given for K = 3"),
    ({"matrix": VALUES, "arms": [1, 2, 3]}, "list of strings"),
    ({"matrix": VALUES, "arm": list(ARMS)}, "unknown JSON key(s) 'arm'"),
    ({"matrix": VALUES, "names": list(ARMS)}, "unknown JSON key(s) 'names'"),
    ({"matrix": VALUES, "K": 4}, "'K' is 4"),
    ({"matrix": VALUES, "name": 3}, "'name' must be a string"),
    ({"matrix": VALUES, "sha256": "0" * 64}, "sha256"),
])
def test_json_keys_never_silently_dropped(tmp_path, data, fragment):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    with pytest.raises((MatrixFileError, InvalidMatrixError)) as info:
        read_matrix(path)
    assert fragment in str(info.value)


@pytest.mark.parametrize("ext", [".txt", ".csv", ".tsv", ".dat", ".json", ".npy"])
@pytest.mark.parametrize("arms", [ARMS, None], ids=["named", "unnamed"])
def test_round_trip_every_format(tmp_path, ext, arms):
    M = PreferenceMatrix(VALUES, name="ref", arms=arms)
    path = tmp_path / f"m{ext}"
    write_matrix(M, path)
    again = read_matrix(path)
    assert again == M and again.arms == arms
    np.testing.assert_array_equal(again.values, M.values)  # exact floats
    write_matrix(again, tmp_path / f"n{ext}")
    assert read_matrix(tmp_path / f"n{ext}").arms == arms
    if ext in (".json", ".npy") and arms is not None:
        assert again.name == "ref"


def test_npy_sidecar(tmp_path):
    path = tmp_path / "m.npy"
    write_matrix(REF, path)
    side = sidecar_path(path)
    assert side.endswith("m.arms.json") and json.loads(open(side).read())["arms"] == list(ARMS)
    write_matrix(PreferenceMatrix(VALUES), path)  # unnamed: a stale sidecar is removed
    assert read_matrix(path).arms is None
    (tmp_path / "m.arms.json").write_text('{"arms": ["a"], "extra": 1}')
    with pytest.raises(MatrixFileError, match="sidecar"):
        read_matrix(path)
    (tmp_path / "m.arms.json").write_text('{"arms": ["a", "b"]}')
    with pytest.raises(InvalidMatrixError, match="2 arm names"):
        read_matrix(path)


def test_broken_ties_survive_json(tmp_path):
    M = PreferenceMatrix([[0.5, 0.5], [0.5, 0.5]], arms=("x", "y"), break_ties=0.01)
    write_matrix(M, tmp_path / "t.json")
    again = read_matrix(tmp_path / "t.json")
    assert again.broken_ties == ((0, 1),) and again.tie_epsilon == 0.01 and again == M


@pytest.mark.parametrize("bad", ["1.5", "nan", "a b", "a#b", 'say "hi"'])
def test_unwritable_names_refused(tmp_path, bad):
    M = PreferenceMatrix([[0.5, 0.7], [0.3, 0.5]], arms=(bad, "ok"))
    with pytest.raises(Exception, match="write .json instead"):
        write_matrix(M, tmp_path / "m.txt")
    write_matrix(M, tmp_path / "m.json")
    assert read_matrix(tmp_path / "m.json").arms == (bad.strip(), "ok")


def test_pandas_round_trip():
    pd = pytest.importorskip("pandas")
    df = REF.to_pandas()
    assert list(df.index) == list(ARMS) == list(df.columns) and df.attrs["name"] == "ref"
    back = PreferenceMatrix.from_pandas(df)
    assert back == REF and back.arms == ARMS and back.name == "ref"
    plain = PreferenceMatrix.from_pandas(pd.DataFrame(VALUES))
    assert plain.arms is None
    one_sided = pd.DataFrame(VALUES, columns=list(ARMS))
    assert PreferenceMatrix.from_pandas(one_sided).arms == ARMS
    with pytest.raises(InvalidMatrixError, match="index and columns"):
        PreferenceMatrix.from_pandas(pd.DataFrame(VALUES, index=list(ARMS),
                                                  columns=["lex", "neural", "bm25"]))
    with pytest.raises(InvalidMatrixError, match="numbers"):
        PreferenceMatrix.from_pandas(pd.DataFrame([["0.5", "0.7"], ["0.3", "0.5"]]))


def test_pandas_missing_is_one_clear_error(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "pandas":
            raise ImportError("no pandas")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(Exception, match=r"duelbound\[pandas\]"):
        REF.to_pandas()


def test_cli_name_override_and_names_in_structure(tmp_path, capsys):
    path = tmp_path / "m.csv"
    write_matrix(REF, path)
    assert main(["structure", str(path), "--name", "renamed", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "renamed" and data["arms"] == list(ARMS)
    assert data["copeland_winners"] == [0] and data["copeland_winners_names"] == ["lex"]
    assert data["condorcet_winner_name"] == "lex"
    assert data["hamiltonian_path_names"] == [ARMS[i] for i in data["hamiltonian_path"]]
    assert data["losses_by_arm"] == {"lex": 0, "bm25": 1, "neural": 2}
    assert main(["structure", str(path)]) == 0
    out = capsys.readouterr().out
    assert "lex, bm25, neural" not in out  # winners only
    assert "Copeland winners  lex  [0]" in out and "Hamiltonian path  lex > bm25 > neural" in out
    assert main(["structure", "--example", "cyclic", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["arms"] is None and data["top_cycle_names"] == ["0"]


def test_name_needs_one_matrix(capsys):
    assert main(["table", "--example", "cyclic", "--example", "arithmetic", "--name", "x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--name needs exactly one matrix" in err[0]


@settings(max_examples=40)
@given(names=st.lists(st.text(min_size=1, max_size=6), min_size=2, max_size=3, unique=True),
       ext=st.sampled_from([".txt", ".csv", ".tsv", ".json", ".npy"]))
def test_random_names_round_trip_or_clear_refusal(tmp_path_factory, names, ext):
    """Any names: written and read back identical, or refused with a DuelboundError."""
    try:
        M = PreferenceMatrix([[0.5, 0.7, 0.6], [0.3, 0.5, 0.8], [0.4, 0.2, 0.5]][:len(names)]
                             if len(names) == 3 else [[0.5, 0.7], [0.3, 0.5]], arms=names)
    except DuelboundError:
        return  # blank or (after stripping) repeated names
    path = tmp_path_factory.mktemp("names") / f"m{ext}"
    try:
        write_matrix(M, path)
    except DuelboundError as exc:
        assert ext in (".txt", ".csv", ".tsv") and "write .json instead" in str(exc)
        return
    again = read_matrix(path)
    assert again == M and again.arms == M.arms
