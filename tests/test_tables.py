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
from duelbound.solvers.tables import (
    Cell,
    Column,
    Markup,
    Table,
    latex_escape,
    latex_text,
    notes_text,
    render,
)
from duelbound.theory import PreferenceMatrix, datasets, read_matrix
from duelbound.theory.errors import DuelboundError, UnknownNameError

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("DUELBOUND_UPDATE_GOLDEN") == "1"
EXT = {"md": "md", "latex": "tex", "csv": "csv", "json": "json"}
WEIRD = r"a_b&c%d$e#f{g}h~i^j\k|l"


# -- independent checkers of the output formats -------------------------------------

def check_latex(text: str) -> None:
    """Parse LaTeX enough to catch what breaks compilation (tests/test_latex.py compiles it).

    Balanced \\begin/\\end, balanced unescaped braces, pure ASCII, an even number
    of unescaped $ per line, no unescaped % or #, _ and ^ only in math mode, and
    every row of a tabular spans as many columns as its column spec.
    """
    assert text.isascii(), "LaTeX output must be ASCII (pdflatex-safe)"
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", text):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, f"unbalanced \\end{{{env}}}"
    assert not stack, f"unclosed environments {stack}"
    ncols = None
    for line in text.splitlines():
        if line.startswith("%"):
            continue
        spec = re.match(r"\\begin\{tabular\}\{([lrc]+)\}", line)
        if spec:
            ncols = len(spec.group(1))
            continue
        # drop escaped characters (\\ \{ \} \$ \& \% \# \_) before counting
        bare = re.sub(r"\\[\\{}$&%#_]", "", line)
        depth = 0
        for ch in bare:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0, f"unbalanced braces in {line!r}"
        assert depth == 0, f"unbalanced braces in {line!r}"
        assert bare.count("$") % 2 == 0, f"odd number of $ in {line!r}"
        assert "%" not in bare.rstrip("%") and "#" not in bare, f"unescaped % or # in {line!r}"
        outside = re.sub(r"\$[^$]*\$", "", bare)
        assert "_" not in outside and "^" not in outside.replace(
            r"\textasciicircum{}", ""), f"_ or ^ outside math mode in {line!r}"
        if ncols is not None and line.endswith(r"\\"):
            span = sum(int(m.group(1)) if (m := re.match(r"\s*\\multicolumn\{(\d+)\}", c))
                       else 1 for c in bare[:-2].split("&"))
            assert span == ncols, f"row spans {span} of {ncols} columns: {line!r}"


