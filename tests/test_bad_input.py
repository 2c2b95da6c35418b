"""Bad-input corpus: every error class gives its own clear message, from the API and the CLI.

Each case is a file (text, JSON or .npy) or an array; the API must raise the package's
exception type with a message naming the problem, and ``duelbound structure`` must exit
with code 2 and print exactly one line on stderr, with no traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from duelbound.cli import main
from duelbound.theory import InvalidMatrixError, MatrixFileError, PreferenceMatrix, TieError
from duelbound.theory.io import read_matrix

GOOD = "0.5 0.7\n0.3 0.5\n"

# (case id, file name, file content (str/bytes) or an array for .npy, exception, message fragment)
TEXT_CASES = [
    ("empty-file", "m.txt", "", MatrixFileError, "empty file"),
    ("only-comments", "m.txt", "# nothing\n# here\n", MatrixFileError, "no matrix rows"),
    ("whitespace-only", "m.txt", "   \n\t\n", MatrixFileError, "no matrix rows"),
    ("ragged-rows", "m.txt", "0.5 0.6 0.6\n0.4 0.5\n0.4 0.4 0.5\n", MatrixFileError, "ragged"),
    ("text-cell", "m.txt", "0.5 abc\n0.3 0.5\n", MatrixFileError, "'abc' is not a number"),
    ("header-mismatch", "m.txt", "3\n0.5 0.7\n0.3 0.5\n", MatrixFileError, "says K = 3"),
    ("header-words", "m.txt", "K = 2\n0.5 0.7\n0.3 0.5\n", MatrixFileError, "not a number"),
    ("non-square", "m.txt", "0.5 0.7 0.2\n0.3 0.5 0.1\n", InvalidMatrixError, "square"),
    ("single-row", "m.txt", "0.5 0.7\n", InvalidMatrixError, "square"),
    ("K-1", "m.txt", "0.5\n", InvalidMatrixError, "at least K = 2"),
    ("nan", "m.txt", "0.5 nan\n0.3 0.5\n", InvalidMatrixError, "non-finite"),
    ("inf", "m.txt", "0.5 inf\n0.3 0.5\n", InvalidMatrixError, "non-finite"),
    ("negative", "m.txt", "0.5 1.2\n-0.2 0.5\n", InvalidMatrixError, "outside [0, 1]"),
    ("above-one", "m.txt", "0.5 1.5\n0.5 0.5\n", InvalidMatrixError, "outside [0, 1]"),
    ("not-complementary", "m.txt", "0.5 0.7\n0.4 0.5\n", InvalidMatrixError, "must be 1"),
    ("both-win", "m.txt", "0.5 0.5000000001\n0.5000000001 0.5\n", InvalidMatrixError,
     "disagree"),
    ("diagonal", "m.txt", "0.4 0.7\n0.3 0.5\n", InvalidMatrixError, "diagonal"),
    ("tie", "m.txt", "0.5 0.5\n0.5 0.5\n", TieError, "ties"),
    ("tie-in-larger", "m.csv", "0.5,0.6,0.7\n0.4,0.5,0.5\n0.3,0.5,0.5\n", TieError, "(1,2)"),
    ("binary-garbage", "m.txt", b"\x89PNG\r\n\x1a\n\x00\x00", MatrixFileError, "not"),
    ("latin1", "m.txt", "0.5 0.7 \xe9\n".encode("latin-1"), MatrixFileError, "not a text file"),
    ("json-bad-syntax", "m.json", "{\"matrix\": [[0.5, 0.7], [0.3 0.5]]}", MatrixFileError,
     "invalid JSON"),
    ("json-no-key", "m.json", json.dumps({"values": [[0.5]]}), MatrixFileError, "'matrix'"),
    ("json-scalar", "m.json", "42", MatrixFileError, "object with 'matrix'"),
    ("json-ragged", "m.json", json.dumps({"matrix": [[0.5, 0.7], [0.3]]}), MatrixFileError,
     "ragged"),
    ("json-strings", "m.json", json.dumps([["0.5", "x"], ["0.3", "0.5"]]), MatrixFileError,
     "not a number"),
    ("json-3d", "m.json", json.dumps([[[0.5]]]), InvalidMatrixError, "2-dimensional"),
    ("npy-1d", "m.npy", np.array([0.5, 0.5]), InvalidMatrixError, "2-dimensional"),
    ("npy-object", "m.npy", np.array([[0.5, None], [None, 0.5]], dtype=object),
     MatrixFileError, ".npy"),
    ("npy-corrupt", "m.npy", b"\x93NUMPY garbage", MatrixFileError, ".npy"),
    # reader hardening: each refused with one clear line
    ("npy-empty-0x0", "m.npy", np.zeros((0, 0)), MatrixFileError, "empty .npy array"),
    ("npy-empty-1d", "m.npy", np.zeros(0), MatrixFileError, "empty .npy array"),
    ("npy-0d", "m.npy", np.array(0.5), InvalidMatrixError, "2-dimensional"),
    ("npy-complex", "m.npy", np.array([[0.5, 0.7], [0.3, 0.5]], dtype=complex), MatrixFileError,
     "complex"),
    ("npy-bool", "m.npy", np.eye(2, dtype=bool), MatrixFileError, "boolean"),
    ("npy-string", "m.npy", np.array([["0.5", "0.7"], ["0.3", "0.5"]]), MatrixFileError,
     "string"),
    ("npy-structured", "m.npy", np.zeros((2, 2), dtype=[("x", "f8")]), MatrixFileError,
     "structured"),
    ("npy-datetime", "m.npy", np.zeros((2, 2), dtype="datetime64[s]"), MatrixFileError,
     "datetime"),
    ("npz-as-npy", "m.npy", b"PK\x03\x04" + b"\x00" * 40, MatrixFileError, "not a .npy file"),
    ("json-deep", "m.json", "[" * 1000 + "]" * 1000, MatrixFileError, "nested too deeply"),
    ("json-deep-dict", "m.json", '{"matrix":' * 1000 + "1" + "}" * 1000, MatrixFileError,
     "nested too deeply"),
    ("json-int-1e309", "m.json", "[[0.5, 1" + "0" * 309 + "], [0.3, 0.5]]", MatrixFileError,
     "310 digits is too large"),
    ("json-int-5000-digits", "m.json", "[[0.5, " + "7" * 5000 + "], [0.3, 0.5]]",
     MatrixFileError, "5000 digits"),
    ("json-float-overflow", "m.json", "[[0.5, 1e400], [0.3, 0.5]]", InvalidMatrixError,
     "non-finite"),
    ("json-NaN", "m.json", "[[0.5, NaN], [0.3, 0.5]]", InvalidMatrixError, "non-finite"),
    ("json-true", "m.json", "[[0.5, true], [false, 0.5]]", MatrixFileError,
     "JSON true is not a number"),
    ("json-null", "m.json", "[[0.5, null], [0.3, 0.5]]", MatrixFileError, "null"),
    ("json-number-string", "m.json", json.dumps({"matrix": [[0.5, "0.7"], [0.3, 0.5]]}),
     MatrixFileError, "the string '0.7' is not a number"),
    ("json-flat", "m.json", "[0.5, 0.5]", MatrixFileError, "list of rows"),
    ("json-unknown-key", "m.json", json.dumps({"matrix": [[0.5, 0.7], [0.3, 0.5]],
                                               "arm_names": ["a", "b"]}), MatrixFileError,
     "unknown JSON key(s) 'arm_names'"),
    ("text-arabic-digits", "m.txt", "0.5 \u0660.\u0667\n0.3 0.5\n", MatrixFileError,
     "is not a number"),
    ("text-fullwidth-digits", "m.txt", "0.5 \uff10.\uff17\n0.3 0.5\n", MatrixFileError,
     "is not a number"),
    ("text-underscore", "m.txt", "0.5 0.7_0\n0.3 0.5\n", MatrixFileError, "'0.7_0' is not a"),
    ("text-hex", "m.txt", "0.5 0x1\n0.3 0.5\n", MatrixFileError, "'0x1' is not a number"),
    ("text-fraction", "m.txt", "0.5 7/10\n0.3 0.5\n", MatrixFileError, "'7/10' is not a"),
    ("text-empty-cell", "m.csv", "0.5,,0.7\n0.3,0.5\n", MatrixFileError, "empty cell"),
    ("text-infinity", "m.txt", "0.5 Infinity\n0.3 0.5\n", InvalidMatrixError, "non-finite"),
    ("explicit-tie", "m.txt", "0.5 0.5 0.7\n0.5 0.5 0.6\n0.3 0.4 0.5\n", TieError, "(0,1)"),
    ("one-sided-tie", "m.txt", "0.5 0.5\n0.5000000001 0.5\n", InvalidMatrixError,
     "one-sided tie at (0,1)"),
    ("one-sided-tie-below", "m.txt", "0.5 0.4999999999\n0.5 0.5\n", InvalidMatrixError,
     "one-sided tie"),
    ("percentages", "m.txt", "50 70\n30 50\n", InvalidMatrixError, "divide every entry by 100"),
    ("looks-like-counts", "m.txt", "0 7\n3 0\n", InvalidMatrixError, "--counts FILE"),
]


def _write(tmp_path, fname, content):
    path = tmp_path / fname
    if isinstance(content, np.ndarray):
        np.save(path, content, allow_pickle=True)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def test_corpus_is_large_enough():
    assert len(TEXT_CASES) + len(ARRAY_CASES) >= 60


@pytest.mark.parametrize("case,fname,content,exc,fragment", TEXT_CASES,
                         ids=[c[0] for c in TEXT_CASES])
def test_bad_file_api_error(tmp_path, case, fname, content, exc, fragment):
    path = _write(tmp_path, fname, content)
    with pytest.raises(exc) as info:
        read_matrix(path)
    assert fragment in str(info.value)


@pytest.mark.parametrize("case,fname,content,exc,fragment", TEXT_CASES,
                         ids=[c[0] for c in TEXT_CASES])
def test_bad_file_cli_one_line(tmp_path, capsys, case, fname, content, exc, fragment):
    path = _write(tmp_path, fname, content)
    assert main(["structure", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert fragment in lines[0]
    assert "Traceback" not in err


ARRAY_CASES = [
    ("list-ragged", [[0.5, 0.6], [0.4]], InvalidMatrixError, "rectangular"),
    ("empty-list", [], InvalidMatrixError, "empty"),
    ("string-cells", [["a", "b"], ["c", "d"]], InvalidMatrixError, "numbers"),
    ("huge-K", np.broadcast_to(0.5, (10_001, 10_001)), InvalidMatrixError, "exceeds"),
    ("near-tie-complement", [[0.5, 0.6], [0.4 + 2e-9, 0.5]], InvalidMatrixError, "must be 1"),
    ("tie-3", [[0.5, 0.5, 0.9], [0.5, 0.5, 0.9], [0.1, 0.1, 0.5]], TieError, "(0,1)"),
]


@pytest.mark.parametrize("case,values,exc,fragment", ARRAY_CASES,
                         ids=[c[0] for c in ARRAY_CASES])
def test_bad_array_api_error(case, values, exc, fragment):
    with pytest.raises(exc) as info:
        PreferenceMatrix(values)
    assert fragment in str(info.value)


def test_error_names_every_offending_entry_kind():
    with pytest.raises(InvalidMatrixError) as info:
        PreferenceMatrix([[0.5, 0.7, 0.2], [0.3, 0.5, 0.6], [0.8, 0.1, 0.5]])
    # (1, 2): 0.6 + 0.1 != 1 is the only bad pair
    assert info.value.kind == "not-complementary"
    assert info.value.entries == [(1, 2)]


def test_huge_npy_refused_before_loading(tmp_path):
    path = tmp_path / "huge.npy"
    arr = np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=(10_001, 10_001))
    del arr  # sparse file: nothing was written
    with pytest.raises(InvalidMatrixError, match="exceeds"):
        read_matrix(path)


@pytest.mark.parametrize("target", ["missing.txt", "."])
def test_unreadable_paths(tmp_path, capsys, target):
    path = tmp_path / target
    with pytest.raises(MatrixFileError):
        read_matrix(path)
    assert main(["structure", str(path)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_cli_subprocess_bad_input_no_traceback(tmp_path):
    """The installed console script itself, not just main(): one line, exit 2."""
    path = _write(tmp_path, "m.txt", "0.5 nan\n0.3 0.5\n")
    proc = subprocess.run([sys.executable, "-m", "duelbound", "structure", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "non-finite" in proc.stderr


def test_cli_usage_errors_are_one_line(capsys):
    assert main(["structure", "--example", "no-such-example"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cyclic" in err
    with pytest.raises(SystemExit) as info:
        main(["structure", "--no-such-flag"])
    assert info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["structure"]) == 2
    assert "give a matrix FILE" in capsys.readouterr().err


def test_good_file_formats_agree(tmp_path):
    """Whitespace, CSV, TSV, header-K, JSON object, bare JSON list and .npy all read alike."""
    ref = PreferenceMatrix([[0.5, 0.7], [0.3, 0.5]])
    variants = {
        "a.txt": GOOD,
        "b.csv": "0.5,0.7\n0.3,0.5\n",
        "c.tsv": "0.5\t0.7\n0.3\t0.5\n",
        "d.txt": "# comment\n2\n0.5 0.7  # trailing comment\n\n0.3 0.5\n",
        "e.json": json.dumps({"matrix": [[0.5, 0.7], [0.3, 0.5]], "name": "pair"}),
        "f.json": json.dumps([[0.5, 0.7], [0.3, 0.5]]),
        "g.npy": np.array([[0.5, 0.7], [0.3, 0.5]]),
        "h.dat": "0.5; 0.7\n0.3; 0.5\n",
    }
    for fname, content in variants.items():
        M = read_matrix(_write(tmp_path, fname, content))
        assert M == ref, fname
    assert read_matrix(tmp_path / "e.json").name == "pair"


# -- files that are not regular files, or too large: refused before a byte is read ---------
def _special(tmp_path, kind):
    import os

    if kind == "symlink-loop":
        os.symlink(tmp_path / "b.txt", tmp_path / "a.txt")
        os.symlink(tmp_path / "a.txt", tmp_path / "b.txt")
        return tmp_path / "a.txt", "symlink loop"
    if kind == "fifo":
        os.mkfifo(tmp_path / "m.txt")  # opening it for reading must not hang
        return tmp_path / "m.txt", "not a regular file"
    if kind == "fifo-npy":
        os.mkfifo(tmp_path / "m.npy")
        return tmp_path / "m.npy", "not a regular file"
    if kind == "dev-zero":
        return "/dev/zero", "not a regular file"
    if kind == "dev-null-json":
        return "/dev/null", "not a regular file"
    raise AssertionError(kind)


SPECIAL = ["symlink-loop", "fifo", "fifo-npy", "dev-zero", "dev-null-json"]


@pytest.mark.parametrize("kind", SPECIAL)
def test_special_files_refused(tmp_path, capsys, kind):
    import os

    path, fragment = _special(tmp_path, kind)
    if not os.path.exists("/dev/zero") and kind.startswith("dev"):
        pytest.skip("no /dev/zero here")
    with pytest.raises(MatrixFileError, match=fragment):
        read_matrix(path)
    for option in ([], ["--counts"], ["--comparisons"]):
        assert main(["structure", *option, str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1 and fragment in err


def test_size_cap_refused_before_reading(tmp_path, capsys, monkeypatch):
    from duelbound.theory import io

    path = tmp_path / "big.txt"
    path.write_text(GOOD * 100)
    monkeypatch.setattr(io, "MAX_TEXT_BYTES", 100)
    opened = []
    monkeypatch.setattr(io.os, "fdopen", lambda *a, **k: opened.append(a) or open(*a, **k))
    with pytest.raises(MatrixFileError, match="file too large .* limit"):
        read_matrix(path)
    assert opened == []  # refused on fstat, before the content was read
    assert main(["structure", str(path)]) == 2
    assert "too large" in capsys.readouterr().err
    monkeypatch.setattr(io, "MAX_NPY_BYTES", 100)
    np.save(tmp_path / "big.npy", np.full((10, 10), 0.5))
    with pytest.raises(MatrixFileError, match="too large"):
        read_matrix(tmp_path / "big.npy")


def test_default_caps_are_documented_values():
    from duelbound.theory import io

    assert io.MAX_TEXT_BYTES == 256 * 1024 * 1024
    assert io.MAX_NPY_BYTES > 10_000 * 10_000 * 8
    assert io.MAX_INT_DIGITS == 308


def test_near_half_is_never_turned_into_a_tie_or_away_from_one():
    """Canonicalisation keeps explicit ties ties and near-ties near-ties (never mixes them)."""
    M = PreferenceMatrix([[0.5, 0.5 + 1e-12], [0.5 - 1e-12, 0.5]])
    assert M[0, 1] > 0.5 > M[1, 0]
    with pytest.raises(TieError):
        PreferenceMatrix([[0.5, 0.5], [0.5, 0.5]], atol=1e-3)
    with pytest.raises(InvalidMatrixError, match="one-sided"):
        PreferenceMatrix([[0.5, 0.5], [0.4999, 0.5]], atol=1e-3)


@pytest.mark.parametrize("shape,fragment", [((10**12,), "2-dimensional"),
                                            ((9000, 9000), "truncated .npy"),
                                            ((3, 3), "truncated .npy")])
def test_npy_header_lies_refused_before_allocating(tmp_path, capsys, shape, fragment):
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False,
                                               "shape": shape})
    path = tmp_path / "m.npy"
    path.write_bytes(buf.getvalue() + b"\0" * 16)
    with pytest.raises((MatrixFileError, InvalidMatrixError), match=fragment):
        read_matrix(path)
    assert main(["structure", "--counts", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0]
