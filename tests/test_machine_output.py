"""Every machine-readable output, produced by a real ``duelbound`` process, parses.

In-process tests (``capsys``) only see what Python writes to ``sys.stdout``; a solver
library that writes to file descriptor 1 itself (highspy ≥ 1.16 prints a banner when a
``Highs`` object is constructed) is invisible to them.  Here every command with a
machine-readable mode runs as a subprocess and its stdout goes straight to its parser:
``json.loads``, ``csv``, pdflatex, a BibTeX entry scan.  With the descriptor-level guard
of :mod:`duelbound.solvers.quiet` removed and highspy 1.16 installed, the LP-solving
cases fail.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PDFLATEX = shutil.which("pdflatex")


def run_cli(*argv: str, cwd: Path, ok_codes: tuple[int, ...] = (0,)) -> str:
    """stdout of ``python -m duelbound ARGV`` (stderr only shown on failure)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("DUELBOUND_SOLVER_OUTPUT", None)
    res = subprocess.run([sys.executable, "-m", "duelbound", *argv], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300,
                         stdin=subprocess.DEVNULL)
    assert res.returncode in ok_codes, f"exit {res.returncode}: {res.stderr[-2000:]}"
    return res.stdout


def parse_json(text: str) -> object:
    return json.loads(text)  # the whole stdout: one document, nothing before or after


def parse_csv(text: str) -> list[dict]:
    assert "\r" not in text, "one line ending (LF) throughout"
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows, "no CSV rows"
    width = len(rows[0])
    assert all(len(r) == width and None not in r for r in rows), "ragged CSV"
    return rows


def parse_bibtex(text: str) -> list[str]:
    body = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("%")]
    assert body and body[0].startswith("@"), f"not BibTeX: {body[:1]}"
    keys = re.findall(r"^@\w+\{([^,]+),", text, flags=re.M)
    assert keys
    return keys


def compile_latex(text: str, workdir: Path) -> None:
    # Outside pdflatex, at least the first line must be LaTeX (a comment or a command).
    first = next(ln for ln in text.splitlines() if ln.strip())
    assert first.lstrip().startswith(("%", "\\")), f"not LaTeX: {first!r}"
    if not PDFLATEX:
        return
    (workdir / "doc.tex").write_text("\n".join([
        r"\documentclass[10pt]{article}", r"\usepackage{booktabs}",
        r"\usepackage{graphicx}", r"\begin{document}", text, r"\end{document}", ""]))
    res = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                         cwd=workdir, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout[-2000:]


CASES = [
    ("bounds-json", ["bounds", "--example", "cyclic", "--json"], parse_json),
    ("bounds-json-rowgen", ["bounds", "--example", "mslr5", "--json", "--method", "rowgen",
                            "--certify-mode", "interval"], parse_json),
    ("table-json", ["table", "--example", "cyclic", "--format", "json"], parse_json),
    ("table-csv", ["table", "--example", "cyclic", "--example", "multi_winner",
                   "--format", "csv"], parse_csv),
    ("table-latex", ["table", "--example", "cyclic", "--format", "latex"], "latex"),
    ("structure-json", ["structure", "--example", "cyclic", "--json"], parse_json),
    ("simulate-json", ["simulate", "--example", "cyclic", "--algorithms", "rucb,rmed1",
                       "--T", "2000", "--runs", "2", "--json", "-", "--quiet"], parse_json),
    ("check-claims-json", ["check-claims", "--n", "4", "--claim", "k16-th5", "--claim",
                           "k16-th6-ineq", "--json", "--quiet"], parse_json),
    ("datasets-json", ["datasets", "--json"], parse_json),
    ("cite", ["cite"], parse_bibtex),
]


@pytest.mark.parametrize("argv, parser", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_stdout_parses(argv, parser, tmp_path):
    out = run_cli(*argv, cwd=tmp_path)
    if parser == "latex":
        compile_latex(out, tmp_path)
    else:
        assert parser(out)


def test_verify_json_to_stdout_parses(tmp_path):
    # INCONCLUSIVE (exit 3) is a legitimate verdict at this tiny horizon; the point is
    # that the report on stdout is one JSON document.
    out = run_cli("verify", "rucb", "--only", "cyclic", "--T", "2000", "--runs", "2",
                  "--json", "-", "--quiet", cwd=tmp_path, ok_codes=(0, 1, 3))
    report = parse_json(out)
    assert report["algorithm"] == "rucb"


def test_sweep_and_report_outputs_parse(tmp_path):
    store = "bounds.sqlite"
    summary = parse_json(run_cli("sweep", "--example", "cyclic", "--example", "mslr5",
                                 "--bounds-only", "--store", store, "--workers", "1",
                                 "--json", "--quiet", cwd=tmp_path))
    assert summary["completed"] == 2
    tables = parse_json(run_cli("sweep-report", store, "--format", "json", cwd=tmp_path))
    assert tables
    rows = parse_csv(run_cli("sweep-report", store, "--format", "csv", cwd=tmp_path))
    assert {r["matrix"] for r in rows} == {"cyclic", "mslr5"}
    compile_latex(run_cli("sweep-report", store, "--format", "latex", cwd=tmp_path), tmp_path)


def test_api_solves_write_nothing_to_file_descriptor_1(capfd):
    # An API user who writes JSON to their own stdout must not find solver chatter in it.
    from duelbound.solvers import ecw_bound, lower_bound
    from duelbound.theory import datasets

    M = datasets.load("cyclic")
    lower_bound(M)
    lower_bound(M, method="rowgen", certify="interval")
    ecw_bound(M)
    out = capfd.readouterr().out
    assert out == "", f"solver output on fd 1: {out[:200]!r}"


def test_guard_restores_descriptor_1_and_is_reentrant(capfd):
    from duelbound.solvers.quiet import solver_stdout_guard

    os.write(1, b"before\n")
    with solver_stdout_guard():
        os.write(1, b"hidden-1\n")
        with solver_stdout_guard():
            os.write(1, b"hidden-2\n")
        os.write(1, b"hidden-3\n")
    os.write(1, b"after\n")
    assert capfd.readouterr().out == "before\nafter\n"


def test_guard_can_send_solver_output_to_stderr(capfd, monkeypatch):
    from duelbound.solvers.quiet import solver_stdout_guard

    monkeypatch.setenv("DUELBOUND_SOLVER_OUTPUT", "stderr")
    with solver_stdout_guard():
        os.write(1, b"solver says hi\n")
    out, err = capfd.readouterr()
    assert out == "" and "solver says hi" in err
