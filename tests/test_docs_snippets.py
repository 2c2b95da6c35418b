"""Every fenced ```python block of README.md and docs/*.md runs as a script.

Each block runs in its own interpreter, in a fresh temporary folder (files it writes land
there), with a 5-minute limit.  The info string after ```python may carry markers:

* ``no-run`` — a fragment that is not meant to run (it names variables defined elsewhere,
  or files the reader has); used sparingly;
* ``slow`` — runs only with ``pytest -m slow`` (e.g. a block that starts a Dask cluster).

A block that starts worker processes (Dask, multiprocessing with spawn) needs the
``if __name__ == "__main__":`` guard that a script needs; running it as a script is what
checks that the guard is there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_FENCE = re.compile(r"^```python(?P<info>[^\n]*)\n(?P<body>.*?)^```\s*$", re.M | re.S)


def _blocks() -> list:
    params = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
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


def test_bounds_help_names_the_method_auto_picks(capsys):
    from duelbound.cli import main
    from duelbound.solvers.cstar import AUTO_METHOD

    with pytest.raises(SystemExit):
        main(["bounds", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"(default: auto = {AUTO_METHOD})" in out
