"""A command line that starts at once (issue 31): ``duelbound --help`` lists the commands
without importing them or any heavy library; a command imports what it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: What ``--help`` must not load (each costs 0.1-1 s of start-up).
HEAVY = ("numpy", "numba", "scipy", "pulp", "networkx", "matplotlib", "dask", "distributed",
         "pandas", "sympy", "highspy")

_PROBE = """
import json, sys
from duelbound.cli import main
try:
    code = main({argv!r})
except SystemExit as exc:
    code = exc.code
heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r}))
print(json.dumps({{"code": code, "heavy": heavy}}), file=sys.stderr)
"""


def _loaded(argv: list[str]) -> dict:
    """Exit code and the heavy top-level packages loaded by ``duelbound ARGV`` in a fresh
    interpreter."""
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(argv=argv, heavy=HEAVY)],
                          capture_output=True, text=True, timeout=120)
    return json.loads(proc.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [["--help"], [], ["--version"], ["check-certificate", "--help"],
                                  ["no-such-command"]])
def test_help_and_the_dispatcher_load_no_heavy_module(argv):
    out = _loaded(argv)
    assert out["heavy"] == [] and out["code"] in (0, 2)


def test_a_command_does_load_what_it_runs():
    # the probe can fail: a command that computes loads numpy
    out = _loaded(["structure", "--example", "cyclic"])
    assert out["code"] == 0 and "numpy" in out["heavy"]


def test_the_listed_commands_are_the_modules_commands(capsys):
    """The names, helps and order read from the sources are those of the imported modules."""
    import importlib

    from duelbound.cli import _commands, build_parser, main

    listed = _commands()
    mods = [importlib.import_module(c.module) for c in listed]
    assert [(c.name, c.help) for c in listed] == [(m.NAME, m.HELP) for m in mods]
    assert [c.order for c in listed] == sorted(c.order for c in listed)
    full = build_parser().format_help()     # every command built
    with pytest.raises(SystemExit):
        main(["--help"])
    quick = capsys.readouterr().out
    assert quick == full and all(c.name in quick for c in listed)


def test_check_certificate_runs_without_numpy(tmp_path):
    from duelbound.cli import main

    cert = tmp_path / "cert.json"
    assert main(["bounds", "--example", "cyclic", "--certificate", str(cert)]) == 0
    out = _loaded(["check-certificate", str(cert)])
    assert out["code"] == 0 and out["heavy"] == []


@pytest.mark.parametrize("make, reason", [
    (lambda p: None, "cannot read (no such file or directory)"),
    (lambda p: p.mkdir(), "not a regular file"),
    (lambda p: os.mkfifo(p), "not a regular file"),  # refused, not waited on
    (lambda p: p.write_bytes(b"\xff\xfe{}"), "not a text file (not UTF-8)"),
    (lambda p: p.write_bytes(b"{\"a\": \"\x00\"}"), "invalid JSON"),
    (lambda p: p.write_text("{not json"), "invalid JSON")],
    ids=["missing", "directory", "fifo", "not-utf8", "nul", "not-json"])
def test_check_certificate_refuses_an_unreadable_file_in_one_line(tmp_path, make, reason):
    """The standard-library read says why in one line on stderr, exit 2, no traceback."""
    path = tmp_path / "cert.json"
    make(path)
    proc = subprocess.run([sys.executable, "-m", "duelbound", "check-certificate", str(path)],
                          capture_output=True, text=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and reason in lines[0], proc.stderr


def test_the_package_root_still_gives_its_names_on_first_use():
    code = ("import sys, duelbound\n"
            "assert 'numpy' not in sys.modules\n"
            "from duelbound import PreferenceMatrix, datasets, read_matrix\n"
            "M = datasets.load('cyclic')\n"
            "assert isinstance(M, PreferenceMatrix) and callable(read_matrix)\n"
            "assert duelbound.solvers.lower_bound and 'theory' in dir(duelbound)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
