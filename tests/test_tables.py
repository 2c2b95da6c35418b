"""Table machinery (Markdown / LaTeX / CSV / JSON), bound tables, golden files and the CLI.

Golden files live in tests/golden/.  Their numbers were checked by hand against the
papers' formulas (see the hand derivations in tests/test_upper_bounds.py and
docs/bounds.md) before being written; regenerate after an intended change with

    DUELBOUND_UPDATE_GOLDEN=1 pytest tests/test_tables.py

and review the diff.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from pathlib import Path

import pytest
from test_upper_bounds import brute_cstar

from duelbound.cli import main
from duelbound.solvers import bound_terms as ub
from duelbound.solvers.comparison import bound_table
from duelbound.solvers.tables import Cell, Column, Table, latex_escape, render
from duelbound.theory import PreferenceMatrix, examples, read_matrix
from duelbound.theory.errors import DuelboundError, UnknownNameError

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("DUELBOUND_UPDATE_GOLDEN") == "1"
EXT = {"md": "md", "latex": "tex", "csv": "csv", "json": "json"}
WEIRD = r"a_b&c%d$e#f{g}h~i^j\k|l"


# -- independent checkers of the output formats -------------------------------------

def check_latex(text: str, ncols: int | None = None) -> None:
    """Parse LaTeX enough to catch what breaks compilation.

    Balanced \\begin/\\end, balanced unescaped braces, pure ASCII, an even number
    of unescaped $ per line, no unescaped % or #, _ and ^ only in math mode, and
    (with ``ncols``) ncols − 1 unescaped & per tabular row.
    """
    assert text.isascii(), "LaTeX output must be ASCII (pdflatex-safe)"
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", text):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, f"unbalanced \\end{{{env}}}"
    assert not stack, f"unclosed environments {stack}"
    for line in text.splitlines():
        if line.startswith("%"):
            continue
        # drop escaped characters (\\ \{ \} \$ \& \% \# \_) before counting
        bare = re.sub(r"\\[\\{}$&%#_]", "", line)
        depth = 0
        for ch in bare:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0, f"unbalanced braces in {line!r}"
        assert depth == 0, f"unbalanced braces in {line!r}"
        assert bare.count("$") % 2 == 0, f"odd number of $ in {line!r}"
        assert "%" not in bare and "#" not in bare, f"unescaped % or # in {line!r}"
        outside = re.sub(r"\$[^$]*\$", "", bare)
        assert "_" not in outside and "^" not in outside.replace(
            r"\textasciicircum{}", ""), f"_ or ^ outside math mode in {line!r}"
        if ncols is not None and line.endswith(r"\\") and "&" in bare:
            assert bare.count("&") == ncols - 1, f"wrong number of & in {line!r}"


def parse_csv(text: str) -> tuple[list[str], list[list[str]], list[str]]:
    comments = [ln[2:] for ln in text.splitlines() if ln.startswith("# ")]
    rows = list(csv.reader(io.StringIO("\n".join(
        ln for ln in text.splitlines() if not ln.startswith("#")))))
    return rows[0], rows[1:], comments


def md_rows(text: str) -> list[list[str]]:
    out = []
    for ln in text.splitlines():
        if ln.startswith("|"):
            cells = re.split(r"(?<!\\)\|", ln)[1:-1]
            out.append([c.strip() for c in cells])
    return out


# -- generic Table ----------------------------------------------------------------

@pytest.fixture
def small():
    return Table(
        title=f"demo {WEIRD}",
        columns=[Column("name", "matrix", align="l"),
                 Column("v", "Δ value", unit="x log T", notes=("a",)),
                 Column("w", "ratio", fmt=".3g")],
        rows=[{"name": WEIRD, "v": 1.0 / 3.0, "w": Cell(2.5, notes=("b",))},
              {"name": "plain", "v": math.inf, "w": None}],
        footnotes={"a": "source [K16] eq. (11); 100% sure", "b": "assumption fails"},
        convention="zoghi", notes=["a note"])


def test_markdown_is_a_well_formed_pipe_table(small):
    text = render(small, "md")
    rows = md_rows(text)
    assert len(rows) == 4 and {len(r) for r in rows} == {3}
    assert rows[2][0] == WEIRD.replace("|", r"\|") and rows[2][2] == "2.5 [b]"
    assert rows[3][1] == "inf" and rows[3][2] == "—"
    assert "Regret convention: zoghi." in text and "[a] source" in text


def test_csv_round_trips_full_precision(small):
    header, rows, comments = parse_csv(render(small, "csv"))
    assert header == ["matrix", "Δ value (x log T) [a]", "ratio"]
    assert rows[0][0] == WEIRD and float(rows[0][1]) == 1.0 / 3.0 and rows[0][2] == "2.5 [b]"
    assert rows[1][1] == "inf" and rows[1][2] == ""
    assert "Regret convention: zoghi." in comments
    assert "[a] source [K16] eq. (11); 100% sure" in comments


def test_json_keeps_values_and_notes_apart(small):
    d = json.loads(render(small, "json"))
    assert d["rows"][0] == {"name": WEIRD, "v": 1.0 / 3.0, "w": 2.5}
    assert d["rows"][1]["v"] == "inf" and d["rows"][1]["w"] is None
    assert d["cell_notes"] == [{"row": 0, "column": "w", "notes": ["b"]}]
    assert d["convention"] == "zoghi" and d["footnotes"]["b"] == "assumption fails"


def test_latex_is_balanced_and_escaped(small):
    text = render(small, "latex")
    check_latex(text, ncols=3)
    assert r"\begin{tabular}{lrr}" in text and r"\toprule" in text and r"\bottomrule" in text
    esc = latex_escape(WEIRD)
    assert esc in text
    assert esc == (r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j"
                   r"\textbackslash{}k\textbar{}l")
    assert r"$\Delta$ value" in text and r"\textsuperscript{a}" in text


def test_latex_escape_makes_unknown_unicode_ascii():
    assert latex_escape("é") == "e" and latex_escape("漢") == "?"
    assert latex_escape("Δ_min ≥ ε²") == r"$\Delta$\_min $\geq$ $\varepsilon^2$"
    assert latex_escape("§4 $$") == r"\S{}4 \$\$"


def test_table_rejects_inconsistent_data():
    with pytest.raises(DuelboundError, match="undefined footnotes"):
        Table("t", [Column("a", "a", notes=("x",))], [])
    with pytest.raises(DuelboundError, match="no column"):
        Table("t", [Column("a", "a")], [{"b": 1}])
    with pytest.raises(DuelboundError, match="duplicate"):
        Table("t", [Column("a", "a"), Column("a", "b")], [])
    with pytest.raises(UnknownNameError, match="md, latex, csv, json"):
        render(Table("t", [Column("a", "a")], []), "html")


# -- bound tables ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def two():
    return bound_table([examples.load("cyclic"), examples.load("multi_winner")], T=1e6)


def test_bound_table_c_star_matches_brute_force(two):
    for e, name in zip(two.entries, ["cyclic", "multi_winner"], strict=True):
        assert e.lower == pytest.approx(brute_cstar(examples.load(name)), rel=1e-7)
        assert e.certificate == "exact"


def test_ratios_and_horizon(two):
    log_t = math.log(1e6)
    e = two.entries[0]
    k = two.bounds.index("ccb")
    assert two.ratio(e, k) == pytest.approx(800 / e.lower, rel=1e-12)
    assert two.at_T(e, k) == pytest.approx(800 * log_t, rel=1e-12)
    k = two.bounds.index("d-ts-th1-loglog")
    assert two.ratio(e, k) is None  # log log T coefficient: no ratio to C*
    assert two.at_T(e, k) == pytest.approx(e.terms[k].value * math.log(log_t), rel=1e-12)
    for k, name in enumerate(two.bounds):
        if e.terms[k].kind == ub.KIND_ORDER:
            assert two.ratio(e, k) is None and two.at_T(e, k) is None, name


@pytest.mark.parametrize("fmt", ["md", "latex", "csv", "json"])
@pytest.mark.parametrize("transpose", [False, True])
def test_kind_and_convention_labels_in_every_format(two, fmt, transpose):
    text = two.render(fmt, transpose=transpose)
    enc = latex_escape if fmt == "latex" else (lambda s: s)
    for kind in ub.KINDS:
        assert enc(kind) in text, (fmt, kind)
    for conv in ("komiyama", "zoghi"):
        assert enc(f"native convention {conv}") in text, (fmt, conv)
    if fmt == "json":
        assert json.loads(text)["convention"] == "komiyama"
    else:
        assert enc("Regret convention: komiyama.") in text
    assert enc("zoghi -> komiyama: x0.5 (exact)") in text
    for t in two.entries[0].terms:
        assert enc(t.source) in text, (fmt, t.name)
    if fmt == "latex":
        ncols = len(two.to_table(transpose).columns)
        check_latex(text, ncols=ncols)


def test_zoghi_table_doubles_komiyama_coefficients():
    M = examples.load("cyclic")
    kom = bound_table([M], bounds=["ccb", "d-ts-prop1", "scb"])
    zog = bound_table([M], bounds=["ccb", "d-ts-prop1", "scb"], convention="zoghi")
    ek, ez = kom.entries[0], zog.entries[0]
    assert ez.lower_converted.value == pytest.approx(2 * ek.lower, rel=1e-15)
    assert ez.conversions[0].value == pytest.approx(1600, rel=1e-12)
    assert ez.conversions[1].value == pytest.approx(2 * ek.conversions[1].value, rel=1e-15)
    assert ez.conversions[2].value == ek.conversions[2].value  # order term: unchanged
    # ratios are convention-free when the factor is a constant
    assert zog.ratio(ez, 0) == pytest.approx(kom.ratio(ek, 0), rel=1e-12)


def test_binary_table_shows_factor_columns():
    bt = bound_table([examples.load("cyclic"), examples.load("unique_copeland")],
                     bounds=["ccb"], convention="binary")
    keys = [c.key for c in bt.to_table().columns]
    assert "C*:factor" in keys and "ccb:factor" in keys
    text = bt.render("md")
    assert "smallest per-pair ratio" in text and "largest per-pair ratio" in text


def test_failed_assumption_is_marked_in_cells():
    M = PreferenceMatrix([[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]], name="tied")
    bt = bound_table([M], bounds=["d-ts-th1", "d-ts-th1-loglog"])
    for fmt in ("md", "latex", "csv", "json"):
        text = bt.render(fmt)
        assert "Assumption 2 fails" in text and "arms [2]" in text, fmt
    rows = md_rows(bt.render("md"))
    assert rows[2][3].endswith("[1]")  # the D-TS Th.1 cell carries the failure note


def test_matrix_names_are_escaped_in_latex():
    M = PreferenceMatrix(examples.load("cyclic").values, name=WEIRD)
    bt = bound_table([M], bounds=["ccb"])
    for transpose in (False, True):
        text = bt.render("latex", transpose=transpose)
        check_latex(text, ncols=len(bt.to_table(transpose).columns))
        assert latex_escape(WEIRD) in text


def test_bound_table_errors():
    M = examples.load("cyclic")
    with pytest.raises(DuelboundError, match="at least one matrix"):
        bound_table([])
    with pytest.raises(DuelboundError, match="not both"):
        bound_table([M], T=100, log_T=3)
    with pytest.raises(DuelboundError, match="T must be"):
        bound_table([M], T=2)
    with pytest.raises(UnknownNameError):
        bound_table([M], convention="regret")
    with pytest.raises(UnknownNameError):
        bound_table([M], bounds=["ccb", "nope"])


# -- golden files -------------------------------------------------------------------

def _numbers_close(a: str, b: str) -> bool:
    """Equal, or both numbers within 1e-9 relative (LP round-off across platforms)."""
    if a == b:
        return True
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except ValueError:
        return False


def _json_close(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and math.isclose(a, b, rel_tol=1e-9))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(
            _json_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(
            _json_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.mark.parametrize("fmt", ["md", "latex", "csv", "json"])
@pytest.mark.parametrize("name", ["cyclic", "multi_winner"])
def test_golden(name, fmt):
    bt = bound_table([examples.load(name)], T=1e6)
    text = bt.render(fmt) + "\n"
    path = GOLDEN / f"bounds_{name}.{EXT[fmt]}"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    expected = path.read_text()
    if fmt == "json":
        assert _json_close(json.loads(text), json.loads(expected))
    elif fmt == "csv":
        got, want = parse_csv(text), parse_csv(expected)
        assert got[0] == want[0] and got[2] == want[2]
        for r1, r2 in zip(got[1], want[1], strict=True):
            assert all(_numbers_close(x, y) for x, y in zip(r1, r2, strict=True))
    else:
        assert text == expected


# -- CLI ------------------------------------------------------------------------------

def test_cli_json_equals_api(capsys):
    assert main(["table", "--example", "cyclic", "--example", "multi_winner",
                 "--format", "json", "--T", "1e6"]) == 0
    out = json.loads(capsys.readouterr().out)
    api = json.loads(bound_table([examples.load("cyclic"), examples.load("multi_winner")],
                                 T=1e6).render("json"))
    assert out == api


def test_cli_reads_files(capsys, dataset_dir):
    path = dataset_dir / "cyclic.txt"
    assert main(["table", str(path), "--bounds", "ccb", "--format", "csv",
                 "--convention", "zoghi"]) == 0
    header, rows, _ = parse_csv(capsys.readouterr().out)
    col = next(i for i, h in enumerate(header) if h.startswith("CCB Th.3 ("))
    assert float(rows[0][col]) == pytest.approx(1600, rel=1e-12)
    assert rows[0][0] == read_matrix(path).name == "cyclic"


@pytest.mark.parametrize("ext", ["png", "svg"])
def test_cli_plot(tmp_path, capsys, ext):
    out = tmp_path / f"bounds.{ext}"
    assert main(["table", "--example", "cyclic", "--example", "unique_copeland",
                 "--plot", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG") if ext == "png" else b"<svg" in data


def test_plot_is_log_scale_and_labels_order_terms(two):
    fig = two.plot()
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "C* (lower bound)" in labels
    assert any("order term, no constant" in lab for lab in labels)
    assert not any("loglog" in lab for lab in labels)  # log log T terms are left out


@pytest.mark.parametrize("argv, msg", [
    (["--example", "cyclic", "--bounds", "nope"], "unknown bound"),
    (["--example", "cyclic", "--T", "1"], "T must be"),
    (["--example", "cyclic", "--alpha", "0.4"], "alpha must be > 0.5"),
    (["--example", "cyclic", "--plot", "x.txt"], "cannot plot"),
    (["--example", "nope"], "unknown example"),
    ([], "give a matrix FILE"),
])
def test_cli_errors_are_one_line(capsys, argv, msg):
    assert main(["table", *argv]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1 and "Traceback" not in err


def test_every_bound_renders_and_serialises():
    M = PreferenceMatrix([[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]], name="tied")
    bt = bound_table([examples.load("cyclic"), M], bounds=ub.bound_names(), T=1e4,
                     convention="binary")
    json.dumps(bt.to_dict(), allow_nan=False)  # inf (tied D-TS log log term) -> "inf"
    for fmt in ("md", "latex", "csv", "json"):
        for transpose in (False, True):
            text = bt.render(fmt, transpose=transpose)
            assert "sample complexity" in text
    k = bt.bounds.index("cw-rmed")
    for e in bt.entries:  # CW-RMED's coefficient is C* itself
        assert e.terms[k].value == pytest.approx(e.lower, rel=1e-12)


def test_perturbed_matrix_is_announced_in_every_format(dataset_dir):
    M = read_matrix(dataset_dir / "arxiv6.txt", break_ties=0.001)
    bt = bound_table([M], bounds=["ccb"])
    for fmt in ("md", "latex", "csv", "json"):
        assert "every number is for the perturbed matrix" in bt.render(fmt), fmt
