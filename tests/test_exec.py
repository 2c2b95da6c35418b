"""``duelbound verify --exec``: programs in any language through the line protocol, in
the same sandbox and with the same verdicts as Python algorithms."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from duelbound.checks.verify import verify_algorithm
from duelbound.checks.verify.harness import exec_spec
from duelbound.cli import main
from duelbound.theory.errors import DuelboundError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "exec"
CC = shutil.which("cc") or shutil.which("gcc")


@pytest.fixture(scope="module")
def rucb_binary(tmp_path_factory) -> str:
    if CC is None:
        pytest.skip("no C compiler (cc) on this machine")
    out = tmp_path_factory.mktemp("exec") / "rucb"
    subprocess.run([CC, "-O2", "-o", str(out), str(EXAMPLES / "rucb.c"), "-lm"], check=True)
    return str(out)


def _script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def test_the_c_example_is_judged_like_python_code(rucb_binary):
    r = verify_algorithm(None, ["cyclic", "unique_copeland"], T=4000, runs=2,
                         command=rucb_binary)
    assert r.protocol == "exec" and r.algorithm.startswith("exec ")
    cyc, ucop = r.matrices
    assert cyc.check("protocol").verdict == "PASS", r.table()     # deterministic replay too
    assert cyc.check("consistency").verdict in ("PASS", "INCONCLUSIVE")
    # RUCB assumes a Condorcet winner: without one it keeps dueling a non-winner
    assert ucop.check("consistency").verdict in ("FAIL", "INCONCLUSIVE")
    assert cyc.runs[0].steps == 4000 and cyc.runs[0].relabeled


def test_the_python_line_example_and_the_cli(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["verify", "--exec", f"{sys.executable} {EXAMPLES / 'rucb_lines.py'}",
                 "--only", "cyclic", "--T", "1500", "--runs", "1", "--json", str(out),
                 "--quiet"])
    import json

    data = json.loads(out.read_text())
    assert data["protocol"] == "exec" and code in (0, 3), capsys.readouterr()
    assert data["matrices"][0]["checks"][0]["verdict"] == "PASS"


@pytest.mark.parametrize("body,kind", [
    ("""
        import sys
        sys.stdin.readline()
        print("zero one", flush=True)
        sys.stdin.readline()
     """, "invalid-index"),
    ("""
        import sys
        K = int(sys.stdin.readline().split()[2])
        print(K, 0, flush=True)
        sys.stdin.readline()
     """, "invalid-index"),
    ("""
        import sys
        sys.stdin.readline()
        print(0, 1, flush=True)
        sys.stdin.readline()
        sys.exit(3)
     """, "exception"),
    ("""
        import sys
        sys.stdin.readline()
     """, "stopped-early"),
])
def test_protocol_violations_fail_with_the_reason(tmp_path, body, kind):
    r = verify_algorithm(None, ["cyclic"], T=200, runs=1, command=_script(tmp_path, body))
    chk = r.matrices[0].check("protocol")
    assert chk.verdict == "FAIL" and chk.statistic["first_error"]["kind"] == kind, r.table()


def test_commands_are_resolved_or_refused(tmp_path, monkeypatch):
    with pytest.raises(DuelboundError, match="no such executable"):
        exec_spec("./does-not-exist --fast")
    with pytest.raises(DuelboundError, match="not both"):
        verify_algorithm("uniform", ["cyclic"], command="true")
    (tmp_path / "data.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    spec = exec_spec("python3 data.txt --flag")
    argv = __import__("json").loads(spec[5:])
    assert Path(argv[0]).is_absolute() and argv[1] == str(tmp_path / "data.txt")
    assert argv[2] == "--flag"
