"""Every LaTeX output of the package, compiled by pdflatex (and bibtex) in an article page.

A table passes when pdflatex reports no error and no box is overfull by more
than 1 pt: the table fits the \\textwidth of a 10pt article (345 pt), or of
its two-column form for ``table*``.  One document with all of them is also run
through bibtex: every citation resolves against the package's own bibliography
(``duelbound cite``).

Without pdflatex these tests are skipped, except in CI (env ``CI`` set), where a
missing pdflatex is a failure.  Install: ``apt-get install texlive-latex-base
texlive-latex-recommended``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from duelbound.cli import main
from duelbound.solvers.tables import TEXTWIDTH_PT, LatexStyle, bibliography, latex_layout

PDFLATEX = shutil.which("pdflatex")
BIBTEX = shutil.which("bibtex")

if not (PDFLATEX and BIBTEX):
    if os.environ.get("CI"):
        pytest.fail("pdflatex and bibtex are required in CI (texlive-latex-base, "
                    "texlive-latex-recommended)", pytrace=False)
    pytest.skip("pdflatex/bibtex not installed", allow_module_level=True)

THREE = ["--example", "cyclic", "--example", "multi_winner", "--example", "arithmetic"]
NAMED = ["--example", "mslr5", "--example", "arxiv6", "--break-ties", "1e-3"]

#: (id, argv of `duelbound table`, fits one page): the cases the paper-facing output handles.
#: Every case must compile without an overfull line; the ones marked False are too tall
#: for one page, and the CLI must say so on stderr.
TABLE_CASES = [
    ("one-matrix", ["--example", "cyclic"], True),
    ("one-matrix-T", ["--example", "cyclic", "--T", "1e6"], True),
    ("three-transposed", [*THREE, "--transpose"], True),
    ("three-transposed-4-bounds", [*THREE, "--transpose", "--bounds",
                                   "ecw-rmed,ccb,d-ts-prop1,d-ts-th1"], True),
    ("three-by-matrix", THREE, True),
    ("named-arms", NAMED, True),
    ("zoghi-transposed", ["--example", "cyclic", "--transpose", "--convention", "zoghi"], True),
    ("table-star-T", [*THREE, "--transpose", "--T", "1e6", "--latex-env", "table*"], True),
    ("resize", [*THREE, "--latex-resize"], True),
    ("no-float", ["--example", "cyclic", "--transpose", "--latex-env", "none"], True),
    ("one-matrix-long", ["--example", "cyclic", "--long"], False),
    ("three-transposed-T", [*THREE, "--transpose", "--T", "1e6"], False),
    ("three-transposed-long", [*THREE, "--transpose", "--long"], False),
    ("binary", ["--example", "cyclic", "--example", "unique_copeland", "--convention",
                "binary"], False),
    ("all-bounds", ["--example", "cyclic", "--bounds", "all", "--T", "1e4"], False),
]


def _document(body: str, twocolumn: bool, bib: bool) -> str:
    opts = "twocolumn,10pt" if twocolumn else "10pt"
    return "\n".join([
        rf"\documentclass[{opts}]{{article}}",
        r"\usepackage{booktabs}", r"\usepackage{graphicx}",
        r"\begin{document}", body,
        *([r"\bibliographystyle{plain}", r"\bibliography{refs}"] if bib else []),
        r"\end{document}", ""])


def compile_latex(body: str, workdir: Path, twocolumn: bool = False, bib: bool = False) -> str:
    """Compile ``body``; return the log; fail on any TeX error.

    With ``bib`` the package's bibliography is added and the full pdflatex,
    bibtex, pdflatex, pdflatex cycle is run; every citation must resolve.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "refs.bib").write_text(bibliography())
    (workdir / "doc.tex").write_text(_document(body, twocolumn, bib))

    def run(*cmd: str) -> None:
        res = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, f"{cmd[0]} failed:\n{res.stdout[-3000:]}"

    latex = (PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
    run(*latex)
    if bib:
        run(BIBTEX, "doc")
        run(*latex)
        run(*latex)
        blg = (workdir / "doc.blg").read_text(errors="replace")
        assert "error message" not in blg and "Warning--" not in blg, blg
    log = (workdir / "doc.log").read_text(errors="replace")
    if bib:
        assert not re.search(r"Citation .* undefined", log), "a \\cite did not resolve"
    return log


def overfull(log: str) -> list[float]:
    """Widths (pt) of the overfull boxes reported in a pdflatex log."""
    return [float(w) for w in re.findall(r"Overfull \\[hv]box \(([\d.]+)pt too", log)]


def _table_latex(argv: list[str], capsys) -> tuple[str, str]:
    assert main(["table", *argv, "--format", "latex"]) == 0
    out = capsys.readouterr()
    return out.out, out.err


@pytest.mark.parametrize("argv, fits", [c[1:] for c in TABLE_CASES],
                         ids=[c[0] for c in TABLE_CASES])
def test_table_compiles_and_fits_the_page(argv, fits, tmp_path, capsys):
    body, err = _table_latex(argv, capsys)
    log = compile_latex(body, tmp_path, twocolumn="table*" in argv)
    widths = overfull(log)
    assert not [w for w in widths if w > 1.0], f"overfull boxes: {widths}"
    if fits:  # neither too wide nor too tall, and the CLI did not warn
        assert "warning" not in err, err
        assert "Float too large" not in log
    else:  # too tall for a page: the CLI says so and how to split it
        assert "tall, more than the 550 pt of a page" in err and "--long" in err, err


def test_every_citation_resolves_against_the_bibliography(tmp_path, capsys):
    """All the table cases in one document, with bibtex: every \\cite has its entry."""
    bodies = [_table_latex(argv, capsys)[0] for _, argv, _ in TABLE_CASES
              if "table*" not in argv]
    log = compile_latex("\n\\clearpage\n".join(bodies), tmp_path, bib=True)
    assert "LaTeX Error" not in log
    bbl = (tmp_path / "doc.bbl").read_text()
    for key in ("komiyama2016copeland", "zoghi2015copeland", "wu2016double", "urvoy2013generic"):
        assert f"\\bibitem{{{key}}}" in bbl, key


def test_warning_when_a_table_cannot_fit(tmp_path, capsys):
    """A target narrower than one column group cannot be met: the CLI says so and why."""
    body, err = _table_latex(["--example", "cyclic", "--latex-width", "120"], capsys)
    assert "wider" in err or "more than the 120 pt" in err
    assert "--transpose" in err and "--bounds" in err


def test_layout_estimate_matches_tex(tmp_path, capsys):
    """The width estimate that decides the panels is within 10 % of TeX's, never below it."""
    from duelbound.render.latex import _tex_tabular
    from duelbound.solvers.comparison import bound_table
    from duelbound.theory import datasets

    tables = [bound_table([datasets.load("cyclic")]).to_table(),
              bound_table([datasets.load(n) for n in ("cyclic", "multi_winner", "arithmetic")],
                          T=1e6).to_table(transpose=True)]
    body, estimates = [], []
    for t in tables:
        lay = latex_layout(t, LatexStyle(width=1e5))  # one panel: the whole table
        for cols in lay.panels:
            body.append(r"\sbox0{\small\setlength{\tabcolsep}{4pt}" + "\n".join(
                _tex_tabular(t, cols)) + r"}\typeout{WIDTH=\the\wd0}")
        estimates += lay.widths
    log = compile_latex("\n".join(body), tmp_path)
    real = [float(w) for w in re.findall(r"WIDTH=([\d.]+)pt", log)]
    assert len(real) == len(estimates)
    for est, tex in zip(estimates, real, strict=True):
        assert tex <= est <= 1.1 * tex, (est, tex)  # never below TeX: panels never overflow


def test_the_default_target_is_the_article_textwidth(tmp_path):
    log = compile_latex(r"\typeout{TW=\the\textwidth}", tmp_path)
    assert f"TW={TEXTWIDTH_PT:g}.0pt" in log


@pytest.fixture(scope="module")
def sweep_store(tmp_path_factory):
    """A small simulation sweep and a bound sweep in one store (one local worker)."""
    from duelbound.checks.sweep.runner import bounds_sweep, sweep
    from duelbound.theory import datasets

    path = tmp_path_factory.mktemp("sweep") / "s.sqlite"
    mats = [datasets.load("cyclic"), datasets.load("multi_winner")]
    sweep(mats, ["uniform", "ecw-rmed"], 300, 2, 0, path, workers=1)
    bounds_sweep(mats, path, workers=1)
    return path


@pytest.mark.parametrize("extra", [[], ["--convention", "zoghi"], ["--latex-resize"]],
                         ids=["default", "zoghi", "resize"])
def test_sweep_report_compiles_and_fits_the_page(sweep_store, extra, tmp_path, capsys):
    assert main(["sweep-report", str(sweep_store), "--format", "latex", *extra]) == 0
    out = capsys.readouterr()
    assert "warning" not in out.err, out.err
    log = compile_latex(out.out, tmp_path)
    widths = overfull(log)
    assert not [w for w in widths if w > 1.0], f"overfull boxes: {widths}"
    assert "Float too large" not in log