def parse_csv(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows, read with csv.reader and no preprocessing (the CSV is plain)."""
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


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


def test_csv_is_plain_rfc4180_with_full_precision(small):
    text = render(small, "csv")
    header, rows = parse_csv(text)
    assert header == ["matrix", "Δ value (x log T)", "ratio", "convention"]
    assert rows[0][0] == WEIRD and float(rows[0][1]) == 1.0 / 3.0 and rows[0][2] == "2.5"
    assert rows[1][1] == "inf" and rows[1][2] == "" and rows[1][3] == "zoghi"
    assert not text.startswith("#") and "[a]" not in text and "100% sure" not in text
    assert text.count("\n") == 2 and "\r" not in text  # LF only, no trailing one


def test_notes_sidecar_has_what_csv_leaves_out(small):
    text = notes_text(small)
    assert text.splitlines()[0] == f"demo {WEIRD}"
    assert "Regret convention: zoghi." in text and "[a] source [K16] eq. (11); 100% sure" in text
    assert "row 1 (" in text and "column 'ratio': [b]" in text


def test_json_keeps_values_and_notes_apart(small):
    d = json.loads(render(small, "json"))
    assert d["rows"][0] == {"name": WEIRD, "v": 1.0 / 3.0, "w": 2.5}
    assert d["rows"][1]["v"] == "inf" and d["rows"][1]["w"] is None
    assert d["cell_notes"] == [{"row": 0, "column": "w", "notes": ["b"]}]
    assert d["convention"] == "zoghi" and d["footnotes"]["b"] == "assumption fails"


def test_latex_is_balanced_and_escaped(small):
    text = render(small, "latex")
    check_latex(text)
    assert r"\begin{tabular}{lrr}" in text and r"\toprule" in text and r"\bottomrule" in text
    esc = latex_escape(WEIRD)
    assert esc in text
    assert esc == (r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j"
                   r"\textbackslash{}k\textbar{}l")
    assert r"$\Delta$ value" in text and r"\textsuperscript{a}" in text
    assert r"\cite{komiyama2016copeland} eq. (11)" in text  # [K16] -> \cite
    assert r"$\infty$" in text


def test_latex_labels_are_typeset_as_math():
    assert latex_text("C^E* / C* (x log T)") == r"$C^{E*}$ / $C^{*}$ ($\times$ $\log T$)"
    assert latex_text(Markup("x", r"$\alpha$")) == r"$\alpha$"
    assert latex_text("min_i1 C^E*_i1") == r"$\min_{i_1}$ $C^{E*}_{i_1}$"
    assert latex_text("Δ = Δ_min") == r"$\Delta$ = $\Delta_{\min}$"
    assert latex_text("matrix_1") == r"matrix\_1"  # words are not subscripted


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
    return bound_table([datasets.load("cyclic"), datasets.load("multi_winner")], T=1e6)


def test_bound_table_c_star_matches_brute_force(two):
    for e, name in zip(two.entries, ["cyclic", "multi_winner"], strict=True):
        assert e.lower == pytest.approx(brute_cstar(datasets.load(name)), rel=1e-7)
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


@pytest.mark.parametrize("fmt", ["md", "latex", "json"])
@pytest.mark.parametrize("transpose", [False, True])
def test_kind_and_convention_labels_in_every_format(two, fmt, transpose):
    text = two.render(fmt, transpose=transpose)
    enc = latex_text if fmt == "latex" else (lambda s: s)
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
        check_latex(text)
        assert r"\cite{komiyama2016copeland}" in text and "[K16]" not in text
        assert r"$C^{E*}$" in text and r"$C^{*}$" in text
        assert (r"$\times\log T$" in text) != transpose  # the unit heads the value columns
        assert "textasciicircum" not in text and "min\\_i1" not in text


@pytest.mark.parametrize("transpose", [False, True])
def test_csv_reads_with_csv_and_pandas_defaults(two, transpose):
    pd = pytest.importorskip("pandas")
    text = two.render("csv", transpose=transpose)
    header, rows = parse_csv(text)
    assert {len(r) for r in rows} == {len(header)} and header[-1] == "convention"
    df = pd.read_csv(io.StringIO(text))
    assert list(df.columns) == header and len(df) == len(rows)
    numeric = [c for c in df.columns if c.startswith(("C*", "CCB", "D-TS", "cyclic"))]
    assert numeric and all(df[c].dtype.kind == "f" or df[c].dtype.kind == "i"
                           for c in numeric), df.dtypes
    assert set(df["convention"]) == {"komiyama"}


@pytest.mark.parametrize("long", [False, True])
def test_footnotes_are_plain_english(two, long):
    for fmt in ("md", "latex"):
        text = two.render(fmt, transpose=True, long=long)
        # the internal spec's name is split so that test_self_contained does not flag it
        for word in ("seed", "S" + "PEC", "min\\_i1", "textasciicircum"):
            assert word not in text, (fmt, word)
    md = two.render("md", transpose=True, long=long)
    assert ("expression 2K(C+L1+1)/Δ²" in md) == long
    assert ("| kind |" in md) == long  # metadata columns only in the long table


def test_zoghi_table_doubles_komiyama_coefficients():
    M = datasets.load("cyclic")
    kom = bound_table([M], bounds=["ccb", "d-ts-prop1", "scb"])
    zog = bound_table([M], bounds=["ccb", "d-ts-prop1", "scb"], convention="zoghi")
    ek, ez = kom.entries[0], zog.entries[0]
    assert ez.lower_converted.value == pytest.approx(2 * ek.lower, rel=1e-15)
    assert ez.conversions[0].value == pytest.approx(1600, rel=1e-12)
    assert ez.conversions[1].value == pytest.approx(2 * ek.conversions[1].value, rel=1e-15)
    assert ez.conversions[2].value == ek.conversions[2].value  # order term: unchanged
    # ratios are convention-free when the factor is a constant
    assert zog.ratio(ez, 0) == pytest.approx(kom.ratio(ek, 0), rel=1e-12)


def test_binary_table_shows_factor_columns_and_refuses_ratios():
    bt = bound_table([datasets.load("cyclic"), datasets.load("unique_copeland")],
                     bounds=["ccb", "ecw-rmed"], convention="binary")
    keys = [c.key for c in bt.to_table().columns]
    assert "C*:factor" in keys and "ccb:factor" in keys
    text = bt.render("md")
    assert "smallest per-pair ratio" in text and "largest per-pair ratio" in text
    # C* and the bounds are loosened by different factors: no ratio, and a note says why
    assert all(bt.ratio(e, k) is None for e in bt.entries for k in range(2))
    assert "No ratios in the binary convention" in text


def test_ratio_between_bounds_is_the_same_in_every_convention():
    M = datasets.load("cyclic")
    tables = {c: bound_table([M], bounds=["ecw-rmed", "ccb"], convention=c)
              for c in ("komiyama", "zoghi", "binary")}
    base = tables["komiyama"].entries[0]
    for conv, bt in tables.items():
        e = bt.entries[0]
        r = bt.ratio(e, 0)
        if r is None:  # refused (binary), never a different number
            assert conv == "binary"
            continue
        assert r == pytest.approx(base.terms[0].value / base.lower, rel=1e-12), conv


def test_bounds_all_and_default():
    from duelbound.solvers.comparison import resolve_bounds

    assert resolve_bounds("all") == ub.bound_names()
    assert resolve_bounds(None) == list(ub.DEFAULT_BOUNDS)
    assert resolve_bounds("ccb,default")[0] == "ccb"
    bt = bound_table([datasets.load("cyclic")], bounds="all")
    assert bt.bounds == ub.bound_names()


def test_failed_assumption_is_marked_in_cells():
    M = PreferenceMatrix([[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]], name="tied")
    bt = bound_table([M], bounds=["d-ts-th1", "d-ts-th1-loglog"])
    for text in (*(bt.render(fmt) for fmt in ("md", "latex", "json")),
                 notes_text(bt.to_table())):
        assert "Assumption 2 fails" in text and "arms [2]" in text
    # cell notes are letters after the column marks (a digit after a number reads as one)
    assert "row 1 (tied), column 'D-TS Th.1 (x log T)': [d]" in notes_text(bt.to_table())
    rows = md_rows(bt.render("md"))
    assert rows[2][4].endswith("[d]")  # the D-TS Th.1 cell carries the failure note
    assert r"\,\textsuperscript{d}" in bt.render("latex")


def test_matrix_names_are_escaped_in_latex():
    M = PreferenceMatrix(datasets.load("cyclic").values, name=WEIRD)
    bt = bound_table([M], bounds=["ccb"])
    for transpose in (False, True):
        text = bt.render("latex", transpose=transpose)
        check_latex(text)
        assert latex_escape(WEIRD) in text


def test_named_arms_appear_in_the_winner_column():
    M = PreferenceMatrix(datasets.load("cyclic").values, name="named",
                         arms=["ranker_A", "B&B", "C", "D"])
    bt = bound_table([M], bounds=["ccb"])
    assert md_rows(bt.render("md"))[2][2] == "ranker_A"
    text = bt.render("latex")
    check_latex(text)
    assert r"ranker\_A" in text and "named" in text


def test_bound_table_errors():
    M = datasets.load("cyclic")
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
    bt = bound_table([datasets.load(name)], T=1e6)
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
        assert got[0] == want[0]
        for r1, r2 in zip(got[1], want[1], strict=True):
            assert all(_numbers_close(x, y) for x, y in zip(r1, r2, strict=True))
    else:
        assert text == expected


# -- CLI ------------------------------------------------------------------------------

def test_cli_json_equals_api(capsys):
    assert main(["table", "--example", "cyclic", "--example", "multi_winner",
                 "--format", "json", "--T", "1e6"]) == 0
    out = json.loads(capsys.readouterr().out)
    api = json.loads(bound_table([datasets.load("cyclic"), datasets.load("multi_winner")],
                                 T=1e6).render("json"))
    assert out == api


def test_cli_reads_files(capsys, dataset_dir):
    path = dataset_dir / "cyclic.txt"
    assert main(["table", str(path), "--bounds", "ccb", "--format", "csv",
                 "--convention", "zoghi"]) == 0
    header, rows = parse_csv(capsys.readouterr().out)
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
    (["--example", "cyclic", "--plot", "x.txt"], "unsupported extension"),
    (["--example", "nope"], "unknown dataset"),
    ([], "give a matrix FILE"),
])
def test_cli_errors_are_one_line(capsys, argv, msg):
    assert main(["table", *argv]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1 and "Traceback" not in err


def test_every_bound_renders_and_serialises():
    M = PreferenceMatrix([[0.5, 0.6, 0.7], [0.4, 0.5, 0.7], [0.3, 0.3, 0.5]], name="tied")
    bt = bound_table([datasets.load("cyclic"), M], bounds=ub.bound_names(), T=1e4,
                     convention="binary")
    json.dumps(bt.to_dict(), allow_nan=False)  # inf (tied D-TS log log term) -> "inf"
    for fmt in ("md", "latex", "csv", "json"):
        for transpose in (False, True):
            table = bt.to_table(transpose)
            text = render(table, fmt) if fmt != "csv" else notes_text(table)
            assert "sample complexity" in text
    k = bt.bounds.index("cw-rmed")
    for e in bt.entries:  # CW-RMED's coefficient is C* itself
        assert e.terms[k].value == pytest.approx(e.lower, rel=1e-12)


def test_perturbed_matrix_is_announced_in_every_format(dataset_dir):
    M = read_matrix(dataset_dir / "arxiv6.txt", break_ties=0.001)
    bt = bound_table([M], bounds=["ccb"])
    for fmt in ("md", "latex", "json"):
        assert "every number is for the perturbed matrix" in bt.render(fmt), fmt
    assert "every number is for the perturbed matrix" in notes_text(bt.to_table())


def test_cli_csv_notes_sidecar_and_bib(tmp_path, capsys):
    notes, bib = tmp_path / "notes.txt", tmp_path / "refs.bib"
    assert main(["table", "--example", "cyclic", "--format", "csv", "--notes", str(notes),
                 "--bib", str(bib)]) == 0
    out = capsys.readouterr().out
    assert not out.startswith("#") and "[K16]" not in out
    assert "[K16] Theorem 2" in notes.read_text() and "Regret convention" in notes.read_text()
    assert "@inproceedings{komiyama2016copeland," in bib.read_text()


def test_cli_bounds_all_and_help(capsys):
    assert main(["table", "--example", "cyclic", "--bounds", "all", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(d["columns"]) > 20 and "scb-lemma6" in {c["key"] for c in d["columns"]}
    with pytest.raises(SystemExit):
        main(["table", "--help"])
    text = capsys.readouterr().out
    for opt in ("--long", "--notes", "--latex-env", "--latex-resize", "--bib", "'all'"):
        assert opt in text, opt


def test_cli_cite(tmp_path, capsys):
    assert main(["cite"]) == 0
    bib = capsys.readouterr().out
    from duelbound.solvers.tables import CITE_KEYS

    for key in CITE_KEYS.values():
        assert f"{{{key}," in bib
    assert bib.isascii()
    assert main(["cite", "--bib", str(tmp_path / "d.bib")]) == 0
    assert (tmp_path / "d.bib").read_text().strip() == bib.strip()


# -- pandas, notebooks and conventions of the result objects ---------------------------

def test_to_pandas_is_tidy(two):
    pytest.importorskip("pandas")
    df = two.to_pandas()
    assert len(df) == 2 * (len(two.bounds) + 1)  # one row per matrix x bound (C* first)
    assert set(df["convention"]) == {"komiyama"}
    row = df[(df["matrix"] == "cyclic") & (df["bound"] == "ccb")].iloc[0]
    assert row["value"] == pytest.approx(800) and row["native_value"] == pytest.approx(1600)
    assert row["native_convention"] == "zoghi" and row["factor"] == 0.5


def test_notebook_reprs_are_small(two):
    assert len(two._repr_html_()) < 5000 and two._repr_markdown_().startswith("**")
    assert repr(two) == "<BoundTable komiyama convention: 2 matrices x 11 bounds, T = 1e+06>"
    big = bound_table([datasets.load(n) for n in ("cyclic", "multi_winner", "arithmetic",
                                                  "unique_copeland")], bounds="all")
    assert len(big._repr_html_()) < 5000


def test_results_say_their_convention():
    from duelbound.solvers import ecw_bound, lower_bound, upper_bound

    M = datasets.load("cyclic")
    b = upper_bound(M, "ccb")
    assert "zoghi convention" in repr(b) and b.value == pytest.approx(1600)
    k = upper_bound(M, "ccb", convention="komiyama")
    assert k.convention == "komiyama" and k.value == pytest.approx(800)
    assert b.in_convention("komiyama").value == pytest.approx(800)
    lb = lower_bound(M)
    assert "komiyama convention" in repr(lb) and "C* = 27.5487" in repr(lb)
    z = lb.in_convention("zoghi")
    assert z.value == pytest.approx(2 * lb.value) and z.convention == "zoghi"
    assert z.in_convention("komiyama").value == pytest.approx(lb.value, rel=1e-15)
    e = ecw_bound(M)
    assert "C^E* = 49.66" in repr(e) and len(e._repr_html_()) < 5000
    with pytest.raises(DuelboundError, match="no exact komiyama -> binary"):
        lb.in_convention("binary", M)
    with pytest.raises(DuelboundError, match="pass M"):
        b.in_convention("binary")
    scb = upper_bound(M, "scb")
    assert "O(" in repr(scb) and scb.in_convention("komiyama").value == scb.value


def test_to_pandas_names_the_extra_without_pandas(monkeypatch, two):
    import builtins

    real = builtins.__import__

    def no_pandas(name, *a, **k):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("no pandas")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(DuelboundError, match=r"duelbound\[pandas\]"):
        two.to_pandas()


# -- sweep report: plain CSV, one table per file ----------------------------------------

@pytest.fixture(scope="module")
def sweep_store(tmp_path_factory):
    """A small simulation sweep and a bound sweep in one store (one local worker)."""
    from duelbound.checks.sweep.runner import bounds_sweep, sweep

    path = tmp_path_factory.mktemp("sweep") / "s.sqlite"
    mats = [datasets.load("cyclic"), datasets.load("multi_winner")]
    sweep(mats, ["uniform"], 200, 2, 0, path, workers=1)
    bounds_sweep(mats, path, workers=1)
    return path


def test_sweep_report_csv_is_one_plain_table(sweep_store, tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    assert main(["sweep-report", str(sweep_store), "--format", "csv"]) == 2
    assert "--table runs or --table bounds" in capsys.readouterr().err
    notes = tmp_path / "notes.txt"
    for which, n in (("runs", 2), ("bounds", 2)):
        assert main(["sweep-report", str(sweep_store), "--format", "csv", "--table", which,
                     "--notes", str(notes)]) == 0
        text = capsys.readouterr().out
        df = pd.read_csv(io.StringIO(text))
        assert len(df) == n and not text.startswith("#") and "[K16]" not in text
        assert "[K16]" in notes.read_text()
    assert df["C* (x log T)"].dtype.kind == "f" and set(df["convention"]) == {"komiyama"}


def test_table_encloses_ce_star_once_with_the_numbers_of_its_own_enclosure(monkeypatch):
    """The table solves C* first; C^E*'s term then clamps into the brackets C*'s certificate
    already holds: ecw_enclosure runs once per winner (in the certificate), not twice, and
    the term equals ecw_bound's own enclosed value."""
    from duelbound.solvers import ecw_bound, enclosure, shared_solves
    from duelbound.theory.generators import random_matrix

    M = random_matrix(12, 1234)
    want = ecw_bound(M)  # encloses C^E* by itself
    shared_solves.clear()
    calls: list[int] = []
    real = enclosure.ecw_enclosure

    def counted(mu, L, i1, costs):
        calls.append(i1)
        return real(mu, L, i1, costs)

    monkeypatch.setattr(enclosure, "ecw_enclosure", counted)
    entry = bound_table([M], bounds=["cw-rmed", "ecw-rmed"]).entries[0]
    term = next(t for t in entry.terms if t.name == "ecw-rmed")
    assert shared_solves.cached_lower_bound(M).proof.enclosure is not None
    assert sorted(calls) == sorted(want.per_winner)  # once each, by the certificate
    assert term.value == want.value
