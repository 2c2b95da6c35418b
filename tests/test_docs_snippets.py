"""Every fenced ```python block of README.md and docs/*.md runs as a script, and every
```console block runs its commands and prints what the doc shows.

Each python block runs in its own interpreter, in a fresh temporary folder (files it writes
land there), with a 5-minute limit.  A console block is a transcript: ``$ duelbound ...``
lines (``\\`` continues a line), each followed by the output the doc promises, compared
like a doctest (``...`` stands for any text, whitespace runs are equal); the commands run in
a fresh folder with the repository importable (as from its root, where the README's
``examples.*`` are meant to be run), and must exit 0 unless the line ends in
``# exit N`` (a FAIL that the doc means, e.g. ``verify`` on an inconsistent algorithm);
a command shown without output has only its exit code checked.
The info string after ```python or ```console may carry markers:

* ``no-run`` — a fragment that is not meant to run (it names variables defined elsewhere,
  or files the reader has); used sparingly;
* ``slow`` — runs only with ``pytest -m slow`` (e.g. a block that starts a Dask cluster).

A block that starts worker processes (Dask, multiprocessing with spawn) needs the
``if __name__ == "__main__":`` guard that a script needs; running it as a script is what
checks that the guard is there.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_FENCES = {lang: re.compile(rf"^```{lang}(?P<info>[^\n]*)\n(?P<body>.*?)^```\s*$", re.M | re.S)
           for lang in ("python", "console")}


def _blocks(lang: str = "python") -> list:
    params = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for m in _FENCES[lang].finditer(text):
            info = m.group("info").split()
            if "no-run" in info:
                continue
            line = text.count("\n", 0, m.start()) + 1
            ident = f"{path.relative_to(REPO)}:{line}"
            marks = [pytest.mark.slow] if "slow" in info else []
            params.append(pytest.param(m.group("body"), id=ident, marks=marks))
    return params


def test_the_docs_have_python_blocks():
    assert len(_blocks()) >= 5


@pytest.mark.parametrize("code", _blocks())
def test_python_block_runs_as_a_script(code, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"the block failed:\n{code}\n--- stderr ---\n" \
                                 f"{proc.stderr[-3000:]}"


def _transcript(block: str) -> list[tuple[str, int, str]]:
    """(command, expected exit code, expected output) of every ``$`` line of a block."""
    steps: list[tuple[str, int, str]] = []
    lines = block.splitlines()
    k = 0
    while k < len(lines):
        if not lines[k].startswith("$ "):
            raise AssertionError(f"output before any command: {lines[k]!r}")
        command = lines[k][2:]
        while command.endswith("\\"):
            k += 1
            command = command[:-1] + lines[k].strip()
        k += 1
        out = []
        while k < len(lines) and not lines[k].startswith("$ "):
            out.append(lines[k])
            k += 1
        code = re.search(r"#\s*exit (\d+)", command)
        want = "\n".join(out).strip("\n")
        steps.append((command, int(code.group(1)) if code else 0, want + "\n" if want else ""))
    return steps


def test_the_docs_have_console_transcripts():
    assert len(_blocks("console")) >= 3


def test_transcripts_are_read_as_commands_exit_codes_and_output():
    block = ("$ duelbound verify x:make \\\n    --T 10   # exit 1: meant to FAIL\nline 1\n...\n"
             "$ duelbound datasets\n")
    assert _transcript(block) == [
        ("duelbound verify x:make --T 10   # exit 1: meant to FAIL", 1, "line 1\n...\n"),
        ("duelbound datasets", 0, "")]


@pytest.mark.parametrize("block", _blocks("console"))
def test_console_block_prints_what_the_doc_shows(block, tmp_path):
    # in a fresh folder (files the commands write land there), with the repository
    # importable as from its root (``examples.duel_protocol:make``)
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1",
           "COLUMNS": "100", "PYTHONPATH": path}
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for command, code, want in _transcript(block):
        args = shlex.split(command, comments=True)
        assert args[0] == "duelbound", f"a transcript runs duelbound only: {command}"
        proc = subprocess.run([sys.executable, "-m", "duelbound", *args[1:]], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == code, (f"{command}: exit {proc.returncode}, the doc says "
                                         f"{code}\n{proc.stderr[-2000:]}")
        assert not want or checker.check_output(want, proc.stdout, flags), (
            f"{command}: the doc shows\n{want}\n--- it printed ---\n{proc.stdout[-3000:]}")


def test_bounds_help_names_the_method_auto_picks(capsys):
    from duelbound.cli import main
    from duelbound.solvers.cstar import AUTO_METHOD

    with pytest.raises(SystemExit):
        main(["bounds", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"(default: auto = {AUTO_METHOD})" in out
